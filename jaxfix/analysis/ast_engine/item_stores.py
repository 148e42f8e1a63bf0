"""The shape of a dict attribute a class fills only through its own `__setitem__`
(keras' `LayoutMap`: `self._layout_map = collections.OrderedDict()` in `__init__`,
`self._layout_map[key] = layout` in `__setitem__`, read by `__getitem__`): pure syntax, no
values (the evaluator evaluates what these find, evaluate.py)."""

from __future__ import annotations

import ast

_EMPTY_DICT_CALLS = frozenset({"dict", "OrderedDict"})


def first_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    params = [*function.args.posonlyargs, *function.args.args]
    return params[0].arg if params else None


def own_method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    """The undecorated `def name` of the class's own body."""
    for statement in cls.body:
        if (
            isinstance(statement, ast.FunctionDef)
            and statement.name == name
            and not statement.decorator_list
        ):
            return statement
    return None


def _is_empty_dict(expr: ast.expr) -> bool:
    """`{}`, `dict()`, `OrderedDict()`, `collections.OrderedDict()`."""
    if isinstance(expr, ast.Dict):
        return not expr.keys
    if not isinstance(expr, ast.Call) or expr.args or expr.keywords:
        return False
    func = expr.func
    name = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else None
    )
    return name in _EMPTY_DICT_CALLS


def starts_empty(init: ast.FunctionDef, attr: str) -> bool:
    """`__init__`'s body sets `self.<attr>` to an empty dict, once, as a statement of its
    own (not under an `if`)."""
    owner = first_parameter(init)
    found = [
        s
        for s in init.body
        if isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and _on(s.targets[0], owner, attr)
    ]
    return len(found) == 1 and _is_empty_dict(found[0].value)


def item_stores(function: ast.FunctionDef, attr: str) -> list[ast.Assign]:
    """The statements `self.<attr>[key] = value` of `function` (`self`: its first
    parameter)."""
    owner = first_parameter(function)
    return [
        node
        for node in ast.walk(function)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Subscript)
        and _on(node.targets[0].value, owner, attr)
    ]


def removes_item(use: ast.Attribute, parents: dict[ast.AST, ast.AST]) -> bool:
    """`del X.<attr>[k]` or `X.<attr>.pop(...)`: a change of the dict that adds nothing."""
    parent = parents.get(use)
    if isinstance(parent, ast.Subscript) and parent.value is use:
        return isinstance(parent.ctx, ast.Del)
    return (
        isinstance(parent, ast.Attribute)
        and parent.attr == "pop"
        and isinstance(parents.get(parent), ast.Call)
    )


def _on(target: ast.expr, owner: str | None, attr: str) -> bool:
    return (
        isinstance(target, ast.Attribute)
        and target.attr == attr
        and isinstance(target.value, ast.Name)
        and target.value.id == owner
    )
