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
so there the keyword is added to the construction the run used.

Where the walk stops at an expression that computes a size from what the host has when it runs
(`jax.device_count() // 2`, `len(jax.devices())`, `jax.process_count() * 2`), it returns
`Computed`: that is where the value is written, but no literal jaxfix could write there would
hold on another host, so the report names the place and writes nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from jaxfix.analysis.ast_engine.arguments import bind_arguments
from jaxfix.analysis.ast_engine.assignments import written_as
from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    BoundMethod,
    Class,
    Function,
    Instance,
    ModuleValue,
    Unknown,
)
from jaxfix.analysis.ast_engine.vocabulary import api_of
from jaxfix.analysis.names import SIGNATURES, Api, Signature
from jaxfix.ground.quoting import cut

_MAX_STEPS = 32
_MAX_FILES_COUNTED = 5000  # a project larger than this: a shared default is not changed
_JSON_LOADERS = frozenset({"json.load", "json.loads"})
_COPIES = frozenset({"builtins.tuple", "builtins.list"})
_YAML_LOADERS = frozenset({"yaml.safe_load", "yaml.load", "yaml.full_load"})
_OTHER_LOADERS = frozenset(
    {"tomllib.load", "tomllib.loads", "tomli.load", "tomli.loads"}
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


# What may wrap host reads in a size computed from the host alone (`len(jax.devices())`).
_HOST_ARITHMETIC = frozenset(
    {"builtins.len", "builtins.int", "builtins.max", "builtins.min"}
)


class Computed(Unknown):
    """The walk stopped where a size is computed from the host when the program runs: the
    expression `node` (its text `text`) in `module`, reading `reads` (the host calls it makes,
    as written). jaxfix does not change it: a literal is right on one host only."""

    __slots__ = ("module", "node", "reads", "text")

    def __init__(
        self,
        why: str,
        module: Module,
        node: ast.expr,
        text: str,
        reads: tuple[str, ...],
    ) -> None:
        super().__init__(why)
        self.module, self.node, self.text, self.reads = module, node, text, reads

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


def written_at(
    evaluator: Evaluator,
    frames: tuple[tuple[Path, int], ...],
    axis: int | None = None,
    axis_name: str | None = None,
) -> Written | Unknown:
    """Where the sizes of the mesh built at the innermost of `frames` (outermost first, each
    placed in the tree and checked) are written. With `axis` (the one whose size must change),
    sizes written as a literal of separate values (`(cfg.dp, cfg.tp)`) are followed to where
    that axis's value is written; with its name too, sizes read from a mapping by axis name
    (`tuple(sizes.get(name, 1) for name in AXES)`) are followed to that name's entry."""
    if not frames:
        return Unknown("the run noted no frame that built the mesh")
    return _Walk(evaluator, list(reversed(frames)), axis, axis_name).start()


class _Walk:
    def __init__(
        self,
        evaluator: Evaluator,
        frames: list[tuple[Path, int]],
        axis: int | None = None,
        axis_name: str | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.frames = frames  # innermost first
        self.axis = axis  # the axis whose size is followed alone, once in a literal
        self.axis_name = axis_name  # its name, once the sizes are read by axis name
        self.scalar = False  # following that one axis's size
        self.fields: list[str] = []  # the `.field`s read on the way
        self.depth = 0  # the frame the walk is in
        self.label: str | None = None  # the last named value passed (`EVAL["mesh"]`)
        self.read: set[ast.AST] = set()  # the subscripts the walk went through
        # Calls the walk went into that the run's frames do not show (a function's one
        # `return`, a class's `__init__`): (the function, the call, its module, how many
        # leading parameters the call does not pass: `self`), innermost last.
        self.entered: list[tuple[ast.FunctionDef, ast.Call, Module, int]] = []
        self.modules: dict[Path, Module] = {}  # the modules it read them in
        # Following a device array (`Mesh(devices, names)`): its shape is the sizes, given by
        # the `.reshape(shape)` or `mesh_utils.create_device_mesh(shape)` that made it.
        self.devices = False
        # Functions the walk called through a table entry (`FACTORIES[name]()`)
        self.tabled: set[str] = set()

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
        if len(built) != 1:
            return Unknown(
                f"line {line} of {module.path.name} does not build one mesh jaxfix can read"
            )
        call, api = built[0]
        signature = SIGNATURES[api]
        args = bind_arguments(call, signature)
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
            if isinstance(expr, (ast.Tuple, ast.List)) and not keys and not self.scalar:
                if _integers(expr):
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
                # `(cfg.dp, cfg.tp)`: the axis to change is written on its own
                self.scalar, self.label = True, None
                expr = expr.elts[self.axis]
                continue
            if (
                self.scalar
                and not keys
                and isinstance(expr, ast.Constant)
                and type(expr.value) is int
            ):
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
                values = [
                    v
                    for k, v in zip(expr.keys, expr.values)
                    if k is None or _key(k) == keys[0]
                ]
                if len(values) != 1 or any(k is None for k in expr.keys):
                    return Unknown(f"the dict at {where} has no one entry {keys[0]!r}")
                expr, keys = values[0], keys[1:]
                continue
            if isinstance(expr, ast.Subscript):
                self.read.add(expr)
                self.modules.setdefault(module.path, module)
                key = _key(expr.slice)
                if key is None and isinstance(expr.slice, ast.Name):
                    key = self._passed_literal(module, expr.slice)
                if key is None:
                    return Unknown(
                        f"`{_text(module, expr)}` at {where} is not read by a literal key"
                    )
                expr, keys = expr.value, [key, *keys]
                continue
            if isinstance(expr, ast.Attribute):
                base = self.evaluator.value_of(module, expr.value)
                if isinstance(base, ModuleValue) and base.path is not None:
                    target = self._module(base.path)
                    if isinstance(target, Unknown):
                        return target
                    found = _assigned_once(target, expr.attr)
                    if found is None:
                        return Unknown(
                            f"`{expr.attr}` is not assigned once in {target.path.name}"
                        )
                    narrowest = narrowest or self._shared(
                        module, expr, target, expr.attr, keys
                    )
                    module, expr = target, found
                    continue
                attribute = expr
                self.fields.append(attribute.attr)
                expr, keys = attribute.value, [_Field(attribute.attr), *keys]
                continue
            if isinstance(expr, ast.Call) and keys and isinstance(keys[0], _Field):
                into = self._into(module, expr, keys, narrowest)
                if into is not None:
                    return into
                return self._field(module, expr, keys, narrowest)
            if isinstance(expr, ast.Call) and not keys:
                # `shape_of(config)`: a function of the tree returning the sizes once
                callee = self._callee(module, expr.func)
                if isinstance(callee, Function) and isinstance(
                    callee.node, ast.FunctionDef
                ):
                    into = self._into(module, expr, keys, narrowest)
                    if into is not None:
                        return into
            if (
                isinstance(expr, ast.Call)
                and not keys
                and len(expr.args) == 1
                and not expr.keywords
                and not isinstance(expr.args[0], ast.Starred)
                and self._qualified(module, expr.func) in _COPIES
            ):  # tuple(sizes): the same integers
                expr = expr.args[0]
                continue
            if isinstance(expr, ast.Call) and keys:
                loader = self._qualified(module, expr.func)
                if loader in _JSON_LOADERS or loader in _YAML_LOADERS:
                    return self._one_axis(narrowest) or self._data_file(
                        module, expr, keys
                    )
                if loader in _OTHER_LOADERS:
                    return Unknown(
                        f"the sizes are read from what `{loader}` returns at {where}: jaxfix changes JSON and YAML entries only"
                    )
            if (
                isinstance(expr, (ast.ListComp, ast.GeneratorExp))
                and not keys
                and not self.scalar
                and narrowest is None  # a shared read holds all the sizes, not one
                and self.axis_name is not None
                and (mapping := _read_by_name(expr)) is not None
            ):  # `tuple(sizes.get(name, 1) for name in AXES)`: the axis's entry
                self.scalar, self.label = True, None
                expr, keys = mapping, [self.axis_name]
                continue
            if isinstance(expr, ast.Name):
                step = self._name(module, expr, keys, narrowest)
                if isinstance(step, (Written, Unknown)):
                    return step
                module, expr, narrowest, keys = step
                continue
            return self._computed(module, expr) or Unknown(
                f"`{_text(module, expr)}` at {where} is computed, not a value jaxfix follows"
            )
        return Unknown("too many steps between the mesh and its sizes")

    def _computed(self, module: Module, expr: ast.expr) -> Computed | None:
        """`expr`, where the walk stops, when it computes the size from the host and nothing
        else (`jax.device_count() // 2`, or a sizes literal holding such an element among
        integers): the place the size is written, which jaxfix leaves. An expression that
        also passes other values through (`n if s == -1 else s`, a name, a comprehension) is
        not: the size may come from elsewhere."""
        elements = (
            expr.elts
            if isinstance(expr, (ast.Tuple, ast.List)) and not self.scalar
            else [expr]
        )
        reads: list[str] = []
        for element in elements:
            found = self._host_only(module, element)
            if found is None:
                return None
            reads.extend(found)
        reads = list(dict.fromkeys(reads))
        if not reads:
            return None
        text = _text(module, expr)
        shown = " and ".join(f"`{r}()`" for r in reads)
        return Computed(
            f"`{text}` at {module.path.name}:{module.line(expr)} computes the size from {shown} "
            "when it runs",
            module,
            expr,
            text,
            tuple(reads),
        )

    def _host_only(self, module: Module, expr: ast.expr) -> list[str] | None:
        """The host reads (`jax.device_count`) `expr` makes, when it is made of them, integer
        literals, arithmetic and `len`/`int`/`max`/`min` of those alone; else None."""
        if isinstance(expr, ast.Constant):
            return [] if type(expr.value) is int else None
        if isinstance(expr, ast.UnaryOp):
            return self._host_only(module, expr.operand)
        if isinstance(expr, ast.BinOp):
            left = self._host_only(module, expr.left)
            right = self._host_only(module, expr.right)
            return None if left is None or right is None else left + right
        if not isinstance(expr, ast.Call) or expr.keywords:
            return None
        called = self._qualified(module, expr.func)
        if called in _HOST_READS:
            return [_text(module, expr.func)]
        if called not in _HOST_ARITHMETIC or not expr.args:
            return None
        reads: list[str] = []
        for argument in expr.args:
            found = self._host_only(module, argument)
            if found is None:
                return None
            reads.extend(found)
        return reads

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
        if not isinstance(callee, Unknown) and found != callee:
            return callee
        if isinstance(entries[0], ast.Name):
            self.tabled.add(entries[0].id)
        return found

    def _table(self, module: Module, expr: ast.expr) -> tuple[Module, ast.Dict] | None:
        """The dict literal `TABLE` (or `module.TABLE`) is assigned once, and its module."""
        if isinstance(expr, ast.Attribute):
            base = self.evaluator.value_of(module, expr.value)
            if not isinstance(base, ModuleValue) or base.path is None:
                return None
            target = self._module(base.path)
            if isinstance(target, Unknown):
                return None
            found = _assigned_once(target, expr.attr)
            return (target, found) if isinstance(found, ast.Dict) else None
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
            return Unknown(
                f"the device array reshaped at {where} is not given its shape as one value"
            )
        return None

    def _one_axis(self, narrowest: Written | None) -> Written | None:
        """The narrowest read, once the walk follows one axis's size: that size alone."""
        if narrowest is None or not self.scalar:
            return narrowest
        return replace(narrowest, axis=self.axis)

    def _name(
        self,
        module: Module,
        name: ast.Name,
        keys: list[Key],
        narrowest: Written | None,
    ) -> tuple[Module, ast.expr, Written | None, list[Key]] | Written | Unknown:
        where = f"{module.path.name}:{module.line(name)}"
        bindings = self.evaluator.reaching(module, name)
        if not bindings or len(bindings) != 1:
            return Unknown(
                f"jaxfix cannot tell which assignment to `{name.id}` reaches {where}"
            )
        (binding,) = bindings
        if binding.kind == "param":
            step = self._argument(module, name, binding.node, keys, narrowest)
            return step if isinstance(step, Unknown) else (*step, keys)
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
            value = _assigned_once(target, binding.node.name)
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
        depth = self.depth
        try:
            for _ in range(_MAX_STEPS):
                bindings = self.evaluator.reaching(module, name)
                if not bindings or len(bindings) != 1:
                    return None
                (binding,) = bindings
                if binding.kind != "param":
                    return None
                step = self._argument(module, name, binding.node, [], None)
                if isinstance(step, Unknown):
                    return None
                module, passed, _ = step
                if not isinstance(passed, ast.Name):
                    return _key(passed)
                name = passed
            return None
        finally:
            self.depth = depth

    def _argument(
        self,
        module: Module,
        name: ast.Name,
        parameter: ast.AST,
        keys: list[Key],
        narrowest: Written | None,
    ) -> tuple[Module, ast.expr, Written | None] | Unknown:
        """A parameter of the function the frame runs: the argument its caller's frame passed
        (or, in a call the walk went into, that call's argument)."""
        function = module.parents.get(module.parents.get(parameter, parameter))
        if self.entered:
            return self._entered_argument(name, function, narrowest)
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
        path, caller_line = self.frames[self.depth]
        caller = self._module(path)
        if isinstance(caller, Unknown):
            return caller
        calls = []
        for call in caller.calls:
            if not call.lineno <= caller_line <= (call.end_lineno or call.lineno):
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
        where = f"{caller.path.name}:{caller_line}"
        if len(calls) != 1:
            return Unknown(f"line {where} does not call `{function.name}` once")
        call, skipped = calls[0]
        bound = _bound(call, function, skipped)
        if isinstance(bound, str):
            return Unknown(bound)
        if bound is None or name.id not in bound:
            return Unknown(
                f"the call at {where} does not pass `{name.id}` (its default is shared by every call)"
            )
        return caller, bound[name.id], narrowest

    def _entered_argument(
        self, name: ast.Name, function: ast.AST | None, narrowest: Written | None
    ) -> tuple[Module, ast.expr, Written | None] | Unknown:
        """A parameter of a function the walk went into (the run noted no frame of it): the
        argument the call it went in by passes."""
        entered, call, caller, skipped = self.entered[-1]
        if function is not entered:
            return Unknown(
                f"`{name.id}` is not a parameter of `{entered.name}`, whose call the run did not note"
            )
        bound = _bound(call, entered, skipped)
        where = f"{caller.path.name}:{caller.line(call)}"
        if isinstance(bound, str):
            return Unknown(bound)
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
        if isinstance(callee, Function) and isinstance(callee.node, ast.FunctionDef):
            if callee.wrapped_by is not None:
                return None
            returns = _returns(callee.node)
            target = self._module(callee.path)
            if len(returns) != 1 or isinstance(target, Unknown):
                return Unknown(
                    f"`{callee.node.name}` (called at {where}) does not return once"
                )
            if len(self.entered) >= _MAX_STEPS:
                return Unknown("too many calls between the mesh and its sizes")
            self.entered.append((callee.node, call, module, skipped))
            found = self._follow(target, returns[0], keys, narrowest)
            return self._only_call(found, callee.node, target, where)
        if isinstance(callee, Class) and not _is_dataclass(callee.node):
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
            field = _property_of(callee.node, field) or field
            sets = [
                node
                for node in ast.walk(callee.node)
                if isinstance(node, ast.Attribute)
                and node.attr == field.name
                and not isinstance(node.ctx, ast.Load)
            ]
            values = [
                s.value
                for s in init.body
                if isinstance(s, (ast.Assign, ast.AnnAssign))
                and s.value is not None
                and len(targets := _targets(s)) == 1
                and isinstance(t := targets[0], ast.Attribute)
                and t.attr == field.name
                and isinstance(t.value, ast.Name)
                and t.value.id == me
            ]
            if len(values) != 1 or len(sets) != 1:
                return Unknown(
                    f"`{callee.node.name}` (built at {where}) does not set `{field.name}` once in its `__init__`"
                )
            if len(self.entered) >= _MAX_STEPS:
                return Unknown("too many calls between the mesh and its sizes")
            self.entered.append((init, call, module, 1))
            found = self._follow(target, values[0], keys[1:], narrowest)
            return self._only_call(found, init, target, where, callee.node.name)
        return None

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
        if not isinstance(cls, Class) or not _is_dataclass(cls.node):
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
        fields = [
            s
            for s in cls.node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        ]
        index = next(
            (i for i, s in enumerate(fields) if getattr(s.target, "id", "") == field),
            None,
        )
        if index is None or index < len(call.args):
            return Unknown(
                f"`{field}` is not given to `{_text(module, call)}` by keyword at {where}"
            )
        default = fields[index].value
        owner = self._module(cls.path)
        if default is None or isinstance(owner, Unknown):
            return Unknown(f"`{field}` has no default jaxfix can read")
        if keys[1:]:  # `eval_mesh: MeshConfig = MeshConfig(shape=(4, 4))` read `.shape`
            return self._nested_default(
                owner, default, f"{cls.node.name}.{field}", keys, narrowest
            )
        found = self._follow(owner, default, [], None)
        if isinstance(found, Unknown):
            return found
        return narrowest or Written(
            module,
            call,
            f"{_text(module, call)}.{field}",
            keyword=field,
            axis=found.axis,
            why=f"the default of `{field}` ({owner.path.name}:{owner.line(default)}) is shared by every `{cls.node.name}`: "
            "this construction is given its own",
        )

    def _own_class(self, module: Module, call: ast.Call) -> Class | None:
        """`cls(...)` in a classmethod of a class of this module: that class."""
        if not isinstance(call.func, ast.Name):
            return None
        node: ast.AST | None = module.parents.get(call)
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
            or _assigns(node, call.func.id)
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
        if found.data is not None and any(
            self._attribute_reads(field) == 1 for field in self.fields
        ):
            # The entry is read from the file on every call, but what the call returns
            # reaches a mesh only through `.field`, read once in the project: on this path
            return found
        if name in self.tabled:
            # called through a table entry (`CONFIGS[name]()`): changed only when that entry
            # is the one place the project names it (every call of it goes through there)
            if (
                self._call_count(name) == 0
                and self._count(
                    name,
                    lambda node: isinstance(node, ast.Name) and node.id == name,
                    name.encode(),
                )
                == 1
            ):
                return found
            return Unknown(
                f"the sizes at {module.path.name}:{line} are what every call of `{name}` "
                f"gets, and the project names it elsewhere too (here through a table at {where}): not changed"
            )
        if self._call_count(name) != 1:
            return Unknown(
                f"the sizes at {module.path.name}:{line} are what every call of `{name}` "
                f"gets, and it is called elsewhere too (here at {where}): not changed"
            )
        return found

    def _call_count(self, name: str) -> int:
        """How many calls of a function or class of that name the project's files hold (0:
        too many files to count)."""
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
        self, name: str, matches: Callable[[ast.AST], bool], needle: bytes
    ) -> int:
        """How many nodes `matches` accepts in the project's files that hold `needle` (0:
        too many files, or one that cannot be read: nothing counted)."""
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
            count += sum(1 for node in ast.walk(module.tree) if matches(node))
        return count

    def _data_file(
        self, module: Module, loader: ast.Call, keys: list[Key]
    ) -> Written | Unknown:
        """`json.load(f)` (`with open("x.json") as f`), `json.load(open("x.json"))`,
        `json.loads(Path("x.json").read_text())`, `yaml.safe_load(f)` likewise, the file named
        by one string literal (through
        names assigned once): the entry `keys` of that file."""
        where = f"{module.path.name}:{module.line(loader)}"
        read = [k for k in keys if not isinstance(k, _Field)]
        kind = (
            "yaml" if self._qualified(module, loader.func) in _YAML_LOADERS else "json"
        )
        suffixes = (".yaml", ".yml") if kind == "yaml" else (".json",)
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
        if other is not None:
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
            if r is not read and not self._other_binding(m, r, mine)
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
        in another function is another variable)."""
        if not mine or not isinstance(read, ast.Name):
            return False
        theirs = self.evaluator.reaching(module, read)
        return theirs is not None and not (theirs & mine)

    def _api(self, module: Module, expr: ast.expr) -> Api | None:
        value = self.evaluator.value_of(module, expr)
        name = getattr(value, "name", None)
        return api_of(name) if isinstance(name, str) else None


def _bound(
    call: ast.Call, function: ast.FunctionDef | ast.AsyncFunctionDef, skipped: int
) -> dict[str, ast.expr] | str | None:
    """`call`'s arguments by `function`'s parameter names, the first `skipped` of them not
    passed (`self`: bound to the receiver, `call.func`'s object); a string: why not."""
    args = function.args
    if args.vararg or args.kwarg:
        return f"`{function.name}` takes *args or **kwargs"
    names = [p.arg for p in (*args.posonlyargs, *args.args)]
    signature = Signature(
        tuple(names[skipped:]),
        tuple(p.arg for p in args.kwonlyargs),
        max(len(args.posonlyargs) - skipped, 0),
    )
    bound = bind_arguments(call, signature)
    if bound is not None and skipped and names and isinstance(call.func, ast.Attribute):
        bound = {names[0]: call.func.value, **bound}
    return bound


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


def _assigned_once(module: Module, name: str) -> ast.expr | None:
    """The value of the one top-level `name = value` of `module` (in a `with` block there too:
    `with open(...) as f: CONFIG = json.load(f)`), when nothing else binds it."""
    statements: list[ast.stmt] = []
    for statement in module.tree.body:
        statements.append(statement)
        if isinstance(statement, ast.With):
            statements.extend(statement.body)
    values = [
        s.value
        for s in statements
        if (
            isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
            and s.targets[0].id == name
        )
        or (
            isinstance(s, ast.AnnAssign)
            and isinstance(s.target, ast.Name)
            and s.target.id == name
            and s.value is not None
        )
    ]
    stores = [
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
    ]
    return values[0] if len(values) == 1 and len(stores) == 1 else None


def _property_of(cls: ast.ClassDef, field: _Field) -> _Field | None:
    """`.shape` read on an instance of `cls` whose `shape` is a plain `@property` returning
    `self._shape`: the attribute `_shape` it reads (None for anything else)."""
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
    me = getter.args.args[0].arg
    if (
        isinstance(statement, ast.Return)
        and isinstance(value := statement.value, ast.Attribute)
        and isinstance(value.value, ast.Name)
        and value.value.id == me
    ):
        return _Field(value.attr)
    return None


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


def _mentions(node: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _integers(node: ast.Tuple | ast.List) -> bool:
    return bool(node.elts) and all(
        isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts
    )


def _shown(key: Key) -> str:
    return f".{key.name}" if isinstance(key, _Field) else f"[{key!r}]"


def _key(node: ast.expr) -> str | int | None:
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


def gather_input_passed_by(
    evaluator: Evaluator, frames: tuple[tuple[Path, int], ...]
) -> PassedBy | Unknown:
    """For a `top_level_all_gather(x, P(...))` the run raised at (the innermost of `frames`,
    outermost first: the caller's line, then the gather's), whose input `x` is a parameter of
    the function it is in, which that function never assigns, and whose context mesh comes from
    outside that function (no `with` around the gather in it): the argument the caller's call
    passes for `x`. The call on the caller's line must be the one call of that function there
    (a jitted function, a method through `self`). When that argument is itself a parameter of
    the caller's function, which it never assigns, and no `with` is around the call there (a
    helper between the caller that sets the context and the gather), the walk goes on to the
    argument the next frame the run noted passes for it, and so on up the run's frames."""
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
    gathers = [
        call
        for call in module.calls
        if call.lineno <= line <= (call.end_lineno or call.lineno)
        and walk._api(module, call.func) is Api.TOP_LEVEL_ALL_GATHER
    ]
    if len(gathers) != 1:
        return Unknown(f"line {module.path.name}:{line} does not gather once")
    gather = gathers[0]
    args = bind_arguments(gather, SIGNATURES[Api.TOP_LEVEL_ALL_GATHER])
    x, out = (args or {}).get("xs"), (args or {}).get("out_sharding")
    if not isinstance(x, ast.Name) or not (
        isinstance(out, ast.Call) and walk._api(module, out.func) is Api.PARTITION_SPEC
    ):
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
    if _assigns(function, x.id):
        return Unknown(f"`{function.name}` assigns `{x.id}`")
    passed = _passed_for(evaluator, caller, caller_line, function, x.id)
    if isinstance(passed, Unknown):
        return passed
    found = PassedBy(caller, passed, function.name, x.id)
    for outer_path, outer_line in reversed(frames[:-2]):
        step = _passed_on(evaluator, found.module, found.node, outer_path, outer_line)
        if step is None:
            break
        found = replace(found, module=step[0], node=step[1])
    return found


def _passed_for(
    evaluator: Evaluator,
    caller: Module,
    caller_line: int,
    function: ast.FunctionDef,
    parameter: str,
) -> ast.expr | Unknown:
    """The argument the one call of `function` on `caller_line` passes for `parameter`."""
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
    if (
        bound is None
        or parameter not in bound
        or isinstance(bound[parameter], ast.Starred)
    ):
        return Unknown(f"the call at {where} does not pass `{parameter}`")
    return bound[parameter]


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
        or _assigns(function, node.id)
    ):
        return None
    outer = evaluator.module(outer_path)
    if isinstance(outer, Unknown):
        return None
    passed = _passed_for(evaluator, outer, outer_line, function, node.id)
    return None if isinstance(passed, Unknown) else (outer, passed)


def _assigns(function: ast.FunctionDef, name: str) -> bool:
    """Whether `function` binds `name` anywhere in its body (or declares a global/nonlocal)."""
    return any(
        isinstance(node, ast.Name)
        and node.id == name
        and not isinstance(node.ctx, ast.Load)
        or isinstance(node, (ast.Global, ast.Nonlocal))
        for node in ast.walk(function)
        if node is not function
    )
