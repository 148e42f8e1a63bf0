"""Where a mesh's axis sizes are written, walked back along the frames a recorded run took.

The recorder notes the user frames that built a mesh (innermost: the `AbstractMesh(...)` line;
then each caller's line). From the sizes argument of that call, the walk follows only what the
run went through: a parameter of the running function to the argument the caller's frame passes,
a name to its one plain assignment (or the module an import names), `d["key"]` into a dict
literal, `c.field` into the keyword of the dataclass construction (or the field's default), a
module's attribute to its assignment, until it reaches the tuple (or list) literal that holds
the sizes. Sizes read from a mapping by axis name (`tuple(sizes.get(name, 1) for name in AXES)`,
`[sizes[name] for name in AXES]`, iterating a names constant or parameter) are followed, for the
one axis whose size differs, to that name's entry (the rule checks it holds the run's size).
Every step is a plain expression the engine can follow, or the walk stops (`Unknown`,
saying at which line): a computed value, a loop, two assignments reaching a name.

Where the literal is read by more than this path (a constant `SHAPE` other code also reads: a
mesh that works may share it), the value is replaced at the narrowest point instead: the read
of that name on the run's path (`Written.why` says so). A field default feeds every instance,
so there the keyword is added to the construction the run used. A parameter the call does not
pass is followed to its default where that default reaches this path alone: the call is the
project's one call of the function (or class), no class derives from that class, the body reads
the parameter once, and the attribute of `self` it is kept in (`self.shape =
tuple(shard_mesh_shape)` of a config's `__init__`) is read once in the project.

Arguments bind as Python binds them (`*seq` items, `**kwargs`, `**mapping` entries; a
construction's keywords a subclass's `__init__` passes on by `super().__init__(**kwargs)` to
the base's that sets the field), through `obj.method(...)` and `cls.method(...)` calls, and through a `functools.partial` the run's
caller passed (`factory = partial(make_mesh_for, shape=(2, 2))`: the partial's arguments, then
the call's). A copy with fields replaced (`dataclasses.replace(cfg, shape=...)`,
`cfg.replace(...)`, `cfg._replace(...)`) gives the keyword it is given, else its field is the
copied object's, and the copy is given its own keyword (the object's value may feed other
reads), unless the object is a module's constant (a preset) nothing else in the project reads,
whose literal is then changed where it is written. Sizes filled for a `-1` axis (`num_devices // known if s == -1 else s`) are followed to
the number of devices (`Written.total`: the mesh's size, not one of its sizes). Where the code does not say which entry of a
table (`LAYOUTS[flag]`) or which of a function's returns (`match name: ...`) the run took, the
walk takes the one whose literal holds the run's sizes (`sizes`), when no other can; of an
if/elif or match chain keyed on a parameter the call passes as a literal, the branch that
literal chooses (changed when no other call of the function may pass it).

Where the walk stops at an expression that computes a size from what the host has when it runs
(`jax.device_count() // 2`, `len(jax.devices())`, `jax.process_count() * 2`), it returns
`Computed`: that is where the value is written, but no literal jaxfix could write there would
hold on another host, so the report names the place and writes nothing.
"""

from __future__ import annotations

import ast
import operator
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jaxfix.analysis.ast_engine.arguments import bind_arguments
from jaxfix.analysis.ast_engine.assignments import (
    assigned_once,
    imported_assignment,
    written_as,
    written_elsewhere,
)
from jaxfix.analysis.ast_engine.data_values import entry_values
from jaxfix.analysis.ast_engine.evaluate import (
    DATACLASS_BASES,
    FIELD_FUNCTIONS,
    Evaluator,
)
from jaxfix.analysis.ast_engine.flow import Binding
from jaxfix.analysis.ast_engine.positions import span
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    BoundMethod,
    Class,
    External,
    Function,
    Instance,
    ModuleValue,
    Unknown,
)
from jaxfix.analysis.ast_engine.vocabulary import api_of
from jaxfix.analysis.names import MESH_UPDATE, SIGNATURES, Api, Signature
from jaxfix.ground.quoting import cut
from jaxfix.sources.text import source_text, split_lines

_MAX_STEPS = 32
_CALLER_LEVELS = 3  # callers of callers a static walk is led up (`called_through`)
_MAX_FILES_COUNTED = 5000  # a project larger than this: a shared default is not changed
_JSON_LOADERS = frozenset({"json.load", "json.loads"})
_COPIES = frozenset({"builtins.tuple", "builtins.list"})
# The calls that copy a dataclass-like object with fields given by keyword
_FIELD_COPIES = frozenset({"replace", "_replace", "evolve"})
_YAML_LOADERS = frozenset({"yaml.safe_load", "yaml.load", "yaml.full_load"})
_TOML_LOADERS = frozenset({"tomllib.load", "tomli.load"})
_OTHER_LOADERS = frozenset({"tomllib.loads", "tomli.loads"})


_MUTATORS = frozenset(
    {"setdefault", "update", "pop", "popitem", "clear", "__setitem__", "__delitem__"}
)
_NAMED_TUPLES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
_ENUMS = frozenset(
    {"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"}
)


# Calls whose result depends on the host the program runs on (its devices, its processes).
_HOST_READS = frozenset(
    {
        "jax.device_count",
        "jax.local_device_count",
        "jax.process_count",
        "jax.process_index",
        "jax.devices",
        "jax.local_devices",
        "os.cpu_count",
        "multiprocessing.cpu_count",
    }
)


# Reads of the process's environment (`os.environ.get("CHIPS_PER_HOST", "4")`,
# `os.getenv(...)`, `os.environ["..."]`): a size set where the program is launched.
_ENVIRONMENT_GETS = frozenset({"os.getenv", "os.environ.get", "posix.getenv"})
_ENVIRONMENTS = frozenset({"os.environ", "posix.environ"})


# What may wrap host reads in a size computed from the host alone (`len(jax.devices())`,
# `tuple(int(s) for s in os.environ["SHAPE"].split(","))`).
_HOST_ARITHMETIC = frozenset(
    {
        "builtins.len",
        "builtins.int",
        "builtins.max",
        "builtins.min",
        "builtins.tuple",
        "builtins.list",
        "builtins.sum",
        "math.prod",
    }
)
# A string's methods that keep it the host's (`.split(",")` of an environment variable).
_TEXT_METHODS = frozenset({"split", "strip", "lower", "upper"})
_MAX_OPERAND_STEPS = 4  # names and returns followed to an operand of a quotient
_MAX_HOST_NAMES = 8  # local names followed back from one size computed from the host


class Computed(Unknown):
    """The walk stopped where a size is computed from the host when the program runs: the
    expression `node` (its text `text`) in `module`, reading `reads` (what it reads, in
    words: "`jax.device_count()`", "the environment variable CHIPS_PER_HOST"). jaxfix does
    not change it: a literal is right on one host only."""

    __slots__ = (
        "axis",
        "dividend",
        "mixed",
        "module",
        "node",
        "places",
        "reads",
        "scale",
        "text",
        "total",
        "variable",
    )

    def __init__(
        self,
        why: str,
        module: Module,
        node: ast.expr,
        text: str,
        reads: tuple[str, ...],
        axis: int | None = None,
    ) -> None:
        super().__init__(why)
        self.module, self.node, self.text, self.reads = module, node, text, reads
        # the mesh's axis whose size it is, when it is one axis's alone
        self.axis = axis
        # `min(num_experts, jax.device_count() // 2)`: other values than the host's go in
        self.mixed = False
        # the number of devices a `-1` axis is filled from, not one axis's size
        self.total = False
        # `int(os.environ.get("CHIPS_PER_HOST", "4"))`: the size is that variable's value,
        # times `scale[0]`, floor-divided by `scale[1]`
        self.variable: str | None = None
        self.scale = (1, 1)
        # `num_devices // num_partitions`, `num_partitions` the variable's integer: the size
        # is `dividend` floor-divided by it (`scale` then (1, 1))
        self.dividend: int | None = None
        # where its host values are read (an environment variable's `os.environ.get`)
        self.places: tuple[tuple[Path, int], ...] = ()

    @property
    def path(self) -> Path:
        return self.module.path


class Unfollowed(Unknown):
    """The walk stopped at an expression of the tree that computes the sizes from other values
    as the program runs (`tuple(d * i for d, i in zip(dcn, ici))`), which it does not follow:
    the place a report names as where the sizes are made (nothing is changed there)."""

    __slots__ = ("module", "node")

    def __init__(self, why: str, module: Module, node: ast.expr) -> None:
        super().__init__(why)
        self.module, self.node = module, node

    @property
    def path(self) -> Path:
        return self.module.path


@dataclass(frozen=True)
class _Field:
    """`.name` still to be read (a dict key is a `str`, an index an `int`)."""

    name: str


Key = str | int | _Field
_SIZES = {
    Api.ABSTRACT_MESH: "axis_sizes",
    Api.MAKE_MESH: "axis_shapes",
    Api.MESH: "devices",  # its sizes are the device array's shape
}


@dataclass(frozen=True)
class DataFile:
    """An entry of a JSON (or YAML) file the code loads (`json.load(open("stages.json"))["eval"]`):
    the file's name as the code writes it, where it is named from (the reading module's folder
    or one above it, `Path(__file__).parent / "stages.json"`, or the directory the process ran
    in), and the keys read from what the loader returns."""

    name: str
    # Named from the reading module's file: how many folders up from it (1: its folder, for
    # `Path(__file__).parent / name`); None: from the directory the process ran in.
    up_from_module: int | None
    keys: tuple[str | int, ...]
    kind: str = "json"  # or "yaml"


@dataclass(frozen=True)
class Written:
    """The expression to replace (or, with `keyword`, the call to give that keyword), in
    `module`; `name` is the path a reader knows the value by (`EVAL["mesh"]["shape"]`). With
    `data`, the sizes are an entry of a JSON or YAML file, and `node` is the loader's call that
    reads it."""

    module: Module
    node: ast.expr
    name: str
    keyword: str | None = None
    why: str | None = None  # why here rather than where the value itself is written
    data: DataFile | None = None
    # The sizes are written one a place (`(cfg.dp, cfg.tp)`): this is the size of that axis of
    # the mesh alone (an integer literal, or a data file's integer entry).
    axis: int | None = None
    # The sizes are the value of a `key=value` override string (`"eval.mesh_shape=2,2"`):
    # `node` is that string, this its key.
    override: str | None = None
    # The value is the number of devices a `-1` axis is filled from (`(("batch", -1),
    # ("model", 2))` with `num_devices // 2`): the product of the mesh's sizes, not one of them.
    total: bool = False


def written_at(
    evaluator: Evaluator,
    frames: tuple[tuple[Path, int], ...],
    axis: int | None = None,
    axis_name: str | None = None,
    sizes: tuple[int, ...] | None = None,
    cwds: tuple[Path, ...] = (),
    names: bool = False,
    filled: bool = False,
    columns: tuple[tuple[int, int] | None, ...] = (),
    arguments: tuple[str, ...] = (),
) -> Written | Unknown:
    """Where the sizes of the mesh built at the innermost of `frames` (outermost first, each
    placed in the tree and checked) are written (with `names`: its axis names, to the
    literal of strings that holds them). With `axis` (the one whose size must change),
    sizes written as a literal of separate values (`(cfg.dp, cfg.tp)`) are followed to where
    that axis's value is written; with its name too, sizes read from a mapping by axis name
    (`tuple(sizes.get(name, 1) for name in AXES)`) are followed to that name's entry. With
    `sizes` (the mesh's sizes in the run), a table read by a key the code does not write is
    followed to the one entry that holds them. `cwds`: the directories the run's processes
    ran in (a config file named by a relative path is read from there). With `filled`, a
    literal of (name, size) pairs one of whose sizes is `-1` (an axis the builder fills
    from the devices: `(("batch", -1), ("model", 2))`) ends the walk too. `columns`, parallel
    to `frames` (each None where the run did not record it): the columns of each frame's
    call, which tell two calls of one function on a line apart. `arguments`: the run's
    command lines (an option they give is not its default's)."""
    if not frames:
        return Unknown("the run noted no frame that built the mesh")
    walk = _Walk(evaluator, list(reversed(frames)), axis, axis_name, sizes, cwds)
    walk.names = names
    walk.filled = filled
    walk.arguments = arguments
    if len(columns) == len(frames):
        walk.columns = list(reversed(columns))
    found = walk.start()
    if walk.total and isinstance(found, Written):
        if found.data is not None or found.override is not None or found.keyword:
            # only an integer of the code, or the read of a shared name, is written
            return Unknown(
                f"the number of devices the mesh's `-1` axis is filled from is written at "
                f"{found.module.path.name}:{found.module.line(found.node)} in a way jaxfix "
                "does not change"
            )
        if not found.total:
            found = replace(found, axis=None, total=True)
    return found


def called_through(
    evaluator: Evaluator, frames: tuple[tuple[Path, int], ...]
) -> tuple[tuple[Path, int], ...]:
    """`frames` (a mesh's `built_at`, outermost first) led on up the project's calls, as a
    recorded run's would be: while the function the outermost frame runs in is called once
    in the project (`Evaluator.calls_of`), that call's place comes first, a few levels up
    (`_CALLER_LEVELS`). The walk follows a parameter of a function to what its one caller
    passes; a function called twice, or used otherwise, ends the frames there."""
    for _ in range(_CALLER_LEVELS):
        if not frames:
            break
        path, line = frames[0]
        module = evaluator.module(path)
        if isinstance(module, Unknown):
            break
        scopes = {module.scope_of(c) for c in module.calls if c.lineno == line}
        if len(scopes) != 1:
            break
        (function,) = scopes
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            break
        on_objects = isinstance(module.parents.get(function), ast.ClassDef)
        calls = evaluator.calls_of(module, function, on_objects=on_objects)
        if isinstance(calls, Unknown) or len(calls) != 1:
            break
        caller, call, _ = calls[0]
        frames = ((caller.path, call.lineno), *frames)
    return frames


def in_builder(written: Written, frames: tuple[tuple[Path, int], ...]) -> bool:
    """Whether the walk's end lies in the function the innermost of `frames` ran (where
    every mesh that function builds reads it)."""
    if not frames:
        return False
    path, line = frames[-1]
    if Path(os.path.abspath(path)) != Path(os.path.abspath(written.module.path)):
        return False
    node: ast.AST | None = written.node
    while node is not None and not isinstance(
        node, (ast.FunctionDef, ast.AsyncFunctionDef)
    ):
        node = written.module.parents.get(node)
    return node is not None and node.lineno <= line <= (node.end_lineno or node.lineno)


class _Walk:
    def __init__(
        self,
        evaluator: Evaluator,
        frames: list[tuple[Path, int]],
        axis: int | None = None,
        axis_name: str | None = None,
        sizes: tuple[int, ...] | None = None,
        cwds: tuple[Path, ...] = (),
    ) -> None:
        self.evaluator = evaluator
        self.cwds = cwds  # where the run's processes ran
        self.frames = frames  # innermost first
        # the run's command-line arguments: an option given there is not its default's
        self.arguments: tuple[str, ...] = ()
        # the columns of each frame's call, where the run recorded them (innermost first)
        self.columns: list[tuple[int, int] | None] = [None] * len(frames)
        self.axis = axis  # the axis whose size is followed alone, once in a literal
        self.axis_name = axis_name  # its name, once the sizes are read by axis name
        self.sizes = sizes  # the inner mesh's sizes in the run, when its records agree
        self.literal: tuple[Module, ast.expr] | None = None  # the last literal reached
        self.scalar = False  # following that one axis's size
        self.fields: list[str] = []  # the `.field`s read on the way
        self.depth = 0  # the frame the walk is in
        self.label: str | None = None  # the last named value passed (`EVAL["mesh"]`)
        self.read: set[ast.AST] = set()  # the subscripts the walk went through
        self.attributes: set[ast.AST] = set()  # the `.field` reads it went through
        # Calls the walk went into that the run's frames do not show (a function's one
        # `return`, a class's `__init__`): (the function, the call, its module, how many
        # leading parameters the call does not pass: `self`), innermost last.
        self.entered: list[tuple[ast.FunctionDef, ast.Call, Module, int]] = []
        # the defaults `_default_followed` took (their calls counted): `id` of the node
        self.defaults_taken: set[int] = set()
        self.modules: dict[Path, Module] = {}  # the modules it read them in
        # Following a device array (`Mesh(devices, names)`): its shape is the sizes, given by
        # the `.reshape(shape)` or `mesh_utils.create_device_mesh(shape)` that made it.
        self.devices = False
        # Functions the walk called through a table entry (`FACTORIES[name]()`)
        self.tabled: set[str] = set()
        # Following the number of devices a `-1` axis is filled from (its product)
        self.total = False
        # Reading the integer a test compares (`x != -1`), not sizes to change: any integer
        # literal ends the walk, and an entry read elsewhere too is still read
        self.valuing = False
        # While a stop is read as computed from the host: where its reads are, and how many
        # local names were followed back
        self.host_places: list[tuple[Path, int]] = []
        self.host_names = 0
        # Following (name, size) pairs whose sizes are the mesh's (`[s for _, s in axes]`)
        self.pairs = False
        # Following the axis names, not the sizes: the walk ends at a literal of strings
        self.names = False
        # Pairs whose sizes may be `-1` (filled by the builder) end the walk too
        self.filled = False
        # The names a comprehension reading the sizes by axis name iterates (`AXES` of
        # `(sizes[a] for a in AXES)`): a mapping zipped from them keeps their order
        self.iterated: str | None = None

    def _module(self, path: Path) -> Module | Unknown:
        return self.evaluator.module(path)

    def start(self) -> Written | Unknown:
        module = self._module(self.frames[0][0])
        if isinstance(module, Unknown):
            return module
        line = self.frames[0][1]
        built = [
            (call, api)
            for call in module.calls
            if call.lineno == line and (api := self._api(module, call.func)) in _SIZES
        ]
        updates = [
            (call, sizes)
            for call in module.calls
            if call.lineno == line and (sizes := _updated_sizes(call)) is not None
        ]
        if not built and len(updates) == 1 and not self.names:
            # `mesh.abstract_mesh.update(axis_sizes=(ep, tp), axis_names=...)`: the run
            # built the mesh there, of these sizes
            return self._follow(module, updates[0][1], [], None)
        if len(built) != 1:
            return Unknown(
                f"line {line} of {module.path.name} does not build one mesh jaxfix can read"
            )
        call, api = built[0]
        signature = SIGNATURES[api]
        args = bind_arguments(call, signature)
        if self.names:
            given = args.get("axis_names") if args else None
            if given is None:
                return Unknown(f"the mesh built at line {line} is given no axis names")
            return self._follow(module, given, [], None)
        sizes = args.get(_SIZES[api]) if args else None
        if api is Api.MAKE_MESH and args and sizes is None:
            sizes = args.get("axis_sizes")
        if sizes is None:
            return Unknown(f"the mesh built at line {line} is given no sizes")
        self.devices = api is Api.MESH
        return self._follow(module, sizes, [], None)

    def _follow(
        self,
        module: Module,
        expr: ast.expr,
        keys: list[Key],
        narrowest: Written | None,
    ) -> Written | Unknown:
        """`keys`: what is still to be read from `expr`'s value (`["mesh", "shape"]` for
        `EVAL` reached from `EVAL["mesh"]["shape"]`); `narrowest`: where to write instead, once
        a name read by more than this path was passed."""
        for _ in range(_MAX_STEPS):
            where = f"{module.path.name}:{module.line(expr)}"
            if self.devices and isinstance(expr, ast.Call) and not keys:
                shape = self._device_shape(module, expr)
                if isinstance(shape, Unknown):
                    return shape
                if shape is not None:
                    self.devices, expr = False, shape
                    continue
            if (
                isinstance(expr, ast.List)
                and not expr.elts
                and not keys
                and (built := _appended_in_loop(module, expr)) is not None
            ):  # `shape = []` then `for a in AXES: shape.append(p[a])`: `[p[a] for a in AXES]`
                if (
                    narrowest is not None
                    and narrowest.module is module
                    and isinstance(narrowest.node, ast.Name)
                    and narrowest.node.id == built[1]
                ):
                    narrowest = None  # the local's other read is the append itself
                expr = built[0]
                continue
            if isinstance(expr, (ast.Tuple, ast.List)) and not keys and not self.scalar:
                if (_names(expr) if self.names else _integers(expr)) or (
                    self.pairs and self.axis is None and _sized_pairs(expr, self.filled)
                ):
                    self.literal = (module, expr)
                    return narrowest or Written(
                        module, expr, self.label or _text(module, expr)
                    )
                if (
                    self.axis is None
                    or narrowest is not None
                    or any(isinstance(e, ast.Starred) for e in expr.elts)
                    or not 0 <= self.axis < len(expr.elts)
                ):
                    return self._computed(module, expr) or Unknown(
                        f"the sizes at {where} are not integer literals"
                    )
                element = expr.elts[self.axis]
                if (
                    isinstance(element, ast.Constant)
                    and (computed := self._computed(module, expr)) is not None
                ):
                    # `(jax.local_device_count() // 4, 2)`: the literal axis times the
                    # host's count is the size; a literal is right on one host only
                    return computed
                sharing = _sharing_operand(expr, self.axis)
                if sharing is not None:
                    # `(devices // model, model)`: changing `model` changes the other
                    # axis too; which of the two to change the code does not say
                    return Unknown(
                        f"`{_text(module, element)}` at {where} is also an operand of "
                        f"`{_text(module, sharing)}`, another axis's size: which value to "
                        "change the code does not say"
                    )
                # `(cfg.dp, cfg.tp)`: the axis to change is written on its own
                self.scalar, self.label = True, None
                expr = expr.elts[self.axis]
                continue
            if (
                self.valuing
                and not keys
                and isinstance(expr, ast.UnaryOp)
                and type(_constant(expr)) is int
            ):  # `-1`, compared by a test
                self.literal = (module, expr)
                return Written(module, expr, _text(module, expr))
            if (
                self.scalar
                and not keys
                and isinstance(expr, ast.Constant)
                and type(expr.value) is int
            ):
                self.literal = (module, expr)
                if self.total:
                    return (
                        replace(narrowest, axis=None, total=True)
                        if narrowest is not None
                        else Written(
                            module, expr, self.label or _text(module, expr), total=True
                        )
                    )
                return self._one_axis(narrowest) or Written(
                    module, expr, self.label or _text(module, expr), axis=self.axis
                )
            if (
                isinstance(expr, (ast.Tuple, ast.List))
                and keys
                and isinstance(keys[0], int)
            ):  # `shape, names = LAYOUT` read `shape`: the literal's element
                if any(isinstance(e, ast.Starred) for e in expr.elts) or not (
                    0 <= keys[0] < len(expr.elts)
                ):
                    return Unknown(f"the literal at {where} has no element {keys[0]}")
                expr, keys = expr.elts[keys[0]], keys[1:]
                continue
            if isinstance(expr, ast.Dict) and keys and isinstance(keys[0], str):
                entry = _entry(expr, keys[0])
                if entry is None:
                    return Unknown(f"the dict at {where} has no one entry {keys[0]!r}")
                if entry[1]:  # `{**base, ...}` without the key: `base`'s entry
                    expr = entry[0]
                else:
                    expr, keys = entry[0], keys[1:]
                continue
            if (
                isinstance(expr, ast.DictComp)
                and keys
                and isinstance(keys[0], str)
                and (copied := _copied_items(expr)) is not None
            ):  # `{k: v for k, v in raw.items() if k in FIELDS}`: `raw`'s entry, kept
                expr = copied
                continue
            if (
                isinstance(expr, ast.DictComp)
                and keys
                and isinstance(keys[0], str)
                and (named := _read_by_key(expr)) is not None
            ):  # `{a: getattr(args, a) for a in attrs}`: `args.<key>` (`args[key]`)
                source, as_attribute = named
                if as_attribute:
                    self.fields.append(keys[0])
                expr = source
                keys = [_Field(keys[0]) if as_attribute else keys[0], *keys[1:]]
                continue
            if (
                isinstance(expr, ast.Call)
                and keys
                and isinstance(keys[0], str)
                and not expr.args
                and self._qualified(module, expr.func) == "builtins.dict"
            ):  # `dict(shape=(4, 4), ...)`: the keyword's value
                values = [k.value for k in expr.keywords if k.arg == keys[0]]
                if len(values) != 1 or any(k.arg is None for k in expr.keywords):
                    return Unknown(f"the dict at {where} has no one entry {keys[0]!r}")
                expr, keys = values[0], keys[1:]
                continue
            if (got := _got_key(expr)) is not None:
                # `strategy.get("expert_parallelism", 1)` (also `.get("sharding", {})` read
                # on): the entry, as `strategy["expert_parallelism"]`; the rule checks that
                # it holds the run's size, so a default the run took is never written
                assert isinstance(expr, ast.Call) and isinstance(
                    expr.func, ast.Attribute
                )
                self.modules.setdefault(module.path, module)
                expr, keys = expr.func.value, [got, *keys]
                continue
            if (
                isinstance(expr, ast.Call)
                and 2 <= len(expr.args) <= 3
                and not expr.keywords
                and isinstance(attr := expr.args[1], ast.Constant)
                and isinstance(attr.value, str)
                and attr.value.isidentifier()
                and self._qualified(module, expr.func) == "builtins.getattr"
            ):  # `getattr(config, "ep_size", 1)`: `config.ep_size` (the rule checks it
                # holds the run's size, so a default the run took is never written)
                self.fields.append(attr.value)
                expr, keys = expr.args[0], [_Field(attr.value), *keys]
                continue
            if isinstance(expr, ast.Subscript):
                self.read.add(expr)
                self.modules.setdefault(module.path, module)
                key = _key(expr.slice)
                if key is None and isinstance(expr.slice, ast.Name):
                    key = self._passed_literal(module, expr.slice)
                if key is None and (matched := self._matched(module, expr, keys)):
                    module, expr = matched
                    continue
                if key is None:
                    return Unknown(
                        f"`{_text(module, expr)}` at {where} is not read by a literal key"
                    )
                expr, keys = expr.value, [key, *keys]
                continue
            if (
                isinstance(expr, ast.Attribute)
                and self._qualified(module, expr.value) == "absl.flags.FLAGS"
            ):  # `FLAGS.tp`: the default of the one `flags.DEFINE_*("tp", ...)`
                defined = self._absl_definition(module, expr)
                if isinstance(defined, Unknown):
                    return defined
                module, expr = defined
                continue
            if (
                isinstance(expr, ast.Attribute)
                and (overridden_at := self._class_attribute(module, expr)) is not None
            ):
                # `self.DECODE_MESH_SHAPE` of a class whose subclasses override it
                if isinstance(overridden_at, Unknown):
                    return overridden_at
                module, expr = overridden_at
                continue
            if isinstance(expr, ast.Attribute) and (
                member := self._member_property(module, expr, keys)
            ):
                module, expr = member
                keys = keys[1:]
                continue
            if isinstance(expr, ast.Attribute):
                base = self.evaluator.value_of(module, expr.value)
                if isinstance(base, ModuleValue) and base.path is not None:
                    target = self._module(base.path)
                    if isinstance(target, Unknown):
                        return target
                    found = assigned_once(target, expr.attr)
                    if found is None:
                        return Unknown(
                            f"`{expr.attr}` is not assigned once in {target.path.name}"
                        )
                    narrowest = narrowest or self._shared(
                        module, expr, target, expr.attr, keys
                    )
                    module, expr = target, found
                    continue
                if isinstance(base, Class) and not keys:
                    # `ServerArgs.ep_size`: the class's own default (a field's)
                    default = self._class_default(module, expr, base)
                    if isinstance(default, Unknown):
                        return default
                    module, expr, narrowest = default
                    continue
                attribute = expr
                self.fields.append(attribute.attr)
                self.attributes.add(attribute)
                expr, keys = attribute.value, [_Field(attribute.attr), *keys]
                continue
            if (
                isinstance(expr, ast.Call)
                and keys
                and keys[0] == _Field("value")
                and _defines_flag(self._qualified(module, expr.func))
            ):  # `_TP = flags.DEFINE_integer("tp", 4, ...)` read as `_TP.value`
                given = _flag_default_argument(expr)
                flag_name = expr.args[0] if expr.args else None
                if isinstance(flag_name, ast.Constant) and isinstance(
                    flag_name.value, str
                ):
                    on_line = self._given_in_run(
                        (f"--{flag_name.value}", f"-{flag_name.value}")
                    )
                    if on_line is not None:
                        return on_line
                if given is None:
                    return Unknown(
                        f"`{_text(module, expr)}` at {where} gives no default jaxfix reads"
                    )
                shared = self._flag_read_elsewhere(module, expr, None)
                if shared is not None:
                    return shared
                self.label = self.label or f"the default of {_text(module, expr)[:40]}"
                expr, keys = given, keys[1:]
                continue
            if (
                isinstance(expr, ast.Call)
                and keys
                and (flag := _parsed_flag(expr, keys)) is not None
            ):  # `parser.parse_args(argv).tp_size`: the default of the `--tp-size` option
                option = self._flag_default(module, expr, flag)
                if isinstance(option, Unknown):
                    return option
                module, expr = option
                keys = keys[2:] if isinstance(keys[0], int) else keys[1:]
                continue
            if isinstance(expr, ast.Call) and keys and isinstance(keys[0], _Field):
                replaced = self._replaced(module, expr, keys, narrowest)
                if isinstance(replaced, (Written, Unknown)):
                    return replaced
                if replaced is not None:  # the field is the keyword the copy is given
                    module, expr, keys = replaced
                    continue
                into = self._into(module, expr, keys, narrowest)
                if into is not None:
                    return into
                return self._field(module, expr, keys, narrowest)
            if isinstance(expr, ast.Call) and not keys:
                # `shape_of(config)`, `self.experts()`: a function (or a method) of the tree
                # returning the sizes once
                callee = self._callee(module, expr.func)
                if (
                    isinstance(callee, Function)
                    and isinstance(callee.node, ast.FunctionDef)
                ) or (
                    isinstance(callee, BoundMethod)
                    and isinstance(callee.function.node, ast.FunctionDef)
                ):
                    into = self._into(module, expr, keys, narrowest)
                    if into is not None:
                        return into
            if (
                isinstance(expr, ast.Call)
                and (not keys or isinstance(keys[0], int))
                and len(expr.args) == 1
                and not expr.keywords
                and not isinstance(expr.args[0], ast.Starred)
                and self._qualified(module, expr.func) in _COPIES
            ):  # tuple(sizes): the same integers, item `i` the same one
                expr = expr.args[0]
                continue
            if isinstance(expr, ast.Call) and keys:
                loader = self._qualified(module, expr.func)
                if (
                    loader in _JSON_LOADERS
                    or loader in _YAML_LOADERS
                    or loader in _TOML_LOADERS
                ):
                    return self._one_axis(narrowest) or self._data_file(
                        module, expr, keys
                    )
                if loader in _OTHER_LOADERS:
                    return Unknown(
                        f"the sizes are read from what `{loader}` returns at {where}: jaxfix changes JSON, YAML and TOML entries only"
                    )
                callee = self._callee(module, expr.func)
                if (
                    isinstance(callee, Function)
                    and isinstance(callee.node, ast.FunctionDef)
                    and not isinstance(keys[0], _Field)
                ):  # `load(...)["probe"]`: a function of the tree returning the mapping
                    into = self._into(module, expr, keys, narrowest)
                    if into is not None:
                        return into
            if (
                isinstance(expr, (ast.ListComp, ast.GeneratorExp))
                and not keys
                and not self.scalar
                and narrowest is None  # a shared read holds all the sizes, not one
                and self.axis_name is not None
                and (mapping := _read_by_name(expr)) is not None
            ):  # `tuple(sizes.get(name, 1) for name in AXES)`: the axis's entry
                self.scalar, self.label = True, None
                self.iterated = ast.dump(expr.generators[0].iter)
                expr, keys = mapping, [self.axis_name]
                continue
            if (
                isinstance(expr, ast.Call)
                and keys == [self.axis_name]
                and self.axis is not None
                and self.iterated is not None
                and len(expr.args) == 1
                and not expr.keywords
                and isinstance(zipped := expr.args[0], ast.Call)
                and len(zipped.args) == 2
                and not zipped.keywords
                and not any(isinstance(a, ast.Starred) for a in zipped.args)
                and ast.dump(zipped.args[0]) == self.iterated
                and self._qualified(module, expr.func) == "builtins.dict"
                and self._qualified(module, zipped.func) == "builtins.zip"
            ):  # `dict(zip(names, shape))` read by the names it zips, in their order:
                # the axis's entry is `shape`'s item of the axis's place
                expr, keys = zipped.args[1], [self.axis]
                continue
            if (
                isinstance(expr, (ast.ListComp, ast.GeneratorExp))
                and not keys
                and not self.scalar
                and (pairs := _sizes_of_pairs(expr)) is not None
            ):  # `[size for _, size in axes]` of `(("data", 4), ("model", 2))`: the
                # pairs, each holding its axis's size (the rule checks names and sizes)
                self.pairs, expr = True, pairs
                continue
            if (
                isinstance(expr, ast.Call)
                and not keys
                and not self.scalar
                and narrowest is None
                and self.axis_name is not None
                and isinstance(expr.func, ast.Attribute)
                and expr.func.attr == "values"
                and not expr.args
                and not expr.keywords
            ):  # `tuple(axes.values())` of an {axis name: size} mapping: the axis's entry
                self.scalar, self.label = True, None
                expr, keys = expr.func.value, [self.axis_name]
                continue
            if (
                isinstance(expr, ast.Name)
                and keys
                and all(isinstance(k, (str, int)) for k in keys)
            ):
                overridden = self._overridden(module, expr, keys)
                if overridden is not None:
                    return overridden
            if isinstance(expr, ast.Name):
                later = self._set_after(module, expr, keys)
                if isinstance(later, Unknown):
                    return later
                if later is not None:
                    expr, keys = later
                    continue
                step = self._name(module, expr, keys, narrowest)
                if isinstance(step, (Written, Unknown)):
                    return step
                module, expr, narrowest, keys = step
                continue
            filled = None if self.total or keys else _filled_from(expr)
            if filled is not None:
                # `num_devices // known if s == -1 else s`: the sizes are filled from the
                # number of devices `num_devices`, which the walk follows instead
                self.total, self.scalar, self.label = True, True, None
                expr = filled
                continue
            if isinstance(expr, ast.IfExp):
                # `cfg.ep if cfg.ep != -1 else DEFAULT_EP`: the branch the run took
                taken = self._taken_branch(module, expr, keys)
                if isinstance(taken, Unknown):
                    return taken
                expr = taken
                continue
            return (
                self._computed(module, expr)
                or self._divided_by_variable(module, expr)
                or Unfollowed(
                    f"`{_text(module, expr)}` at {where} is computed, not a value jaxfix "
                    "follows",
                    module,
                    expr,
                )
            )
        return Unknown("too many steps between the mesh and its sizes")

    def _divided_by_variable(self, module: Module, expr: ast.expr) -> Computed | None:
        """One axis's size `num_devices // num_partitions` (through local names assigned
        once and functions of the tree returning one value), where the dividend is an
        integer the code gives and the divisor an environment variable's integer: the size
        is set by that variable, which a report names with its read (a literal changed at
        the dividend would hold only while the variable keeps its value)."""
        if not self.scalar or self.total or not isinstance(expr, ast.BinOp):
            return None
        if not isinstance(expr.op, ast.FloorDiv):
            return None
        dividend = self._integer_operand(module, expr.left, 0)
        self.host_places = []
        variable = self._variable_operand(module, expr.right, 0)
        if dividend is None or dividend <= 0 or variable is None:
            return None
        text = _text(module, expr)
        computed = Computed(
            f"`{text}` at {module.path.name}:{module.line(expr)} divides {dividend} by the "
            f"environment variable {variable} when it runs",
            module,
            expr,
            text,
            (f"the environment variable {variable}",),
            self.axis,
        )
        computed.variable, computed.dividend = variable, dividend
        computed.places = tuple(dict.fromkeys(self.host_places))
        return computed

    def _operand(
        self, module: Module, expr: ast.expr, depth: int
    ) -> tuple[Module, ast.expr] | None:
        """What a local name assigned once, or a call of a function of the tree whose body
        is one `return`, stands for; None for anything else."""
        if depth >= _MAX_OPERAND_STEPS:
            return None
        if isinstance(expr, ast.Name) and _local(module, expr):
            statement = self._assigned_once(module, expr)
            return (module, statement.value) if statement is not None else None
        if isinstance(expr, ast.Call) and not expr.args and not expr.keywords:
            callee = self.evaluator.value_of(module, expr.func)
            if not isinstance(callee, Function) or not isinstance(
                callee.node, ast.FunctionDef
            ):
                return None
            body = (
                callee.node.body[1:]
                if _docstring(callee.node.body)
                else callee.node.body
            )
            target = self._module(callee.path)
            if (
                len(body) != 1
                or not isinstance(body[0], ast.Return)
                or body[0].value is None
                or callee.node.args.args
                or isinstance(target, Unknown)
            ):
                return None
            return target, body[0].value
        return None

    def _integer_operand(
        self, module: Module, expr: ast.expr, depth: int
    ) -> int | None:
        """The integer `expr` is as the code writes it (a literal, a constant the engine
        knows), else None."""
        value = _constant(expr)
        if type(value) is int:
            return value
        known = self.evaluator.value_of(module, expr)
        if type(known) is int:
            return known
        step = self._operand(module, expr, depth)
        return self._integer_operand(*step, depth + 1) if step is not None else None

    def _variable_operand(
        self, module: Module, expr: ast.expr, depth: int
    ) -> str | None:
        """The environment variable whose integer `expr` is (`int(os.environ.get("N",
        "2"))`, through names and one-return functions), its read noted; else None."""
        found = self._environment_value(module, expr)
        if found is not None:
            if found[1] != (1, 1):
                return None
            read = expr.args[0] if isinstance(expr, ast.Call) and expr.args else expr
            self._host_place(module, read)
            return found[0]
        step = self._operand(module, expr, depth)
        return self._variable_operand(*step, depth + 1) if step is not None else None

    def _class_default(
        self, module: Module, read: ast.Attribute, cls: Class
    ) -> tuple[Module, ast.expr, Written | None] | Unknown:
        """`Cls.name` read on the class: the value its body assigns `name` once. Every
        instance built without `name` has it too: it is changed there only when `Cls.name` is
        read at this one place and each construction of the class the project holds gives
        `name` (or unpacks a mapping), else this read is replaced instead."""
        owner = self._module(cls.path)
        if isinstance(owner, Unknown):
            return owner
        name = read.attr
        values = [
            s.value
            for s in cls.node.body
            if isinstance(s, (ast.Assign, ast.AnnAssign))
            and s.value is not None
            and any(isinstance(t, ast.Name) and t.id == name for t in _targets(s))
        ]
        if len(values) != 1:
            return Unknown(
                f"`{cls.node.name}.{name}` is not assigned once in its class"
            )
        title = cls.node.name
        reads = self._count(
            name,
            lambda node: (
                isinstance(node, ast.Attribute)
                and node.attr == name
                and isinstance(node.value, ast.Name)
                and node.value.id == title
            ),
            f"{title}.{name}".encode(),
        )
        built = self._count(
            title,
            lambda node: (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in (title, "cls")
                and (node.func.id == title or _within(node, cls.node))
                and not any(k.arg in (name, None) for k in node.keywords)
            ),
            title.encode(),
        )
        if reads == 1 and built == 0:
            self.label = f"{title}.{name}"
            return owner, values[0], None
        return (
            owner,
            values[0],
            Written(
                module,
                read,
                _text(module, read),
                why=f"`{title}.{name}` ({owner.path.name}:{owner.line(values[0])}) is "
                "also the default of other instances or read elsewhere: the sizes are "
                "replaced at this read only",
            ),
        )

    def _only_method(self, call: ast.Call) -> Function | None:
        """`obj.name(...)` when the engine does not know `obj`: the one plain method `name`
        of the project's classes (None when there is none, or several)."""
        if not isinstance(call.func, ast.Attribute) or not self._project_counted():
            return None
        name = call.func.attr
        found: list[Function] = []
        for path in self.evaluator.project.files:
            try:
                if f"def {name}(".encode() not in path.read_bytes():
                    continue
            except OSError:
                return None
            defining = self._module(path)
            if isinstance(defining, Unknown):
                return None
            found.extend(
                Function(s, path)
                for c in defining.classes
                for s in c.body
                if isinstance(s, ast.FunctionDef)
                and s.name == name
                and not s.decorator_list
                and s.args.args
            )
            if len(found) > 1:
                return None
        return found[0] if found else None

    def _project_counted(self) -> bool:
        return len(self.evaluator.project.files) <= _MAX_FILES_COUNTED

    def _class_attribute(
        self, module: Module, read: ast.Attribute
    ) -> tuple[Module, ast.expr] | Unknown | None:
        """`self.NAME` in a method of a class whose body (or a base's) assigns `NAME` and
        whose subclasses may assign their own (the experiment-class idiom: `ICI_MESH_SHAPE =
        [1, 8]` overridden per experiment), never set on an instance: the one of those values
        that holds the run's sizes, when each is a literal and no other holds them. Changed
        only where no subclass inherits it; None when `read` is no such read. A field of a
        dataclass-like class (`num_shards: int = eqx.field(static=True, default=4)`) is its
        default, when no construction in the project gives it."""
        function = module.scope_of(read)
        owner = module.parents.get(function) if function is not None else None
        if (
            not isinstance(function, ast.FunctionDef)
            or not isinstance(owner, ast.ClassDef)
            or not function.args.args
            or not isinstance(read.value, ast.Name)
            or read.value.id != function.args.args[0].arg
            or any(ast.unparse(d) == "staticmethod" for d in function.decorator_list)
            or not self._project_counted()
        ):
            return None
        name = read.attr
        top = Class(owner, module.path)
        family = [top, *self._subclasses(top)]
        if any(_sets_attribute(c.node, name) for c in family) or self._count(
            name,
            lambda node: (
                isinstance(node, ast.Attribute)
                and node.attr == name
                and not isinstance(node.ctx, ast.Load)
            ),
            name.encode(),
        ):
            return None  # set on an instance somewhere: not the class's value alone
        inherited = self._inherited(top, name)
        values = [
            (c, v) for c in family if (v := _class_body_value(c.node, name)) is not None
        ]
        if inherited is not None and inherited[0].node is not owner:
            values.insert(0, inherited)
        if not values:
            return None
        if self._dataclass_like(top):
            # a field (`num_shards: int = eqx.field(default=4)`): its default is every
            # instance's value only when no construction of the family gives it
            if any(self._field_given(c, name) for c in family):
                return None
            values = [
                (c, self._declared_default(m, v) if not isinstance(m, Unknown) else v)
                for c, v in values
                for m in (self._module(c.path),)
            ]
        if len(values) == 1 and len(family) == 1:  # one class, its own value
            return module, values[0][1]
        where = f"{module.path.name}:{module.line(read)}"
        if self.sizes is None:
            return Unknown(
                f"`{_text(module, read)}` at {where} is one of several classes' values"
            )
        holding = []
        for cls, value in values:
            defined = self._module(cls.path)
            if isinstance(defined, Unknown):
                return defined
            literal = value
            if self.scalar and isinstance(value, (ast.Tuple, ast.List)):
                literal = value  # the whole sizes; `_holds` reads its axis
            if not (
                isinstance(literal, (ast.Tuple, ast.List)) and _integers(literal)
            ) and not (
                isinstance(literal, ast.Constant) and type(literal.value) is int
            ):
                return Unknown(
                    f"`{cls.node.name}.{name}` ({defined.path.name}:{defined.line(value)}) is not a literal jaxfix reads"
                )
            if self._holds(defined, literal):
                holding.append((cls, defined, value))
        if len(holding) != 1:
            return Unknown(
                f"`{_text(module, read)}` at {where} is one of several classes' values, "
                f"and {'none' if not holding else 'more than one'} of them holds the run's sizes"
            )
        cls, defined, value = holding[0]
        heirs = [
            c.node.name
            for c in self._subclasses(cls)
            if _class_body_value(c.node, name) is None
        ]
        if heirs:
            return Unknown(
                f"`{cls.node.name}.{name}` ({defined.path.name}:{defined.line(value)}) is "
                f"inherited by {', '.join(heirs[:3])} too: not changed"
            )
        self.label = f"{cls.node.name}.{name}"
        return defined, value

    def _field_given(self, cls: Class, field: str) -> bool:
        """Whether a construction of dataclass-like `cls` in the project may give `field`: by
        keyword, by a `**mapping`, in order (as many arguments as the fields before it), or
        through `dataclasses.replace`-like copies that name it (or where jaxfix cannot
        count)."""
        title = cls.node.name
        fields = [
            s.target.id
            for s in cls.node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        ]
        index = fields.index(field) if field in fields else 0
        if not self.evaluator.project.files or not self._project_counted():
            return True  # no construction can be counted
        return bool(
            self._count(
                title,
                lambda node: (
                    isinstance(node, ast.Call)
                    and _called_name(node.func) == title
                    and (
                        len(node.args) > index
                        or any(isinstance(a, ast.Starred) for a in node.args)
                        or any(k.arg in (field, None) for k in node.keywords)
                    )
                ),
                title.encode(),
            )
            or self._count(
                field,
                lambda node: (
                    isinstance(node, ast.Call)
                    and _called_name(node.func) in _FIELD_COPIES
                    and any(k.arg in (field, None) for k in node.keywords)
                ),
                field.encode(),
            )
        )

    def _inherited(
        self, cls: Class, name: str, depth: int = 0
    ) -> tuple[Class, ast.expr] | None:
        """The value the class body of `cls` or of its nearest base of the tree assigns
        `name`."""
        own = _class_body_value(cls.node, name)
        if own is not None:
            return cls, own
        if depth >= _MAX_STEPS:
            return None
        module = self._module(cls.path)
        if isinstance(module, Unknown):
            return None
        for base in cls.node.bases:
            node = self._base_class(module, base)
            value = self.evaluator.value_of(module, base)
            if node is not None:
                path = value.path if isinstance(value, Class) else cls.path
                found = self._inherited(Class(node, path), name, depth + 1)
                if found is not None:
                    return found
        return None

    def _subclasses(self, cls: Class) -> list[Class]:
        """The classes of the project's files that derive from `cls`, at any depth."""
        found: list[Class] = []
        pending = [cls]
        while pending and len(found) < 200:
            parent = pending.pop()
            needle = parent.node.name.encode()
            for path in self.evaluator.project.files:
                try:
                    if needle not in path.read_bytes():
                        continue
                except OSError:
                    continue
                module = self._module(path)
                if isinstance(module, Unknown):
                    continue
                for node in module.classes:
                    if any(
                        self._base_class(module, b) is parent.node for b in node.bases
                    ) and all(c.node is not node for c in found):
                        child = Class(node, path)
                        found.append(child)
                        pending.append(child)
        return found

    def _base_class(self, module: Module, base: ast.expr) -> ast.ClassDef | None:
        """The class a base names: as the engine sees it, else (a class a registering
        decorator returns, `@register class Small(Base)`) the class of that name defined at
        the top of `module`."""
        value = self.evaluator.value_of(module, base)
        if isinstance(value, Class):
            return value.node
        if isinstance(base, ast.Name):
            named = [
                s
                for s in module.tree.body
                if isinstance(s, ast.ClassDef) and s.name == base.id
            ]
            return named[0] if len(named) == 1 else None
        return None

    def _declared_default(self, module: Module, default: ast.expr) -> ast.expr:
        """A field's default as written: `dataclasses.field(default=X)`'s X (or the field
        function of flax, equinox or attrs), and the value `default_factory=lambda: X`
        returns; else `default` itself."""
        if not isinstance(default, ast.Call) or self._qualified(
            module, default.func
        ) not in (*FIELD_FUNCTIONS, "attr.ib", "attrs.field"):
            return default
        given = {k.arg: k.value for k in default.keywords}
        if "default" in given:
            return given["default"]
        factory = given.get("default_factory") or given.get("factory")
        if (
            isinstance(factory, ast.Lambda)
            and not factory.args.args
            and not factory.args.vararg
            and not factory.args.kwarg
        ):
            return factory.body
        return default

    def _defining(
        self, needle: bytes, matches: Callable[[Module, ast.Call], bool]
    ) -> list[tuple[Module, ast.Call]] | Unknown:
        """The calls `matches` accepts in the project's files that hold `needle`."""
        files = self.evaluator.project.files
        if len(files) > _MAX_FILES_COUNTED:
            return Unknown("too many files to look for where an option is defined")
        found: list[tuple[Module, ast.Call]] = []
        for path in files:
            try:
                if needle not in path.read_bytes():
                    continue
            except OSError:
                return Unknown(f"{path.name} cannot be read")
            defining = self._module(path)
            if isinstance(defining, Unknown):
                return defining
            found.extend(
                (defining, call) for call in defining.calls if matches(defining, call)
            )
        return found

    def _absl_definition(
        self, module: Module, read: ast.Attribute
    ) -> tuple[Module, ast.expr] | Unknown:
        """`FLAGS.tp`: the default given to the one `flags.DEFINE_*("tp", ...)` of the
        project's files."""
        name = read.attr
        found = self._defining(
            b"DEFINE_",
            lambda defining, call: (
                _defines_flag(self._qualified(defining, call.func))
                and bool(call.args)
                and isinstance(call.args[0], ast.Constant)
                and call.args[0].value == name
            ),
        )
        if isinstance(found, Unknown):
            return found
        where = f"{module.path.name}:{module.line(read)}"
        if len(found) != 1:
            return Unknown(
                f"`{_text(module, read)}` at {where} is not one flag's "
                f"({len(found)} definitions give it)"
            )
        defining, call = found[0]
        given = _flag_default_argument(call)
        if given is None:
            return Unknown(
                f"the flag `{name}` ({defining.path.name}:{defining.line(call)}) gives no default jaxfix reads"
            )
        shared = self._flag_read_elsewhere(defining, call, name)
        if shared is not None:
            return shared
        self.label = self.label or f"the default of flag {name!r}"
        return defining, given

    def _flag_read_elsewhere(
        self, module: Module, define: ast.Call, name: str | None
    ) -> Unknown | None:
        """Why the default of the flag `define` defines is not changed: it is read on
        another path too (through the name it is assigned to, or as `FLAGS.name`), where a
        mesh that works may use it. None when the run's path is its one read."""
        statement = module.parents.get(define)
        holder = (
            statement.targets[0].id
            if isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            else None
        )
        reads = self._attribute_reads(name) if name is not None else 0
        if holder is not None:
            reads += self._count(
                holder,
                lambda node: (
                    (
                        isinstance(node, ast.Name)
                        and node.id == holder
                        and isinstance(node.ctx, ast.Load)
                    )
                    or (
                        isinstance(node, ast.Attribute)
                        and node.attr == holder
                        and isinstance(node.ctx, ast.Load)
                    )
                ),
                holder.encode(),
            )
        if reads == 1:
            return None
        named = define.args[0] if define.args else None
        flag = (
            f"flag {named.value!r}"
            if isinstance(named, ast.Constant) and isinstance(named.value, str)
            else "the flag"
        )
        return Unknown(
            f"the default of {flag} at {module.path.name}:{module.line(define)} is read "
            f"{'in more than one place' if reads else 'where jaxfix cannot count'}: "
            "a mesh that works may read it, so it is not changed"
        )

    def _flag_default(
        self, module: Module, parsed: ast.Call, dest: str
    ) -> tuple[Module, ast.expr] | Unknown:
        """The `default=` of the one `add_argument` of the project's files whose destination
        is `dest`, when the arguments `parsed` reads (a literal list) do not give it."""
        where = f"{module.path.name}:{module.line(parsed)}"
        calls = self._defining(
            b"add_argument", lambda _, call: _option_of(call, dest) is not None
        )
        if isinstance(calls, Unknown):
            return calls
        found = [(m, c, _option_of(c, dest) or ()) for m, c in calls]
        if len(found) != 1:
            return Unknown(
                f"`{dest}` of `{_text(module, parsed)}` at {where} is not one option's "
                f"({len(found)} `add_argument` calls give it)"
            )
        defining, option, strings = found[0]
        argv = parsed.args[0] if parsed.args else None
        if isinstance(argv, ast.Name):  # `parse(argv)` called as `parse([...])`
            argv = self._parameter_value(module, argv) or argv
        if argv is not None and not (
            isinstance(argv, (ast.List, ast.Tuple))
            and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str)
                for e in argv.elts
            )
        ):
            return Unknown(
                f"`{_text(module, parsed)}` at {where} parses arguments jaxfix cannot read"
            )
        given = [
            e
            for e in (argv.elts if argv is not None else ())
            if isinstance(e, ast.Constant)
            and any(str(e.value).split("=")[0] == s for s in strings)
        ]
        if given:
            return Unknown(
                f"`{_text(module, parsed)}` at {where} gives `{dest}` on its command line"
            )
        if argv is None:  # `parse_args()`: the process's own command line
            on_line = self._given_in_run(strings)
            if on_line is not None:
                return on_line
        elsewhere = self._count(
            dest,
            lambda node: (
                isinstance(node, ast.Attribute)
                and node.attr == dest
                and isinstance(node.ctx, ast.Load)
                and node not in self.attributes
                and not _within(node, option)  # its default: `default=Args.tp`
            ),
            dest.encode(),
        )
        if elsewhere or len(self.evaluator.project.files) > _MAX_FILES_COUNTED:
            return Unknown(
                f"the option {strings[0]} ({defining.path.name}:{defining.line(option)}) "
                "is read on another path too: a mesh that works may read it, so its "
                "default is not changed"
            )
        defaults = [k.value for k in option.keywords if k.arg == "default"]
        if len(defaults) != 1:
            return Unknown(
                f"the option `{dest}` ({defining.path.name}:{defining.line(option)}) has no default"
            )
        self.label = self.label or f"the default of {strings[0]}"
        return defining, defaults[0]

    def _computed(self, module: Module, expr: ast.expr) -> Computed | None:
        """`expr`, where the walk stops, when it computes the size from the host and nothing
        else (`jax.device_count() // 2`, or a sizes literal holding such an element among
        integers), or a `min`/`max` of such a value and others: the place the size is
        written, which jaxfix leaves. An expression that passes other values through (`n if
        s == -1 else s`, a name, a comprehension) is not: the size may come from
        elsewhere."""
        elements = (
            expr.elts
            if isinstance(expr, (ast.Tuple, ast.List)) and not self.scalar
            else [expr]
        )
        reads: list[str] = []
        mixed = False  # a `min`/`max` of a host read and other values
        self.host_places, self.host_names = [], 0
        for element in elements:
            found = self._host_only(module, element)
            if found is None:
                found = self._host_bound(module, element)
                mixed = mixed or found is not None
            if found is None:
                return None
            reads.extend(found)
        reads = list(dict.fromkeys(reads))
        if not reads:
            return None
        text = _text(module, expr)
        shown = " and ".join(reads)
        computed = Computed(
            f"`{text}` at {module.path.name}:{module.line(expr)} computes the size from {shown} "
            f"{'and other values ' if mixed else ''}when it runs",
            module,
            expr,
            text,
            tuple(reads),
            self.axis if self.scalar and not self.total else None,
        )
        computed.mixed = mixed
        computed.total = self.total
        computed.places = tuple(dict.fromkeys(self.host_places))
        environment = (
            self._environment_value(module, elements[0])
            if len(elements) == 1 and not mixed
            else None
        )
        if environment is not None:
            computed.variable, computed.scale = environment
        return computed

    def _environment_value(
        self, module: Module, expr: ast.expr
    ) -> tuple[str, tuple[int, int]] | None:
        """The environment variable whose integer `expr` is (`int(os.environ.get(
        "CHIPS_PER_HOST", "4"))`, `int(os.environ["TP"])`), scaled by a literal (`* 2`,
        `// 2`): the variable and (multiplier, divisor), so that setting it sets the size."""
        if (
            isinstance(expr, ast.Call)
            and len(expr.args) == 1
            and not expr.keywords
            and self._qualified(module, expr.func) == "builtins.int"
        ):
            variable = self._environment_variable(module, expr.args[0])
            return (variable, (1, 1)) if variable is not None else None
        if not isinstance(expr, ast.BinOp) or not isinstance(
            expr.op, (ast.Mult, ast.FloorDiv)
        ):
            return None
        operands = (
            [(expr.left, expr.right), (expr.right, expr.left)]
            if isinstance(expr.op, ast.Mult)
            else [(expr.left, expr.right)]
        )
        for read, factor in operands:
            inner = self._environment_value(module, read)
            k = _constant(factor)
            if inner is None or type(k) is not int or k <= 0:
                continue
            variable, (times, over) = inner
            scale = (
                (times * k, over)
                if isinstance(expr.op, ast.Mult)
                else (times, over * k)
            )
            return (variable, scale) if 1 in scale else None
        return None

    def _environment_variable(self, module: Module, expr: ast.expr) -> str | None:
        """The variable a read of the environment names by a string literal
        (`os.environ.get("TP", "4")`, `os.getenv("TP")`, `os.environ["TP"]`), else None."""
        if isinstance(expr, ast.Subscript):
            if self._qualified(module, expr.value) not in _ENVIRONMENTS:
                return None
            name = expr.slice
        elif (
            isinstance(expr, ast.Call)
            and 1 <= len(expr.args) <= 2
            and not expr.keywords
            and (
                self._qualified(module, expr.func) in _ENVIRONMENT_GETS
                or (
                    isinstance(expr.func, ast.Attribute)
                    and expr.func.attr == "get"
                    and self._qualified(module, expr.func.value) in _ENVIRONMENTS
                )
            )
        ):
            name = expr.args[0]
        else:
            return None
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return name.value
        return None

    def _host_bound(self, module: Module, expr: ast.expr) -> list[str] | None:
        """`min(num_experts, jax.local_device_count() // 2)`: a `min` or `max` one of whose
        arguments is computed from the host alone (or a product or quotient one of whose
        operands is: `jax.local_device_count() // self.tp`); the size is written here whichever
        argument wins on a host (unlike a branch, which may pass a literal written
        elsewhere through), so it is this expression's (its host reads), else None."""
        if isinstance(expr, ast.BinOp) and isinstance(
            expr.op, (ast.Mult, ast.FloorDiv, ast.Div)
        ):
            # `jax.local_device_count() // self.tp // args.stages`: the host's count scaled
            # by other values; a literal here is right on one host only, whatever they are
            found = []
            for side in (expr.left, expr.right):
                reads = self._host_only(module, side)
                if reads is None:
                    reads = self._host_bound(module, side)
                found.append(reads)
            if found[0] is not None and found[1] is not None:
                return None  # the host's alone: _host_only's
            reads = found[0] or found[1]
            return reads or None
        if (
            not isinstance(expr, ast.Call)
            or expr.keywords
            or len(expr.args) < 2
            or any(isinstance(a, ast.Starred) for a in expr.args)
            or self._qualified(module, expr.func)
            not in ("builtins.min", "builtins.max")
        ):
            return None
        reads = [r for a in expr.args for r in (self._host_only(module, a) or [])]
        return reads or None

    def _host_only(
        self, module: Module, expr: ast.expr, bound: frozenset[str] = frozenset()
    ) -> list[str] | None:
        """What `expr` reads from the host (`jax.device_count()`, an environment variable),
        in words, when it is made of such reads, integer literals, arithmetic,
        `len`/`int`/`max`/`min`/`tuple`/`math.prod` of those, a string method of such a read
        (`.split(",")`), a comprehension over one (its variables, `bound`) and a local name
        assigned once such a value, alone; else None. Where each read is, is noted
        (`host_places`)."""
        if isinstance(expr, ast.Constant):
            return [] if type(expr.value) is int else None
        variable = self._environment_variable(module, expr)
        if variable is not None:
            self._host_place(module, expr)
            return [f"the environment variable {variable}"]
        if isinstance(expr, ast.Name):
            return [] if expr.id in bound else self._host_name(module, expr)
        if isinstance(expr, ast.UnaryOp):
            return self._host_only(module, expr.operand, bound)
        if isinstance(expr, ast.BinOp):
            left = self._host_only(module, expr.left, bound)
            right = self._host_only(module, expr.right, bound)
            return None if left is None or right is None else left + right
        if isinstance(expr, (ast.GeneratorExp, ast.ListComp)):
            return self._host_comprehension(module, expr, bound)
        if not isinstance(expr, ast.Call) or expr.keywords:
            return None
        if (
            isinstance(expr.func, ast.Attribute)
            and expr.func.attr in _TEXT_METHODS
            and all(isinstance(a, ast.Constant) for a in expr.args)
        ):  # `os.environ.get("SHAPE", "1,1").split(",")`
            return self._host_only(module, expr.func.value, bound)
        called = self._qualified(module, expr.func)
        if called in _HOST_READS:
            self._host_place(module, expr)
            return [f"`{_text(module, expr.func)}()`"]
        if called not in _HOST_ARITHMETIC or not expr.args:
            return None
        reads: list[str] = []
        for argument in expr.args:
            found = self._host_only(module, argument, bound)
            if found is None:
                return None
            reads.extend(found)
        return reads

    def _host_place(self, module: Module, expr: ast.expr) -> None:
        self.host_places.append((module.path, module.line(expr)))

    def _host_comprehension(
        self,
        module: Module,
        expr: ast.GeneratorExp | ast.ListComp,
        bound: frozenset[str],
    ) -> list[str] | None:
        """`int(b) for b in bounds.split(",")`: each iterable the host's, the element the
        host's given the comprehension's variables."""
        reads: list[str] = []
        for generator in expr.generators:
            if generator.is_async or generator.ifs:
                return None
            found = self._host_only(module, generator.iter, bound)
            if found is None or not isinstance(generator.target, ast.Name):
                return None
            reads.extend(found)
            bound = bound | {generator.target.id}
        element = self._host_only(module, expr.elt, bound)
        return None if element is None or not reads else reads + element

    def _host_name(self, module: Module, name: ast.Name) -> list[str] | None:
        """A local name assigned once, in plain code before its read, a value computed from
        the host (`bounds = os.environ.get("BOUNDS", "2,2,1")`): that value's reads."""
        if self.host_names >= _MAX_HOST_NAMES:
            return None
        self.host_names += 1
        statement = self._assigned_once(module, name)
        if statement is None or not _local(module, name):
            return None
        return self._host_only(module, statement.value)

    def _assigned_once(self, module: Module, name: ast.Name) -> ast.Assign | None:
        """The one plain `name = value` statement (one target, no unpacking) every path to
        the read `name` comes through, else None."""
        bindings = self.evaluator.reaching(module, name)
        if not bindings or len(bindings) != 1:
            return None
        (binding,) = bindings
        statement = binding.node
        if (
            binding.kind != "assign"
            or binding.path
            or not isinstance(statement, ast.Assign)
            or len(statement.targets) != 1
        ):
            return None
        return statement

    def _callee(self, module: Module, func: ast.expr) -> object:
        """What a call the walk goes into calls: the engine's value of `func`; for
        `FACTORIES[name]()` (a dict literal of functions or classes, read by a literal key or
        one the run's callers passed), the value of that entry."""
        callee = self.evaluator.value_of(module, func)
        if not isinstance(func, ast.Subscript):
            return callee
        key = _key(func.slice)
        if key is None and isinstance(func.slice, ast.Name):
            key = self._passed_literal(module, func.slice)
        table_at = self._table(module, func.value) if key is not None else None
        if table_at is None:
            return callee
        owner, table = table_at
        entries = [
            v for k, v in zip(table.keys, table.values) if k is None or _key(k) == key
        ]
        if len(entries) != 1 or any(k is None for k in table.keys):
            return callee
        found = self.evaluator.value_of(owner, entries[0])
        if isinstance(found, Unknown):
            found = self._imported_function(owner, entries[0]) or found
        if not isinstance(callee, Unknown) and found != callee:
            return callee
        if isinstance(entries[0], ast.Name):
            self.tabled.add(entries[0].id)
        elif isinstance(entries[0], ast.Attribute):  # `CONFIGS = {"ft": ft.get_config}`
            self.tabled.add(entries[0].attr)
        return found

    def _imported_function(self, module: Module, expr: ast.expr) -> Function | None:
        """`sub.get_config` where `sub` is a module `module` imports by name (`from pkg
        import sub`, in `pkg/__init__.py` too, which the engine reads as a cycle): the
        function `get_config` defined once at the top of `sub`."""
        if not isinstance(expr, ast.Attribute) or not isinstance(expr.value, ast.Name):
            return None
        bindings = self.evaluator.reaching(module, expr.value)
        if not bindings or len(bindings) != 1:
            return None
        (binding,) = bindings
        statement = module.parents.get(binding.node)
        if (
            binding.kind != "import"
            or not isinstance(binding.node, ast.alias)
            or not isinstance(statement, ast.ImportFrom)
        ):
            return None
        name = ".".join(p for p in (statement.module, binding.node.name) if p)
        found = self.evaluator.project.find(name, statement.level, module.path)
        if isinstance(found, Unknown) or found.path is None:
            return None
        target = self._module(found.path)
        if isinstance(target, Unknown):
            return None
        defined = [
            s
            for s in target.tree.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and s.name == expr.attr
        ]
        if len(defined) != 1 or not isinstance(defined[0], ast.FunctionDef):
            return None
        if assigned_once(target, expr.attr) is not None:
            return None
        return Function(defined[0], target.path)

    def _matched(
        self, module: Module, read: ast.Subscript, keys: list[Key]
    ) -> tuple[Module, ast.expr] | None:
        """`TABLE[name]` where the code does not say which key the run read (a flag, a
        config's string): the one entry of the dict literal `TABLE` that holds the sizes the
        run built (read with `keys`, what is still to read: the whole sizes, or the size of
        the axis followed), when no other entry does; None otherwise."""
        if self.sizes is None or any(not isinstance(k, (str, int)) for k in keys):
            return None
        table_at = self._table(module, read.value)
        if table_at is None:
            return None
        owner, table = table_at
        if any(k is None or _key(k) is None for k in table.keys):
            return None
        whole = (  # `(dp, tp)` read from `TABLE[name]` by position: the entry holds them all
            self.scalar and bool(keys) and keys[-1] == self.axis
        )
        read_keys = keys[:-1] if whole else keys
        wanted: object = (
            self.sizes[self.axis]
            if self.scalar and self.axis is not None and not whole
            else self.sizes
        )
        found: list[ast.expr] = []
        for value in table.values:
            current: ast.expr | None = value
            for step in read_keys:
                if isinstance(current, (ast.Tuple, ast.List)) and isinstance(step, int):
                    current = (
                        current.elts[step] if 0 <= step < len(current.elts) else None
                    )
                elif isinstance(current, ast.Dict) and isinstance(step, str):
                    item = _entry(current, step)
                    current = item[0] if item is not None and not item[1] else None
                else:
                    current = None
                if current is None:
                    break
            literal = _literal_value(current) if current is not None else None
            if current is not None and literal is not None and literal == wanted:
                found.append(current)
            elif literal is None:
                return None  # an entry jaxfix cannot read may hold them too
        if len(found) != 1:
            return None
        entry = next(v for v in table.values if _contains(v, found[0]))
        table_key = next(k for k, v in zip(table.keys, table.values) if v is entry)
        if table_key is None:
            return None  # a `**mapping` entry: not one to name
        name = _text(module, read.value)
        if any(
            isinstance(node, ast.Subscript)
            and node is not read
            and _key(node.slice) == _key(table_key)
            and _text(where, node.value) == name
            for where in {module.path: module, owner.path: owner}.values()
            for node in ast.walk(where.tree)
        ):
            return None  # the entry is read by its key elsewhere: a working path may
        # the entry itself: what is still to read was read above
        self.read.add(read)
        self.modules.setdefault(owner.path, owner)
        self.label = (
            self.label or f"{_text(module, read.value)}[{_shown_entry(table, entry)}]"
        )
        return owner, entry

    def _keyed_choice(
        self,
        function: ast.FunctionDef,
        call: ast.Call,
        module: Module,
        skipped: int,
        target: Module,
        returns: list[ast.expr],
    ) -> ast.expr | None:
        """Of a function's several `return`s, the one in the branch its call chooses: the
        call passes a literal (or a parameter its callers' frames pass a literal for) for the
        parameter an `if name == literal:` / `case literal:` tests, and one return is in the
        branch of that literal. The sizes there need not be a literal (a size computed from
        the host is named where it is written)."""
        bound = _bound(call, function, skipped)
        if not isinstance(bound, dict):
            return None
        keyed = sorted(
            ((value, _branch_key(target, value, function)) for value in returns),
            key=lambda item: (item[0].lineno, item[0].col_offset),
        )
        parameters = {k[0] for _, k in keyed if k is not None}
        if len(parameters) != 1:
            return None
        (parameter,) = parameters
        if assigns(function, parameter):
            return None
        given = bound.get(parameter, _default(function, parameter))
        if isinstance(given, ast.Name):
            literal: object = self._passed_literal(module, given)
        elif isinstance(given, ast.Constant):
            literal = given.value
        else:
            return None
        if literal is None:
            return None
        found = [
            i for i, (_, k) in enumerate(keyed) if k is not None and k[1] == literal
        ]
        if len(found) != 1 or any(k is None for _, k in keyed[: found[0]]):
            return None  # a return before it that no key chooses may be the one taken
        return keyed[found[0]][0]

    def _matching_return(
        self,
        entering: tuple[ast.FunctionDef, ast.Call, Module, int],
        target: Module,
        returns: list[ast.expr],
        keys: list[Key],
    ) -> ast.expr | None:
        """Of a function's several `return`s, the one whose value, read with `keys`, is a
        literal holding the run's sizes, when no other return's is (the others' literals
        hold other sizes, or they compute theirs: `infer_mesh_shape` returning its argument
        as given or with a `-1` filled in); None otherwise."""
        if self.sizes is None or len(returns) > _MAX_STEPS:
            return None
        saved = dict(vars(self))
        found: list[ast.expr] = []
        try:
            for value in returns:
                self.__dict__.update(
                    {
                        k: (list(v) if isinstance(v, list) else set(v))
                        if isinstance(v, (list, set))
                        else v
                        for k, v in saved.items()
                    }
                )
                self.modules = dict(saved["modules"])
                self.literal = None
                self.entered.append(entering)
                reached = self._follow(target, value, keys, None)
                literal = self._last_literal()  # set by the walk
                if isinstance(reached, Unknown) or literal is None:
                    continue  # computed (`num_devices // known`): it holds no literal
                if self._holds(*literal):
                    found.append(value)
        finally:
            self.__dict__.update(saved)
        return found[0] if len(found) == 1 else None

    def _taken_branch(
        self, module: Module, choice: ast.IfExp, keys: list[Key]
    ) -> ast.expr | Unknown:
        """`a if test else b`: the branch the run took. A test of one value against a
        literal (`x != -1`, `x is None`, `x > 0`, `x` alone, `not x`) is decided by that
        value, followed as the sizes are (to a literal of the code, or a config file's entry
        beside it); else the one branch whose value holds the run's sizes when the other's
        does not. When neither says, both are named."""
        decided = self._decided(module, choice.test)
        if decided is not None:
            return choice.body if decided else choice.orelse
        held = [
            self._branch_holds(module, b, keys) for b in (choice.body, choice.orelse)
        ]
        if held == [True, False]:
            return choice.body
        if held == [False, True]:
            return choice.orelse
        return Unknown(
            f"`{cut(_text(module, choice), 60)}` at {module.path.name}:"
            f"{module.line(choice)} gives `{cut(_text(module, choice.body), 40)}` "
            f"(line {module.line(choice.body)}) or `{cut(_text(module, choice.orelse), 40)}` "
            f"(line {module.line(choice.orelse)}), and the run's values do not say which"
        )

    def _decided(self, module: Module, test: ast.expr) -> bool | None:
        """The truth of `test` in the run, when it compares one value jaxfix follows to a
        literal (or tests that value alone); None when it cannot be known."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._decided(module, test.operand)
            return None if inner is None else not inner
        if not isinstance(test, ast.Compare):
            value = self._value_of(module, test)
            return None if value is None else bool(value)
        if len(test.ops) != 1:
            return None
        left, right = test.left, test.comparators[0]
        literal = _constant(right)
        if literal is _NOT_CONSTANT:
            literal, left, right = _constant(left), right, left
            flipped = True
        else:
            flipped = False
        if literal is _NOT_CONSTANT:
            return None
        value = self._value_of(module, left)
        if value is None:
            return None
        compare = _COMPARISONS.get(type(test.ops[0]))
        if compare is None:
            return None
        try:
            return bool(compare(literal, value) if flipped else compare(value, literal))
        except TypeError:
            return None

    def _value_of(self, module: Module, expr: ast.expr) -> int | None:
        """The integer `expr` holds in the run, followed as one axis's size is: an integer
        literal of the code, or an entry of a config file named from beside the code; None
        when the walk stops elsewhere."""
        saved = self._saved()
        try:
            self.scalar, self.literal, self.label = True, None, None
            self.valuing = True
            reached = self._follow(module, expr, [], None)
            literal = self._last_literal()
        finally:
            self.__dict__.update(saved)
        if isinstance(reached, Unknown):
            return None
        data = reached.data
        if data is not None:
            if data.up_from_module is not None:
                parents = reached.module.path.resolve().parents
                if not 0 < data.up_from_module <= len(parents):
                    return None
                base = parents[data.up_from_module - 1]
            elif len(set(self.cwds)) == 1 and self._in_the_tree(self.cwds[0]):
                base = self.cwds[0]  # named from the directory the run ran in
            else:
                return None
            values = entry_values(base, data.name, data.keys, data.kind, scalar=True)
            return values[0] if values and len(values) == 1 else None
        value = _constant(literal[1]) if literal is not None else None
        return value if type(value) is int else None

    def _in_the_tree(self, directory: Path) -> bool:
        """Whether `directory` (where an evidence record says the run ran) is in the
        project: a file outside it is never read to decide a branch."""
        place = directory.resolve()
        return any(
            place == root or root in place.parents
            for root in self.evaluator.project.roots
        )

    def _branch_holds(
        self, module: Module, branch: ast.expr, keys: list[Key]
    ) -> bool | None:
        """Whether the literal `branch` leads to holds the run's sizes; None when it leads
        to none (or the run's sizes are not known)."""
        if self.sizes is None:
            return None
        saved = self._saved()
        try:
            self.literal = None
            reached = self._follow(module, branch, keys, None)
            literal = self._last_literal()
            if isinstance(reached, Unknown) or literal is None:
                return None
            return self._holds(*literal)
        finally:
            self.__dict__.update(saved)

    def _saved(self) -> dict[str, object]:
        """The walk's state, copied: a trial walk from it leaves the walk as it was once
        restored (`self.__dict__.update(saved)`)."""
        saved = {
            k: (list(v) if isinstance(v, list) else set(v) if isinstance(v, set) else v)
            for k, v in vars(self).items()
        }
        saved["modules"] = dict(self.modules)
        return saved

    def _holds(self, module: Module, literal: ast.expr) -> bool:
        """Whether `literal` holds the run's sizes: all of them, or the followed axis's (read
        as the whole sizes when it is that axis's element of a literal of them)."""
        assert self.sizes is not None
        value = _literal_value(literal)
        parent = module.parents.get(literal)
        if (
            isinstance(value, int)
            and isinstance(parent, (ast.Tuple, ast.List))
            and len(parent.elts) == len(self.sizes)
            and self.axis is not None
            and parent.elts.index(literal) == self.axis
        ):
            value = _literal_value(parent)
        if isinstance(value, tuple):
            return value == tuple(self.sizes)
        return (
            isinstance(value, int)
            and self.axis is not None
            and 0 <= self.axis < len(self.sizes)
            and value == self.sizes[self.axis]
        )

    def _table(self, module: Module, expr: ast.expr) -> tuple[Module, ast.Dict] | None:
        """The dict literal `TABLE` (or `module.TABLE`) is assigned once, and its module."""
        if isinstance(expr, ast.Attribute):
            written = written_elsewhere(self.evaluator, module, expr)
            if written is None or not isinstance(written[1], ast.Dict):
                return None
            return written[0], written[1]
        if not isinstance(expr, ast.Name):
            return None
        depth, label = self.depth, self.label
        try:
            step = self._name(module, expr, [], None)
        finally:
            self.depth, self.label = depth, label
        if not isinstance(step, tuple) or step[3] or not isinstance(step[1], ast.Dict):
            return None
        return step[0], step[1]

    def _device_shape(
        self, module: Module, call: ast.Call
    ) -> ast.expr | Unknown | None:
        """The shape a call making a device array gives it: `x.reshape(shape)` (or
        `np.reshape(x, shape)`), `mesh_utils.create_device_mesh(shape, ...)`; None for another
        call (a function of the tree returning the array is followed as any value)."""
        where = f"{module.path.name}:{module.line(call)}"
        api = self._api(module, call.func)
        if api is Api.CREATE_DEVICE_MESH or api is Api.NUMPY_RESHAPE:
            args = bind_arguments(call, SIGNATURES[api]) if api in SIGNATURES else None
            if api is Api.NUMPY_RESHAPE:
                shape = (
                    call.args[1] if len(call.args) == 2 and not call.keywords else None
                )
            else:
                shape = args.get("mesh_shape") if args else None
            if shape is None:
                return Unknown(
                    f"the device array made at {where} is given no shape jaxfix reads"
                )
            return shape
        if isinstance(call.func, ast.Attribute) and call.func.attr == "reshape":
            if any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
                return Unknown(
                    f"the device array reshaped at {where} unpacks its shape"
                )
            if len(call.args) == 1:
                return call.args[0]
            if call.args:  # `.reshape(n // 2, 2)`: the sizes, one an argument
                shape = ast.Tuple(elts=list(call.args), ctx=ast.Load())
                return ast.copy_location(shape, call.args[0])
            return Unknown(f"the device array reshaped at {where} is given no shape")
        return None

    def _one_axis(self, narrowest: Written | None) -> Written | None:
        """The narrowest read, once the walk follows one axis's size: that size alone."""
        if narrowest is None or not self.scalar:
            return narrowest
        return replace(narrowest, axis=self.axis)

    def _last_literal(self) -> tuple[Module, ast.expr] | None:
        return self.literal

    def _name(
        self,
        module: Module,
        name: ast.Name,
        keys: list[Key],
        narrowest: Written | None,
    ) -> tuple[Module, ast.expr, Written | None, list[Key]] | Written | Unknown:
        where = f"{module.path.name}:{module.line(name)}"
        bindings = self.evaluator.reaching(module, name)
        guarded = _none_guarded(module, bindings or frozenset(), name.id)
        if guarded is not None:
            # `if recipe is None: recipe = Default()`: the caller passed one (not `None`)
            step = self._argument(module, name, guarded.node, keys, narrowest)
            if isinstance(step, (Unknown, Written)):
                return step
            if isinstance(step[1], ast.Constant) and step[1].value is None:
                return Unknown(f"the caller passes `None` for `{name.id}` ({where})")
            return (*step, keys)
        if not bindings or len(bindings) != 1:
            return Unknown(
                f"jaxfix cannot tell which assignment to `{name.id}` reaches {where}"
            )
        (binding,) = bindings
        if binding.kind == "param":
            step = self._argument(module, name, binding.node, keys, narrowest, True)
            return step if isinstance(step, (Unknown, Written)) else (*step, keys)
        if binding.kind == "import" and isinstance(binding.node, ast.alias):
            statement = module.parents.get(binding.node)
            if not isinstance(statement, ast.ImportFrom):
                return Unknown(f"`{name.id}` at {where} is not imported from a module")
            found = self.evaluator.project.find(
                statement.module or "", statement.level, module.path
            )
            target = (
                self._module(found.path)
                if not isinstance(found, Unknown) and found.path is not None
                else Unknown(f"`{name.id}` at {where} is not imported from the tree")
            )
            if isinstance(target, Unknown):
                return target
            value = assigned_once(target, binding.node.name)
            if value is None:
                return Unknown(
                    f"`{binding.node.name}` is not assigned once in {target.path.name}"
                )
            shared = narrowest or self._shared(
                module, name, target, binding.node.name, keys
            )
            return target, value, shared, keys
        unpacked = [index for index, _, starred in binding.path if starred == -1]
        if (
            binding.kind != "assign"
            or len(unpacked) != len(binding.path)
            or (binding.path and narrowest is None and not _local(module, name))
        ):
            return Unknown(f"`{name.id}` at {where} is not a plain assignment")
        statement = binding.node
        value = (
            statement.value
            if isinstance(statement, (ast.Assign, ast.AnnAssign))
            and statement.value is not None
            and len(getattr(statement, "targets", [None])) == 1
            else None
        )
        if value is None:
            return Unknown(f"`{name.id}` at {where} is not a plain assignment")
        if binding.path:  # `shape, names = layout`: the element of what is unpacked
            return module, value, narrowest, [*unpacked, *keys]
        return (
            module,
            value,
            narrowest or self._shared(module, name, module, name.id, keys),
            keys,
        )

    def _passed_literal(self, module: Module, name: ast.Name) -> str | int | None:
        """`d[key]` where `key` is a parameter of the function the run was in, passed on by
        its callers' frames as a parameter of theirs until one passes a literal: that literal
        (the walk itself stays in this frame)."""
        depth, entered = self.depth, list(self.entered)
        try:
            for _ in range(_MAX_STEPS):
                bindings = self.evaluator.reaching(module, name)
                if not bindings or len(bindings) != 1:
                    return None
                (binding,) = bindings
                if binding.kind != "param":
                    return None
                step = self._argument(module, name, binding.node, [], None)
                if isinstance(step, (Unknown, Written)):
                    return None
                module, passed, _ = step
                if not isinstance(passed, ast.Name):
                    return _key(passed)
                name = passed
            return None
        finally:
            self.depth, self.entered = depth, entered

    def _argument(
        self,
        module: Module,
        name: ast.Name,
        parameter: ast.AST,
        keys: list[Key],
        narrowest: Written | None,
        default: bool = False,
    ) -> tuple[Module, ast.expr, Written | None] | Written | Unknown:
        """A parameter of the function the frame runs: the argument its caller's frame passed
        (or, in a call the walk went into, that call's argument). With `default`, a
        parameter the call does not pass: its default, where it reaches this path alone
        (`_default_of_one_call`)."""
        function = module.parents.get(module.parents.get(parameter, parameter))
        if self.entered:
            return self._entered_argument(module, name, function, narrowest, default)
        line = self.frames[self.depth][1]
        if not isinstance(function, ast.FunctionDef) or not (
            function.lineno <= line <= (function.end_lineno or line)
        ):
            return Unknown(
                f"`{name.id}` at {module.path.name}:{module.line(name)} is not a parameter of the function the run was in"
            )
        if self.depth + 1 >= len(self.frames):
            return Unknown(
                f"the run noted no caller of `{function.name}` in the tree (it passes `{name.id}`)"
            )
        self.depth += 1
        if self._comprehension_frame(module, function, line):
            self.depth += (
                1  # Python 3.11's own frame of a comprehension: its function's next
            )
        path, caller_line = self.frames[self.depth]
        caller = self._module(path)
        if isinstance(caller, Unknown):
            return caller
        closure = _returned_closure(function, line)
        calls = []
        for call in caller.calls:
            if not call.lineno <= caller_line <= (call.end_lineno or call.lineno):
                continue
            if closure is not None:
                # the frame ran a closure `function` returned: the call that made it
                made = self._made_by(caller, call.func, function)
                if made is not None:
                    calls.append((made, 0))
                continue
            callee = self.evaluator.value_of(caller, call.func)
            if isinstance(callee, Function) and callee.node is function:
                calls.append((call, 0))
            elif (
                isinstance(callee, BoundMethod)
                and callee.function.node is function
                and isinstance(call.func, ast.Attribute)
            ):
                calls.append((call, 1))  # `obj.method(...)`: `self` is `obj`
            elif (
                isinstance(callee, Class)
                and function.name == "__init__"
                and module.parents.get(function) is callee.node
            ):
                calls.append(
                    (call, 1)
                )  # `Cls(...)`: its `__init__`, `self` the new object
            elif (
                isinstance(callee, Unknown)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == function.name
                and isinstance(call.func.value, ast.Subscript)
                and isinstance(
                    receiver := self._callee(caller, call.func.value), Instance
                )
                and module.parents.get(function) is receiver.cls.node
            ):
                calls.append((call, 1))  # `TABLE[name].method()`: `self` is the entry
        if not calls and isinstance(module.parents.get(function), ast.ClassDef):
            # `obj.method(...)` of an object the engine does not know: the run's frames say
            # this line called `function`, the one call of a method of its name is that call
            calls = [
                (call, 1)
                for call in caller.calls
                if call.lineno <= caller_line <= (call.end_lineno or call.lineno)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == function.name
                and isinstance(self.evaluator.value_of(caller, call.func), Unknown)
            ]
        if not calls and function.name == "__init__":
            # `self.klass(self)`, `REGISTRY[name](cfg)`: a class the engine does not know,
            # built on a line of one call; the run's frames say it ran this `__init__`
            on_line = [
                call
                for call in caller.calls
                if call.lineno <= caller_line <= (call.end_lineno or call.lineno)
            ]
            if len(on_line) == 1 and isinstance(
                self.evaluator.value_of(caller, on_line[0].func), Unknown
            ):
                calls = [(on_line[0], 1)]
        where = f"{caller.path.name}:{caller_line}"
        if not calls:  # `obj.mesh` of a property `mesh`: `self` is `obj`
            read = _property_read(caller, caller_line, function)
            if read is not None and name.id == function.args.args[0].arg:
                return caller, read.value, narrowest
        if len(calls) < 2:  # `factory(names)`, `factory` a `functools.partial` of it
            partial = self._through_partial(caller, caller_line, function)
            if isinstance(partial, Unknown):
                return partial
            if partial is not None:
                if name.id not in partial:
                    return Unknown(
                        f"the call at {where} does not pass `{name.id}` (its default is shared by every call)"
                    )
                holder, argument = partial[name.id]
                return holder, argument, narrowest
        if len(calls) > 1:
            # `Trainer(build(A), build(B))`: the one the run made, by its columns
            calls = self._at_frame_columns(caller, calls)
        if len(calls) > 1:
            # `eval_mesh(cfg) is eval_mesh(cfg)`: calls that pass one name for it agree
            calls = _passing_one_name(calls, function, name.id)
        if len(calls) != 1:
            return Unknown(f"line {where} does not call `{function.name}` once")
        call, skipped = calls[0]
        bound = _bound(call, function, skipped)
        if isinstance(bound, str):
            return Unknown(bound)
        if default and bound is not None and name.id not in bound and not keys:
            found = self._default_followed(
                module, function, name, call, skipped, where, narrowest
            )
            if found is not None:
                return found
        if bound is None or name.id not in bound:
            return Unknown(
                f"the call at {where} does not pass `{name.id}` (its default is shared by every call)"
            )
        return caller, bound[name.id], narrowest

    def _default_followed(
        self,
        module: Module,
        function: ast.FunctionDef,
        name: ast.Name,
        call: ast.Call,
        skipped: int,
        where: str,
        narrowest: Written | None,
    ) -> Written | Unknown | None:
        """Where the default of `name` that `call` (at `where`) leaves to `function` is
        written, when that default reaches the run's path alone (`_default_of_one_call`);
        None when it may not."""
        value = self._default_of_one_call(module, function, name, call, skipped)
        if value is None:
            return None
        found = self._follow(module, value, [], None)
        if isinstance(found, Unknown):
            return found
        self.defaults_taken.add(id(found.node))
        return narrowest or replace(
            found, name=f"{_callee_name(module, function)}({name.id}=...)"
        )

    def _default_of_one_call(
        self,
        module: Module,
        function: ast.FunctionDef,
        name: ast.Name,
        call: ast.Call,
        skipped: int,
    ) -> ast.expr | None:
        """The default of `function`'s parameter `name` (`shard_mesh_shape=(2, 2)` of a
        config's `__init__` that keeps `tuple(shard_mesh_shape)`), when it reaches the run's
        path alone: `call` (which does not pass it, nor spreads `*args` or `**mapping`) is the
        project's one call of the function or class, no class derives from that class, the
        body reads the parameter once and assigns it nowhere, and an attribute of `self`
        stored from it is read once in the project; None otherwise."""
        title = _callee_name(module, function)
        holder = module.parents.get(function)
        if (
            _default(function, name.id) is None
            or any(isinstance(a, ast.Starred) for a in call.args)
            or any(k.arg is None for k in call.keywords)
            or name.id in {p.arg for p in function.args.posonlyargs}
            or assigns(function, name.id)
            or not self._project_counted()
            or self._call_count(title) != 1
            or (skipped and not isinstance(holder, ast.ClassDef))
        ):
            return None
        reads = [
            n
            for n in ast.walk(function)
            if isinstance(n, ast.Name) and n.id == name.id and n is not name
        ]
        if reads:
            return None
        if isinstance(holder, ast.ClassDef):
            if self._subclasses(Class(holder, module.path)):
                return None
            stored = self._stored_from(module, name)
            if stored is not None and self._attribute_reads(stored) != 1:
                return None
        return _default(function, name.id)

    def _stored_from(self, module: Module, name: ast.Name) -> str | None:
        """`X` of the `self.X = ...` statement whose value holds the read `name`."""
        node: ast.AST | None = name
        while node is not None and not isinstance(node, ast.stmt):
            node = module.parents.get(node)
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(target := node.targets[0], ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            return target.attr
        return None

    def _given_in_run(self, options: tuple[str, ...]) -> Unknown | None:
        """Why the default of an option the run's command line gives (`--tp 2`, `--tp=2`)
        is not where its value came from; None when no recorded argument gives it."""
        for i, argument in enumerate(self.arguments):
            option, equals, value = argument.partition("=")
            if option not in options:
                continue
            if not equals:
                following = self.arguments[i + 1 : i + 2]
                value = following[0] if following else ""
            return Unknown(
                f"the run's command line gives {cut(option, 40)} {cut(value, 20)!r}: its "
                "default is not what ran; set it where the command is written"
            )
        return None

    def _at_frame_columns(
        self, caller: Module, calls: list[tuple[ast.Call, int]]
    ) -> list[tuple[ast.Call, int]]:
        """Of several calls on the frame's line, the one at the columns the run recorded
        for it (checked against the line's text when the evidence was read); all of them
        when it recorded none, or none of them is there."""
        columns = self.columns[self.depth]
        if columns is None:
            return calls
        lines = split_lines(source_text(caller.source))
        line = self.frames[self.depth][1]
        at = [
            (call, skipped)
            for call, skipped in calls
            if (place := span(lines, call)).start[0] == place.end[0] == line
            and (place.start[1], place.end[1]) == columns
        ]
        return at if len(at) == 1 else calls

    def _made_by(
        self, caller: Module, func: ast.expr, function: ast.FunctionDef
    ) -> ast.Call | None:
        """The call of `function` that made the closure `func` names: `cb` assigned once in
        its scope from `function(...)` (`cb = cb_tagged_lm_evaluate(config)`, then `cb(...)`)."""
        if not isinstance(func, ast.Name):
            return None
        statement = self._assigned_once(caller, func)
        if statement is None or not isinstance(statement.value, ast.Call):
            return None
        callee = self.evaluator.value_of(caller, statement.value.func)
        return (
            statement.value
            if isinstance(callee, Function) and callee.node is function
            else None
        )

    def _comprehension_frame(
        self, module: Module, function: ast.FunctionDef, line: int
    ) -> bool:
        """Whether the frame at `self.depth` is `function`'s own, calling the frame Python
        before 3.12 runs a comprehension of it in (the comprehension holds both lines), and
        a frame follows it."""
        if self.depth + 1 >= len(self.frames):
            return False
        path, outer_line = self.frames[self.depth]
        if path.resolve() != module.path.resolve():
            return False
        return any(
            isinstance(node, _COMPREHENSIONS)
            and node.lineno <= min(line, outer_line)
            and max(line, outer_line) <= (node.end_lineno or node.lineno)
            for node in ast.walk(function)
        )

    def _through_partial(
        self, caller: Module, line: int, function: ast.FunctionDef
    ) -> dict[str, tuple[Module, ast.expr]] | Unknown | None:
        """The one call at `line` of `caller` whose callee is a `functools.partial` of
        `function` (`SMALL = partial(make_mesh_for, shape=(2, 2))`, then `factory(names)` with
        `factory` given `SMALL` by the run's caller): each parameter's argument, as Python
        binds the partial's arguments first, then the call's (a keyword the call gives wins),
        with the module it is written in. None when no call there is one."""
        found: list[tuple[ast.Call, tuple[Module, ast.Call]]] = []
        for call in caller.calls:
            if not call.lineno <= line <= (call.end_lineno or call.lineno):
                continue
            saved = (self.depth, list(self.entered), self.label)
            try:
                made = self._partial_of(caller, call.func, function)
            finally:
                self.depth, self.entered, self.label = saved
            if made is not None:
                found.append((call, made))
        if not found:
            return None
        if len(found) != 1:
            return Unknown(
                f"line {caller.path.name}:{line} calls more than one partial of `{function.name}`"
            )
        call, (owner, partial) = found[0]
        given = {k.arg for k in call.keywords}
        merged = ast.Call(
            func=partial.args[0],
            args=[*partial.args[1:], *call.args],
            keywords=[
                *(k for k in partial.keywords if k.arg not in given or k.arg is None),
                *call.keywords,
            ],
        )
        bound = _bound(merged, function, 0)
        if isinstance(bound, str):
            return Unknown(bound)
        if bound is None:
            return Unknown(
                f"the partial of `{function.name}` called at {caller.path.name}:{line} does not bind its arguments"
            )
        mine = {id(a) for a in (*partial.args, *partial.keywords)} | {
            id(k.value) for k in partial.keywords
        }
        return {
            parameter: (owner if id(value) in mine else caller, value)
            for parameter, value in bound.items()
        }

    def _partial_of(
        self, module: Module, expr: ast.expr, function: ast.FunctionDef
    ) -> tuple[Module, ast.Call] | None:
        """The `functools.partial(function, ...)` call `expr` is, followed through names,
        module attributes and the run's callers' arguments (the walk's frame moves to where
        it was found), and its module; None when it is not one."""
        for _ in range(_MAX_STEPS):
            if isinstance(expr, ast.Call):
                if (
                    self._qualified(module, expr.func) != "functools.partial"
                    or not expr.args
                    or isinstance(expr.args[0], ast.Starred)
                ):
                    return None
                target = self.evaluator.value_of(module, expr.args[0])
                if isinstance(target, Unknown):
                    target = self._imported_function(module, expr.args[0]) or target
                if isinstance(target, Function) and target.node is function:
                    return module, expr
                return None
            if isinstance(expr, ast.Name):
                iterated = _iterated_by(module, expr)
                if (
                    iterated is not None
                ):  # `e` of `[e(x) for e in FNS]`: what it iterates
                    expr = iterated
                    continue
                step = self._name(module, expr, [], None)
                if not isinstance(step, tuple) or step[3]:
                    return None
                module, expr = step[0], step[1]
                continue
            if isinstance(expr, (ast.Tuple, ast.List)):  # the one element that is one
                made = [
                    m
                    for element in expr.elts
                    if (m := self._partial_of(module, element, function)) is not None
                ]
                return made[0] if len(made) == 1 else None
            if isinstance(expr, ast.Attribute):
                base = self.evaluator.value_of(module, expr.value)
                if isinstance(base, Unknown) and isinstance(expr.value, ast.Name):
                    base = self._passed_class(module, expr.value) or base
                if isinstance(base, Class):
                    held = self._class_value(base, expr.attr)
                    if held is None:
                        return None
                    module, expr = held
                    continue
                if not isinstance(base, ModuleValue) or base.path is None:
                    stored = _stored_on_self(module, expr)
                    if stored is None:
                        return None
                    expr = stored
                    continue
                target_module = self._module(base.path)
                if isinstance(target_module, Unknown):
                    return None
                found = assigned_once(target_module, expr.attr)
                if found is None:
                    return None
                module, expr = target_module, found
                continue
            return None
        return None

    def _passed_class(self, module: Module, name: ast.Name) -> Class | None:
        """The class of the tree a parameter `name` holds, followed through the run's
        callers' arguments (`get_engines(config)`, `run(ServerConfig, ...)`)."""
        expr: ast.expr = name
        for _ in range(_MAX_STEPS):
            value = self.evaluator.value_of(module, expr)
            if isinstance(value, Class):
                return value
            if not isinstance(expr, ast.Name):
                return None
            step = self._name(module, expr, [], None)
            if not isinstance(step, tuple) or step[3]:
                return None
            module, expr = step[0], step[1]
        return None

    def _class_value(self, cls: Class, name: str) -> tuple[Module, ast.expr] | None:
        """The value the body of `cls`, or of the first of its bases that assigns it,
        gives the class attribute `name`, with its module; None when none does or code of
        the class sets it on an instance."""
        module = self._module(cls.path)
        node: ast.ClassDef | None = cls.node
        for _ in range(_MAX_STEPS):
            if (
                isinstance(module, Unknown)
                or node is None
                or _sets_attribute(node, name)
            ):
                return None
            value = _class_body_value(node, name)
            if value is not None:
                return module, value
            if len(node.bases) != 1:
                return None
            node = self._base_class(module, node.bases[0])
        return None

    def _entered_argument(
        self,
        module: Module,
        name: ast.Name,
        function: ast.AST | None,
        narrowest: Written | None,
        default: bool = False,
    ) -> tuple[Module, ast.expr, Written | None] | Written | Unknown:
        """A parameter of a function the walk went into (the run noted no frame of it): the
        argument the call it went in by passes (with `default`, as `_argument`)."""
        entered, call, caller, skipped = self.entered[-1]
        if function is not entered:
            return Unknown(
                f"`{name.id}` is not a parameter of `{entered.name}`, whose call the run did not note"
            )
        bound = _bound(call, entered, skipped)
        where = f"{caller.path.name}:{caller.line(call)}"
        if isinstance(bound, str):
            return Unknown(bound)
        if (
            default
            and bound is not None
            and name.id not in bound
            and isinstance(entered, ast.FunctionDef)
        ):
            self.entered.pop()
            found = self._default_followed(
                module, entered, name, call, skipped, where, narrowest
            )
            if found is not None:
                return found
            self.entered.append((entered, call, caller, skipped))
        if bound is None or name.id not in bound:
            return Unknown(
                f"the call at {where} does not pass `{name.id}` (its default is shared by every call)"
            )
        self.entered.pop()
        return caller, bound[name.id], narrowest

    def _into(
        self, module: Module, call: ast.Call, keys: list[Key], narrowest: Written | None
    ) -> Written | Unknown | None:
        """`make()` read as `.field`, `make` a function of the tree whose body returns once:
        that return, read so; `Cls(...)` of a class (not a dataclass) whose `__init__` sets
        `self.field` once, and nothing else of the class sets it: that value. The run noted no
        frame of these calls (they had returned): their parameters are the call's arguments.
        None when `call` is neither."""
        callee = self._callee(module, call.func)
        where = f"{module.path.name}:{module.line(call)}"
        skipped = 0
        if (
            isinstance(callee, BoundMethod)
            and isinstance(callee.function.node, ast.FunctionDef)
            and isinstance(call.func, ast.Attribute)
            and callee.function.wrapped_by == "classmethod"
        ):  # `Config.from_file()`: `cls` is the class
            callee, skipped = replace(callee.function, wrapped_by=None), 1
        elif (
            isinstance(callee, BoundMethod)
            and isinstance(callee.function.node, ast.FunctionDef)
            and isinstance(call.func, ast.Attribute)
            and callee.function.wrapped_by in (None, "staticmethod")
            and not callee.function.bound
        ):  # `obj.method(...)`: `self` is `obj` (a staticmethod takes no `self`)
            skipped = 1 if callee.function.wrapped_by is None else 0
            callee = replace(callee.function, wrapped_by=None)
        elif (own := self._own_method(module, call)) is not None:
            callee, skipped = own, 1
        elif (
            isinstance(callee, Unknown)
            and (only := self._only_method(call)) is not None
        ):
            # `exp.task()` of an object the code does not say the class of (a registry's
            # entry): the project's one method of that name
            callee, skipped = only, 1
        if isinstance(callee, Function) and isinstance(callee.node, ast.FunctionDef):
            if callee.wrapped_by is not None:
                return None
            returns = _returns(callee.node)
            target = self._module(callee.path)
            if len(self.entered) >= _MAX_STEPS:
                return Unknown("too many calls between the mesh and its sizes")
            if len(returns) > 1 and not isinstance(target, Unknown):
                # `match name: case "a": return A() ...` with a name the code does not
                # write: the one return whose value holds the run's sizes
                chosen = self._keyed_choice(
                    callee.node, call, module, skipped, target, returns
                ) or self._matching_return(
                    (callee.node, call, module, skipped), target, returns, keys
                )
                returns = [chosen] if chosen is not None else returns
            if len(returns) != 1 or isinstance(target, Unknown):
                return Unknown(
                    f"`{callee.node.name}` (called at {where}) does not return once"
                )
            self.entered.append((callee.node, call, module, skipped))
            found = self._follow(target, returns[0], keys, narrowest)
            return self._only_call(found, callee.node, target, where)
        if isinstance(callee, Class) and not self._dataclass_like(callee):
            field = keys[0]
            assert isinstance(field, _Field)
            init = next(
                (
                    s
                    for s in callee.node.body
                    if isinstance(s, ast.FunctionDef) and s.name == "__init__"
                ),
                None,
            )
            target = self._module(callee.path)
            if init is None or isinstance(target, Unknown) or not init.args.args:
                return None
            me = init.args.args[0].arg
            read = _property_of(callee.node, field)
            if read:  # the property's `self.a.b`: `a`, then `.b` of its value
                keys = [*read, *keys[1:]]
                field = read[0]
            sets, values = _self_stores(callee.node, init, me, field.name)
            built_by: ast.Call = call
            if not values and not sets:
                # `super().__init__(**kwargs)`: the base's `__init__` sets it, given the
                # keywords the subclass's own parameters do not take
                forwarded = self._forwarded_init(callee, init, call)
                if forwarded is not None:
                    callee, init, built_by, target = forwarded
                    me = init.args.args[0].arg
                    sets, values = _self_stores(callee.node, init, me, field.name)
            if len(values) != 1 or len(sets) != 1:
                return Unknown(
                    f"`{callee.node.name}` (built at {where}) does not set `{field.name}` once in its `__init__`"
                )
            if len(self.entered) >= _MAX_STEPS:
                return Unknown("too many calls between the mesh and its sizes")
            self.entered.append((init, built_by, module, 1))
            found = self._follow(target, values[0], keys[1:], narrowest)
            return self._only_call(found, init, target, where, callee.node.name)
        return None

    def _forwarded_init(
        self, cls: Class, init: ast.FunctionDef, call: ast.Call
    ) -> tuple[Class, ast.FunctionDef, ast.Call, Module] | None:
        """The `__init__` of the one base of `cls` (of the tree) that `init` calls as its
        statement `super().__init__(**kwargs)`, `kwargs` its own and read nowhere else, with
        the call building the object as that `__init__` is given it: the keywords `init`'s
        parameters do not name. None where the call unpacks arguments or passes more
        positional ones than `init` names."""
        kwargs = init.args.kwarg
        if kwargs is None or init.args.vararg is not None or len(cls.node.bases) != 1:
            return None
        forwarding = [
            s
            for s in init.body
            if isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Call)
            and _super_init_of(s.value, kwargs.arg)
        ]
        reads = [
            n for n in ast.walk(init) if isinstance(n, ast.Name) and n.id == kwargs.arg
        ]
        named = [p.arg for p in (*init.args.posonlyargs, *init.args.args)][1:]
        named += [p.arg for p in init.args.kwonlyargs]
        if (
            len(forwarding) != 1
            or len(reads) != 1
            or any(isinstance(a, ast.Starred) for a in call.args)
            or any(k.arg is None for k in call.keywords)
            or len(call.args) > len(named) - len(init.args.kwonlyargs)
        ):
            return None
        owner = self._module(cls.path)
        if isinstance(owner, Unknown):
            return None
        base = self.evaluator.value_of(owner, cls.node.bases[0])
        if not isinstance(base, Class) or self._dataclass_like(base):
            return None
        base_init = next(
            (
                s
                for s in base.node.body
                if isinstance(s, ast.FunctionDef) and s.name == "__init__"
            ),
            None,
        )
        target = self._module(base.path)
        if base_init is None or not base_init.args.args or isinstance(target, Unknown):
            return None
        passed = ast.Call(
            func=call.func,
            args=[],
            keywords=[k for k in call.keywords if k.arg not in named],
        )
        return base, base_init, ast.copy_location(passed, call), target

    def _replaced(
        self,
        module: Module,
        call: ast.Call,
        keys: list[Key],
        narrowest: Written | None,
    ) -> tuple[Module, ast.expr, list[Key]] | Written | Unknown | None:
        """A copy of a dataclass with fields replaced, read as `.field`:
        `dataclasses.replace(cfg, field=...)`, `cfg.replace(field=...)` (flax.struct and chex
        dataclasses) or `cfg._replace(field=...)` (a NamedTuple). The keyword it is given, when
        it names the field (the step to take: the walk goes on there); else the field is the
        copied object's, and the copy is given its own keyword (the object's value feeds every
        other read of it; a size computed from the host there is reported as such). None when
        `call` is not such a copy."""
        assert isinstance(keys[0], _Field)
        field = keys[0].name
        if self._qualified(module, call.func) == "dataclasses.replace":
            if len(call.args) != 1 or isinstance(call.args[0], ast.Starred):
                return None
            copied = call.args[0]
        elif (
            isinstance(call.func, ast.Attribute)
            and call.func.attr in ("replace", "_replace")
            and not call.args
            and call.keywords
            and not isinstance(
                self.evaluator.value_of(module, call.func), (Function, BoundMethod)
            )
        ):
            copied = call.func.value
        else:
            return None
        where = f"{module.path.name}:{module.line(call)}"
        if any(k.arg is None for k in call.keywords):
            return Unknown(f"`{_text(module, call)}` at {where} unpacks its arguments")
        shown = f"{_text(module, call.func)}(...).{field}"
        given = [k.value for k in call.keywords if k.arg == field]
        if given:
            self.label = self.label or shown
            return module, given[0], keys[1:]
        saved = dict(vars(self))
        saved_lists = {
            k: (list(v) if isinstance(v, list) else set(v) if isinstance(v, set) else v)
            for k, v in saved.items()
        }
        found = self._follow(module, copied, keys, None)
        if isinstance(found, Unknown):
            return found
        self.__dict__.update(saved_lists)
        if narrowest is not None:
            return narrowest
        if (
            found.keyword is None
            and found.why is None
            and found.data is None
            and self._read_once(module, copied)
        ):
            return (
                found  # the preset this copy alone reads: changed where it is written
            )
        whole = bool(keys[1:])  # `*cfg.shape`: an axis's item of the field's sizes
        if whole and not (keys[1:] == [self.axis] and self.scalar):
            return Unknown(
                f"`{field}` of `{_text(module, copied)[:40]}` holds more than the sizes: "
                f"give the copy at {where} its own"
            )
        return Written(
            module,
            call,
            self.label or shown,
            keyword=field,
            axis=None if whole else found.axis,
            why=f"`{field}` is copied from `{_text(module, copied)[:40]}`, whose value other "
            f"code may read too ({found.module.path.name}:{found.module.line(found.node)}): "
            "this copy is given its own",
        )

    def _read_once(self, module: Module, copied: ast.expr) -> bool:
        """Whether `copied` is a module's constant (`configs.SERVING`, or a name assigned
        once at the top of this module) that nothing else in the project reads."""
        if isinstance(copied, ast.Attribute):
            base = self.evaluator.value_of(module, copied.value)
            if not isinstance(base, ModuleValue) or base.path is None:
                return False
            owner, name = self._module(base.path), copied.attr
        elif isinstance(copied, ast.Name):
            function = module.scope_of(copied)
            if isinstance(function, (ast.AsyncFunctionDef, ast.Lambda)) or (
                isinstance(function, ast.FunctionDef) and assigns(function, copied.id)
            ):
                return False
            owner, name = module, copied.id
        else:
            return False
        if isinstance(owner, Unknown) or assigned_once(owner, name) is None:
            return False
        others = self.evaluator.project.candidate_files(name, owner.path)
        if isinstance(others, Unknown):
            return False
        reads = 0
        for path in dict.fromkeys([owner.path, module.path, *others]):
            reader = self.evaluator.project.module_loading(path, name)
            if isinstance(reader, Unknown):
                return False
            if reader is not None:
                reads += len(reader.loads_by_name.get(name, ()))
        return reads == 1

    def _field(
        self,
        module: Module,
        call: ast.Call,
        keys: list[Key],
        narrowest: Written | None,
    ) -> Written | Unknown:
        """`Config(shape=...)` read as `.shape`: the keyword, else the class's field default
        (which every instance shares: the keyword is added to this construction)."""
        assert isinstance(keys[0], _Field)
        field = keys[0].name
        where = f"{module.path.name}:{module.line(call)}"
        cls = self._callee(module, call.func)
        if not isinstance(cls, Class):
            cls = self._own_class(module, call) or cls
        mapping = isinstance(cls, Class) and self.evaluator.attribute_dict_class(cls)
        if not isinstance(cls, Class) or not (mapping or self._dataclass_like(cls)):
            return Unknown(
                f"`{_text(module, call)}` at {where} is not a dataclass built there"
            )
        given = [k.value for k in call.keywords if k.arg == field]
        unpacked = [k.value for k in call.keywords if k.arg is None]
        if any(isinstance(a, ast.Starred) for a in call.args) or (
            unpacked and (given or call.args or len(unpacked) != 1)
        ):
            return Unknown(f"`{_text(module, call)}` at {where} unpacks its arguments")
        if given:
            self.label = self.label or f"{cls.node.name}({field}=...)"
            return self._follow(module, given[0], keys[1:], narrowest)
        if unpacked:  # `cls(**raw)`: the field is the mapping's entry of its name
            return self._follow(module, unpacked[0], [field, *keys[1:]], narrowest)
        if mapping:  # an attribute dict's items are its keywords alone
            return Unknown(
                f"`{field}` is not given to `{_text(module, call)}` at {where}"
            )
        fields = [
            s
            for s in cls.node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        ]
        index = next(
            (i for i, s in enumerate(fields) if getattr(s.target, "id", "") == field),
            None,
        )
        declared = cls
        if index is None and not call.args:
            # a field a dataclass base declares (`class NVFP4(Recipe)`): its default
            inherited = self._declaring(cls, field)
            if inherited is not None:
                declared, default_at = inherited
                fields, index = [default_at], 0
        if index is None or index < len(call.args):
            return Unknown(
                f"`{field}` is not given to `{_text(module, call)}` by keyword at {where}"
            )
        default = fields[index].value
        owner = self._module(declared.path)
        if default is None or isinstance(owner, Unknown):
            return Unknown(f"`{field}` has no default jaxfix can read")
        default = self._declared_default(owner, default)
        if keys[1:] and all(isinstance(k, str) for k in keys[1:]):
            # `mesh: dict = field(default_factory=lambda: {"expert": 4, ...})` read by key:
            # that entry, changed only when the project reads `.field` on this path alone
            readers = self._attribute_reads(field)
            if readers != 1:
                return Unknown(
                    f"the default of `{field}` ({owner.path.name}:{owner.line(default)}) is "
                    f"shared by every `{cls.node.name}`, and `.{field}` is read "
                    f"{'in more than one place' if readers else 'where jaxfix cannot count'}"
                )
            found = self._follow(owner, default, keys[1:], None)
            if isinstance(found, Unknown):
                return found
            return narrowest or replace(
                found,
                name=f"{cls.node.name}.{field}{''.join(_shown(k) for k in keys[1:])}",
                why=f"the default of `{field}` is changed: the run's path is the one read "
                f"of `.{field}` in the project",
            )
        if any(isinstance(k, _Field) for k in keys[1:]):
            # `eval_mesh: MeshConfig = MeshConfig(shape=(4, 4))` read `.shape`
            return self._nested_default(
                owner, default, f"{cls.node.name}.{field}", keys, narrowest
            )
        whole = bool(keys[1:])  # `*config.shape`: an axis's item of the field's sizes
        if whole and not (
            keys[1:] == [self.axis]
            and self.scalar
            and isinstance(default, (ast.Tuple, ast.List))
            and self.sizes is not None
            and len(default.elts) == len(self.sizes)
        ):
            return Unknown(
                f"`{field}` of `{_text(module, call)}` at {where} holds more than the sizes"
            )
        found = self._follow(owner, default, keys[1:], None)
        if isinstance(found, Unknown):
            return found
        if self._default_alone(declared, cls, field, module, call):
            return narrowest or replace(
                found,
                name=f"{cls.node.name}.{field}",
                why=f"the default of `{field}` is changed: `{cls.node.name}` is built at "
                f"{where} alone, no construction gives `{field}`, and `.{field}` is read "
                "once in the project",
            )
        return narrowest or Written(
            module,
            call,
            f"{_text(module, call)}.{field}",
            keyword=field,
            # the field holds all the sizes: the keyword gives them all
            axis=None if whole else found.axis,
            why=f"the default of `{field}` ({owner.path.name}:{owner.line(default)}) is shared by every `{cls.node.name}`: "
            "this construction is given its own",
        )

    def _default_alone(
        self, declared: Class, cls: Class, field: str, module: Module, call: ast.Call
    ) -> bool:
        """Whether a field's default reaches the run's path alone, so that it is changed
        where it is declared rather than given to the construction `call` (a factory many
        tests call, `ClusterConfig(role_to_mesh=...)` in `default_config()`): `cls` is built
        at `call` and nowhere else in the project, no class derives from it or from
        `declared`, no construction or copy gives `field`, and `.field` is read once. Only
        where the construction's own keyword would be refused: it is made in a function the
        project calls more than once (a module's constant is given its keyword)."""
        title = cls.node.name
        function = module.scope_of(call)
        return (
            isinstance(function, ast.FunctionDef)
            and self._call_count(function.name, function) > 1
            and self._project_counted()
            and self._attribute_reads(field) == 1
            and not self._field_given(cls, field)
            and not self._subclasses(cls)
            and (
                declared.node is cls.node
                or [c.node for c in self._subclasses(declared)] == [cls.node]
            )
            and self._count(
                title,
                lambda node: (
                    isinstance(node, ast.Call) and _called_name(node.func) == title
                ),
                title.encode(),
            )
            == 1
            and self._count(
                title,
                lambda node: node is call,
                title.encode(),
            )
            == 1
        )

    def _declaring(
        self, cls: Class, field: str, depth: int = 0
    ) -> tuple[Class, ast.AnnAssign] | None:
        """The nearest dataclass base of `cls` (one base at each level, as Python's order
        finds it) whose body declares `field`, and that declaration."""
        module = self._module(cls.path)
        if (
            isinstance(module, Unknown)
            or depth > _MAX_STEPS
            or len(cls.node.bases) != 1
        ):
            return None
        base = self.evaluator.value_of(module, cls.node.bases[0])
        if not isinstance(base, Class) or not self._dataclass_like(base):
            return None
        declared = [
            s
            for s in base.node.body
            if isinstance(s, ast.AnnAssign)
            and isinstance(s.target, ast.Name)
            and s.target.id == field
        ]
        if declared:
            return (base, declared[0]) if len(declared) == 1 else None
        return self._declaring(base, field, depth + 1)

    def _dataclass_like(self, cls: Class) -> bool:
        """A class whose fields are its annotated class attributes, set by keyword or in
        order by its constructor: a `@dataclass`, a `NamedTuple`, a subclass of equinox's
        `Module`, or of a class of the tree whose `__init_subclass__` makes each subclass a
        dataclass (equinox's `Module`, flax's `struct.PyTreeNode` idiom)."""
        if _is_dataclass(cls.node):
            return True
        module = self._module(cls.path)
        if isinstance(module, Unknown):
            return False
        for base in cls.node.bases:
            if self._qualified(module, base) in (*_NAMED_TUPLES, *DATACLASS_BASES):
                return True
            found = self.evaluator.value_of(module, base)
            if isinstance(found, Class) and found.node is not cls.node:
                hook = next(
                    (
                        s
                        for s in found.node.body
                        if isinstance(s, ast.FunctionDef)
                        and s.name == "__init_subclass__"
                    ),
                    None,
                )
                owner = self._module(found.path)
                if hook is not None and not isinstance(owner, Unknown):
                    if any(
                        isinstance(node, ast.Call)
                        and self._qualified(owner, node.func) == "dataclasses.dataclass"
                        for node in ast.walk(hook)
                    ):
                        return True
        return False

    def _literal(
        self, module: Module, expr: ast.expr, keys: tuple[str | int, ...] = ()
    ) -> tuple[Module, ast.expr] | None:
        """The literal `expr` holds (read by `keys`), followed through names assigned once,
        parameters of the calls the walk went into (their argument, else their default),
        unpacking, module attributes and literal keys; None where it is anything else. The
        walk's own state is left as it was."""
        entered = list(self.entered)
        key_list: list[str | int] = list(keys)
        for _ in range(_MAX_STEPS):
            if isinstance(expr, ast.Dict) and key_list and isinstance(key_list[0], str):
                values = [
                    v
                    for k, v in zip(expr.keys, expr.values)
                    if k is None or _key(k) == key_list[0]
                ]
                if len(values) != 1 or any(k is None for k in expr.keys):
                    return None
                expr, key_list = values[0], key_list[1:]
                continue
            if (
                isinstance(expr, (ast.Tuple, ast.List))
                and key_list
                and isinstance(key_list[0], int)
            ):
                if any(isinstance(e, ast.Starred) for e in expr.elts) or not (
                    0 <= key_list[0] < len(expr.elts)
                ):
                    return None
                expr, key_list = expr.elts[key_list[0]], key_list[1:]
                continue
            if not key_list and isinstance(
                expr, (ast.Constant, ast.Tuple, ast.List, ast.Dict, ast.JoinedStr)
            ):
                return module, expr
            if isinstance(expr, ast.Subscript):
                key = _key(expr.slice)
                if key is None:
                    found = self._literal_with(entered, module, expr.slice)
                    key = _key(found[1]) if found is not None else None
                if key is None:
                    return None
                expr, key_list = expr.value, [key, *key_list]
                continue
            if isinstance(expr, ast.Attribute):
                base = self.evaluator.value_of(module, expr.value)
                if not isinstance(base, ModuleValue) or base.path is None:
                    return None
                target = self._module(base.path)
                found_value = (
                    assigned_once(target, expr.attr)
                    if not isinstance(target, Unknown)
                    else None
                )
                if found_value is None or isinstance(target, Unknown):
                    return None
                module, expr = target, found_value
                continue
            if not isinstance(expr, ast.Name):
                return None
            bindings = self.evaluator.reaching(module, expr)
            if not bindings or len(bindings) != 1:
                return None
            (binding,) = bindings
            if binding.kind == "param":
                function = module.parents.get(
                    module.parents.get(binding.node, binding.node)
                )
                frames = [e for e in entered if e[0] is function]
                if not frames:
                    # a parameter of the function a frame of the run was in: what its
                    # caller's frame passed
                    passed = self._framed_argument(module, expr, binding.node)
                    if passed is None:
                        return None
                    module, expr = passed
                    entered = []
                    continue
                index = entered.index(frames[-1])
                called, call, caller, skipped = entered[index]
                bound = _bound(call, called, skipped)
                if not isinstance(bound, dict):
                    return None
                entered = entered[:index]
                if expr.id in bound:
                    module, expr = caller, bound[expr.id]
                    continue
                default = _default(called, expr.id)
                if default is None:
                    return None
                expr = default  # the parameter's default, in the callee's module
                continue
            if binding.kind == "import" and isinstance(binding.node, ast.alias):
                imported = imported_assignment(self.evaluator, module, binding.node)
                if imported is None:
                    return None
                module, expr = imported
                continue
            unpacked = [index for index, _, starred in binding.path if starred == -1]
            statement = binding.node
            if (
                binding.kind != "assign"
                or len(unpacked) != len(binding.path)
                or not isinstance(statement, (ast.Assign, ast.AnnAssign))
                or statement.value is None
                or len(_targets(statement)) != 1
            ):
                return None
            expr, key_list = statement.value, [*unpacked, *key_list]
        return None

    def _framed_argument(
        self, module: Module, name: ast.Name, parameter: ast.AST
    ) -> tuple[Module, ast.expr] | None:
        """The argument the caller's frame passed for `name`, a parameter of the function
        the walk's current frame runs (the walk's own state left as it was)."""
        saved = (self.depth, self.entered, self.label)
        self.entered = []
        try:
            step = self._argument(module, name, parameter, [], None)
        finally:
            self.depth, self.entered, self.label = saved
        return None if isinstance(step, (Unknown, Written)) else (step[0], step[1])

    def _literal_with(
        self,
        entered: list[tuple[ast.FunctionDef, ast.Call, Module, int]],
        module: Module,
        expr: ast.expr,
    ) -> tuple[Module, ast.expr] | None:
        saved = self.entered
        self.entered = list(entered)
        try:
            return self._literal(module, expr)
        finally:
            self.entered = saved

    def _elements(
        self, module: Module, expr: ast.expr, depth: int = 0
    ) -> list[tuple[Module, ast.expr]] | None:
        """The items of the list or tuple `expr` holds (`[*overrides, *extra]` spelled out),
        each with its module; None when jaxfix cannot list them."""
        found = self._literal(module, expr)
        if found is None or depth > 4:
            return None
        module, expr = found
        if not isinstance(expr, (ast.List, ast.Tuple)):
            return None
        items: list[tuple[Module, ast.expr]] = []
        for element in expr.elts:
            if isinstance(element, ast.Starred):
                inner = self._elements(module, element.value, depth + 1)
                if inner is None:
                    return None
                items.extend(inner)
            else:
                items.append((module, element))
        return items

    def _overridden(
        self, module: Module, name: ast.Name, keys: list[Key]
    ) -> Written | Unknown | None:
        """`raw["eval"]["mesh_shape"]` where the function, before this read, passes `raw` to
        a function of the tree in a `for override in overrides:` loop, that function splitting
        each item as `key=value` (the command-line override idiom: `"eval.mesh_shape=2,2"`):
        the last item whose dotted key is the entry read is where the value is written (a
        string jaxfix rewrites, its sizes checked against the run's by the rule), or, in an
        f-string reading the host (`f"eval.mesh_shape={4 * jax.process_count()},1"`), where
        it is computed; None when no item names the entry (or `raw` is passed to no such
        call). A call that may change `raw` in another way stops the walk."""
        function: ast.AST | None = module.parents.get(name)
        statement: ast.AST = name
        while function is not None and not isinstance(
            function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            statement = function
            function = module.parents.get(function)
        if not isinstance(function, ast.FunctionDef) or statement not in function.body:
            return None
        before = function.body[: function.body.index(statement)]
        passed = [
            node
            for earlier in before
            for node in ast.walk(earlier)
            if isinstance(node, ast.Call)
            and any(
                isinstance(a, ast.Name) and a.id == name.id
                for a in (*node.args, *(k.value for k in node.keywords))
            )
            and self._may_change(module, node)
        ]
        if not passed:
            return None
        where = f"{module.path.name}:{module.line(passed[0])}"
        loops = [
            s
            for s in before
            if isinstance(s, ast.For)
            and len(s.body) == 1
            and isinstance(s.body[0], ast.Expr)
            and s.body[0].value is passed[0]
        ]
        call = passed[0]
        if (
            len(passed) != 1
            or len(loops) != 1
            or not isinstance(loops[0].target, ast.Name)
            or loops[0].orelse
            or call.keywords
            or len(call.args) != 2
            or not isinstance(call.args[1], ast.Name)
            or call.args[1].id != loops[0].target.id
        ):
            return Unknown(
                f"`{name.id}` is passed to a call at {where}, which may change it"
            )
        callee = self.evaluator.value_of(module, call.func)
        splits = (
            {
                node.args[0].value
                for node in ast.walk(callee.node)
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "split"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            }
            if isinstance(callee, Function)
            else set()
        )
        if not {"=", "."} <= splits:
            return Unknown(
                f"`{name.id}` is passed to a call at {where}, which may change it"
            )
        items = self._elements(module, loops[0].iter)
        if items is None:
            return Unknown(
                f"`{name.id}` is changed by the overrides passed at {where}, which jaxfix cannot list"
            )
        dotted = ".".join(str(k) for k in keys)
        chosen: tuple[Module, ast.expr] | None = None
        for owner, item in items:
            head = item
            if isinstance(item, ast.JoinedStr):
                head = item.values[0] if item.values else item
            text = head.value if isinstance(head, ast.Constant) else None
            if not isinstance(text, str):
                return Unknown(
                    f"an override passed at {where} is not a string jaxfix reads"
                )
            if "=" not in text:
                if isinstance(item, ast.JoinedStr):
                    return Unknown(
                        f"an override passed at {where} names its key in a way jaxfix does not read"
                    )
                continue
            if text.split("=", 1)[0].strip() == dotted:
                chosen = (owner, item)
        if chosen is None:
            return None
        owner, item = chosen
        if isinstance(item, ast.JoinedStr):
            reads = [
                r
                for value in item.values
                if isinstance(value, ast.FormattedValue)
                for r in (
                    self._host_only(owner, value.value)
                    or self._host_bound(owner, value.value)
                    or []
                )
            ]
            if reads:
                text = _text(owner, item)
                shown = " and ".join(f"`{r}()`" for r in dict.fromkeys(reads))
                return Computed(
                    f"`{text}` at {owner.path.name}:{owner.line(item)} computes the size "
                    f"from {shown} when it runs",
                    owner,
                    item,
                    text,
                    tuple(dict.fromkeys(reads)),
                )
            return Unknown(
                f"the override `{_text(owner, item)}` at {owner.path.name}:{owner.line(item)} is an f-string"
            )
        if self.scalar:
            return Unknown(
                f"the override at {owner.path.name}:{owner.line(item)} holds every axis's size"
            )
        return Written(
            owner,
            item,
            _text(owner, item),
            why=f"`{name.id}` is changed by this override, passed at {where}",
            override=dotted,
        )

    def _may_change(self, module: Module, call: ast.Call) -> bool:
        """Whether `call` may change a mapping passed to it: a function of the tree that
        stores into an item or an attribute, or calls a mutating method (`setdefault`,
        `update`, ...); a call of anything else (a library's `print`, `json.dumps`) is taken
        to read it. (The fix is checked against the run's sizes where it is written, so a
        change jaxfix does not see makes no wrong edit.)"""
        callee = self.evaluator.value_of(module, call.func)
        if not isinstance(callee, Function):
            return False
        return any(
            (
                isinstance(node, (ast.Subscript, ast.Attribute))
                and isinstance(node.ctx, (ast.Store, ast.Del))
            )
            or (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _MUTATORS
            )
            for node in ast.walk(callee.node)
        )

    def _path_of(
        self, module: Module, expr: ast.expr, depth: int = 0
    ) -> tuple[int | None, str] | None:
        """A file path built from `__file__`'s folder (`Path(__file__).parent / "experiments"
        / f"{name}.toml"`, the names in it followed to their literals): how many folders up
        from the module it starts and the rest as `a/b.toml`; None for any other spelling."""
        if depth > 8:
            return None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
            left = self._path_of(module, expr.left, depth + 1)
            right = self._text_of(module, expr.right)
            if left is None or right is None or left[0] is None:
                return None
            return left[0], f"{left[1]}/{right}" if left[1] else right
        if (
            isinstance(expr, ast.Attribute)
            and expr.attr == "parent"
            and isinstance(expr.value, ast.Call)
            and self._qualified(module, expr.value.func)
            in ("pathlib.Path", "pathlib.PurePath")
            and len(expr.value.args) == 1
            and isinstance(expr.value.args[0], ast.Name)
            and expr.value.args[0].id == "__file__"
        ):
            return 1, ""
        if (  # `Path(__file__).parents[1]`: two folders up
            isinstance(expr, ast.Subscript)
            and isinstance(expr.value, ast.Attribute)
            and expr.value.attr == "parents"
            and isinstance(expr.slice, ast.Constant)
            and type(expr.slice.value) is int
            and 0 <= expr.slice.value < 8
            and self._path_of(
                module, ast.Attribute(value=expr.value.value, attr="parent"), depth + 1
            )
            == (1, "")
        ):
            return expr.slice.value + 1, ""
        if isinstance(expr, ast.Attribute) and expr.attr == "parent":
            inner = self._path_of(module, expr.value, depth + 1)
            if inner is None or inner[0] is None or inner[1]:
                return None
            return inner[0] + 1, ""
        if isinstance(expr, ast.Name):
            value = assigned_once(module, expr.id)
            if value is None:
                return None
            return self._path_of(module, value, depth + 1)
        return None

    def _text_of(self, module: Module, expr: ast.expr) -> str | None:
        """A string literal, or an f-string whose values are names holding string literals
        (followed as `_literal` does), as the string it is."""
        found = self._literal(module, expr)
        if found is None:
            return None
        owner, node = found
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if not isinstance(node, ast.JoinedStr):
            return None
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
                continue
            if (
                not isinstance(value, ast.FormattedValue)
                or value.format_spec is not None
                or value.conversion != -1
            ):
                return None
            text = self._text_of(owner, value.value)
            if text is None:
                return None
            parts.append(text)
        return "".join(parts)

    def _class_named(
        self, module: Module, expr: ast.expr, depth: int = 0
    ) -> Class | None:
        """The class `expr` names: the engine's value, else (a class decorated by
        `enum.unique`, which returns it as it is) the one class of that name defined at the
        top of the module the name leads to (`common.Preset`, `from common import Preset`,
        `Preset = common.Preset`)."""
        found = self.evaluator.value_of(module, expr)
        if isinstance(found, Class):
            return found
        if depth > 3:
            return None
        owner: Module | Unknown | None = None
        name = None
        if isinstance(expr, ast.Attribute):
            base = self.evaluator.value_of(module, expr.value)
            if isinstance(base, ModuleValue) and base.path is not None:
                owner, name = self._module(base.path), expr.attr
        elif isinstance(expr, ast.Name):
            bindings = self.evaluator.reaching(module, expr)
            if not bindings or len(bindings) != 1:
                return None
            (binding,) = bindings
            statement = module.parents.get(binding.node)
            if binding.kind == "import" and isinstance(statement, ast.ImportFrom):
                assert isinstance(binding.node, ast.alias)
                imported = self.evaluator.project.find(
                    statement.module or "", statement.level, module.path
                )
                if not isinstance(imported, Unknown) and imported.path is not None:
                    owner, name = self._module(imported.path), binding.node.name
            elif binding.kind == "class" and isinstance(binding.node, ast.ClassDef):
                owner, name = module, expr.id
            elif binding.kind == "assign" and not binding.path:
                value = assigned_once(module, expr.id)
                if value is not None:
                    return self._class_named(module, value, depth + 1)
        if owner is None or isinstance(owner, Unknown) or name is None:
            return None
        classes = [
            s for s in owner.tree.body if isinstance(s, ast.ClassDef) and s.name == name
        ]
        if (
            len(classes) != 1
            or assigned_once(owner, name) is not None
            or any(
                self._qualified(owner, d) != "enum.unique"
                for d in classes[0].decorator_list
            )
        ):
            return None
        return Class(classes[0], owner.path)

    def _member_property(
        self, module: Module, expr: ast.Attribute, keys: list[Key]
    ) -> tuple[Module, ast.expr] | None:
        """`Preset.NINE_B` read as `.config_dict`, a plain `@property` of the enum class whose
        body is one `match self:` with a `case Preset.NINE_B:` that returns one value: that
        value (what the property gives that member alone)."""
        if not keys or not isinstance(keys[0], _Field):
            return None
        cls = self._class_named(module, expr.value)
        if cls is None:
            return None
        owner = self._module(cls.path)
        if isinstance(owner, Unknown) or not any(
            self._qualified(owner, b) in _ENUMS for b in cls.node.bases
        ):
            return None
        members = [
            s
            for s in cls.node.body
            if isinstance(s, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == expr.attr for t in s.targets)
        ]
        getters = [
            s
            for s in cls.node.body
            if isinstance(s, ast.FunctionDef) and s.name == keys[0].name
        ]
        if len(members) != 1 or len(getters) != 1:
            return None
        (getter,) = getters
        body = getter.body[1:] if _docstring(getter.body) else getter.body
        if (
            [ast.unparse(d) for d in getter.decorator_list] != ["property"]
            or len(getter.args.args) != 1
            or len(body) != 1
            or not isinstance(match := body[0], ast.Match)
            or not isinstance(match.subject, ast.Name)
            or match.subject.id != getter.args.args[0].arg
        ):
            return None
        chosen = [
            case
            for case in match.cases
            if isinstance(case.pattern, ast.MatchValue)
            and isinstance(case.pattern.value, ast.Attribute)
            and case.pattern.value.attr == expr.attr
            and getattr(
                self._class_named(owner, case.pattern.value.value), "node", None
            )
            is cls.node
        ]
        if len(chosen) != 1 or chosen[0].guard is not None:
            return None
        returns = [s for s in chosen[0].body if isinstance(s, ast.Return)]
        if len(chosen[0].body) != 1 or len(returns) != 1 or returns[0].value is None:
            return None
        return owner, returns[0].value

    def _set_after(
        self, module: Module, name: ast.Name, keys: list[Key]
    ) -> tuple[ast.expr, list[Key]] | Unknown | None:
        """`config.evaluate.num_replicas = 1` in the function that reads `config` (the
        ConfigDict idiom: a config built, then changed field by field): the last assignment,
        in the function's own statements before the read, to `name` followed by a leading
        part of the fields still to read; None when there is none. Such an assignment in a
        branch or a loop stops the walk."""
        if not keys:
            return None
        function: ast.AST | None = module.parents.get(name)
        statement: ast.AST = name
        while function is not None and not isinstance(
            function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            statement = function
            function = module.parents.get(function)
        if not isinstance(function, ast.FunctionDef) or statement not in function.body:
            return None
        found: tuple[ast.expr, list[Key]] | None = None
        for earlier in function.body[: function.body.index(statement)]:
            for node in ast.walk(earlier):
                target = None
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = (
                        _targets(node)
                        if not isinstance(node, ast.AugAssign)
                        else [node.target]
                    )
                    target = targets[0] if len(targets) == 1 else None
                    chain = (
                        _stored_chain(target, name.id) if target is not None else None
                    )
                    if chain is None:
                        if any(_stored_chain(t, name.id) is not None for t in targets):
                            return Unknown(
                                f"`{name.id}` is assigned with others at {module.path.name}:{module.line(node)}"
                            )
                        continue
                    if chain and chain == keys[: len(chain)]:
                        if node is not earlier or isinstance(node, ast.AugAssign):
                            return Unknown(
                                f"`{_text(module, node)}` is set in a branch or a loop at {module.path.name}:{module.line(node)}"
                            )
                        assert node.value is not None and target is not None
                        found = (node.value, keys[len(chain) :])
                        self.label = _text(module, target)
        return found

    def _own_method(self, module: Module, call: ast.Call) -> Function | None:
        """`cls.build(...)` in a classmethod of a class of this module (`cls` not assigned
        there): that class's own classmethod `build` (its `cls` is the same class)."""
        func = call.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return None
        cls = self._own_class(
            module, ast.Call(func=func.value, args=[], keywords=[]), call
        )
        if cls is None:
            return None
        methods = [
            s
            for s in cls.node.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and s.name == func.attr
        ]
        if (
            len(methods) != 1
            or not isinstance(methods[0], ast.FunctionDef)
            or not any(
                isinstance(d, ast.Name) and d.id == "classmethod"
                for d in methods[0].decorator_list
            )
            or len(methods[0].decorator_list) != 1
        ):
            return None
        return Function(methods[0], module.path)

    def _own_class(
        self, module: Module, call: ast.Call, at: ast.AST | None = None
    ) -> Class | None:
        """`cls(...)` in a classmethod of a class of this module: that class (`at`: the
        node `call` stands for, when it is made for the question)."""
        if not isinstance(call.func, ast.Name):
            return None
        node: ast.AST | None = module.parents.get(at or call)
        while node is not None and not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            node = module.parents.get(node)
        owner = module.parents.get(node) if node is not None else None
        if (
            not isinstance(node, ast.FunctionDef)
            or not isinstance(owner, ast.ClassDef)
            or not node.args.args
            or node.args.args[0].arg != call.func.id
            or not any(
                isinstance(d, ast.Name) and d.id == "classmethod"
                for d in node.decorator_list
            )
            or assigns(node, call.func.id)
        ):
            return None
        return Class(owner, module.path)

    def _only_call(
        self,
        found: Written | Unknown,
        function: ast.FunctionDef,
        module: Module,
        where: str,
        called: str | None = None,
    ) -> Written | Unknown:
        """A value written in the body of a function the walk went into (not passed in by
        the call) is what every call of it gets: changed only when the project calls it at
        this one place, else the walk stops there, naming it."""
        if isinstance(found, Unknown) or found.module is not module:
            return found
        line = found.module.line(found.node)
        if not function.lineno <= line <= (function.end_lineno or function.lineno):
            return found
        name = called or function.name
        if id(found.node) in self.defaults_taken and _in_defaults(found.node, function):
            # a parameter's default `_default_followed` took: it counted the calls
            return found
        if found.data is not None and any(
            self._attribute_reads(field) == 1 for field in self.fields
        ):
            # The entry is read from the file on every call, but what the call returns
            # reaches a mesh only through `.field`, read once in the project: on this path
            return found
        if name in self.tabled:
            # called through a table entry (`CONFIGS[name]()`): changed only when that entry
            # is the one place the project names it (every call of it goes through there);
            # calls of another function of that name (`base.get_config()`) are not its
            if (
                self._call_count(name, function) == 0
                and self._count(
                    name,
                    lambda node: isinstance(node, ast.Name) and node.id == name,
                    name.encode(),
                )
                + self._count(
                    name,
                    lambda node: isinstance(node, ast.Attribute) and node.attr == name,
                    name.encode(),
                    function,
                )
                == 1
            ):
                return found
            return Unknown(
                f"the sizes at {module.path.name}:{line} are what every call of `{name}` "
                f"gets, and the project names it elsewhere too (here through a table at {where}): not changed"
            )
        if self._call_count(name, function) != 1 and not self._keyed_return(
            found.node, function, module, name
        ):
            return Unknown(
                f"the sizes at {module.path.name}:{line} are what every call of `{name}` "
                f"gets, and it is called elsewhere too (here at {where}): not changed"
            )
        return found

    def _keyed_return(
        self, node: ast.AST, function: ast.FunctionDef, module: Module, name: str
    ) -> bool:
        """Whether `node` is reached only in a branch taken for one value of a parameter
        (`if accel == "v5e-4": return (2, 2)`, `elif`, `case "v5e-4":`), and of the project's
        calls of the function only one may pass that value (the others pass another literal):
        what the branch returns then reaches the run's path alone."""
        keyed = _branch_key(module, node, function)
        if keyed is None:
            return False
        parameter, value = keyed
        names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        if parameter not in names or assigns(function, parameter):
            return False
        method = bool(names) and names[0] in ("self", "cls")

        def passes(call: ast.Call) -> bool:
            """Whether the call may pass the branch's value (a call jaxfix cannot bind may)."""
            skipped = 1 if method and isinstance(call.func, ast.Attribute) else 0
            bound = _bound(call, function, skipped)
            if not isinstance(bound, dict):
                return True
            given = bound.get(parameter)
            if given is None:
                default = _default(function, parameter)
                return not (
                    isinstance(default, ast.Constant) and default.value != value
                )
            return not (isinstance(given, ast.Constant) and given.value != value)

        count = self._count(
            name,
            lambda node: (
                isinstance(node, ast.Call)
                and (
                    (isinstance(node.func, ast.Name) and node.func.id == name)
                    or (isinstance(node.func, ast.Attribute) and node.func.attr == name)
                )
                and passes(node)
            ),
            name.encode(),
            function,
        )
        # the function named other than in a call (`fn = mesh_shape`, a table of them) may
        # be called where jaxfix does not count
        named = self._count(
            name,
            lambda node: (
                (
                    (isinstance(node, ast.Name) and node.id == name)
                    or (isinstance(node, ast.Attribute) and node.attr == name)
                )
                and isinstance(getattr(node, "ctx", None), ast.Load)
            ),
            name.encode(),
            function,
        )
        return count == 1 and named == self._call_count(name, function)

    def _call_count(self, name: str, function: ast.AST | None = None) -> int:
        """How many calls of a function or class of that name the project's files hold (0:
        too many files to count); with `function`, a call through an attribute
        (`module.name()`) that surely calls another function is not counted."""
        return self._count(
            name,
            lambda node: (
                isinstance(node, ast.Call)
                and (
                    (isinstance(node.func, ast.Name) and node.func.id == name)
                    or (isinstance(node.func, ast.Attribute) and node.func.attr == name)
                )
            ),
            name.encode(),
            function,
        )

    def _nested_default(
        self,
        owner: Module,
        default: ast.expr,
        field: str,
        keys: list[Key],
        narrowest: Written | None,
    ) -> Written | Unknown:
        """A field whose default is itself a construction, read further (`.eval_mesh.shape`):
        the value is written in that default, which every instance built without the field
        shares. It is changed there only when no other code of the project reads `.field`
        (so no mesh that works is built from it), else the walk stops there, naming it."""
        where = f"{owner.path.name}:{owner.line(default)}"
        qualified, field = field, field.rsplit(".", 1)[-1]
        readers = self._attribute_reads(field)
        if readers != 1:
            return Unknown(
                f"the default of `{field}` at {where} is shared by every instance, and "
                f"`.{field}` is read {'in more than one place' if readers else 'where jaxfix cannot count'}: "
                "give the construction its own"
            )
        found = self._follow(owner, default, keys[1:], None)
        if isinstance(found, Unknown):
            return found
        rest = "".join(f".{k.name}" for k in keys[1:] if isinstance(k, _Field))
        return narrowest or replace(
            found,
            name=f"{qualified}{rest}",
            why=f"the default of `{field}` ({where}) is changed: the run's path is the one "
            f"read of `.{field}` in the project",
        )

    def _attribute_reads(self, name: str) -> int:
        """How many reads of `.name` the project's files hold (0: too many files to count)."""
        return self._count(
            name,
            lambda node: (
                isinstance(node, ast.Attribute)
                and node.attr == name
                and isinstance(node.ctx, ast.Load)
            ),
            f".{name}".encode(),
        )

    def _count(
        self,
        name: str,
        matches: Callable[[ast.AST], bool],
        needle: bytes,
        function: ast.AST | None = None,
    ) -> int:
        """How many nodes `matches` accepts in the project's files that hold `needle` (0:
        too many files, or one that cannot be read: nothing counted); with `function`, an
        attribute (or a call of one) whose value the engine shows to be another function or
        class is not counted."""
        files = self.evaluator.project.files
        if len(files) > _MAX_FILES_COUNTED:
            return 0
        count = 0
        for path in files:
            try:
                if needle not in path.read_bytes():
                    continue
            except OSError:
                return 0
            module = self._module(path)
            if isinstance(module, Unknown):
                return 0
            count += sum(
                1
                for node in ast.walk(module.tree)
                if matches(node) and not self._other(module, node, function)
            )
        return count

    def _super_elsewhere(
        self, module: Module, attribute: ast.Attribute, function: ast.AST
    ) -> bool:
        """Whether `attribute` is `super().name` in a method of a class C that surely does not
        reach `function` so: `super()` looks past C, at C's bases, none of which (each one
        the engine knows, followed up) defines `function`."""
        value = attribute.value
        if not (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "super"
            and not value.args
        ):
            return False
        node: ast.AST | None = attribute
        while node is not None and not isinstance(node, ast.ClassDef):
            node = module.parents.get(node)
        if node is None:
            return False
        pending = [(module, base) for base in node.bases]
        seen: set[int] = set()
        while pending:
            owner, base = pending.pop()
            found = self.evaluator.value_of(owner, base)
            if not isinstance(found, Class):
                return False  # a base the engine does not know may define it
            if id(found.node) in seen:
                continue
            seen.add(id(found.node))
            if function in found.node.body or len(seen) > _MAX_STEPS:
                return False
            defining = self._module(found.path)
            if isinstance(defining, Unknown):
                return False
            pending += [(defining, b) for b in found.node.bases]
        return True

    def _other(self, module: Module, node: ast.AST, function: ast.AST | None) -> bool:
        """Whether `node` (an attribute, or a call of one or of a name) surely names another
        function or class than `function` (a parameter called by the name the function has:
        a registering decorator's `get_config()`)."""
        if function is None:
            return False
        attribute = node.func if isinstance(node, ast.Call) else node
        if isinstance(attribute, ast.Name) and isinstance(node, ast.Call):
            named = self.evaluator.value_of(module, attribute)
            if isinstance(named, (Function, Class)):
                return named.node is not function
            return self._decorated_only(module, attribute, function)
        if not isinstance(attribute, ast.Attribute):
            return False
        if self._super_elsewhere(module, attribute, function):
            return True
        value = self.evaluator.value_of(module, attribute)
        if isinstance(value, Unknown):
            value = self._imported_function(module, attribute) or value
        target = (
            value.node
            if isinstance(value, (Function, Class))
            else value.function.node
            if isinstance(
                value, BoundMethod
            )  # `obj.method()` of a known object's class
            else None
        )
        return target is not None and target is not function

    def _decorated_only(
        self, module: Module, name: ast.Name, function: ast.AST
    ) -> bool:
        """Whether `name` is the one parameter of a decorator (`def _register(get_config)`,
        never assigned in it) whose every use in the project decorates a function of its
        module other than `function`: it names the function it decorates."""
        decorator = module.scope_of(name)
        if not (
            isinstance(decorator, ast.FunctionDef)
            and [a.arg for a in decorator.args.args] == [name.id]
            and not decorator.args.kwonlyargs
            and not decorator.args.posonlyargs
            and not assigns(decorator, name.id)
        ):
            return False
        decorations = [
            (n, d)
            for n in ast.walk(module.tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            for d in n.decorator_list
            if isinstance(d, ast.Name) and d.id == decorator.name
        ]
        uses = self._count(
            decorator.name,
            lambda n: (
                (isinstance(n, ast.Name) and n.id == decorator.name)
                or (isinstance(n, ast.Attribute) and n.attr == decorator.name)
            ),
            decorator.name.encode(),
        )
        return (
            bool(decorations)
            and all(n is not function for n, _ in decorations)
            and uses == len(decorations)
        )

    def _data_file(
        self, module: Module, loader: ast.Call, keys: list[Key]
    ) -> Written | Unknown:
        """`json.load(f)` (`with open("x.json") as f`), `json.load(open("x.json"))`,
        `json.loads(Path("x.json").read_text())`, `yaml.safe_load(f)` likewise, the file named
        by one string literal (through
        names assigned once): the entry `keys` of that file."""
        where = f"{module.path.name}:{module.line(loader)}"
        read = [k for k in keys if not isinstance(k, _Field)]
        qualified = self._qualified(module, loader.func)
        kind = (
            "yaml"
            if qualified in _YAML_LOADERS
            else "toml"
            if qualified in _TOML_LOADERS
            else "json"
        )
        suffixes = {"yaml": (".yaml", ".yml"), "toml": (".toml",)}.get(kind, (".json",))
        given = [a for a in loader.args if not isinstance(a, ast.Starred)]
        if kind == "yaml" and len(loader.args) == 2:  # yaml.load(f, Loader)
            given = given[:1]
        if (
            len(read) != len(keys)
            or len(given) != 1
            or len(loader.args) > (2 if kind == "yaml" else 1)
            or any(k.arg != "Loader" for k in loader.keywords)
        ):
            return Unknown(
                f"the {kind.upper()} read at {where} is not one file's entry by keys"
            )
        opened = self._opened(module, given[0])
        path_given = (
            opened.args[0]
            if isinstance(opened, ast.Call)
            and opened.args
            and self._qualified(module, opened.func) in ("builtins.open", "io.open")
            else opened.func.value
            if isinstance(opened, ast.Call)
            and isinstance(opened.func, ast.Attribute)
            and opened.func.attr in ("read_text", "read_bytes", "open")
            and not opened.args
            else opened
        )
        placed = self._path_of(module, path_given)
        if placed is not None and placed[1].endswith(suffixes):
            up, name = placed
            label = "".join(_shown(k) for k in read)
            self.modules.setdefault(module.path, module)
            other = self._other_read(
                tuple(k for k in read if not isinstance(k, _Field))
            )
            if other is not None and not self.valuing:
                return Unknown(
                    f"the entry {name}{label} is also read at {other}: a mesh that works may read it, so it is not changed"
                )
            return Written(
                module,
                loader,
                f"{name}{label}",
                axis=self.axis if self.scalar else None,
                data=DataFile(
                    name,
                    up,
                    tuple(k for k in read if not isinstance(k, _Field)),
                    kind,
                ),
            )
        parts = [opened]
        for part in parts:  # grows: the names read in each part, resolved
            if len(parts) > _MAX_STEPS:
                break
            for node in ast.walk(part):
                if isinstance(node, ast.Name):
                    resolved = self._parameter_value(module, node)
                    if resolved is None:
                        resolved = written_as(self.evaluator, module, node)
                    if resolved is not node and resolved not in parts:
                        parts.append(resolved)
        nodes = [n for part in parts for n in ast.walk(part)]
        if any(isinstance(n, ast.JoinedStr) for n in nodes):
            return Unknown(
                f"the {kind.upper()} read at {where} names its file with an f-string jaxfix does not follow"
            )
        literals = [
            n
            for n in nodes
            if isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            and n.value.endswith(suffixes)
        ]
        names = sorted({_joined(self, module, n, nodes) for n in literals})
        if len(names) != 1:
            return Unknown(
                f"the {kind.upper()} read at {where} does not name its file by one literal"
            )
        beside = None
        if any(isinstance(n, ast.Name) and n.id == "__file__" for n in nodes):
            beside = sum(  # Path(__file__).parent.parent, os.path.dirname(__file__)
                1
                for n in nodes
                if (isinstance(n, ast.Attribute) and n.attr == "parent")
                or (
                    isinstance(n, ast.Call)
                    and self._qualified(module, n.func)
                    in ("os.path.dirname", "posixpath.dirname")
                )
                or (isinstance(n, ast.Attribute) and n.attr == "with_name")
            )
            if not beside:
                return Unknown(
                    f"the {kind.upper()} read at {where} names its file from `__file__` in a way jaxfix does not follow"
                )
        label = "".join(_shown(k) for k in read)
        self.modules.setdefault(module.path, module)
        other = self._other_read(tuple(k for k in read if not isinstance(k, _Field)))
        if other is not None and not self.valuing:
            return Unknown(
                f"the entry {names[0]}{label} is also read at {other}: a mesh that works may read it, so it is not changed"
            )
        return Written(
            module,
            loader,
            f"{names[0]}{label}",
            axis=self.axis if self.scalar else None,
            data=DataFile(
                names[0],
                beside,
                tuple(k for k in read if not isinstance(k, _Field)),
                kind,
            ),
        )

    def _parameter_value(self, module: Module, name: ast.Name) -> ast.expr | None:
        """A parameter of the function the walk went into by a call (the run had returned
        from it): the argument that call passes, else the parameter's default; None when
        `name` is no such parameter."""
        if not self.entered:
            return None
        bindings = self.evaluator.reaching(module, name)
        if not bindings or len(bindings) != 1:
            return None
        (binding,) = bindings
        if binding.kind != "param":
            return None
        function = module.parents.get(module.parents.get(binding.node, binding.node))
        entered, call, _, skipped = self.entered[-1]
        if function is not entered:
            return None
        bound = _bound(call, entered, skipped)
        if not isinstance(bound, dict):
            return None
        if name.id in bound:
            return bound[name.id]
        arguments = entered.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = dict(
            zip(
                [
                    p.arg
                    for p in positional[len(positional) - len(arguments.defaults) :]
                ],
                arguments.defaults,
            )
        )
        defaults.update(
            {
                p.arg: d
                for p, d in zip(arguments.kwonlyargs, arguments.kw_defaults)
                if d is not None
            }
        )
        return defaults.get(name.id)

    def _other_read(self, keys: tuple[str | int, ...]) -> str | None:
        """Where a module the walk went through reads the entry off the run's path: a read by
        literal keys that are the entry's first keys (`STAGES["serve"]` passed to another
        factory) or its last (`stage["mesh_shape"]` in another function)."""
        for module in self.modules.values():
            inner = {
                n.value for n in ast.walk(module.tree) if isinstance(n, ast.Subscript)
            }
            for node in ast.walk(module.tree):
                if (
                    not isinstance(node, ast.Subscript)
                    or not isinstance(node.ctx, ast.Load)  # a store reads nothing
                    or node in inner
                    or node in self.read
                ):
                    continue
                chain: list[str | int] = []
                current: ast.expr = node
                while isinstance(current, ast.Subscript):
                    key = _key(current.slice)
                    if key is None or current in self.read:
                        break
                    chain.insert(0, key)
                    current = current.value
                else:
                    n = len(chain)
                    if chain and (
                        tuple(chain) == keys[:n] or tuple(chain) == keys[-n:]
                    ):
                        return f"{module.path.name}:{module.line(node)}"
        return None

    def _opened(self, module: Module, argument: ast.expr) -> ast.expr:
        """For `with open(path) as f`, `open(path)`; else the argument as written."""
        if isinstance(argument, ast.Name):
            bindings = self.evaluator.reaching(module, argument)
            if bindings and len(bindings) == 1:
                (binding,) = bindings
                if binding.kind == "with" and isinstance(
                    binding.node, (ast.With, ast.AsyncWith)
                ):
                    for item in binding.node.items:
                        target = item.optional_vars
                        if isinstance(target, ast.Name) and target.id == argument.id:
                            return item.context_expr
        return written_as(self.evaluator, module, argument)

    def _qualified(self, module: Module, expr: ast.expr) -> str | None:
        name = getattr(self.evaluator.value_of(module, expr), "name", None)
        return name if isinstance(name, str) else None

    def _shared(
        self,
        module: Module,
        read: ast.expr,
        owner: Module,
        name: str,
        keys: list[Key],
    ) -> Written | None:
        """The read itself, when `name` holds the sizes (no key left to read) and other code of
        these modules reads it too: the value is then replaced at this read only. Not while
        following a device array: the name holds devices, not the sizes."""
        if self.devices:
            return None
        self.label = f"{name}{''.join(_shown(k) for k in keys)}"
        if keys:
            return None
        mine = (
            self.evaluator.reaching(module, read)
            if isinstance(read, ast.Name) and owner is module
            else None
        )
        others = [
            (m, r)
            for m in dict.fromkeys((module, owner))
            for r in m.loads_by_name.get(name, ())
            if r is not read
            and not self._other_binding(m, r, mine)
            and not _inspected_only(m, r)
        ]
        if not others:
            return None
        holder, first = others[0]
        return Written(
            module,
            read,
            _text(module, read),
            why=f"`{name}` is also read at {holder.path.name}:{holder.line(first)}: the sizes are replaced at this read only",
        )

    def _other_binding(
        self, module: Module, read: ast.AST, mine: frozenset[object] | None
    ) -> bool:
        """Whether `read` surely sees none of the bindings `mine` (a local of the same name
        in another function is another variable; `obj.name` never reads a local `name`)."""
        if not mine:
            return False
        if not isinstance(read, ast.Name):
            return isinstance(read, ast.Attribute) and all(
                isinstance(b, Binding)
                and isinstance(
                    module.scope_of(b.node), (ast.FunctionDef, ast.AsyncFunctionDef)
                )
                for b in mine
            )
        theirs = self.evaluator.reaching(module, read)
        return theirs is not None and not (theirs & mine)

    def _api(self, module: Module, expr: ast.expr) -> Api | None:
        value = self.evaluator.value_of(module, expr)
        name = getattr(value, "name", None)
        return api_of(name) if isinstance(name, str) else None


def _returned_closure(function: ast.FunctionDef, line: int) -> ast.FunctionDef | None:
    """The function defined in `function`'s body, holding `line`, that `function` returns
    by name (`def callback(...): ...` then `return callback`): a frame on `line` runs that
    closure, made by a call of `function` the frames do not show."""
    for statement in function.body:
        if (
            isinstance(statement, ast.FunctionDef)
            and statement.lineno <= line <= (statement.end_lineno or statement.lineno)
            and not statement.decorator_list
        ):
            returned = _returns(function)
            if returned and all(
                isinstance(r, ast.Name) and r.id == statement.name for r in returned
            ):
                return statement
    return None


def _passing_one_name(
    calls: list[tuple[ast.Call, int]],
    function: ast.FunctionDef,
    parameter: str,
) -> list[tuple[ast.Call, int]]:
    """`calls` (several of `function` on one line) reduced to the first when each passes the
    same local or global name for `parameter`, one the line does not assign: they pass one
    value."""
    passed = []
    for call, skipped in calls:
        bound = _bound(call, function, skipped)
        argument = bound.get(parameter) if isinstance(bound, dict) else None
        if not isinstance(argument, ast.Name):
            return calls
        passed.append(argument.id)
    if len(set(passed)) != 1 or any(
        isinstance(node, ast.NamedExpr) for call, _ in calls for node in ast.walk(call)
    ):
        return calls
    return calls[:1]


def _bound(
    call: ast.Call, function: ast.FunctionDef | ast.AsyncFunctionDef, skipped: int
) -> dict[str, ast.expr] | str | None:
    """`call`'s arguments by `function`'s parameter names, the first `skipped` of them not
    passed (`self`: bound to the receiver, `call.func`'s object); a string: why not.

    As Python binds them: a `*seq` argument passes its items to the positional parameters
    from its place on (parameter `i` gets `seq[i - place]`); the `**kwargs` parameter gets
    the keywords no parameter names (`{"shape": ...}`, with a `**mapping` argument's items
    first); a `**mapping` argument gives each parameter no other argument passes its entry of
    that name (`mapping["shape"]`). These are expressions made for the walk, placed at the
    argument they read."""
    args = function.args
    names = [p.arg for p in (*args.posonlyargs, *args.args)][skipped:]
    keyword_only = [p.arg for p in args.kwonlyargs]
    starred = [i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)]
    spread = [k.value for k in call.keywords if k.arg is None]
    if (
        not starred
        and not spread
        and not args.kwarg
        and (not args.vararg or len(call.args) <= len(names))
    ):
        signature = Signature(
            tuple(names),
            tuple(keyword_only),
            max(len(args.posonlyargs) - skipped, 0),
        )
        bound = bind_arguments(call, signature)
    else:
        spread_bound = _bound_spread(call, function, names, keyword_only, skipped)
        if isinstance(spread_bound, str):
            return spread_bound
        bound = spread_bound
    if bound is not None and skipped and isinstance(call.func, ast.Attribute):
        first = [p.arg for p in (*args.posonlyargs, *args.args)]
        if first:
            bound = {first[0]: call.func.value, **bound}
    return bound


def _bound_spread(
    call: ast.Call,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    names: list[str],
    keyword_only: list[str],
    skipped: int,
) -> dict[str, ast.expr] | str | None:
    """`_bound` for a call that unpacks `*seq` or `**mapping`, or a function taking
    `**kwargs` (or more positional arguments into `*args`)."""
    args = function.args
    bound: dict[str, ast.expr] = {}
    positional_only = max(len(args.posonlyargs) - skipped, 0)
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            if index != len(call.args) - 1:
                return f"`{function.name}` is called with `*` before other arguments"
            for offset, name in enumerate(names[index:]):
                item = ast.Subscript(
                    value=arg.value, slice=ast.Constant(offset), ctx=ast.Load()
                )
                bound[name] = ast.copy_location(item, arg)
            break
        if index >= len(names):
            if args.vararg is None:
                return None
            break  # into `*args`, which the walk does not follow
        bound[names[index]] = arg
    extra: list[ast.keyword] = []
    for keyword in call.keywords:
        given = keyword.arg
        if given is None:
            continue
        if given in names[:positional_only] or (
            given not in names and given not in keyword_only
        ):
            if args.kwarg is None:
                return None
            extra.append(keyword)
            continue
        if given in bound and not isinstance(bound[given], ast.Subscript):
            return None
        bound[given] = keyword.value
    spread = [k.value for k in call.keywords if k.arg is None]
    if len(spread) > 1:
        return f"`{function.name}` is called with more than one `**` argument"
    if spread:
        for name in [*names[positional_only:], *keyword_only]:
            if name not in bound:
                item = ast.Subscript(
                    value=spread[0], slice=ast.Constant(name), ctx=ast.Load()
                )
                bound[name] = ast.copy_location(item, spread[0])
    if args.kwarg is not None:
        entries = ast.Dict(
            keys=[*([None] if spread else []), *(ast.Constant(k.arg) for k in extra)],
            values=[*spread, *(k.value for k in extra)],
        )
        bound[args.kwarg.arg] = ast.copy_location(entries, call)
    return bound


def _self_stores(
    cls: ast.ClassDef, init: ast.FunctionDef, me: str, name: str
) -> tuple[list[ast.Attribute], list[ast.expr]]:
    """Every store of `.name` in the class's body, and the values `init`'s own statements
    `me.name = value` assign."""
    sets = [
        node
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute)
        and node.attr == name
        and not isinstance(node.ctx, ast.Load)
    ]
    values = [
        s.value
        for s in init.body
        if isinstance(s, (ast.Assign, ast.AnnAssign))
        and s.value is not None
        and len(targets := _targets(s)) == 1
        and isinstance(t := targets[0], ast.Attribute)
        and t.attr == name
        and isinstance(t.value, ast.Name)
        and t.value.id == me
    ]
    return sets, values


def _super_init_of(call: ast.Call, kwargs: str) -> bool:
    """Whether `call` is `super().__init__(**kwargs)`."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and _is_super(func.value)
        and not call.args
        and len(call.keywords) == 1
        and call.keywords[0].arg is None
        and isinstance(spread := call.keywords[0].value, ast.Name)
        and spread.id == kwargs
    )


def _is_super(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "super"
        and not node.args
        and not node.keywords
    )


def _updated_sizes(call: ast.Call) -> ast.expr | None:
    """The `axis_sizes` of `mesh.update(axis_sizes=...)` (`AbstractMesh.update`)."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr != "update":
        return None
    args = bind_arguments(call, MESH_UPDATE)
    return args.get("axis_sizes") if args else None


def _got_key(node: ast.expr) -> str | None:
    """`mapping.get("key")` or `mapping.get("key", default)`: "key"."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and not node.keywords
        and 1 <= len(node.args) <= 2
        and isinstance(key := node.args[0], ast.Constant)
        and isinstance(key.value, str)
    ):
        return key.value
    return None


def _entry(node: ast.Dict, key: str) -> tuple[ast.expr, bool] | None:
    """The value a dict display gives `key`: its one entry of that key after its last
    `**mapping` (`(value, False)`), else that mapping, when it is the display's only one and
    no entry before it names the key (`(mapping, True)`: the key is still to read there);
    None otherwise."""
    spread = [i for i, k in enumerate(node.keys) if k is None]
    after = spread[-1] + 1 if spread else 0
    named = [
        node.values[i]
        for i in range(after, len(node.keys))
        if _key(node.keys[i]) == key
    ]
    before = [
        i
        for i in range(after)
        if node.keys[i] is not None and _key(node.keys[i]) == key
    ]
    if named:
        return (named[0], False) if len(named) == 1 else None
    if len(spread) != 1 or before:
        return None
    return node.values[spread[0]], True


def _copied_items(node: ast.DictComp) -> ast.expr | None:
    """`raw` of `{k: v for k, v in raw.items() if ...}`: a comprehension keeping some of a
    mapping's entries as they are (its conditions only drop entries); None for any other."""
    if len(node.generators) != 1:
        return None
    (loop,) = node.generators
    if (
        loop.is_async
        or not isinstance(loop.target, ast.Tuple)
        or len(loop.target.elts) != 2
        or not all(isinstance(e, ast.Name) for e in loop.target.elts)
        or not isinstance(loop.iter, ast.Call)
        or not isinstance(loop.iter.func, ast.Attribute)
        or loop.iter.func.attr != "items"
        or loop.iter.args
        or loop.iter.keywords
    ):
        return None
    key, value = (e.id for e in loop.target.elts)  # type: ignore[attr-defined]  # both Names, checked above
    if (
        not isinstance(node.key, ast.Name)
        or node.key.id != key
        or not isinstance(node.value, ast.Name)
        or node.value.id != value
        or key == value
    ):
        return None
    return loop.iter.func.value


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _iterated_by(module: Module, name: ast.Name) -> ast.expr | None:
    """What a comprehension around `name` iterates when `name` is its one loop's variable
    (`e` of `[e(x) for e in FNS]`); None when it is not."""
    node: ast.AST | None = module.parents.get(name)
    while node is not None and not isinstance(node, ast.stmt):
        if isinstance(node, _COMPREHENSIONS):
            loops = [
                g
                for g in node.generators
                if isinstance(g.target, ast.Name) and g.target.id == name.id
            ]
            if loops:
                return loops[0].iter if len(node.generators) == 1 else None
        node = module.parents.get(node)
    return None


def _class_body_value(cls: ast.ClassDef, name: str) -> ast.expr | None:
    """The value `cls`'s own body assigns `name` (`NAME = ...`, `NAME: T = ...`)."""
    values = [
        s.value
        for s in cls.body
        if isinstance(s, (ast.Assign, ast.AnnAssign))
        and s.value is not None
        and any(isinstance(t, ast.Name) and t.id == name for t in _targets(s))
    ]
    return values[-1] if values else None


def _called_name(func: ast.expr) -> str | None:
    """The last name of what a call calls (`f` of `f(...)`, `m.f(...)`)."""
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _sets_attribute(cls: ast.ClassDef, name: str) -> bool:
    """Whether code of `cls` stores `.name` (on an instance: `self.name = ...`)."""
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == name
        and not isinstance(node.ctx, ast.Load)
        for node in ast.walk(cls)
    )


def _defines_flag(name: str | None) -> bool:
    """Whether `name` is absl's `flags.DEFINE_integer` (or another `DEFINE_*`)."""
    return name is not None and name.startswith("absl.flags.DEFINE_")


def _flag_default_argument(call: ast.Call) -> ast.expr | None:
    """The default given to `flags.DEFINE_*(name, default, help)`."""
    given = [k.value for k in call.keywords if k.arg == "default"]
    if given:
        return given[0]
    if len(call.args) >= 2 and not any(isinstance(a, ast.Starred) for a in call.args):
        return call.args[1]
    return None


def _parsed_flag(call: ast.Call, keys: list[Key]) -> str | None:
    """`tp_size` of `parser.parse_args(...)` read as `.tp_size` (or of
    `parser.parse_known_args(...)` read as `[0].tp_size`)."""
    if not isinstance(call.func, ast.Attribute) or call.keywords or len(call.args) > 1:
        return None
    if call.func.attr == "parse_args" and isinstance(keys[0], _Field):
        return keys[0].name
    if (
        call.func.attr == "parse_known_args"
        and keys[0] == 0
        and len(keys) > 1
        and isinstance(keys[1], _Field)
    ):
        return keys[1].name
    return None


def _option_of(call: ast.Call, dest: str) -> tuple[str, ...] | None:
    """The option strings of `parser.add_argument("--tp-size", ...)` when its destination
    is `dest` (argparse's rule: `dest=`, else the first long option, `-` read as `_`)."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr != "add_argument":
        return None
    strings = tuple(
        a.value
        for a in call.args
        if isinstance(a, ast.Constant) and isinstance(a.value, str)
    )
    if len(strings) != len(call.args) or not strings:
        return None
    given = [k.value for k in call.keywords if k.arg == "dest"]
    if given:
        named = given[0]
        chosen = named.value if isinstance(named, ast.Constant) else None
    else:
        long = [s for s in strings if s.startswith("--")]
        first = long[0] if long else strings[0]
        chosen = first.lstrip("-").replace("-", "_")
    return strings if chosen == dest else None


def _read_by_key(node: ast.DictComp) -> tuple[ast.expr, bool] | None:
    """`args` of `{a: getattr(args, a) for a in attrs if ...}` (with True: each entry is the
    attribute of its name) or of `{k: raw[k] for k in keys}` (False: the entry of its name);
    None for any other comprehension."""
    if len(node.generators) != 1:
        return None
    (loop,) = node.generators
    if (
        loop.is_async
        or not isinstance(loop.target, ast.Name)
        or not isinstance(node.key, ast.Name)
        or node.key.id != loop.target.id
    ):
        return None
    name = loop.target.id
    value = node.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "getattr"
        and len(value.args) == 2
        and not value.keywords
        and isinstance(value.args[1], ast.Name)
        and value.args[1].id == name
        and not _mentions(value.args[0], name)
    ):
        return value.args[0], True
    if (
        isinstance(value, ast.Subscript)
        and isinstance(value.slice, ast.Name)
        and value.slice.id == name
        and not _mentions(value.value, name)
    ):
        return value.value, False
    return None


def _literal_value(node: ast.expr) -> int | tuple[int, ...] | None:
    """An integer literal's value, or a tuple (list) of integer literals' as a tuple."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)) and _integers(node):
        return tuple(e.value for e in node.elts)  # type: ignore[attr-defined]  # Constants: _integers
    return None


_NOT_CONSTANT = object()
_COMPARISONS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}


def _constant(node: ast.expr) -> object:
    """The value of an integer, None or bool literal (`-1` too); `_NOT_CONSTANT` else."""
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    if isinstance(node, ast.Constant) and (
        node.value is None or type(node.value) in (int, bool)
    ):
        return node.value
    return _NOT_CONSTANT


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def _shown_entry(table: ast.Dict, entry: ast.expr) -> str:
    key = next(k for k, v in zip(table.keys, table.values) if v is entry)
    return repr(_key(key)) if key is not None else "?"


def _none_guarded(
    module: Module, bindings: frozenset[Binding], name: str
) -> Binding | None:
    """Of a parameter's two reaching bindings, itself and `name = default` alone in an
    `if name is None:` (no `else`), the parameter's binding: the value is the argument
    whenever the caller passes one other than `None`; None for any other bindings."""
    if len(bindings) != 2:
        return None
    params = [b for b in bindings if b.kind == "param"]
    assigns = [b for b in bindings if b.kind == "assign" and not b.path]
    if len(params) != 1 or len(assigns) != 1:
        return None
    statement = assigns[0].node
    guard = module.parents.get(statement)
    if (
        not isinstance(guard, ast.If)
        or guard.body != [statement]
        or guard.orelse
        or not isinstance(guard.test, ast.Compare)
        or not isinstance(guard.test.left, ast.Name)
        or guard.test.left.id != name
        or len(guard.test.ops) != 1
        or not isinstance(guard.test.ops[0], ast.Is)
        or not isinstance(guard.test.comparators[0], ast.Constant)
        or guard.test.comparators[0].value is not None
    ):
        return None
    return params[0]


def _joined(
    walk: _Walk, module: Module, literal: ast.Constant, nodes: list[ast.AST]
) -> str:
    """The file name `literal` ends: with the literal folders joined before it
    (`os.path.join(root, "configs", "base.yml")`, `Path(root) / "configs" / "base.yml"`)."""
    for node in nodes:
        if (
            isinstance(node, ast.Call)
            and node.args
            and node.args[-1] is literal
            and walk._qualified(module, node.func) in ("os.path.join", "posixpath.join")
        ):
            parts: list[str] = []
            for arg in reversed(node.args):
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    break
                parts.insert(0, arg.value)
            return "/".join(parts)
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Div)
            and node.right is literal
        ):
            parts = [str(literal.value)]
            left = node.left
            while (
                isinstance(left, ast.BinOp)
                and isinstance(left.op, ast.Div)
                and isinstance(left.right, ast.Constant)
                and isinstance(left.right.value, str)
            ):
                parts.insert(0, left.right.value)
                left = left.left
            return "/".join(parts)
    return str(literal.value)


def _targets(statement: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return (
        statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    )


def _returns(function: ast.FunctionDef) -> list[ast.expr]:
    """The values `function`'s own `return` statements return (not a nested function's); a
    bare `return` or a generator counts as none readable."""
    found: list[ast.expr] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            continue
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return []
        if isinstance(node, ast.Return):
            if node.value is None:
                return []
            found.append(node.value)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _local(module: Module, name: ast.Name) -> bool:
    """Whether `name` is read in a function (a local unpacked there feeds this path only)."""
    return isinstance(module.scope_of(name), (ast.FunctionDef, ast.AsyncFunctionDef))


def _default(function: ast.FunctionDef, name: str) -> ast.expr | None:
    """The default value of `function`'s parameter `name`, if it has one."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = dict(
        zip(
            [p.arg for p in positional[len(positional) - len(arguments.defaults) :]],
            arguments.defaults,
        )
    )
    defaults.update(
        {
            p.arg: d
            for p, d in zip(arguments.kwonlyargs, arguments.kw_defaults)
            if d is not None
        }
    )
    return defaults.get(name)


def _stored_chain(target: ast.expr, name: str) -> list[Key] | None:
    """`name.a["b"].c` as `[_Field("a"), "b", _Field("c")]` (`name` alone: `[]`), the keys
    literal; None for another target (or a key that is not a literal)."""
    chain: list[Key] = []
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        if isinstance(target, ast.Attribute):
            chain.insert(0, _Field(target.attr))
        else:
            key = _key(target.slice)
            if key is None:
                return None
            chain.insert(0, key)
        target = target.value
    return chain if isinstance(target, ast.Name) and target.id == name else None


def _docstring(body: list[ast.stmt]) -> bool:
    return (
        len(body) > 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )


def _property_of(cls: ast.ClassDef, field: _Field) -> list[_Field] | None:
    """`.shape` read on an instance of `cls` whose `shape` is a plain `@property` returning
    `self._shape` (or `self.strategy.shape`): the attributes it reads, outermost first (None
    for anything else)."""
    getters = [
        s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == field.name
    ]
    if len(getters) != 1:
        return None
    (getter,) = getters
    if (
        [ast.unparse(d) for d in getter.decorator_list] != ["property"]
        or len(getter.args.args) != 1
        or len(getter.body) != 1 + isinstance(getter.body[0], ast.Expr)
    ):
        return None
    statement = getter.body[-1]
    if not isinstance(statement, ast.Return):
        return None
    read: list[_Field] = []
    value = statement.value
    while isinstance(value, ast.Attribute):
        read.insert(0, _Field(value.attr))
        value = value.value
    if read and isinstance(value, ast.Name) and value.id == getter.args.args[0].arg:
        return read
    return None


def _property_read(
    module: Module, line: int, function: ast.FunctionDef
) -> ast.Attribute | None:
    """The one read `obj.name` on `line` of `module` that runs `function`, a getter (a
    `property` or `functools.cached_property` named `name`, taking `self` alone); None when
    it is not one or the line reads that name more than once."""
    if len(function.args.args) != 1 or not any(
        ast.unparse(d).split(".")[-1] in ("cached_property", "property")
        for d in function.decorator_list
    ):
        return None
    reads = [
        node
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and node.attr == function.name
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return reads[0] if len(reads) == 1 else None


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = (
            target.attr
            if isinstance(target, ast.Attribute)
            else getattr(target, "id", "")
        )
        if name == "dataclass":
            return True
    return False


def _stored_on_self(module: Module, read: ast.Attribute) -> ast.expr | None:
    """`self.attr` read in a method: the value of the one `self.attr = value` of its class
    (nothing else in the module stores `.attr`), or the one return of a `property` /
    `cached_property` of that name there."""
    if not isinstance(read.value, ast.Name) or read.value.id != "self":
        return None
    cls: ast.AST | None = module.parents.get(read)
    while cls is not None and not isinstance(cls, ast.ClassDef):
        cls = module.parents.get(cls)
    if cls is None:
        return None
    stores = [
        node
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Attribute)
        and node.attr == read.attr
        and not isinstance(node.ctx, ast.Load)
    ]
    properties = [
        node
        for node in ast.walk(cls)
        if isinstance(node, ast.FunctionDef)
        and node.name == read.attr
        and any(
            ast.unparse(d).split(".")[-1] in ("cached_property", "property")
            for d in node.decorator_list
        )
    ]
    if len(stores) == 1 and not properties:
        statement = module.parents.get(stores[0])
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(stores[0].value, ast.Name)
            and stores[0].value.id == "self"
            and _contains(cls, statement)
        ):
            return statement.value
        return None
    if not stores and len(properties) == 1:
        returns = [n for n in ast.walk(properties[0]) if isinstance(n, ast.Return)]
        if len(returns) == 1 and returns[0].value is not None:
            return returns[0].value
    return None


def _filled_from(expr: ast.expr) -> ast.Name | None:
    """The number of devices sizes holding a `-1` axis are filled from, when `expr` computes
    them so: a comprehension (or `tuple(...)`/`list(...)` of one) over the sizes whose element
    is `N // known if s == -1 else s` (or the test written `s != -1` with the branches
    swapped, `s < 0`), `N` a name: that name."""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id in ("tuple", "list")
        and len(expr.args) == 1
        and not expr.keywords
    ):
        expr = expr.args[0]
    if (
        not isinstance(expr, (ast.ListComp, ast.GeneratorExp))
        or len(expr.generators) != 1
    ):
        return None
    element = expr.elt
    if not isinstance(element, ast.IfExp) or not isinstance(element.test, ast.Compare):
        return None
    test = element.test
    if len(test.ops) != 1 or not isinstance(test.left, ast.Name):
        return None
    item = test.left.id
    bound = test.comparators[0]
    literal = (
        bound.value
        if isinstance(bound, ast.Constant)
        else -bound.operand.value
        if isinstance(bound, ast.UnaryOp)
        and isinstance(bound.op, ast.USub)
        and isinstance(bound.operand, ast.Constant)
        and type(bound.operand.value) is int
        else None
    )
    op = test.ops[0]
    if isinstance(op, ast.Eq) and literal == -1:
        filled, kept = element.body, element.orelse
    elif isinstance(op, ast.NotEq) and literal == -1:
        filled, kept = element.orelse, element.body
    elif isinstance(op, ast.Lt) and literal == 0:
        filled, kept = element.body, element.orelse
    else:
        return None
    target = expr.generators[0].target
    names = target.elts if isinstance(target, ast.Tuple) else [target]
    if (
        not isinstance(kept, ast.Name)
        or kept.id != item
        or not any(isinstance(n, ast.Name) and n.id == item for n in names)
        or not isinstance(filled, ast.BinOp)
        or not isinstance(filled.op, ast.FloorDiv)
        or not isinstance(filled.left, ast.Name)
    ):
        return None
    return filled.left


def _branch_key(
    module: Module, node: ast.AST, function: ast.FunctionDef
) -> tuple[str, object] | None:
    """The parameter and the literal that select the branch `node` is in, within `function`
    (the innermost `if name == literal:` whose body holds it, or `case literal:` of a `match
    name:`); None when no such test chooses it."""
    child: ast.AST = node
    parent = module.parents.get(child)
    while parent is not None and parent is not function:
        if isinstance(parent, ast.If) and any(child is s for s in parent.body):
            test = parent.test
            if (
                isinstance(test, ast.Compare)
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.Eq)
            ):
                left, right = test.left, test.comparators[0]
                if isinstance(right, ast.Name) and isinstance(left, ast.Constant):
                    left, right = right, left
                if isinstance(left, ast.Name) and isinstance(right, ast.Constant):
                    return left.id, right.value
            return None
        if isinstance(parent, ast.match_case):
            match = module.parents.get(parent)
            pattern = parent.pattern
            if (
                isinstance(match, ast.Match)
                and isinstance(match.subject, ast.Name)
                and parent.guard is None
                and isinstance(pattern, ast.MatchValue)
                and isinstance(pattern.value, ast.Constant)
            ):
                return match.subject.id, pattern.value.value
            return None
        child, parent = parent, module.parents.get(parent)
    return None


_REDUCERS = frozenset({"math.prod", "np.prod", "numpy.prod", "len", "sum"})


def _inspected_only(module: Module, read: ast.AST) -> bool:
    """A read of a list of sizes that passes them nowhere: a membership test (`-1 in
    sizes`), `.index(...)` or `.count(...)` of them, their product or length
    (`math.prod(sizes)`, also of a generator over them alone: `math.prod(d for d in sizes
    if d != -1)`), or the list an item is stored into (`sizes[i] = n`, filling a `-1` in
    place, which the walk's `-1` handling reads). A comparison of a scalar (`ep != -1`)
    decides a branch: it counts."""
    parent = module.parents.get(read)
    if isinstance(parent, ast.comprehension) and parent.iter is read:
        generator = module.parents.get(parent)
        reduced = module.parents.get(generator) if generator is not None else None
        return (
            isinstance(generator, ast.GeneratorExp)
            and generator.generators == [parent]
            and isinstance(reduced, ast.Call)
            and reduced.args == [generator]
            and not reduced.keywords
            and ast.unparse(reduced.func) in _REDUCERS
        )
    return (
        (
            isinstance(parent, ast.Compare)
            and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
            and read is not parent.left
        )
        or (
            isinstance(parent, ast.Call)
            and parent.args == [read]
            and ast.unparse(parent.func) in _REDUCERS
        )
        or (isinstance(parent, ast.Attribute) and parent.attr in ("index", "count"))
        or (
            isinstance(parent, ast.Subscript)
            and parent.value is read
            and isinstance(parent.ctx, ast.Store)
        )
    )


def _sized_pairs(expr: ast.Tuple | ast.List, filled: bool = False) -> bool:
    """`(("data", 4), ("model", 2))`: (name, integer size) pairs, written as literals
    (with `filled`, a size may be `-1`)."""
    return bool(expr.elts) and all(
        isinstance(e, (ast.Tuple, ast.List))
        and len(e.elts) == 2
        and isinstance(e.elts[0], ast.Constant)
        and isinstance(e.elts[0].value, str)
        and (
            _integers(ast.Tuple(elts=[e.elts[1]]))
            or (filled and filled_size(e.elts[1]))
        )
        for e in expr.elts
    )


def filled_size(node: ast.expr) -> bool:
    """Whether `node` is the literal `-1` (an axis size a mesh builder fills)."""
    return (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
        and node.operand.value == 1
    )


def _sizes_of_pairs(comprehension: ast.ListComp | ast.GeneratorExp) -> ast.expr | None:
    """`[size for name, size in axes]` (`_` for the name; a generator too): `axes`, whose
    items are (name, size) pairs; None for any other comprehension."""
    if len(comprehension.generators) != 1:
        return None
    (loop,) = comprehension.generators
    target, element = loop.target, comprehension.elt
    if (
        loop.ifs
        or loop.is_async
        or not isinstance(target, ast.Tuple)
        or len(target.elts) != 2
        or not all(isinstance(t, ast.Name) for t in target.elts)
        or not isinstance(element, ast.Name)
    ):
        return None
    name, size = target.elts
    assert isinstance(name, ast.Name) and isinstance(size, ast.Name)
    return loop.iter if element.id == size.id != name.id else None


def _read_by_name(comprehension: ast.ListComp | ast.GeneratorExp) -> ast.expr | None:
    """`[m.get(name, default) for name in names]` or `(m[name] for name in names)`: `m`, the
    mapping each axis's size is read from by the axis's name (the names iterated are the
    mesh's, as it is built from them; the run's size is checked where the entry is)."""
    if len(comprehension.generators) != 1:
        return None
    (loop,) = comprehension.generators
    if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name):
        return None
    name, element = loop.target.id, comprehension.elt

    def is_name(node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    mapping = None
    if (
        isinstance(element, ast.Call)
        and isinstance(element.func, ast.Attribute)
        and element.func.attr == "get"
        and not element.keywords
        and 1 <= len(element.args) <= 2
        and is_name(element.args[0])
    ):
        mapping = element.func.value
    elif isinstance(element, ast.Subscript) and is_name(element.slice):
        mapping = element.value
    if mapping is None or _mentions(mapping, name):
        return None
    # the names iterated are a names constant or parameter, not the mapping itself (whose
    # keys' order is its own)
    names = loop.iter
    while isinstance(names, ast.Attribute):
        names = names.value
    if (
        not isinstance(names, ast.Name)
        or any(ast.dump(node) == ast.dump(loop.iter) for node in ast.walk(mapping))
        or any(ast.dump(node) == ast.dump(mapping) for node in ast.walk(loop.iter))
    ):
        return None
    return mapping


def _appended_in_loop(
    module: Module, empty: ast.List
) -> tuple[ast.ListComp, str] | None:
    """The list `[]` bound to a local (`shape = []`) and then filled by one loop of the
    same block whose one statement appends to it (`for a in AXES: shape.append(p[a])`), as
    the comprehension it amounts to, with the local's name; None where anything else
    changes the local."""
    for function in ast.walk(module.tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for block in _blocks(function):
            for at, statement in enumerate(block):
                if not (
                    isinstance(statement, ast.Assign)
                    and statement.value is empty
                    and len(statement.targets) == 1
                    and isinstance(target := statement.targets[0], ast.Name)
                ):
                    continue
                loops = [
                    s
                    for s in block[at + 1 :]
                    if isinstance(s, ast.For)
                    and not s.orelse
                    and len(s.body) == 1
                    and isinstance(s.body[0], ast.Expr)
                    and _appends_to(s.body[0].value, target.id)
                ]
                if len(loops) != 1:
                    return None
                (loop,) = loops
                appending = loop.body[0]
                assert isinstance(appending, ast.Expr)  # as selected
                append = appending.value
                assert isinstance(append, ast.Call)  # _appends_to
                uses = [
                    node
                    for node in ast.walk(function)
                    if isinstance(node, ast.Name) and node.id == target.id
                ]
                touched = [
                    node
                    for node in ast.walk(function)
                    if isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == target.id
                ]
                if (
                    sum(isinstance(u.ctx, ast.Store) for u in uses) != 1
                    or len(touched) != 1
                    or _mentions(append.args[0], target.id)
                    or any(
                        _mentions(s, target.id)
                        for s in block[at + 1 : block.index(loop)]
                    )
                ):
                    return None
                built = ast.ListComp(
                    elt=append.args[0],
                    generators=[
                        ast.comprehension(
                            target=loop.target, iter=loop.iter, ifs=[], is_async=0
                        )
                    ],
                )
                return ast.copy_location(built, loop), target.id
    return None


def _blocks(function: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists of `function`'s body and of the compound statements in it."""
    found = []
    for node in ast.walk(function):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                found.append(block)
    return found


def _appends_to(call: ast.expr, name: str) -> bool:
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == name
        and len(call.args) == 1
        and not call.keywords
        and not isinstance(call.args[0], ast.Starred)
    )


def _references(node: ast.AST) -> set[str]:
    """The names and attribute chains `node` reads (`cfg.tp`, not `cfg`; a call's arguments,
    not the function called)."""
    if isinstance(node, ast.Name) or (
        isinstance(node, ast.Attribute) and isinstance(_chain_root(node), ast.Name)
    ):
        return {ast.unparse(node)}
    if isinstance(node, ast.Call):
        parts: list[ast.AST] = [*node.args, *(k.value for k in node.keywords)]
    else:
        parts = list(ast.iter_child_nodes(node))
    return set().union(*map(_references, parts)) if parts else set()


def _chain_root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _sharing_operand(sizes: ast.Tuple | ast.List, axis: int) -> ast.expr | None:
    """Another element of `sizes` computed from a name the `axis` element reads
    (`devices // model` beside `model`), or None."""
    read = _references(sizes.elts[axis])
    for index, other in enumerate(sizes.elts):
        if index != axis and not isinstance(other, ast.Constant):
            if read & _references(other):
                return other
    return None


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _names(expr: ast.Tuple | ast.List) -> bool:
    """Whether every element of `expr` is a string literal (axis names)."""
    return bool(expr.elts) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in expr.elts
    )


def _integers(node: ast.Tuple | ast.List) -> bool:
    return bool(node.elts) and all(
        isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts
    )


def _shown(key: Key) -> str:
    return f".{key.name}" if isinstance(key, _Field) else f"[{key!r}]"


def _key(node: ast.expr | None) -> str | int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
        return None if isinstance(node.value, bool) else node.value
    return None


def _text(module: Module, node: ast.AST) -> str:
    text = ast.get_source_segment(module.source.decode("utf-8", "replace"), node) or ""
    return cut(" ".join(text.split()), 60)


@dataclass(frozen=True)
class PassedBy:
    """The argument a caller's call passes for a parameter of the function the run raised in:
    `node` in `module`, for `parameter` of `function`."""

    module: Module
    node: ast.expr
    function: str
    parameter: str
    # the gather's out_sharding is a container (a dict, list or tuple of shardings, or what
    # `jax.tree.map` makes): the input is a pytree of arrays, moved leaf by leaf
    tree: bool = False


def gather_input_passed_by(
    evaluator: Evaluator,
    frames: tuple[tuple[Path, int], ...],
    out_entered: bool = False,
    through: tuple[ast.Name, bool] | None = None,
) -> PassedBy | Unknown:
    """For a `top_level_all_gather(x, P(...))` the run raised at (the innermost of `frames`,
    outermost first: the caller's line, then the gather's), whose input `x` is a parameter of
    the function it is in, which that function never assigns, and whose context mesh comes from
    outside that function (no `with` around the gather in it): the argument the caller's call
    passes for `x`. The call on the caller's line must be the one call of that function there
    (a jitted function, a method through `self`). When that argument is itself a parameter of
    the caller's function, which it never assigns, and no `with` is around the call there (a
    helper between the caller that sets the context and the gather), the walk goes on to the
    argument the next frame the run noted passes for it, and so on up the run's frames.
    With `out_entered` (the run noted where the out_sharding's mesh was put in force: it is
    the context mesh, and the rule moves the input only under that `with`), the out_sharding
    may be any expression (`NamedSharding(meshes.train, P(reduced=...))` in a local).
    A gather in a lambda that `jax.jit` wraps and calls where it is written
    (`jax.jit(lambda w: top_level_all_gather(w, out))(x)`) is asked as a gather of `x`
    there (`through`: that argument, and whether `out` is a container), with `out` any
    expression whose shardings the run shows on the context mesh (`out_entered`) or made of
    bare PartitionSpecs. A gather's function that the caller's line maps over a tree
    (`jax.tree.map(_one, source)`) is given that tree's leaves: the argument is the tree."""
    if len(frames) < 2:
        return Unknown("the run noted no caller of the gather's function")
    (caller_path, caller_line), (path, line) = frames[-2:]
    module = evaluator.module(path)
    caller = evaluator.module(caller_path)
    if isinstance(module, Unknown):
        return module
    if isinstance(caller, Unknown):
        return caller
    walk = _Walk(evaluator, [])
    if through is None:
        gathers = [
            call
            for call in module.calls
            if call.lineno <= line <= (call.end_lineno or call.lineno)
            and walk._api(module, call.func) is Api.TOP_LEVEL_ALL_GATHER
        ]
        if len(gathers) != 1:
            return Unknown(f"line {module.path.name}:{line} does not gather once")
        gather: ast.AST = gathers[0]
        args = bind_arguments(gathers[0], SIGNATURES[Api.TOP_LEVEL_ALL_GATHER])
        x, out = (args or {}).get("xs"), (args or {}).get("out_sharding")
        tree = _container(module, out)
        bare = out_entered or _bare_specs(walk, module, out)
    else:
        x, tree = through
        gather, out, bare = x, None, True
    if not isinstance(x, ast.Name) or not bare:
        return Unknown(
            "the gather's input is not a name, or its out_sharding not a bare PartitionSpec"
        )
    function: ast.AST | None = module.parents.get(gather)
    while function is not None and not isinstance(
        function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    ):
        if isinstance(function, (ast.With, ast.AsyncWith)):
            return Unknown("the gather's own function enters a context around it")
        function = module.parents.get(function)
    if (
        isinstance(function, ast.Lambda)
        and Path(frames[-2][0]).resolve() == path.resolve()
    ):
        # `jax.jit(lambda w: gather(w, out))(x)`: traced where it is written, in the
        # function of the frame before, with `x` for `w`
        argument = _jitted_lambda_argument(walk, module, function, x.id)
        if argument is None:
            return Unknown("the gather's lambda is not jitted and called with a name")
        return gather_input_passed_by(
            evaluator, frames[:-1], out_entered, (argument, _container(module, out))
        )
    if not isinstance(function, ast.FunctionDef):
        return Unknown("the gather is not in a function")
    arguments = function.args
    names = [p.arg for p in (*arguments.posonlyargs, *arguments.args)]
    if (
        x.id not in names + [p.arg for p in arguments.kwonlyargs]
        or arguments.vararg
        or arguments.kwarg
    ):
        return Unknown(f"`{x.id}` is not a parameter of `{function.name}`")
    if assigns(function, x.id):
        return Unknown(f"`{function.name}` assigns `{x.id}`")
    outer = frames[:-2]
    passed = _passed_for(evaluator, caller, caller_line, function, x.id)
    if (
        isinstance(passed, Unknown)
        and len(frames) >= 3
        and _forwards(caller, caller_line)
    ):
        # the caller's frame only forwards its `*args` (a jit wrapper's `__call__`): the
        # call the frame above it made passes the gather's function its arguments
        (caller_path, caller_line), outer = frames[-3], frames[:-3]
        caller = evaluator.module(caller_path)
        if isinstance(caller, Unknown):
            return caller
        passed = _passed_through(caller, caller_line, function, x.id)
    if isinstance(passed, Unknown):
        mapped = _mapped_over(evaluator, caller, caller_line, function, x.id)
        if mapped is None:
            return passed
        passed, tree = mapped, True  # each leaf of the tree the caller maps over
    found = PassedBy(caller, passed, function.name, x.id, tree)
    for outer_path, outer_line in reversed(outer):
        step = _passed_on(evaluator, found.module, found.node, outer_path, outer_line)
        if step is None:
            break
        found = replace(found, module=step[0], node=step[1])
    return found


_TREE_MAPS = frozenset({"jax.tree.map", "jax.tree_util.tree_map"})


def _mapped_over(
    evaluator: Evaluator,
    caller: Module,
    caller_line: int,
    function: ast.FunctionDef,
    parameter: str,
) -> ast.expr | None:
    """The tree whose leaves the one `jax.tree.map(function, tree, ...)` on `caller_line`
    passes for `parameter` (a positional parameter of `function`, given one tree for each
    parameter up to it); None when there is no such call."""
    arguments = function.args
    names = [p.arg for p in (*arguments.posonlyargs, *arguments.args)]
    if parameter not in names or arguments.vararg or arguments.kwonlyargs:
        return None
    position = names.index(parameter)
    found = []
    for call in caller.calls:
        if not call.lineno <= caller_line <= (call.end_lineno or call.lineno):
            continue
        if not call.args or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        mapping = evaluator.value_of(caller, call.func)
        mapped = evaluator.value_of(caller, call.args[0])
        if (
            isinstance(mapping, External)
            and mapping.name in _TREE_MAPS
            and isinstance(mapped, Function)
            and mapped.node is function
            and len(names) - len(arguments.defaults) <= len(call.args) - 1 <= len(names)
            and position < len(call.args) - 1
            and not call.keywords
        ):
            found.append(call.args[1 + position])
    return found[0] if len(found) == 1 else None


def _jitted_lambda_argument(
    walk: _Walk, module: Module, function: ast.Lambda, parameter: str
) -> ast.Name | None:
    """The name `jax.jit(lambda ...)(...)`, written where it is called, passes for the
    lambda's `parameter` (positionally; a lambda with no defaults or `*`)."""
    jitted = module.parents.get(function)
    called = module.parents.get(jitted) if jitted is not None else None
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if (
        not isinstance(jitted, ast.Call)
        or jitted.args[:1] != [function]
        or walk._api(module, jitted.func) is not Api.JIT
        or not isinstance(called, ast.Call)
        or called.func is not jitted
        or called.keywords
        or arguments.vararg
        or arguments.kwarg
        or arguments.kwonlyargs
        or arguments.defaults
        or parameter not in names
        or len(called.args) != len(names)
    ):
        return None
    passed = called.args[names.index(parameter)]
    return passed if isinstance(passed, ast.Name) else None


def _bare_specs(walk: _Walk, module: Module, out: ast.expr | None) -> bool:
    """Whether `out` is a bare `P(...)`, or a local assigned once to a dict, list or tuple
    (or a comprehension) of them: shardings on the context mesh."""
    if isinstance(out, ast.Name):
        out = _assigned_once(module, out)
    if isinstance(out, (ast.DictComp, ast.ListComp)):
        leaves: list[ast.expr | None] = [
            out.value if isinstance(out, ast.DictComp) else out.elt
        ]
    elif isinstance(out, ast.Dict):
        leaves = list(out.values)
    elif isinstance(out, (ast.List, ast.Tuple)):
        leaves = list(out.elts)
    else:
        leaves = [out]
    return bool(leaves) and all(
        isinstance(leaf, ast.Call)
        and walk._api(module, leaf.func) is Api.PARTITION_SPEC
        for leaf in leaves
    )


def _container(module: Module, out: ast.expr | None) -> bool:
    """Whether the out_sharding `out` is a container of shardings (so the input is a pytree):
    a dict, list or tuple, a comprehension, a `jax.tree.map(...)`, or a local assigned once
    to one."""
    if isinstance(out, ast.Name):
        out = _assigned_once(module, out)
    return isinstance(
        out, (ast.Dict, ast.List, ast.Tuple, ast.DictComp, ast.ListComp)
    ) or (
        isinstance(out, ast.Call)
        and isinstance(out.func, ast.Attribute)
        and ast.unparse(out.func) in ("jax.tree.map", "jax.tree_util.tree_map")
    )


def _assigned_once(module: Module, name: ast.Name) -> ast.expr | None:
    """The value `name` is assigned, when the scope it is read from (or, for a lambda that
    neither takes nor assigns it, the scope around) assigns it once, by a plain
    `name = value`."""
    scope = module.scope_of(name)
    while True:
        stores = [
            node
            for node in ast.walk(scope)
            if isinstance(node, ast.Name)
            and node.id == name.id
            and not isinstance(node.ctx, ast.Load)
        ]
        if (
            stores
            or not isinstance(scope, ast.Lambda)
            or name.id
            in [a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)]
        ):
            break
        scope = module.scope_of(scope)
    statement = module.parents.get(stores[0]) if len(stores) == 1 else None
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and statement.targets[0] is stores[0]
    ):
        return statement.value
    return None


def _passed_for(
    evaluator: Evaluator,
    caller: Module,
    caller_line: int,
    function: ast.FunctionDef,
    parameter: str,
) -> ast.expr | Unknown:
    """The argument the one call of `function` on `caller_line` passes for `parameter`."""
    bound = bound_at(evaluator, caller, caller_line, function)
    if isinstance(bound, Unknown):
        return bound
    where = f"{caller.path.name}:{caller_line}"
    if parameter not in bound or isinstance(bound[parameter], ast.Starred):
        return Unknown(f"the call at {where} does not pass `{parameter}`")
    return bound[parameter]


def bound_at(
    evaluator: Evaluator,
    caller: Module,
    caller_line: int,
    function: ast.FunctionDef,
) -> dict[str, ast.expr] | Unknown:
    """The arguments the one call of `function` on `caller_line` passes, by the parameter
    each is bound to (a method's receiver, through its object, is not among them)."""
    arguments = function.args
    names = [p.arg for p in (*arguments.posonlyargs, *arguments.args)]
    calls = []
    for call in caller.calls:
        if not call.lineno <= caller_line <= (call.end_lineno or call.lineno):
            continue
        callee = evaluator.value_of(caller, call.func)
        if isinstance(callee, Function) and callee.node is function:
            calls.append((call, 0))
        elif isinstance(callee, BoundMethod) and callee.function.node is function:
            calls.append((call, 1))  # the receiver is the first parameter
    where = f"{caller.path.name}:{caller_line}"
    if len(calls) != 1:
        return Unknown(f"line {where} does not call `{function.name}` once")
    call, skipped = calls[0]
    signature = Signature(
        tuple(names[skipped:]),
        tuple(p.arg for p in arguments.kwonlyargs),
        max(len(arguments.posonlyargs) - skipped, 0),
    )
    bound = bind_arguments(call, signature)
    if bound is None:
        return Unknown(
            f"the call at {where} does not bind `{function.name}`'s parameters"
        )
    return bound


def _forwards(module: Module, line: int) -> bool:
    """Whether `line` of `module` is a call that passes on its function's `*args` as they
    came, and nothing else (`return self._jitted(*args)` in `def __call__(self, *args)`):
    the arguments the function was called with are those of the function it calls."""
    calls = [
        call
        for call in module.calls
        if call.lineno <= line <= (call.end_lineno or call.lineno)
    ]
    if len(calls) != 1:
        return False
    (call,) = calls
    function: ast.AST | None = module.parents.get(call)
    while function is not None and not isinstance(
        function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    ):
        function = module.parents.get(function)
    if not isinstance(function, ast.FunctionDef):
        return False
    arguments = function.args
    vararg = arguments.vararg
    return (
        vararg is not None
        and arguments.kwarg is None
        and not arguments.kwonlyargs
        and not arguments.posonlyargs
        and len(arguments.args) <= 1  # `self`, or nothing
        and not call.keywords
        and len(call.args) == 1
        and isinstance(starred := call.args[0], ast.Starred)
        and isinstance(starred.value, ast.Name)
        and starred.value.id == vararg.arg
        and not assigns(function, vararg.arg)
    )


def _passed_through(
    caller: Module, caller_line: int, function: ast.FunctionDef, parameter: str
) -> ast.expr | Unknown:
    """The argument for `parameter` of `function` that the one call on `caller_line` passes
    through a forwarding frame: positional arguments only, one for each of `function`'s
    positional parameters (no defaults, no *args)."""
    calls = [
        call
        for call in caller.calls
        if call.lineno <= caller_line <= (call.end_lineno or call.lineno)
        and not any(
            call is not other and _within(call, other)
            for other in caller.calls
            if other.lineno <= caller_line <= (other.end_lineno or other.lineno)
        )
    ]
    where = f"{caller.path.name}:{caller_line}"
    arguments = function.args
    names = [p.arg for p in (*arguments.posonlyargs, *arguments.args)]
    if (
        len(calls) != 1
        or calls[0].keywords
        or arguments.vararg
        or arguments.kwarg
        or arguments.kwonlyargs
        or arguments.defaults
        or len(calls[0].args) != len(names)
        or any(isinstance(a, ast.Starred) for a in calls[0].args)
    ):
        return Unknown(f"line {where} does not pass `{function.name}` its arguments")
    return calls[0].args[names.index(parameter)]


def _within(inner: ast.AST, outer: ast.AST) -> bool:
    """Whether `inner` is an argument (or part of one) of the call `outer`."""
    return any(node is inner for node in ast.walk(outer) if node is not outer)


def _passed_on(
    evaluator: Evaluator,
    module: Module,
    node: ast.expr,
    outer_path: Path,
    outer_line: int,
) -> tuple[Module, ast.expr] | None:
    """`node`, an argument in `module`, when it is a parameter of the function it is in (a
    helper the run went through), which that function never assigns, with no `with` around
    it there and no *args or **kwargs: the argument the call on the outer frame's line passes
    for it; else None (the walk ends at `node`)."""
    if not isinstance(node, ast.Name):
        return None
    function: ast.AST | None = module.parents.get(node)
    while function is not None and not isinstance(
        function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    ):
        if isinstance(function, (ast.With, ast.AsyncWith)):
            return None
        function = module.parents.get(function)
    if not isinstance(function, ast.FunctionDef):
        return None
    arguments = function.args
    parameters = [
        p.arg for p in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
    ]
    if (
        node.id not in parameters
        or arguments.vararg
        or arguments.kwarg
        or assigns(function, node.id)
    ):
        return None
    outer = evaluator.module(outer_path)
    if isinstance(outer, Unknown):
        return None
    passed = _passed_for(evaluator, outer, outer_line, function, node.id)
    return None if isinstance(passed, Unknown) else (outer, passed)


def _in_defaults(node: ast.AST, function: ast.FunctionDef) -> bool:
    """Whether `node` is (in) a default of one of `function`'s parameters."""
    defaults = [*function.args.defaults, *function.args.kw_defaults]
    return any(n is node for d in defaults if d is not None for n in ast.walk(d))


def _callee_name(module: Module, function: ast.FunctionDef) -> str:
    """What a call of `function` names: its class for an `__init__`, else its own name."""
    holder = module.parents.get(function)
    if function.name == "__init__" and isinstance(holder, ast.ClassDef):
        return holder.name
    return function.name


def assigns(function: ast.FunctionDef, name: str) -> bool:
    """Whether `function` binds `name` anywhere in its body (or declares a global/nonlocal)."""
    return any(
        isinstance(node, ast.Name)
        and node.id == name
        and not isinstance(node.ctx, ast.Load)
        or isinstance(node, (ast.Global, ast.Nonlocal))
        for node in ast.walk(function)
        if node is not function
    )
