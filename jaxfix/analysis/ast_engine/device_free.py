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
concrete sharding. The expressions are read as written (a name through the one assignment that
reaches it: assignments.py); callees by their qualified names (the engine's `External`).
"""

from __future__ import annotations

import ast
from typing import Protocol

from jaxfix.analysis.ast_engine.values import External, Value

SHAPE_CONSTRUCTORS = frozenset(
    {"arange", "ones", "zeros", "full", "empty", "eye", "identity", "linspace"}
)
CONVERTERS = frozenset({"array", "asarray"})
JAX_NUMPY = (
    "jax.numpy.",
    "jax._src.numpy.lax_numpy.",
    "jax._src.numpy.array_creation.",
)
_DEVICE_PUT = frozenset({"jax.device_put", "jax._src.api.device_put"})
_PLACING_KEYWORDS = frozenset({"device", "sharding", "out_sharding"})


class DeviceQuestions(Protocol):
    """What `brings_no_devices` asks of the module's analysis."""

    def written_as(self, expr: ast.expr) -> ast.expr: ...

    def value_of(self, expr: ast.expr) -> Value: ...


def brings_no_devices(expr: ast.expr, analysis: DeviceQuestions) -> bool:
    """Whether `expr`, passed to a jitted function, surely leaves the devices undecided."""
    node = analysis.written_as(expr)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = analysis.written_as(node.operand)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (bool, int, float, complex))
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(
            not isinstance(e, ast.Starred) and brings_no_devices(e, analysis)
            for e in node.elts
        )
    if isinstance(node, ast.Dict):
        return all(
            key is not None and brings_no_devices(value, analysis)
            for key, value in zip(node.keys, node.values)
        )
    return isinstance(node, ast.Call) and _call_brings_no_devices(node, analysis)


def jax_numpy_function(name: str) -> str | None:
    """`ones` for `jax.numpy.ones` (however JAX spells its module), else None."""
    return next((name[len(p) :] for p in JAX_NUMPY if name.startswith(p)), None)


def _call_brings_no_devices(call: ast.Call, analysis: DeviceQuestions) -> bool:
    callee = analysis.value_of(call.func)
    name = callee.name if isinstance(callee, External) else ""
    if name.startswith("numpy."):
        return True  # NumPy returns host data (JAX arrays do not take over NumPy functions)
    if name in _DEVICE_PUT:
        args: list[ast.expr] = list(call.args)
        keywords = list(call.keywords)
        if (
            len(args) == 2
            and not keywords
            and _is_none(args[1])
            or len(args) == 1
            and len(keywords) == 1
            and keywords[0].arg == "device"
            and _is_none(keywords[0].value)
        ):
            args, keywords = args[:1], []  # device_put(x, None) places nothing
        return (
            len(args) == 1
            and not keywords
            and not isinstance(args[0], ast.Starred)
            and brings_no_devices(args[0], analysis)
        )
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None or k.arg in _PLACING_KEYWORDS for k in call.keywords
    ):
        return False
    function = jax_numpy_function(name)
    if function in SHAPE_CONSTRUCTORS:
        return True
    if function in CONVERTERS:
        return bool(call.args) and brings_no_devices(call.args[0], analysis)
    return False


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
