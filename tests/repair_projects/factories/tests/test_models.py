import math
import unittest

import jax

from models import runner
from models.config import ModelConfig


class TestModels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        explicit = (jax.sharding.AxisType.Explicit,) * 2
        cls.mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=explicit)

    def _model(self, config):
        return runner.Model(config, self.mesh)

    def test_small_decode(self):
        assert self._model(ModelConfig.small(True)).decode_sizes() == (8, 1)

    def test_large_decode(self):
        sizes = self._model(ModelConfig.large(True)).decode_sizes()
        assert math.prod(sizes) == 8

    def test_hosts_decode(self):
        sizes = self._model(ModelConfig.hosts()).decode_sizes()
        assert math.prod(sizes) == 8

    def test_eval_layout_dp(self):
        flags = runner.parse(["--eval-layout", "dp"])
        assert self._model(ModelConfig.small()).eval_sizes(flags) == (8, 1)

    def test_eval_layout_dp_tpsp(self):
        flags = runner.parse(["--eval-layout", "dp_tpsp"])
        sizes = self._model(ModelConfig.small()).eval_sizes(flags)
        assert math.prod(sizes) == 8


def test_gather_eval_losses():
    from models.gather import gather_eval_losses

    assert float(gather_eval_losses(jax.numpy.arange(8.0))) == 28.0


def test_gather_train_losses():
    from models.gather import gather_train_losses

    assert float(gather_train_losses(jax.numpy.arange(8.0))) == 28.0


def _mesh():
    explicit = (jax.sharding.AxisType.Explicit,) * 2
    return jax.make_mesh((4, 2), ("data", "model"), axis_types=explicit)


def test_delayed_amax():
    from models.recipes import amax_sizes

    assert amax_sizes(_mesh(), "delayed") == (4, 2)


def test_block_amax():
    from models.recipes import amax_sizes

    assert amax_sizes(_mesh(), "block") == (8, 1)


def test_tiled_amax():
    from models.recipes import amax_sizes

    assert math.prod(amax_sizes(_mesh(), "tiled")) == 8
