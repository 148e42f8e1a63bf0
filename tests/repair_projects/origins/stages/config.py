"""Each stage's settings, as a dict per stage."""

TRAIN = {"mesh": {"shape": (2, 4), "names": ("data", "model")}, "batch": 8}
EVAL = {"mesh": {"shape": (4, 4), "names": ("data", "model")}, "batch": 4}
