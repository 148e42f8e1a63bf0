from train.steps import Step, export, run, train
from train.trainer import TrainerConfig


def test_train():
    assert run([Step(train, TrainerConfig())]) == [[992.0, 992.0]]


def test_export():
    assert run([Step(export, TrainerConfig(model_axis_size=4))]) == [528.0]
