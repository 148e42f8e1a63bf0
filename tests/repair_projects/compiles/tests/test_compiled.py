import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from export.compiled import (
    AXES,
    compiled_cos,
    compiled_exp,
    compiled_on_devices,
    compiled_sin,
    data_parallel,
)


def _data():
    mesh = jax.make_mesh((data_parallel(), 4), AXES)
    return jax.device_put(np.zeros((8, 8), np.float32), NamedSharding(mesh, P("x")))


def test_sin():
    assert float(compiled_sin()(_data()).sum()) == 0.0


def test_cos():
    assert float(compiled_cos()(_data()).sum()) == 64.0


def test_exp():
    assert float(compiled_exp()(_data()).sum()) == 64.0


def test_on_devices():
    assert float(compiled_on_devices()(_data()).sum()) == 0.0
