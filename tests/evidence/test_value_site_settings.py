"""`ValueSite.variable_setting`: what to set an environment variable to for the size to be
the one wanted, through the literal scale the code applies to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxfix.evidence.facts import ValueSite


def _site(variable: str | None, scale: tuple[int, int]) -> ValueSite:
    where = Path("hosts.py")
    return ValueSite(
        (where, 9), where, (5, 0, 5, 10), "x", variable=variable, scale=scale
    )


@pytest.mark.parametrize(
    ("variable", "scale", "size", "shown"),
    [
        ("TP", (1, 1), 2, "the environment variable TP: set it to 2; "),
        ("TP", (2, 1), 4, "the environment variable TP: set it to 2; "),
        ("TP", (2, 1), 3, None),  # no integer times 2 is 3
        ("TP", (1, 2), 2, "the environment variable TP: set it to 4; "),
        (None, (1, 1), 2, None),
    ],
)
def test_the_variable_s_setting_undoes_its_scale(variable, scale, size, shown):
    assert _site(variable, scale).variable_setting(size) == shown
