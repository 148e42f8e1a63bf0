"""Arrays the code makes, with their sharding and shape as far as the code shows them (issue 41:
one answer for every rule to "is this array unsharded", "what spec and shape is it placed
with", not each rule's own reading of constructors and `device_put` calls).

Unsharded (an `Array` whose sharding is None): a NumPy array (`np.arange(16.0)`,
`np.array([x] * n)`, `np.asarray(anything)`), a `jax.numpy` constructor's (`jnp.ones((8, 2))`,
`jnp.asarray(data)`) or `jax.random` function's made without `out_sharding=`/`device=`, and
what `.reshape`, `.astype`, arithmetic and the `jax.numpy` functions below give of such arrays
alone. A shape is known where it is written (`(8, 2)`, `8, 2`, `(n, 2)` with `n` unknown gives
rank 2), through `.reshape` and `.T`; `np.array` of nested lists has at least their nesting's
rank. `jax.device_put(x, s)` places `x`, keeping its shape (vocabulary.py).

On one mesh (an `Array` whose sharding is a `Sharding` of that mesh, its spec unknown): what an
operation gives of arrays all placed on NamedShardings of one mesh of Explicit axes (and Python
numbers, strings, None or NumPy/`jax.numpy` dtypes besides): arithmetic, `@`, the `jax.numpy`
and `jax.nn` functions and the array methods below. JAX types the result with its operands'
mesh, or raises (operands on meshes that differ, another context mesh, a jitted function that
closes over them and takes no array): eager and jitted, jax 0.10.2 and 0.12.0.1. Not so for
Auto axes (`x.mean()` under `jax.set_mesh` of another mesh is on that one; a jitted function
closing over its operands gives a single-device array), nor for an operand unsharded here or
unknown (a `jnp` constant made under `jax.set_mesh` is on the context mesh): nothing is said.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import cast

from jaxfix.analysis.ast_engine.values import (
    Array,
    AxisType,
    External,
    Foreign,
    ListValue,
    Mesh,
    Sharding,
    Unknown,
    Value,
)

_NUMPY = ("numpy", "jax.numpy")
_SHAPED = frozenset({"zeros", "ones", "empty", "full"})
_FROM_DATA = frozenset({"array", "asarray"})
# Keywords that may put the array on a sharding or device: then not known to be unsharded.
_PLACING = frozenset({"device", "out_sharding", "sharding", "like"})
# `jax.random.<name>(key, ...)`: the position of its `shape` parameter.
_RANDOM_SHAPE_AT = {
    "normal": 1,
    "uniform": 1,
    "bits": 1,
    "gumbel": 1,
    "laplace": 1,
    "logistic": 1,
    "cauchy": 1,
    "exponential": 1,
    "rademacher": 1,
    "randint": 1,
    "bernoulli": 2,
    "truncated_normal": 3,
}
# `jax.numpy` / NumPy functions that give one array computed from their arguments alone: of
# unsharded arrays, an unsharded array (its shape not followed).
_COMPUTED = frozenset(
    {
        "abs",
        "add",
        "subtract",
        "multiply",
        "divide",
        "negative",
        "exp",
        "log",
        "sin",
        "cos",
        "tanh",
        "sqrt",
        "square",
        "maximum",
        "minimum",
        "sum",
        "mean",
        "cumsum",
        "concatenate",
        "stack",
        "transpose",
        "matmul",
        "dot",
        "einsum",
    }
)
_SAME = frozenset({"astype", "copy", "block_until_ready"})
# Functions of `jax.numpy` and `jax.nn` that give an array on their operands' mesh.
_KEEP_MESH = {
    "numpy": frozenset(),  # NumPy's functions give host arrays
    "jax.numpy": _COMPUTED
    | frozenset({"tanh", "where", "reshape", "squeeze", "expand_dims", "max", "min"}),
    "jax.nn": frozenset(
        {
            "relu",
            "gelu",
            "silu",
            "swish",
            "sigmoid",
            "softplus",
            "softmax",
            "log_softmax",
            "logsumexp",
            "one_hot",
        }
    ),
}
# Array methods that give an array on the array's mesh (their arguments shapes and axes, but
# `where=` and `initial=`).
_MESH_METHODS = frozenset(
    {"reshape", "transpose", "sum", "mean", "max", "min", "squeeze", "ravel", "flatten"}
)


def made(
    name: str, positional: list[Value], keywords: dict[str, Value], node: ast.AST
) -> Array | None:
    """The array a call of the function `name` from outside the tree makes, where it is one
    this module knows; None for any other call."""
    module, _, short = name.rpartition(".")
    if _PLACING & set(keywords):
        return None
    if module == "jax.random":
        at = _RANDOM_SHAPE_AT.get(short)
        if at is None:
            return None
        shape = positional[at] if len(positional) > at else keywords.get("shape", ())
        return shaped(shape, node)
    if module == "jax.nn":
        if short not in _KEEP_MESH[module]:
            return None
        return on_operands_mesh([*positional, *keywords.values()], node)
    if module not in _NUMPY:
        return None
    first = positional[0] if positional else None
    if short in _SHAPED:
        return shaped(first if first is not None else keywords.get("shape"), node)
    if short == "arange":
        size = first if len(positional) == 1 and _is_int(first) else None
        return Array(None, (size,), True, node)  # type: ignore[arg-type]  # an int, checked
    if short == "linspace":
        return Array(None, (None,), True, node)
    if short in _FROM_DATA:
        if isinstance(first, Array):
            if module == "jax.numpy" and not first.unsharded:
                return first  # jnp.asarray of a placed array is that array
            return Array(None, first.shape, first.exact_rank, node)
        if set(keywords) - {"dtype", "copy", "order"} or len(positional) != 1:
            return None
        found = from_data(first, node)  # None for data it cannot tell the nesting of
        if module == "numpy" and not keywords and found is not None:
            return _with_values(found, first)
        return found
    if short == "reshape" and isinstance(first, Array) and first.unsharded:
        if len(positional) == 2 and not keywords:
            return _reshaped(first, [positional[1]], node)
        return Array(None, (), False, node)
    arrays = [v for v in (*positional, *keywords.values()) if isinstance(v, Array)]
    if short in _COMPUTED and arrays and all(a.unsharded for a in arrays):
        return Array(None, (), False, node)
    if short in _KEEP_MESH[module]:
        return on_operands_mesh([*positional, *keywords.values()], node)
    return None


def on_operands_mesh(operands: list[Value], node: ast.AST) -> Array | None:
    """The array an operation of `operands` gives on their mesh: where every array among
    them is placed on a NamedSharding of one mesh of Explicit axes, and the rest are plain
    (numbers, strings, None, dtypes); its spec unknown. None otherwise."""
    placed: list[tuple[Mesh, Sharding]] = []
    for operand in operands:
        if isinstance(operand, Array):
            sharding = operand.sharding
            if not isinstance(sharding, Sharding) or not isinstance(
                sharding.mesh, Mesh
            ):
                return None
            placed.append((sharding.mesh, sharding))
        elif not _is_plain(operand):
            return None
    if not placed or any(mesh != placed[0][0] for mesh, _ in placed[1:]):
        return None
    mesh, first = placed[0]
    if not mesh.axis_types or any(t is not AxisType.EXPLICIT for t in mesh.axis_types):
        return None
    spec = Unknown("the spec an operation of placed arrays gives")
    return Array(Sharding(mesh, spec, first.origin), (), False, node)


def _is_plain(value: Value) -> bool:
    """A value an operation takes besides arrays that holds none: a number, string, None, a
    tuple of them, or a NumPy or `jax.numpy` name (a dtype)."""
    if value is None or isinstance(value, (int, float, str)):
        return True
    if isinstance(value, tuple):
        return all(_is_plain(v) for v in value)
    return isinstance(value, External) and value.name.rpartition(".")[0] in _NUMPY


def method(
    array: Array,
    name: str,
    positional: list[Value],
    keywords: dict[str, Value],
    node: ast.AST,
) -> Value:
    """`array.name(...)`: what JAX's array methods give, never an object of the tree."""
    if name in _SAME:
        # `.astype(bool)` changes the integers it holds
        return (
            array
            if name != "astype"
            else Array(array.sharding, array.shape, array.exact_rank, array.origin)
        )
    if not array.unsharded:
        # the other operands: shapes and axes are none
        operands = [
            array,
            *(keywords[k] for k in ("where", "initial") if k in keywords),
        ]
        kept = on_operands_mesh(operands, node) if name in _MESH_METHODS else None
        return (
            kept if kept is not None else Foreign(f"`.{name}(...)` of a placed array")
        )
    if name == "reshape" and not keywords:
        return _reshaped(array, positional, node)
    if name == "transpose" and not positional and not keywords:
        return _transposed(array, node)
    if name in _COMPUTED:
        return Array(None, (), False, node)
    return Foreign(f"`.{name}(...)` of an array")


def attribute(array: Array, name: str, node: ast.AST) -> Value | None:
    """`array.name`, where this module knows it; None otherwise."""
    if name == "shape" and array.known_shape is not None:
        return array.known_shape
    if name == "ndim" and array.exact_rank:
        return len(array.shape)
    if name == "T" and array.unsharded:
        return _transposed(array, node)
    if name == "T":
        return on_operands_mesh([array], node)
    return None


def binary(op: ast.operator, left: Value, right: Value, node: ast.AST) -> Value | None:
    """`left op right` where one side is an unsharded array and the other one too or a number:
    an unsharded array (of the same shape where both are alike, or one is a number)."""
    sides = [left, right]
    arrays = [v for v in sides if isinstance(v, Array)]
    if not arrays:
        return None
    if not all(isinstance(v, Array) and v.unsharded or _is_number(v) for v in sides):
        return (
            on_operands_mesh(sides, node)
            if all(map(_is_array_or_number, sides))
            else None
        )
    if isinstance(op, ast.MatMult):
        return Array(None, (), False, node)
    computed = _elementwise(op, left, right)
    if computed is not None:
        return Array(None, (len(computed),), True, node, computed)
    first = arrays[0]
    if all(a.exact_rank and a.shape == first.shape for a in arrays):
        return Array(None, first.shape, True, node)
    return Array(None, (), False, node)


# NumPy's integer operations whose result jaxfix computes element by element.
_INT_OPS: dict[type[ast.operator], Callable[[int, int], int | None]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b if b else None,
}


def _with_values(array: Array, data: Value | None) -> Array:
    """`np.array((1, 2, 2))`: a 1-D array of integers keeps them (not bools: their sum in
    NumPy is a bool array's)."""
    items = data.items if isinstance(data, ListValue) else data
    if (
        isinstance(items, tuple)
        and array.exact_rank
        and array.shape == (len(items),)
        and all(_is_int(i) for i in items)
    ):
        return Array(None, array.shape, True, array.origin, items)  # type: ignore[arg-type]  # ints, checked
    return array


def _elementwise(op: ast.operator, left: Value, right: Value) -> tuple[int, ...] | None:
    """The integers of `left op right` where both are 1-D NumPy arrays of known integers of one
    length, or one of them and an int."""
    compute = _INT_OPS.get(type(op))
    if compute is None:
        return None
    sides: list[tuple[int, ...] | None] = []
    for side in (left, right):
        if isinstance(side, Array) and side.values is not None:
            sides.append(side.values)
        elif _is_int(side):
            sides.append(None)
        else:
            return None
    length = {len(s) for s in sides if s is not None}
    if len(length) != 1:
        return None
    n = length.pop()
    a, b = (
        s if s is not None else (cast(int, v),) * n
        for s, v in zip(sides, (left, right))
    )
    found = [compute(x, y) for x, y in zip(a, b)]
    values = tuple(v for v in found if v is not None)
    return values if len(values) == len(found) else None


def shaped(shape: Value, node: ast.AST) -> Array:
    """An unsharded array of `shape` as a constructor takes it: an int, or a tuple or list of
    them (a size it does not know is None)."""
    if _is_int(shape):
        return Array(None, (shape,), True, node)  # type: ignore[arg-type]  # an int, checked
    items = shape.items if isinstance(shape, ListValue) else shape
    if isinstance(items, tuple):
        return Array(None, tuple(_size(i) for i in items), True, node)
    return Array(None, (), False, node)


def _reshaped(array: Array, given: list[Value], node: ast.AST) -> Array:
    """`.reshape(8, 2)`, `.reshape((8, 2))`, `.reshape(n, -1)`: its new shape."""
    items: Value = given[0] if len(given) == 1 else tuple(given)
    if isinstance(items, ListValue):
        items = items.items
    if _is_int(items):
        items = (items,)
    if not isinstance(items, tuple):
        return Array(None, (), False, node)
    return Array(None, tuple(_size(i) for i in items), True, node)


def _transposed(array: Array, node: ast.AST) -> Array:
    if not array.exact_rank:
        return Array(None, (), False, node)
    return Array(None, array.shape[::-1], True, node)


def from_data(data: Value | None, node: ast.AST) -> Array | None:
    """`np.array(data)`: a number has rank 0; nested lists or tuples of numbers their shape;
    else at least the nesting of the lists written in the call (`[x] * n`, `[[1, 2], [3, 4]]`,
    `[f(i) for i in r]`)."""
    if _is_number(data):
        return Array(None, (), True, node)
    shape: list[int | None] = []
    while isinstance(data, (tuple, ListValue)):
        items = data.items if isinstance(data, ListValue) else data
        shape.append(len(items))
        if not items:
            return Array(None, tuple(shape), True, node)
        data = items[0]
        if isinstance(data, Array) or not (
            _is_number(data) or isinstance(data, (tuple, ListValue))
        ):
            return Array(None, tuple(shape), False, node)
    if shape and _is_number(data):
        return Array(None, tuple(shape), True, node)
    written = node.args[0] if isinstance(node, ast.Call) and node.args else None
    rank = _display_rank(written) if written is not None else 0
    if not rank and not shape:
        return None  # `np.array(x)` of what jaxfix does not know: not even how nested
    return Array(None, tuple(shape) + (None,) * (rank - len(shape)), False, node)


def _display_rank(data: ast.expr) -> int:
    """At least how many dimensions NumPy makes of `data` written as nested displays."""
    depth = 0
    while True:
        if isinstance(data, ast.BinOp) and isinstance(data.op, ast.Mult):
            data = (
                data.left
                if isinstance(data.left, (ast.List, ast.Tuple))
                else data.right
            )
        if isinstance(data, (ast.List, ast.Tuple)) and data.elts:
            depth += 1
            if any(isinstance(e, ast.Starred) for e in data.elts):
                return depth
            data = data.elts[0]
        elif isinstance(data, ast.ListComp):
            depth += 1
            data = data.elt
        else:
            return depth


def _size(value: Value) -> int | None:
    return value if _is_int(value) and value >= 0 else None  # type: ignore[operator,return-value]  # an int, checked


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_array_or_number(value: Value) -> bool:
    return isinstance(value, Array) or _is_number(value)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
