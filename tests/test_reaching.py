"""Which assignments reach a read (jaxfix/analysis/reaching.py), and where a mesh's sizes are
written (jaxfix/analysis/mesh_sizes.py): the questions a fix that rewrites a binding asks."""

from __future__ import annotations

import libcst as cst
import pytest

from jaxfix.analysis.mesh_sizes import ConfigKey, EnvironmentVariable
from jaxfix.analysis.values import Unknown
from test_analysis import analyze


def _read(analysis, name: str) -> cst.Name:
    """The last read of `name` in the module (the `use(name)` the cases end with)."""
    reads = [
        n
        for n in analysis.nodes(cst.Name)
        if n.value == name and isinstance(analysis.parents.get(n), cst.Arg)
    ]
    return reads[-1]


def _reaching_values(code: str) -> list[str] | None:
    analysis, module = analyze(code)
    targets = analysis.reaching_bindings(_read(analysis, "m"))
    if targets is None:
        return None
    return sorted(module.code_for_node(analysis.bound_value(t)) for t in targets)


@pytest.mark.parametrize(
    "code, values",
    [
        ("m = 1\nm = 2\nuse(m)\n", ["2"]),
        ("m = 1\nuse(m)\nm = 2\n", ["1"]),
        ("def f():\n    m = 1\n    m = 2\n    with c():\n        use(m)\n", ["2"]),
        ("m = 1\nif c:\n    m = 2\nelse:\n    m = 3\nuse(m)\n", ["2", "3"]),
        ("m = 1\nif c:\n    m = 2\nuse(m)\n", ["1", "2"]),
        (
            "m = 1\nif c:\n    m = 2\nelif d:\n    pass\nelse:\n    m = 4\nuse(m)\n",
            ["1", "2", "4"],
        ),
        ("m = 1\nwith c():\n    m = 2\nuse(m)\n", ["2"]),
        (
            "m = 1\nfor i in r:\n    use(m)\n",
            ["1"],
        ),  # one binding: the loop does not rebind it
        ("for i in r:\n    m = 1\n    use(m)\n", ["1"]),
        (
            "m = 1\nfor i in r:\n    use(m)\n    m = 2\n",
            None,
        ),  # the next step sees m = 2
        ("m = 1\nm += 1\nuse(m)\n", None),
        ("m = 1\nm = 2\ndef f():\n    use(m)\n", None),  # when f runs is not known
        ("m = 1\ntry:\n    m = 2\nexcept E:\n    use(m)\n", None),
        ("if c:\n    m = 1\nuse(m)\n", ["1"]),  # the one value it can see
        ("if c:\n    m = 1\nuse(m)\nm = 2\n", None),  # maybe unbound
        ("m = 1\nm, n = 2, 3\nuse(m)\n", None),
    ],
)
def test_reaching_bindings(code, values):
    assert _reaching_values(code) == values


def test_reads_reached_stop_at_a_rebinding():
    analysis, module = analyze("m = 1\nuse(m)\nkeep(m)\nm = 2\nlater(m)\n")
    first = next(n for n in analysis.nodes(cst.Name) if n.value == "m")
    reads = analysis.reads_reached(frozenset({first}))
    assert [
        module.code_for_node(analysis.parents[analysis.parents[r]]) for r in reads
    ] == ["use(m)", "keep(m)"]


HEADER = "import json, os\nfrom jax.sharding import AbstractMesh\n"


def _axes(code: str):
    analysis, module = analyze(HEADER + code)
    found = analysis.mesh_sizes(last_value(module))
    return found if isinstance(found, Unknown) else [way.axes for way in found]


def last_value(module: cst.Module) -> cst.BaseExpression:
    return module.body[-1].body[0].value


def test_factory_arguments_are_the_sizes_of_this_call():
    axes = _axes(
        "def make(data, model=4):\n    return AbstractMesh((data, model), ('d', 'm'))\nmake(model=2, data=16)\n"
    )
    (way,) = axes
    assert [a.value for a in way] == ["16", "2"]


def test_factory_default_and_body_literal_are_not_this_calls():
    (way,) = _axes(
        "def make(data, model=4):\n    return AbstractMesh((data, model, 2), ('d', 'm', 'x'))\nmake(16)\n"
    )
    assert way[0].value == "16"
    assert "takes its default" in way[1].why and "every call shares" in way[2].why


def test_environment_and_config_sources():
    (way,) = _axes(
        "CONFIG = json.load(open('stage.json'))\n"
        "AbstractMesh((int(os.environ['MESH_DATA']), os.getenv('MESH_MODEL'), CONFIG['eval'][0]), ('d', 'm', 'x'))\n"
    )
    assert way[0] == EnvironmentVariable("MESH_DATA") and way[1] == EnvironmentVariable(
        "MESH_MODEL"
    )
    assert isinstance(way[2], ConfigKey) and (way[2].keys, way[2].file) == (
        ("eval", 0),
        "stage.json",
    )
