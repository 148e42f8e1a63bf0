import jax

from srt.layers.moe import EPMoE
from srt.mesh_utils import create_device_mesh


class ModelConfig:
    def __init__(self, model_path):
        self.model_path = model_path
        self.num_experts = 8


class ModelRunner:
    def __init__(self, server_args):
        self.server_args = server_args
        self.model_config = ModelConfig(server_args.model_path)
        self.model_config.ep_size = server_args.ep_size
        self.mesh = create_device_mesh([server_args.dp_size, server_args.tp_size])
        self.moe = EPMoE(
            self.model_config.num_experts,
            ep_size=getattr(self.model_config, "ep_size", 1),
            tp_size=server_args.tp_size,
            mesh=self.mesh,
        )

    def warmup(self):
        with jax.set_mesh(self.mesh):
            return self.moe.layout()


class DraftRunner:
    """The speculative draft model: its experts on a mesh of their own sizes."""

    def __init__(self, server_args):
        self.mesh = create_device_mesh([server_args.dp_size, server_args.tp_size])
        self.moe = EPMoE(
            8,
            ep_size=server_args.draft_ep_size,
            tp_size=server_args.tp_size,
            mesh=self.mesh,
        )

    def warmup(self):
        with jax.set_mesh(self.mesh):
            return self.moe.layout()


class ContextParallelRunner:
    """Attention split along the sequence over `cp_size` devices."""

    def __init__(self, server_args):
        self.mesh = create_device_mesh([server_args.dp_size, server_args.tp_size])
        self.cp = EPMoE(8, server_args.cp_size, server_args.tp_size, self.mesh)

    def warmup(self):
        with jax.set_mesh(self.mesh):
            return self.cp.layout()


class AttentionRunner:
    """Attention replicated over `attn_dp_size` groups of the model's devices."""

    def __init__(self, server_args):
        self.mesh = create_device_mesh([server_args.dp_size, server_args.tp_size])
        self.attn = EPMoE(8, server_args.attn_dp_size, server_args.tp_size, self.mesh)

    def warmup(self):
        with jax.set_mesh(self.mesh):
            return self.attn.layout()


class WideAttentionRunner:
    """Attention whose data groups are the mesh's own first axis."""

    def __init__(self, server_args):
        self.mesh = create_device_mesh([server_args.attn_dp_size, 2])
        self.attn = EPMoE(8, server_args.attn_dp_size, 2, self.mesh)

    def warmup(self):
        with jax.set_mesh(self.mesh):
            return self.attn.layout()
