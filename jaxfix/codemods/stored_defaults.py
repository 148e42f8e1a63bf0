"""Where a value a method reads from `self` was given, when a keyword default gave it:
`self.out_sharding`, stored once by `__init__` from its parameter, is what the class's one
construction in the module passes (or that parameter's own default, when it passes nothing);
a parameter of the function making the instance (a factory) is followed to its keyword
default. Calls that pass their own value never take the default, so changing it changes
only what the instances built without one read."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.placement import arguments_of

_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class StoredDefault:
    """The keyword default `value` of parameter `parameter` of `function` (a factory, or the
    class's `__init__`), which the read's attribute holds when nothing else is passed."""

    value: ast.expr
    parameter: str
    function: str


def stored_default(analysis: Analysis, read: ast.expr) -> StoredDefault | str | None:
    """The default `read` (`self.attr` in a method) holds, when the module reads `.attr` only
    there and stores it only in the class's `__init__`, from a parameter followed as above;
    why not, when `__init__` stores it but it is read elsewhere too; None otherwise."""
    if not (
        isinstance(read, ast.Attribute)
        and isinstance(read.value, ast.Name)
        and isinstance(read.ctx, ast.Load)
    ):
        return None
    method = _method_of(analysis, read)
    if method is None:
        return None
    cls = analysis.parents.get(method)
    if not isinstance(cls, ast.ClassDef):
        return None
    tree = analysis.module.tree
    touched = [  # `.attr` of this class's `self`, or of any other object
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and n.attr == read.attr
        and owner_of(analysis, n) in (cls, None)
    ]
    stores = [n for n in touched if not isinstance(n.ctx, ast.Load)]
    loads = [n for n in touched if isinstance(n.ctx, ast.Load)]
    if len(stores) != 1:
        return None
    if loads != [read]:
        lines = sorted({analysis.line(n) for n in loads if n is not read})
        return (
            f"`{analysis.text(read)}` is stored at line {analysis.line(stores[0])} and also "
            f"read at line {lines[0]}: what it is given is not changed for one read"
        )
    init = next(
        (
            s
            for s in cls.body
            if isinstance(s, ast.FunctionDef) and s.name == "__init__"
        ),
        None,
    )
    statement = analysis.parents.get(stores[0])
    if (
        init is None
        or statement not in init.body
        or not isinstance(statement, ast.Assign)
        or len(statement.targets) != 1
        or not isinstance(statement.value, ast.Name)
        or not init.args.args
        or not (
            isinstance(stores[0].value, ast.Name)
            and stores[0].value.id == init.args.args[0].arg
        )
    ):
        return None
    name = statement.value.id
    if name in _parameters(init):
        if len(_reads(init, name)) != 1:
            return None  # `__init__` uses what it is given otherwise too
        return _constructed_with(analysis, cls, init, name)
    outer = analysis.parents.get(cls)  # a class made in its factory's body
    if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _default(outer, name)
    return None


def owner_of(analysis: Analysis, node: ast.Attribute) -> ast.ClassDef | None:
    """The class whose method's `self` `node` is an attribute of (`self.attr`), else None."""
    method = _method_of(analysis, node) if isinstance(node.value, ast.Name) else None
    owner = analysis.parents.get(method) if method is not None else None
    return owner if isinstance(owner, ast.ClassDef) else None


def _method_of(analysis: Analysis, node: ast.Attribute) -> _Function | None:
    """The method whose first parameter `node`'s `self` names, through lambdas in it."""
    if not isinstance(node.value, ast.Name):
        return None
    me = node.value.id
    current = analysis.parents.get(node)
    while current is not None and not isinstance(
        current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    ):
        if isinstance(current, ast.Lambda) and me in _parameters(current):
            return None
        current = analysis.parents.get(current)
    if not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    first = current.args.args[0].arg if current.args.args else None
    return current if first == me else None


def _constructed_with(
    analysis: Analysis, cls: ast.ClassDef, init: ast.FunctionDef, name: str
) -> StoredDefault | None:
    """The default the class's one construction in the module gives `__init__`'s `name`:
    `__init__`'s own when it passes nothing, else the keyword default of the parameter of
    the function around it that it passes on."""
    uses = [
        n
        for n in ast.walk(analysis.module.tree)
        if isinstance(n, ast.Name) and n.id == cls.name
    ]
    calls = [
        call
        for n in uses
        if isinstance(call := analysis.parents.get(n), ast.Call) and call.func is n
    ]
    if len(calls) != 1 or len(uses) != 1:
        return None  # built in several places, or named as a value
    bound = arguments_of(
        ast.Call(
            calls[0].func, [ast.Constant(None), *calls[0].args], calls[0].keywords
        ),
        init,
    )
    if bound is None:
        return None
    if name not in bound:
        return _default(init, name, f"{cls.name}.__init__")
    passed = bound[name]
    factory = analysis.module.scope_of(calls[0])
    if (
        not isinstance(passed, ast.Name)
        or not isinstance(factory, (ast.FunctionDef, ast.AsyncFunctionDef))
        or passed.id not in _parameters(factory)
        or _assigned(factory, passed.id)
    ):
        return None
    return _default(factory, passed.id)


def _parameters(function: _Function | ast.Lambda) -> set[str]:
    a = function.args
    return {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}


def _assigned(function: _Function, name: str) -> bool:
    """Whether the body of `function` binds `name` again."""
    return any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
        for s in function.body
        for n in ast.walk(s)
    )


def _default(
    function: _Function, name: str, shown: str | None = None
) -> StoredDefault | None:
    """The keyword default of `function`'s parameter `name` (`shown`: the function's name
    as the report gives it), when its body does not bind `name` again and reads it once
    (passing it on: nothing else there reads the default)."""
    a = function.args
    positional = [*a.posonlyargs, *a.args]
    defaults = dict(
        zip(
            [p.arg for p in positional[len(positional) - len(a.defaults) :]], a.defaults
        )
    )
    defaults.update(
        (p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None
    )
    value = defaults.get(name)
    if value is None or _assigned(function, name) or len(_reads(function, name)) != 1:
        return None
    return StoredDefault(value, name, shown or function.name)


def _reads(function: _Function, name: str) -> list[ast.Name]:
    """The reads of `name` in the body of `function` (functions and classes in it too)."""
    return [
        n
        for statement in function.body
        for n in ast.walk(statement)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]
