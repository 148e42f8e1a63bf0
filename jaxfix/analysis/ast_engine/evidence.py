"""Confirmed mode: run-time facts laid over a rule's answers at the nodes a log confirms.

A traceback (or a recorded run) proves that a rule's error was raised at a line; the message
names meshes by the roles of the rule's `raises` (`{mesh:new}`). A rule asks
`analysis.confirmed(call, code)` for the call it checks; at a confirmed call it asks its
questions again through that `Confirmed`: where the code leaves a mesh unknown, the log's mesh
of the role fills it in (`fill`, `logged`); where the code does show one, the two must agree
(`contradiction`): a log saying otherwise is about other code, and the site is "changed since
the log", never fixed from it. The engine then keeps only reports that some evidence confirmed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from jaxfix.analysis.ast_engine.positions import Span
from jaxfix.analysis.ast_engine.values import AxisType, Mesh, MeshKind
from jaxfix.evidence.facts import Evidence, MeshFacts


class EvidenceQuestions(Protocol):
    """What `EvidenceMap` asks of the module's analysis: where nodes are (in characters, as
    a recorded run counts columns), and their parents."""

    @property
    def parents(self) -> Mapping[ast.AST, ast.AST]: ...

    def span(self, node: ast.AST) -> Span: ...


class EvidenceMap:
    """This module's evidence, matched to the nodes rules ask about."""

    def __init__(
        self, analysis: EvidenceQuestions, evidence: tuple[Evidence, ...]
    ) -> None:
        self.analysis = analysis
        self.evidence = evidence
        self.matched: dict[Evidence, ast.AST] = {}

    def at(self, node: ast.AST, code: str) -> Evidence | None:
        """The evidence of `code` raised on one of the lines `node` spans (the innermost such
        node wins: a traceback's line is that of the call that raised)."""
        evidence = next(self._on(node, code), None)
        if evidence is not None:
            self.matched[evidence] = node
        return evidence

    def through(self, node: ast.AST, code: str) -> Evidence | None:
        """As `at`, also matching evidence raised elsewhere by a call on `node`'s lines (a
        traceback's outer frame there): for a rule whose report is the context the raising
        call ran in (JAX014's `with mesh:` around a call of a function that raised)."""
        evidence = self.at(node, code)
        if evidence is not None or getattr(node, "lineno", None) is None:
            return evidence
        span = self.analysis.span(node)
        evidence = next(
            (
                e
                for e in self.evidence
                if e.code == code
                and self.matched.get(e, node) is node  # asked again of the same node
                and any(span.start[0] <= line <= span.end[0] for line in e.callers)
            ),
            None,
        )
        if evidence is not None:
            self.matched[evidence] = node
        return evidence

    def confirms(self, code: str, node: ast.AST) -> Evidence | None:
        """The evidence behind a report on `node`: matched to it or to a node around it, or,
        for a rule that never asked (its message names no mesh it needs), evidence no node
        was matched to on the lines of the reported node or of an expression holding it in
        its statement (a keyword of a multi-line call the run shows raising on its first
        line, `@partial(jax.shard_map, ..., check_rep=False)`)."""
        around = set()
        current: ast.AST | None = node
        while current is not None:
            around.add(current)
            current = self.analysis.parents.get(current)
        found = next(
            (e for e, n in self.matched.items() if e.code == code and n in around), None
        )
        if found is None:
            found = next(
                (
                    e
                    for holder in self._holders(node)
                    for e in self._on(holder, code)
                    if e not in self.matched
                ),
                None,
            )
            if found is not None:
                self.matched[found] = node
        return found

    def _holders(self, node: ast.AST) -> Iterator[ast.AST]:
        """`node`, then each expression (or keyword) around it, innermost first, up to its
        statement."""
        current: ast.AST | None = node
        while current is not None:
            yield current
            current = self.analysis.parents.get(current)
            if not isinstance(current, (ast.expr, ast.keyword)):
                return

    def confirms_edit(
        self, code: str, node: ast.AST, edited: tuple[ast.AST, ...]
    ) -> Evidence | None:
        """As `confirms`, also by evidence on the lines of a node the report's fix edits: for a
        deprecation that warns where the module touches the name (its import) and whose one
        fix rewrites that import with the calls (under `-W error` the warning is the error)."""
        found = self.confirms(code, node)
        if found is not None:
            return found
        for target in edited:
            found = next(
                (e for e in self._on(target, code) if e not in self.matched), None
            )
            if found is not None:
                self.matched[found] = node
                return found
        return None

    def _on(self, node: ast.AST, code: str) -> Iterator[Evidence]:
        if not self.evidence or getattr(node, "lineno", None) is None:
            return
        span = self.analysis.span(node)
        for evidence in self.evidence:
            if (
                evidence.code == code
                and span.start[0] <= evidence.line <= span.end[0]
                and _overlaps(span, evidence)
            ):
                yield evidence


def _overlaps(span: Span, evidence: Evidence) -> bool:
    """Whether the node is on the columns of the call that raised, when the run recorded them
    (two calls on one line are then told apart)."""
    if evidence.columns is None:
        return True
    first, last = evidence.columns
    return span.start < (evidence.line, last) and (evidence.line, first) < span.end


@dataclass(frozen=True)
class Confirmed:
    """The run-time facts laid over a rule's answers at a node the log confirms (the rule's
    error was raised there): where the code leaves a mesh unknown, the log's mesh of that role
    (a `{mesh:role}` of the rule's `raises`) fills it in; where the code shows one the log
    contradicts, the site has changed since the log."""

    evidence: Evidence

    @property
    def where(self) -> str:
        return self.evidence.where

    def logged(self, role: str, node: ast.AST) -> list[Mesh]:
        """Each distinct mesh of `role` the log shows, as a value built at `node`."""
        return [
            confirmed_mesh(None, mesh, node)
            for mesh in dict.fromkeys(self.evidence.meshes(role))
        ]

    def agreed(self, role: str) -> MeshFacts | None:
        """The mesh of `role`, when every traceback that names one names the same."""
        meshes = set(self.evidence.meshes(role))
        return meshes.pop() if len(meshes) == 1 else None

    def fill(self, role: str, static: Mesh | None, node: ast.AST) -> Mesh | None:
        """The static answer with what it left unknown taken from the log's mesh of `role`;
        the static answer as it is when the log shows none, or several."""
        agreed = self.agreed(role)
        return static if agreed is None else confirmed_mesh(static, agreed, node)

    def contradiction(
        self, role: str, shown: Mesh | None, *, types: bool = True
    ) -> Mesh | None:
        """A mesh of `role` in the log that cannot be the one the code shows (see
        `contradicts`), as a value at the shown mesh's node; None where they agree."""
        if shown is None:
            return None
        for mesh in dict.fromkeys(self.evidence.meshes(role)):
            if contradicts(shown, mesh, types=types):
                return confirmed_mesh(None, mesh, shown.origin)
        return None


def confirmed_mesh(static: Mesh | None, facts: MeshFacts, node: ast.AST | None) -> Mesh:
    """The static answer with what it left unknown taken from the message's mesh."""
    value = Mesh(
        kind=MeshKind(facts.kind),
        axis_names=facts.axis_names,
        axis_sizes=facts.axis_sizes,
        axis_types=None
        if facts.axis_types is None
        else tuple(AxisType(t) for t in facts.axis_types),
        has_abstract_device=facts.has_abstract_device,
        origin=node,
    )
    if static is None:
        return value
    return replace(
        static,
        axis_names=static.axis_names
        if static.axis_names is not None
        else value.axis_names,
        axis_sizes=_per_axis(static.axis_sizes, value.axis_sizes),
        axis_types=static.axis_types
        if static.axis_types is not None
        else value.axis_types,
    )


def _per_axis(
    static: tuple[int | None, ...] | None, known: tuple[int | None, ...] | None
) -> tuple[int | None, ...] | None:
    if static is None or known is None or len(static) != len(known):
        return known if static is None else static
    return tuple(k if s is None else s for s, k in zip(static, known))


def contradicts(shown: Mesh, logged: MeshFacts, *, types: bool = True) -> bool:
    """Whether the log's mesh cannot be the one the code shows: axis names, sizes or (with
    `types`) axis types that differ where both are known. Pass `types=False` where the code's
    types are a default that depends on the JAX version (the log's JAX may be another)."""
    value = confirmed_mesh(None, logged, shown.origin)
    if not types:
        value = replace(value, axis_types=None)
    return shown.equals(value) is False


def changed_since_the_log(shown: str, logged: str) -> str:
    """Why a site whose code contradicts its log is not fixed from it: the log is about code
    that has changed since (or it was never this code's)."""
    return (
        f"the code shows {shown} here, not {logged} in the log (changed since the log?)"
    )
