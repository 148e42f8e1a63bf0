"""The value model: what an expression evaluates to, when the module shows it.

Follows names bound exactly once and `self.x`/`cls.x` assigned once in the enclosing class;
evaluates integer arithmetic (`+ - * //`, unary minus), tuples and lists, strings,
`AxisType.X`, tuples repeated by an integer, and the meshes built by `AbstractMesh`,
`jax.make_mesh`, `Mesh`, `.update(...)` and `.abstract_mesh`. Anything else is `Unknown(why)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import libcst as cst

from jaxfix.analysis.bindings import Bindings
from jaxfix.analysis.names import MESH_UPDATE, SIGNATURES, Api, ApiResolver, bind
from jaxfix.analysis.values import AxisType, MeshKind, MeshValue, Unknown, Value
from jaxfix.jax_version import axes_explicit_by_default

_MAX_DEPTH = 24
_AXIS_TYPES = {t.value: t for t in AxisType}


class ValueModel:
    def __init__(
        self,
        resolver: ApiResolver,
        bindings: Bindings,
        parents: Mapping[cst.CSTNode, cst.CSTNode],
        jax_version: tuple[int, ...] | None,
    ) -> None:
        self._resolver = resolver
        self._bindings = bindings
        self._parents = parents
        self._default_abstract_axis = AxisType.EXPLICIT if axes_explicit_by_default(jax_version) else AxisType.AUTO

    # -- where a name leads -----------------------------------------------------------------

    def resolve(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """Follow names and self-attributes to the expression they are bound to, as far as known."""
        for _ in range(_MAX_DEPTH):
            if isinstance(node, cst.Name):
                value = self._bindings.value(node)
            elif isinstance(node, cst.Attribute):
                value = self._attribute_value(node)
            else:
                value = None
            if value is None:
                return node
            node = value
        return node

    def _attribute_value(self, node: cst.Attribute) -> cst.BaseExpression | None:
        """`self.x` / `cls.x`: the one value assigned to that attribute in the enclosing class."""
        if not isinstance(node.value, cst.Name) or node.value.value not in ("self", "cls"):
            return None
        klass = self._parents.get(node)
        while klass is not None and not isinstance(klass, cst.ClassDef):
            klass = self._parents.get(klass)
        if klass is None:
            return None
        values = _class_attribute_assignments(klass, node.attr.value)
        return values[0] if len(values) == 1 else None

    # -- values -----------------------------------------------------------------------------

    def value_of(self, node: cst.BaseExpression, depth: int = 0) -> Value:
        if depth > _MAX_DEPTH:
            return Unknown("too deeply nested")
        target = self.resolve(node)
        value = self._evaluate(target, depth)
        name = _reference_text(node)
        if isinstance(value, MeshValue) and name is not None and value.name is None:
            value = replace(value, name=name)
        return value

    def _evaluate(self, node: cst.BaseExpression, depth: int) -> Value:
        if isinstance(node, cst.Integer):
            return int(node.evaluated_value)
        if isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            return text if isinstance(text, str) else Unknown("a bytes literal")
        if isinstance(node, cst.Name) and node.value == "None":
            return None
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            operand = self.value_of(node.expression, depth + 1)
            return -operand if isinstance(operand, int) else Unknown("not an integer")
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node, depth)
        if isinstance(node, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                return Unknown("a starred element")
            return tuple(self.value_of(e.value, depth + 1) for e in node.elements)
        if isinstance(node, cst.Attribute):
            if node.attr.value in _AXIS_TYPES and self._resolver.api(node.value) is Api.AXIS_TYPE:
                return _AXIS_TYPES[node.attr.value]
            if node.attr.value == "abstract_mesh":
                return self._abstract_view(node, depth)
        if isinstance(node, cst.Call):
            return self._call(node, depth)
        if isinstance(node, cst.Name):
            return Unknown(f"`{node.value}` is not bound to one visible value")
        return Unknown("an expression jaxfix does not evaluate")

    def _binary(self, node: cst.BinaryOperation, depth: int) -> Value:
        left, right = self.value_of(node.left, depth + 1), self.value_of(node.right, depth + 1)
        op = node.operator
        if isinstance(left, int) and isinstance(right, int):
            if isinstance(op, cst.Add):
                return left + right
            if isinstance(op, cst.Subtract):
                return left - right
            if isinstance(op, cst.Multiply):
                return left * right
            if isinstance(op, cst.FloorDivide) and right:
                return left // right
        if isinstance(op, cst.Multiply):
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, tuple) and isinstance(times, int):
                    return seq * times
        return Unknown("an operation jaxfix does not evaluate")

    def _abstract_view(self, node: cst.Attribute, depth: int) -> Value:
        base = self.value_of(node.value, depth + 1)
        if not isinstance(base, MeshValue):
            return Unknown("`.abstract_mesh` of something that is not a known mesh")
        if base.is_abstract:
            return base
        return replace(base, kind=MeshKind.ABSTRACT, has_abstract_device=True, node=node, name=None)

    # -- meshes -----------------------------------------------------------------------------

    def _call(self, call: cst.Call, depth: int) -> Value:
        api = self._resolver.called_api(call)
        if api is Api.ABSTRACT_MESH:
            return self._abstract_mesh(call, depth)
        if api in (Api.MAKE_MESH, Api.MESH):
            return self._concrete_mesh(call, api, depth)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "update":
            return self._updated(call, call.func, depth)
        return Unknown("a call jaxfix does not evaluate")

    def _abstract_mesh(self, call: cst.Call, depth: int) -> Value:
        args = bind(call, SIGNATURES[Api.ABSTRACT_MESH])
        if args is None:
            return Unknown("AbstractMesh(...) with arguments jaxfix cannot bind")
        sizes = self._sizes(args.get("axis_sizes"), depth)
        names = self._names(args.get("axis_names"), depth)
        types = self._types_or_default(args.get("axis_types"), names, sizes, self._default_abstract_axis, depth)
        device = args.get("abstract_device")
        return MeshValue(
            kind=MeshKind.ABSTRACT, axis_names=names, axis_sizes=sizes, axis_types=types,
            has_abstract_device=device is not None and not _is_none(device), node=call,
        )

    def _concrete_mesh(self, call: cst.Call, api: Api, depth: int) -> Value:
        args = bind(call, SIGNATURES[api])
        if args is None:
            return Unknown(f"{api.value}(...) with arguments jaxfix cannot bind")
        sizes = self._sizes(args.get("axis_shapes", args.get("axis_sizes")), depth) if api is Api.MAKE_MESH else None
        names = self._names(args.get("axis_names"), depth)
        default = AxisType.EXPLICIT if api is Api.MAKE_MESH else AxisType.AUTO
        types = self._types_or_default(args.get("axis_types"), names, sizes, default, depth)
        return MeshValue(kind=MeshKind.CONCRETE, axis_names=names, axis_sizes=sizes, axis_types=types, has_abstract_device=True, node=call)

    def _updated(self, call: cst.Call, func: cst.Attribute, depth: int) -> Value:
        base = self.value_of(func.value, depth + 1)
        args = bind(call, MESH_UPDATE)
        if not isinstance(base, MeshValue) or args is None:
            return Unknown("`.update(...)` of something that is not a known mesh")
        sizes = self._sizes(args["axis_sizes"], depth) if "axis_sizes" in args else base.axis_sizes
        names = self._names(args["axis_names"], depth) if "axis_names" in args else base.axis_names
        types = self._types(args["axis_types"], depth) if "axis_types" in args else base.axis_types
        return replace(base, axis_names=names, axis_sizes=sizes, axis_types=types, node=call, name=None)

    def _sizes(self, node: cst.BaseExpression | None, depth: int) -> tuple[int | None, ...] | None:
        value = self.value_of(node, depth + 1) if node is not None else None
        if not isinstance(value, tuple):
            return None
        return tuple(v if isinstance(v, int) else None for v in value)

    def _names(self, node: cst.BaseExpression | None, depth: int) -> tuple[str, ...] | None:
        value = self.value_of(node, depth + 1) if node is not None else None
        if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
            return None
        return tuple(str(v) for v in value)

    def _types(self, node: cst.BaseExpression, depth: int) -> tuple[AxisType, ...] | None:
        value = self.value_of(node, depth + 1)
        if not isinstance(value, tuple) or not all(isinstance(v, AxisType) for v in value):
            return None
        return tuple(v for v in value if isinstance(v, AxisType))

    def _types_or_default(
        self,
        node: cst.BaseExpression | None,
        names: tuple[str, ...] | None,
        sizes: tuple[int | None, ...] | None,
        default: AxisType,
        depth: int,
    ) -> tuple[AxisType, ...] | None:
        if node is not None and not _is_none(node):
            return self._types(node, depth)
        count = len(names) if names is not None else (len(sizes) if sizes is not None else None)
        return None if count is None else (default,) * count


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _reference_text(node: cst.BaseExpression) -> str | None:
    """'mesh' for a Name, 'self.mesh' for a simple attribute chain; None otherwise."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.attr.value != "abstract_mesh":
        return f"{node.value.value}.{node.attr.value}"
    return None


def _class_attribute_assignments(klass: cst.ClassDef, attr: str) -> list[cst.BaseExpression]:
    """Values assigned to `self.<attr>` / `cls.<attr>` in the class's methods or to `<attr>`
    in its body."""
    found: list[cst.BaseExpression] = []

    def is_target(target: cst.BaseExpression) -> bool:
        return (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value in ("self", "cls")
            and target.attr.value == attr
        )

    class Collector(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return node is klass

        def visit_Assign(self, node: cst.Assign) -> None:
            found.extend(node.value for target in node.targets if is_target(target.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None and is_target(node.target):
                found.append(node.value)

    klass.visit(Collector())
    for statement in klass.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and target.value == attr:
                        found.append(small.value)
    return found
