"""JAX002 cases beyond the fixtures: which calls and context managers the rule follows."""

from __future__ import annotations

import pytest

from helpers import run_engine

HEADER = """\
import contextlib
import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

M32 = AbstractMesh((8, 4), ("data", "model"))
"""
UNSAFE = ["--unsafe-fixes"]


def jax002(source: str, args=UNSAFE):
    result = run_engine(HEADER + source, args)
    assert result.error is None, result.error
    return [d for d in result.diagnostics if d.code == "JAX002"], result


@pytest.mark.parametrize(
    "call",
    ["jax.jit(stage)(x)", "step(x)"],
    ids=["jit-call", "jit-bound-name"],
)
def test_a_jitted_function_is_followed(call):
    source = """
def stage(x):
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        return x

step = jax.jit(stage)

def main(x):
    with use_abstract_mesh(M32):
        return CALL
""".replace("CALL", call)
    (diagnostic,), result = jax002(source)
    assert diagnostic.fix_title == "resize the inner mesh to (8, 4)"
    assert b'AbstractMesh((8, 4), ("data", "model"))):' in result.fixed


@pytest.mark.parametrize(
    "source",
    [
        """
class Trainer:
    def stage(self):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass

    def run(self):
        with use_abstract_mesh(M32):
            self.stage()
""",
        """
def stage():
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        pass

def run():
    stage()

with use_abstract_mesh(M32):
    run()
""",
    ],
    ids=["method", "two-levels"],
)
def test_methods_and_calls_of_calls_are_followed(source):
    (diagnostic,), result = jax002(source)
    assert diagnostic.fix_title == "resize the inner mesh to (8, 4)"
    assert b'AbstractMesh((8, 4), ("data", "model"))):' in result.fixed


def test_a_generator_called_but_not_entered_runs_no_body_there():
    """A `@contextmanager` function's body runs where its call is entered, not where it is
    called; a plain generator's where it is iterated."""
    source = """
@contextlib.contextmanager
def stage():
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        yield

def steps():
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        yield 1

with use_abstract_mesh(M32):
    stage()
    steps()
with use_abstract_mesh(M32):
    with stage():
        pass
"""
    (diagnostic,), _ = jax002(source)
    assert diagnostic.start.line == 9  # stage's, through the `with stage():` at line 20
    assert "through the call at line 20" in diagnostic.message


def test_a_nested_function_called_in_its_parent_is_followed():
    source = """
def main():
    def stage():
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass
    with use_abstract_mesh(M32):
        stage()
"""
    (diagnostic,), _ = jax002(source)
    assert diagnostic.fix_title is not None


def test_callers_needing_different_sizes_get_no_fix():
    source = """
def stage():
    with use_abstract_mesh(AbstractMesh((4, 2), ("data", "model"))):
        pass

with use_abstract_mesh(M32):
    stage()
with use_abstract_mesh(AbstractMesh((8,), ("data",))):
    stage()
"""
    (diagnostic,), result = jax002(source)
    assert diagnostic.fix_title is None and result.fixed is None
    assert "entered under meshes of sizes 8, 32" in diagnostic.message


def test_message_names_both_meshes_sizes_and_lines():
    source = """
with use_abstract_mesh(M32):
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        pass
"""
    (diagnostic,), _ = jax002(source, args=[])
    message = diagnostic.message
    assert (
        "`use_abstract_mesh(M32)` (line 7, size 32: (8, 4) ('data', 'model'))"
        in message
    )
    assert "(line 8, size 64: (16, 4) ('data', 'model'))" in message
    assert diagnostic.related[0].start.line == 7


def test_a_context_manager_unrelated_to_meshes_is_transparent():
    source = """
with use_abstract_mesh(M32):
    with jax.named_scope("stage2"):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass
"""
    diagnostics, _ = jax002(source)
    assert len(diagnostics) == 1


@pytest.mark.parametrize(
    "source",
    [
        # a context manager that may set a mesh jaxfix cannot see
        """
with use_abstract_mesh(M32):
    with partition_mesh_for("stage2"):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass
""",
        # generators (and @contextmanager helpers) run their body later, not at the call
        """
@contextlib.contextmanager
def stage():
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        yield

with use_abstract_mesh(M32):
    stage()
""",
        # the outer context is entered inside the function, so callers do not matter
        """
def stage():
    with use_abstract_mesh(AbstractMesh((), ())):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass

with use_abstract_mesh(M32):
    stage()
""",
        # malformed or unusual calls must not crash the rule
        """
args = ()
with use_abstract_mesh(M32):
    with use_abstract_mesh(*args):
        pass
    with use_abstract_mesh():
        pass
    context = use_abstract_mesh(AbstractMesh((16, 4), ("data", "model")))
""",
    ],
    ids=[
        "unknown-mesh-helper",
        "generator",
        "reset-inside",
        "odd-calls",
    ],
)
def test_not_reported(source):
    diagnostics, result = jax002(source)
    assert diagnostics == [] and result.fixed is None


def test_fill_axis_missing_from_the_inner_mesh_falls_back():
    source = """
with use_abstract_mesh(M32):
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        pass
"""
    (diagnostic,), _ = jax002(source, args=[*UNSAFE, "--fill-axis", "pipeline"])
    assert diagnostic.fix_title == "resize the inner mesh to (8, 4)"


def test_an_exit_stack_closed_before_the_inner_mesh_no_longer_encloses():
    source = """
stack = contextlib.ExitStack()
stack.enter_context(use_abstract_mesh(M32))
stack.close()
with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
    pass
"""
    diagnostics, _ = jax002(source)
    assert diagnostics == []
    (diagnostic,), _ = jax002(
        source.replace("stack.close()", "stack.enter_context(jax.named_scope('s'))")
    )
    assert diagnostic.fix_title == "resize the inner mesh to (8, 4)"


def test_sizes_written_in_another_module_are_named(tmp_path):
    """The inner mesh built by a helper from a constant of the caller's module, read once on
    the way to the raising line: the finding names the constant (walked along the calls that
    built the mesh) and its fix is an edit of that module's literal."""
    from pathlib import Path

    from jaxfix.check.run import Run
    from jaxfix.check.runner import run_files
    from jaxfix.settings.options import Options

    files = {
        "helpers.py": (
            "import jax\n\n\n"
            "def create_mesh(shape, names):\n"
            "    return jax.make_mesh(shape, names)\n"
        ),
        "stage.py": (
            "import jax\n\n\n"
            "def run(mesh):\n"
            "    with jax.sharding.use_abstract_mesh(mesh.abstract_mesh):\n"
            "        return 1\n"
        ),
        "main.py": (
            "import jax\n\n"
            "import helpers\n"
            "import stage\n\n"
            "OUTER = [(2, 4), ('x', 'y')]\n"
            "INNER = [(1, 4), ('x', 'y')]\n"
            "with jax.set_mesh(helpers.create_mesh(*OUTER)):\n"
            "    stage.run(helpers.create_mesh(*INNER))\n"
        ),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    paths = sorted(Path(tmp_path).glob("*.py"))
    options = Options(select=("JAX002",), jax_version=(0, 10, 2), unsafe_fixes=True)
    results = run_files(
        Run(options, roots=(tmp_path,)).scoped(paths), paths, write=False, jobs=1
    )
    (found,) = [r for r in results if r.path.name == "stage.py"]
    (diagnostic,) = found.diagnostics
    assert diagnostic.fix_title == (
        "resize the inner mesh to (2, 4) where its sizes are written (main.py:7)"
    )
    assert "its sizes are written at main.py:7 (`INNER[0]`)" in diagnostic.message
    assert "the fix sets axis 'x' to 2 there" in diagnostic.message
    (edit,) = diagnostic.data_edits
    main = (tmp_path / "main.py").read_bytes()
    assert edit.path.name == "main.py"
    assert main[: edit.span[0]].endswith(b"INNER = [(") and edit.text == b"2"
    assert [(r.path.name, r.start.line) for r in diagnostic.related if r.path] == [
        ("main.py", 7)
    ]
    assert all(r.fixed is None for r in results)
