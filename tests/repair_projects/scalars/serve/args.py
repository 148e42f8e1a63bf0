"""Server arguments read from configs/server.json (sglang-jax style)."""
import dataclasses
import json
import os

DEFAULT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "configs", "server.json"
)


@dataclasses.dataclass
class ServerArgs:
    dp_size: int = 1
    tp_size: int = 1
    draft_dp_size: int = 1
    draft_tp_size: int = 1

    @classmethod
    def from_file(cls, path=DEFAULT):
        with open(path) as f:
            raw = json.load(f)
        return cls(**raw)
