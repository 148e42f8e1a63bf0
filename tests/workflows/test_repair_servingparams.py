"""`jaxfix repair` on tests/repair_projects/servingparams, under real JAX on both tiers: a
lowering passes `lowering_platforms=model.aot_platforms()`, a class attribute of the serving
class picked by name, left at None by one class (JAX001 raises where the code passes the
platforms): the run shows the expression was None there, so it falls back to the default
platform, and the tests pass. The class that sets its platforms keeps them."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_platforms_the_run_shows_none_fall_back_to_the_default(tmp_path, version):
    run = repaired("servingparams", tmp_path, version)
    assert run.code == 0, run.report
    assert run.fixed == [
        (
            "serving/aot.py",
            15,
            "pass `model.aot_platforms() or (jax.export.default_export_platform(),)`",
        )
    ]
    assert run.changed == {"serving/aot.py"}
    assert run.now("serving/aot.py") == run.replaced(
        "serving/aot.py",
        (
            b"    return traced.lower(lowering_platforms=model.aot_platforms())\n",
            b"    return traced.lower(\n"
            b"        lowering_platforms=(\n"
            b"            model.aot_platforms() or (jax.export.default_export_platform(),)\n"
            b"        ),\n"
            b"    )\n",
        ),
    )
