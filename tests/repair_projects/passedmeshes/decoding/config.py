"""Mesh layouts by name: {axis name: size}."""

LAYOUTS = {
    "train": {"data": 4, "model": 2},
    "decode": {"data": 2, "model": 4},
}
AXES = ("data", "model")
