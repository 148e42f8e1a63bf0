"""`jaxfix repair` on tests/repair_projects/exports, under real JAX on both tiers: a helper
lowers with `.lower(lowering_platforms=platforms)`, its `platforms` parameter `None` unless
given, and one caller leaves it out (JAX001 raises in the helper, where the code passes the
platforms): the call the run came through passes them, and the tests pass. The callers that
give the platforms, by position or by keyword, are never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_caller_leaving_the_platforms_parameter_at_none_passes_them(
    tmp_path, version
):
    run = repaired("exports", tmp_path, version)
    assert run.code == 0, run.report
    assert run.fixed == [
        (
            "export/lowering.py",
            18,
            "pass platforms=(jax.export.default_export_platform(),) "
            "(lower_for_serving, export/steps.py:9)",
        )
    ]
    assert run.changed == {"export/steps.py"}
    assert run.now("export/steps.py") == run.replaced(
        "export/steps.py",
        (b"from export", b"import jax\nfrom export"),
        (
            b"    lowered = lower_for_serving(double, (8, 4))\n",
            b"    lowered = lower_for_serving(\n"
            b"        double,\n"
            b"        (8, 4),\n"
            b"        platforms=(jax.export.default_export_platform(),),\n"
            b"    )\n",
        ),
    )
