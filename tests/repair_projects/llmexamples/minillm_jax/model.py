"""A tiny decoder's parameters, their logical axes and how those map onto the mesh."""

import dataclasses
from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

BATCH_AXIS_NAME = "x"
TENSOR_AXIS_NAME = "y"
AxisName = str | None


@dataclasses.dataclass
class ShardingRules:
    """Mapping from logical array axes to physical mesh axes."""

    batch: AxisName = BATCH_AXIS_NAME
    embed: AxisName = None
    ffw: AxisName = TENSOR_AXIS_NAME
    vocab: AxisName = TENSOR_AXIS_NAME


def logical_to_physical(logical, rules):
    return P(*(getattr(rules, axis) if axis is not None else None for axis in logical))


def logical_to_sharding(logical, mesh, rules):
    assert mesh is not None
    return jax.sharding.NamedSharding(mesh, logical_to_physical(logical, rules))


@jax.tree_util.register_static
@dataclasses.dataclass
class Config:
    embed: int = 16
    ffw: int = 32
    vocab: int = 64
    rules: ShardingRules = dataclasses.field(default_factory=ShardingRules)
    mesh: jax.sharding.Mesh | None = None
    # the decode sub-mesh (x, y) the sampler runs on inside the serving mesh
    decode_axes: tuple[int, int] = (2, 4)


LOGICAL = {"embed": ("vocab", "embed"), "up": ("embed", "ffw"), "down": ("ffw", "embed")}


def shapes(cfg):
    sizes = {"embed": cfg.embed, "ffw": cfg.ffw, "vocab": cfg.vocab}
    return {name: tuple(sizes[a] for a in axes) for name, axes in LOGICAL.items()}


def shardings(cfg):
    return {
        name: logical_to_sharding(axes, cfg.mesh, cfg.rules)
        for name, axes in LOGICAL.items()
    }


def init_weights(key, cfg):
    @partial(jax.jit, out_shardings=shardings(cfg))
    def _init(key):
        keys = iter(jax.random.split(key, len(LOGICAL)))
        return {
            name: jax.random.normal(next(keys), shape, jnp.float32) * 0.02
            for name, shape in shapes(cfg).items()
        }

    return _init(key)


def forward(x, weights):
    return jax.nn.gelu(x @ weights["up"])
