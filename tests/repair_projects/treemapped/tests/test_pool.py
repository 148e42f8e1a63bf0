import jax
import numpy as np

from weights.pool import WeightPool
from weights.roles import Role


def _meshes():
    explicit = (jax.sharding.AxisType.Explicit,) * 2
    return {
        Role.TRAIN: jax.make_mesh((2, 4), ("data", "model"), axis_types=explicit),
        Role.SERVE: jax.make_mesh((1, 8), ("data", "model"), axis_types=explicit),
    }


def test_serve_copy():
    pool = WeightPool(_meshes())
    copied = pool.serve_copy()
    assert np.allclose(np.asarray(copied["w"]), np.arange(64.0).reshape(8, 8))


def test_train_copy():
    pool = WeightPool(_meshes())
    copied = pool.train_copy()
    assert np.allclose(np.asarray(copied["w"]), np.arange(64.0).reshape(8, 8))
