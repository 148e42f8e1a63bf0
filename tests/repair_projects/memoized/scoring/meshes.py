import functools

import jax

from scoring.config import ScoringConfig


@functools.lru_cache(maxsize=None)
def scoring_mesh(config: ScoringConfig):
    size = config.batch_size * config.model_size
    return jax.make_mesh(
        (config.batch_size, config.model_size),
        ("batch", "model"),
        devices=jax.devices()[:size],
        axis_types=(jax.sharding.AxisType.Auto,) * 2,
    )
