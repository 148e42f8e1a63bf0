"""A class whose attributes are the items of a dict it keeps (ml_collections' `ConfigDict`,
or a project's stand-in for it: `__setattr__` stores `self._fields[name] = value`,
`__getattr__` reads `self._fields[name]`, `__init__` makes `_fields` with
`object.__setattr__`): pure syntax, no values (evaluate.py's `_field_dict_made` evaluates
what `__init__` starts the dict with)."""

from __future__ import annotations

import ast


def _body(function: ast.FunctionDef) -> list[ast.stmt]:
    """The statements of `function` but a leading docstring."""
    body = function.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[1:]
    return body


def _item_of(node: ast.AST, me: str, field: str | None, key: str) -> str | None:
    """`me.<field>[key]`: the field's name (any when `field` is None), else None."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and isinstance(node.value.value, ast.Name)
        and node.value.value.id == me
        and isinstance(node.slice, ast.Name)
        and node.slice.id == key
        and (field is None or node.value.attr == field)
    ):
        return None
    return node.value.attr


def _plain_params(function: ast.FunctionDef, count: int) -> list[str] | None:
    a = function.args
    if (
        a.posonlyargs
        or a.vararg
        or a.kwonlyargs
        or a.kwarg
        or a.defaults
        or len(a.args) != count
        or function.decorator_list
    ):
        return None
    return [p.arg for p in a.args]


def kept_dict(cls: ast.ClassDef) -> tuple[str, ast.expr] | None:
    """`(field, start)` when the objects of `cls` keep their attributes as items of the dict
    `self.<field>`: `__setattr__(self, k, v)` is `self.<field>[k] = v` alone, every return of
    `__getattr__(self, k)` is `self.<field>[k]` (it may raise), and the one statement of
    `__init__` sets the field through `object.__setattr__(self, "<field>", start)` or
    `super().__setattr__("<field>", start)`; None otherwise."""
    methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}
    setter, getter = methods.get("__setattr__"), methods.get("__getattr__")
    init = methods.get("__init__")
    if setter is None or getter is None or init is None:
        return None
    set_params, get_params = _plain_params(setter, 3), _plain_params(getter, 2)
    if set_params is None or get_params is None:
        return None
    body = _body(setter)
    if not (len(body) == 1 and isinstance(body[0], ast.Assign)):
        return None
    store = body[0]
    me, key, value = set_params
    field = (
        _item_of(store.targets[0], me, None, key) if len(store.targets) == 1 else None
    )
    if field is None or not (
        isinstance(store.value, ast.Name) and store.value.id == value
    ):
        return None
    returns = [n for n in ast.walk(getter) if isinstance(n, ast.Return)]
    if not returns or not all(
        r.value is not None and _item_of(r.value, get_params[0], field, get_params[1])
        for r in returns
    ):
        return None
    if any(
        isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete))
        for n in ast.walk(getter)
    ):
        return None
    start = _init_start(init, field)
    if start is None:
        return None
    return field, start


def _init_start(init: ast.FunctionDef, field: str) -> ast.expr | None:
    """What `__init__`'s one statement starts `self.<field>` with (`object.__setattr__(self,
    "<field>", start)` or `super().__setattr__("<field>", start)`), every parameter but
    `self` having a default; None otherwise."""
    a = init.args
    if a.posonlyargs or a.vararg or a.kwarg or not a.args:
        return None
    if len(a.defaults) != len(a.args) - 1 or any(d is None for d in a.kw_defaults):
        return None
    body = _body(init)
    if not (
        len(body) == 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Call)
    ):
        return None
    call = body[0].value
    func = call.func
    me = a.args[0].arg
    if not (isinstance(func, ast.Attribute) and func.attr == "__setattr__"):
        return None
    if call.keywords:
        return None
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id == "object":
        args = call.args
        if not (len(args) == 3 and isinstance(args[0], ast.Name) and args[0].id == me):
            return None
        args = args[1:]
    elif (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Name)
        and receiver.func.id == "super"
        and not receiver.args
    ):
        args = call.args
    else:
        return None
    if not (
        len(args) == 2 and isinstance(args[0], ast.Constant) and args[0].value == field
    ):
        return None
    return args[1]
