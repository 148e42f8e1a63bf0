"""Everything the analysis knows about one parsed module, shared by all rules in a pass.

Rules ask two questions:

- `contexts_at(node) -> list[ContextSite]`: the mesh contexts in force where `node` runs,
  outermost first (see `jaxfix.analysis.contexts`); `context_mesh_sites(sites)` picks the one that sets
  JAX's context mesh on each way the node runs.
- `value_of(expr) -> Value`: a `MeshValue`, int, str, `AxisType`, None, a tuple of values, or
  `Unknown(why)` (see `jaxfix.analysis.evaluate`).

and use a few helpers to find the calls they look at: `api_of` / `called_api` (which JAX API,
whatever the import spelling), `bind(call)` (its arguments by parameter name, from the one table
of JAX signatures), `resolve(expr)` (the expression a name is bound to), `jit_application`,
`is_entered`, `calls_running(function)`, `definition(name)`, `assigned_value(name)`,
`references(name)`, `reaching_bindings(name)` / `reads_reached(targets)` (which assignment a
read sees) and `line(node)`. A fix that resizes a mesh asks `mesh_sizes(expr)`: where each of
its axis sizes is written.

Across modules (when the engine gives the module's `path` and the process's `ProjectIndex`, see
`jaxfix.analysis.project`): `value_of` follows names and `module.NAME` attributes bound by
imports of other modules of the tree, and calls of functions defined there.
`external_definition(expr) -> External | None` is the seam for other questions: for a Name or
attribute chain that denotes something defined at module level in another module of the tree,
that module's `ModuleAnalysis` (`external.analysis`, ask it anything) and the defining node
(`external.node`: a FunctionDef, a ClassDef, or the expression assigned to the name).
`dependencies` lists the other files whose content any answer used (a result cached for this
module is stale when one of them changes).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import cached_property
from pathlib import Path
from typing import TypeVar, cast

import libcst as cst
from libcst.metadata import (
    Access,
    CodeRange,
    MetadataWrapper,
    PositionProvider,
    Scope,
    ScopeProvider,
)

from jaxfix.analysis.arrays import DeviceFreeValues
from jaxfix.analysis.bindings import Bindings
from jaxfix.analysis.confirmed import Confirmed, EvidenceMap
from jaxfix.analysis.contexts import ContextModel, ContextSite, context_mesh_sites
from jaxfix.analysis.cst_names import ApiResolver, bind
from jaxfix.analysis.evaluate import ValueModel
from jaxfix.analysis.expected_errors import ExpectedErrors
from jaxfix.analysis.jitting import JitApplication, jit_application
from jaxfix.analysis.mesh_sizes import MeshSizes, mesh_sizes
from jaxfix.analysis.names import SIGNATURES, Api
from jaxfix.analysis.parents import parent_map
from jaxfix.analysis.project import (
    Definition,
    External,
    ProjectIndex,
    Recorded,
    Resolved,
    external,
    materialize,
)
from jaxfix.analysis.reaching import Reaching
from jaxfix.analysis.values import Unknown, Value
from jaxfix.evidence import Evidence

NodeT = TypeVar("NodeT", bound=cst.CSTNode)


class ModuleAnalysis:
    """Computes what rules ask about once per pass, on first use; rules ask it questions, never edit.

    Positions cost a full code generation, so they are only computed when something is reported.
    """

    def __init__(
        self,
        wrapper: MetadataWrapper,
        jax_version: tuple[int, ...] | None,
        evidence: tuple[Evidence, ...] = (),
        *,
        path: Path | None = None,
        project: ProjectIndex[ModuleAnalysis] | None = None,
    ) -> None:
        self.wrapper = wrapper
        self.jax_version = jax_version
        self.evidence = EvidenceMap(self, evidence)
        self.path = path.resolve() if path is not None else None
        self.project = (
            project  # None: imports are not followed (names bound by them are unknown)
        )
        self._dependencies: set[Path] = set()
        # Paths imports were looked for at and what they were: a module created (or removed)
        # there later could change an answer, so cached results depend on them too.
        self.layout: dict[Path, str] = {}

    # -- the two questions --------------------------------------------------------------------

    def contexts_at(self, node: cst.CSTNode) -> list[ContextSite]:
        """The mesh contexts in force where `node` runs, outermost first."""
        return self.contexts.contexts_at(node)

    def value_of(self, expr: cst.BaseExpression) -> Value:
        """What `expr` evaluates to, as far as the module shows."""
        return self.values.value_of(expr)

    def confirmed(self, node: cst.CSTNode, code: str) -> Confirmed | None:
        """Confirmed mode (`--from-log`, `--evidence`): the log's proof that `code`'s error was
        raised at `node`, laid over the answers the rule gets there: the meshes its message
        names fill in what the code leaves unknown (see jaxfix/analysis/confirmed.py)."""
        evidence = self.evidence.at(node, code)
        return None if evidence is None else Confirmed(evidence)

    # -- finding the calls a rule looks at ----------------------------------------------------

    def api_of(self, node: cst.CSTNode | None) -> Api | None:
        return self.names.api(node)

    def called_api(self, node: cst.CSTNode | None) -> Api | None:
        """For a Call node, the API of its callee; None for anything else."""
        return self.names.called_api(node)

    def bind(self, call: cst.Call) -> dict[str, cst.BaseExpression] | None:
        """The arguments of a call of a JAX API by parameter name; None when the callee is not
        in the signature table or the arguments cannot be bound (`*args`, unknown keywords)."""
        api = self.names.called_api(call)
        signature = SIGNATURES.get(api) if api is not None else None
        return None if signature is None else bind(call, signature)

    def resolve(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """The expression a name (bound exactly once) or `self.x` leads to, as far as known."""
        return self.values.resolve(expr)

    def jit_application(self, expr: cst.BaseExpression) -> JitApplication | None:
        return jit_application(expr, self.names)

    def definition(self, name: cst.Name) -> cst.CSTNode | None:
        """The node that binds `name` when it is bound exactly once (FunctionDef, Param, ...)."""
        return self.bindings.definition(name)

    def references(self, name: cst.Name) -> Collection[Access]:
        """The reads of the one binding `name` denotes (a read or the binding target itself);
        none when it is not bound exactly once."""
        return self.bindings.references(name)

    def assigned_value(self, name: cst.Name) -> cst.BaseExpression | None:
        """The expression `name`'s one binding assigns (`name = value`, one step, no further)."""
        return self.bindings.value(name)

    def reaching_bindings(self, name: cst.Name) -> frozenset[cst.Name] | None:
        """The targets of the plain `name = value` assignments whose value this read of `name`
        may see (the latest in straight-line code, one per branch of an `if`), within one
        function; None when jaxfix cannot tell (see `jaxfix.analysis.reaching`)."""
        return self.reaching.bindings(name)

    def reads_reached(self, targets: frozenset[cst.Name]) -> list[cst.Name]:
        """The reads of a name that one of these bindings of it may reach."""
        return self.reaching.reads(targets)

    def bound_value(self, target: cst.Name) -> cst.BaseExpression | None:
        """The value a plain `target = value` statement assigns."""
        return self.reaching.assigned(target)

    def mesh_sizes(self, expr: cst.BaseExpression) -> tuple[MeshSizes, ...] | Unknown:
        """Where the axis sizes of the abstract mesh `expr` gives are written: the literal a
        fix may rewrite for this use alone, an environment variable or config key they are read
        from, or why not (see `jaxfix.analysis.mesh_sizes`)."""
        return mesh_sizes(self, expr)

    def is_entered(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr` is a `with` item or the argument of `x.enter_context(...)`."""
        return self.contexts.is_entered(expr)

    def calls_running(self, function: cst.FunctionDef) -> list[cst.Call]:
        """The calls in this module that run `function`'s body (see `ContextModel.calls_running`)."""
        return self.contexts.calls_running(function)

    def line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    # -- other modules of the tree --------------------------------------------------------------

    def external_definition(
        self, expr: cst.BaseExpression
    ) -> External[ModuleAnalysis] | None:
        """For a Name or attribute chain bound by an import (`from .meshes import MESH`,
        `meshes.MESH`, `pkg.meshes.make_mesh`): the module of the tree that defines it and the
        defining node; None when it is not such a reference or jaxfix cannot follow it."""
        found = self.imported(expr)
        project = self.project
        external = (
            materialize(project, self.jax_version, found)
            if isinstance(found, Definition) and project is not None
            else None
        )
        return external if isinstance(external, External) else None

    def imported(self, expr: cst.BaseExpression) -> Resolved | None:
        """What a Name or attribute chain reached through an import denotes: a `Definition`
        (found from `ast` summaries; `materialize` parses it), a `ModuleRef` (a module itself)
        or `Unknown(why)`; None when it is not reached through an import (or there is no
        project index)."""
        return external(self, expr)

    @property
    def dependencies(self) -> frozenset[Path]:
        """The files, other than this module's, whose content any answer so far used."""
        return frozenset(
            self._dependencies - {self.path}
            if self.path is not None
            else self._dependencies
        )

    def depends_on(self, path: Path, other: Recorded | None = None) -> None:
        """Record that an answer used the file `path` (and, when it was `other`'s answer, the
        files that one used and the paths its imports were looked for at)."""
        self._dependencies.add(path)
        if other is not None:
            self._dependencies |= other.dependencies
            for looked_at, state in other.layout.items():
                self.layout.setdefault(looked_at, state)

    # -- what the answers are computed from ---------------------------------------------------

    @cached_property
    def parents(self) -> dict[cst.CSTNode, cst.CSTNode]:
        return parent_map(self.wrapper.module)

    @cached_property
    def source_order(self) -> dict[cst.CSTNode, int]:
        """Each node's rank in the order a visitor meets them: source order, outer before inner."""
        return {node: rank for rank, node in enumerate(self.parents)}

    def nodes(self, kind: type[NodeT]) -> list[NodeT]:
        """Every node of type `kind`, in the order a visitor meets them (the parent map's order)."""
        types = [t for t in self._by_type if issubclass(t, kind)]
        if (
            len(types) <= 1
        ):  # none, or one node class (cst.Call): its list is in that order
            return list(cast("list[NodeT]", self._by_type[types[0]])) if types else []
        return [node for node in self.parents if isinstance(node, kind)]

    @cached_property
    def _by_type(self) -> dict[type[cst.CSTNode], list[cst.CSTNode]]:
        """The nodes of each class, in the parent map's order."""
        found: dict[type[cst.CSTNode], list[cst.CSTNode]] = {}
        for node in self.parents:
            found.setdefault(type(node), []).append(node)
        return found

    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        return self.wrapper.resolve(PositionProvider)

    @cached_property
    def scopes(self) -> Mapping[cst.CSTNode, Scope | None]:
        return self.wrapper.resolve(ScopeProvider)

    @cached_property
    def names(self) -> ApiResolver:
        return ApiResolver(self.scopes)

    @cached_property
    def bindings(self) -> Bindings:
        return Bindings(self.scopes, self.parents)

    @cached_property
    def reaching(self) -> Reaching:
        return Reaching(self.scopes, self.bindings, self.parents)

    @cached_property
    def values(self) -> ValueModel:
        return ValueModel(
            self.names,
            self.bindings,
            self.parents,
            self.jax_version,
            self._current_contexts,
            self,
        )

    def _current_contexts(self, node: cst.CSTNode) -> list[ContextSite]:
        return context_mesh_sites(self.contexts.contexts_at(node))

    @cached_property
    def contexts(self) -> ContextModel:
        return ContextModel(self)

    @cached_property
    def expected_errors(self) -> ExpectedErrors:
        return ExpectedErrors(self)

    @cached_property
    def device_free(self) -> DeviceFreeValues:
        return DeviceFreeValues(self)


def new_project_index(
    roots: tuple[Path, ...] = (), *, max_source_bytes: int | None = None
) -> ProjectIndex[ModuleAnalysis]:
    """A project index (jaxfix/analysis/project.py) that analyses the modules it parses with
    `ModuleAnalysis`: the wiring the index cannot do itself, since this module imports it."""
    return ProjectIndex(roots, _analyse, max_source_bytes=max_source_bytes)


def _analyse(
    wrapper: MetadataWrapper,
    jax_version: tuple[int, ...] | None,
    path: Path,
    project: ProjectIndex[ModuleAnalysis],
) -> ModuleAnalysis:
    return ModuleAnalysis(wrapper, jax_version, path=path, project=project)
