"""Whether reading an expression again gives the value its first read gave, running nothing.

A name does; an attribute chain on one (`self.mesh`, `self.cfg.mesh`, `trainer.mesh`) does
when each attribute is kept where it is read (the evaluator's `plain_attribute`: no property,
method, descriptor or `__getattr__` of a class the engine sees, nor of a module), and nothing
that runs between the two reads can store it: that code (`between`) calls no function but
JAX's, stores no attribute of the chain's name and binds none of its names. Anything else (a
call, an entry, a class the engine cannot see) is not proven, and a fix binds it or refuses.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.project import Module


def rereads_same(
    evaluator: Evaluator,
    module: Module,
    expr: ast.expr,
    between: Iterable[ast.AST],
    is_jax_call: Callable[[ast.Call], bool],
) -> bool:
    """Whether `expr`, read once more after the code `between` ran, is the same object."""
    names, attributes = set(), set()
    node = expr
    while isinstance(node, ast.Attribute):
        if not evaluator.plain_attribute(module, node):
            return False
        attributes.add(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return False
    names.add(node.id)
    return not any(
        _may_store(inner, names, attributes, is_jax_call)
        for outer in between
        for inner in ast.walk(outer)
    )


def attributes_kept(evaluator: Evaluator, module: Module, expr: ast.expr) -> bool:
    """Whether every attribute of the chain `expr` (entries allowed: `self._meshes["k"]`)
    is kept on its object: read again, it runs no getter."""
    node = expr
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute) and not evaluator.plain_attribute(
            module, node
        ):
            return False
        node = node.value
    return isinstance(node, ast.Name)


def _may_store(
    node: ast.AST,
    names: set[str],
    attributes: set[str],
    is_jax_call: Callable[[ast.Call], bool],
) -> bool:
    if isinstance(node, ast.Call):
        return not is_jax_call(node)
    if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
        return True  # other code runs while this one waits
    if isinstance(node, ast.Name):
        return node.id in names and not isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.Attribute):
        return node.attr in attributes and not isinstance(node.ctx, ast.Load)
    return isinstance(node, (ast.Global, ast.Nonlocal))
