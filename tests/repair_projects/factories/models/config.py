"""Model configs built by per-size classmethods through one keyword factory."""

import dataclasses

import jax


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    layers: int
    width: int
    decode_mesh_shape: tuple[int, int]

    @classmethod
    def _from_param(cls, wide: bool = False, **kwargs):
        if wide:
            kwargs["width"] = 2 * kwargs["width"]
        kwargs["decode_mesh_shape"] = tuple(kwargs["decode_mesh_shape"])
        return cls(**kwargs)

    @classmethod
    def small(cls, wide: bool = False):
        return cls._from_param(layers=2, width=8, decode_mesh_shape=(8, 1), wide=wide)

    @classmethod
    def large(cls, wide: bool = False):
        return cls._from_param(layers=4, width=16, decode_mesh_shape=(2, 2), wide=wide)

    @classmethod
    def hosts(cls, wide: bool = False):
        return cls._from_param(
            layers=4, width=16, decode_mesh_shape=(2 * jax.process_count(), 2), wide=wide
        )
