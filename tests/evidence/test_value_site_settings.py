"""`ValueSite.variable_setting`: what to set an environment variable to for the size to be
the one wanted, through the literal scale the code applies to it; `ValueSite.variable_match`:
what to set it to for a mesh to have the other mesh's sizes, when the run makes it certain."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jaxfix.evidence.facts import EnvironmentRead, Facts, MeshFacts, ValueSite


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


def _meshes(context: tuple[int, ...], aval: tuple[int, ...]) -> Facts:
    names = ("data", "model")[: len(context)]
    return Facts.of(
        {
            "context": MeshFacts(
                "abstract", names, context, ("Explicit",) * len(names), True
            ),
            "aval": MeshFacts(
                "abstract", names, aval, ("Explicit",) * len(names), True
            ),
        }
    )


def _read(value: str | None, line: int = 5) -> EnvironmentRead:
    return EnvironmentRead("TP", value, Path(os.path.realpath("hosts.py")), line)


def _sized(axis: int | None, scale: tuple[int, int] = (1, 1)) -> ValueSite:
    where = Path(os.path.realpath("hosts.py"))
    return ValueSite(
        (where, 9),
        where,
        (5, 0, 5, 10),
        "x",
        variable="TP",
        scale=scale,
        role="context",
        axis=axis,
    )


@pytest.mark.parametrize(
    ("site", "meshes", "reads", "shown"),
    [
        (
            _sized(None),
            _meshes((4,), (8,)),
            [_read("4")],
            ": TP is 4 in the run; set it to 8 for them to be the aval mesh's sizes "
            "(data 8)",
        ),
        (
            _sized(None, (2, 1)),
            _meshes((4,), (8,)),
            [_read(None), _read("2")],
            ": TP is 2 in the run; set it to 4 for them to be the aval mesh's sizes "
            "(data 8)",
        ),
        (  # no value recorded at its read: the setting alone
            _sized(1),
            _meshes((2, 4), (2, 2)),
            [_read("4", line=6)],
            ": set TP to 2 for them to be the aval mesh's sizes (data 2, model 2)",
        ),
        (_sized(0), _meshes((2, 4), (2, 2)), [], None),  # another axis differs
        (_sized(None), _meshes((2, 4), (4, 4)), [], None),  # which axis is unknown
        (_sized(None, (2, 1)), _meshes((4,), (7,)), [], None),  # 7 is no 2 * n
        # a recorded value that does not size this mesh (a forged record, another read)
        (_sized(None), _meshes((4,), (8,)), [_read("3")], None),
        (_sized(None), _meshes((4,), (8,)), [_read("4" * 5000)], None),
        (_sized(None), _meshes((4,), (8,)), [_read("4"), _read("5")], None),
    ],
)
def test_the_variable_is_set_to_what_makes_the_meshes_agree_when_certain(
    site, meshes, reads, shown
):
    assert site.variable_match(meshes, reads) == shown
