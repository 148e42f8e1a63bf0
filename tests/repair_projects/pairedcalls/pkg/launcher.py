from pkg import meshes
from pkg.stages import Trainer

TRAIN_SHAPE = (4, 2)
EVAL_SHAPE = (2, 2)
SERVE_SHAPE = (2, 4)


def trainer():
    return Trainer(meshes.build(TRAIN_SHAPE), meshes.build(EVAL_SHAPE))


def server():
    return Trainer(meshes.build(TRAIN_SHAPE), meshes.build(SERVE_SHAPE))
