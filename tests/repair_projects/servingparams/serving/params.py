"""Serving hyper-parameters, one class per model, found by name."""

_REGISTRY = {}


def register(cls):
    _REGISTRY[cls.__name__] = cls
    return cls


def get(name):
    return _REGISTRY[name]()


class ServableParams:
    ICI_MESH_SHAPE = (2, 4)
    # platforms to lower for ahead of time
    AOT_PLATFORMS = None

    @classmethod
    def aot_platforms(cls):
        return cls.AOT_PLATFORMS


@register
class SmallLm(ServableParams):
    ICI_MESH_SHAPE = (1, 8)


@register
class CpuLm(ServableParams):
    AOT_PLATFORMS = ("cpu",)
