"""What a run's engine keeps between the modules it checks and what it lets go
(jaxfix/check/dependencies.py `_Run._trees_kept`): one module's answers are gone once the next module
begins, even though the collector is kept off the run's trees (frozen), and the process is left
as it was found when the run ends."""

from __future__ import annotations

import ast
import gc
import weakref
from pathlib import Path

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.check.run import Run
from jaxfix.settings.options import Options

MESHES = b'import jax\n\nmesh = jax.make_mesh((4,), ("data",))\n'
USER = b"import jax\nfrom meshes import mesh\n\nwith jax.set_mesh(mesh):\n    pass\n"


def _tree(tmp_path: Path) -> tuple[Path, ...]:
    (tmp_path / "meshes.py").write_bytes(MESHES)
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_bytes(USER)
    return tuple(sorted(tmp_path.glob("*.py")))


def _ask_everything(engine: Engine, module: Module) -> None:
    for node in ast.walk(module.tree):
        if isinstance(node, ast.expr):
            engine.value_of(module, node)
            engine.current_mesh(module, node)


def test_a_modules_answers_are_let_go_when_the_next_module_begins(tmp_path):
    files = _tree(tmp_path)
    with Run(Options(), roots=(tmp_path,)).scoped(files).checking() as run:
        engine = run.engine((0, 10, 2))
        gone = []
        for path in files[:3]:
            module = engine.begin(path)
            _ask_everything(engine, module)
            gone.append(weakref.ref(engine.evaluator))
            gone.append(weakref.ref(engine.contexts))
        assert [ref() is None for ref in gone[:-2]] == [True] * 4  # all but the last's
        assert gone[-1]() is engine.contexts and gone[-2]() is engine.evaluator


def test_placement_answers_with_the_current_modules_evaluator(tmp_path):
    files = _tree(tmp_path)
    with Run(Options(), roots=(tmp_path,)).scoped(files).checking() as run:
        engine = run.engine((0, 10, 2))
        for path in files[:2]:
            engine.begin(path)
            assert engine.placement.evaluator is engine.evaluator
            assert engine.placement.contexts is engine.contexts


def test_the_run_leaves_nothing_frozen(tmp_path):
    files = _tree(tmp_path)
    before = gc.get_freeze_count()
    with Run(Options(), roots=(tmp_path,)).scoped(files).checking() as run:
        engine = run.engine((0, 10, 2))
        for path in files:
            engine.begin(path)
        assert (
            gc.get_freeze_count() > before
        )  # the trees are out of the collector's way
    assert gc.get_freeze_count() == 0


def test_a_modules_answers_hold_no_cycles(tmp_path):
    """Freed by reference counting alone, with the collector off: so the run's collection
    between two modules has nothing of theirs to find (and is cheap)."""
    files = _tree(tmp_path)
    engine = Engine((tmp_path,), files, (0, 10, 2))
    enabled = gc.isenabled()
    gc.disable()
    try:
        module = engine.begin(files[0])
        _ask_everything(engine, module)
        analysis = Analysis(engine, module)
        assert analysis.evidence.at(module.tree.body[-1], "JAX001") is None
        answers = [weakref.ref(engine.evaluator), weakref.ref(engine.contexts)]
        answers.append(weakref.ref(analysis))
        del analysis
        engine.begin(files[1])
        assert [ref() for ref in answers] == [None, None, None]
    finally:
        if enabled:
            gc.enable()
