import jax
from jax.sharding import AbstractMesh


def mesh_from(axes):
    return AbstractMesh(tuple(axes.values()), tuple(axes.keys()))


def sizes_inside(outer, inner):
    with jax.sharding.use_abstract_mesh(outer):
        with jax.sharding.use_abstract_mesh(inner):
            return dict(jax.sharding.get_abstract_mesh().shape)


class MoELayer:
    def __init__(self, config):
        self.outer = mesh_from(config.mesh)
        self.inner = mesh_from(config.expert_mesh)

    def sizes(self):
        return sizes_inside(self.outer, self.inner)


class DraftLayer:
    def __init__(self, config):
        self.outer = mesh_from(config.mesh)
        self.inner = mesh_from(config.draft_mesh)

    def sizes(self):
        return sizes_inside(self.outer, self.inner)


class WideDraftLayer:
    """Runs the draft mesh inside a wider one: its default is right here."""

    def __init__(self, config):
        self.inner = mesh_from(config.draft_mesh)

    def sizes(self):
        return sizes_inside(AbstractMesh((4, 4), ("data", "model")), self.inner)
