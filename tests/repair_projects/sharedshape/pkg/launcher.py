from pkg import meshes
from pkg.stages import Trainer

TRAIN_SHAPE = (4, 2)
EVAL_SHAPE = (2, 2)


def trainer():
    train_mesh = meshes.build(TRAIN_SHAPE)
    eval_mesh = meshes.build(EVAL_SHAPE)
    return Trainer(train_mesh, eval_mesh)
