import numpy as np

from export import gather, partitioning


def _params():
    return np.arange(16 * 8, dtype=np.float32).reshape(16, 8)


def test_fsdp_export():
    params = _params()
    np.testing.assert_allclose(gather.gather_for_export(partitioning.FsdpPartitioner(), params), params)


def test_serving_export():
    params = _params()
    np.testing.assert_allclose(gather.gather_for_export(partitioning.ServingPartitioner(), params), params)
