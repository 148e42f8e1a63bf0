"""A rule declares the meshes its JAX message names in its `raises` templates alone
(`{mesh:role}`, `{size:role}`): `--from-log`, the repair recorder and the evidence reader read
every rule's messages by those roles, with no code of their own per rule."""

from __future__ import annotations

import ast
import re

import pytest
from click.testing import CliRunner

from jaxfix.analysis.names import Api
from jaxfix.analysis.pattern_match import may_search
from jaxfix.cli.main import cli
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from jaxfix.evidence.facts import Evidence, Facts
from jaxfix.evidence.message_templates import holes, pattern, roles
from jaxfix.evidence.recording import recorder_patterns
from jaxfix.evidence.records import read_evidence
from jaxfix.fromlog.errors import MessageError, facts_from
from jaxfix.ground.diagnostics import Safety

TWO = (
    "Sharding mesh {mesh:left} with size={size:left} does not fit. "
    "Wanted {mesh:right?} instead",
    "Other error without meshes.",
)
LEFT = "AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))"
RIGHT = "Mesh('x': 8, axis_types=(Auto,))"


def test_a_message_is_read_by_the_roles_its_template_declares():
    facts = facts_from(
        TWO, f"Sharding mesh {LEFT} with size=8 does not fit. Wanted {RIGHT} instead"
    )
    assert sorted(facts) == ["left", "right"]
    assert facts["left"].axis_sizes == (2, 4) and facts["right"].kind == "concrete"
    # `right?` may be missing: a message cut off before it still names `left`.
    cut = facts_from(TWO, f"Sharding mesh {LEFT} with size=8 does not fit.")
    assert list(cut) == ["left"] and cut.get("right") is None
    # A template without holes names no mesh.
    assert facts_from(TWO, "Other error without meshes.") == Facts()


def test_text_holes_are_passed_over_and_may_match_a_pattern():
    """A message naming no mesh (device ids, say) still has holes: `{text}`, never read."""
    devices = (
        "Received incompatible devices for jitted computation. Got {text} with device "
        "ids {text} on platform {text}",
    )
    message = (
        "Received incompatible devices for jitted computation. Got jit's context mesh "
        "with device ids [0, 1, 2, 3] on platform CPU and explicit output sharding"
    )
    assert facts_from(devices, message) == Facts()
    assert facts_from(devices, "Received incompatible devices for jitted") == Facts()
    assert may_search(r"device ids \[0, 1\]", devices[0])
    assert not may_search(r"device ids [a-z]", devices[0].replace("{text}", "[0]"))
    assert re.search(pattern(devices[0]), message)


@pytest.mark.parametrize(
    "message",
    [
        f"Sharding mesh {LEFT} with size=9 does not fit.",  # the size is not the mesh's
        f"Sharding mesh {LEFT} does not fit.",  # the size is missing
        f"Sharding mesh {LEFT[:30]}",  # the mesh is cut off
        "Sharding mesh is gone",
        f"Sharding mesh {LEFT} with size=8 does not fit. Wanted {RIGHT[:12]}",
    ],
)
def test_a_message_cut_off_or_garbled_is_an_error(message):
    with pytest.raises(MessageError):
        facts_from(TWO, message)


def test_a_rule_with_a_malformed_hole_or_a_stray_mesh_local_is_refused():
    body = {
        "code": "JAX990",
        "name": "toy",
        "summary": "toy",
        "fixes": {Safety.SAFE: "nothing"},
        "tokens": ((b"x",),),
    }
    for raises, locals_, what in [
        (("Got {mesh:Context}",), {}, "is no hole"),
        (("Got {devices}",), {}, "is no hole"),
        (("Got {text:ids}",), {}, "is no hole"),
        (("Got {size:new}",), {}, "sizes no {mesh:new}"),
        (("Got {mesh:new}",), {"old": "self.prev"}, "names ['old']"),
    ]:
        with pytest.raises(TypeError, match=re.escape(what)):
            type("Toy", (Rule,), {**body, "raises": raises, "mesh_locals": locals_})


def test_the_three_rules_declare_their_roles_and_the_recorder_gets_them():
    declared = {code: roles(rule.raises) for code, rule in RULES.items()}
    assert (declared["JAX001"], declared["JAX002"], declared["JAX003"]) == (
        ("context",),
        ("new", "prev"),
        ("input", "out", "context"),  # the input error's, then the context-mesh error's
    )
    assert [h.optional for h in holes(RULES["JAX001"].raises[0])] == [True]
    patterns = recorder_patterns()
    assert patterns["meshes"]["JAX002"] == {"new": "self.mesh", "prev": "self.prev"}
    assert patterns["messages"]["JAX002"] == [pattern(RULES["JAX002"].raises[0])]


def test_where_jax_raises_is_the_rules_own_declaration(monkeypatch):
    """A traceback that ends in a file a registered rule says raises its errors may be one of
    them; the log reader keeps no list of its own."""
    from jaxfix.fromlog.errors import looks_like_ours
    from jaxfix.fromlog.tracebacks import Frame, Traceback

    def ending_in(path: str) -> Traceback:
        return Traceback(1, 3, (Frame(path, 10, None),), None)

    assert {code: RULES[code].raised_in for code in ("JAX001", "JAX002", "JAX003")} == {
        "JAX001": ("jax/_src/interpreters/pxla.py",),
        "JAX002": ("jax/_src/mesh.py",),
        "JAX003": ("jax/_src/shard_map.py", "jax/_src/sharding_impls.py"),
    }
    assert looks_like_ours(
        ending_in("C:\\venv\\Lib\\site-packages\\jax\\_src\\mesh.py")
    )
    assert not looks_like_ours(
        ending_in("/venv/lib/site-packages/jax/_src/numpy/lax_numpy.py")
    )

    class Toy(Rule):
        """Toy."""

        code, name, summary = "JAX995", "toy", "a toy rule"
        fixes: dict[Safety, str] = {}
        tokens = ((rb"jit",),)
        raises = ("Received incompatible devices for jitted computation. {text}",)
        raised_in = ("jax/_src/numpy/lax_numpy.py",)

    monkeypatch.setitem(RULES, Toy.code, Toy)
    assert looks_like_ours(
        ending_in("/venv/lib/site-packages/jax/_src/numpy/lax_numpy.py")
    )


def test_facts_are_a_frozen_mapping_and_evidence_lists_a_roles_meshes():
    one = facts_from(TWO, f"Sharding mesh {LEFT} with size=8 does not fit.")
    same = facts_from(TWO, f"Sharding mesh {LEFT} with size=8 does not fit. Wanted")
    assert one == same and hash(one) == hash(same) and len({one, same}) == 1
    evidence = Evidence("JAX990", 1, (3, 5), (one, Facts()))
    assert evidence.meshes("left") == (one["left"],) and evidence.meshes("right") == ()


def test_a_record_of_one_size_for_jax002_is_refused_by_the_rule(tmp_path):
    """Meshes a record holds, with no readable message, are checked by the rule's `impossible`."""
    program = tmp_path / "prog.py"
    program.write_text("with use_abstract_mesh(m):\n    pass\n")
    mesh = {"kind": "abstract", "axis_names": ["x"], "axis_sizes": [4]}
    record = (
        '{"schema": "%s", "kind": "error", "code": "JAX002", "message": "cut", '
        '"frames": [{"path": "%s", "line": 1, "source": "with use_abstract_mesh(m):"}], '
        '"meshes": {"new": %s, "prev": %s}}'
    )
    from jaxfix.evidence.recorder import SCHEMA

    mesh_json = str(mesh).replace("'", '"')
    data = (record % (SCHEMA, program, mesh_json, mesh_json)).encode()
    reading = read_evidence(data, [program])
    assert [r.problem for r in reading.raised] == [
        "its meshes are of one size, which cannot raise JAX002"
    ]
    other = mesh_json.replace("[4]", "[8]")
    reading = read_evidence(
        (record % (SCHEMA, program, mesh_json, other)).encode(), [program]
    )
    facts = reading.evidence[program][0].agreed
    assert facts is not None and (facts["new"].size, facts["prev"].size) == (4, 8)


def test_jax010s_sizes_are_counts_its_record_must_agree_with(tmp_path):
    """JAX010's message states the abstract mesh's size and the device assignment's
    (`{count:abstract}`, `{count:devices}`): the record keeps both; its abstract mesh must be
    of the size the message states, and the two sizes must differ."""
    from jaxfix.evidence.recorder import SCHEMA

    program = tmp_path / "prog.py"
    program.write_text("f(x)\n")
    record = (
        '{"schema": "%s", "kind": "error", "code": "JAX010", "message": '
        '"AbstractMesh size: %d does not match the device assignment size: %d", '
        '"frames": [{"path": "%s", "line": 1, "source": "f(x)"}], '
        '"meshes": {"abstract": {"kind": "abstract", "axis_names": ["x"], '
        '"axis_sizes": [4]}}}'
    )

    def read(size: int, devices: int) -> object:
        data = (record % (SCHEMA, size, devices, program)).encode()
        return read_evidence(data, [program])

    facts = read(4, 8).evidence[program][0].agreed
    assert facts is not None and facts["abstract"].size == 4
    assert (facts.count("abstract"), facts.count("devices")) == (4, 8)
    assert [r.problem for r in read(2, 8).raised] == [
        "its abstract mesh is of size 4, its message says 2"
    ]
    assert [r.problem for r in read(4, 4).raised] == [
        "its sizes are equal, which cannot raise JAX010"
    ]


class _OutShardings(Rule):
    """
    ## What it does
    A toy report-only rule: every `jax.jit(..., out_shardings=...)` call.

    ## Why is this bad?
    It stands for TST004, whose message names device ids, not meshes.

    ## Example
    ```python
    jax.jit(f, out_shardings=s)
    ```

    ## Use instead
    ```python
    jax.jit(f)
    ```

    ## Fix safety
    It reports, it does not fix.

    ## References
    - tests/jax_errors.py, `JAX003-devices`.
    """

    code = "JAX994"
    name = "toy-out-shardings"
    summary = "jax.jit with out_shardings"
    fixes: dict[Safety, str] = {}
    tokens = ((b"out_shardings",),)
    raises = (
        "Received incompatible devices for jitted computation. Got {text} with device "
        "ids {text} on platform {text}",
    )

    def visit_Call(self, node: ast.Call) -> None:
        if self.analysis.called_api(node) is Api.JIT and any(
            k.arg == "out_shardings" for k in node.keywords
        ):
            self.report(node, "jit with out_shardings")


SITE = """\
import jax

f = jax.numpy.cos
y = jax.jit(f, out_shardings=s)(x)
z = jax.jit(f, out_shardings=s)(x)
"""
DEVICES_LOG = b"""\
Traceback (most recent call last):
  File "/ci/proj/run.py", line 4, in <module>
    y = jax.jit(f, out_shardings=s)(x)
  File "/venv/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py", line 2000, in _get_and_check_device_assignment
    raise ValueError(
ValueError: Received incompatible devices for jitted computation. Got jit's context mesh with device ids [0, 1, 2, 3, 4, 5, 6, 7] on platform CPU and explicit output sharding with device ids [0, 1, 2, 3] on platform CPU
"""


def test_a_rule_whose_message_names_no_mesh_gets_from_log_by_its_raises_alone(
    tmp_path, monkeypatch
):
    """The confirmed site is reported, the same call on the next line (not in the log) is
    not: the rule declares its message and nothing else for `--from-log`."""
    monkeypatch.setitem(RULES, _OutShardings.code, _OutShardings)
    tree = tmp_path / "proj"
    tree.mkdir()
    (tree / "run.py").write_text(SITE)
    (tmp_path / "ci.log").write_bytes(DEVICES_LOG)
    result = CliRunner().invoke(
        cli,
        [
            "--no-cache",
            "--color",
            "never",
            "--select",
            "JAX994",
            "--from-log",
            str(tmp_path / "ci.log"),
            str(tree),
        ],
        catch_exceptions=False,
    )
    lines = [line for line in result.output.splitlines() if "JAX994" in line]
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert lines[0].endswith("run.py:4:5: JAX994 jit with out_shardings [no fix]")
