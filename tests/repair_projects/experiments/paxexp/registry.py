"""Experiment registry (paxml style): classes registered by name."""
_REGISTRY = {}


def register(cls):
    _REGISTRY[cls.__name__] = cls
    return cls


def get(name):
    return _REGISTRY[name]
