"""The JAX vocabulary: what calling, reading or indexing a JAX value gives, as one table.

`BUILDERS` maps each JAX API (jaxfix/analysis/names.py: one spelling table, checked against
jax 0.10.2 and 0.12.0.1) to the value its call builds from its arguments' values, bound by the
same signature table (`SIGNATURES`); `attribute` and `method` say what a known value's
attributes and methods give (`mesh.shape["data"]`, `mesh.axis_sizes`, `mesh.abstract_mesh`,
`mesh.update(...)`, `sharding.mesh`, `dict.values()`, `devices.reshape(...)`);
`jax.typeof(x).sharding` of an array placed on a NamedSharding is on the abstract mesh of the
array's mesh (eager and inside jit, on both tiers). An array made on a sharding it is given
(`jax.make_array_from_callback`, `make_array_from_single_device_arrays`,
`make_array_from_process_local_data`: what data loaders call) is placed as `device_put`
places one. Axis types
follow the target JAX version: an AbstractMesh's default is Explicit since 0.11, Auto before;
`make_mesh` defaults to Explicit and `Mesh` to Auto on both tiers. Builtins of Python that
containers need (`len`, `tuple`, `dict`, `range`, `math.prod`, `min`/`max`, `zip(...,
strict=True)`, ...) are here too. `functools.partial` of a JAX constructor
(`partial(NamedSharding, mesh)`) binds its arguments, positional ones first; `jax.device_put`
of a tuple, list or dict places each leaf (on one sharding, or one of a container of the same
structure). Flax's `logical_to_mesh_axes(names)` of names jaxfix spells out is a bare
`PartitionSpec` whose parts the logical axis rules in force decide.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import replace

from jaxfix.analysis.ast_engine import arrays, device_shapes
from jaxfix.analysis.ast_engine.values import (
    Array,
    AxisType,
    BoundMethod,
    Class,
    Devices,
    DictValue,
    External,
    Foreign,
    Function,
    Instance,
    Items,
    JaxStage,
    JitOfUnknown,
    Jitted,
    ListValue,
    Mesh,
    MeshContext,
    MeshKind,
    OneOf,
    ShapeStruct,
    Sharding,
    Spec,
    Structs,
    Unknown,
    Value,
    holds_tree_objects,
    known,
    lost_at,
)
from jaxfix.analysis.names import (
    CONCRETE_MESH_UPDATE,
    DEPRECATED_SPELLINGS,
    MESH_UPDATE,
    SIGNATURES,
    Api,
    Signature,
    api_of_name,
)
from jaxfix.settings.jax_version import axes_explicit_by_default

Bound = dict[str, Value]
_AXIS_TYPES = {t.value: t for t in AxisType}
_MAX_ITEMS = 256
_PUBLIC: dict[Api, str] = {}


def api_of(name: str) -> Api | None:
    return api_of_name(name)


def external(name: str) -> External:
    """What an import from outside the tree binds, by one spelling per JAX API (so
    `jax.set_mesh` and `jax.sharding.set_mesh` are the same value)."""
    api = api_of(name)
    if api is not None and name not in DEPRECATED_SPELLINGS:
        return External(_public(api, name))
    return External(name)


def _public(api: Api, name: str) -> str:
    spelled = _PUBLIC.get(api)
    if spelled is None:
        from jaxfix.analysis.names import _QUALIFIED_NAMES

        spelled = _PUBLIC[api] = (
            _QUALIFIED_NAMES[api][0] if api in _QUALIFIED_NAMES else name
        )
    return spelled


def external_attribute(base: External, name: str) -> Value:
    if api_of(base.name) is Api.AXIS_TYPE:
        found = _AXIS_TYPES.get(name)
        return found if found is not None else Unknown(f"`AxisType.{name}`")
    return external(f"{base.name}.{name}")


def bind(
    signature: Signature, positional: list[Value], keywords: dict[str, Value]
) -> Bound | None:
    bound: Bound = {}
    for index, value in enumerate(positional):
        if index >= len(signature.positional):
            return None
        bound[signature.positional[index]] = value
    for name, value in keywords.items():
        if name in signature.positional[: signature.positional_only]:
            return None
        if name not in signature.positional and name not in signature.keyword_only:
            return None
        if name in bound:
            return None
        bound[name] = value
    return bound


# -- the table ----------------------------------------------------------------------------


def _sizes(value: Value | None) -> tuple[int | None, ...] | None:
    items = _items(value)
    if items is None:
        return None
    return tuple(
        v if isinstance(v, int) and not isinstance(v, bool) else None for v in items
    )


def _lost(value: Value | None) -> Unknown | None:
    """Why sizes are not known: `value` itself, or its first unknown item."""
    if isinstance(value, Unknown):
        return value
    items = _items(value)
    return next((v for v in items or () if isinstance(v, Unknown)), None)


def _names(value: Value | None, *, one_name: bool = False) -> tuple[str, ...] | None:
    if one_name and isinstance(value, str):
        return (value,)
    items = _items(value)
    if items is None or not all(isinstance(v, str) for v in items):
        return None
    return tuple(str(v) for v in items)


def _types(value: Value | None) -> tuple[AxisType, ...] | None:
    items = _items(value)
    if items is None or not all(isinstance(v, AxisType) for v in items):
        return None
    return tuple(v for v in items if isinstance(v, AxisType))


def _types_or_default(
    value: Value | None,
    names: tuple[str, ...] | None,
    sizes: tuple[int | None, ...] | None,
    default: AxisType,
) -> tuple[AxisType, ...] | None:
    if value is not None:
        return _types(value)
    count = (
        len(names) if names is not None else len(sizes) if sizes is not None else None
    )
    return None if count is None else (default,) * count


def _abstract_mesh(
    args: Bound, node: ast.AST, version: tuple[int, ...] | None
) -> Value:
    sizes = _sizes(args.get("axis_sizes"))
    names = _names(args.get("axis_names"))
    default = AxisType.EXPLICIT if axes_explicit_by_default(version) else AxisType.AUTO
    types = _types_or_default(args.get("axis_types"), names, sizes, default)
    device = args.get("abstract_device")
    if isinstance(device, Unknown):
        return Unknown("AbstractMesh(...) with an abstract_device jaxfix cannot tell")
    if _ranks_differ(names, sizes):
        return Unknown(
            "AbstractMesh(...) with as many axis names as sizes (JAX raises)"
        )
    lost = _lost(args.get("axis_sizes"))
    return Mesh(MeshKind.ABSTRACT, names, sizes, types, device is not None, node, lost)


def _ranks_differ(
    names: tuple[str, ...] | None, sizes: tuple[int | None, ...] | None
) -> bool:
    return names is not None and sizes is not None and len(names) != len(sizes)


def _make_mesh(args: Bound, node: ast.AST, version: tuple[int, ...] | None) -> Value:
    sizes = _sizes(args.get("axis_shapes", args.get("axis_sizes")))
    names = _names(args.get("axis_names"), one_name=True)
    if _ranks_differ(names, sizes):
        return Unknown("make_mesh(...) with as many axis names as sizes (JAX raises)")
    types = _types_or_default(args.get("axis_types"), names, sizes, AxisType.EXPLICIT)
    lost = _lost(args.get("axis_shapes", args.get("axis_sizes")))
    return Mesh(MeshKind.CONCRETE, names, sizes, types, True, node, lost)


def _mesh(args: Bound, node: ast.AST, version: tuple[int, ...] | None) -> Value:
    given = args.get("devices")
    sizes = given.shape if isinstance(given, Devices) else None
    if isinstance(given, Array) and given.exact_rank and given.unsharded:
        # a NumPy array the code fills with devices (vmoe's `np.empty((n, 1), object)`, its
        # items set one by one): a mesh's axis sizes are the array's shape, whatever it holds
        sizes = given.shape
    names = _names(args.get("axis_names"), one_name=True)
    if sizes is not None and names is not None and len(sizes) != len(names):
        return Unknown(
            "Mesh(...) with as many axis names as device dimensions (JAX raises)"
        )
    types = _types_or_default(args.get("axis_types"), names, sizes, AxisType.AUTO)
    lost = given if isinstance(given, Unknown) else None
    if isinstance(given, Devices):
        lost = given.sizes_lost
    return Mesh(MeshKind.CONCRETE, names, sizes, types, True, node, lost)


def _named_sharding(
    args: Bound, node: ast.AST, version: tuple[int, ...] | None
) -> Value:
    """`NamedSharding(mesh, spec)`; a mesh that may be None (an unguarded getter's global,
    a lookup that may find nothing) is the other option: NamedSharding(None, ...) raises
    TypeError on every tier, so no sharding is made of it."""
    if "mesh" not in args or "spec" not in args:
        return Unknown("NamedSharding(...) without a mesh and a spec")
    mesh = args["mesh"]
    if isinstance(mesh, OneOf) and None in mesh.options:
        others = [o for o in mesh.options if o is not None]
        if len(others) == 1:
            mesh = others[0]
    return Sharding(mesh, args["spec"], node)


def _context(api: Api) -> Callable[[Bound, ast.AST, tuple[int, ...] | None], Value]:
    def build(args: Bound, node: ast.AST, version: tuple[int, ...] | None) -> Value:
        mesh = args.get("mesh", Unknown(f"{api.value}() without a mesh"))
        if mesh is None:  # set_mesh(None): the empty mesh
            mesh = Mesh(MeshKind.ABSTRACT, (), (), (), False, node)
        return MeshContext(api, mesh, node)

    return build


def _shape_struct(args: Bound, node: ast.AST, version: tuple[int, ...] | None) -> Value:
    return ShapeStruct(
        args.get("shape", Unknown("no shape")),
        args.get("dtype", Unknown("no dtype")),
        args.get("sharding"),
    )


def _device_put(args: Bound, node: ast.AST, version: tuple[int, ...] | None) -> Value:
    """`jax.device_put(x, s)`: `x` placed on `s`, its shape kept; without `s`, `x` as it is.
    A tuple, list or dict `x` is a pytree: each leaf is placed on `s` (or on its own sharding
    when `s` is a container of the same structure), as JAX does (`x, y = device_put((x, y),
    s)`: equinox's and vmoe's data loaders)."""
    placed = args.get("x", Unknown("nothing placed"))
    sharding = args.get("device")
    if sharding is not None and isinstance(placed, (tuple, ListValue, DictValue)):
        return _placed_tree(placed, sharding, node, version)
    if not isinstance(placed, Array) and isinstance(
        placed, (int, float, tuple, ListValue)
    ):
        placed = arrays.from_data(placed, node) or placed
    if sharding is None:
        if isinstance(placed, Array):
            return placed
        sharding = Unknown("device_put without a device keeps where the array is")
    if isinstance(placed, Array):
        return Array(sharding, placed.shape, placed.exact_rank, node)
    return Array(sharding, origin=node)


def _placed_tree(
    tree: Value, sharding: Value, node: ast.AST, version: tuple[int, ...] | None
) -> Value:
    """`device_put(tree, sharding)` of a tuple, list or dict: the same container of its leaves
    placed; `sharding` one for every leaf or a container of the same structure."""
    if tree is None:
        return None  # an empty pytree
    if isinstance(tree, (tuple, ListValue)):
        items = tree if isinstance(tree, tuple) else tree.items
        if isinstance(sharding, (tuple, ListValue)):
            each = sharding if isinstance(sharding, tuple) else sharding.items
            if len(each) != len(items):
                return Unknown("device_put of a tree and shardings of other structures")
        else:
            each = (sharding,) * len(items)
        placed = tuple(_placed_tree(i, s, node, version) for i, s in zip(items, each))
        return placed if isinstance(tree, tuple) else ListValue(placed)
    if isinstance(tree, DictValue):
        if isinstance(sharding, (tuple, ListValue, DictValue)):
            if not (
                isinstance(sharding, DictValue)
                and [k for k, _ in sharding.items] == [k for k, _ in tree.items]
            ):
                return Unknown("device_put of a tree and shardings of other structures")
            shardings = [s for _, s in sharding.items]
        else:
            shardings = [sharding] * len(tree.items)
        return DictValue(
            tuple(
                (k, _placed_tree(v, s, node, version))
                for (k, v), s in zip(tree.items, shardings)
            )
        )
    if isinstance(sharding, (tuple, ListValue, DictValue)):
        return Unknown("device_put of a leaf on a tree of shardings")
    return _device_put({"x": tree, "device": sharding}, node, version)


def _made_array(args: Bound, node: ast.AST, version: tuple[int, ...] | None) -> Value:
    """`jax.make_array_from_callback(shape, sharding, cb)` and its kin: an array on `sharding`
    (its data unknown), as `device_put` places one."""
    made = arrays.shaped(args.get("shape", Unknown("no shape")), node)
    sharding = args.get("sharding", Unknown("no sharding"))
    return Array(sharding, made.shape, made.exact_rank, node)


def _create_device_mesh(
    args: Bound, node: ast.AST, version: tuple[int, ...] | None
) -> Value:
    shape = _sizes(args.get("mesh_shape"))
    if shape is None:
        return _shape_lost("create_device_mesh", args.get("mesh_shape"))
    return _device_array(
        "create_device_mesh", args, shape, _lost(args.get("mesh_shape"))
    )


def _create_hybrid_device_mesh(
    args: Bound, node: ast.AST, version: tuple[int, ...] | None
) -> Value:
    """`create_hybrid_device_mesh(ici, dcn, devices)`: each axis the product of its sizes
    within a slice and across slices (JAX raises when their ranks differ)."""
    ici = _sizes(args.get("mesh_shape"))
    if ici is None:
        return _shape_lost("create_hybrid_device_mesh", args.get("mesh_shape"))
    dcn = _sizes(args.get("dcn_mesh_shape"))
    if dcn is None:
        return _shape_lost("create_hybrid_device_mesh", args.get("dcn_mesh_shape"))
    if len(ici) != len(dcn):
        return Unknown(
            "create_hybrid_device_mesh(...) of shapes of other ranks (JAX raises)"
        )
    shape = tuple(None if a is None or b is None else a * b for a, b in zip(ici, dcn))
    lost = _lost(args.get("mesh_shape")) or _lost(args.get("dcn_mesh_shape"))
    return _device_array("create_hybrid_device_mesh", args, shape, lost)


def _shape_lost(api: str, shape: Value | None) -> Unknown:
    """Why `api(...)`'s shape is not known, placed where the shape was lost."""
    why = f"{api}(...) of a shape jaxfix cannot spell out"
    lost = _lost(shape)
    if lost is None:
        return Unknown(why)
    return lost_at(Unknown(f"{why} ({lost.why})"), lost)


def _device_array(
    api: str, args: Bound, shape: tuple[int | None, ...], lost: Unknown | None
) -> Value:
    """The device array a `mesh_utils` builder gives: `shape`, of the devices given; `lost`:
    why a dimension of it is not known."""
    given = args.get("devices")
    made: Value = Devices(shape, is_array=True)
    if isinstance(given, Devices):
        made = device_shapes.reshaped(given, shape)
    elif given is not None:
        return Unknown(f"{api}(...) of devices jaxfix does not know")
    if isinstance(made, Devices) and None in made.shape and lost is not None:
        return replace(made, sizes_lost=lost)
    return made


BUILDERS: dict[Api, Callable[[Bound, ast.AST, tuple[int, ...] | None], Value]] = {
    Api.ABSTRACT_MESH: _abstract_mesh,
    Api.MAKE_MESH: _make_mesh,
    Api.MESH: _mesh,
    Api.NAMED_SHARDING: _named_sharding,
    Api.USE_ABSTRACT_MESH: _context(Api.USE_ABSTRACT_MESH),
    Api.SET_MESH: _context(Api.SET_MESH),
    Api.USE_MESH: _context(Api.USE_MESH),
    Api.SHAPE_DTYPE_STRUCT: _shape_struct,
    Api.DEVICE_PUT: _device_put,
    Api.MAKE_ARRAY_FROM_CALLBACK: _made_array,
    Api.MAKE_ARRAY_FROM_SINGLE_DEVICE_ARRAYS: _made_array,
    Api.MAKE_ARRAY_FROM_PROCESS_LOCAL_DATA: _made_array,
    Api.CREATE_DEVICE_MESH: _create_device_mesh,
    Api.CREATE_HYBRID_DEVICE_MESH: _create_hybrid_device_mesh,
}


def call(
    callee: External,
    positional: list[Value] | Unknown,
    keywords: dict[str, Value] | Unknown,
    node: ast.AST,
    version: tuple[int, ...] | None,
) -> Value:
    """A call of something from outside the tree."""
    if isinstance(positional, Unknown):
        return positional
    if isinstance(keywords, Unknown):
        return keywords
    api = api_of(callee.name)
    if api is Api.PARTITION_SPEC:
        return Spec(
            tuple(positional),
            _axis_set(keywords.get("unreduced")),
            _axis_set(keywords.get("reduced")),
        )
    if callee.name in _LOGICAL_SPECS:
        return _logical_spec(positional, keywords)
    if api is Api.JIT:
        if positional and isinstance(positional[0], Function):
            return replace(
                positional[0],
                wrapped_by="jit",
                jit_keywords=tuple(keywords.items()),
                jit_api=callee.name,
            )
        if (
            len(positional) == 1
            and isinstance(positional[0], BoundMethod)
            and positional[0].function.wrapped_by is None
        ):  # `jax.jit(self._step, in_shardings=...)`: a jitted method, its receiver still bound
            method = positional[0]
            return replace(
                method,
                function=replace(
                    method.function,
                    wrapped_by="jit",
                    jit_keywords=tuple(keywords.items()),
                    jit_api=callee.name,
                ),
            )
        if not positional:
            return callee
        if not holds_tree_objects(positional[0]):
            why = "jax.jit of a function from outside the tree"
            if len(positional) == 1:
                return Jitted(why, tuple(keywords.items()))
            return JaxStage(why)
        cause = positional[0]
        if isinstance(cause, Unknown):  # the trail goes on where the function was lost
            return lost_at(JitOfUnknown(lambda: f"jax.jit of {cause.why}"), cause)
        return Unknown("jax.jit of something jaxfix does not know")
    if api is Api.WRAPS:
        return callee  # functools.wraps(fn) decorates keeping the body
    if api is Api.PARTIAL or callee.name == "functools.partial":
        return _partial(positional, keywords)
    typed = _typeof(positional[0], node) if api is Api.TYPEOF and positional else None
    if typed is not None and len(positional) == 1 and not keywords:
        return typed
    if api in (Api.DEVICES, Api.LOCAL_DEVICES):
        return Devices((None,), is_array=False)
    if api in (Api.NUMPY_ARRAY, Api.NUMPY_RESHAPE) and (
        not positional or not isinstance(positional[0], Array)
    ):
        devices = _numpy_devices(api, positional, keywords)
        if not isinstance(devices, Unknown) or (
            positional and isinstance(positional[0], Devices)
        ):
            return devices
    if api is not None and api in BUILDERS:
        signature = SIGNATURES.get(api)
        args = bind(signature, positional, keywords) if signature is not None else None
        if args is None:
            return Unknown(f"{api.value}(...) with arguments jaxfix cannot bind")
        return BUILDERS[api](args, node, version)
    if callee.name.rpartition(".")[2] == "AbstractDevice" and callee.name.startswith(
        "jax."
    ):
        return External("jax.sharding.AbstractDevice()")  # an abstract device (any)
    array = arrays.made(callee.name, positional, keywords, node)
    if array is not None:
        return array
    if (
        callee.name in _OBJECT_COPIES
        and len(positional) == 1
        and not keywords
        and isinstance(positional[0], Instance)
    ):
        # a copy of an object of the tree (`copy.deepcopy(self).set(**kw)`): of its class,
        # in a state jaxfix does not know, as `self` in a method jaxfix reached on its own
        return Instance(positional[0].cls, None, node)
    found = _builtin_call(callee.name, positional, keywords)
    if isinstance(found, DictValue) and isinstance(node, ast.Call):
        found = _keywords_written(found, node)
    if isinstance(found, Unknown) and callee.name in _FROM_ARGUMENTS:
        found = _of_unknown_argument(callee.name, found, positional, keywords)
    if isinstance(found, Unknown) and not callee.name.startswith("builtins."):
        if not any(holds_tree_objects(v) for v in (*positional, *keywords.values())):
            return lost_at(Foreign(found.why), found)
    return found


# Flax's `logical_to_mesh_axes(names, rules=None)`: a `PartitionSpec` of one part a name, each
# mesh axis (or None) decided by the logical axis rules in force when it runs, or None when the
# names are None (flax/linen/spmd.py; `nn_partitioning` re-exports it).
_LOGICAL_SPECS = frozenset(
    {
        "flax.linen.logical_to_mesh_axes",
        "flax.linen.partitioning.logical_to_mesh_axes",
        "flax.linen.spmd.logical_to_mesh_axes",
    }
)


def _logical_spec(positional: list[Value], keywords: dict[str, Value]) -> Value:
    """A bare `PartitionSpec` whose parts the rules decide, for names jaxfix spells out."""
    names = positional[0] if positional else keywords.get("array_dim_names")
    items = _items(names)
    if items is None or len(positional) > 2:
        return Unknown("flax's logical_to_mesh_axes of names jaxfix does not know")
    part = Unknown("a mesh axis the logical axis rules in force decide")
    return Spec(tuple(part for _ in items))


_OBJECT_COPIES = frozenset({"copy.copy", "copy.deepcopy"})

# Calls whose value the vocabulary computes from their arguments alone (conversions,
# reductions, NumPy's array constructors): one not known because an argument is not
# keeps where that argument was lost (`np.array(args.mesh_shape)`).
_FROM_ARGUMENTS = frozenset(
    {
        *(
            f"builtins.{name}"
            for name in (
                "int",
                "tuple",
                "list",
                "sorted",
                "dict",
                "len",
                "any",
                "all",
                "sum",
                "min",
                "max",
                "range",
                "zip",
                "enumerate",
            )
        ),
        "math.prod",
        "numpy.prod",
        "numpy.array",  # and `numpy.asarray`, one API (names.py)
        "numpy.reshape",
        "jax.numpy.array",
        "jax.numpy.asarray",
        "copy.deepcopy",
    }
)


def _of_unknown_argument(
    name: str,
    found: Unknown,
    positional: list[Value],
    keywords: dict[str, Value],
) -> Unknown:
    """`found`, the value of a call of `name` computed from its arguments alone, as the
    trail of its first argument (or item of one) jaxfix does not know: why that one was
    lost, and where; `found` itself when no argument is unknown or it is that argument
    (`max(1, n)`)."""
    cause = _first_unknown((*positional, *keywords.values()))
    if cause is None or cause is found:
        return found
    module, _, short = name.rpartition(".")
    spelled = f"`{short if module == 'builtins' else name}(...)`"
    return lost_at(Unknown(lambda: f"{spelled} of {cause.why}"), cause)


def _first_unknown(values: tuple[Value, ...]) -> Unknown | None:
    """The first Unknown among `values` and the items of their tuples and lists."""
    for value in values:
        if isinstance(value, Unknown):
            return value
        items = _items(value)
        inner = _first_unknown(items) if items is not None else None
        if inner is not None:
            return inner
    return None


def _plain_data(value: Value) -> bool:
    """Numbers, strings, None, meshes and tuples, lists and dicts of them: what a copy
    leaves equal, with no object whose attributes a later store could change."""
    if value is None or isinstance(value, (bool, int, float, str, Mesh)):
        return True
    if isinstance(value, DictValue):
        return all(_plain_data(k) and _plain_data(v) for k, v in value.items)
    items = _items(value)
    return items is not None and all(_plain_data(v) for v in items)


def _typeof(value: Value, node: ast.AST) -> Value | None:
    """`jax.typeof(x)`: for an array placed on a NamedSharding, a struct whose `.sharding` is
    on the abstract mesh of the array's mesh (eager and inside jit, jax 0.10.2 and 0.12.0.1);
    for any other array or value the code does not show, one on an abstract mesh whose axes
    are not known (an array, a NumPy array, a number, a tracer: JAX's type of each has a
    sharding on an AbstractMesh, `AbstractMesh((), ...)` for an unsharded one, on both
    tiers); None for anything else."""
    if isinstance(value, Structs):
        return value
    if isinstance(value, Array) and isinstance(value.sharding, Sharding):
        mesh = value.sharding.mesh
        return ShapeStruct(
            Unknown("the shape of an array"),
            Unknown("the dtype of an array"),
            Sharding(
                mesh.abstract_at(node) if isinstance(mesh, Mesh) else mesh,
                value.sharding.spec,
            ),
        )
    if isinstance(value, (Array, Unknown, Foreign, int, float)) and not isinstance(
        value, bool
    ):
        # the mesh of an aval: abstract, whatever its axes (`has_abstract_device`: what a
        # rule asks of a hand-built mesh; an aval's may carry the platform, so not claimed)
        mesh = Mesh(
            MeshKind.ABSTRACT, None, None, None, True, origin=node, abstracted=node
        )
        return ShapeStruct(
            Unknown("the shape of an array"),
            Unknown("the dtype of an array"),
            Sharding(mesh, Unknown("the spec of an array's type")),
        )
    return None


def _axis_set(value: Value | None) -> Value:
    if value is None:
        return frozenset()
    items = _items(value) if not isinstance(value, frozenset) else tuple(value)
    if items is None or not all(isinstance(i, str) for i in items):
        return Unknown("axes jaxfix cannot spell out")
    return frozenset(str(i) for i in items)


def _partial(positional: list[Value], keywords: dict[str, Value]) -> Value:
    if not positional:
        return Unknown("functools.partial() of nothing")
    function, rest = positional[0], positional[1:]
    if isinstance(function, External) and api_of(function.name) is Api.JIT and not rest:
        return function  # partial(jax.jit, ...) decorates as jax.jit does
    if isinstance(function, Function) and not rest:
        return replace(function, bound=(*function.bound, *keywords.items()))
    if (
        isinstance(function, External)
        and function.name.startswith(("jax.tree.", "jax.tree_util."))
        and not rest
    ):
        # `partial(jax.tree.map, is_leaf=...)`: called as the function with these keywords
        return replace(function, bound=(*function.bound, *keywords.items()))
    if isinstance(function, External) and api_of(function.name) in _PARTIAL_CLASSES:
        # `partial(NamedSharding, mesh)`: called as the class with these arguments first
        return replace(
            function,
            args=(*function.args, *rest),
            bound=(*function.bound, *keywords.items()),
        )
    return Unknown("functools.partial of something jaxfix does not follow")


# JAX's classes and constructors a `functools.partial` may bind arguments of, positional ones
# included (`functools.partial(NamedSharding, mesh)`, flaxformer's benchmarks): a call of the
# partial is the constructor's call with the bound arguments first.
_PARTIAL_CLASSES = frozenset(
    {
        Api.NAMED_SHARDING,
        Api.PARTITION_SPEC,
        Api.MESH,
        Api.ABSTRACT_MESH,
        Api.MAKE_MESH,
        Api.SHAPE_DTYPE_STRUCT,
        Api.DEVICE_PUT,
    }
)


def _numpy_devices(
    api: Api, positional: list[Value], keywords: dict[str, Value]
) -> Value:
    if not positional or not isinstance(positional[0], Devices):
        return Unknown(f"{api.value}(...) of something that is not known devices")
    given = positional[0]
    if api is Api.NUMPY_ARRAY:
        if len(positional) > 1 or set(keywords) - {"dtype", "copy", "order"}:
            return Unknown("np.array(...) with arguments that may change its shape")
        return replace(given, is_array=True)
    shape = (
        positional[1]
        if len(positional) == 2
        else keywords.get("shape", keywords.get("newshape"))
    )
    if (
        shape is None
        or len(positional) > 2
        or set(keywords) - {"shape", "newshape", "order"}
    ):
        return Unknown("np.reshape(...) with arguments jaxfix does not follow")
    return device_shapes.reshaped(given, shape)


def _keywords_written(made: DictValue, call: ast.Call) -> DictValue:
    """`dict(base, k=v)`: where its `k=` keywords are written, after what `base` wrote."""
    given = tuple((k.arg, k) for k in call.keywords if k.arg is not None)
    if not given or len(given) != len(call.keywords):
        return made  # `dict(**other)`: its keys are written where `other` was made
    return replace(made, written=(*made.written, *given))


def _builtin_call(
    name: str, positional: list[Value], keywords: dict[str, Value]
) -> Value:
    if name == "builtins.dict" and keywords and len(positional) <= 1:
        base = _builtin_call(name, positional, {}) if positional else DictValue(())
        if not isinstance(base, DictValue):
            return base
        return DictValue((*base.items, *keywords.items()), written=base.written)
    if name == "builtins.zip" and set(keywords) == {"strict"}:
        # `zip(a, b, strict=True)`: zip, where the lengths agree (else it raises)
        columns = [_items(v) for v in positional]
        strict = keywords["strict"]
        if isinstance(strict, bool) and all(c is not None for c in columns):
            if strict and len({len(c) for c in columns if c is not None}) > 1:
                return Unknown("`zip(..., strict=True)` of values of other lengths")
            return tuple(zip(*(c for c in columns if c is not None)))
        return Unknown("`zip` of values jaxfix does not know")
    if name == "builtins.enumerate" and positional and len(positional) <= 2:
        column = _items(positional[0])
        start = positional[1] if len(positional) == 2 else 0
        if column is not None and _is_int(start) and isinstance(start, int):
            return tuple((start + i, item) for i, item in enumerate(column))
        return Unknown("`enumerate` of values jaxfix does not know")
    if keywords:
        return Unknown(f"a call of `{name}` with keywords")
    if (
        name in ("builtins.list", "builtins.len")
        and len(positional) == 1
        and isinstance(positional[0], Devices)
        and len(positional[0].shape) == 1
    ):
        # a 1-D device list or array: `list(devices)` the same devices, `len` their count
        devices = positional[0]
        if name == "builtins.list":
            return Devices(devices.shape, is_array=False)
        count = devices.shape[0]
        return (
            count if count is not None else Unknown("`len` of devices of unknown count")
        )
    if (
        name in ("builtins.min", "builtins.max")
        and len(positional) >= 2
        and all(_is_int(v) for v in positional)
    ):
        ints = [v for v in positional if isinstance(v, int)]
        return min(ints) if name == "builtins.min" else max(ints)
    if (
        name in ("builtins.tuple", "builtins.list", "builtins.sorted")
        and len(positional) == 1
        and isinstance(positional[0], Items)
    ):  # a dict iterates its keys
        every = positional[0]
        if every.mapping:
            return Items(every.key, Unknown("a list has no keys"), mapping=False)
        return every
    if name in ("builtins.tuple", "builtins.list"):
        if not positional:
            items: tuple[Value, ...] | None = ()
        elif len(positional) == 1 and isinstance(positional[0], DictValue):
            items = tuple(k for k, _ in positional[0].items)  # a dict iterates its keys
        else:
            items = _items(positional[0]) if len(positional) == 1 else None
        if items is None:
            spelled = f"`{name.rpartition('.')[2]}(...)`"
            return Unknown(f"{spelled} of something jaxfix does not know")
        return items if name == "builtins.tuple" else ListValue(items)
    if name == "builtins.dict":
        if not positional:
            return DictValue(())
        if len(positional) == 1 and isinstance(positional[0], DictValue):
            return positional[0]
        pairs = _items(positional[0]) if len(positional) == 1 else None
        if pairs is not None and all(
            isinstance(p, tuple) and len(p) == 2 for p in pairs
        ):
            return DictValue(tuple((p[0], p[1]) for p in pairs if isinstance(p, tuple)))
        return Unknown("`dict(...)` of something jaxfix does not know")
    if name == "builtins.len" and len(positional) == 1:
        found = _items(positional[0])
        if isinstance(positional[0], DictValue):
            found = tuple(k for k, _ in positional[0].items)
        return (
            len(found) if found is not None else Unknown("`len` of something unknown")
        )
    if name in ("builtins.any", "builtins.all") and len(positional) == 1:
        found = _items(positional[0])
        if found is not None and all(isinstance(v, (bool, int)) for v in found):
            return any(found) if name == "builtins.any" else all(found)
        return Unknown(f"`{name.rpartition('.')[2]}` of values jaxfix does not know")
    if name in ("math.prod", "numpy.prod") and len(positional) == 1:
        found = _items(positional[0])
        if found is not None and all(_is_int(v) for v in found):
            return math.prod(v for v in found if isinstance(v, int))
        return Unknown("`prod` of values jaxfix does not know")
    if (
        name in ("builtins.sum", "builtins.min", "builtins.max")
        and len(positional) == 1
    ):
        found = _items(positional[0])
        if found and all(_is_int(v) for v in found):
            ints = [v for v in found if isinstance(v, int)]
            if name == "builtins.sum":
                return sum(ints)
            return min(ints) if name == "builtins.min" else max(ints)
        return Unknown(f"`{name.rpartition('.')[2]}` of values jaxfix does not know")
    if name in ("builtins.min", "builtins.max") and len(positional) >= 2:
        # `max(1, n // 4)`: of the arguments themselves
        if all(_is_int(v) for v in positional):
            ints = [v for v in positional if isinstance(v, int)]
            return min(ints) if name == "builtins.min" else max(ints)
        unknown = next((v for v in positional if isinstance(v, Unknown)), None)
        if unknown is not None:
            return unknown  # where the unknown argument was lost
        return Unknown(f"`{name.rpartition('.')[2]}` of values jaxfix does not know")
    if (
        name == "builtins.range"
        and 1 <= len(positional) <= 3
        and all(_is_int(v) for v in positional)
    ):
        bounds = [v for v in positional if isinstance(v, int)]
        numbers = range(*bounds)
        return tuple(numbers) if len(numbers) <= _MAX_ITEMS else Unknown("a long range")
    if name == "builtins.zip":
        columns = [_items(v) for v in positional]
        if all(c is not None for c in columns):
            return tuple(zip(*(c for c in columns if c is not None)))
        return Unknown("`zip` of values jaxfix does not know")
    if name == "builtins.enumerate" and positional and len(positional) <= 2:
        column = _items(positional[0])
        start = positional[1] if len(positional) == 2 else 0
        if column is not None and _is_int(start) and isinstance(start, int):
            return tuple((start + i, item) for i, item in enumerate(column))
        return Unknown("`enumerate` of values jaxfix does not know")
    if name == "builtins.int" and len(positional) == 1 and _is_int(positional[0]):
        return positional[0]
    if (
        name == "builtins.int"
        and len(positional) == 1
        and isinstance(positional[0], float)
        and math.isfinite(positional[0])
    ):  # `int(num_devices / -count)`: toward zero, as Python does
        return int(positional[0])
    if (
        name == "builtins.int"
        and len(positional) == 1
        and isinstance(positional[0], str)
    ):
        try:
            return int(positional[0])  # as Python reads it; a ValueError stays unknown
        except ValueError:
            return Unknown("`int(...)` of a string that is not a number")
    if name == "copy.deepcopy" and len(positional) == 1:
        if _plain_data(positional[0]):
            return positional[0]  # a copy of plain data holds the same values
        return Unknown(f"a call of `{name}` of something that is not plain data")
    return Unknown(f"a call of `{name}`")


# -- attributes, methods, items ----------------------------------------------------------


def attribute(base: Value, name: str, node: ast.AST) -> Value:
    if isinstance(base, Mesh):
        return _mesh_attribute(base, name, node)
    if isinstance(base, Sharding):
        if name == "mesh":
            return base.mesh
        if name == "spec":
            return base.spec
    if isinstance(base, ShapeStruct) and name in ("shape", "dtype", "sharding"):
        return (
            getattr(base, name)
            if name != "sharding" or base.sharding is not None
            else None
        )
    if isinstance(base, Array) and name != "sharding":
        found = arrays.attribute(base, name, node)
        return found if found is not None else Foreign(f"`.{name}` of an array")
    if isinstance(base, Array) and name == "sharding":
        return (
            base.sharding
            if isinstance(base.sharding, Sharding)
            else Unknown(
                "the sharding of an array jaxfix did not see placed on a NamedSharding"
            )
        )
    if isinstance(base, Structs):
        if name == "sharding":
            return Sharding(base.mesh, Unknown("the spec eval_shape gives"))
        return Unknown(f"`.{name}` of what eval_shape returns")
    if isinstance(base, Devices) and base.is_array and name in ("shape", "size"):
        return device_shapes.array_attribute(base, name)
    if isinstance(base, Function) and base.wrapped_by == "jit":
        if name in ("lower", "trace", "eval_shape"):
            return JaxStage(f"`.{name}` of a jitted function")
    if isinstance(base, MeshContext):
        return Unknown(f"`.{name}` of a mesh context manager")
    return Unknown(f"`.{name}` of something jaxfix does not know")


def _mesh_attribute(mesh: Mesh, name: str, node: ast.AST) -> Value:
    if name == "abstract_mesh":
        return mesh.abstract_at(node)
    if name == "axis_names" and mesh.axis_names is not None:
        return mesh.axis_names
    if name == "axis_sizes" and mesh.axis_sizes is not None:
        return tuple(
            Unknown("an axis size jaxfix cannot compute") if s is None else s
            for s in mesh.axis_sizes
        )
    if name == "axis_types" and mesh.axis_types is not None:
        return mesh.axis_types
    if name == "size" and mesh.size is not None:
        return mesh.size
    if name == "shape" and mesh.axis_names is not None and mesh.axis_sizes is not None:
        return DictValue(
            tuple(
                (n, Unknown("an axis size jaxfix cannot compute") if s is None else s)
                for n, s in zip(mesh.axis_names, mesh.axis_sizes)
            )
        )
    if name == "devices" and not mesh.is_abstract and mesh.axis_sizes is not None:
        return Devices(mesh.axis_sizes, is_array=True)
    if name == "empty" and mesh.axis_sizes is not None:
        return not mesh.axis_sizes
    return Unknown(f"`.{name}` of a mesh jaxfix does not know")


def method(
    receiver: Value,
    name: str,
    positional: list[Value] | Unknown,
    keywords: dict[str, Value] | Unknown,
    node: ast.AST,
) -> Value:
    """`receiver.name(...)` for a known receiver."""
    if isinstance(positional, Unknown):
        return positional
    if isinstance(keywords, Unknown):
        return keywords
    if isinstance(receiver, Mesh) and name == "update":
        return _updated(receiver, positional, keywords, node)
    if isinstance(receiver, Array):
        return arrays.method(receiver, name, positional, keywords, node)
    if isinstance(receiver, Items) and not positional and not keywords:
        every = _every_item_method(receiver, name)
        if every is not None:
            return every
    if (
        isinstance(receiver, Items)
        and receiver.mapping
        and name == "get"
        and 1 <= len(positional) <= 2
        and not keywords
        and (positional[1] if len(positional) == 2 else None) is None
        and isinstance(receiver.item, (Class, Function, OneOf))
    ):  # a registry's `.get(name)`: what is registered, or None (whose call raises)
        item = receiver.item
        options = item.options if isinstance(item, OneOf) else (item,)
        return OneOf("a registered value, or None", (*options, None))
    if isinstance(receiver, DictValue):
        if name in ("values", "keys", "items") and not positional and not keywords:
            if name == "values":
                return tuple(v for _, v in receiver.items)
            if name == "keys":
                return tuple(k for k, _ in receiver.items)
            return tuple((k, v) for k, v in receiver.items)
        if name == "get" and 1 <= len(positional) <= 2 and not keywords:
            if not known(positional[0]):
                return Unknown("`.get` of a key jaxfix does not know")
            found = receiver.get(positional[0])
            if found is not None:
                return found
            return positional[1] if len(positional) == 2 else None
        if name == "copy" and not positional:
            return receiver
    if (
        isinstance(receiver, (ListValue, tuple))
        and name in ("index", "count")
        and len(positional) == 1
        and not keywords
    ):  # `sizes[sizes.index(-1)] = ...`: where the size to fill in is
        return _position_or_count(receiver, name, positional[0])
    if isinstance(receiver, str) and name == "split" and not keywords:
        # `"2,4".split(",")`: an axis-dims string of a config, as Python splits it
        separator = positional[0] if len(positional) == 1 else None
        if len(positional) <= 1 and (
            separator is None or (isinstance(separator, str) and separator)
        ):
            return ListValue(tuple(receiver.split(separator)))
    if isinstance(receiver, Devices) and receiver.is_array:
        return _device_array_method(receiver, name, positional, keywords)
    if isinstance(receiver, Sharding) and name == "with_spec" and len(positional) == 1:
        return Sharding(receiver.mesh, positional[0])
    return Unknown(f"`.{name}(...)` of something jaxfix does not know")


def _position_or_count(
    receiver: ListValue | tuple[Value, ...], name: str, wanted: Value
) -> Value:
    """`.index(v)` or `.count(v)` of a list or tuple of plain data jaxfix knows."""
    items = receiver.items if isinstance(receiver, ListValue) else receiver
    plain = (int, float, str, type(None))
    if not isinstance(wanted, plain) or not all(isinstance(i, plain) for i in items):
        return Unknown(f"`.{name}(...)` of items jaxfix does not know")
    if name == "count":
        return sum(1 for i in items if i == wanted)
    if wanted not in items:
        return Unknown("`.index(...)` of a value the list does not hold (it raises)")
    return items.index(wanted)


def _every_item_method(receiver: Items, name: str) -> Items | None:
    """`.values()`, `.keys()`, `.items()` of a dict whose every value is one value, or
    `.copy()` of such a list or dict; None for any other method."""
    if name == "copy":
        return receiver
    if not receiver.mapping:
        return None
    why = "a list has no keys"
    if name == "values":
        return Items(receiver.item, Unknown(why), mapping=False)
    if name == "keys":
        return Items(receiver.key, Unknown(why), mapping=False)
    if name == "items":
        return Items((receiver.key, receiver.item), Unknown(why), mapping=False)
    return None


def _updated(
    mesh: Mesh, positional: list[Value], keywords: dict[str, Value], node: ast.AST
) -> Value:
    args = bind(
        MESH_UPDATE if mesh.is_abstract else CONCRETE_MESH_UPDATE, positional, keywords
    )
    if args is None:
        return Unknown("`.update(...)` with arguments jaxfix cannot bind")
    if mesh.is_abstract:
        sizes = _sizes(args["axis_sizes"]) if "axis_sizes" in args else mesh.axis_sizes
    else:
        given = args.get("devices")
        sizes = (
            (given.shape if isinstance(given, Devices) else None)
            if "devices" in args
            else mesh.axis_sizes
        )
    names = _names(args["axis_names"]) if "axis_names" in args else mesh.axis_names
    types = _types(args["axis_types"]) if "axis_types" in args else mesh.axis_types
    return Mesh(mesh.kind, names, sizes, types, mesh.has_abstract_device, node)


def _device_array_method(
    receiver: Devices, name: str, positional: list[Value], keywords: dict[str, Value]
) -> Value:
    if set(keywords) - {"order"}:
        return Unknown(f"`.{name}(...)` with arguments jaxfix does not follow")
    if name in ("flatten", "ravel"):
        return (
            device_shapes.flattened(receiver)
            if not positional
            else Unknown("an argument")
        )
    if name != "reshape":
        return Unknown(f"`.{name}(...)` of devices")
    if len(positional) == 1:
        return device_shapes.reshaped(receiver, positional[0])
    return device_shapes.reshaped(receiver, tuple(positional))


def item(base: Value, key: Value) -> Value:
    if isinstance(base, Structs):
        return base
    if isinstance(base, Items) and (base.mapping or _is_int(key)):
        return base.item  # what every item is (if there is one: else it raises)
    if type(base) is Unknown:
        return base  # why the container is not known says why its item is not
    if isinstance(base, DictValue):
        if not known(key):
            return Unknown("an item of a key jaxfix does not know")
        found = base.get(key)
        return found if found is not None else Unknown(f"no key {key!r} (KeyError)")
    items = (
        base.items
        if isinstance(base, ListValue)
        else base
        if isinstance(base, tuple)
        else None
    )
    if items is not None and _is_int(key):
        assert isinstance(key, int)
        if -len(items) <= key < len(items):
            return items[key]
    if isinstance(base, Unknown):  # the trail goes on where the container was lost
        return lost_at(Unknown(lambda: f"an item of {base.why}"), base)
    return Unknown("an item jaxfix cannot pick")


def sliced(base: Value, lower: Value, upper: Value) -> Value:
    if isinstance(base, ListValue):
        found = device_shapes.sliced(base.items, lower, upper)
        return ListValue(found) if isinstance(found, tuple) else found
    if isinstance(base, (tuple, Devices)):
        return device_shapes.sliced(base, lower, upper)
    return Unknown("a slice of something jaxfix does not know")


def _items(value: Value | None) -> tuple[Value, ...] | None:
    if isinstance(value, tuple):
        return value
    if isinstance(value, ListValue):
        return value.items
    if isinstance(value, Array) and value.values is not None:
        return value.values
    return None


def _is_int(value: Value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_partial_jit(value: Value) -> bool:
    return isinstance(value, External) and api_of(value.name) is Api.JIT
