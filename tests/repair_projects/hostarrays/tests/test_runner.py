from srt.model_runner import ModelRunner


def test_forward():
    assert ModelRunner(2, 4).forward() == 64.0


def test_warmup():
    assert ModelRunner(2, 4).warmup() == 128.0
