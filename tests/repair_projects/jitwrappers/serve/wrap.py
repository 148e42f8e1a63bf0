"""A decorator that keeps a jitted function behind an object (equinox's filter_jit idiom)."""
import jax


class Compiled:
    def __init__(self, fun):
        self._jitted = jax.jit(fun)

    def __call__(self, *args):
        return self._jitted(*args)


def compiled(fun):
    return Compiled(fun)
