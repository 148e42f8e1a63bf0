"""The children of a pytree node the code builds as an object of a class of the tree that is
registered with JAX, in the ways real projects register them:

- a dataclass, by the decorators `@jax.tree_util.register_dataclass` (over
  `@dataclasses.dataclass`) or `@flax.struct.dataclass`, whose fields are all data (none
  written with `field(...)`, which may mark it static: then it is no leaf, and jaxfix does not
  read which); or by the call `jax.tree_util.register_dataclass(C)`, likewise, or
  `register_dataclass(C, data_fields=[...], meta_fields=[...])`, whose children are the
  object's data fields;
- a class with a `tree_flatten` method, by `@jax.tree_util.register_pytree_node_class`, or
  with `tree_flatten_with_keys` by `@register_pytree_with_keys_class` (its `tree_flatten`
  when it has one);
- any class, by the call `jax.tree_util.register_pytree_node(C, flatten, unflatten)` or
  `register_pytree_with_keys(C, flatten_with_keys, unflatten[, flatten_func])`;
- any class, by `@jax.tree_util.register_static` or the call `register_static(C)`: a node
  with no children (the object is static: nothing of it is traced, its mesh brings no
  devices to a lowering);
- and `class C(typing.NamedTuple)`, a tuple: its fields, in order.

A registering call counts when it is a statement at the top of the class's own module (it runs
whenever the class exists). The children are what the flatten function returns first (a tuple
or list; for the keyed form, the second item of each pair), evaluated on the object like any
call of the tree; anything jaxfix does not follow there leaves the object unread. Checked on
jax 0.10.2 and 0.12.0.1: such an object's children are traced as its leaves (a
`ShapeDtypeStruct` child on an AbstractMesh makes `.lower()` raise as a bare one does).
"""

from __future__ import annotations

import ast

from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    BoundMethod,
    Class,
    External,
    Function,
    Instance,
    ListValue,
    NotDefined,
    Unknown,
    Value,
)

_TREE_UTIL = "jax.tree_util."
# Decorators registering the class they are given, and how its objects are flattened.
_DECORATORS = {
    _TREE_UTIL + "register_dataclass": "fields",
    "flax.struct.dataclass": "fields",
    _TREE_UTIL + "register_pytree_node_class": "tree_flatten",
    _TREE_UTIL + "register_pytree_with_keys_class": "tree_flatten_with_keys",
    _TREE_UTIL + "register_static": "static",
}
_CALLS = frozenset(
    _TREE_UTIL + name
    for name in (
        "register_dataclass",
        "register_pytree_node",
        "register_pytree_with_keys",
        "register_pytree_node_class",
        "register_pytree_with_keys_class",
        "register_static",
    )
)


def children(evaluator: Evaluator, value: Value) -> tuple[Value, ...] | None:
    """The children of `value`, an object of a class of the tree registered with JAX as a
    pytree node, in the order JAX flattens them; None for anything else, or when jaxfix does
    not follow what they are."""
    if not isinstance(value, Instance) or value.init is None:
        return None
    cls = value.cls
    module = evaluator.module(cls.path)
    if isinstance(module, Unknown):
        return None
    if evaluator.is_named_tuple(cls):  # a tuple: its fields, in order
        given = dict(value.init)
        fields = [
            s.target.id
            for s in cls.node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        ]
        if not all(f in given for f in fields):
            return None
        return tuple(given[f] for f in fields)
    frame = evaluator.frame_at(module, cls.node)
    ways: list[tuple[str, ast.Call | None]] = []
    for decorator in cls.node.decorator_list:
        applied = evaluator.value(module, decorator, frame)
        if isinstance(applied, External) and applied.name in _DECORATORS:
            ways.append((_DECORATORS[applied.name], None))
    ways += _registering_calls(evaluator, module, cls)
    if len(ways) != 1:
        return None  # not registered, or twice (JAX refuses the second)
    kind, call = ways[0]
    if kind in ("static", "register_static"):
        return () if call is None or len(call.args) == 1 and not call.keywords else None
    if call is None:
        if kind == "fields":
            return _fields(evaluator, value)
        return _method_children(evaluator, value, cls, kind)
    return _called_children(evaluator, module, value, call)


def _registering_calls(
    evaluator: Evaluator, module: Module, cls: Class
) -> list[tuple[str, ast.Call | None]]:
    """`jax.tree_util.register_...(C, ...)` statements at the top of the class's module."""
    found: list[tuple[str, ast.Call | None]] = []
    for statement in module.tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (
            not isinstance(call, ast.Call)
            or not call.args
            or not _last_name(call.func).startswith("register_")
        ):
            continue
        frame = evaluator.frame_at(module, statement)
        callee = evaluator.value(module, call.func, frame)
        if not isinstance(callee, External) or callee.name not in _CALLS:
            continue
        registered = evaluator.value(module, call.args[0], frame)
        if not isinstance(registered, Class) or registered.node is not cls.node:
            continue
        found.append((callee.name.removeprefix(_TREE_UTIL), call))
    return found


def _called_children(
    evaluator: Evaluator, module: Module, value: Instance, call: ast.Call
) -> tuple[Value, ...] | None:
    """The children of `value` as the registering call `call` flattens it."""
    frame = evaluator.frame_at(module, call)
    args = [evaluator.value(module, a, frame) for a in call.args[1:]]
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    keywords = {
        k.arg: evaluator.value(module, k.value, frame)
        for k in call.keywords
        if k.arg is not None
    }
    if len(keywords) != len(call.keywords):
        return None
    callee = evaluator.value(module, call.func, frame)
    assert isinstance(callee, External)
    name = callee.name.removeprefix(_TREE_UTIL)
    if name == "register_dataclass":
        return _dataclass_call_children(evaluator, value, args, keywords, call)
    if name in ("register_pytree_node_class", "register_pytree_with_keys_class"):
        if args or keywords:
            return None
        method = (
            "tree_flatten" if name.endswith("node_class") else "tree_flatten_with_keys"
        )
        return _method_children(evaluator, value, value.cls, method)
    # register_pytree_node(C, flatten_func, unflatten_func, flatten_with_keys_func=None)
    # register_pytree_with_keys(C, flatten_with_keys, unflatten_func, flatten_func=None)
    keyed = name == "register_pytree_with_keys"
    names = (
        ("flatten_with_keys", "unflatten_func", "flatten_func")
        if keyed
        else ("flatten_func", "unflatten_func", "flatten_with_keys_func")
    )
    if len(args) > len(names) or not keywords.keys() <= set(names):
        return None
    given = dict(zip(names, args)) | keywords
    flatten = given.get("flatten_func")
    if flatten is not None:
        return _flattened(evaluator, flatten, value, call, keyed=False)
    if keyed:
        return _flattened(
            evaluator, given.get("flatten_with_keys"), value, call, keyed=True
        )
    return None


def _dataclass_call_children(
    evaluator: Evaluator,
    value: Instance,
    args: list[Value],
    keywords: dict[str, Value],
    call: ast.Call,
) -> tuple[Value, ...] | None:
    """`register_dataclass(C)`: its fields; `register_dataclass(C, data_fields=[...],
    meta_fields=[...])`: the object's data fields, in that order."""
    given = dict(zip(("data_fields", "meta_fields", "drop_fields"), args)) | keywords
    if not given:
        return _fields(evaluator, value)
    if not given.keys() <= {"data_fields", "meta_fields", "drop_fields"}:
        return None
    data = given.get("data_fields")
    names = data.items if isinstance(data, ListValue) else data
    if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
        return None
    return tuple(evaluator.attribute(value, str(n), call) for n in names)


def _method_children(
    evaluator: Evaluator, value: Instance, cls: Class, method: str
) -> tuple[Value, ...] | None:
    """The children the class's own `tree_flatten` (or, for a keyed class without one,
    `tree_flatten_with_keys`) gives the object."""
    node = cls.node
    if method == "tree_flatten_with_keys":
        plain = evaluator.attribute(value, "tree_flatten", node)
        if isinstance(plain, BoundMethod):
            return _flattened(evaluator, plain, value, node, keyed=False)
        member = evaluator.attribute(cls, "tree_flatten", node)
        if node.bases or not isinstance(member, NotDefined):
            return None  # a base outside the tree may define it
    bound = evaluator.attribute(value, method, node)
    if not isinstance(bound, BoundMethod):
        return None
    return _flattened(
        evaluator, bound, value, node, keyed=method == "tree_flatten_with_keys"
    )


def _flattened(
    evaluator: Evaluator, flatten: Value, value: Instance, node: ast.AST, *, keyed: bool
) -> tuple[Value, ...] | None:
    """The children a flatten function (of the object, or a method bound to it) returns."""
    if isinstance(flatten, BoundMethod):
        result = evaluator.call_function(flatten.function, [value], {}, node)
    elif isinstance(flatten, Function) and flatten.wrapped_by is None:
        result = evaluator.call_function(flatten, [value], {}, node)
    else:
        return None
    if not isinstance(result, tuple) or len(result) != 2:
        return None
    found = _sequence(result[0])
    if found is None or not keyed:
        return found
    pairs = [_sequence(pair) for pair in found]
    if any(pair is None or len(pair) != 2 for pair in pairs):
        return None
    return tuple(pair[1] for pair in pairs if pair is not None)


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _sequence(value: Value) -> tuple[Value, ...] | None:
    if isinstance(value, tuple):
        return value
    if isinstance(value, ListValue):
        return value.items
    return None


def _fields(evaluator: Evaluator, value: Instance) -> tuple[Value, ...] | None:
    """A registered dataclass's field values in field order, when every field is data."""
    cls = value.cls
    fields = [s for s in cls.node.body if isinstance(s, ast.AnnAssign)]
    if not fields or cls.node.bases or value.init is None:
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
