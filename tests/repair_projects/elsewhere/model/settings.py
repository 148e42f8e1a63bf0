"""What the stages share: the meshes, shardings and shard_map keywords, built once here."""

import jax
from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec

SERVE_ABSTRACT = AbstractMesh((4,), ("x",), axis_types=(AxisType.Explicit,))
OTHER = jax.make_mesh((4, 2), ("x", "y"))
ROWS = NamedSharding(OTHER, PartitionSpec("x"))
SHARD_KWARGS = {
    "in_specs": PartitionSpec("x"),
    "out_specs": PartitionSpec(),
    "check_rep": False,
}
CHECKED_KWARGS = {
    "in_specs": PartitionSpec("x"),
    "out_specs": PartitionSpec(),
    "check_vma": True,
}
SCAN_KWARGS = {
    "in_specs": PartitionSpec("x"),
    "out_specs": PartitionSpec(),
    "check_rep": False,
}
