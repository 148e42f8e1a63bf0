"""Where a name's value is written: the expression a read stands for, the `def` it denotes, the
reads an assignment reaches (flow.py's reaching bindings, one module).

A rule that looks at how code is written (`g = jax.jit(f)`, then `g.lower(x)`; `lowered =
...lower()`, then `lowered.compile()`) asks these instead of values: the expression is followed
only through the one plain `name = value` (or `name := value`) that reaches the read; two
bindings reaching it, unpacking, a parameter, an import or a loop variable end it there.
"""

from __future__ import annotations

import ast
from pathlib import Path

from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.flow import Binding
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import ModuleValue, Unknown

_MAX_STEPS = 32


def written_as(evaluator: Evaluator, module: Module, expr: ast.expr) -> ast.expr:
    """`expr`, or for a name the expression its one reaching plain assignment gives (followed
    on while that is a name too)."""
    seen: set[ast.AST] = set()
    for _ in range(_MAX_STEPS):
        if not isinstance(expr, ast.Name) or expr in seen:
            return expr
        seen.add(expr)
        binding = _one_binding(evaluator, module, expr)
        value = _assigned(binding) if binding is not None else None
        if value is None:
            return expr
        expr = value
    return expr


def definition(
    evaluator: Evaluator, module: Module, name: ast.Name
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The `def` a read of `name` denotes, when that is the one binding reaching it."""
    binding = _one_binding(evaluator, module, name)
    if binding is None or binding.kind != "def":
        return None
    node = binding.node
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def bound_once(evaluator: Evaluator, module: Module, name: ast.Name) -> bool:
    """Whether one binding reaches the read `name`."""
    return _one_binding(evaluator, module, name) is not None


def reads_reached(
    evaluator: Evaluator, module: Module, statement: ast.stmt, name: str
) -> list[ast.Name]:
    """The reads of `name` in this module that the binding `statement` makes may reach."""
    found = []
    for use in module.loads_by_name.get(name, ()):
        if not isinstance(use, ast.Name):
            continue
        bindings = evaluator.reaching(module, use)
        if bindings and any(b.node is statement for b in bindings):
            found.append(use)
    return found


def assigned_once(module: Module, name: str) -> ast.expr | None:
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
    if len(values) != 1:
        return (
            None  # most names asked are a `def`'s or an import's: no walk of the module
        )
    stores = (
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
    )
    first, second = next(stores, None), next(stores, None)
    return values[0] if first is not None and second is None else None


def written_elsewhere(
    evaluator: Evaluator, module: Module, name: ast.Name | ast.Attribute
) -> tuple[Module, ast.expr] | None:
    """The module and expression a read of `name` stands for: its one reaching plain
    assignment here, or, for a name one `from m import NAME` binds, the one top-level
    assignment of `NAME` in the project's module `m` (`SHARD_KWARGS = {...}`); for
    `m.NAME`, where `m` is a module of the project, that assignment in `m`."""
    if isinstance(name, ast.Attribute):
        return _module_attribute_assignment(evaluator, module, name)
    written = written_as(evaluator, module, name)
    if written is not name:
        return module, written
    binding = _one_binding(evaluator, module, name)
    if binding is None or binding.kind != "import":
        return None
    return imported_assignment(evaluator, module, binding.node)


def _module_attribute_assignment(
    evaluator: Evaluator, module: Module, read: ast.Attribute
) -> tuple[Module, ast.expr] | None:
    owner = evaluator.value_of(module, read.value)
    if not isinstance(owner, ModuleValue) or owner.path is None:
        return None
    return _assigned_at_top(evaluator, owner.path, read.attr)


def _assigned_at_top(
    evaluator: Evaluator, path: Path, name: str
) -> tuple[Module, ast.expr] | None:
    """The module at `path` and the one top-level assignment of `name` there."""
    target = evaluator.module(path)
    if isinstance(target, Unknown):
        return None
    value = assigned_once(target, name)
    return None if value is None else (target, value)


def imported_assignment(
    evaluator: Evaluator, module: Module, alias: ast.AST
) -> tuple[Module, ast.expr] | None:
    """For `alias`, a name of a `from m import NAME` in `module`: the project's module `m`
    and the one top-level assignment of `NAME` there."""
    statement = module.parents.get(alias)
    if not isinstance(alias, ast.alias) or not isinstance(statement, ast.ImportFrom):
        return None
    found = evaluator.project.find(statement.module or "", statement.level, module.path)
    if isinstance(found, Unknown) or found.path is None:
        return None
    return _assigned_at_top(evaluator, found.path, alias.name)


def _one_binding(
    evaluator: Evaluator, module: Module, name: ast.Name
) -> Binding | None:
    bindings = evaluator.reaching(module, name)
    if not bindings or len(bindings) != 1:
        return None
    return next(iter(bindings))


def _assigned(binding: Binding) -> ast.expr | None:
    if binding.kind != "assign" or binding.path:
        return None
    node = binding.node
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
        return node.value
    return None
