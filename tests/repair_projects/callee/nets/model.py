"""A two-layer model whose mesh its config's factory builds."""

from dataclasses import dataclass

import jax.numpy as jnp

from nets import mesh_utils
from nets.layers import Embed, ShardedDense


@dataclass(frozen=True)
class ModelConfig:
    parallelism: tuple = (4, 2)
    axes: tuple = ("data", "model")
    vocab: int = 16
    width: int = 8


class Model:
    def __init__(self, config, mesh=None):
        self.config = config
        self.mesh = mesh or mesh_utils.create_device_mesh(config.parallelism, config.axes)
        self.embed = Embed(self.mesh)
        self.hidden = ShardedDense(self.mesh)

    def init(self):
        c = self.config
        return {
            "table": self.embed.place(jnp.ones((c.vocab, c.width))),
            "kernel": jnp.ones((c.width, c.width)),
        }

    def forward(self, params, x):
        return self.hidden(params["kernel"], x)

    def lookup(self, params, tokens):
        return self.embed(params["table"], tokens)
