"""The base stage config, built field by field."""
from stages.attrs import Attrs


def build():
    config = Attrs()
    config.name = "base"
    config.probe = Attrs()
    config.probe.data = 4
    config.probe.model = 2
    return config
