"""A yaml config merged with `key=value` overrides, read as attributes."""

import ast

import yaml


class HyperParameters:
    def __init__(self, raw_keys):
        object.__setattr__(self, "_raw_keys", raw_keys)

    def __getattr__(self, attr):
        try:
            return self._raw_keys[attr]
        except KeyError as e:
            raise AttributeError(attr) from e


def initialize(argv):
    with open(argv[1], encoding="utf8") as f:
        raw_keys = yaml.safe_load(f)
    for arg in argv[2:]:
        key, value = arg.split("=", 1)
        raw_keys[key] = ast.literal_eval(value)
    return HyperParameters(raw_keys)
