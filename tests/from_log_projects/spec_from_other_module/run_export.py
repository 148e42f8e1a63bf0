# code: JAX001
# static: fixed
# result: stablehlo True
import jax

from export_specs import BATCH


def double(a):
    return a * 2


lowered = jax.jit(double).lower(BATCH)
print("stablehlo", "stablehlo" in lowered.as_text())
