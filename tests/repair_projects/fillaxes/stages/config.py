"""Mesh axes; -1 takes the rest of the devices."""

TRAIN_AXES = (("batch", -1), ("model", 2))
EVAL_AXES = (("batch", -1), ("model", 2))
EVAL_DEVICES = 4
HALF = 4  # the small stage runs with it; the half stage does not
