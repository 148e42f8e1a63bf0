import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

from serve import predict, weights


def test_load(settings):
    loaded = weights.load(settings)
    assert loaded["head"].sharding.spec[1] == "model"


def test_host_weights(settings):
    assert weights.host_weights(settings)["head"].shape == (8, 8)


def _logits(settings, mesh):
    x = np.arange(settings.batch * settings.classes * 2, dtype=np.float32).reshape(settings.batch, -1)
    return jax.device_put(x, NamedSharding(mesh, P("batch", "model")))


def test_predictor(settings, mesh):
    logits = _logits(settings, mesh)
    np.testing.assert_allclose(predict.Predictor(settings).gathered(logits), np.asarray(logits))


def test_scorer(settings, mesh):
    logits = _logits(settings, mesh)
    np.testing.assert_allclose(predict.Scorer(settings).gathered(logits), np.asarray(logits))
