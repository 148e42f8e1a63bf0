"""`jaxfix repair` on tests/repair_projects/launchsizes, under real JAX on both tiers: each
failing mesh takes its sizes from the launcher's environment (`os.environ.get` with a default,
parsed in the function that reads it), so no fix is safe and each site is reported with the
origin of its sizes, `path:line` from the project, and what they would have to be. A JAX002
inner mesh (the product of a bounds variable read into a local), a JAX011 out_sharding mesh
(a shape variable parsed into a tuple) and a JAX010 abstract mesh beside eight devices (JAX
raises it inside the jitted call, away from the line that built the mesh). The stages reading
variables whose defaults are right run, and no file changes."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_sizes_from_the_environment_are_reported_at_their_origin(tmp_path, version):
    run = repaired("launchsizes", tmp_path, version)
    assert run.code == 1, run.report
    assert run.fixed == []
    assert run.changed == set()
    assert run.still_raised == [
        "tests/test_steps.py::test_host",
        "tests/test_steps.py::test_launched",
        "tests/test_steps.py::test_target",
    ]
    left = run.left
    assert set(left) == {10, 21, 36}
    assert (
        "not fixed: the inner mesh's size comes from "
        '`math.prod(int(b) for b in bounds.split(","))`, written at launch/hosts.py:9 '
        "(read at launch/hosts.py:8) and computed from the environment variable "
        "LAUNCH_CHIPS_BOUNDS when it runs"
    ) in left[10]
    assert left[21].startswith(
        "the log shows JAX raised JAX011 at this line (evidence record 2), and no fix is "
        "safe here: the out mesh's sizes (data 4, model 2) come from "
    ), left[21]
    assert (
        "at launch/hosts.py:18, computed from the environment variable LAUNCH_MESH_SHAPE "
        "when it runs: set them to (data 2, model 4), the context mesh's sizes"
    ) in left[21]
    assert left[21].endswith(
        "the run entered the context mesh (data 2, model 4) at launch/steps.py:25, "
        "called from tests/test_steps.py:20"
    )
    assert left[36].endswith(
        "and no fix is safe here: the abstract mesh's sizes (x 4) come from "
        '`int(os.environ.get("LAUNCH_TARGET_DEVICES", "4"))` at launch/hosts.py:28, '
        "computed from the environment variable LAUNCH_TARGET_DEVICES when it runs"
    ), left[36]
