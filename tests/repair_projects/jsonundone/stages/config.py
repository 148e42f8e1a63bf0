"""Each stage's settings, read from stages.json in the directory the stages run from."""
import json

with open("stages.json") as f:
    STAGES = json.load(f)
