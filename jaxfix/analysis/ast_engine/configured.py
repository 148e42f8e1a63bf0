"""An object its building function configures before it escapes (axlearn's
`cfg = Runner.default_config()`, `cfg.mesh_shape = (2, 4)`, `cfg.set(name=...)`, then
`return cfg`), and a method that sets the keywords it is given (`ConfigBase.set(**kwargs)`):
pure syntax, no values (the evaluator evaluates what these find, evaluate.py)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxfix.analysis.ast_engine.item_stores import first_parameter
from jaxfix.analysis.ast_engine.mutation import reads_only


@dataclass(frozen=True)
class Configuring:
    """One statement of the building function that configures the object: a store
    `name.attr = value` (`attr` set), or a method call `name.method(...)` as a statement."""

    statement: ast.stmt
    attr: str | None
    value: ast.expr  # the stored value, or the call


def configuring(
    scope: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    binding: ast.Assign,
    uses: list[ast.Name],
    parents: dict[ast.AST, ast.AST],
) -> list[Configuring] | None:
    """The statements of `scope`'s own body after `binding` (`name = ...`, one of the body's
    statements) that configure the object `name` holds, in order, when every other use of
    `name` in the scope (`uses`: its loads) is an attribute read (`name.attr`) or comes after
    the last of them (the object escapes, passed on or returned, only once it is whole; an
    attribute read that may change what it holds counts as an escape);
    None otherwise (a store under an `if`, in a loop, on a nested attribute, or a use in a
    nested function)."""
    body = scope.body
    start = body.index(binding)
    found: list[Configuring] = []
    escapes: list[int] = []
    passed: list[tuple[str, int]] = []  # attributes read where they may be changed
    for use in uses:
        top = _top_statement(use, scope, parents)
        if top is None:
            return None  # in a nested function or class: it may run at any time
        parent = parents.get(use)
        if not (isinstance(parent, ast.Attribute) and parent.value is use):
            escapes.append(body.index(top))
            continue
        above = parents.get(parent)
        if isinstance(parent.ctx, ast.Store):
            if not (
                isinstance(above, ast.Assign)
                and above.targets == [parent]
                and above is top
            ):
                return None
            found.append(Configuring(top, parent.attr, above.value))
        elif isinstance(above, ast.Call) and above.func is parent:
            statement = parents.get(above)
            if isinstance(statement, ast.Expr) and statement is top:
                found.append(Configuring(top, None, above))
            else:
                escapes.append(body.index(top))  # a method's call may change it
        elif not isinstance(parent.ctx, ast.Load):
            return None  # `del name.attr`
        elif not reads_only(parent, parents):
            passed.append((parent.attr, body.index(top)))
    if not found:
        return None
    found.sort(key=lambda c: body.index(c.statement))
    for attr, index in passed:
        # `name.items.append(x)`, `name.sub.x = v`, `f(name.sub)`: what the attribute holds
        # may change, as if the object had escaped; not a tuple of constants stored here
        stores = [c for c in found if c.attr == attr]
        if not (
            stores
            and body.index(stores[0].statement) < index
            and all(_immutable(c.value) for c in stores)
        ):
            escapes.append(index)
    first, last = body.index(found[0].statement), body.index(found[-1].statement)
    if first <= start or any(i <= last for i in escapes):
        return None
    return found


def _immutable(expr: ast.expr) -> bool:
    """A constant, or a tuple display of them (`(2, 4)`, `("data", "model")`)."""
    if isinstance(expr, ast.Tuple):
        return all(_immutable(e) for e in expr.elts)
    return isinstance(expr, ast.Constant)


def _top_statement(
    node: ast.AST, scope: ast.AST, parents: dict[ast.AST, ast.AST]
) -> ast.stmt | None:
    """The statement of `scope`'s own body that holds `node`; None when a nested function,
    lambda or class holds it first."""
    current = node
    while True:
        parent = parents.get(current)
        if parent is None:
            return None
        if parent is scope:
            return current if isinstance(current, ast.stmt) else None
        if isinstance(
            parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            return None
        current = parent


def keyword_setter(function: ast.FunctionDef) -> bool:
    """A method that sets each keyword it is given as an attribute and returns the object:
    `def set(self, **kwargs): for k, v in kwargs.items(): setattr(self, k, v)`, then
    `return self` (the loop's body may first test the key and raise)."""
    me = first_parameter(function)
    kwarg = function.args.kwarg
    a = function.args
    if me is None or kwarg is None or len(a.args) != 1 or a.kwonlyargs or a.vararg:
        return False
    if len(function.body) < 2:
        return False
    *loops, last = function.body
    if not (
        isinstance(last, ast.Return)
        and isinstance(last.value, ast.Name)
        and last.value.id == me
    ):
        return False
    loop = loops[-1]
    if not (
        all(
            isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
            for s in loops[:-1]
        )
        and isinstance(loop, ast.For)
        and not loop.orelse
        and _items_of(loop.iter, kwarg.arg)
        and isinstance(loop.target, ast.Tuple)
        and len(loop.target.elts) == 2
        and all(isinstance(e, ast.Name) for e in loop.target.elts)
    ):
        return False
    key, value = (e.id for e in loop.target.elts if isinstance(e, ast.Name))
    *tests, store = loop.body
    return all(_raises_only(t) for t in tests) and _setattr_of(store, me, key, value)


def _items_of(node: ast.expr, kwargs: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and not node.args
        and not node.keywords
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "items"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == kwargs
    )


def _raises_only(statement: ast.stmt) -> bool:
    """`if <test>: raise ...` (no `else`)."""
    return (
        isinstance(statement, ast.If)
        and not statement.orelse
        and len(statement.body) == 1
        and isinstance(statement.body[0], ast.Raise)
    )


def _setattr_of(statement: ast.stmt, me: str, key: str, value: str) -> bool:
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    call = statement.value
    return (
        isinstance(call.func, ast.Name)
        and call.func.id == "setattr"
        and not call.keywords
        and [a.id if isinstance(a, ast.Name) else None for a in call.args]
        == [me, key, value]
    )
