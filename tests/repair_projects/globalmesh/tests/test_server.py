import numpy as np

from serve.server import Planner, Remote, Server, Sketch, Working, serving_mesh

VALUES = np.ones((8, 4), np.float32)


def test_total():
    assert Server(serving_mesh()).total(VALUES) == 32


def test_planner():
    planner = Planner(serving_mesh())
    assert planner.shapes(VALUES) == (8, 4)
    planner.setup()


def test_sketch():
    Sketch().setup()


def test_working():
    Working(serving_mesh()).setup()


def test_launch():
    import serve.launch  # noqa: F401


class Registry:
    def __init__(self, **meshes):
        self.meshes = meshes

    def lookup(self, name):
        return self.meshes[name]


def test_remote():
    Remote(Registry(serve=serving_mesh())).setup()
