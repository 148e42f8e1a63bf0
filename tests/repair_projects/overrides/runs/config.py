"""Run configs: a TOML experiment file, then "key=value" overrides."""
import pathlib
import tomllib

from runs.module import Frozen

EXPERIMENTS = pathlib.Path(__file__).parent / "experiments"


class RunConfig(Frozen):
    name: str
    train_shape: tuple[int, ...]
    probe_shape: tuple[int, ...]


def _override(raw, item):
    key, value = item.split("=", 1)
    *tables, leaf = key.split(".")
    node = raw
    for table in tables:
        node = node.setdefault(table, {})
    node[leaf] = [int(v) for v in value.split(",")] if "," in value else value


def load(experiment, overrides=()):
    with open(EXPERIMENTS / f"{experiment}.toml", "rb") as f:
        raw = tomllib.load(f)
    for item in overrides:
        _override(raw, item)
    return RunConfig(
        name=raw["name"],
        train_shape=tuple(raw["train"]["shape"]),
        probe_shape=tuple(raw["probe"]["shape"]),
    )
