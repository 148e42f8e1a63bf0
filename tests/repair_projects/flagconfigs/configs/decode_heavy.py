"""The default config with a decode mesh of its own."""
from configs import default


def get_config():
    config = default.get_config()
    config.decode_mesh_shape = (4, 4)
    return config
