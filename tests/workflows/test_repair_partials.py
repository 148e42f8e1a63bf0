"""`jaxfix repair` on tests/repair_projects/partials, under real JAX on both tiers: JAX001 raised
at the call of a `functools.partial(jax.jit(forward).lower, params)` (bound to a local, or
returned by a `cached_property`) under an abstract mesh. The partial's function is rewritten to
trace, then lower with lowering_platforms, so every call of it goes through there; the same
partial made under a concrete mesh (`lower_on_devices`), which works, is never changed."""

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

PROJECT = Path(__file__).parents[1] / "repair_projects" / "partials"
TRACED = (
    "functools.partial(\n"
    "{indent}    lambda *args, **kwargs: jax.jit(forward).trace(*args, **kwargs).lower("
    "lowering_platforms=(jax.export.default_export_platform(),)),\n"
    "{indent}    {held},\n"
    "{indent})"
)


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_partial_of_lower_is_made_to_trace_then_lower_with_platforms(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "partials")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 0 and report["passed"], report
    assert sorted((f["code"], f["line"]) for f in report["fixed"]) == [
        ("JAX001", 30),
        ("JAX001", 53),
    ]
    assert changed(before, tree) == {"export/lowering.py"}
    old = before["export/lowering.py"].decode()
    local = "functools.partial(jax.jit(forward).lower, params)"
    expected = old.replace(
        local, TRACED.format(indent=" " * 8, held="params"), 1
    ).replace(
        "functools.partial(jax.jit(forward).lower, self.params)",
        TRACED.format(indent=" " * 8, held="self.params"),
    )
    after = snapshot(tree)["export/lowering.py"].decode()
    assert after == expected
    # the partial made under a concrete mesh is as it was
    assert after.count(local) == 1
