"""`jaxfix repair` on tests/repair_projects/computedsizes, under real JAX on both tiers: the
plans' abstract meshes gather their sizes from configs in ways other than a literal tuple:
`tuple(cfg.sizes[a] for a in AXES)` of a dict field, `dict(zip(names, shape))` read back by
those names, a list filled by `append` in a loop (JAX002). Each differing axis is set where
it is written in `plans/config.py`; the train plan, which shares the factory and works, is
never changed. `(devices // model, model)` makes two axes of one value: which to change the
code does not say, so it is named and left (a fix at `SERVE_MODEL` alone broke the other
axis). A scorer's out_sharding on a mesh of `reshape(jax.device_count() // 2, 2)` devices
under another context mesh (JAX011, an axis the context lacks) is named with that line and
its size in the run, never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_sizes_gathered_from_configs_are_set_where_written(tmp_path, version):
    run = repaired("computedsizes", tmp_path, version)
    assert run.code == 1, run.report
    assert run.changed == {"plans/config.py"}
    assert run.now("plans/config.py") == run.replaced(
        "plans/config.py",
        (
            b'EVAL = PlanConfig(sizes={"data": 2, "model": 2})',
            b'EVAL = PlanConfig(sizes={"data": 2, "model": 4})',
        ),
        (b"SCORE_SHAPE = (2, 2)", b"SCORE_SHAPE = (2, 4)"),
        (
            b'PROBE_PARALLELISM = {"data": 2, "model": 1}',
            b'PROBE_PARALLELISM = {"data": 2, "model": 4}',
        ),
    )
    assert run.fixed == [
        (
            "plans/run.py",
            16,
            "set axis 'model' to 4 where its size is written "
            "(EVAL.sizes['model'], plans/config.py:14)",
        ),
        (
            "plans/run.py",
            22,
            "set axis 'model' to 4 where its size is written "
            "(SCORE_SHAPE[1], plans/config.py:15)",
        ),
        (
            "plans/run.py",
            28,
            "set axis 'model' to 4 where its size is written "
            "(PROBE_PARALLELISM['model'], plans/config.py:16)",
        ),
    ]
    assert run.still_raised == [
        "tests/test_plans.py::test_blank_scores",
        "tests/test_plans.py::test_serve",
    ]
    assert run.left[34].endswith(
        "`model` at meshes.py:32 is also an operand of `devices // model`, another axis's "
        "size: which value to change the code does not say"
    ), run.left[34]
    assert (
        "not fixed: the context mesh has no axis 'replica'; the out mesh's sizes "
        "(replica 4, model 2) come from `jax.device_count() // 2` at plans/scores.py:12, "
        "computed from `jax.device_count()` when it runs"
    ) in run.left[22], run.left[22]
