"""A smaller probe, derived from the base config: its model axis was halved by hand."""
from stages.configs import base


def build():
    config = base.build()
    config.name = "small"
    config.probe.model = 1
    return config
