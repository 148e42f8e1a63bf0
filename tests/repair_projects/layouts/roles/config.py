"""Each role's mesh layout: its sizes and axis names (tunix style), and the serving stages'
sizes in serving.json."""
import json
import pathlib

AXES = ("fsdp", "tp")
MESH = {
    "reference": ((4, 4), AXES),
    "wide": ((4, 4), AXES),
}

with open(pathlib.Path(__file__).parent / "serving.json") as f:
    SERVING = json.load(f)
