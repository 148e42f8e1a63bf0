import jax
from jax.sharding import AbstractMesh, AxisType

MESH_AXIS_NAMES = ("replica", "mdl")


class ModelParams:
    def __init__(self):
        self.ici_mesh_shape = None
        self.decode_mesh_shape = None
        self.mesh_axis_names = MESH_AXIS_NAMES


class BaseExperiment:
    ICI_MESH_SHAPE = [1, 8]
    DECODE_MESH_SHAPE = [1, 8]

    def task(self):
        model_p = ModelParams()
        model_p.ici_mesh_shape = self.ICI_MESH_SHAPE
        model_p.decode_mesh_shape = self.DECODE_MESH_SHAPE
        return model_p


class Decoder:
    def __init__(self, params):
        self.params = params
        self.mesh = jax.make_mesh(
            tuple(params.ici_mesh_shape),
            params.mesh_axis_names,
            axis_types=(AxisType.Explicit,) * 2,
        )

    def decode_axes(self):
        decode = AbstractMesh(
            tuple(self.params.decode_mesh_shape),
            self.params.mesh_axis_names,
            axis_types=(AxisType.Explicit,) * 2,
        )
        with jax.set_mesh(self.mesh):
            with jax.sharding.use_abstract_mesh(decode):
                return jax.sharding.get_abstract_mesh().axis_sizes
