import jax
import jax.numpy as jnp

from nets import mesh_utils
from nets.model import Model, ModelConfig
from nets.stages import batch_total


def test_forward():
    model = Model(ModelConfig())
    params = model.init()
    out = model.forward(params, jnp.ones((8, 8)))
    assert out.shape == (8, 8)


def test_lookup():
    model = Model(ModelConfig(parallelism=(8, 1)))
    params = model.init()
    assert jax.jit(model.lookup)(params, jnp.arange(4)).shape == (4, 8)


def test_serving_forward():
    mesh = mesh_utils.create_serving_mesh((4, 2))
    model = Model(ModelConfig(), mesh=mesh)
    assert model.forward(model.init(), jnp.ones((8, 8))).shape == (8, 8)


def test_batch_total():
    assert float(batch_total(jnp.ones((8, 4)))) == 32.0
