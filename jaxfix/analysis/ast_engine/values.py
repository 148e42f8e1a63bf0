"""The values the `ast` engine answers with: one vocabulary for rules, evidence and the engine.

Every answer is one of these or `Unknown(why)`; nothing is a guess. Python data (int, float,
bool, str, None, tuples) are themselves; lists and dicts are `ListValue`/`DictValue` (known only
while nothing may have mutated them); JAX values are `Mesh`, `Spec`, `Sharding`, `ShapeStruct`,
`Array`, `Structs` (what `jax.eval_shape` returns), `Leaves` (a pytree mapped from them),
`Items` (a collection of a length jaxfix does not know whose every item is one value),
`MeshContext` (what `jax.set_mesh(m)` and
`use_abstract_mesh(m)` return), and `Devices` (a device list or array, by its shape). Names the
code binds to things are `Function`, `Class`, `Instance`, `BoundMethod`, `ModuleValue` (a module
of the tree) and `External` (anything imported from outside the tree, by its qualified name).
Two kinds of Unknown know a little: `OneOf` (one of several callables, the code not deciding
which) and `Jitted` (`jax.jit(f, ...)` of a function from outside the tree, with its keywords).

An `origin` field (the `ast` node that built a value) never takes part in equality: two meshes
built alike are equal, as JAX compares them.
"""

from __future__ import annotations

import ast
import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias, TypeVar

from jaxfix.analysis.names import Api

__all__ = [
    "Alternatives",
    "Array",
    "AxisType",
    "BoundMethod",
    "Class",
    "Devices",
    "DictValue",
    "EnumMember",
    "External",
    "Foreign",
    "LoadedFromFile",
    "Frame",
    "Function",
    "Instance",
    "Items",
    "JaxStage",
    "JitOfUnknown",
    "Jitted",
    "Leaves",
    "ListValue",
    "Mesh",
    "MeshContext",
    "MeshKind",
    "ModuleValue",
    "Namespace",
    "OneOf",
    "ShapeStruct",
    "Sharding",
    "STAGE_METHODS",
    "Spec",
    "StructLeaf",
    "Structs",
    "Unknown",
    "Value",
    "join",
    "lost_at",
]


class MeshKind(enum.Enum):
    ABSTRACT = (
        "abstract"  # jax.sharding.AbstractMesh, or a concrete mesh's `.abstract_mesh`
    )
    CONCRETE = "concrete"  # jax.make_mesh(...), jax.sharding.Mesh(...)


class AxisType(enum.Enum):
    """`jax.sharding.AxisType` members, by their JAX names."""

    AUTO = "Auto"
    EXPLICIT = "Explicit"
    MANUAL = "Manual"


class Unknown:
    """What the code does not show, and why (a short phrase for messages and debugging).

    `why` may be given as a function that makes the phrase when it is first read: a line
    number costs the positions of the whole module, and most reasons are never shown.
    `where` is the file and line of the innermost expression whose value it became (the
    evaluator sets it once): where the trail of a value ended, for `-v` (trail.py).
    """

    __slots__ = ("_why", "where")

    def __init__(self, why: str | Callable[[], str]) -> None:
        self._why = why
        self.where: tuple[Path, int] | None = None

    @property
    def why(self) -> str:
        if not isinstance(self._why, str):
            self._why = self._why()
        return self._why

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Unknown)
            and self.why == other.why
            and _facts(self) == _facts(other)
        )

    def __hash__(self) -> int:
        return hash(self.why)

    def __repr__(self) -> str:
        return f"Unknown(why={self.why!r})"


class NotDefined(Unknown):
    """A name a class (and every base jaxfix sees) does not define: told apart from a value
    jaxfix does not know by its kind, never by the words of its reason (which a reason
    built on it repeats)."""

    __slots__ = ()


class OneOf(Unknown):
    """One of several callables (`options`: functions, classes, methods or APIs of the tree or
    outside it, no two the same), the code not deciding which: `a if test else b` whose test
    jaxfix cannot decide; or a value and None, what a lookup that may find nothing returns.
    Unknown to every question; only a call of it is evaluated, once per option (None left
    out: calling it raises), and is known when every option gives the same value; a read
    under `if x is not None:` is the other option (evaluate.py)."""

    __slots__ = ("options",)

    def __init__(
        self, why: str | Callable[[], str], options: tuple[Value, ...]
    ) -> None:
        super().__init__(why)
        self.options = options

    def __repr__(self) -> str:
        return f"OneOf(why={self.why!r}, options={self.options!r})"


class Alternatives(Unknown):
    """One of several known values (`values`, no two the same), the code not deciding which: a
    call of each of a `OneOf`'s callables (a config picked from a registry by a name read at
    run time) giving different values. Unknown to every question; a rule whose error does not
    depend on the host asks each on its own, as one way of the callers (callers.py)."""

    __slots__ = ("values",)

    def __init__(self, why: str | Callable[[], str], values: tuple[Value, ...]) -> None:
        super().__init__(why)
        self.values = values

    def __repr__(self) -> str:
        return f"Alternatives(why={self.why!r}, values={self.values!r})"


_U = TypeVar("_U", bound=Unknown)


def lost_at(unknown: _U, cause: Unknown) -> _U:
    """`unknown`, made from `cause`, placed where `cause` was lost (the trail's end)."""
    unknown.where = cause.where
    return unknown


def _facts(value: Unknown) -> object:
    """What an Unknown of a kind that knows something knows (compared by `==`)."""
    if isinstance(value, OneOf):
        return value.options
    if isinstance(value, Alternatives):
        return value.values
    if isinstance(value, Jitted):
        return value.keywords
    if isinstance(value, JitOfUnknown):
        return JitOfUnknown
    return None


@dataclass(frozen=True)
class Devices:
    """A list or NumPy array of JAX devices, known by its shape only: what `Mesh(devices, ...)`
    takes its axis sizes from. `jax.devices()` is a list of unknown length, `(None,)`;
    `np.array(jax.devices()[:8]).reshape(2, 4)` an array of shape `(2, 4)`."""

    shape: tuple[int | None, ...]
    is_array: bool  # a NumPy array (it has `.reshape`, `.flatten`), not a Python list
    # why a dimension is not known, where the shape it was made of says (the trail's end)
    sizes_lost: Unknown | None = field(default=None, compare=False, repr=False)

    @property
    def count(self) -> int | None:
        """How many devices, when every dimension is known."""
        return (
            None
            if None in self.shape
            else math.prod(s for s in self.shape if s is not None)
        )


@dataclass(frozen=True)
class Mesh:
    """A mesh; a None field (or a None axis size) is what the code does not show."""

    kind: MeshKind
    axis_names: tuple[str, ...] | None
    axis_sizes: tuple[int | None, ...] | None
    axis_types: tuple[AxisType, ...] | None
    has_abstract_device: bool
    origin: ast.AST | None = field(default=None, compare=False, repr=False)
    # why a size is not known (the first Unknown among the sizes given), for `-v`
    sizes_lost: Unknown | None = field(default=None, compare=False, repr=False)
    # where a concrete mesh (or an array's) became this abstract one: the `m.abstract_mesh`
    # attribute or the `jax.typeof(x)` call, the place a fix can keep the concrete mesh
    abstracted: ast.AST | None = field(default=None, compare=False, repr=False)
    # the calls of the tree it was returned through, outermost first, then the line that
    # built it: the frames a walk to where its sizes are written follows (written_at.py)
    built_at: tuple[tuple[Path, int], ...] = field(
        default=(), compare=False, repr=False
    )

    @property
    def is_abstract(self) -> bool:
        return self.kind is MeshKind.ABSTRACT

    @property
    def size(self) -> int | None:
        sizes = self.axis_sizes
        if sizes is None or None in sizes:
            return None
        return math.prod(s for s in sizes if s is not None)

    @property
    def abstract(self) -> Mesh:
        """`mesh.abstract_mesh`: itself when abstract, else the same shape with the concrete
        mesh's abstract device."""
        return self.abstract_at(None)

    def abstract_at(self, node: ast.AST | None) -> Mesh:
        """`abstract`, made at `node` (`m.abstract_mesh`, `jax.typeof(x)`) when concrete."""
        if self.is_abstract:
            return self
        return Mesh(
            MeshKind.ABSTRACT,
            self.axis_names,
            self.axis_sizes,
            self.axis_types,
            True,
            self.origin,
            self.sizes_lost,
            node,
            self.built_at,
        )

    @property
    def is_empty(self) -> bool:
        return self.axis_sizes == () or self.axis_names == ()

    @property
    def all_explicit(self) -> bool:
        return self.axis_types is not None and all(
            t is AxisType.EXPLICIT for t in self.axis_types
        )

    def equals(self, other: Mesh) -> bool | None:
        """Equal as JAX compares meshes (axis names, sizes, types, abstract device; not
        whether concrete: JAX compares their abstract meshes); None when what is known cannot
        tell."""
        verdicts = {
            _same_axes(self.axis_names, other.axis_names),
            _same_axes(self.axis_sizes, other.axis_sizes),
            _same_axes(self.axis_types, other.axis_types),
        }
        if False in verdicts:
            return False
        if None in verdicts:
            return None
        return self.has_abstract_device == other.has_abstract_device

    def shape_text(self) -> str:
        """'(8, 4) ('data', 'model')', with '?' for what is unknown."""
        sizes = (
            "?"
            if self.axis_sizes is None
            else tuple_text(["?" if s is None else str(s) for s in self.axis_sizes])
        )
        names = (
            "?"
            if self.axis_names is None
            else tuple_text([repr(n) for n in self.axis_names])
        )
        return f"{sizes} {names}"


@dataclass(frozen=True)
class Spec:
    """`PartitionSpec(*parts, unreduced=..., reduced=...)`: each part None, an axis name or a
    tuple of names (or Unknown)."""

    parts: tuple[Value, ...]
    unreduced: Value = frozenset()
    reduced: Value = frozenset()


@dataclass(frozen=True)
class Sharding:
    """`NamedSharding(mesh, spec)`; `mesh` is the value a rule asks for."""

    mesh: Value
    spec: Value
    origin: ast.AST | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ShapeStruct:
    """`jax.ShapeDtypeStruct(shape, dtype, sharding=...)`."""

    shape: Value
    dtype: Value
    sharding: Value


@dataclass(frozen=True)
class Array:
    """A JAX or NumPy array, as far as the code shows it (arrays.py says which calls make one).

    `sharding`: the `Sharding` it is placed on (`jax.device_put(x, NamedSharding(...))`, or made
    on one by `jax.make_array_from_callback` and its kin), a `Spec` (`device_put(x, P(...))`,
    on the context mesh), None for an array the code makes unsharded (a NumPy array, a
    `jax.numpy` constructor's or `jax.random` function's without a sharding, and what
    operations of such arrays give), else what the code shows (a device, Unknown).
    `shape`: its leading dimensions (None where a size is not known), all of them when
    `exact_rank` (else it has at least as many). `values`: a 1-D NumPy array's integers, where
    the code shows them (`np.array((1, 2, 2)) * np.array(dcn_shape)`)."""

    sharding: Value
    shape: tuple[int | None, ...] = ()
    exact_rank: bool = False
    origin: ast.AST | None = field(default=None, compare=False, repr=False)
    values: tuple[int, ...] | None = None

    @property
    def unsharded(self) -> bool:
        return self.sharding is None

    @property
    def known_shape(self) -> tuple[int, ...] | None:
        """Every dimension's size, where the code shows them all."""
        if not self.exact_rank or None in self.shape:
            return None
        return tuple(s for s in self.shape if s is not None)


@dataclass(frozen=True)
class Structs:
    """What `jax.eval_shape(f, ...)` returns: ShapeDtypeStructs (a pytree of them) on the abstract
    mesh current where it is called (`mesh`), never device arrays."""

    mesh: Value


@dataclass(frozen=True)
class Leaves:
    """A pytree whose structure jaxfix does not spell out, each leaf of which is `leaf`: what
    `jax.tree.map(f, tree)` gives over what `jax.eval_shape` returns (or another such tree)
    when `f` gives the same value whatever leaf it is given (`jax.ShapeDtypeStruct(x.shape,
    x.dtype, sharding=NamedSharding(mesh, P()))`)."""

    leaf: Value


@dataclass(frozen=True)
class Items:
    """A list, tuple or dict of a length jaxfix does not know (none, maybe), whose every item
    (every value, for a dict) is `item`: what a comprehension over values jaxfix does not
    spell out gives where its element is one value whatever the item
    (`{name: NamedSharding(abstract_mesh, spec) for name, spec in read_specs().items()}`).
    `key`: each key of a dict (Unknown for a list or tuple)."""

    item: Value
    key: Value
    mapping: bool


@dataclass(frozen=True)
class Yields:
    """What calling a generator function of the tree returns: the one value every `yield`
    its body may reach gives (what `next(gen)` and a `for` over it see)."""

    value: Value


@dataclass(frozen=True)
class MeshContext:
    """What `jax.set_mesh(m)`, `use_abstract_mesh(m)`, `use_mesh(m)` return: a context manager
    that makes `mesh` current when entered (`set_mesh` also when merely called)."""

    api: Api
    mesh: Value
    origin: ast.AST | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ListValue:
    """A list whose every use jaxfix saw (no mutation), with its items."""

    items: tuple[Value, ...]


@dataclass(frozen=True)
class DictValue:
    """A dict whose every use jaxfix saw (no mutation): its items in insertion order, as
    Python keeps them: a key given again (`{**base, "y": 8}`, `dict(base, y=8)`) keeps its
    first place and takes the last value, when every key is plain data."""

    items: tuple[tuple[Value, Value], ...]
    # Where each key was written (a dict literal's key, a `dict(...)` call's keyword): what
    # a rule that renames a key finds where the dict is written, the last writing kept.
    written: tuple[tuple[Value, ast.AST], ...] = field(
        default=(), compare=False, repr=False
    )

    def __post_init__(self) -> None:
        if all(_plain_key(k) for k, _ in self.items):
            merged = dict(self.items)  # plain data: hashable
            if len(merged) != len(self.items):
                object.__setattr__(self, "items", tuple(merged.items()))

    def get(self, key: Value) -> Value | None:
        for k, v in reversed(self.items):
            if same(k, key):
                return v
        return None

    def written_at(self, key: Value) -> ast.AST | None:
        """The node that wrote `key`'s entry, when the dict's making is seen."""
        for k, node in reversed(self.written):
            if same(k, key):
                return node
        return None


@dataclass(frozen=True)
class Namespace:
    """`types.SimpleNamespace(a=1, ...)`, an attribute-style config whose every use jaxfix saw
    (no attribute set, no mutation): its attributes in order. `mapping`: a config that is
    also a dict (ml_collections' `ConfigDict`, a `dict` subclass whose `__getattr__` and
    `__setattr__` are its items): `.get(k)`, `[k]`, `.keys()` read the same attributes."""

    items: tuple[tuple[str, Value], ...]
    mapping: bool = False

    def get(self, name: str) -> Value | None:
        for key, value in reversed(self.items):
            if key == name:
                return value
        return None


@dataclass(frozen=True)
class Frame:
    """Where a function's body is evaluated: its parameters' values (None: taken from the
    function's callers in the project) and the frame its `def` ran in (closures)."""

    scope: ast.AST
    path: Path
    args: tuple[tuple[str, Value], ...] | None
    parent: Frame | None = None

    def __hash__(self) -> int:
        """The fields' hash, found once: a frame is part of the key of every question asked
        in it, and hashing it hashes its parents and arguments."""
        found = self.__dict__.get("_hash")
        if found is None:
            found = hash((self.scope, self.path, self.args, self.parent))
            object.__setattr__(self, "_hash", found)
        return found

    def arg(self, name: str) -> Value:
        """The value bound to parameter `name` (Unknown when this frame does not bind it)."""
        for key, value in self.args or ():
            if key == name:
                return value
        return Unknown(f"`{name}` is not bound by this call")


@dataclass(frozen=True)
class Function:
    """A `def` or lambda of the tree, with the frame its definition ran in; `wrapped_by` names a
    transformation applied to it that keeps its body (jax.jit, functools.partial(jax.jit))."""

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    path: Path
    closure: Frame | None = None
    wrapped_by: str | None = None
    bound: tuple[tuple[str, Value], ...] = ()  # functools.partial's keyword arguments
    jit_keywords: tuple[tuple[str, Value], ...] = ()  # `jax.jit(f, **these)`
    jit_api: str | None = None  # the jit that took them: `jax.jit`, or a pjit


@dataclass(frozen=True)
class Class:
    node: ast.ClassDef
    path: Path
    closure: Frame | None = None


@dataclass(frozen=True)
class Instance:
    """An object built by calling a class of the tree, with the constructor's arguments (None
    when not known: `self` in a method jaxfix reached without its caller). `stored`: the
    attributes a method returning the object itself stored since (`model.shard_model()`),
    each with that method's `def`. `built_in`: the module of the construction `origin` (the
    frame a mesh its `__init__` builds was built through)."""

    cls: Class
    init: tuple[tuple[str, Value], ...] | None
    origin: ast.AST | None = field(default=None, compare=False, repr=False)
    stored: tuple[tuple[str, Value, ast.AST], ...] = ()
    built_in: Path | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class BoundMethod:
    function: Function
    receiver: Value


@dataclass(frozen=True)
class EnumMember:
    """A member of a class of the tree deriving from `enum.Enum` (`ShardMode.FSDP`): an object
    of that class, neither its value nor equal to it (unlike a `str` or `int` mixin's), whose
    `.value` and `.name` are known."""

    cls: Class
    name: str
    value: Value


@dataclass(frozen=True)
class ModuleValue:
    """A module of the tree (a file, or a namespace package's directory)."""

    path: Path | None
    directory: Path | None


@dataclass(frozen=True)
class External:
    """Something imported from outside the tree, by its qualified name (`jax.sharding.Mesh`);
    `bound`: the keyword arguments `functools.partial(f, k=v)` gave it; `args`: the positional
    ones `functools.partial(f, a, b)` gave it (a call passes them before its own)."""

    name: str
    bound: tuple[tuple[str, Value], ...] = ()
    args: tuple[Value, ...] = ()


class Foreign(Unknown):
    """An object made outside the tree from values that hold nothing of the tree (what
    `jax.jit(f).lower(x)` or `jnp.zeros(3)` returns): unknown, but surely no object, function
    or class of the tree, so `foreign.method()` never calls one of the tree's methods."""

    __slots__ = ()


class LoadedFromFile(Unknown):
    """A module loaded from a file named at run time (`importlib.util.spec_from_file_location(
    name, args.config)`, `module_from_spec` of it): a config module given on the command line.
    What it binds is what the project's modules that bind that name at their top bind
    (evaluate.py)."""

    __slots__ = ()


class StructLeaf(Foreign):
    """A leaf of what `jax.eval_shape` returns: a `jax.ShapeDtypeStruct` (without a layout)
    whose shape, dtype and sharding jaxfix does not know; `.update(sharding=s)` of it is a
    `ShapeStruct` on `s`."""

    __slots__ = ()


class JaxStage(Foreign):
    """A stage of a jitted function (`jit(f).trace(x)`, `.lower(...)`, `.compile()`) and what its
    methods return: JAX's own objects, whatever the arguments."""

    __slots__ = ()


class JitOfUnknown(Unknown):
    """`jax.jit(f)` of an `f` jaxfix does not know: JAX's jitted wrapper, whose stage methods
    (`STAGE_METHODS`) are JAX's own, never a method of the tree; calling it runs `f`, so what
    a call returns is unknown."""

    __slots__ = ()


STAGE_METHODS = frozenset({"lower", "trace", "eval_shape"})


class Jitted(JaxStage):
    """`jax.jit(f, **keywords)` of a function from outside the tree (`jnp.tanh`): JAX's own
    object, with the keywords jit was given (`device=`, `in_shardings=`, ...), by name."""

    __slots__ = ("keywords",)

    def __init__(
        self, why: str | Callable[[], str], keywords: tuple[tuple[str, Value], ...]
    ) -> None:
        super().__init__(why)
        self.keywords = keywords

    def __repr__(self) -> str:
        return f"Jitted(why={self.why!r}, keywords={self.keywords!r})"


Value: TypeAlias = (
    Mesh
    | Spec
    | Sharding
    | ShapeStruct
    | Array
    | Structs
    | Leaves
    | Items
    | Yields
    | MeshContext
    | ListValue
    | DictValue
    | Namespace
    | Devices
    | Function
    | Class
    | Instance
    | EnumMember
    | BoundMethod
    | ModuleValue
    | External
    | AxisType
    | int
    | float
    | str
    | None
    | tuple["Value", ...]
    | frozenset[str]
    | Unknown
)


def _plain_key(key: Value) -> bool:
    """A key Python compares as jaxfix does: a str, number, bool, None, or a tuple of them."""
    if isinstance(key, tuple):
        return all(_plain_key(k) for k in key)
    return key is None or isinstance(key, (str, int, float))


def tuple_text(items: list[str]) -> str:
    """Python's spelling of a tuple whose elements are already spelled: '(8,)', '(8, 4)'."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _same_axes(
    a: tuple[object, ...] | None, b: tuple[object, ...] | None
) -> bool | None:
    """Two per-axis tuples whose elements may be None (unknown): equal, not, or cannot tell."""
    if a is None or b is None:
        return None
    if len(a) != len(b) or any(
        x is not None and y is not None and x != y for x, y in zip(a, b)
    ):
        return False
    return None if None in a or None in b else True


def holds_tree_objects(value: Value) -> bool:
    """Whether `value` may be or contain a function, class or object of the tree."""
    if isinstance(value, Foreign):
        return False
    if isinstance(
        value,
        (Unknown, Function, Class, Instance, EnumMember, BoundMethod, ModuleValue),
    ):
        return True
    if isinstance(value, tuple):
        return any(holds_tree_objects(v) for v in value)
    if isinstance(value, ListValue):
        return any(holds_tree_objects(v) for v in value.items)
    if isinstance(value, (DictValue, Namespace)):
        return any(holds_tree_objects(v) for _, v in value.items)
    if isinstance(value, Leaves):
        return holds_tree_objects(value.leaf)
    if isinstance(value, Yields):
        return holds_tree_objects(value.value)
    if isinstance(value, Items):
        return holds_tree_objects(value.item) or (
            value.mapping and holds_tree_objects(value.key)
        )
    if isinstance(value, (Array, ShapeStruct, Sharding)):
        return any(
            holds_tree_objects(getattr(value, f))
            for f in value.__dataclass_fields__
            if f != "origin"
        )
    return False


def known(value: Value) -> bool:
    """No Unknown anywhere inside."""
    if isinstance(value, Unknown):
        return False
    if isinstance(value, tuple):
        return all(known(v) for v in value)
    return True


def same(a: Value, b: Value) -> bool:
    """Surely the same value (bools are not ints; unknown parts are never the same)."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, Devices) and a.count is None:
        return False  # `jax.devices()` and `jax.local_devices()` may differ
    if isinstance(a, Mesh) and isinstance(b, Mesh):
        return a == b and a.axis_sizes is not None and None not in a.axis_sizes
    return a == b


def settles_join(values: list[Value], value: Value) -> bool:
    """Whether `join` of `values` followed by `value` and anything else gives `value` itself:
    it is the first Unknown among them and one that knows nothing (what it knows would be
    compared with every other way's). The ways after it need not be asked."""
    return (
        isinstance(value, Unknown)
        and _facts(value) is None
        and not any(isinstance(v, Unknown) for v in values)
    )


def join(values: list[Value], why: str) -> Value:
    """The one value every way gives, else Unknown(why) (an Unknown that knows something,
    `OneOf` or `Jitted`, only when every way's is the same)."""
    if not values:
        return Unknown(why)
    first = values[0]
    for value in values:
        if isinstance(value, Unknown) and len(values) > 1 and _facts(value) is not None:
            # what it knows holds only when every way knows the same
            if all(v == value for v in values[1:]):
                return value
            if all(isinstance(v, JaxStage) for v in values):
                return JaxStage(value.why)
            return Unknown(value.why)
        if isinstance(value, Unknown):
            return value
    if all(same(first, v) for v in values[1:]):
        return first
    if all(isinstance(v, Array) for v in values):
        return _joined_arrays([v for v in values if isinstance(v, Array)], why)
    if all(isinstance(v, Sharding) for v in values):
        return _joined_shardings([v for v in values if isinstance(v, Sharding)], why)
    return Unknown(why)


def _joined_shardings(shardings: list[Sharding], why: str) -> Value:
    """Shardings every way gives on one mesh (the same mesh object), whose specs may differ
    (`NamedSharding(mesh, P(*spec))` or `NamedSharding(mesh, P())` by a test jaxfix does not
    decide): that mesh, and the spec when they all agree."""
    first = shardings[0]
    mesh = first.mesh
    if not isinstance(mesh, Mesh) or mesh.origin is None:
        return Unknown(why)
    for sharding in shardings[1:]:
        if sharding.mesh != mesh or not isinstance(sharding.mesh, Mesh):
            return Unknown(why)
        if sharding.mesh.origin is not mesh.origin:
            return Unknown(why)
    agreed = all(same(s.spec, first.spec) for s in shardings[1:])
    return Sharding(mesh, first.spec if agreed else Unknown(why), first.origin)


def _joined_arrays(arrays: list[Array], why: str) -> Value:
    """Arrays every way gives on one sharding (the same mesh object): that sharding, and the
    dimensions they all agree on (a parameter every caller passes an unsharded array for)."""
    first = arrays[0]
    for array in arrays[1:]:
        if array.sharding != first.sharding or _mesh_origin(array) is not _mesh_origin(
            first
        ):
            return Unknown(why)
    rank = min(len(a.shape) for a in arrays)
    exact = all(a.exact_rank and len(a.shape) == rank for a in arrays)
    shape = tuple(
        first.shape[i] if all(a.shape[i] == first.shape[i] for a in arrays) else None
        for i in range(rank)
    )
    return Array(first.sharding, shape, exact, first.origin)


def _mesh_origin(array: Array) -> ast.AST | None:
    sharding = array.sharding
    if isinstance(sharding, Sharding) and isinstance(sharding.mesh, Mesh):
        return sharding.mesh.origin
    return None
