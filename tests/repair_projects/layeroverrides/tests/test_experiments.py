import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from models import experiments, meshes


def gathered_shape(mesh, layer):
    with jax.set_mesh(mesh):
        table = jax.device_put(jnp.zeros((64, 16)), NamedSharding(mesh, P("data", None)))
        return layer.lookup(table)


def test_wide():
    experiment = experiments.Wide()
    mesh = meshes.device_mesh(experiment.SHAPE, experiment.NAMES)
    assert gathered_shape(mesh, experiment.embedding()) == (64, 16)


def test_tall():
    experiment = experiments.Tall()
    mesh = meshes.device_mesh(experiment.SHAPE, experiment.NAMES)
    assert gathered_shape(mesh, experiment.embedding()) == (64, 16)
