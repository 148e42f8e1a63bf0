"""Server arguments: a dataclass whose field defaults the command line's options reuse."""
import argparse
import dataclasses

import jax


@dataclasses.dataclass
class ServerArgs:
    model_path: str = "tiny-moe"
    dp_size: int = 2
    tp_size: int = 4
    ep_size: int = 4
    draft_ep_size: int = 4
    cp_size: int = 1
    attn_dp_size: int = 4

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        parser.add_argument("--model-path", type=str, default=ServerArgs.model_path)
        parser.add_argument("--dp-size", type=int, default=ServerArgs.dp_size)
        parser.add_argument("--tp-size", type=int, default=ServerArgs.tp_size)
        parser.add_argument("--ep-size", type=int, default=ServerArgs.ep_size)
        parser.add_argument(
            "--draft-ep-size", type=int, default=ServerArgs.draft_ep_size
        )
        parser.add_argument(
            "--cp-size", type=int, default=jax.local_device_count() // 2
        )
        parser.add_argument("--attn-dp-size", type=int, default=4)

    @classmethod
    def from_cli_args(cls, args: argparse.Namespace):
        attrs = [attr.name for attr in dataclasses.fields(cls)]
        return cls(**{attr: getattr(args, attr) for attr in attrs})


def parse(argv):
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    return parser.parse_args(argv)
