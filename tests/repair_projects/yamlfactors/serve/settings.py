import os

import yaml


class Settings:
    def __init__(self, keys):
        self._keys = keys

    def __getattr__(self, name):
        try:
            return self._keys[name]
        except KeyError:
            raise AttributeError(name) from None


def load(path):
    with open(path, encoding="utf-8") as config_file:
        keys = yaml.safe_load(config_file)
    for key in keys:
        override = os.environ.get("SERVE_" + key.upper())
        if override is not None:
            keys[key] = int(override)
    return Settings(keys)
