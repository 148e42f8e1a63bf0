import json

from pkg import meshes
from pkg.stages import Trainer

with open("shapes.json") as f:
    SHAPES = json.load(f)


def trainer():
    train_mesh = meshes.build(tuple(SHAPES["train"]))
    eval_mesh = meshes.build(tuple(SHAPES["eval"]))
    return Trainer(train_mesh, eval_mesh)
