"""`jaxfix repair` on tests/repair_projects/partitions, under real JAX on both tiers: the
replica mesh's data axis is `num_devices // num_partitions` (JAX002), the dividend a
launcher constant and the divisor `int(os.environ.get("NUM_PARTITIONS", "2"))` read by a
launcher function, which the suite's launcher sets to 4. The walk follows the quotient's
operands through the local names and the function's return: the report names the variable,
where it is read, its value in the run and what to set it to (2); the constant, which the
batch mesh (a stage that works) also divides, is never changed, and nothing is."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_quotient_of_an_environment_variable_is_named_with_its_setting(
    tmp_path, version
):
    run = repaired("partitions", tmp_path, version)
    assert run.code == 1, run.report
    assert run.report["stop"] == "nothing-fixed"
    assert run.changed == set()
    assert run.fixed == []
    assert run.still_raised == ["tests/test_server.py::test_replicas"]
    [left] = run.left.values()
    assert (
        "not fixed: the inner mesh's size comes from `num_devices // num_partitions`, "
        "written at serving/meshes.py:19 (read at serving/launch.py:10) and computed from "
        "the environment variable NUM_PARTITIONS when it runs"
    ) in left, left
    assert (
        "(the environment variable NUM_PARTITIONS is 4 in the run: set it to 2; axis "
        "'data' is 2 in the run; 4 would make the enclosing size 8)"
    ) in left, left
