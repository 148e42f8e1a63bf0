"""`jaxfix repair` on tests/repair_projects/namedsizes, under real JAX on both tiers: each inner
mesh's sizes are read from an {axis name: size} dict (`tuple(sizes.get(name, 1) for name in
AXES)`, or `[sizes[name] for name in AXES]`), the dict an entry of `stages/config.py`'s
STAGES. The walk follows the axis whose size differs to that name's entry and sets it there
(the eval and serve entries); the train entry, read by a stage that works, is never changed;
the probe entry has no entry for the axis (its size is `.get`'s default): reported with the
dict's line, never changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.test_repair import (
    changed,
    copied,
    python,
    repair_with_pytest,
    snapshot,
)

PROJECT = Path(__file__).parents[1] / "repair_projects" / "namedsizes"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_sizes_read_by_axis_name_are_set_in_that_entry(tmp_path, version):
    tree = copied(PROJECT, tmp_path / "namedsizes")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report
    assert [(f["path"], f["line"], f["detail"]) for f in report["fixed"]] == [
        (
            "stages/run.py",
            11,
            "set axis 'model' to 4 where its size is written "
            "(STAGES['eval']['model'], stages/config.py:3)",
        ),
        (
            "stages/run.py",
            24,
            "set axis 'data' to 2 where its size is written "
            "(STAGES['serve']['data'], stages/config.py:5)",
        ),
    ]
    assert changed(before, tree) == {"stages/config.py"}
    assert snapshot(tree)["stages/config.py"] == before["stages/config.py"].replace(
        b'"eval": {"data": 2, "model": 2}', b'"eval": {"data": 2, "model": 4}'
    ).replace(b'"serve": {"data": 1, "model": 4}', b'"serve": {"data": 2, "model": 4}')
    left = {s["line"]: s["detail"] for s in report["left"]}
    assert set(left) == {17}
    assert "the dict at config.py:4 has no one entry 'model'" in left[17]
