STAGES = {
    "train": {"data": 2, "model": 4},
    "eval": {"data": 2, "model": 2},
    "probe": {"data": 2},
    "serve": {"data": 1, "model": 4},
}
