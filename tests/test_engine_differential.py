"""The new `ast` engine answers every question the rules ask on every fixture as the old LibCST
engine does, or knows more (tests/engine_differential.py lists each answer and why)."""

from __future__ import annotations

from collections import Counter

from tests.engine_differential import compare_all, report


def test_new_engine_matches_or_beats_the_old_on_every_fixture() -> None:
    answers, skipped = compare_all()
    counts = Counter(a.verdict for a in answers)
    listing = report(answers, skipped)
    assert counts["conflict"] == 0, listing
    assert counts["worse"] == 0, listing
    assert counts["same"] > 1500, listing  # the questions are still asked
    assert all("a notebook" in s for s in skipped), listing
