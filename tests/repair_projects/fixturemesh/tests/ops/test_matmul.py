import numpy as np

from kernels.matmul import axis_names, sharded_matmul


def test_sharded_matmul(mesh):
    x = np.ones((8, 16), np.float32)
    w = np.ones((16, 8), np.float32)
    np.testing.assert_allclose(np.asarray(sharded_matmul()(x, w)), x @ w)


def test_axis_names(legacy_mesh):
    assert axis_names() == ("data", "model")
