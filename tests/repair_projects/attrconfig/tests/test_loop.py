from trainer.config import TrainerConfig
from trainer.loop import Trainer


def test_eval_sizes():
    assert Trainer(TrainerConfig()).eval_sizes() in ((2, 4), (4, 2))


def test_serve_sizes():
    assert Trainer(TrainerConfig()).serve_sizes() in ((2, 4), (4, 2))


def test_wide_serve_sizes():
    assert Trainer(TrainerConfig()).wide_serve_sizes() == (4, 4)


def test_probe_sizes():
    assert Trainer(TrainerConfig()).probe_sizes()
