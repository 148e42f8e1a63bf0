"""The entries of a config file the run named on its command line that a mesh's computed sizes
are made from: where a report-only site's origin leads when the sizes are computed from other
values (`tuple(d * i for d, i in zip(dcn, ici))` over `config.dcn_data_parallelism`, ...).

The names the computation reads as attributes (`config.X`) are followed through the names its
function assigns and the return values of the module's functions it calls; an integer entry of
that name at the top of a YAML or JSON file the run's processes were given as an argument (a
file of the project's tree, not in .git) is a factor, named with its line. Nothing is changed
there: the report names each factor and what the sizes must multiply to."""

from __future__ import annotations

import ast
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jaxfix.evidence.facts import EnvironmentRead, Facts

_SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}
_MAX_STEPS = 64  # expressions followed from the sizes' expression
_MAX_BYTES = 1 << 20  # a config file larger than this is not read
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


@dataclass(frozen=True)
class Factor:
    """A config entry the sizes are made from: `key` at `line` of `path`, holding `value`."""

    path: Path
    line: int
    key: str
    value: int


def read_names(tree: ast.Module, node: ast.expr) -> set[str]:
    """The attribute names `node` reads (`config.X`: "X"), followed through the names its
    function assigns and the returned values of the module's functions it calls."""
    functions = {
        f.name: f
        for f in tree.body
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    modules = _imported_names(tree)
    pending: list[tuple[ast.AST | None, ast.AST]] = [(_enclosing(tree, node), node)]
    seen: set[int] = set()
    names: set[str] = set()
    while pending and len(seen) < _MAX_STEPS:
        function, expr = pending.pop()
        if id(expr) in seen:
            continue
        seen.add(id(expr))
        for part in ast.walk(expr):
            if (
                isinstance(part, ast.Attribute)
                and isinstance(part.ctx, ast.Load)
                and _root(part) not in modules
            ):
                names.add(part.attr)
            elif isinstance(part, ast.Name) and isinstance(part.ctx, ast.Load):
                pending += [(function, value) for value in _assigned(function, part.id)]
            if (
                isinstance(part, ast.Call)
                and isinstance(part.func, ast.Name)
                and part.func.id in functions
            ):
                called = functions[part.func.id]
                pending += [
                    (called, r.value)
                    for r in ast.walk(called)
                    if isinstance(r, ast.Return) and r.value is not None
                ]
    return names


def _imported_names(tree: ast.Module) -> set[str]:
    """The names imports bind anywhere in `tree` (`np`, `math`, `jax`): an attribute read on
    one (`np.size`) is a library's, never a config entry."""
    return {
        (alias.asname or alias.name).split(".")[0]
        for statement in ast.walk(tree)
        if isinstance(statement, ast.Import | ast.ImportFrom)
        for alias in statement.names
    }


def _root(node: ast.Attribute) -> str | None:
    """The name an attribute chain starts from (`self.config.x`: "self"), else None."""
    value: ast.expr = node.value
    while isinstance(value, ast.Attribute):
        value = value.value
    return value.id if isinstance(value, ast.Name) else None


def _enclosing(tree: ast.Module, node: ast.AST) -> ast.AST | None:
    """The innermost function of `tree` holding `node`."""
    found = None
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) and any(
            n is node for n in ast.walk(function)
        ):
            found = function
    return found


def _assigned(function: ast.AST | None, name: str) -> list[ast.expr]:
    """The values `function` assigns to `name` (as a whole or as one of a tuple's names)."""
    if function is None:
        return []
    found = []
    for statement in ast.walk(function):
        if isinstance(statement, ast.Assign):
            targets = [
                t
                for target in statement.targets
                for t in (target.elts if isinstance(target, ast.Tuple) else [target])
            ]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                found.append(statement.value)
    return found


def config_factors(
    names: set[str],
    arguments: Sequence[str],
    cwds: Sequence[Path],
    roots: Sequence[Path],
    sizes: dict[str, int],
) -> list[Factor]:
    """The integer top-level entries named in `names` of each config file the run was given
    (`arguments`, named from the run's one directory, `cwds`) that lies in the tree (`roots`);
    where entries name mesh axes (`sizes`, by axis name), only those of the axes not of size 1."""
    from jaxfix.sources.file_io import ReadError, read_regular
    from jaxfix.write.json_entry import NotAnEntry, find_entry, find_yaml_entry

    if len(set(cwds)) != 1:
        return []
    found: list[Factor] = []
    for argument in dict.fromkeys(arguments):
        kind = _SUFFIXES.get(os.path.splitext(argument)[1])
        if kind is None:
            continue
        file = Path(os.path.realpath(cwds[0] / argument))
        if ".git" in file.parts or not any(file.is_relative_to(r) for r in roots):
            continue
        try:
            data = read_regular(file, _MAX_BYTES, bound="1 MiB")
        except ReadError:
            continue
        finder = find_yaml_entry if kind == "yaml" else find_entry
        for key in sorted(n for n in names if _KEY.fullmatch(n)):
            try:
                entry = finder(data, (key,), scalar=True)
            except NotAnEntry:
                continue
            found.append(Factor(file, entry.line, key, entry.values[0]))
    return _of_sized_axes(found, sizes)


def environment_factors(
    names: set[str],
    reads: Sequence[EnvironmentRead],
    roots: Sequence[Path],
    total: int,
    product: int | None,
) -> list[tuple[Path, int, str]]:
    """The environment variables the run's code read (in the tree, not in .git) into one of
    `names` (`n = int(os.environ.get("N"))` beside `config.n`, or a local then passed as
    `n=...` in that function): each read's file, line and what to set it to, where its value
    in the run is the mesh's size (`total`) and the sizes must multiply to `product`."""
    from jaxfix.sources.file_io import ReadError, read_regular

    found = []
    for read in reads:
        file = Path(os.path.realpath(read.path))
        if ".git" in file.parts or not any(file.is_relative_to(r) for r in roots):
            continue
        try:
            tree = ast.parse(read_regular(file, _MAX_BYTES, bound="1 MiB"))
        except (ReadError, SyntaxError, ValueError):
            continue
        if not names & _read_into(tree, read.line):
            continue
        held = "unset" if read.value is None else read.value
        setting = (
            f": set it to {product}"
            if product is not None
            and read.value is not None
            and read.value.strip() == str(total)
            else ""
        )
        found.append(
            (
                read.path,
                read.line,
                f"the environment variable {read.variable}, {held} in the run{setting}",
            )
        )
    return found


def _read_into(tree: ast.Module, line: int) -> set[str]:
    """The names the statement at `line` binds (a name, an attribute, a keyword it passes),
    and the keywords its function passes a bound name as (`f(n=n)`)."""
    statements = [
        s
        for s in ast.walk(tree)
        if isinstance(s, ast.stmt)
        and not isinstance(s, _SCOPES)
        and s.lineno <= line <= (s.end_lineno or s.lineno)
    ]
    if not statements:
        return set()
    statement = min(statements, key=lambda s: (s.end_lineno or s.lineno) - s.lineno)
    targets = (
        statement.targets
        if isinstance(statement, ast.Assign)
        else [statement.target]
        if isinstance(statement, ast.AnnAssign | ast.AugAssign)
        else []
    )
    bound = {
        t.id if isinstance(t, ast.Name) else t.attr
        for target in targets
        for t in (target.elts if isinstance(target, ast.Tuple) else [target])
        if isinstance(t, ast.Name | ast.Attribute)
    }
    passed = {
        k.arg
        for call in ast.walk(statement)
        if isinstance(call, ast.Call)
        for k in call.keywords
        if k.arg is not None
    }
    function = _enclosing(tree, statement)
    forwarded = {
        k.arg
        for call in (ast.walk(function) if function is not None else ())
        if isinstance(call, ast.Call)
        for k in call.keywords
        if k.arg is not None and isinstance(k.value, ast.Name) and k.value.id in bound
    }
    return bound | passed | forwarded


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _of_sized_axes(factors: list[Factor], sizes: dict[str, int]) -> list[Factor]:
    """The factors whose keys name an axis of size other than 1 (`dcn_data_parallelism` of
    axis 'data'), when any key names an axis; else all."""
    named = [
        (f, axis) for f in factors for axis in sizes if axis in f.key.lower().split("_")
    ]
    if not named:
        return factors
    return [f for f, axis in named if sizes[axis] != 1] or [f for f, _ in named]


def as_run(factors: list[Factor], sizes: dict[str, int]) -> bool:
    """Whether the entries, as the files hold them now, give the run's size on every axis
    they name (each a positive integer): no override changed them in the run."""
    named = {
        axis: [f.value for f in factors if axis in f.key.lower().split("_")]
        for axis in sizes
    }
    named = {axis: values for axis, values in named.items() if values}
    return bool(named) and all(
        all(v > 0 for v in values) and math.prod(values) == sizes[axis]
        for axis, values in named.items()
    )


def target_size(facts: Facts | None, role: str | None) -> int | None:
    """The size the mesh of `role` must have: the one count the message states other than
    that mesh's size (JAX010's device assignment size), else the size of the one other mesh
    it names."""
    if facts is None or role is None or role not in facts:
        return None
    stated = [n for r, n in facts.counts if n != facts[role].size]
    if len(stated) == 1:
        return stated[0]
    others = [m for r, m in facts.meshes if r != role]
    return others[0].size if len(others) == 1 else None
