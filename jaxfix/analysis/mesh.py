"""A static model of JAX meshes: what an expression evaluates to, when the code shows it.

Unknown stays unknown: every question returns None when the answer is not visible in the
module (a parameter, a name bound twice, a call we do not model).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import libcst as cst
from libcst.metadata import Assignment, Scope

from jaxfix.analysis.names import ApiResolver
from jaxfix.jax_version import axes_explicit_by_default

AXIS_TYPES = ("Auto", "Explicit", "Manual")
_MAX_DEPTH = 24


@dataclass(frozen=True)
class MeshValue:
    """What is known about one mesh; a None field is unknown."""

    kind: str  # "abstract" or "concrete"
    axis_names: tuple[str, ...] | None
    axis_sizes: tuple[int | None, ...] | None
    axis_types: tuple[str, ...] | None
    has_abstract_device: bool
    node: cst.CSTNode  # the expression that built it (AbstractMesh(...), make_mesh(...), ...)
    name: str | None = None  # the variable it was reached through, if any

    @property
    def is_abstract(self) -> bool:
        return self.kind == "abstract"

    @property
    def is_empty(self) -> bool:
        return self.axis_sizes == () or self.axis_names == ()

    @property
    def size(self) -> int | None:
        if self.axis_sizes is None or any(s is None for s in self.axis_sizes):
            return None
        return math.prod(self.axis_sizes)  # type: ignore[arg-type]

    @property
    def has_explicit_axis(self) -> bool | None:
        if self.axis_types is None:
            return None
        return "Explicit" in self.axis_types

    def same_as(self, other: MeshValue) -> bool | None:
        """Equal as JAX compares meshes by value (names, sizes, types); None if unknown."""
        verdicts = {
            _same(self.axis_names, other.axis_names),
            _same(self.axis_sizes, other.axis_sizes),
            _same(self.axis_types, other.axis_types),
        }
        if False in verdicts:
            return False
        return None if None in verdicts else True

    def shape_text(self) -> str:
        """'(8, 4) ("data", "model")', with '?' for what is unknown."""
        sizes = "?" if self.axis_sizes is None else _tuple_text(["?" if s is None else str(s) for s in self.axis_sizes])
        names = "?" if self.axis_names is None else _tuple_text([repr(n) for n in self.axis_names])
        return f"{sizes} {names}"


def _same(a: tuple | None, b: tuple | None) -> bool | None:
    """Compare two per-axis tuples whose elements may be None (unknown)."""
    if a is None or b is None:
        return None
    if len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b)):
        return False
    return None if None in a or None in b else True


def _tuple_text(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def bind_arguments(call: cst.Call, positional: tuple[str, ...], keyword_only: tuple[str, ...] = ()) -> dict[str, cst.BaseExpression] | None:
    """Map a call's arguments to parameter names; None if it uses * or ** or unknown keywords."""
    bound: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(positional):
                return None
            bound[positional[index]] = arg.value
        elif arg.keyword.value in positional or arg.keyword.value in keyword_only:
            bound[arg.keyword.value] = arg.value
        else:
            return None
    return bound


def _is_none(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


class MeshModel:
    """Evaluates expressions to meshes, integers and string tuples, following simple bindings."""

    def __init__(
        self,
        resolver: ApiResolver,
        scopes: Mapping[cst.CSTNode, Scope | None],
        parents: Mapping[cst.CSTNode, cst.CSTNode],
        jax_version: tuple[int, ...] | None,
    ) -> None:
        self.resolver = resolver
        self.scopes = scopes
        self.parents = parents
        self.default_axis_type = "Explicit" if axes_explicit_by_default(jax_version) else "Auto"

    # -- bindings ---------------------------------------------------------------------------

    def bound_value(self, name: cst.Name) -> cst.BaseExpression | None:
        """The value of the one assignment `name` can refer to, if there is exactly one."""
        scope = self.scopes.get(name)
        if scope is None:
            return None
        assignments = scope[name.value]
        if len(assignments) != 1:
            return None
        (assignment,) = assignments
        if not isinstance(assignment, Assignment):
            return None
        return self._assigned_value(assignment.node)

    def _assigned_value(self, target: cst.CSTNode) -> cst.BaseExpression | None:
        parent = self.parents.get(target)
        if isinstance(parent, cst.AssignTarget):
            statement = self.parents.get(parent)
            if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
                return statement.value
        if isinstance(parent, cst.AnnAssign) and parent.target is target:
            return parent.value
        if isinstance(parent, cst.NamedExpr) and parent.target is target:
            return parent.value
        return None

    def attribute_value(self, node: cst.Attribute) -> cst.BaseExpression | None:
        """`self.x` / `cls.x`: the one value assigned to that attribute in the enclosing class."""
        if not isinstance(node.value, cst.Name) or node.value.value not in ("self", "cls"):
            return None
        klass = self._enclosing_class(node)
        if klass is None:
            return None
        values = _class_attribute_assignments(klass, node.attr.value)
        return values[0] if len(values) == 1 else None

    def _enclosing_class(self, node: cst.CSTNode) -> cst.ClassDef | None:
        current = self.parents.get(node)
        while current is not None and not isinstance(current, cst.ClassDef):
            current = self.parents.get(current)
        return current

    def resolve(self, node: cst.BaseExpression, depth: int = 0) -> cst.BaseExpression:
        """Follow names and self-attributes to the expression they are bound to, as far as known."""
        while depth < _MAX_DEPTH:
            if isinstance(node, cst.Name):
                value = self.bound_value(node)
            elif isinstance(node, cst.Attribute):
                value = self.attribute_value(node)
            else:
                value = None
            if value is None:
                return node
            node, depth = value, depth + 1
        return node

    # -- values -----------------------------------------------------------------------------

    def integer(self, node: cst.BaseExpression | None, depth: int = 0) -> int | None:
        if node is None or depth > _MAX_DEPTH:
            return None
        node = self.resolve(node)
        if isinstance(node, cst.Integer):
            return int(node.evaluated_value)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            value = self.integer(node.expression, depth + 1)
            return None if value is None else -value
        if isinstance(node, cst.BinaryOperation):
            left, right = self.integer(node.left, depth + 1), self.integer(node.right, depth + 1)
            if left is None or right is None:
                return None
            op = node.operator
            if isinstance(op, cst.Add):
                return left + right
            if isinstance(op, cst.Subtract):
                return left - right
            if isinstance(op, cst.Multiply):
                return left * right
            if isinstance(op, cst.FloorDivide) and right:
                return left // right
        return None

    def _elements(self, node: cst.BaseExpression | None) -> list[cst.BaseExpression] | None:
        if node is None:
            return None
        node = self.resolve(node)
        if isinstance(node, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
            return [e.value for e in node.elements]
        return None

    def integers(self, node: cst.BaseExpression | None) -> tuple[int | None, ...] | None:
        elements = self._elements(node)
        return None if elements is None else tuple(self.integer(e) for e in elements)

    def strings(self, node: cst.BaseExpression | None) -> tuple[str, ...] | None:
        elements = self._elements(node)
        if elements is None:
            return None
        values = [self.resolve(e) for e in elements]
        if not all(isinstance(v, cst.SimpleString) for v in values):
            return None
        return tuple(v.evaluated_value for v in values)  # type: ignore[union-attr]

    def axis_types(self, node: cst.BaseExpression | None, depth: int = 0) -> tuple[str, ...] | None:
        if node is None or depth > _MAX_DEPTH:
            return None
        node = self.resolve(node)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            for seq, count in ((node.left, node.right), (node.right, node.left)):
                times = self.integer(count)
                types = self.axis_types(seq, depth + 1) if times is not None else None
                if types is not None:
                    return types * times  # type: ignore[operator]
            return None
        elements = self._elements(node)
        if elements is None:
            return None
        types = [self.axis_type(e) for e in elements]
        return None if any(t is None for t in types) else tuple(types)  # type: ignore[arg-type]

    def axis_type(self, node: cst.BaseExpression) -> str | None:
        node = self.resolve(node)
        if (
            isinstance(node, cst.Attribute)
            and node.attr.value in AXIS_TYPES
            and self.resolver.is_api(node.value, "AxisType")
        ):
            return node.attr.value
        return None

    # -- meshes -----------------------------------------------------------------------------

    def mesh(self, node: cst.BaseExpression | None, depth: int = 0) -> MeshValue | None:
        """The mesh `node` evaluates to, or None when that is not statically known."""
        if node is None or depth > _MAX_DEPTH:
            return None
        name = _reference_text(node)
        target = self.resolve(node)
        value = self._mesh_of(target, depth)
        if value is not None and name is not None and value.name is None:
            value = replace(value, name=name)
        return value

    def _mesh_of(self, node: cst.BaseExpression, depth: int) -> MeshValue | None:
        if isinstance(node, cst.Attribute) and node.attr.value == "abstract_mesh":
            base = self.mesh(node.value, depth + 1)
            if base is None:
                return None
            if base.is_abstract:
                return base
            return replace(base, kind="abstract", has_abstract_device=True, node=node, name=None)
        if not isinstance(node, cst.Call):
            return None
        api = self.resolver.called_api(node)
        if api == "AbstractMesh":
            return self._abstract_mesh(node)
        if api == "make_mesh":
            return self._concrete_mesh(node, ("axis_shapes", "axis_names", "axis_types"), "Explicit")
        if api == "Mesh":
            return self._concrete_mesh(node, ("devices", "axis_names", "axis_types"), "Auto")
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "update":
            return self._updated(node, depth)
        return None

    def _abstract_mesh(self, call: cst.Call) -> MeshValue | None:
        args = bind_arguments(call, ("axis_sizes", "axis_names", "axis_types"), ("abstract_device",))
        if args is None:
            return None
        sizes = self.integers(args.get("axis_sizes"))
        names = self.strings(args.get("axis_names"))
        types = self._types_or_default(args.get("axis_types"), names, sizes, self.default_axis_type)
        device = args.get("abstract_device")
        return MeshValue("abstract", names, sizes, types, device is not None and not _is_none(device), call)

    def _concrete_mesh(self, call: cst.Call, params: tuple[str, str, str], default_type: str) -> MeshValue | None:
        # jax.make_mesh's first parameter was renamed axis_shapes -> axis_sizes (0.12).
        args = bind_arguments(call, params, ("axis_sizes", "devices"))
        if args is None:
            return None
        sizes = self.integers(args.get("axis_shapes", args.get("axis_sizes"))) if params[0] == "axis_shapes" else None
        names = self.strings(args.get("axis_names"))
        types = self._types_or_default(args.get("axis_types"), names, sizes, default_type)
        return MeshValue("concrete", names, sizes, types, True, call)

    def _types_or_default(self, node, names, sizes, default: str) -> tuple[str, ...] | None:
        if node is not None and not _is_none(node):
            return self.axis_types(node)
        count = len(names) if names is not None else (len(sizes) if sizes is not None else None)
        return None if count is None else (default,) * count

    def _updated(self, call: cst.Call, depth: int) -> MeshValue | None:
        base = self.mesh(call.func.value, depth + 1)  # type: ignore[attr-defined]
        args = bind_arguments(call, ("axis_sizes", "axis_names", "axis_types"))
        if base is None or args is None:
            return None
        sizes = self.integers(args["axis_sizes"]) if "axis_sizes" in args else base.axis_sizes
        names = self.strings(args["axis_names"]) if "axis_names" in args else base.axis_names
        types = self.axis_types(args["axis_types"]) if "axis_types" in args else base.axis_types
        return MeshValue("abstract" if base.is_abstract else base.kind, names, sizes, types, base.has_abstract_device, call)


def _reference_text(node: cst.BaseExpression) -> str | None:
    """'mesh' for a Name, 'self.mesh' for a simple attribute chain; None otherwise."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.attr.value != "abstract_mesh":
        return f"{node.value.value}.{node.attr.value}"
    return None


def _class_attribute_assignments(klass: cst.ClassDef, attr: str) -> list[cst.BaseExpression]:
    """Values assigned to `self.<attr>` in the class's methods or to `<attr>` in its body."""
    found: list[cst.BaseExpression] = []

    class Collector(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return node is klass

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                t = target.target
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value in ("self", "cls") and t.attr.value == attr:
                    found.append(node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            t = node.target
            if node.value is not None and isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value in ("self", "cls") and t.attr.value == attr:
                found.append(node.value)

    klass.visit(Collector())
    for statement in klass.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    t = small.targets[0].target
                    if isinstance(t, cst.Name) and t.value == attr:
                        found.append(small.value)
    return found
