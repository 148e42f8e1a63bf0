"""A setup method that stores an attribute, run before any other use of every object of its
class (`def setup_mesh(self): self.mesh = jax.make_mesh(...)`, then `t = Trainer(cfg);
t.setup_mesh()` in the script, or `self._setup_sharding()` in `__init__`): pure syntax, no
values (the evaluator evaluates the store, evaluate.py's `_set_up_by_method`)."""

from __future__ import annotations

import ast
from typing import Protocol


class _Parents(Protocol):
    """A parsed module's map from each node to the node holding it."""

    @property
    def parents(self) -> dict[ast.AST, ast.AST]: ...


def setup_method(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name of `self` when `function` is a plain method taking `self` alone (no
    decorator, no other parameter): a setup method the evaluator may run on its own."""
    args = function.args
    if (
        isinstance(function, ast.AsyncFunctionDef)
        or function.decorator_list
        or args.posonlyargs
        or len(args.args) != 1
        or args.vararg is not None
        or args.kwonlyargs
        or args.kwarg is not None
    ):
        return None
    return args.args[0].arg


def stores_first(
    function: ast.FunctionDef | ast.AsyncFunctionDef, me: str, name: str
) -> bool:
    """Whether a statement of `function`'s own body (not under an `if`, a loop or a `try`)
    is `me.name = ...`, and no statement before it may leave the function (`return`,
    `raise`) but a memoizing test (`if me.name is not None: return`): the store runs on
    every way through it that finds the attribute unset."""
    for statement in function.body:
        if _memo_test(statement, me, name):
            continue
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Attribute)
            and statement.targets[0].attr == name
            and isinstance(statement.targets[0].value, ast.Name)
            and statement.targets[0].value.id == me
        ):
            return True
        if any(isinstance(n, (ast.Return, ast.Raise)) for n in ast.walk(statement)):
            return False
    return False


def _memo_test(statement: ast.stmt, me: str, name: str) -> bool:
    """`if me.name is not None: return` (no `else`)."""
    if not (
        isinstance(statement, ast.If)
        and not statement.orelse
        and len(statement.body) == 1
        and isinstance(statement.body[0], ast.Return)
        and statement.body[0].value is None
    ):
        return False
    test = statement.test
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Attribute)
        and test.left.attr == name
        and isinstance(test.left.value, ast.Name)
        and test.left.value.id == me
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def memo_returns(
    function: ast.FunctionDef | ast.AsyncFunctionDef, me: str, name: str
) -> set[ast.stmt]:
    """The `return` of each memoizing test of `function`'s own body (`if me.name is not
    None: return`): the ways out that find the attribute set already."""
    return {
        s.body[0]
        for s in function.body
        if isinstance(s, ast.If) and _memo_test(s, me, name)
    }


def called_before(
    module: _Parents, cls: ast.ClassDef, at: ast.AST, method: str
) -> bool:
    """Whether `at`, a read `self.<attr>` of a method of `cls` (its own code, no nested
    function) on its own first parameter, comes after a statement of that method's own
    body that runs `self.method()`."""
    for function in cls.body:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = [*function.args.posonlyargs, *function.args.args]
        if not params or function.decorator_list:
            continue
        top: ast.AST | None = at
        while top is not None and module.parents.get(top) is not function:
            top = module.parents.get(top)
            if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                top = None  # a nested function's code runs when it is called
        if top is None or top not in function.body:
            continue
        if not (
            isinstance(at, ast.Attribute)
            and isinstance(at.value, ast.Name)
            and at.value.id == params[0].arg
        ):
            return False  # another object's attribute
        index = function.body.index(top)
        return any(
            _calls_method(s, params[0].arg, method) for s in function.body[:index]
        )
    return False


def _calls_method(statement: ast.stmt, receiver: str, method: str) -> bool:
    """Whether `statement` is `receiver.method()` alone."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and not call.args
        and not call.keywords
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == method
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == receiver
    )


def _object_used(nodes: list[ast.stmt], this: str) -> bool:
    """Whether `nodes` may run a method of the object `this` names, or hand it on: any use of
    the name but the receiver of an attribute store or of an attribute read that is not
    called."""
    for statement in nodes:
        parents = {c: p for p in ast.walk(statement) for c in ast.iter_child_nodes(p)}
        for node in ast.walk(statement):
            if not (isinstance(node, ast.Name) and node.id == this):
                continue
            attribute = parents.get(node)
            if not isinstance(attribute, ast.Attribute):
                return True
            if isinstance(attribute.ctx, ast.Store):
                continue
            above = parents.get(attribute)
            if isinstance(above, ast.Call) and above.func is attribute:
                return True
    return False


def called_first_in_init(init: ast.FunctionDef, method: str) -> bool:
    """Whether `__init__` runs `self.method()` as a statement of its own body, and no
    statement before it may run another method of the object or hand it on."""
    params = [*init.args.posonlyargs, *init.args.args]
    if not params:
        return False
    this = params[0].arg
    for index, statement in enumerate(init.body):
        if _calls_method(statement, this, method):
            return not _object_used(init.body[:index], this)
    return False


def init_uses_object(init: ast.FunctionDef) -> bool:
    """Whether `__init__` may run a method of the object it builds or hand it on."""
    params = [*init.args.posonlyargs, *init.args.args]
    return not params or _object_used(init.body, params[0].arg)


def set_up_after(
    call: ast.Call, parents: dict[ast.AST, ast.AST], method: str
) -> ast.Call | None:
    """The call `x.method()` when `call` (a construction) is bound as `x = call`, a
    statement of a body, and the very next statement of that body is `x.method()`; None
    otherwise (the object used first, handed on, or built in an expression)."""
    binding = parents.get(call)
    if not (
        isinstance(binding, ast.Assign)
        and binding.value is call
        and len(binding.targets) == 1
        and isinstance(binding.targets[0], ast.Name)
    ):
        return None
    name = binding.targets[0].id
    holder = parents.get(binding)
    for field in ("body", "orelse", "finalbody"):
        body = getattr(holder, field, None)
        if isinstance(body, list) and binding in body:
            index = body.index(binding)
            following = body[index + 1] if index + 1 < len(body) else None
            if following is not None and _calls_method(following, name, method):
                assert isinstance(following, ast.Expr)
                assert isinstance(following.value, ast.Call)
                return following.value
            return None
    return None
