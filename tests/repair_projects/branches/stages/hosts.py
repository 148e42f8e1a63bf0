import os


def chips_per_host():
    return int(os.environ.get("CHIPS_PER_HOST", "4"))
