"""Whether a method reaches a value only through a call: pure syntax over the modules that
may read it (the evaluator asks this, evaluate.py).

A method is a value only where code reads it as an attribute without calling it there
(`fn = worker.draft`, `jax.jit(self.step)`) or names it by a string (`getattr(worker,
"draft")`, `vars(worker)["draft"]`). When no code of the project does, a variable of the same
name (`next_ids, draft = runner.forward(ids)`, a local `draft = None`) never holds it,
whatever its value: sglang-jax's `draft` method and the local `draft` its caller keeps.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from jaxfix.analysis.ast_engine.project import Module

# calls that read an attribute by the string they are given
_BY_STRING = frozenset(
    {"getattr", "attrgetter", "methodcaller", "getattr_static", "__getattribute__"}
)


def read_only_when_called(modules: Iterable[Module], name: str) -> bool:
    """Whether no code of `modules` (every module holding the word `name`) reads `.name`
    without calling it at once, reads `name` in a class body (where it is the method
    itself), or names it by a string an attribute lookup may be given: a call of one of
    `_BY_STRING` with that string or a name computed at run time, or the string as a key or
    an item of a collection (`vars(obj)["name"]`, `for n in ("name",): getattr(obj, n)`)."""
    for module in modules:
        for use in module.loads_by_name.get(name, ()):
            parent = module.parents.get(use)
            if isinstance(use, ast.Attribute):
                if not (isinstance(parent, ast.Call) and parent.func is use):
                    return False
            elif isinstance(module.scope_of(use), ast.ClassDef):
                return False
        for call in module.calls:
            if _callee_name(call.func) in _BY_STRING and not all(
                isinstance(a, ast.Constant) and a.value != name for a in call.args[1:]
            ):
                return False
        for node in ast.walk(module.tree):
            if (
                isinstance(node, ast.Constant)
                and node.value == name
                and isinstance(
                    module.parents.get(node),
                    (ast.Subscript, ast.Tuple, ast.List, ast.Set, ast.Dict),
                )
            ):
                return False
    return True


def _callee_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
