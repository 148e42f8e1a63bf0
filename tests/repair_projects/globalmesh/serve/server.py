"""Servers that set the mesh for what follows with a bare `jax.set_mesh(self.mesh)` in a
setup method; each `__init__` stores the mesh it is given."""

import jax
import numpy as np
from jax.sharding import AbstractMesh, AxisType, Mesh

EXPLICIT = (AxisType.Explicit,)


def serving_mesh():
    return Mesh(np.array(jax.devices()), ("x",), axis_types=EXPLICIT)


class Server:
    """Keeps the abstract view of its mesh, which only `setup` reads."""

    def __init__(self, mesh):
        self.mesh = mesh.abstract_mesh

    def setup(self):
        jax.set_mesh(self.mesh)

    def total(self, values):
        self.setup()
        return jax.jit(lambda v: v.sum())(values)


class Planner:
    """Its abstract mesh is also entered to plan shapes: it must stay abstract."""

    def __init__(self, mesh):
        self.plan_mesh = mesh.abstract_mesh

    def shapes(self, values):
        with jax.sharding.use_abstract_mesh(self.plan_mesh):
            return jax.eval_shape(lambda v: v * 2, values).shape

    def setup(self):
        jax.set_mesh(self.plan_mesh)


class Sketch:
    """A hand-built AbstractMesh: no concrete mesh on its path."""

    def __init__(self):
        self.sketch_mesh = AbstractMesh((8,), ("x",), axis_types=EXPLICIT)

    def setup(self):
        jax.set_mesh(self.sketch_mesh)


class Working:
    def __init__(self, mesh):
        self.working_mesh = mesh

    def setup(self):
        jax.set_mesh(self.working_mesh)


class Remote:
    """Its mesh comes from a registry the code fills when it runs."""

    def __init__(self, registry):
        self.remote_mesh = registry.lookup("serve").abstract_mesh

    def setup(self):
        jax.set_mesh(self.remote_mesh)
