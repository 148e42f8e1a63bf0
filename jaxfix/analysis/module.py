"""Everything the analysis knows about one parsed module, shared by all rules in a pass."""

from __future__ import annotations

from functools import cached_property
from typing import TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from jaxfix.analysis.arrays import DeviceFreeValues
from jaxfix.analysis.current_mesh import CurrentMeshModel
from jaxfix.analysis.expected_errors import ExpectedErrors
from jaxfix.analysis.mesh import MeshModel
from jaxfix.analysis.names import ApiResolver
from jaxfix.analysis.parents import parent_map

NodeT = TypeVar("NodeT", bound=cst.CSTNode)


class ModuleAnalysis:
    """Computes what rules ask about once per pass, on first use; rules ask it questions, never edit.

    Positions cost a full code generation, so they are only computed when something is reported.
    """

    def __init__(self, wrapper: MetadataWrapper, jax_version: tuple[int, ...] | None) -> None:
        self.wrapper = wrapper
        self.jax_version = jax_version

    @cached_property
    def parents(self):
        return parent_map(self.wrapper.module)

    @cached_property
    def source_order(self) -> dict[cst.CSTNode, int]:
        """Each node's rank in the order a visitor meets them: source order, outer before inner."""
        return {node: rank for rank, node in enumerate(self.parents)}

    def nodes(self, kind: type[NodeT]) -> list[NodeT]:
        """Every node of type `kind`, in the order a visitor meets them (the parent map's order)."""
        return [node for node in self.parents if isinstance(node, kind)]

    @cached_property
    def positions(self):
        return self.wrapper.resolve(PositionProvider)

    @cached_property
    def scopes(self):
        return self.wrapper.resolve(ScopeProvider)

    @cached_property
    def names(self) -> ApiResolver:
        return ApiResolver(self.scopes)

    @cached_property
    def meshes(self) -> MeshModel:
        return MeshModel(self.names, self.scopes, self.parents, self.jax_version)

    @cached_property
    def current_mesh(self) -> CurrentMeshModel:
        return CurrentMeshModel(self)

    @cached_property
    def expected_errors(self) -> ExpectedErrors:
        return ExpectedErrors(self)

    @cached_property
    def device_free(self) -> DeviceFreeValues:
        return DeviceFreeValues(self)
