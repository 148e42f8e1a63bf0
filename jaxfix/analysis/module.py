"""Everything the analysis knows about one parsed module, shared by all rules in a pass."""

from __future__ import annotations

from functools import cached_property

from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

from jaxfix.analysis.context import ContextModel
from jaxfix.analysis.current_mesh import CurrentMeshModel
from jaxfix.analysis.mesh import MeshModel
from jaxfix.analysis.names import ApiResolver

# Resolved for every candidate file. Positions cost a full code generation, so they are only
# computed when something is reported (see `positions`).
PROVIDERS = (QualifiedNameProvider, ScopeProvider, ParentNodeProvider)


class ModuleAnalysis:
    """Resolves metadata once per pass; rules ask it questions, never edit."""

    def __init__(self, wrapper: MetadataWrapper, jax_version: tuple[int, ...] | None) -> None:
        self.wrapper = wrapper
        self.jax_version = jax_version
        self.metadata = wrapper.resolve_many(PROVIDERS)

    @property
    def parents(self):
        return self.metadata[ParentNodeProvider]

    @cached_property
    def positions(self):
        return self.wrapper.resolve(PositionProvider)

    @property
    def scopes(self):
        return self.metadata[ScopeProvider]

    @cached_property
    def names(self) -> ApiResolver:
        return ApiResolver(self.metadata[QualifiedNameProvider])

    @cached_property
    def meshes(self) -> MeshModel:
        return MeshModel(self.names, self.scopes, self.parents, self.jax_version)

    @cached_property
    def contexts(self) -> ContextModel:
        return ContextModel(self.meshes, self.parents)

    @cached_property
    def current_mesh(self) -> CurrentMeshModel:
        return CurrentMeshModel(self)
