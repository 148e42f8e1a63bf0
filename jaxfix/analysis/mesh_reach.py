"""Whether code may run while a mesh jaxfix cannot pin down is current (the view JAX001 needs).

A mesh may be current at a node when the module sets one globally (`jax.set_mesh(m)` or
`use_mesh(m)` called outside a `with` item or `enter_context`: `CurrentMeshModel.global_setters`,
which JAX001 asks first), or when the node's function,
lambda or method is used (called, passed on, bound to another name) anywhere under a mesh
context or a setter entered by `enter_context`, directly or through the uses of its own
enclosing functions, or is a TestCase `test*` method whose setUp/setUpClass enters one.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from jaxfix.analysis.module import ModuleAnalysis


class MeshReach:
    def __init__(self, analysis: ModuleAnalysis) -> None:
        self.analysis = analysis
        self.parents = analysis.parents

    def under_mesh(self, node: cst.CSTNode, seen: frozenset[cst.CSTNode] = frozenset()) -> bool:
        """Whether any mesh context (`with mesh:`, a setter, an unknown one that may set a
        mesh) is around `node` in its scope or around a use of that scope."""
        if self.analysis.current_mesh.under_concrete_mesh(node):
            return True
        setters, scope = self.analysis.current_mesh.setters_around(node)
        return bool(setters) or self.scope_used_under_mesh(scope, seen)

    def scope_used_under_mesh(self, scope: cst.CSTNode | None, seen: frozenset[cst.CSTNode] = frozenset()) -> bool:
        if scope is None or scope in seen:
            return False
        seen = seen | {scope}
        if isinstance(scope, cst.ClassDef):  # the class body runs where the class is defined
            return self.under_mesh(scope, seen)
        if isinstance(scope, cst.FunctionDef) and self.analysis.current_mesh.setup_setter(scope) is not None:
            return True
        return any(self.under_mesh(use, seen) for use in self._uses(scope))  # type: ignore[arg-type]

    # -- where a function or lambda is used -----------------------------------------------------

    def _uses(self, scope: cst.FunctionDef | cst.Lambda) -> list[cst.CSTNode]:
        if isinstance(scope, cst.Lambda):
            uses: list[cst.CSTNode] = [scope]
        else:
            uses = [scope] if scope.decorators else []  # a decorator may call it where it is defined
            uses += self._name_uses(scope.name, scope)
            if isinstance(self.parents.get(self.parents.get(scope)), cst.ClassDef):
                uses += self._attributes.get(scope.name.value, [])
        found: dict[cst.CSTNode, None] = {}
        while uses:
            use = uses.pop()
            if use in found:
                continue
            found[use] = None
            parent = self.parents.get(use)
            if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.NamedExpr)) and parent.value is use:
                for target in _bound_targets(parent):
                    if isinstance(target, cst.Name):
                        uses += self._name_uses(target, target)
                    elif isinstance(target, cst.Attribute):
                        uses += self._attributes.get(target.attr.value, [])
        return list(found)

    def _name_uses(self, name: cst.Name, node: cst.CSTNode) -> list[cst.CSTNode]:
        """Every reference to any binding of `name` in the scope where `node` binds it."""
        scope = self.analysis.scopes.get(node)
        if scope is None:
            return []
        return [access.node for assignment in scope.assignments[name.value] for access in assignment.references]

    @cached_property
    def _attributes(self) -> dict[str, list[cst.Attribute]]:
        """Every `x.name` in the module, by name (how methods are reached)."""
        by_name: dict[str, list[cst.Attribute]] = {}
        for node in self.analysis.nodes(cst.Attribute):
            by_name.setdefault(node.attr.value, []).append(node)
        return by_name


def _bound_targets(statement: cst.Assign | cst.AnnAssign | cst.NamedExpr) -> list[cst.BaseExpression]:
    return [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
