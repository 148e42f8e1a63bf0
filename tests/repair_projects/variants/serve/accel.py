"""Inner mesh sizes by accelerator name."""

import jax


def mesh_shape(accel):
    if accel == "v5e-8":
        return (2, 4)
    elif accel == "v5e-4":
        return (2, 2)
    elif accel == "pod":
        return (jax.device_count() // 4, 2)
    else:
        return (1, 8)
