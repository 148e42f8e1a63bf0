from srt.model_runner import (
    AttentionRunner,
    ContextParallelRunner,
    DraftRunner,
    ModelRunner,
    WideAttentionRunner,
)
from srt.server_args import ServerArgs, parse


def test_warmup():
    args = ServerArgs.from_cli_args(parse([]))
    assert ModelRunner(args).warmup() == {"expert": 2, "tensor": 4}


def test_draft_warmup():
    args = ServerArgs.from_cli_args(parse(["--model-path", "draft"]))
    assert DraftRunner(args).warmup() == {"expert": 2, "tensor": 4}


def test_wide_draft_warmup():
    # four-way data parallel: the draft's experts take the default's four devices
    args = ServerArgs(model_path="wide", dp_size=4, tp_size=2, ep_size=2)
    assert DraftRunner(args).warmup() == {"expert": 4, "tensor": 2}


def test_context_parallel_warmup():
    args = ServerArgs.from_cli_args(parse([]))
    assert ContextParallelRunner(args).warmup()


def test_attention_warmup():
    args = ServerArgs.from_cli_args(parse([]))
    assert AttentionRunner(args).warmup()


def test_wide_attention_warmup():
    # the same option's default makes this mesh: it is right here
    args = ServerArgs.from_cli_args(parse([]))
    assert WideAttentionRunner(args).warmup() == {"expert": 4, "tensor": 2}
