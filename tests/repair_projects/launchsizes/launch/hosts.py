"""What the launcher says about the hosts, read from its environment."""

import math
import os


def chips_per_host() -> int:
    bounds = os.environ.get("LAUNCH_CHIPS_BOUNDS", "2,2,1")
    return math.prod(int(b) for b in bounds.split(","))


def chips_per_slice() -> int:
    bounds = os.environ.get("LAUNCH_SLICE_BOUNDS", "2,4,1")
    return math.prod(int(b) for b in bounds.split(","))


def mesh_shape() -> tuple[int, ...]:
    shape = tuple(int(s) for s in os.environ.get("LAUNCH_MESH_SHAPE", "4,2").split(","))
    return shape


def serving_shape() -> tuple[int, ...]:
    shape = tuple(int(s) for s in os.environ.get("LAUNCH_SERVING_SHAPE", "2,4").split(","))
    return shape


def target_devices() -> int:
    return int(os.environ.get("LAUNCH_TARGET_DEVICES", "4"))


def pod_devices() -> int:
    return int(os.environ.get("LAUNCH_POD_DEVICES", "8"))
