"""The mesh context that encloses a node on each way it runs, placed as a message names it.

`Contexts.ways_at` gives every way a node may run as the sites in force, outermost first; a
rule that reports "entered inside `X` (line N)" needs, for each way, the site that sets JAX's
context mesh there (the innermost that does) and where the user sees it: the `with` item of a
`@contextmanager` helper rather than the line inside the helper; a decorator's wrapper of this
module, else the decorator; the `setUp`/`setUpClass` method that entered it; the call of the
node's function it is entered around; and the module holding those when it is another one.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from jaxfix.analysis.ast_engine.contexts import Contexts, Entry, Site
from jaxfix.analysis.ast_engine.project import Module, Project
from jaxfix.analysis.ast_engine.values import Value
from jaxfix.analysis.names import Api

_SETUP_METHODS = frozenset({"setUp", "setUpClass"})


@dataclass(frozen=True)
class Enclosing:
    """The site that sets the context mesh on one way a node runs: how it is entered, by which
    API (None: not visible), its mesh, the node that enters it as a message shows it, the call of
    the node's function it is entered around (None: in the node's own body, a decorator or
    setUp), the setUp/setUpClass method that entered it, and the file holding `node` and `call`
    when it is not the asked node's (None)."""

    entry: Entry
    api: Api | None
    mesh: Value
    node: ast.AST
    call: ast.AST | None
    setup: str | None
    path: Path | None


def enclosing(
    contexts: Contexts, project: Project, module: Module, node: ast.AST
) -> list[Enclosing]:
    """One `Enclosing` per distinct way `node` runs under a mesh context (none for the ways
    with no context)."""
    found: dict[tuple[int, int], Enclosing] = {}
    for way in contexts.ways_at(module, node):
        setting = [site for site in way if site.sets_context_mesh]
        if setting:
            site = setting[-1]
            placed = _placed(project, module, site)
            found.setdefault((id(placed.node), id(placed.call)), placed)
    return list(found.values())


def _placed(project: Project, module: Module, site: Site) -> Enclosing:
    shown = site.node
    if site.entered_by is not None:
        own = _holder(project, module, site.node)
        by = _holder(project, module, site.entered_by)
        if site.entry is not Entry.DECORATOR or own is not by:
            shown = (
                site.entered_by
            )  # the helper's `with` item, another module's decorator
    holder = _holder(project, module, shown)
    setup = None
    if site.entry is Entry.SETUP and holder is not None:
        scope = holder.scope_of(shown)
        if isinstance(scope, ast.FunctionDef) and scope.name in _SETUP_METHODS:
            setup = scope.name
    return Enclosing(
        site.entry,
        site.api,
        site.mesh,
        shown,
        site.call if site.call is not site.entered_by else None,
        setup,
        holder.path if holder is not None and holder is not module else None,
    )


def _holder(project: Project, module: Module, node: ast.AST) -> Module | None:
    if node is module.tree or node in module.parents:
        return module
    return project.holding(node)
