from jax.sharding import AbstractMesh, AxisType


def _parallelism(settings):
    dcn = [settings.dcn_data_parallelism, settings.dcn_model_parallelism]
    ici = [settings.ici_data_parallelism, settings.ici_model_parallelism]
    return dcn, ici


def abstract_mesh(settings):
    dcn, ici = _parallelism(settings)
    shape = tuple(d * i for d, i in zip(dcn, ici))
    return AbstractMesh(shape, ("data", "model"), axis_types=(AxisType.Auto,) * len(shape))
