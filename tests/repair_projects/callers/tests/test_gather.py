import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from serve.meshes import make
from serve.model import gather


def test_gather_onto_the_serving_mesh():
    x = jax.device_put(jnp.arange(8), NamedSharding(make("train"), P("x")))
    y = gather(x, make("serve"))
    assert y.tolist() == list(range(8))
    assert dict(y.sharding.mesh.shape) == {"x": 4, "y": 2}
