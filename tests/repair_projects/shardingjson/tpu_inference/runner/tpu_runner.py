import jax
from jax.sharding import AbstractMesh, AxisType

from tpu_inference.sharding import ShardingConfigManager

MESH_AXIS_NAMES = ("data", "model")
MOE_AXIS_NAMES = ("expert", "model")


class TPUModelRunner:
    def __init__(self, vllm_config):
        self.vllm_config = vllm_config
        self.sharding_config = ShardingConfigManager.from_vllm_config(vllm_config)
        self.mesh = self._create_mesh()

    def _create_mesh(self):
        sc = self.sharding_config
        return jax.make_mesh(
            (sc.dp_size, sc.tp_size),
            MESH_AXIS_NAMES,
            axis_types=(AxisType.Explicit,) * 2,
        )

    def _moe_mesh(self):
        sc = self.sharding_config
        return AbstractMesh(
            (sc.expert_size, sc.tp_size), MOE_AXIS_NAMES, axis_types=(AxisType.Explicit,) * 2
        )

    def moe_layout(self):
        with jax.set_mesh(self.mesh):
            with jax.sharding.use_abstract_mesh(self._moe_mesh()):
                return dict(jax.sharding.get_abstract_mesh().shape)
