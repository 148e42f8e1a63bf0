"""Model presets."""

import dataclasses

from minillm_jax.model import Config

TINY = Config()
# the serving preset samples on half of the slice
SERVING = dataclasses.replace(TINY, decode_axes=(2, 2))
