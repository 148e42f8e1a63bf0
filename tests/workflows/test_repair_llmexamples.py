"""`jaxfix repair` on tests/repair_projects/llmexamples, under real JAX on both tiers: a small
decoder in the style of jax-llm-examples (a `Config` dataclass holding the mesh and the
`ShardingRules` from logical to physical axes, presets made by `dataclasses.replace`, tests
building their mesh in `setup_method`), whose suite fails four ways at once:

- JAX001: `jit(forward).trace(...).lower()` of a config whose mesh is a serving topology
  (an `AbstractMesh`, no devices): lowering_platforms is added;
- JAX002: the sampler's `use_abstract_mesh` of the `decode_axes` of the serving preset
  (`(2, 2)`, under the 8-device mesh), which the test copies (`dataclasses.replace`): the
  preset, which nothing else reads, is changed where it is written (`configs.py`);
- JAX005: `@partial(jax.shard_map, ..., check_rep=False)`, which the run shows raising on the
  decorator's first line: renamed to `check_vma=`;
- JAX003: a dict of weights on the training mesh gathered, in a jitted lambda, under the
  sampling mesh a test enters: moved there leaf by leaf (`jax.tree.map`).

The suite then passes. The tests that work (the tiny preset's sampler, lowering on the
devices, gathering on the training mesh, the forward pass) and the modules they alone use
are not changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_suite_failing_four_ways_passes_after_one_repair(tmp_path, version):
    run = repaired("llmexamples", tmp_path, version)
    assert run.code == 0, run.report
    assert sorted((f["code"], f["path"]) for f in run.report["fixed"]) == [
        ("JAX001", "minillm_jax/export.py"),
        ("JAX002", "minillm_jax/decode.py"),
        ("JAX003", "minillm_jax/sampling.py"),
        ("JAX005", "minillm_jax/kernels.py"),
    ]
    assert (
        "(SERVING.decode_axes, minillm_jax/configs.py:9)"
        in [f["detail"] for f in run.report["fixed"] if f["code"] == "JAX002"][0]
    )
    assert run.changed == {
        "minillm_jax/configs.py",
        "minillm_jax/export.py",
        "minillm_jax/kernels.py",
        "tests/test_model.py",
    }
    assert run.now("minillm_jax/configs.py") == run.replaced(
        "minillm_jax/configs.py",
        (b"decode_axes=(2, 2)", b"decode_axes=(2, 4)"),
    )
    assert run.now("minillm_jax/kernels.py") == run.replaced(
        "minillm_jax/kernels.py", (b"check_rep=False", b"check_vma=False")
    )
    assert run.now("minillm_jax/export.py") == run.replaced(
        "minillm_jax/export.py",
        (
            b"traced.lower()",
            b"traced.lower(lowering_platforms=(jax.export.default_export_platform(),))",
        ),
    )
    test = run.now("tests/test_model.py").decode()
    assert "dataclasses.replace(configs.SERVING, mesh=self.mesh)\n" in test
    assert (
        "jax.tree.map(\n"
        "                    lambda leaf: jax.device_put(leaf, NamedSharding(sample_mesh, "
        "jax.typeof(leaf).sharding.spec)),\n"
        "                    weights,\n"
        "                ),"
    ) in test
    # the working tests read as they did
    assert test.count("sampling.gather_weights(weights)") == 1
    assert "decode.last_position(np.zeros((8, 4), np.int32), self.cfg)" in test
