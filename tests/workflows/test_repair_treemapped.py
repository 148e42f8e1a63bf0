"""`jaxfix repair` on tests/repair_projects/treemapped, under real JAX on both tiers: a tree of
weights placed on the train mesh is gathered leaf by leaf by a helper (`jax.tree.map(_one,
source)`, `_one` calling `top_level_all_gather`) under `with
jax.set_mesh(self.meshes[Role.SERVE]):`, a dict of meshes read by an enum member (JAX003's
input error, raised in `_one`). The walk goes from the gather's input, through the tree the
mapping passes, to the caller's argument, which is moved onto the serve mesh leaf by leaf
(the mesh bound to a local once). The copy made under the train mesh works and is never
changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_mapped_tree_is_moved_onto_the_context_mesh_at_the_call(tmp_path, version):
    run = repaired("treemapped", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"weights/pool.py"}
    now = run.now("weights/pool.py")
    assert (
        b"        mesh = self.meshes[Role.SERVE]\n"
        b"        with jax.set_mesh(mesh):\n"
        b"            params = self.params\n"
        b"            return transfer.gather_tree(\n"
        b"                jax.tree.map(\n"
        b"                    lambda leaf: jax.device_put(leaf, NamedSharding(mesh, "
        b"jax.typeof(leaf).sharding.spec)),\n"
    ) in now, now
    assert (
        b"        with jax.set_mesh(self.meshes[Role.TRAIN]):\n"
        b"            return transfer.gather_tree(self.params)\n"
    ) in now, now
    [(path, line, _)] = run.fixed
    assert (path, line) == ("weights/transfer.py", 14)
