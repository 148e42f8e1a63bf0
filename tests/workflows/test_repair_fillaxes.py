"""`jaxfix repair` on tests/repair_projects/fillaxes, under real JAX on both tiers: inner meshes
whose axes are given as `(("batch", -1), ("model", 2))`, the `-1` axis filled with the rest of
the devices (`num_devices // known if size == -1 else size`). The value the run's arithmetic
came from is the number of devices, not a size: it is set to the enclosing mesh's size where
it is written (a constant, a literal argument); `HALF`, which a working stage reads too, is
replaced at the failing stage's read only; `jax.device_count() // 2` is reported with its line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from jaxfix.analysis.ast_engine.written_at import _filled_from
from workflows.test_repair import (
    changed,
    copied,
    python,
    repair_with_pytest,
    snapshot,
)

PROJECT = Path(__file__).parents[1] / "repair_projects" / "fillaxes"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_number_of_devices_a_minus_one_axis_is_filled_from_is_set_where_written(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "fillaxes")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report  # the count computed from the host is left
    assert changed(before, tree) == {"stages/config.py", "stages/run.py"}
    after = {k: v.decode() for k, v in snapshot(tree).items()}
    old = {k: v.decode() for k, v in before.items()}
    assert after["stages/config.py"] == old["stages/config.py"].replace(
        "EVAL_DEVICES = 4", "EVAL_DEVICES = 8"
    )
    assert "HALF = 4" in after["stages/config.py"]
    assert after["stages/run.py"] == (
        old["stages/run.py"]
        .replace("_inside(config.EVAL_AXES, 2)", "_inside(config.EVAL_AXES, 8)")
        .replace(
            "_inside(config.EVAL_AXES, config.HALF)", "_inside(config.EVAL_AXES, 8)"
        )
    )
    (left,) = report["left"]
    assert left["line"] == 10
    assert (
        "the inner mesh's size comes from `jax.device_count() // 2`, written at "
        "stages/run.py:23 and computed from `jax.device_count()` when it runs (the number "
        "of devices its `-1` axis is filled from is 4 in the run; 8 would make the "
        "enclosing size 8)"
    ) in left["detail"]


@pytest.mark.parametrize(
    ("expr", "total"),
    [
        ("tuple(n // known if s == -1 else s for _, s in axes)", "n"),
        ("[n // known if s == -1 else s for s in sizes]", "n"),
        ("[s if s != -1 else total // k for s in sizes]", "total"),
        ("(n // k if s < 0 else s for s in sizes)", "n"),
        # not the idiom: another value kept, a product, no -1 test, a computed count
        ("[n // k if s == -1 else 2 for s in sizes]", None),
        ("[n * k if s == -1 else s for s in sizes]", None),
        ("[n // k if s == 0 else s for s in sizes]", None),
        ("[f(n) // k if s == -1 else s for s in sizes]", None),
        ("[n // k if s == -1 else s for s in a for t in b]", None),
    ],
)
def test_sizes_filled_from_a_number_of_devices_name_that_number(expr, total):
    found = _filled_from(ast.parse(expr, mode="eval").body)
    assert (found.id if found is not None else None) == total
