"""Partitioners: each owns a training mesh and the mesh its checkpoint export gathers on."""
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from export import meshes


class FsdpPartitioner:
    MESH_AXES = ("data", "fsdp")
    EXPORT_AXES = ("data", "model")

    def __init__(self, dp=2, fsdp=4):
        self.mesh = meshes.create_mesh(dp, fsdp, self.MESH_AXES)
        self.export_mesh = meshes.create_mesh(dp, fsdp, self.EXPORT_AXES)

    def param_sharding(self):
        return NamedSharding(self.mesh, P(None, self.MESH_AXES[1]))

    def export_sharding(self):
        reduced = self.export_mesh.axis_names[1]
        return NamedSharding(self.export_mesh, P(None, None, reduced={reduced}))


class ServingPartitioner:
    MESH_AXES = ("batch", "model")
    EXPORT_AXES = ("batch", "model")

    def __init__(self, dp=4, tp=2):
        self.mesh = meshes.create_mesh(dp, tp, self.MESH_AXES)
        self.export_mesh = meshes.create_mesh(dp, tp, self.EXPORT_AXES)

    def param_sharding(self):
        return NamedSharding(self.mesh, P(None, self.MESH_AXES[1]))

    def export_sharding(self):
        reduced = self.export_mesh.axis_names[1]
        return NamedSharding(self.export_mesh, P(None, None, reduced={reduced}))
