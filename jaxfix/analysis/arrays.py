"""Values that bring no devices to a jitted computation: host data and uncommitted arrays.

Lowering `jit(f)` with an argument sharded on an AbstractMesh raises JAX001 just the same when
another argument is one of these (checked on jax 0.10.2 and 0.12.0.1, `.lower(...)` and
`.trace(...).lower()`): a Python number or bool; anything a `numpy` function returns
(`np.arange(8)`, `np.float32(1)`); a `jax.numpy` array built from a shape (`jnp.arange`,
`jnp.ones`, `jnp.zeros`, `jnp.full`, `jnp.empty`, `jnp.eye`, `jnp.identity`, `jnp.linspace`)
without `device=`; `jnp.array`/`jnp.asarray` of such a value; `jax.device_put(x)` or
`jax.device_put(x, None)` of one; and tuples, lists and dicts of these. JAX places them on the
default device without committing them, so they do not decide the devices.

What does bring devices, and so changes the error or removes it: `device=`, a committed array
(`jax.device_put(x, device)`, `jnp.asarray(committed)`, `jnp.ones_like(committed)`) and a
concrete sharding.
"""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from jaxfix.analysis.cst_names import ApiResolver
from jaxfix.analysis.syntax import is_none

_SHAPE_CONSTRUCTORS = frozenset(
    {"arange", "ones", "zeros", "full", "empty", "eye", "identity", "linspace"}
)
_CONVERTERS = frozenset({"array", "asarray"})
_JAX_NUMPY = (
    "jax.numpy.",
    "jax._src.numpy.lax_numpy.",
    "jax._src.numpy.array_creation.",
)
_DEVICE_PUT = frozenset({"jax.device_put", "jax._src.api.device_put"})
_PLACING_KEYWORDS = frozenset({"device", "sharding", "out_sharding"})


class ArrayQuestions(Protocol):
    """What `DeviceFreeValues` asks of the module's analysis."""

    @property
    def names(self) -> ApiResolver: ...

    def resolve(self, expr: cst.BaseExpression) -> cst.BaseExpression: ...


class DeviceFreeValues:
    def __init__(self, analysis: ArrayQuestions) -> None:
        self._analysis = analysis

    def brings_no_devices(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr`, passed to a jitted function, surely leaves the devices undecided."""
        node = self._analysis.resolve(expr)
        if isinstance(node, cst.UnaryOperation) and isinstance(
            node.operator, (cst.Minus, cst.Plus)
        ):
            node = self._analysis.resolve(node.expression)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            return True
        if isinstance(node, cst.Name) and node.value in ("True", "False"):
            return True
        if isinstance(node, (cst.Tuple, cst.List)):
            return all(
                not isinstance(e, cst.StarredElement)
                and self.brings_no_devices(e.value)
                for e in node.elements
            )
        if isinstance(node, cst.Dict):
            return all(
                isinstance(e, cst.DictElement) and self.brings_no_devices(e.value)
                for e in node.elements
            )
        return isinstance(node, cst.Call) and self._call_brings_no_devices(node)

    def _call_brings_no_devices(self, call: cst.Call) -> bool:
        names = {q.name for q in self._analysis.names.qualified_names(call.func)}
        if any(name.startswith("numpy.") for name in names):
            return True  # NumPy returns host data (JAX arrays do not take over NumPy functions)
        if names & _DEVICE_PUT:
            args = list(call.args)
            if (
                len(args) == 2
                and _keyword(args[1]) in (None, "device")
                and is_none(args[1].value)
            ):
                args = args[:1]  # device_put(x, None) places nothing
            return (
                len(args) == 1
                and _keyword(args[0]) is None
                and not args[0].star
                and self.brings_no_devices(args[0].value)
            )
        if any(a.star or _keyword(a) in _PLACING_KEYWORDS for a in call.args):
            return False
        positional = [a.value for a in call.args if a.keyword is None]
        for name in names:
            function = next(
                (name[len(p) :] for p in _JAX_NUMPY if name.startswith(p)), None
            )
            if function in _SHAPE_CONSTRUCTORS:
                return True
            if function in _CONVERTERS:
                return bool(positional) and self.brings_no_devices(positional[0])
        return False


def _keyword(arg: cst.Arg) -> str | None:
    return arg.keyword.value if arg.keyword is not None else None
