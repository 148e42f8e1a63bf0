"""`jaxfix repair` on tests/repair_projects/passedmeshes, under real JAX on both tiers: a
helper makes its gather's out_sharding on the mesh its caller passes
(`gather_for_decoding(params, mesh)`, the `NamedSharding` made in a nested function that
`jax.tree.map` calls), and the caller runs it under `with jax.set_mesh(train_mesh):` with
the decode mesh: JAX's context-mesh error. The run's frames say which argument carried the
decode mesh (a local built in the caller; a parameter a test passed down, forwarded by a
method's keyword; `self.decode_mesh`, stored once by `__init__`): that argument becomes the
context mesh, also where the `with` enters it through a version switch jaxfix does not
follow (`compat.set_mesh`, JAX's `set_mesh` or `use_mesh` by the installed version): the run
entered the context there, and built the mesh that reference holds. A dict of parameters on
the training mesh gathered (in a jitted lambda) under a decode mesh entered that way is
moved onto it leaf by leaf at the caller's call. A helper that also places its
result on the mesh after the gather is left, named with where the run built both meshes; a
caller that gathers under the decode mesh itself works and is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import PROJECTS, repaired
from workflows.test_repair import copied, python, repair_with_pytest, snapshot


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_argument_that_carried_the_out_meshs_mesh_takes_the_context_mesh(
    tmp_path, version
):
    run = repaired("passedmeshes", tmp_path, version)
    assert run.code == 1, run.report  # prepare_and_place is left
    assert run.changed == {"decoding/serve.py"}
    assert run.now("decoding/serve.py") == run.replaced(
        "decoding/serve.py",
        (
            b"gather_for_decoding(params, decode_mesh)\n    return decode_params",
            b"gather_for_decoding(params, train_mesh)\n    return decode_params",
        ),
        (b"prepare(params, mesh=decode)", b"prepare(params, mesh=train)"),
        (
            b"gather_for_decoding(params, self.decode_mesh)",
            b"gather_for_decoding(params, self.train_mesh)",
        ),
        (
            b"import jax\n",
            b"import jax\nfrom jax.sharding import NamedSharding\n",
        ),
        (
            b"        return gather_replicated(params)\n",
            b"        return gather_replicated(\n"
            b"            jax.tree.map(\n"
            b"                lambda leaf: jax.device_put(leaf, NamedSharding(decode_mesh, "
            b"jax.typeof(leaf).sharding.spec)),\n"
            b"                params,\n"
            b"            ),\n"
            b"        )\n",
        ),
    )
    assert run.still_raised == ["tests/test_serve.py::test_prepare_and_place"]
    ((path, detail),) = [(s["path"], s["detail"]) for s in run.report["left"]]
    assert path == "decoding/params.py"
    assert (
        "the run built the out mesh (data 2, model 4) at decoding/meshes.py:12, "
        "called from decoding/serve.py:33"
    ) in detail


@pytest.mark.jax
def test_without_unsafe_fixes_nothing_is_changed(tmp_path):
    tree = copied(PROJECTS / "passedmeshes", tmp_path / "passedmeshes")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(tree, tmp_path, python(JAX_VERSIONS[0]), "-q")
    assert code == 1, report
    assert snapshot(tree) == before
