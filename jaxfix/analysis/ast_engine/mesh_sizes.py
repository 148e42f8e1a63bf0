"""Where the axis sizes of a mesh are written, over `ast`: the question a fix that resizes a
mesh asks.

From an expression (the mesh a context is given), through the plain assignments of a name that
reach it (the engine's reaching bindings: the latest one in straight-line code, one per branch of
an `if`) and one call of a mesh factory of the module or of the tree (`make_mesh(data=4,
model=2)` whose body returns `AbstractMesh((data, model), ...)`), to the `AbstractMesh(...)` (or
`mesh.update(axis_sizes=...)`) that builds it. Each axis size is then an integer literal of the
expression's module that sets it for this expression alone (the literal itself, or the factory
call's argument), an environment variable or a key of a config file it is read from (a fix can
only say what to set), or `Unknown(why)`. The other reads of the names passed through are
returned too: rewriting the literal changes what they see.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeAlias

from jaxfix.analysis.ast_engine.arguments import bind_arguments
from jaxfix.analysis.ast_engine.assignments import written_as
from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.flow import Binding
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import External, Function, Unknown
from jaxfix.analysis.ast_engine.vocabulary import api_of
from jaxfix.analysis.names import MESH_UPDATE, SIGNATURES, Api, Signature
from jaxfix.ground.quoting import cut

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
    path: Path | None = None  # the module that reads it


SizeSource: TypeAlias = "ast.Constant | EnvironmentVariable | ConfigKey | Unknown"


@dataclass(frozen=True)
class MeshSizes:
    """One way the expression gets its mesh: the `AbstractMesh(...)` call and each axis's source
    (an `ast.Constant` is an integer literal of the expression's module)."""

    built: ast.Call  # in the expression's module or in the factory's
    axes: tuple[SizeSource, ...]
    shared_with: tuple[ast.Name, ...]  # other reads of the names passed through
    # A module-level name passed through that another module reads (`from stages import
    # EVAL_MESH`): where, the first such read; Unknown where the search stops.
    read_elsewhere: tuple[Path, int] | Unknown | None = None


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
_GETENV = frozenset({"os.getenv", "os.environ.get"})
_CONFIG_SUFFIXES = (".json", ".yaml", ".yml", ".toml")


def mesh_sizes(
    evaluator: Evaluator, module: Module, expr: ast.expr
) -> tuple[MeshSizes, ...] | Unknown:
    """Where the sizes of the abstract mesh `expr` evaluates to are written, one `MeshSizes`
    per plain assignment that may reach it (both branches of an `if`)."""
    return _Sizes(evaluator).follow(module, expr, (), 0)


class _Sizes:
    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator

    def follow(
        self,
        module: Module,
        expr: ast.expr,
        shared: tuple[ast.Name, ...],
        depth: int,
    ) -> tuple[MeshSizes, ...] | Unknown:
        if depth > _MAX_NAMES:
            return Unknown("too many names between the use and the mesh")
        if isinstance(expr, ast.Name):
            bindings = self.evaluator.reaching(module, expr)
            if not bindings or any(b.kind != "assign" for b in bindings):
                return Unknown(
                    f"jaxfix cannot tell which assignment to `{expr.id}` reaches this use (line {module.line(expr)})"
                )
            others = tuple(
                read
                for read in self._reads(module, expr.id, bindings)
                if read is not expr
            )
            found: list[MeshSizes] = []
            for binding in sorted(bindings, key=lambda b: module.line(b.node)):
                value = _plain_value(binding)
                sizes = (
                    self.follow(module, value, shared + others, depth + 1)
                    if value is not None
                    else Unknown("not a plain assignment")
                )
                if isinstance(sizes, Unknown):
                    return sizes
                if module.scope_of(binding.node) is module.tree:
                    elsewhere = self._read_elsewhere(module, expr.id)
                    sizes = tuple(
                        s
                        if s.read_elsewhere is not None
                        else replace(s, read_elsewhere=elsewhere)
                        for s in sizes
                    )
                found += sizes
            return tuple(found)
        if not isinstance(expr, ast.Call):
            return Unknown("the mesh is not built by a call jaxfix follows")
        if self._api(module, expr.func) is Api.ABSTRACT_MESH or _is_update(expr):
            elements = _sizes_argument(expr)
            if elements is None:
                return Unknown(
                    f"the mesh's sizes are not a tuple of axis sizes where it is built (line {module.line(expr)})"
                )
            return (
                MeshSizes(
                    expr, tuple(self._source(module, e) for e in elements), shared
                ),
            )
        return self._factory(module, expr, shared)

    def _reads(
        self, module: Module, name: str, bindings: frozenset[Binding]
    ) -> list[ast.Name]:
        """Every read of `name` one of `bindings` may reach (a read whose bindings are not known
        counts)."""
        found = []
        for read in module.loads_by_name.get(name, ()):
            if not isinstance(read, ast.Name):
                continue
            reaching = self.evaluator.reaching(module, read)
            if reaching is None or reaching & bindings:
                found.append(read)
        return found

    def _read_elsewhere(
        self, module: Module, name: str
    ) -> tuple[Path, int] | Unknown | None:
        """The first read of `module`'s global `name` by another module of the project (one
        that imports it, or reads it as an attribute of the module)."""
        project = self.evaluator.project
        others = project.candidate_files(name, module.path)
        if isinstance(others, Unknown):
            return others
        for path in others:
            if path == module.path:
                continue
            reader = project.module_loading(path, name)
            if isinstance(reader, Unknown):
                return reader
            if reader is not None and (reads := reader.loads_by_name.get(name)):
                return reader.path, min(reader.line(r) for r in reads)
        return None

    def _factory(
        self, module: Module, call: ast.Call, shared: tuple[ast.Name, ...]
    ) -> tuple[MeshSizes, ...] | Unknown:
        """`factory(data=4, model=2)`: a function of the tree whose one `return` gives an
        `AbstractMesh(...)` of its parameters (the axes it writes itself are shared by every
        call: not this call's to change)."""
        callee = self.evaluator.value_of(module, call.func)
        owner = (
            self.evaluator.module(callee.path)
            if isinstance(callee, Function)
            else Unknown("not a function")
        )
        if (
            not isinstance(callee, Function)
            or not isinstance(callee.node, ast.FunctionDef)
            or isinstance(owner, Unknown)
            or callee.bound
        ):
            return Unknown(
                "the mesh comes from a call of something jaxfix does not follow"
            )
        function = callee.node
        name = function.name
        signature = _signature(function)
        args = (
            bind_arguments(call, signature)
            if signature is not None and not function.decorator_list
            else None
        )
        returns = [
            n
            for n in _own_nodes(function)
            if isinstance(n, ast.Return) and n.value is not None
        ]
        if args is None or len(returns) != 1 or returns[0].value is None:
            return Unknown(
                f"`{name}` is not a plain function with one `return` whose arguments jaxfix can bind"
            )
        built = self._resolve(owner, returns[0].value)
        if (
            not isinstance(built, ast.Call)
            or self._api(owner, built.func) is not Api.ABSTRACT_MESH
        ):
            return Unknown(f"`{name}` does not return an `AbstractMesh(...)` it builds")
        parameters = {
            a.arg: a
            for a in (
                *function.args.posonlyargs,
                *function.args.args,
                *function.args.kwonlyargs,
            )
        }

        def parameter(expr: ast.expr) -> str | None:
            """The name of the parameter of `function` that `expr` reads, if it reads one."""
            if not isinstance(expr, ast.Name) or expr.id not in parameters:
                return None
            bindings = self.evaluator.reaching(owner, expr)
            return (
                expr.id
                if bindings and all(b.node is parameters[expr.id] for b in bindings)
                else None
            )

        def axis(expr: ast.expr) -> SizeSource:
            param = parameter(expr)
            if param is None:
                source = self._source(owner, expr)
                return (
                    Unknown(
                        f"it is written in the body of `{name}`, which every call shares"
                    )
                    if isinstance(source, ast.Constant)
                    else source
                )
            if param not in args:
                return Unknown(
                    f"`{name}`'s parameter `{param}` takes its default at this call"
                )
            return self._source(module, args[param])

        sizes = bind_arguments(built, SIGNATURES[Api.ABSTRACT_MESH])
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
                    built, tuple(self._source(module, e) for e in elements), shared
                ),
            )
        elements = _elements(self._resolve(owner, given)) if given is not None else None
        if elements is None:
            return Unknown(
                f"`{name}` builds the mesh's sizes in a way jaxfix does not follow"
            )
        return (MeshSizes(built, tuple(axis(e) for e in elements), shared),)

    def _source(self, module: Module, expr: ast.expr) -> SizeSource:
        """An axis size written in `module`: the literal itself, or what it is read from outside
        the program."""
        if _is_integer(expr):
            assert isinstance(expr, ast.Constant)
            return expr
        target = self._resolve(module, expr)
        if _is_integer(target):
            return Unknown(f"`{_text(module, expr)}` is a constant other code may read")
        if (
            isinstance(target, ast.Call)
            and self._qualified(module, target.func) == "builtins.int"
            and len(target.args) == 1
            and not target.keywords
        ):
            target = self._resolve(module, target.args[0])
        variable = self._environment_variable(module, target)
        if variable is not None:
            return EnvironmentVariable(variable)
        key = self._config_key(module, target)
        if key is not None:
            return key
        return Unknown(f"`{_text(module, expr)}` is not an integer literal")

    def _environment_variable(self, module: Module, node: ast.expr) -> str | None:
        if (
            isinstance(node, ast.Subscript)
            and self._qualified(module, node.value) == "os.environ"
        ):
            return _string(node.slice)
        if (
            isinstance(node, ast.Call)
            and self._qualified(module, node.func) in _GETENV
            and node.args
            and not isinstance(node.args[0], ast.Starred)
        ):
            return _string(node.args[0])
        return None

    def _config_key(self, module: Module, node: ast.expr) -> ConfigKey | None:
        """`config["a"]["b"]` where `config` (followed through single bindings) is a config
        loader's result."""
        keys: list[str | int] = []
        current = node
        while isinstance(current, ast.Subscript):
            index = current.slice
            key: str | int | None = (
                index.value
                if isinstance(index, ast.Constant)
                and isinstance(index.value, int)
                and not isinstance(index.value, bool)
                else _string(index)
            )
            if key is None:
                return None
            keys.insert(0, key)
            current = self._resolve(module, current.value)
        if (
            not keys
            or not isinstance(current, ast.Call)
            or self._qualified(module, current.func) not in _CONFIG_LOADERS
        ):
            return None
        names = [
            s
            for s in _strings(self._opened(module, current))
            if s.endswith(_CONFIG_SUFFIXES)
        ]
        return ConfigKey(
            tuple(keys),
            names[0] if len(names) == 1 else None,
            module.line(current),
            module.path,
        )

    def _opened(self, module: Module, loader: ast.Call) -> ast.AST:
        """What names the file a loader reads: its argument, or for `with open(path) as f`,
        `open(path)`."""
        if not loader.args:
            return loader
        argument = loader.args[0]
        if isinstance(argument, ast.Name):
            bindings = self.evaluator.reaching(module, argument)
            if bindings and len(bindings) == 1:
                (binding,) = bindings
                statement = binding.node
                if binding.kind == "with" and isinstance(
                    statement, (ast.With, ast.AsyncWith)
                ):
                    for item in statement.items:
                        target = item.optional_vars
                        if isinstance(target, ast.Name) and target.id == argument.id:
                            return item.context_expr
        return self._resolve(module, argument)

    def _resolve(self, module: Module, expr: ast.expr) -> ast.expr:
        return written_as(self.evaluator, module, expr)

    def _qualified(self, module: Module, expr: ast.expr) -> str | None:
        value = self.evaluator.value_of(module, expr)
        return value.name if isinstance(value, External) else None

    def _api(self, module: Module, expr: ast.expr) -> Api | None:
        name = self._qualified(module, expr)
        return api_of(name) if name is not None else None


def _plain_value(binding: Binding) -> ast.expr | None:
    """The value of a plain `name = value` (or `name: T = value`) binding."""
    statement = binding.node
    if binding.path:
        return None
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return statement.value
    if (
        isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and statement.value is not None
    ):
        return statement.value
    return None


def _signature(function: ast.FunctionDef) -> Signature | None:
    """The signature of a function of the tree; None when it takes `*args`/`**kwargs`."""
    a = function.args
    if a.vararg is not None or a.kwarg is not None:
        return None
    return Signature(
        tuple(p.arg for p in (*a.posonlyargs, *a.args)),
        tuple(p.arg for p in a.kwonlyargs),
        len(a.posonlyargs),
    )


def _is_update(call: ast.Call) -> bool:
    """`mesh.update(axis_sizes=...)`: a mesh of those sizes (`AbstractMesh.update`)."""
    return isinstance(call.func, ast.Attribute) and call.func.attr == "update"


def _sizes_argument(call: ast.Call) -> Sequence[ast.expr] | None:
    args = bind_arguments(
        call, MESH_UPDATE if _is_update(call) else SIGNATURES[Api.ABSTRACT_MESH]
    )
    sizes = args.get("axis_sizes") if args else None
    return _elements(sizes) if sizes is not None else None


def _elements(node: ast.expr) -> list[ast.expr] | None:
    if not isinstance(node, (ast.Tuple, ast.List)) or any(
        isinstance(e, ast.Starred) for e in node.elts
    ):
        return None
    return list(node.elts)


def _own_nodes(function: ast.FunctionDef) -> list[ast.AST]:
    """The nodes of `function`'s body, not those of functions or classes defined in it."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _is_integer(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    )


def _string(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _strings(node: ast.AST) -> list[str]:
    return [s for n in ast.walk(node) if (s := _string(n)) is not None]


def _text(module: Module, node: ast.AST) -> str:
    text = ast.get_source_segment(module.source.decode("utf-8", "replace"), node) or ""
    return cut(" ".join(text.split()), 40)
