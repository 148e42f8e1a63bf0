"""`jaxfix repair` on tests/repair_projects/factorydefaults, under real JAX on both tiers: a
layer gathers with `self.out_sharding` under `with jax.set_mesh(self.mesh):`, the attribute
stored by `__init__` from what a factory passes it: the factory's keyword default, a
NamedSharding on a hand-built AbstractMesh (no device, so JAX raises "Context mesh ... should
match the mesh of sharding ..."). The stores in `__init__` are followed back to the
constructor's argument and the factory's default (a class constructed by a factory, a class
made in its factory's body, `__init__`'s own default), and the default becomes its bare
PartitionSpec, which means the mesh entered around the gather. A call passing its own
out_sharding works and is unchanged; a layer whose out_sharding is also read elsewhere is
named with both lines, not changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired

SPEC = b'NamedSharding(SPEC_MESH, PartitionSpec(reduced={"x"}))'
BARE = b'PartitionSpec(reduced={"x"})'


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_an_out_sharding_from_a_factory_s_default_is_put_on_the_context_mesh(
    tmp_path, version
):
    run = repaired("factorydefaults", tmp_path, version)
    assert run.code == 1, run.report
    assert [(p, line) for p, line, _ in run.fixed] == [
        ("serve/layers.py", 27),
        ("serve/layers.py", 76),
        ("serve/layers.py", 94),
    ]
    assert run.fixed[0][2] == (
        "put the out_sharding on the context mesh: the default of `out_sharding` of "
        "`make_gather` (line 33) becomes its PartitionSpec, which means the mesh entered "
        "around the gather"
    )
    assert "of `Local.__init__` (line 86)" in run.fixed[2][2]
    assert run.changed == {"serve/layers.py"}
    before = run.before["serve/layers.py"]
    assert before.count(SPEC) == 4
    # the summary's default (the second) is the one left as it was
    first, summary, scaled, local, end = before.split(SPEC)
    assert run.now("serve/layers.py") == b"".join(
        [first, BARE, summary, SPEC, scaled, BARE, local, BARE, end]
    )
    assert set(run.left) == {48}
    assert (
        "not fixed: `self.out_sharding` is stored at line 43 and also read at line 53"
        in run.left[48]
    )
    assert run.still_raised == ["tests/test_layers.py::test_summary"]
