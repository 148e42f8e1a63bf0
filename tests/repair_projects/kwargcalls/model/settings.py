"""The shard_map keywords the scans share, written as `dict(...)` calls."""

from jax.sharding import PartitionSpec

SCAN_KWARGS = dict(
    in_specs=PartitionSpec("x"), out_specs=PartitionSpec(), check_rep=False
)
CHECKED_KWARGS = dict(
    in_specs=PartitionSpec("x"), out_specs=PartitionSpec(), check_vma=True
)
