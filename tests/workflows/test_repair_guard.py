"""The guard's pieces (jaxfix/workflows/repair_guard.py): the statements a fix changed, and
undoing a fix only over what jaxfix wrote."""

from __future__ import annotations

from jaxfix.workflows.repair_guard import WrittenFix, changed_statements, undo

BEFORE = b"""import jax


def plan(model, abstract):
    with jax.set_mesh(abstract):
        size = model.batch_size
    return size
"""
AFTER = b"""import jax
from jax.sharding import use_abstract_mesh


def plan(model, abstract):
    with use_abstract_mesh(abstract):
        size = model.batch_size
    return size
"""


def test_a_compound_statement_counts_by_its_header_and_an_import_by_itself():
    assert changed_statements(BEFORE, AFTER) == ((2, 2), (6, 6))


def test_a_changed_simple_statement_counts_with_all_its_lines():
    before = b"x = f(\n    1,\n    2,\n)\ny = 3\n"
    after = b"x = f(\n    1,\n    4,\n)\ny = 3\n"
    assert changed_statements(before, after) == ((1, 4),)


def test_the_run_is_inside_a_changed_statement_only_at_its_lines(tmp_path):
    fix = WrittenFix(tmp_path / "m.py", BEFORE, AFTER, ((2, 2), (6, 6)))
    body = (tmp_path / "m.py", 7)
    header = (tmp_path / "m.py", 6)
    assert fix.holds([body]) is None
    assert fix.holds([(tmp_path / "other.py", 6)]) is None
    assert fix.holds([body, header]) == header


def test_undo_writes_back_what_was_there_before(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(AFTER)
    assert undo(WrittenFix(path, BEFORE, AFTER, ()), (str(tmp_path),)) is None
    assert path.read_bytes() == BEFORE


def test_an_edit_made_since_the_fix_is_never_overwritten(tmp_path):
    path = tmp_path / "m.py"
    edited = AFTER + b"# edited\n"
    path.write_bytes(edited)
    why = undo(WrittenFix(path, BEFORE, AFTER, ()), (str(tmp_path),))
    assert why is not None and why.startswith("not undone: ")
    assert path.read_bytes() == edited
