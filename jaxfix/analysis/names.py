"""Which API a name or call denotes, whatever the import spelling, and how its arguments bind.

`Api` names every API the analysis and the rules recognise; `api_of_name(name)` maps a
qualified name (`jax.sharding.Mesh`, `jax._src.mesh.Mesh`) to one. `SIGNATURES` is the one
table of their parameters (checked with `inspect.signature` on jax 0.10.2 and 0.12.0.1).
Plain strings only, so that the engine over `ast` imports no LibCST: the LibCST side (names
of nodes, binding a `cst.Call`) is jaxfix/analysis/cst_names.py.
"""

from __future__ import annotations

import enum
import functools
import sys
from dataclasses import dataclass


class Api(enum.Enum):
    ABSTRACT_MESH = "AbstractMesh"
    MESH = "Mesh"
    MAKE_MESH = "make_mesh"
    USE_ABSTRACT_MESH = "use_abstract_mesh"
    SET_MESH = "set_mesh"
    USE_MESH = "use_mesh"
    GET_ABSTRACT_MESH = "get_abstract_mesh"
    NAMED_SHARDING = "NamedSharding"
    PARTITION_SPEC = "PartitionSpec"
    AXIS_TYPE = "AxisType"
    JIT = "jit"
    SHAPE_DTYPE_STRUCT = "ShapeDtypeStruct"
    SHAPED_ARRAY = "ShapedArray"
    DEVICE_PUT = "device_put"
    # Arrays placed on a sharding they are given, as device_put places them.
    MAKE_ARRAY_FROM_CALLBACK = "make_array_from_callback"
    MAKE_ARRAY_FROM_SINGLE_DEVICE_ARRAYS = "make_array_from_single_device_arrays"
    MAKE_ARRAY_FROM_PROCESS_LOCAL_DATA = "make_array_from_process_local_data"
    TYPEOF = "typeof"
    EXPORT = "export"
    TOP_LEVEL_ALL_GATHER = "top_level_all_gather"
    AUTO_AXES = "auto_axes"
    BUFFER_CALLBACK = "buffer_callback"
    SHARD_MAP = "shard_map"
    # jax.experimental.shard_map.shard_map: another function (positional, `check_rep`),
    # deprecated since jax 0.8.0 in favour of jax.shard_map.
    EXPERIMENTAL_SHARD_MAP = "experimental_shard_map"
    PARTIAL = "partial"
    WRAPS = "wraps"
    EXIT_STACK = "ExitStack"
    # Device lists and arrays, the first argument of `Mesh(devices, names)`.
    DEVICES = "devices"
    LOCAL_DEVICES = "local_devices"
    CREATE_DEVICE_MESH = "create_device_mesh"
    CREATE_HYBRID_DEVICE_MESH = "create_hybrid_device_mesh"
    NUMPY_ARRAY = "numpy.array"
    NUMPY_RESHAPE = "numpy.reshape"
    # Primitives JAX registers in dispatch.prim_requires_devices_during_lowering (jax 0.10.2 and
    # 0.12.0.1); jax.debug.print and jax.debug.callback are not among them.
    PURE_CALLBACK = "pure_callback"
    IO_CALLBACK = "io_callback"
    INSPECT_ARRAY_SHARDING = "inspect_array_sharding"


# The context managers that make a mesh JAX's current (abstract) mesh.
MESH_CONTEXT_APIS = frozenset({Api.USE_ABSTRACT_MESH, Api.SET_MESH, Api.USE_MESH})

# The first spelling of each API is its public one; every `jax._src.` spelling is the very same
# object on jax 0.10.2 and 0.12.0.1 (tests/analysis/test_jax_spellings.py checks `is` on each tier).
_QUALIFIED_NAMES: dict[Api, tuple[str, ...]] = {
    Api.ABSTRACT_MESH: ("jax.sharding.AbstractMesh", "jax._src.mesh.AbstractMesh"),
    Api.MESH: ("jax.sharding.Mesh", "jax._src.mesh.Mesh", "jax.experimental.maps.Mesh"),
    Api.MAKE_MESH: (
        "jax.make_mesh",
        "jax.sharding.make_mesh",
        "jax._src.sharding_impls.make_mesh",
    ),
    Api.USE_ABSTRACT_MESH: (
        "jax.sharding.use_abstract_mesh",
        "jax._src.mesh.use_abstract_mesh",
        "jax.use_abstract_mesh",
    ),
    Api.SET_MESH: (
        "jax.set_mesh",
        "jax.sharding.set_mesh",
        "jax._src.sharding_impls.set_mesh",
    ),
    Api.USE_MESH: ("jax.sharding.use_mesh", "jax.use_mesh"),
    Api.GET_ABSTRACT_MESH: (
        "jax.sharding.get_abstract_mesh",
        "jax._src.mesh.get_abstract_mesh",
    ),
    Api.NAMED_SHARDING: (
        "jax.sharding.NamedSharding",
        "jax.NamedSharding",
        "jax._src.named_sharding.NamedSharding",
        "jax._src.sharding_impls.NamedSharding",
    ),
    Api.PARTITION_SPEC: (
        "jax.sharding.PartitionSpec",
        "jax.P",
        "jax._src.partition_spec.PartitionSpec",
    ),
    Api.AXIS_TYPE: ("jax.sharding.AxisType", "jax._src.mesh.AxisType"),
    Api.JIT: ("jax.jit", "jax.experimental.pjit.pjit", "jax.pjit"),
    Api.SHAPE_DTYPE_STRUCT: ("jax.ShapeDtypeStruct", "jax._src.api.ShapeDtypeStruct"),
    Api.SHAPED_ARRAY: ("jax.core.ShapedArray", "jax._src.core.ShapedArray"),
    Api.DEVICE_PUT: ("jax.device_put", "jax._src.api.device_put"),
    Api.MAKE_ARRAY_FROM_CALLBACK: (
        "jax.make_array_from_callback",
        "jax._src.array.make_array_from_callback",
    ),
    Api.MAKE_ARRAY_FROM_SINGLE_DEVICE_ARRAYS: (
        "jax.make_array_from_single_device_arrays",
        "jax._src.array.make_array_from_single_device_arrays",
    ),
    Api.MAKE_ARRAY_FROM_PROCESS_LOCAL_DATA: (
        "jax.make_array_from_process_local_data",
        "jax._src.array.make_array_from_process_local_data",
    ),
    Api.TYPEOF: ("jax.typeof",),
    Api.EXPORT: ("jax.export.export",),
    Api.TOP_LEVEL_ALL_GATHER: ("jax._src.shard_map.top_level_all_gather",),
    Api.AUTO_AXES: ("jax.sharding.auto_axes", "jax._src.pjit.auto_axes"),
    Api.BUFFER_CALLBACK: (
        "jax.experimental.buffer_callback.buffer_callback",
        "jax._src.buffer_callback.buffer_callback",
    ),
    Api.SHARD_MAP: ("jax.shard_map", "jax._src.shard_map.shard_map"),
    Api.EXPERIMENTAL_SHARD_MAP: ("jax.experimental.shard_map.shard_map",),
    Api.PARTIAL: ("functools.partial",),
    Api.WRAPS: ("functools.wraps",),
    Api.EXIT_STACK: ("contextlib.ExitStack",),
    Api.DEVICES: ("jax.devices", "jax._src.xla_bridge.devices"),
    Api.LOCAL_DEVICES: ("jax.local_devices", "jax._src.xla_bridge.local_devices"),
    Api.CREATE_DEVICE_MESH: (
        "jax.experimental.mesh_utils.create_device_mesh",
        "jax._src.mesh_utils.create_device_mesh",
    ),
    Api.CREATE_HYBRID_DEVICE_MESH: (
        "jax.experimental.mesh_utils.create_hybrid_device_mesh",
        "jax._src.mesh_utils.create_hybrid_device_mesh",
    ),
    Api.NUMPY_ARRAY: ("numpy.array", "numpy.asarray"),
    Api.NUMPY_RESHAPE: ("numpy.reshape",),
    Api.PURE_CALLBACK: ("jax.pure_callback", "jax._src.callback.pure_callback"),
    Api.IO_CALLBACK: ("jax.experimental.io_callback", "jax._src.callback.io_callback"),
    Api.INSPECT_ARRAY_SHARDING: (
        "jax.debug.inspect_array_sharding",
        "jax._src.debugging.inspect_array_sharding",
    ),
}
# Deprecated spellings a rule rewrites: the engine's value keeps this name (still its API).
DEPRECATED_SPELLINGS = frozenset({"jax.experimental.pjit.pjit"})
_BY_QUALIFIED_NAME = {
    q: api for api, spellings in _QUALIFIED_NAMES.items() for q in spellings
}
# Public aliases a future JAX may add (jax.sharding.top_level_all_gather, ...) match by last name.
_MATCH_ANY_JAX_MODULE = {"top_level_all_gather": Api.TOP_LEVEL_ALL_GATHER}
# The last part of every qualified name an API may have. Every qualified name of `x.attr` ends
# in `.attr` (an import only renames the first part of a chain), so an attribute whose name is
# not among these is no API: `Analysis.api_of` answers without evaluating it.
API_LAST_NAMES = frozenset(
    q.rpartition(".")[2] for q in _BY_QUALIFIED_NAME
) | frozenset(_MATCH_ANY_JAX_MODULE)


@dataclass(frozen=True)
class Signature:
    """Parameter names: those that may be passed by position (in order), then keyword-only ones."""

    positional: tuple[str, ...]
    keyword_only: tuple[str, ...] = ()
    positional_only: int = 0  # how many of `positional` cannot be passed by keyword


SIGNATURES: dict[Api, Signature] = {
    Api.ABSTRACT_MESH: Signature(
        ("axis_sizes", "axis_names", "axis_types"), ("abstract_device",)
    ),
    # jax.make_mesh's first parameter is axis_shapes in 0.10.x, axis_sizes since 0.12.
    Api.MAKE_MESH: Signature(
        ("axis_shapes", "axis_names", "axis_types"), ("axis_sizes", "devices")
    ),
    Api.MESH: Signature(("devices", "axis_names", "axis_types")),
    Api.CREATE_DEVICE_MESH: Signature(
        ("mesh_shape", "devices"), ("contiguous_submeshes", "allow_split_physical_axes")
    ),
    Api.CREATE_HYBRID_DEVICE_MESH: Signature(
        ("mesh_shape", "dcn_mesh_shape", "devices"),
        (
            "process_is_granule",
            "should_sort_granules_by_key",
            "allow_split_physical_axes",
        ),
    ),
    Api.NAMED_SHARDING: Signature(("mesh", "spec"), ("memory_kind",)),
    Api.USE_ABSTRACT_MESH: Signature(("mesh",)),
    Api.SET_MESH: Signature(("mesh",)),
    Api.USE_MESH: Signature(("mesh",)),
    Api.SHAPE_DTYPE_STRUCT: Signature(
        ("shape", "dtype"), ("sharding", "weak_type", "manual_axis_type", "is_ref")
    ),
    Api.DEVICE_PUT: Signature(("x", "device"), ("src", "donate", "may_alias")),
    Api.MAKE_ARRAY_FROM_CALLBACK: Signature(
        ("shape", "sharding", "data_callback", "dtype")
    ),
    Api.MAKE_ARRAY_FROM_SINGLE_DEVICE_ARRAYS: Signature(
        ("shape", "sharding", "arrays"), ("dtype",)
    ),
    Api.MAKE_ARRAY_FROM_PROCESS_LOCAL_DATA: Signature(
        ("sharding", "local_data", "global_shape")
    ),
    Api.TOP_LEVEL_ALL_GATHER: Signature(("xs", "out_sharding"), ("multi_dim",)),
    Api.AUTO_AXES: Signature(("f",), ("axes", "out_sharding"), positional_only=1),
    Api.SHARD_MAP: Signature(
        ("f",),
        ("out_specs", "in_specs", "mesh", "axis_names", "check_vma"),
        positional_only=1,
    ),
    Api.EXPERIMENTAL_SHARD_MAP: Signature(
        ("f", "mesh", "in_specs", "out_specs", "check_rep")
    ),
    Api.JIT: Signature(
        ("fun",),
        (
            "in_shardings",
            "out_shardings",
            "static_argnums",
            "static_argnames",
            "donate_argnums",
            "donate_argnames",
            "keep_unused",
            "device",
            "backend",
            "inline",
            "compiler_options",
        ),
        positional_only=1,
    ),
}


# `AbstractMesh.update` and `Mesh.update` (methods, so not Apis; jax 0.10.2 and 0.12.0.1).
MESH_UPDATE = Signature(("axis_sizes", "axis_names", "axis_types"))
CONCRETE_MESH_UPDATE = Signature(("devices", "axis_names", "axis_types"))


# `x.enter_context(cm)` (contextlib.ExitStack), `self.enterContext(cm)` (unittest): enter `cm`.
ENTER_METHODS = frozenset({"enter_context", "enterContext", "enterClassContext"})
_OPAQUE_JAX_MODULES = (
    "jax._src",
    "jax.experimental",
)  # jax internals may enter meshes (test helpers)
_MESHLESS_PACKAGES = frozenset(
    {"pytest", "_pytest", "numpy"}
)  # enter no JAX mesh context
# Context managers of other libraries that set no JAX mesh: flax's logical axis rules (a
# thread-local list of (logical, mesh axis) pairs, read by `logical_to_mesh_axes`).
_MESHLESS_NAMES = frozenset(
    {
        "flax.linen.partitioning.axis_rules",
        "flax.linen.logical_axis_rules",
        "flax.linen.spmd.logical_axis_rules",
        "flax.core.spmd.logical_axis_rules",
    }
)


def imported_name_enters_no_mesh(name: str) -> bool:
    """Whether what an import binds to `name` (its qualified name) surely enters no mesh
    context: the standard library, pytest, NumPy, JAX's public APIs (the mesh APIs are
    matched as such before this is asked) and flax's logical axis rules; not JAX's internals,
    nor anything else (a relative
    import, another package: it may be a helper that enters one)."""
    top = name.split(".", 1)[0]
    if top in _MESHLESS_PACKAGES or name in _MESHLESS_NAMES:
        return True
    if top == "jax":
        return not name.startswith(_OPAQUE_JAX_MODULES)
    return bool(top) and top in sys.stdlib_module_names


def spellings(api: Api) -> tuple[str, ...]:
    """The qualified names `api` is recognised by, its public one first."""
    return _QUALIFIED_NAMES[api]


@functools.cache
def api_last_names(apis: tuple[Api, ...]) -> tuple[str, ...]:
    """The last part of each qualified name of `apis` (`shard_map`, `jit` and `pjit`): every
    spelling of one of them in code is a name or an attribute bound from one of these."""
    found = {q.rpartition(".")[2] for api in apis for q in _QUALIFIED_NAMES[api]}
    found.update(last for last, api in _MATCH_ANY_JAX_MODULE.items() if api in apis)
    return tuple(sorted(found))


def api_of_name(name: str) -> Api | None:
    """The API a qualified name denotes, or None."""
    api = _BY_QUALIFIED_NAME.get(name)
    if api is not None:
        return api
    head, _, last = name.rpartition(".")
    if last in _MATCH_ANY_JAX_MODULE and (head == "jax" or head.startswith("jax.")):
        return _MATCH_ANY_JAX_MODULE[last]
    return None


# TestCase methods that test an error (absltest's too), each: the parameter holding the
# pattern (or None) and how it is applied (jaxfix/analysis/ast_engine/expected.py).
EXPECTED_ERROR_METHODS: dict[str, tuple[str | None, str]] = {
    "assertRaises": (None, "search"),
    "assertRaisesRegex": ("expected_regex", "search"),
    "assertRaisesRegexp": ("expected_regex", "search"),
    "assertRaisesWithLiteralMatch": ("expected_exception_message", "literal"),
    "assertRaisesWithPredicateMatch": ("predicate", "unknown"),
}
