"""Which mesh contexts (`with use_abstract_mesh(...)`, `with jax.set_mesh(...)`, ...) enclose a node."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst

from jaxfix.analysis.mesh import MeshModel, MeshValue

MESH_CONTEXT_APIS = ("use_abstract_mesh", "set_mesh", "use_mesh")
_SCOPE_BOUNDARIES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


@dataclass(frozen=True)
class MeshContext:
    """One `with` item around a node. `entered_by` is the API, "mesh" for `with mesh:`, or
    "other" for a context manager jaxfix does not model (it may change the mesh)."""

    entered_by: str
    mesh: MeshValue | None
    item: cst.WithItem
    statement: cst.With


class ContextModel:
    def __init__(self, model: MeshModel, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        self.model = model
        self.parents = parents

    def classify(self, item: cst.WithItem, statement: cst.With) -> MeshContext:
        expr = item.item
        api = self.model.resolver.called_api(expr)
        if api in MESH_CONTEXT_APIS:
            args = expr.args  # type: ignore[attr-defined]
            mesh = self.model.mesh(args[0].value) if args and not args[0].star else None
            return MeshContext(api, mesh, item, statement)
        mesh = self.model.mesh(expr)
        if mesh is not None and not mesh.is_abstract:
            return MeshContext("mesh", mesh, item, statement)
        return MeshContext("other", None, item, statement)

    def enclosing(self, node: cst.CSTNode) -> tuple[MeshContext, ...]:
        """The `with` items around `node` in its own function body, outermost first."""
        found: list[MeshContext] = []
        child, current = node, self.parents.get(node)
        while current is not None and not isinstance(current, _SCOPE_BOUNDARIES):
            if isinstance(current, cst.With):
                items = current.items
                if child in items:
                    items = items[: items.index(child)]
                found[:0] = [self.classify(item, current) for item in items]
            child, current = current, self.parents.get(current)
        return tuple(found)
