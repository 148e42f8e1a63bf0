"""jaxfix/evidence/records.py: the lines a recorded error was inside (`_inside`), which repair's
guard compares with its own fixes, come from a record that may be forged: only lines of the
tree's own files are kept, and a malformed group of frames is dropped whole. A record's meshes
(`_facts`): the message's, completed by those JAX held that it does not print."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxfix.evidence.records import _Bad, _context_origins, _facts, _inside
from jaxfix.fromlog.locate import TreeIndex


def _frame(path: str, line: object) -> dict:
    return {"path": path, "line": line}


def test_only_lines_of_the_trees_files_are_kept_from_a_forged_record(tmp_path):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / ".git").mkdir()
    step = tree / "pkg" / "step.py"
    step.write_text("x = 1\n")
    (tree / ".git" / "config").write_text("[core]\n")
    index = TreeIndex([step], 1_000_000)
    record = {
        "frames": [
            _frame(str(step), 1),
            _frame("/etc/passwd", 1),
            _frame(str(tree / ".git" / "config"), 1),
            _frame("/usr/lib/python3/site-packages/jax/_src/mesh.py", 7),
        ],
        "contexts": [
            [
                _frame(str(step), 10**5000)
            ],  # a line no reader takes: the group is dropped
            [_frame(str(step), "3\n\x1b[31m")],
            "not a list of frames",
            *([[_frame(str(step), n)] for n in range(100, 120)]),
        ],
    }
    inside = _inside(record, index)
    assert inside[0] == (step, 1)
    # the forged groups are dropped; of the many contexts, as many as the recorder keeps
    assert all(path == step for path, _ in inside)
    assert [line for _, line in inside[1:]] == list(range(100, 105))


def test_a_record_without_frames_names_no_line(tmp_path):
    step = tmp_path / "step.py"
    step.write_text("x = 1\n")
    index = TreeIndex([step], 1_000_000)
    assert _inside({}, index) == ()
    assert _inside({"frames": "x", "contexts": {"a": 1}}, index) == ()
    assert _inside({"frames": [_frame(str(Path("elsewhere.py")), 1)]}, index) == ()


_CONTEXT_MESSAGE = (
    "Context mesh AbstractMesh('data': 1, 'tensor': 8, axis_types=(Explicit, Explicit)) "
    "should match the mesh of sharding AbstractMesh('data': 2, 'tensor': 4, "
    "axis_types=(Explicit, Explicit)) passed to top_level_all_gather"
)


def _held(sizes: object, names: object = ("data", "tensor")) -> dict:
    return {
        "kind": "abstract",
        "axis_names": list(names) if isinstance(names, tuple) else names,
        "axis_sizes": sizes,
        "axis_types": ["Explicit", "Explicit"],
        "has_abstract_device": True,
    }


def test_a_mesh_the_message_does_not_print_is_kept_as_the_run_held_it():
    facts = _facts("JAX003", _CONTEXT_MESSAGE, {"input": _held([2, 4])})
    assert facts["input"].axis_sizes == (2, 4)
    assert (facts["context"].axis_sizes, facts["out"].axis_sizes) == ((1, 8), (2, 4))


def test_a_mesh_the_message_prints_is_the_messages_whatever_the_record_says():
    facts = _facts("JAX003", _CONTEXT_MESSAGE, {"context": _held([8, 1])})
    assert facts["context"].axis_sizes == (1, 8)


def test_a_malformed_unprinted_mesh_refuses_the_record_with_one_line():
    with pytest.raises(_Bad, match="axis_sizes do not match its names"):
        _facts("JAX003", _CONTEXT_MESSAGE, {"input": _held([2, 4, 1])})


def test_the_with_blocks_a_record_was_inside_are_placed_only_in_the_tree(tmp_path):
    """`contexts` may be forged: a group whose innermost frame is outside the tree, or not a
    list of frames, gives no origin."""
    conftest = tmp_path / "conftest.py"
    conftest.write_text("import jax\n\n\ndef mesh():\n    with m:\n        yield m\n")
    index = TreeIndex([conftest], 1_000_000)
    found = _context_origins(
        [
            [
                _frame("/usr/lib/python3/site-packages/_pytest/fixtures.py", 1),
                _frame(str(conftest), 5),
            ],
            [_frame("/etc/passwd", 1)],
            "not a group",
            [_frame(str(conftest), 10**6)],
        ],
        index,
        {},
        1_000_000,
    )
    assert [(o.role, o.kind, o.frames) for o in found] == [
        ("with", "entered", ((conftest, 5),))
    ]
    assert _context_origins({"a": 1}, index, {}, 1_000_000) == ()
