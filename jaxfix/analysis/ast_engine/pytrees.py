"""The children of a pytree node the code builds as an object: a dataclass of the tree
registered with JAX (`@jax.tree_util.register_dataclass` over `@dataclasses.dataclass`, or
`@flax.struct.dataclass`), whose fields are all data (none written with `field(...)`, which
may mark it static: then it is no leaf, and jaxfix does not read which). Checked on jax
0.10.2 and 0.12.0.1: such an object's fields are traced as its leaves (a `ShapeDtypeStruct`
field on an AbstractMesh makes `.lower()` raise as a bare one does). Not followed: the call form
`register_dataclass(C, data_fields=..., meta_fields=...)`, `register_pytree_node(_class)`.
"""

from __future__ import annotations

import ast

from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.values import External, Instance, Unknown, Value

REGISTERING = frozenset({"jax.tree_util.register_dataclass", "flax.struct.dataclass"})


def children(evaluator: Evaluator, value: Value) -> tuple[Value, ...] | None:
    """The field values of `value`, an object of a registered dataclass of the tree, in
    field order; None for anything else, or when a field is not known to be data."""
    if not isinstance(value, Instance) or value.init is None:
        return None
    cls = value.cls
    module = evaluator.module(cls.path)
    if isinstance(module, Unknown):
        return None
    frame = evaluator.frame_at(module, cls.node)
    registered = any(
        isinstance(applied := evaluator.value(module, d, frame), External)
        and applied.name in REGISTERING
        for d in cls.node.decorator_list
    )
    fields = [s for s in cls.node.body if isinstance(s, ast.AnnAssign)]
    if not registered or not fields or cls.node.bases:
        return None
    given = dict(value.init)
    found = []
    for field in fields:
        if not isinstance(field.target, ast.Name) or isinstance(field.value, ast.Call):
            return None  # `field(...)`: maybe static (metadata, pytree_node=False)
        if _class_var(field.annotation) or field.target.id not in given:
            return None
        found.append(given[field.target.id])
    return tuple(found)


def _class_var(annotation: ast.expr) -> bool:
    """`ClassVar[...]`: not a field."""
    node = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return isinstance(node, (ast.Name, ast.Attribute)) and (
        getattr(node, "id", None) == "ClassVar"
        or getattr(node, "attr", None) == "ClassVar"
    )
