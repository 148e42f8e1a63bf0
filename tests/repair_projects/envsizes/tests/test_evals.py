from evals.config import EvalConfig
from evals.runner import Step, evaluate, run


def test_launched_slice(monkeypatch):
    monkeypatch.setenv("EVAL_SLICE_DEVICES", "16")
    monkeypatch.setenv("EVAL_SEED", "16")
    assert run([Step(evaluate, EvalConfig.from_env("launched"))]) == [(16, 4)]


def test_default_slice(monkeypatch):
    monkeypatch.delenv("EVAL_SLICE_DEVICES", raising=False)
    monkeypatch.setenv("EVAL_SEED", "3")
    assert run([Step(evaluate, EvalConfig.from_env("default"))]) == [(16, 4)]
