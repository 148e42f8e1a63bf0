import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, set_mesh

from minillm_jax import configs, decode, export, kernels, sampling
from minillm_jax import model as mini


class TestModel:
    def setup_method(self):
        self.mesh = jax.make_mesh(
            (2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2
        )
        self.cfg = dataclasses.replace(configs.TINY, mesh=self.mesh)

    def test_forward(self):
        weights = mini.init_weights(jax.random.key(0), self.cfg)
        x = jax.device_put(
            np.ones((8, 16), np.float32),
            mini.logical_to_sharding(("batch", None), self.mesh, self.cfg.rules),
        )
        with set_mesh(self.mesh):
            out = mini.forward(x, weights)
        assert out.shape == (8, 32)

    def test_last_position_tiny(self):
        with set_mesh(self.mesh):
            shape = decode.last_position(np.zeros((8, 4), np.int32), self.cfg)
        assert shape == (8, 1)

    def test_last_position_serving(self):
        cfg = dataclasses.replace(configs.SERVING, mesh=self.mesh)
        with set_mesh(self.mesh):
            shape = decode.last_position(np.zeros((8, 4), np.int32), cfg)
        assert shape == (8, 1)

    def test_lower_for_serving(self):
        cfg = dataclasses.replace(configs.TINY, mesh=export.serving_topology(2, 4))
        lowered = export.lower_forward(cfg)
        assert "stablehlo" in lowered.as_text()

    def test_lower_on_devices(self):
        lowered = export.lower_forward(self.cfg)
        assert "stablehlo" in lowered.as_text()

    def test_ffw_block(self):
        x = jax.device_put(np.ones((8, 16), np.float32), mini.logical_to_sharding(("batch", None), self.mesh, self.cfg.rules))
        up = jax.device_put(np.ones((16, 32), np.float32), mini.logical_to_sharding((None, "ffw"), self.mesh, self.cfg.rules))
        assert kernels.ffw_block(x, up, self.cfg).shape == (8, 32)

    def test_gather_for_sampling(self):
        weights = mini.init_weights(jax.random.key(0), self.cfg)
        sample_mesh = jax.make_mesh(
            (4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2
        )
        with set_mesh(sample_mesh):
            gathered = sampling.gather_weights(weights)
        assert gathered["up"].shape == (16, 32)

    def test_gather_on_training_mesh(self):
        weights = mini.init_weights(jax.random.key(0), self.cfg)
        with set_mesh(self.mesh):
            gathered = sampling.gather_weights(weights)
        assert gathered["down"].shape == (32, 16)
