"""Resolve a name or attribute to the JAX API it denotes, whatever the import spelling."""

from __future__ import annotations

from collections.abc import Collection, Mapping

import libcst as cst
from libcst.metadata import QualifiedName, Scope

# Canonical API name -> every fully qualified name it is reachable through.
JAX_APIS: dict[str, frozenset[str]] = {
    name: frozenset(spellings)
    for name, spellings in {
        "AbstractMesh": ("jax.sharding.AbstractMesh", "jax._src.mesh.AbstractMesh"),
        "Mesh": ("jax.sharding.Mesh", "jax._src.mesh.Mesh", "jax.experimental.maps.Mesh"),
        "make_mesh": ("jax.make_mesh", "jax.sharding.make_mesh", "jax._src.mesh_utils.make_mesh"),
        "use_abstract_mesh": ("jax.sharding.use_abstract_mesh", "jax._src.mesh.use_abstract_mesh", "jax.use_abstract_mesh"),
        "set_mesh": ("jax.set_mesh", "jax.sharding.set_mesh", "jax._src.sharding_impls.set_mesh"),
        "use_mesh": ("jax.sharding.use_mesh", "jax.use_mesh"),
        "get_abstract_mesh": ("jax.sharding.get_abstract_mesh", "jax._src.mesh.get_abstract_mesh"),
        "NamedSharding": (
            "jax.sharding.NamedSharding",
            "jax.NamedSharding",
            "jax._src.named_sharding.NamedSharding",
            "jax._src.sharding_impls.NamedSharding",
        ),
        "PartitionSpec": ("jax.sharding.PartitionSpec", "jax.P", "jax._src.partition_spec.PartitionSpec"),
        "AxisType": ("jax.sharding.AxisType", "jax._src.mesh.AxisType"),
        "jit": ("jax.jit", "jax.experimental.pjit.pjit", "jax.pjit"),
        "ShapeDtypeStruct": ("jax.ShapeDtypeStruct", "jax._src.api.ShapeDtypeStruct"),
        "device_put": ("jax.device_put", "jax._src.api.device_put"),
        "typeof": ("jax.typeof",),
        "export": ("jax.export.export",),
        "top_level_all_gather": ("jax._src.shard_map.top_level_all_gather",),
        "partial": ("functools.partial",),
        "ExitStack": ("contextlib.ExitStack",),
    }.items()
}
_BY_QUALIFIED_NAME = {q: api for api, spellings in JAX_APIS.items() for q in spellings}
# Public aliases a future JAX may add (jax.sharding.top_level_all_gather, ...) match by last name.
_MATCH_ANY_JAX_MODULE = frozenset({"top_level_all_gather"})


def api_of_qualified_names(names: Collection[QualifiedName]) -> str | None:
    """The canonical API for a set of qualified names, or None."""
    for qualified in names:
        api = _BY_QUALIFIED_NAME.get(qualified.name)
        if api is not None:
            return api
        head, _, last = qualified.name.rpartition(".")
        if last in _MATCH_ANY_JAX_MODULE and (head == "jax" or head.startswith("jax.")):
            return last
    return None


class ApiResolver:
    """Answers "which JAX API is this expression?" from the qualified names its scope gives.

    The same names as LibCST's QualifiedNameProvider (which asks the node's scope in the same
    way), but computed only for the nodes a rule asks about, not a traversal of the module.
    """

    def __init__(self, scopes: Mapping[cst.CSTNode, Scope | None]) -> None:
        self._scopes = scopes
        self._known: dict[cst.CSTNode, frozenset[QualifiedName]] = {}

    def qualified_names(self, node: cst.CSTNode) -> frozenset[QualifiedName]:
        names = self._known.get(node)
        if names is None:
            scope = self._scopes.get(node)
            names = self._known[node] = frozenset() if scope is None else frozenset(scope.get_qualified_names_for(node))
        return names

    def api(self, node: cst.CSTNode) -> str | None:
        return api_of_qualified_names(self.qualified_names(node))

    def is_api(self, node: cst.CSTNode, *apis: str) -> bool:
        return self.api(node) in apis

    def called_api(self, node: cst.CSTNode) -> str | None:
        """For a Call node, the API of its callee."""
        return self.api(node.func) if isinstance(node, cst.Call) else None
