"""`jaxfix repair` on tests/repair_projects/enginefns, under real JAX on both tiers: each
server class lists its engines' creation functions as `functools.partial(make_engine, ...,
width=N)` in a class attribute, and `build(server, devices)` calls each in a comprehension.
The wide server's partial gives its abstract mesh 4 of the 8 devices (JAX010, raised inside
the jitted step): the walk goes from the mesh, through the call the comprehension made, to
the partial's keyword in the class the run passed, and the report names that line. The full
server's partial (width 8) runs, and no file changes."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_partials_keyword_is_named_as_the_origin(tmp_path, version):
    run = repaired("enginefns", tmp_path, version)
    assert run.code == 1, run.report
    assert run.fixed == []
    assert run.changed == set()
    assert run.still_raised == ["tests/test_servers.py::test_wide"]
    left = run.left
    assert set(left) == {22}
    assert left[22].endswith(
        "the abstract mesh's sizes (x 4) come from `4` at serve/configs.py:15, "
        "written in the code"
    ), left[22]
