import dataclasses

from jax.sharding import AbstractMesh, AxisType


@dataclasses.dataclass(frozen=True)
class Topology:
    dcn_parallelism: tuple[int, int] = (1, 1)
    ici_parallelism: tuple[int, int] = (8, 1)
    axes: tuple[str, str] = ("data", "model")


def abstract_mesh(topology):
    dcn, ici = topology.dcn_parallelism, topology.ici_parallelism
    shape = tuple(d * i for d, i in zip(dcn, ici))
    return AbstractMesh(shape, topology.axes, axis_types=(AxisType.Auto,) * len(shape))
