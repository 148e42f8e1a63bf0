"""`jaxfix repair` on tests/repair_projects/branches, under real JAX on both tiers: a stage's
expert size is `cfg.x if cfg.x != -1 else DEFAULT_EXPERTS`, `cfg.x` an entry of
`stages.yaml` read into a dataclass. The walk goes into the branch the run took, decided by
the entry's value: the eval entry (4) is changed in the file; the serve entry is -1, so the
default the other branch reads is changed. The probe entry (a working stage) is not. A
conditional tested on what the launcher sets (an environment variable) is named with both
branches; a size read from an environment variable in a helper is named with the variable,
the line that reads it and the value to set it to; neither is changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_branch_the_run_took_is_changed_and_the_environment_named(
    tmp_path, version
):
    run = repaired("branches", tmp_path, version)
    assert run.code == 1, run.report
    assert run.fixed == [
        ("stages/run.py", 27, 'set "expert_parallelism" (stages.yaml:3) to 2')
    ]
    assert run.changed == {"stages.yaml", "stages/run.py"}
    assert run.now("stages.yaml") == run.replaced(
        "stages.yaml",
        (b"eval:\n  expert_parallelism: 4", b"eval:\n  expert_parallelism: 2"),
    )
    assert run.now("stages/run.py") == run.replaced(
        "stages/run.py", (b"DEFAULT_EXPERTS = 4", b"DEFAULT_EXPERTS = 2")
    )
    assert set(run.left) == {38, 44, 50}
    assert (
        "at run.py:33 gives `self.config.expert_parallelism` (line 33) or `4` (line 35), "
        "and the run's values do not say which" in run.left[38]
    )
    assert (
        '`int(os.environ.get("CHIPS_PER_HOST", "4"))`, written at stages/hosts.py:5 and '
        "computed from the environment variable CHIPS_PER_HOST when it runs"
        in run.left[44]
    )
    assert (
        "(the environment variable CHIPS_PER_HOST: set it to 2; axis 'expert' is 4 in the run;"
        in run.left[44]
    )
    # `int(os.environ.get("CORES_PER_CHIP", "2")) * 2`: the variable times 2
    assert (
        "(the environment variable CORES_PER_CHIP: set it to 1; axis 'expert' is 4 in the "
        "run;" in run.left[50]
    )
    assert run.still_raised == [
        "tests/test_run.py::test_cores",
        "tests/test_run.py::test_host",
        "tests/test_run.py::test_launch",
    ]
