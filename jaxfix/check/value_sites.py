"""Recorded errors whose value is written in another place: the evidence gains a site there.

A JAX002 record names the frames that built its inner mesh (the recorder's provenance, placed
and checked by jaxfix/evidence/records.py). Before the rules run, the walk of
jaxfix/analysis/ast_engine/written_at.py follows them to where the sizes are written; that place
(in a file of the tree, which may be another than the one that raised) gets evidence of its own
(`Evidence.at_value`), so the rule reports there, with its fix, and the raising line's evidence
says where it went (`Evidence.value_site`), or why jaxfix cannot follow (`value_unknown`). A
`Fix` thus stays in one file. The rule still decides at both places (the static answer at the
raising line first); this only points it at the value.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path

from jaxfix.check.run import Run
from jaxfix.evidence.facts import Evidence, ValueSite

_WALKED = ("JAX002", "new", "built")  # the rule, the role and the kind of origin walked


def with_value_sites(
    evidence: Mapping[Path, tuple[Evidence, ...]],
    run: Run,
    files: Collection[Path],
) -> dict[Path, tuple[Evidence, ...]]:
    """`evidence` (by resolved path), each walked error marked with where its value is written,
    and that place's evidence added under its file (only a file of `files`, the run's)."""
    found: dict[Path, list[Evidence]] = {
        p: list(items) for p, items in evidence.items()
    }
    walked = [
        (path, index, item)
        for path, items in evidence.items()
        for index, item in enumerate(items)
        if item.code == _WALKED[0] and not item.at_value and _origin(item) is not None
    ]
    if not walked:
        return dict(evidence)
    from jaxfix.analysis.ast_engine.positions import span
    from jaxfix.analysis.ast_engine.values import Unknown
    from jaxfix.analysis.ast_engine.written_at import written_at
    from jaxfix.sources.text import source_text, split_lines

    engine = run.engine(run.options.jax_version)
    ours = {p.resolve() for p in files}
    for path, index, item in walked:
        frames = _origin(item)
        assert frames is not None
        written = written_at(engine.evaluator, frames)
        if isinstance(written, Unknown):
            found[path][index] = replace(item, value_unknown=written.why)
            continue
        where = written.module.path.resolve()
        if where not in ours:
            found[path][index] = replace(
                item,
                value_unknown=f"its sizes are written in {written.module.path.name}, outside the files given",
            )
            continue
        lines = split_lines(source_text(written.module.source))
        where_span = span(lines, written.node)
        start, end = where_span.start, where_span.end
        site = ValueSite(
            (path, item.line),
            where,
            (*start, *end),
            written.name,
            written.keyword,
            written.why,
        )
        found[path][index] = replace(item, value_site=site)
        columns = (start[1], end[1]) if start[0] == end[0] else None
        found.setdefault(where, []).append(
            replace(
                item,
                line=start[0],
                columns=columns,
                value_site=site,
                at_value=True,
                origins=(),
            )
        )
    return {p: tuple(items) for p, items in found.items()}


def _origin(item: Evidence) -> tuple[tuple[Path, int], ...] | None:
    frames = [o.frames for o in item.origins if (o.role, o.kind) == _WALKED[1:]]
    return frames[0] if len(frames) == 1 else None
