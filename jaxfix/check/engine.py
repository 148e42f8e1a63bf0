"""One file in, one FileResult out: parse once, run every selected rule, apply fixes, verify.

Pure: reading, caching and safe writes live in jaxfix/check/runner.py and jaxfix/sources/file_io.py. The
rules run over `ast` (one walk, the run's engine); LibCST (half a second to import) is imported
and the file parsed with it only to write a fix.
"""

from __future__ import annotations

import ast
import gc
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.fields import SHARED, child_fields, own_fields
from jaxfix.analysis.ast_engine.positions import Span
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.check import registry
from jaxfix.check.byte_tokens import Words
from jaxfix.check.changed_lines import carry_lines
from jaxfix.check.dependencies import recorded
from jaxfix.check.run import GC_GENERATION_0, Run
from jaxfix.check.suppression import is_suppressed
from jaxfix.codemods import text as rule_text
from jaxfix.codemods.base import Rule
from jaxfix.evidence.facts import Evidence
from jaxfix.evidence.message_templates import exceptions
from jaxfix.ground.diagnostics import (
    Diagnostic,
    FileResult,
    Fix,
    Location,
    Related,
    Report,
    Safety,
)
from jaxfix.ground.interrupts import raise_if_interrupted
from jaxfix.ground.quoting import cut
from jaxfix.settings.options import ImportOrder, Options
from jaxfix.sources.cst_source import CstSource, for_libcst
from jaxfix.sources.file_io import unreadable_reason
from jaxfix.sources.grammar import NewerGrammar, not_fixed, touched
from jaxfix.sources.kinds import source_of
from jaxfix.sources.nesting import too_deep
from jaxfix.sources.source import Source, SourceError
from jaxfix.sources.syntax import newer_grammar
from jaxfix.sources.text import source_text, split_lines

if TYPE_CHECKING:  # each imports LibCST
    import libcst as cst
    from libcst.metadata import CodeRange

    from jaxfix.ground.diagnostics import CstReplacement
    from jaxfix.write.cst_edits import Locator

MAX_PASSES = 8
_RECURSION_LIMIT = (
    3000  # Python's default is 1000; Python-to-Python calls use no C stack
)
# LibCST's tree and its metadata take about 2.4-3.2 KB per node of `ast`'s tree (measured on
# JAX's largest files).
_BYTES_PER_AST_NODE = 3200


class InternalError(Exception):
    """A rule produced something the engine refuses to write (non-convergence, bad syntax)."""


class TooLarge(Exception):
    """The file's tree would take more memory than `max-parse-memory` allows."""


def selected_rules(options: Options) -> list[type[Rule]]:
    """The registry's selection (jaxfix/check/registry.py), as the imported rules; a spawned
    worker registers the `--rule-module` rules here."""
    from jaxfix.codemods import RULES

    return [RULES[entry.code] for entry in registry.selected_rules(options)]


def candidate_rules(source: bytes | Words, options: Options) -> list[type[Rule]]:
    """The prefilter: rules whose tokens all occur in the raw bytes (each word and token
    looked for once for all the rules)."""
    words = source if isinstance(source, Words) else Words(source)
    return [rule for rule in selected_rules(options) if rule.may_apply(words)]


def _refuse_if_too_large(node_count: int, options: Options) -> None:
    """Bound a worker's memory before a fix parses the file with LibCST: one huge function
    can take gigabytes there."""
    predicted, basis = node_count * _BYTES_PER_AST_NODE, f"{node_count:,} syntax nodes"
    if predicted > options.max_parse_memory * 1024 * 1024:
        raise TooLarge(
            f"not checked: analysing it would take about {predicted / 1024**3:.1f} GB of memory "
            f"(from its {basis}), more than max-parse-memory ({options.max_parse_memory} MB)"
        )


def _fix_allowed(fix: Fix | None, options: Options) -> bool:
    return fix is not None and (fix.safety is Safety.SAFE or options.unsafe_fixes)


def _span(code_range: CodeRange) -> tuple[tuple[int, int], tuple[int, int]]:
    return (code_range.start.line, code_range.start.column), (
        code_range.end.line,
        code_range.end.column,
    )


def _apply(
    module: cst.Module,
    fixes: list[_Written],
    tree: _CstTree,
    line_length: int,
    order: ImportOrder,
) -> cst.Module:
    """Apply every fix whose nodes do not overlap an earlier one's; the rest wait for the next pass."""
    from jaxfix.write.cst_edits import ReplaceByIdentity
    from jaxfix.write.layout import fit_line_length

    taken: list[tuple[tuple[int, int], tuple[int, int]]] = []
    edits: dict[cst.CSTNode, cst.CSTNode] = {}
    imports: set[tuple[str, str | None]] = set()
    for fix in fixes:
        spans = [_span(tree.positions[node]) for node, _ in fix.edits]
        if any(a[0] < b[1] and b[0] < a[1] for a in spans for b in taken):
            continue
        taken.extend(spans)
        edits.update(fix.edits)
        imports.update(fix.imports)
    edits = fit_line_length(edits, module, tree.parents, tree.positions, line_length)
    module = module.visit(ReplaceByIdentity(edits))
    if imports:
        from jaxfix.write.added_imports import add_imports

        module = add_imports(
            module, sorted(imports, key=lambda i: (i[0], i[1] or "")), order
        )
    return module


def _diagnostic(found: _Found, options: Options) -> Diagnostic:
    report, where = found.report, found.where
    fix = report.fix
    return Diagnostic(
        code=report.code,
        message=report.message,
        start=Location(where.start[0], where.start[1] + 1),
        end=Location(where.end[0], where.end[1] + 1),
        fix_title=fix.title if fix else None,
        fix_safety=fix.safety if fix else None,
        applied=_fix_allowed(fix, options),
        related=report.related,
        fix_lines=found.fix_lines,
        data_edits=fix.data if fix else (),
    )


def _confirmed(analysis: Analysis, report: Report, at_edits: set[str]) -> Report | None:
    """`report` if a run's evidence confirms it; for a rule in `at_edits`, also evidence on a
    line its fix edits, which the report then names as a related place (see
    `warned_where_the_fix_edits`); else None."""
    found = analysis.evidence.confirms(report.code, report.node)
    if found is not None:
        span = analysis.span(report.node)
        if span.start[0] <= found.line <= span.end[0]:
            return report
        from jaxfix.codemods.text import raised_by_the_call

        return replace(report, related=(*report.related, raised_by_the_call(found)))
    if report.code not in at_edits or report.fix is None:
        return None
    found = analysis.evidence.confirms_edit(
        report.code, report.node, tuple(node for node, _ in report.fix.edits)
    )
    if found is None:
        return None
    from jaxfix.codemods.text import warned_where_the_fix_edits

    return replace(report, related=(*report.related, warned_where_the_fix_edits(found)))


def _refuse_conflicting(running: list[Rule], made: set[int]) -> None:
    """Of the reports a recorded run's values asked for (`Rule.at_value`, by identity in
    `made`), each whose fix edits a place another's fix edits another way (two errors that
    want one value set two ways, as `refuse_conflicts` finds for a data file's entries) is
    made report-only, naming the other's fix: neither is made."""
    owners: dict[int, list[tuple[Rule, int, str]]] = {}
    for rule in running:
        for index, report in enumerate(rule.reports):
            if id(report) in made and report.fix is not None:
                for node, _ in report.fix.edits:
                    owners.setdefault(id(node), []).append(
                        (rule, index, report.fix.title)
                    )
    refused: dict[tuple[int, int], list[str]] = {}
    for found in owners.values():
        for rule, index, title in found:
            others = [t for _, _, t in found if t != title]
            if others:
                refused.setdefault((id(rule), index), []).extend(others)
    for rule in running:
        for index, report in enumerate(rule.reports):
            others = refused.get((id(rule), index))
            if others:
                named = "; ".join(f"`{t}`" for t in dict.fromkeys(others))
                rule.reports[index] = replace(
                    report,
                    fix=None,
                    message=rule_text.with_note(
                        report.message,
                        rule_text.not_fixed(
                            "another error the run raised wants this place set another "
                            f"way: {named}"
                        ),
                    ),
                )


def _fix_lines(fix: Fix | None, analysis: Analysis) -> tuple[int, int] | None:
    if fix is None or not fix.edits:
        return None
    spans = [analysis.span(node) for node, _ in fix.edits]
    return min(s.start[0] for s in spans), max(s.end[0] for s in spans)


def _run_rules(
    engine: Engine,
    path: Path,
    source: bytes,
    rules: list[type[Rule]],
    options: Options,
    changed_lines: frozenset[int] | None,
    evidence: tuple[Evidence, ...] | None,
) -> tuple[Analysis, list[_Found], list[_Found]]:
    """The rules' reports that are neither expected (code testing the error), nor
    suppressed, nor off the changed lines, nor, with evidence from a log, unconfirmed; and
    the same of the calls they left (`Rule.leave`), where no report of theirs is."""
    module = engine.begin(path, source)  # what its answers use: engine.project.record
    if not isinstance(module, Module):
        newer = newer_grammar(source)  # valid code, in a newer Python's grammar
        if newer is not None:
            raise NewerGrammar(*newer)
        _refuse_if_too_deep(source)  # `ast` gave up on it: say so as for LibCST
        ast.parse(source)  # Python's own message and place for the file's one line
        raise SyntaxError(module.why)
    analysis = Analysis(engine, module, evidence or ())
    running = [rule_class(analysis, options) for rule_class in rules]
    _walk(module, running)
    made_at_values: set[int] = set()
    for item in evidence or ():
        if item.at_value:  # a value a recorded error was about is written here
            for rule in running:
                if rule.code == item.code:
                    before = len(rule.reports)
                    rule.at_value(item)
                    made_at_values.update(id(r) for r in rule.reports[before:])
    _refuse_conflicting(running, made_at_values)
    if engine.evaluator.too_deep:  # some answer gave up on the nesting
        _refuse_if_too_deep(source)
    reports = [
        report
        for rule in running
        for report in rule.reports
        if not analysis.expected(report.node, rule.raises, rule.error)
    ]
    if evidence is not None:
        # a deprecation raised as an error (`-W error`) is raised where the module touches the
        # name, which the report's fix edits
        at_edits = {
            r.code
            for r in running
            if "DeprecationWarning" in exceptions(r.error, r.raises)
        }
        reports = [
            confirmed
            for confirmed in (_confirmed(analysis, r, at_edits) for r in reports)
            if confirmed is not None
        ]
    for item in evidence or ():
        if not item.at_value and item not in analysis.evidence.matched:
            checked = _checked_call(module, running, item)
            if checked is not None:  # the rule looked there and could not say why
                analysis.evidence.matched[item] = checked
    reported = {(r.code, id(r.node)) for r in reports}
    trails = [
        trail
        for rule in running
        for trail in rule.trails
        if (trail.code, id(trail.node)) not in reported
        and not analysis.expected(trail.node, rule.raises, rule.error)
    ]
    if not reports and not trails:
        return analysis, [], []
    lines = split_lines(source_text(source))

    def kept(found: list[Report]) -> list[_Found]:
        kept = []
        for report in found:
            where = analysis.span(report.node)
            if is_suppressed(lines, report.code, (where.start[0], where.end[0])):
                continue
            if changed_lines is None or not changed_lines.isdisjoint(
                range(where.start[0], where.end[0] + 1)
            ):
                kept.append(
                    _Found(report, where, analysis, _fix_lines(report.fix, analysis))
                )
        return kept

    return analysis, kept(reports), kept(trails)


def _checked_call(
    module: Module, running: list[Rule], item: Evidence
) -> ast.Call | None:
    """A call on the evidence's line that its rule checks (`Rule.checks`)."""
    for rule in running:
        if rule.code != item.code:
            continue
        for call in module.calls:
            if call.lineno <= item.line <= (call.end_lineno or call.lineno) and (
                rule.checks(call)
            ):
                return call
    return None


# What a module's index lists (jaxfix/analysis/ast_engine/project.py): no walk needed for them.
_INDEXED = frozenset({"visit_Module", "visit_With", "visit_AsyncWith", "visit_Call"})


def _walk(module: Module, rules: list[Rule]) -> None:
    """Call the rules' `visit_<AstClass>` methods on every node, in source order (a node
    before its children, children in their fields' order): one walk for all rules. Rules that
    only look at the module, `with` statements and calls are given those (found by the
    module's index's walk), each kind in source order, without a walk."""
    handlers: dict[str, list[Callable[[ast.AST], object]]] = {}
    for rule in rules:
        for name, method in rule.get_visitors().items():
            handlers.setdefault(name, []).append(method)
    if handlers.keys() <= _INDEXED:
        for method in handlers.get("visit_Module", ()):
            method(module.tree)
        withs = handlers.get("visit_With", [])
        async_withs = handlers.get("visit_AsyncWith", [])
        for statement in module.withs if withs or async_withs else ():
            for method in withs if isinstance(statement, ast.With) else async_withs:
                method(statement)
        methods = handlers.get("visit_Call", [])
        for call in module.calls if methods else ():
            for method in methods:
                method(call)
        return
    by_type: dict[type, list[Callable[[ast.AST], object]]] = {}
    # Contexts and operators (`ast.Load()`, `ast.Add()`) have no children: not visited when
    # no rule looks at them (a third of the nodes: every name has its context).
    fields = child_fields if any(map(_is_shared, handlers)) else own_fields
    stack: list[ast.AST] = [module.tree]
    while stack:
        node = stack.pop()
        kind = type(node)
        found = by_type.get(kind)
        if found is None:
            found = by_type[kind] = handlers.get(f"visit_{kind.__name__}", [])
        for method in found:
            method(node)
        # ast.iter_child_nodes, inlined (the hot loop), pushed last child first; the fields
        # holding names and constants (and contexts, operators) not read (fields.py)
        for name in fields(kind):
            value = getattr(node, name, None)
            if type(value) is list:
                for item in reversed(value):
                    if isinstance(item, ast.AST):
                        stack.append(item)
            elif isinstance(value, ast.AST):
                stack.append(value)


def _is_shared(visitor: str) -> bool:
    """Whether `visit_<Name>` is for a context or an operator (`SHARED`)."""
    kind = getattr(ast, visitor.removeprefix("visit_"), None)
    return isinstance(kind, type) and issubclass(kind, SHARED)


def _parses_with_ast(source: bytes) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def _unconfirmed(
    evidence: tuple[Evidence, ...],
    confirmed: set[Evidence | None],
    matched: set[Evidence],
    lines: list[str],
    root: Path | None = None,
) -> list[Diagnostic]:
    """A diagnostic for each piece of evidence no rule's report stands for (`confirmed`: the
    evidence behind the reports; `matched`: the evidence some rule found its call for)."""
    found = []
    for item in evidence:
        if (
            item in confirmed
            or item.at_value  # the raising line's report says why nothing is done here
            or is_suppressed(lines, item.code, (item.line, item.line))
        ):
            continue
        elsewhere = _value_elsewhere(item, root)
        if item in matched:
            why = "but jaxfix cannot tell why from this code"
        elif elsewhere is not None:
            why = (
                f"but no call on this line is one {item.code} checks: JAX raised it inside "
                f"code this line calls; {elsewhere}"
            )
        else:
            why = (
                f"but no call on this line is one {item.code} checks: JAX raised it inside code this line calls "
                "(in another module or a library)"
            )
        text = lines[item.line - 1] if item.line <= len(lines) else ""
        indent = len(text) - len(text.lstrip())
        note = item.mesh_note(root)
        if note and item in matched:  # the run tells what the code does not
            why = f"and no fix is safe here: {note}"
        elif note and item.mesh_origins:  # the sizes' origins are where to fix it
            why += f", and no fix is safe here: {note}"
        else:
            if elsewhere is None and item not in matched:
                why += "; give jaxfix that file's path, or fix it there"
            if note:
                why += f"; {note}"
        found.append(
            Diagnostic(
                code=item.code,
                message=f"the log shows JAX raised {item.code} at this line ({item.where}), {why}",
                start=Location(item.line, indent + 1),
                end=Location(item.line, len(text.rstrip("\r\n")) + 1),
                related=_mesh_places(item),
            )
        )
    return found


def _value_elsewhere(item: Evidence, root: Path | None) -> str | None:
    """Where, in another file, the run shows the value the error is about (a fixture's `with
    mesh:` the test raised under): the place jaxfix reports and fixes it, named from the
    project's root."""
    site = item.value_site
    if site is None or site.path == site.raised[0]:
        return None
    why = f" ({site.why})" if site.why else ""
    return (
        f"`{cut(site.name, 60)}` at {site.where(root)}{why} is where jaxfix reports "
        "and fixes it"
    )


def _mesh_places(item: Evidence) -> tuple[Related, ...]:
    """Where each mesh the message names got its sizes (`Evidence.mesh_origins`) and where
    the run read the host values they come from; else where the run built it."""
    found = []
    walked = set()
    for origin in item.mesh_origins:
        walked.add(origin.role)
        found.append(
            Related(
                f"`{origin.name}`: the {origin.role} mesh's sizes come from here, {origin.why}",
                Location(origin.span[0], origin.span[1] + 1),
                origin.path,
            )
        )
        found += [
            Related(
                f"the {origin.role} mesh's sizes are read here",
                Location(line, 1),
                where,
            )
            for where, line in origin.reads_at
            if (where, line) != (origin.path, origin.span[0])
        ]
        found += [
            Related(
                f"{what}: a factor of the {origin.role} mesh's sizes is written here"
                + (
                    f"; they must multiply to {origin.product}"
                    if origin.product is not None
                    else ""
                ),
                Location(line, 1),
                where,
            )
            for where, line, what in origin.factors
        ]
    for place in item.origins:
        if place.kind == "built" and place.role not in walked and place.frames:
            walked.add(place.role)
            where, line = place.frames[-1]
            found.append(
                Related(
                    f"the run built the {place.role} mesh here",
                    Location(line, 1),
                    where,
                )
            )
    return tuple(found)


def _shown_from(engine: Engine, path: Path) -> Path | None:
    """The project root a message names other files from, when `path` is in it."""
    absolute = Path(os.path.abspath(path))
    for root in engine.evaluator.project.roots:
        if absolute.is_relative_to(root):
            return root
    return None


def _carry_evidence(
    evidence: tuple[Evidence, ...], old: list[str], new: list[str]
) -> tuple[Evidence, ...]:
    carried = []
    for item in evidence:
        lines = carry_lines(frozenset({item.line}), old, new)
        if lines:
            callers = sorted(
                min(moved)
                for moved in (
                    carry_lines(frozenset({line}), old, new) for line in item.callers
                )
                if moved
            )
            carried.append(
                replace(item, line=min(lines), columns=None, callers=tuple(callers))
            )  # a fix moves the columns
    return tuple(carried)


def check_source(
    source: bytes,
    options: Options,
    rules: list[type[Rule]] | None = None,
    changed_lines: frozenset[int] | None = None,
    evidence: tuple[Evidence, ...] | None = None,
    path: Path | None = None,
    engine: Engine | None = None,
    trails: list[Diagnostic] | None = None,
    candidates: tuple[str, ...] | None = None,
) -> tuple[bytes | None, tuple[Diagnostic, ...]]:
    """Diagnostics for `source` (positions in it) and the fixed bytes, or None if unchanged.

    `rules` defaults to the registered rules that are selected and pass the prefilter;
    `changed_lines` (changed-lines mode) keeps only reports touching those lines; None keeps all.
    `evidence` (from a log) runs the rules it names in confirmed mode, without the prefilter
    (the file may not mention a mesh at all), and keeps only the reports it confirms.
    `path`: where the module is, so that its imports of the project's modules are followed
    (default: `-` in the working directory); `engine`: the run's engine (by default a fresh
    one, for this source alone, from jaxfix/check/run.py); `trails`, when given, gets the calls
    the rules looked at and left, each saying where a value's trail ended (`-v`).
    `candidates`: the codes of the selected rules the run's prefilter passed on these very
    bytes (jaxfix/check/runner.py): those run, not tested again.
    """
    if changed_lines is not None and not changed_lines:
        return None, ()
    if evidence is not None:
        codes = {e.code for e in evidence}
        rules = [
            r
            for r in (selected_rules(options) if rules is None else rules)
            if r.code in codes
        ]
    elif rules is None and candidates is not None:
        rules = [r for r in selected_rules(options) if r.code in candidates]
    else:
        words = Words(source)
        rules = (
            candidate_rules(words, options)
            if rules is None
            else [r for r in rules if r.may_apply(words)]
        )
    if not rules:
        return None, ()
    if engine is None:
        engine = Run(options).engine(options.jax_version)
    if path is None:
        path = Path("-").absolute()
    text = source
    diagnostics: tuple[Diagnostic, ...] | None = None
    fixed_any = False
    try:
        for _ in range(MAX_PASSES):
            try:
                analysis, found, left = _run_rules(
                    engine, path, text, rules, options, changed_lines, evidence
                )
            except RecursionError:
                _refuse_if_too_deep(source)  # as LibCST would fail on it
                raise
            found.sort(key=lambda f: (f.where.start, f.where.end, f.report.code))
            if diagnostics is None:
                diagnostics = tuple(_diagnostic(f, options) for f in found)
                if trails is not None:
                    left.sort(key=lambda f: (f.where.start, f.where.end, f.report.code))
                    trails += [_diagnostic(f, options) for f in left]
                if evidence:
                    confirmed = {
                        analysis.evidence.confirms(f.report.code, f.report.node)
                        for f in found
                    }
                    notes = _unconfirmed(
                        evidence,
                        confirmed,
                        set(analysis.evidence.matched),
                        split_lines(source_text(text)),
                        _shown_from(engine, path),
                    )
                    diagnostics = tuple(
                        sorted(
                            (*diagnostics, *notes),
                            key=lambda d: (d.start.line, d.start.column, d.code),
                        )
                    )
            allowed = [  # a data file's change is written by the caller (data_edits.py)
                f
                for f in found
                if _fix_allowed(f.report.fix, options) and f.report.fix.edits  # type: ignore[union-attr]
            ]
            if not allowed:
                break
            _refuse_if_newer_grammar(allowed)
            import libcst as cst  # a fix is written: LibCST from here

            if not fixed_any:  # a fix may add a level LibCST then survives
                _refuse_if_too_deep(source)
            _refuse_if_too_large(len(analysis.module.parents), options)
            layout = for_libcst(
                text
            )  # CR-only line ends, form feeds: jaxfix/sources/cst_source.py
            module = _parse_cst(layout.normal)
            # Only the first pass can get here with nothing fixed yet, so `text` is the original.
            # LibCST loses a few odd layouts (e.g. whitespace after a final blank line).
            if not fixed_any and module.bytes != layout.normal:
                raise InternalError(
                    "LibCST does not reproduce this file byte for byte, so jaxfix will not rewrite it"
                )
            fixed_any = True
            from jaxfix.write.cst_edits import Locator

            tree = _CstTree.of(module)
            locator = Locator(tree.positions)
            fixes = [_written(f, locator, layout) for f in allowed]
            changed = _apply(
                module, fixes, tree, options.line_length, options.import_order
            ).bytes
            try:
                fixed_module = cst.parse_module(changed)
            except cst.ParserSyntaxError as error:
                raise InternalError(
                    f"a fix produced code that does not parse ({error.message})"
                ) from None
            if changed_lines is not None:
                changed_lines = carry_lines(
                    changed_lines,
                    split_lines(module.code),
                    split_lines(fixed_module.code),
                )
            if evidence:
                evidence = _carry_evidence(
                    evidence, split_lines(module.code), split_lines(fixed_module.code)
                )
            text = layout.restore(fixed_module.bytes)
        else:
            raise InternalError(f"fixes did not settle after {MAX_PASSES} passes")
    finally:
        if (
            text is not source
        ):  # a later module's answers read this file's bytes, not a fix
            engine.project.give(path, source)
    if not fixed_any:
        return None, diagnostics or ()
    if text == source:
        return None, diagnostics or ()
    if _parses_with_ast(source) and not _parses_with_ast(text):
        raise InternalError("a fix produced code that Python rejects")
    return text, diagnostics or ()


def _refuse_if_newer_grammar(allowed: list[_Found]) -> None:
    """A fix that would rewrite code in a newer Python's grammar, blanked for `ast`
    (jaxfix/sources/grammar.py), is refused: one line for the file."""
    for found in allowed:
        blanked = found.analysis.module.blanked
        if not blanked:
            return
        assert found.report.fix is not None  # only allowed fixes are here
        for node, _ in found.report.fix.edits:
            region = touched(blanked, node)
            if region is not None:
                start = found.analysis.span(node).start
                where = Location(start[0], start[1] + 1)
                raise NewerGrammar(not_fixed(region, where), where)


def _refuse_if_too_deep(source: bytes) -> None:
    """Code nested deeper than LibCST survives (jaxfix/sources/nesting.py) is refused before a fix
    parses it, and when `ast` or the engine gives up on it: one line naming the depth."""
    refusal = too_deep(source)
    if refusal is not None:
        message, line, column = refusal
        raise TooDeep(message, Location(line, column))


def _parse_cst(source: bytes) -> cst.Module:
    import libcst as cst

    return cst.parse_module(
        source
    )  # nested no deeper than it survives (`check_source`)


@dataclass(frozen=True)
class _Found:
    """A report kept after suppression and changed lines, with where its node is."""

    report: Report
    where: Span
    analysis: Analysis  # where its fix's nodes are
    fix_lines: tuple[int, int] | None  # the lines its fix replaces


@dataclass(frozen=True)
class _CstTree:
    """What writing fixes into a LibCST module needs: positions and parents of its nodes."""

    positions: Mapping[cst.CSTNode, CodeRange]
    parents: Mapping[cst.CSTNode, cst.CSTNode]

    @classmethod
    def of(cls, module: cst.Module) -> _CstTree:
        from libcst.metadata import MetadataWrapper, PositionProvider

        from jaxfix.write.cst_parents import parent_map

        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        return cls(wrapper.resolve(PositionProvider), parent_map(module))


@dataclass(frozen=True)
class _Written:
    """A fix's edits on LibCST nodes (original -> replacement, by identity) and its imports."""

    edits: tuple[tuple[cst.CSTNode, CstReplacement], ...]
    imports: tuple[tuple[str, str | None], ...]


def _written(found: _Found, locator: Locator, layout: CstSource) -> _Written:
    """The fix with each edit's `ast` node found where it is among the LibCST nodes (of the
    source as `layout` gave it to LibCST)."""
    from jaxfix.write.cst_edits import NotFound

    fix = found.report.fix
    assert fix is not None  # only allowed fixes are written
    edits = []
    for node, edit in fix.edits:
        where = found.analysis.span(node)
        start = where.start[0], layout.column(*where.start)
        end = where.end[0], layout.column(*where.end)
        try:
            original = locator.find(node, start, end)
        except NotFound as error:
            raise InternalError(str(error)) from None
        edits.append((original, edit(original)))
    return _Written(tuple(edits), fix.imports)


def _syntax_error(source: bytes, error: cst.ParserSyntaxError) -> tuple[str, Location]:
    """Python's own parser names and places syntax errors best; LibCST's view is the fallback
    (for code Python accepts but LibCST cannot parse)."""
    try:
        ast.parse(source)
    except SyntaxError as python_error:
        if python_error.lineno:
            return f"syntax error: {python_error.msg}", Location(
                python_error.lineno, python_error.offset or 1
            )
    except ValueError:
        pass
    message = " ".join(error.message.split())
    return f"syntax error (LibCST): {message}", Location(
        error.raw_line, error.raw_column + 1
    )


class TooDeep(Exception):
    """Code nested deeper than LibCST survives (jaxfix/sources/nesting.py): refused before parsing."""

    def __init__(self, message: str, where: Location) -> None:
        super().__init__(message)
        self.where = where


def _check(
    source: bytes,
    options: Options,
    changed_lines: frozenset[int] | None,
    evidence: tuple[Evidence, ...] | None = None,
    path: Path | None = None,
    engine: Engine | None = None,
    trails: list[Diagnostic] | None = None,
    candidates: tuple[str, ...] | None = None,
) -> tuple[bytes | None, tuple[Diagnostic, ...]]:
    with _fewer_collections():
        return check_source(
            source,
            options,
            changed_lines=changed_lines,
            evidence=evidence,
            path=path,
            engine=engine,
            trails=trails,
            candidates=candidates,
        )


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """The collector's threshold above, and room for the engine's recursion: code nested as
    deep as jaxfix/sources/nesting.py lets through takes a few frames per level in the engine, more
    than Python's default limit leaves under a deep caller (a test runner, an editor)."""
    saved, limit = gc.get_threshold(), sys.getrecursionlimit()
    raised = saved[0] < GC_GENERATION_0  # not already, for the run
    if raised:
        gc.set_threshold(GC_GENERATION_0, *saved[1:])
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        yield
    finally:
        if raised:
            gc.set_threshold(*saved)
        sys.setrecursionlimit(limit)


def describe_failure(
    error: Exception, source: bytes
) -> tuple[str, Location | None, bool]:
    """A failure of `check_source` as this file's one-line error, where it is, and whether it
    follows from the bytes alone (so it may be cached; an internal error is retried)."""
    if isinstance(error, (TooDeep, NewerGrammar)):
        return str(error), error.where, True
    if isinstance(error, TooLarge):  # depends on max-parse-memory
        return str(error), None, False
    libcst = sys.modules.get("libcst")  # only once imported can LibCST have raised
    if libcst is not None and isinstance(error, libcst.ParserSyntaxError):
        return *_syntax_error(source, error), True
    if isinstance(error, SyntaxError):
        return (
            f"syntax error: {error.msg}",
            Location(error.lineno, error.offset or 1) if error.lineno else None,
            True,
        )
    if isinstance(error, InternalError):
        return f"internal error, file left untouched: {error}", None, False
    if isinstance(error, RecursionError):
        return (
            "internal error, file left untouched: code is nested too deeply",
            None,
            False,
        )
    return (
        f"internal error in a rule, file left untouched: {type(error).__name__}: {error}",
        None,
        False,
    )


def check_file(
    run: Run,
    path: Path,
    source: bytes,
    lines: frozenset[int] | None = None,
    evidence: tuple[Evidence, ...] | None = None,
    candidates: tuple[str, ...] | None = None,
) -> FileResult:
    """`check_source_of` the file at `path` holding `source` (a `.py` file or a notebook)."""
    return check_source_of(run, source_of(path, source), lines, evidence, candidates)


def check_source_of(
    run: Run,
    source: Source,
    lines: frozenset[int] | None = None,
    evidence: tuple[Evidence, ...] | None = None,
    candidates: tuple[str, ...] | None = None,
) -> FileResult:
    """`source` checked with the run's options and engine (its imports are looked up from its
    path's directory; for stdin without --stdin-filename, `-`: the working directory). The
    engine checks the source's code (jaxfix/sources/source.py); the source maps what it found
    back to the original. `lines` (changed-lines mode, the original's lines) keeps only the
    reports touching them; `evidence` (what a log or a recorded run showed raised in this file,
    placed on its code's lines) checks in confirmed mode, its fixes for the JAX version that
    raised there, whatever jax is installed beside jaxfix; `candidates`: the rules the run's
    prefilter passed on its code (`check_source`). Per-file isolation: every failure
    becomes this file's one-line error. The result lists the other files of the project its
    analysis used."""
    path, original = source.path, source.original
    reason = unreadable_reason(original)
    if reason is not None:
        return FileResult(path, original, error=reason)
    options = run.options
    versions = {e.jax_version for e in evidence or () if e.jax_version is not None}
    if versions:
        options = replace(options, jax_version=max(versions))
    engine = run.engine(options.jax_version)
    try:
        code = source.code()
    except SourceError as error:  # the original cannot be read: said as it is
        return source.unreadable(error)
    trails: list[Diagnostic] = []
    try:
        fixed, diagnostics = _check(
            code,
            options,
            source.code_lines(lines),
            evidence,
            path=path.absolute(),
            engine=engine,
            trails=trails,
            candidates=candidates,
        )
    except Exception as error:  # noqa: BLE001 - a rule's bug must not stop the run
        raise_if_interrupted()  # not a bug: Ctrl-C replaced by what a cleanup raised
        return source.failed(*describe_failure(error, code))
    result = source.result(fixed, diagnostics)
    if trails:  # placed as its findings are (a notebook's in its cells)
        result = replace(result, trails=tuple(map(source.located, trails)))
    if result.error is None:
        used, lookups = recorded(engine.project, path.absolute())  # what answers used
        if used or lookups:
            result = replace(result, dependencies=used, lookups=lookups)
    return result
