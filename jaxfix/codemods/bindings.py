"""A value a fix must read more than once, bound to a local first: `w = self.w` one statement
before the statement that read it, so the fix reads the local and the expression is evaluated
once, where and when it was (an attribute read twice may change between the reads, a call
would run twice)."""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.analysis import Analysis

if TYPE_CHECKING:
    import libcst as cst

    from jaxfix.ground.diagnostics import Edit


@dataclass(frozen=True)
class Binding:
    """`name = <expr>` written before `statement`, and `expr` read as `name` from then on."""

    name: str
    statement: ast.stmt
    expr: ast.expr

    def edit(self, text: str) -> Edit:
        """The edit of `statement` that puts the binding before it."""
        name = self.name

        def put(old: cst.CSTNode) -> cst.FlattenSentinel[cst.CSTNode]:
            from jaxfix.write.cst_edits import bound_before

            return bound_before(old, name, text)

        return put


def first_evaluated(analysis: Analysis, expr: ast.expr) -> ast.stmt | None:
    """The statement whose evaluation starts with `expr`, so that evaluating `expr` one
    statement earlier changes no order: `return f(expr, ...)`, `y = f(expr, ...)`,
    `f(expr, ...)` (f a name or attribute chain), or `with g(expr):` as its first item; None
    for anything else (a call in between, a branch, a comprehension)."""
    node: ast.AST = expr
    while (parent := analysis.parents.get(node)) is not None:
        if isinstance(parent, ast.Call):
            if not (parent.args and parent.args[0] is node):
                return None
            if not _reference(parent.func):
                return None
        elif isinstance(parent, ast.withitem):
            if parent.context_expr is not node:
                return None
        elif isinstance(parent, (ast.With, ast.AsyncWith)):
            return parent if parent.items[0] is node else None
        elif isinstance(parent, (ast.Return, ast.Expr, ast.Assign)):
            return parent if parent.value is node else None
        else:
            return None
        node = parent
    return None


def fresh_name(
    analysis: Analysis, wanted: str, at: ast.stmt, avoid: frozenset[str] = frozenset()
) -> str:
    """`wanted`, or `wanted_2`, ...: a name that nothing in the function holding `at` (the
    whole module, outside a function) binds or reads, nor a builtin, so binding it there
    shadows nothing and is shadowed by nothing."""
    scope: ast.AST = analysis.module.tree
    parent = analysis.parents.get(at)
    while parent is not None:
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope = parent
            break
        parent = analysis.parents.get(parent)
    taken = set(dir(builtins)) | avoid
    for node in ast.walk(scope):
        if isinstance(node, ast.Name):
            taken.add(node.id)
        elif isinstance(node, ast.arg):
            taken.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            taken.add(node.name)
        elif isinstance(node, ast.alias):
            taken.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            taken.update(node.names)
    name, number = wanted, 1
    while name in taken:
        number += 1
        name = f"{wanted}_{number}"
    return name


def local_for(
    analysis: Analysis,
    expr: ast.expr,
    wanted: str,
    read_at: ast.AST | None = None,
    avoid: frozenset[str] = frozenset(),
) -> Binding | None:
    """The binding of `expr` before the statement that starts by evaluating it, named after its
    attribute (`self.w`: `w`) or `wanted`, none of `avoid` (another binding of the same fix);
    None where no such statement is, or where it is in another scope than `read_at`, the
    place the local is read (a mesh entered in `setUp`)."""
    statement = first_evaluated(analysis, expr)
    if statement is None or (
        read_at is not None
        and enclosing_scope(analysis, statement)
        is not enclosing_scope(analysis, read_at)
    ):
        return None
    name = expr.attr if isinstance(expr, ast.Attribute) else wanted
    return Binding(
        fresh_name(analysis, name.lower(), statement, avoid), statement, expr
    )


def _reference(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def enclosing_scope(analysis: Analysis, node: ast.AST) -> ast.AST | None:
    """The function, lambda or class whose body holds `node` (None: the module's)."""
    parent = analysis.parents.get(node)
    while parent is not None and not isinstance(
        parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    ):
        parent = analysis.parents.get(parent)
    return parent
