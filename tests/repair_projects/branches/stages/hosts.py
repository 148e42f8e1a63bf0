import os


def chips_per_host():
    return int(os.environ.get("CHIPS_PER_HOST", "4"))


def cores_per_host():
    return int(os.environ.get("CORES_PER_CHIP", "2")) * 2
