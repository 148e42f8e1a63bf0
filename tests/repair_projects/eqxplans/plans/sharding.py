"""Sharding plans as equinox modules: the mesh, the data axis, how many shards to plan for."""
import equinox as eqx
import jax
from jax.sharding import AbstractMesh, Mesh, NamedSharding, PartitionSpec as P


class EvalPlan(eqx.Module):
    mesh: Mesh = eqx.field(static=True)
    axis: str = eqx.field(static=True, default="batch")
    num_shards: int = eqx.field(static=True, default=4)

    def abstract_mesh(self) -> AbstractMesh:
        return AbstractMesh((self.num_shards,), (self.axis,))

    def data(self) -> NamedSharding:
        return NamedSharding(self.mesh, P(self.axis))


class ServePlan(eqx.Module):
    mesh: Mesh = eqx.field(static=True)
    axis: str = eqx.field(static=True, default="batch")
    num_shards: int = eqx.field(static=True, default=4)

    def abstract_mesh(self) -> AbstractMesh:
        return AbstractMesh((self.num_shards,), (self.axis,))


def eval_plan(axis="batch") -> EvalPlan:
    return EvalPlan(mesh=jax.make_mesh((jax.device_count(),), (axis,)), axis=axis)


def serve_plan(axis="batch") -> ServePlan:
    n = jax.device_count()
    return ServePlan(mesh=jax.make_mesh((n,), (axis,)), axis=axis, num_shards=n)
