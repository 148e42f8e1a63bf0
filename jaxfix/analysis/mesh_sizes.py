"""Where the axis sizes of a mesh are written: the question a fix that resizes a mesh asks.

From an expression (the mesh a context is given), through the bindings of a name that reach it
(`jaxfix.analysis.reaching`) and one call of a mesh factory of the module or of the tree
(`make_mesh(data=4, model=2)` whose body returns `AbstractMesh((data, model), ...)`), to the
`AbstractMesh(...)` (or `mesh.update(axis_sizes=...)`) that builds it. Each axis size is then an integer literal of this module that
sets it for this expression alone (the literal itself, or the factory call's argument), an
environment variable or a key of a config file it is read from (a fix can only say what to set),
or `Unknown(why)`. The other reads of the names passed through are returned too: rewriting the
literal changes what they see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeAlias

import libcst as cst

from jaxfix.analysis.bodies import own_nodes
from jaxfix.analysis.cst_names import ApiResolver, bind, signature_of
from jaxfix.analysis.names import MESH_UPDATE, SIGNATURES, Api
from jaxfix.analysis.project import Analysed, External, Recorded
from jaxfix.analysis.values import Unknown


class SizeQuestions(Analysed, Recorded, Protocol):
    """What `mesh_sizes` asks of a module's analysis (this module's, or a factory's module's)."""

    @property
    def parents(self) -> Mapping[cst.CSTNode, cst.CSTNode]: ...

    @property
    def names(self) -> ApiResolver: ...

    def called_api(self, node: cst.CSTNode | None) -> Api | None: ...

    def resolve(self, expr: cst.BaseExpression) -> cst.BaseExpression: ...

    def definition(self, name: cst.Name) -> cst.CSTNode | None: ...

    def reaching_bindings(self, name: cst.Name) -> frozenset[cst.Name] | None: ...

    def reads_reached(self, targets: frozenset[cst.Name]) -> list[cst.Name]: ...

    def bound_value(self, target: cst.Name) -> cst.BaseExpression | None: ...

    def line(self, node: cst.CSTNode) -> int: ...

    def external_definition(
        self, expr: cst.BaseExpression
    ) -> External[SizeQuestions] | None: ...

    def depends_on(self, path: Path, other: Recorded | None = None) -> None: ...


_MAX_NAMES = 8  # names followed from the use to the mesh


@dataclass(frozen=True)
class EnvironmentVariable:
    """`int(os.environ["NAME"])`, `os.environ.get("NAME", ...)`, `os.getenv("NAME", ...)`."""

    name: str


@dataclass(frozen=True)
class ConfigKey:
    """`config["stage"]["data"]` of a `json.load(...)`/`json.loads(...)` (or YAML, TOML) result."""

    keys: tuple[str | int, ...]
    file: str | None  # the file name as the code writes it, when it does
    line: int  # where the config is read


SizeSource: TypeAlias = "cst.Integer | EnvironmentVariable | ConfigKey | Unknown"


@dataclass(frozen=True)
class MeshSizes:
    """One way the expression gets its mesh: the `AbstractMesh(...)` call and each axis's source."""

    built: cst.Call  # in this module or in the factory's
    axes: tuple[SizeSource, ...]
    shared_with: tuple[
        cst.Name, ...
    ]  # other reads of the names between the expression and the mesh


_CONFIG_LOADERS = frozenset(
    {
        "json.load",
        "json.loads",
        "yaml.safe_load",
        "yaml.load",
        "tomllib.load",
        "tomllib.loads",
        "tomli.load",
        "tomli.loads",
    }
)
_ENVIRONMENT = frozenset({"os.environ"})
_GETENV = frozenset({"os.getenv", "os.environ.get"})
_CONFIG_SUFFIXES = (".json", ".yaml", ".yml", ".toml")


def mesh_sizes(
    analysis: SizeQuestions, expr: cst.BaseExpression
) -> tuple[MeshSizes, ...] | Unknown:
    """Where the sizes of the abstract mesh `expr` evaluates to are written, one `MeshSizes`
    per binding that may reach it (both branches of an `if`)."""
    return _follow(analysis, expr, (), 0)


def _follow(
    analysis: SizeQuestions,
    expr: cst.BaseExpression,
    shared: tuple[cst.Name, ...],
    depth: int,
) -> tuple[MeshSizes, ...] | Unknown:
    if depth > _MAX_NAMES:
        return Unknown("too many names between the use and the mesh")
    if isinstance(expr, cst.Name):
        targets = analysis.reaching_bindings(expr)
        if targets is None:
            return Unknown(
                f"jaxfix cannot tell which assignment to `{expr.value}` reaches this use (line {analysis.line(expr)})"
            )
        others = tuple(
            read for read in analysis.reads_reached(targets) if read is not expr
        )
        found: list[MeshSizes] = []
        for target in sorted(targets, key=analysis.line):
            value = analysis.bound_value(target)
            sizes = (
                _follow(analysis, value, shared + others, depth + 1)
                if value is not None
                else Unknown("not a plain assignment")
            )
            if isinstance(sizes, Unknown):
                return sizes
            found += sizes
        return tuple(found)
    if not isinstance(expr, cst.Call):
        return Unknown("the mesh is not built by a call jaxfix follows")
    if analysis.called_api(expr) is Api.ABSTRACT_MESH or _is_update(expr):
        elements = _sizes_argument(expr)
        if elements is None:
            return Unknown(
                f"the mesh's sizes are not a tuple of axis sizes where it is built (line {analysis.line(expr)})"
            )
        return (
            MeshSizes(
                expr, tuple(_integer_source(analysis, e) for e in elements), shared
            ),
        )
    return _factory(analysis, expr, shared)


def _factory(
    analysis: SizeQuestions, call: cst.Call, shared: tuple[cst.Name, ...]
) -> tuple[MeshSizes, ...] | Unknown:
    """`factory(data=4, model=2)`: a function of this module or of the tree whose one `return`
    gives an `AbstractMesh(...)` of its parameters (the axes it writes itself are shared by
    every call: not this call's to change)."""
    owner = analysis
    function = (
        analysis.definition(call.func) if isinstance(call.func, cst.Name) else None
    )
    if not isinstance(function, cst.FunctionDef):
        external = analysis.external_definition(call.func)
        if external is not None:
            owner, function = external.analysis, external.node
            analysis.depends_on(external.path, external.analysis)
    if not isinstance(function, cst.FunctionDef):
        return Unknown("the mesh comes from a call of something jaxfix does not follow")
    name = function.name.value
    signature = signature_of(function)
    args = (
        bind(call, signature)
        if signature is not None
        and not function.decorators
        and not function.asynchronous
        else None
    )
    returns = [n for n in _own_returns(function) if n.value is not None]
    if args is None or len(returns) != 1 or returns[0].value is None:
        return Unknown(
            f"`{name}` is not a plain function with one `return` whose arguments jaxfix can bind"
        )
    built = owner.resolve(returns[0].value)
    if (
        not isinstance(built, cst.Call)
        or owner.called_api(built) is not Api.ABSTRACT_MESH
    ):
        return Unknown(f"`{name}` does not return an `AbstractMesh(...)` it builds")
    parameters = {
        p.name.value: p
        for p in (
            *function.params.posonly_params,
            *function.params.params,
            *function.params.kwonly_params,
        )
    }

    def parameter(expr: cst.BaseExpression) -> str | None:
        """The name of the parameter of `function` that `expr` reads, if it reads one."""
        if not isinstance(expr, cst.Name) or expr.value not in parameters:
            return None
        return expr.value if owner.definition(expr) is parameters[expr.value] else None

    def axis(expr: cst.BaseExpression) -> SizeSource:
        param = parameter(expr)
        if param is None:
            source = _integer_source(owner, expr)
            return (
                Unknown(
                    f"it is written in the body of `{name}`, which every call shares"
                )
                if isinstance(source, cst.Integer)
                else source
            )
        if param not in args:
            return Unknown(
                f"`{name}`'s parameter `{param}` takes its default at this call"
            )
        return _integer_source(analysis, args[param])

    sizes = bind(built, SIGNATURES[Api.ABSTRACT_MESH])
    given = sizes.get("axis_sizes") if sizes is not None else None
    whole = parameter(given) if given is not None else None
    if whole is not None and whole in args:
        elements = _elements(args[whole])
        if elements is None:
            return Unknown(
                f"the sizes passed to `{name}` are not a tuple of axis sizes"
            )
        return (
            MeshSizes(
                built, tuple(_integer_source(analysis, e) for e in elements), shared
            ),
        )
    elements = _elements(owner.resolve(given)) if given is not None else None
    if elements is None:
        return Unknown(
            f"`{name}` builds the mesh's sizes in a way jaxfix does not follow"
        )
    return (MeshSizes(built, tuple(axis(e) for e in elements), shared),)


def _is_update(call: cst.Call) -> bool:
    """`mesh.update(axis_sizes=...)`: a mesh of those sizes (`AbstractMesh.update`)."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "update"


def _sizes_argument(call: cst.Call) -> Sequence[cst.BaseExpression] | None:
    args = bind(
        call, MESH_UPDATE if _is_update(call) else SIGNATURES[Api.ABSTRACT_MESH]
    )
    sizes = args.get("axis_sizes") if args else None
    return _elements(sizes) if sizes is not None else None


def _elements(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    if not isinstance(node, (cst.Tuple, cst.List)) or any(
        isinstance(e, cst.StarredElement) for e in node.elements
    ):
        return None
    return [e.value for e in node.elements]


def _own_returns(function: cst.FunctionDef) -> list[cst.Return]:
    return [n for n in own_nodes(function.body) if isinstance(n, cst.Return)]


def _integer_source(analysis: SizeQuestions, expr: cst.BaseExpression) -> SizeSource:
    """An axis size written in `analysis`'s module: the literal itself, or what it is read from
    outside the program."""
    if isinstance(expr, cst.Integer):
        return expr
    target = analysis.resolve(expr)
    if isinstance(target, cst.Integer):
        return Unknown(f"`{_text(expr)}` is a constant other code may read")
    if (
        isinstance(target, cst.Call)
        and _qualified(analysis, target.func) == {"builtins.int"}
        and len(target.args) == 1
    ):
        target = analysis.resolve(target.args[0].value)
    variable = _environment_variable(analysis, target)
    if variable is not None:
        return EnvironmentVariable(variable)
    key = _config_key(analysis, target)
    if key is not None:
        return key
    return Unknown(f"`{_text(expr)}` is not an integer literal")


def _environment_variable(
    analysis: SizeQuestions, node: cst.BaseExpression
) -> str | None:
    if (
        isinstance(node, cst.Subscript)
        and _qualified(analysis, node.value) & _ENVIRONMENT
        and len(node.slice) == 1
    ):
        index = node.slice[0].slice
        return _string(index.value) if isinstance(index, cst.Index) else None
    if (
        isinstance(node, cst.Call)
        and _qualified(analysis, node.func) & _GETENV
        and node.args
        and node.args[0].keyword is None
    ):
        return _string(node.args[0].value)
    return None


def _config_key(analysis: SizeQuestions, node: cst.BaseExpression) -> ConfigKey | None:
    """`config["a"]["b"]` where `config` (followed through single bindings) is a config loader's result."""
    keys: list[str | int] = []
    current = node
    while (
        isinstance(current, cst.Subscript)
        and len(current.slice) == 1
        and isinstance(current.slice[0].slice, cst.Index)
    ):
        index = current.slice[0].slice.value
        key: str | int | None = (
            _string(index)
            if not isinstance(index, cst.Integer)
            else int(index.evaluated_value)
        )
        if key is None:
            return None
        keys.insert(0, key)
        current = analysis.resolve(current.value)
    if (
        not keys
        or not isinstance(current, cst.Call)
        or not _qualified(analysis, current.func) & _CONFIG_LOADERS
    ):
        return None
    names = [
        s for s in _strings(_opened(analysis, current)) if s.endswith(_CONFIG_SUFFIXES)
    ]
    return ConfigKey(
        tuple(keys), names[0] if len(names) == 1 else None, analysis.line(current)
    )


def _opened(analysis: SizeQuestions, loader: cst.Call) -> cst.CSTNode:
    """What names the file a loader reads: its argument, or for `with open(path) as f`, `open(path)`."""
    argument = loader.args[0].value if loader.args else loader
    definition = (
        analysis.definition(argument) if isinstance(argument, cst.Name) else None
    )
    alias = analysis.parents.get(definition) if definition is not None else None
    item = analysis.parents.get(alias) if isinstance(alias, cst.AsName) else None
    return item.item if isinstance(item, cst.WithItem) else analysis.resolve(argument)


def _qualified(analysis: SizeQuestions, node: cst.CSTNode) -> set[str]:
    return {q.name for q in analysis.names.qualified_names(node)}


def _string(node: cst.BaseExpression) -> str | None:
    value = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    return value if isinstance(value, str) else None


def _strings(node: cst.CSTNode) -> list[str]:
    found: list[str] = []

    class Strings(cst.CSTVisitor):
        def visit_SimpleString(self, string: cst.SimpleString) -> None:
            value = string.evaluated_value
            if isinstance(value, str):
                found.append(value)

    node.visit(Strings())
    return found


def _text(node: cst.CSTNode) -> str:
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= 40 else text[:37] + "..."
