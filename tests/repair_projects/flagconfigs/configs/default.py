"""Default hyperparameters, filled field by field."""
import types


def get_config():
    config = types.SimpleNamespace()
    config.emb_dim = 16
    config.mesh_shape = (2, 4)
    config.mesh_axes = ("data", "model")
    config.decode_mesh_shape = (2, 4)
    return config
