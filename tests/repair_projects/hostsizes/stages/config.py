import jax

STAGES = {
    "train": {"mesh": (2, 4)},
    "eval": {"mesh": (2, 2)},
    "pod": {"mesh": (jax.device_count() // 2, 4)},
    "wide": {"mesh": (jax.device_count() // 4, 4)},
}


def serve_mesh():
    return (2, jax.process_count() * 2)
