"""The one binding lookup: which single assignment a name means, and what it assigns."""

from __future__ import annotations

from collections.abc import Collection, Mapping

import libcst as cst
from libcst.metadata import Access, Assignment, Scope


class Bindings:
    def __init__(
        self,
        scopes: Mapping[cst.CSTNode, Scope | None],
        parents: Mapping[cst.CSTNode, cst.CSTNode],
    ) -> None:
        self._scopes = scopes
        self._parents = parents

    def only(self, name: str, at: cst.CSTNode) -> Assignment | None:
        """The assignment `name` means where `at` is, when it is bound exactly once there (by
        `=`, `def`, a parameter, an import, ...); None when it is bound twice, not at all, or
        is a builtin."""
        scope = self._scopes.get(at)
        assignments = scope[name] if scope is not None else ()
        if len(assignments) != 1:
            return None
        (assignment,) = assignments
        return assignment if isinstance(assignment, Assignment) else None

    def all(self, name: str, at: cst.CSTNode) -> list[Assignment]:
        """Every assignment `name` may mean where `at` is; [] when one of them is not in the
        code (a builtin)."""
        scope = self._scopes.get(at)
        assignments = list(scope[name]) if scope is not None else []
        return (
            [a for a in assignments if isinstance(a, Assignment)]
            if all(isinstance(a, Assignment) for a in assignments)
            else []
        )

    def definition(self, name: cst.Name) -> cst.CSTNode | None:
        """The node that binds `name` (a FunctionDef, ClassDef, Param, assigned Name, Import...),
        when it is bound exactly once."""
        assignment = self.only(name.value, name)
        return None if assignment is None else assignment.node

    def function(self, name: cst.Name) -> cst.FunctionDef | None:
        definition = self.definition(name)
        return definition if isinstance(definition, cst.FunctionDef) else None

    def value(self, name: cst.Name) -> cst.BaseExpression | None:
        """The expression assigned to `name` by its one binding `name = value` (a single target),
        `name: T = value` or `(name := value)`."""
        target = self.definition(name)
        parent = self._parents.get(target) if target is not None else None
        if isinstance(parent, cst.AssignTarget):
            statement = self._parents.get(parent)
            if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
                return statement.value
        if (
            isinstance(parent, (cst.AnnAssign, cst.NamedExpr))
            and parent.target is target
        ):
            return parent.value
        return None

    def references(
        self, name: cst.Name, at: cst.CSTNode | None = None
    ) -> Collection[Access]:
        """The reads of the one binding `name` denotes where `at` is (default: `name` itself,
        a read or the binding target); none when it is not bound exactly once."""
        assignment = self.only(name.value, name if at is None else at)
        return assignment.references if assignment is not None else ()

    def all_references(self, name: str, at: cst.CSTNode) -> list[cst.CSTNode]:
        """Every read of any binding of `name` in the scope of `at`."""
        scope = self._scopes.get(at)
        if scope is None:
            return []
        return [
            access.node
            for assignment in scope.assignments[name]
            for access in assignment.references
        ]
