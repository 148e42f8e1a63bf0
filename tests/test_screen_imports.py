"""The JAX002 screen's imported decorators and context managers (jaxfix/analysis/imported_contexts.py):
a file it drops for want of one that may enter a known mesh in another module gets no result
from the full engine either; it keeps every file the engine reports through one; it drops the
helpers that cannot (precision); the modules it read are dependencies of the file's result."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import jaxfix.engine
from jaxfix import dependencies
from jaxfix.analysis.module import new_project_index
from jaxfix.analysis.project import InProject, ProjectIndex
from jaxfix.cache import Cache
from jaxfix.cli.main import cli
from jaxfix.engine import process_source
from jaxfix.options import Options
from jaxfix.screen import module_facts
from test_prefilter import _outcome, full_engine

OPTIONS = Options(select=("JAX002",), jax_version=(0, 10, 2))
INNER = 'with use_abstract_mesh(AbstractMesh((4,), ("x",))):\n        pass'
HEAD = "import contextlib\nimport functools\n\nimport jax\nfrom jax.sharding import AbstractMesh, use_abstract_mesh\n"

# Helper modules: `{n}` is the size of the mesh they enter (2 conflicts with the inner 4).
WRAPPER = (
    HEAD
    + """
def with_mesh(fn):
    @functools.wraps(fn)
    def run(*args):
        with jax.set_mesh(jax.make_mesh(({n},), ("x",))):
            return fn(*args)
    return run
"""
)
FACTORY = (
    HEAD
    + """
def with_mesh_of(n):
    def decorator(fn):
        def run(*args):
            with jax.set_mesh(jax.make_mesh((n,), ("x",))):
                return fn(*args)
        return run
    return decorator
"""
)
CONTEXT = (
    HEAD
    + """
@contextlib.contextmanager
def data_parallel(n):
    with jax.set_mesh(jax.make_mesh((n,), ("x",))):
        yield
"""
)
THROUGH_SAME_MODULE = (
    HEAD
    + """
@contextlib.contextmanager
def _mesh(n):
    with jax.set_mesh(jax.make_mesh((n,), ("x",))):
        yield

@contextlib.contextmanager
def data_parallel(n):
    with _mesh(n):
        yield
"""
)
THROUGH_OTHER_MODULE = (
    HEAD
    + """
from . import meshes

@contextlib.contextmanager
def data_parallel(n):
    with meshes.data_parallel(n):
        yield
"""
)
NO_MESH = (
    HEAD
    + """
def with_mesh(fn):
    @functools.wraps(fn)
    def run(*args):
        with open(__file__):
            return fn(*args)
    return run

@contextlib.contextmanager
def data_parallel(n):
    with contextlib.suppress(ValueError):
        yield
"""
)
CLASS = (
    HEAD
    + """
class data_parallel:
    def __init__(self, n):
        self.ctx = jax.set_mesh(jax.make_mesh((n,), ("x",)))
    def __enter__(self):
        return self.ctx.__enter__()
    def __exit__(self, *exc):
        return self.ctx.__exit__(*exc)
"""
)
ALIAS = CONTEXT + "\nparallel = data_parallel\n"
# The wrapper calls a function of another module that sets the mesh for good: `enters_mesh`
# follows calls of the decorator's own module only, so the analysis finds no mesh here.
CALLS_IMPORTED_SETTER = (
    HEAD
    + """
from . import meshes

def with_mesh(fn):
    @functools.wraps(fn)
    def run(*args):
        meshes.enter({n})
        return fn(*args)
    return run
"""
)
SETTER = (
    HEAD
    + """
def enter(n):
    jax.set_mesh(jax.make_mesh((n,), ("x",)))
"""
)
CYCLE = THROUGH_OTHER_MODULE.replace(
    "meshes.data_parallel", "helpers.data_parallel"
).replace("import meshes", "import helpers")

USE_DECORATOR = (
    "from .helpers import with_mesh\n\n@with_mesh\ndef stage():\n    " + INNER + "\n"
)
USE_FACTORY = (
    "from . import helpers as tu\n\n@tu.with_mesh_of({n})\ndef stage():\n    "
    + INNER
    + "\n"
)
USE_WITH = (
    "from .helpers import data_parallel\n\ndef stage():\n    with data_parallel({n}):\n        "
    + INNER.replace("\n", "\n    ")
    + "\n"
)
USE_ENTERED = (
    "import contextlib\nimport pkg.helpers\n\ndef stage():\n    with contextlib.ExitStack() as stack:\n"
    "        stack.enter_context(pkg.helpers.data_parallel({n}))\n        "
    + INNER.replace("\n", "\n    ")
    + "\n"
)
USE_REEXPORTED = USE_WITH.replace("from .helpers import", "from pkg import")
# `with ctx:` and `with self.ctx:` are resolved to the call assigned to the name or attribute.
USE_NAMED = USE_WITH.replace(
    "    with data_parallel({n}):", "    ctx = data_parallel({n})\n    with ctx:"
)
USE_ATTRIBUTE = (
    "from .helpers import data_parallel\n\nclass StageTest:\n    def setUp(self):\n        self.ctx = data_parallel({n})\n\n"
    "    def test_stage(self):\n        with self.ctx:\n            "
    + INNER.replace("\n", "\n        ")
    + "\n"
)

# (helper modules, the user's code, whether the screen keeps it): with size 2 the engine reports
# exactly the kept ones; with size 4 (no conflict) it reports none, whatever the screen does.
CASES = {
    "decorator": ({"helpers.py": WRAPPER}, USE_DECORATOR, True),
    "decorator-factory": ({"helpers.py": FACTORY}, USE_FACTORY, True),
    "contextmanager": ({"helpers.py": CONTEXT}, USE_WITH, True),
    "entered-contextmanager": ({"helpers.py": CONTEXT}, USE_ENTERED, True),
    "through-same-module": ({"helpers.py": THROUGH_SAME_MODULE}, USE_WITH, True),
    "through-other-module": (
        {"helpers.py": THROUGH_OTHER_MODULE, "meshes.py": CONTEXT},
        USE_WITH,
        True,
    ),
    "re-exported": (
        {"helpers.py": CONTEXT, "__init__.py": "from .helpers import data_parallel\n"},
        USE_REEXPORTED,
        True,
    ),
    "contextmanager-bound-to-a-name": ({"helpers.py": CONTEXT}, USE_NAMED, True),
    "contextmanager-bound-to-an-attribute": (
        {"helpers.py": CONTEXT},
        USE_ATTRIBUTE,
        True,
    ),
    "decorator-enters-none": ({"helpers.py": NO_MESH}, USE_DECORATOR, False),
    "contextmanager-enters-none": ({"helpers.py": NO_MESH}, USE_WITH, False),
    "class-with-enter": ({"helpers.py": CLASS}, USE_WITH, False),
    "alias-of-a-contextmanager": (
        {"helpers.py": ALIAS},
        USE_WITH.replace("import data_parallel", "import parallel as data_parallel"),
        False,
    ),
    "helper-does-not-parse": (
        {"helpers.py": CONTEXT + "\ndef broken(:\n"},
        USE_WITH,
        False,
    ),
    "helper-outside-the-tree": (
        {},
        USE_WITH.replace("from .helpers", "from not_in_this_tree"),
        False,
    ),
    "star-import": (
        {"helpers.py": CONTEXT},
        USE_WITH.replace("import data_parallel", "import *"),
        False,
    ),
    "other-module-missing": ({"helpers.py": THROUGH_OTHER_MODULE}, USE_WITH, False),
    "decorator-calls-imported-setter": (
        {"helpers.py": CALLS_IMPORTED_SETTER, "meshes.py": SETTER},
        USE_DECORATOR,
        False,
    ),
    "context-managers-in-an-import-cycle": (
        {"helpers.py": THROUGH_OTHER_MODULE, "meshes.py": CYCLE},
        USE_WITH,
        False,
    ),
}


def _tree(root: Path, helpers: dict[str, str], user: str, size: int) -> Path:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    for name, text in helpers.items():
        (root / "pkg" / name).write_text(text.replace("{n}", str(size)))
    entry = root / "pkg" / "user.py"
    entry.write_text(HEAD + "\n" + user.replace("{n}", str(size)))
    return entry


def _screen_keeps(path: Path) -> bool:
    """Whether the engine's screen keeps JAX002 for the file (watched in a real run)."""
    kept: list[bool] = []
    screen = jaxfix.engine.screened_rules

    def watched(rules, facts):  # noqa: ANN001, ANN202 - the engine's signature
        survivors = screen(rules, facts)
        kept.append(any(rule.code == "JAX002" for rule in survivors))
        return survivors

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jaxfix.engine, "screened_rules", watched)
        process_source(path, path.read_bytes(), OPTIONS)
    assert len(kept) == 1
    return kept[0]


@pytest.mark.parametrize("size", [2, 4])
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_dropped_file_has_no_result_and_a_reported_one_is_kept(tmp_path, case, size):
    helpers, user, kept = CASES[case]
    entry = _tree(tmp_path, helpers, user, size)
    full = full_engine(entry.read_bytes(), OPTIONS, str(entry))
    screened = process_source(entry, entry.read_bytes(), OPTIONS)
    assert full.error is None
    assert _outcome(screened) == _outcome(full)
    assert _screen_keeps(entry) is kept
    if not kept:
        assert not full.diagnostics and full.fixed is None
    # every helper that may enter a known mesh does make the engine report at size 2: the
    # cases test the screen against reports, not against nothing
    assert [d.code for d in full.diagnostics] == (
        ["JAX002"] if kept and size == 2 else []
    )


@pytest.mark.parametrize("modules,kept", [(2, False), (3, True)])
def test_a_chain_of_context_managers_is_followed_a_few_modules_then_kept(
    tmp_path, modules, kept
):
    """helpers.data_parallel enters m1's, which enters m2's...; the last enters no mesh. Four
    modules away from the file the screen stops looking and keeps it; the engine, which follows
    the whole chain, reports nothing."""
    chain = {"helpers.py": THROUGH_OTHER_MODULE.replace("meshes", "m1")}
    for index in range(1, modules):
        chain[f"m{index}.py"] = THROUGH_OTHER_MODULE.replace("meshes", f"m{index + 1}")
    chain[f"m{modules}.py"] = NO_MESH
    entry = _tree(tmp_path, chain, USE_WITH, 2)
    assert _screen_keeps(entry) is kept
    assert not full_engine(entry.read_bytes(), OPTIONS, str(entry)).diagnostics


def test_the_modules_read_are_dependencies_of_a_dropped_file(tmp_path, monkeypatch):
    """A file dropped because helpers.py's decorator enters no mesh is checked again once it
    enters one: the cached result names helpers.py (and meshes.py, read through it)."""
    monkeypatch.setattr(
        dependencies, "SETTLED_NS", 0
    )  # files written here count as settled
    hits: list[str] = []
    real = Cache.get

    def get(self, path, source):  # noqa: ANN001, ANN202 - Cache.get's signature
        found = real(self, path, source)
        if found is not None:
            hits.append(path.name)
        return found

    monkeypatch.setattr(Cache, "get", get)
    (tmp_path / "pyproject.toml").write_text('[tool.jaxfix]\nselect = ["JAX002"]\n')
    _tree(
        tmp_path,
        {"helpers.py": THROUGH_OTHER_MODULE, "meshes.py": NO_MESH},
        USE_WITH,
        2,
    )
    monkeypatch.chdir(tmp_path)

    def check() -> int:
        return (
            CliRunner()
            .invoke(
                cli,
                ["--check", "-q", "--jax-version", "0.10.2", "pkg/user.py"],
                catch_exceptions=False,
            )
            .exit_code
        )

    assert check() == 0
    assert check() == 0 and hits == ["user.py"]
    (tmp_path / "pkg" / "meshes.py").write_text(CONTEXT)
    assert check() == 1, "the cached result of user.py did not depend on meshes.py"
    assert hits == ["user.py"]


def test_a_helper_of_many_modules_is_read_once_per_index(tmp_path):
    entry = _tree(tmp_path, {"helpers.py": NO_MESH}, USE_WITH, 2)
    index = new_project_index()
    for _ in range(2):
        where = InProject(entry, index)
        facts = module_facts(entry.read_bytes(), where)
        assert facts is not None and facts.may_enter_mesh_elsewhere() is False
        assert (tmp_path / "pkg" / "helpers.py") in where.used
    reads = [p for p in index._files if p.name == "helpers.py"]
    assert len(reads) == 1 and len(index._files[reads[0]].derived) == 1


def test_the_screen_reads_no_libcst_tree(tmp_path, monkeypatch):
    """The point of the screen: the project index's LibCST analyses are never asked for."""
    entry = _tree(
        tmp_path,
        {"helpers.py": THROUGH_OTHER_MODULE, "meshes.py": CONTEXT},
        USE_WITH,
        2,
    )

    def refuse(*args: object) -> None:
        raise AssertionError("the screen asked for a LibCST analysis")

    monkeypatch.setattr(ProjectIndex, "analysis", refuse)
    facts = module_facts(entry.read_bytes(), InProject(entry, new_project_index()))
    assert facts is not None and facts.may_enter_mesh_elsewhere() is True


# jax/_src/test_util.py's decorators, as jax writes them.
JTU = textwrap.dedent("""
        import contextlib, functools
        import jax

        def with_config(**kwds):
            def decorator(fn):
                return fn
            return decorator

        def skip_on_devices(*names):
            def skip(test_method):
                @functools.wraps(test_method)
                def test_method_wrapper(self, *args, **kwargs):
                    return test_method(self, *args, **kwargs)
                return test_method_wrapper
            return skip

        def with_explicit_mesh(sizes, names):
            def decorator(fn):
                def mesh_fn(*args, **kwargs):
                    mesh = create_mesh(sizes, names)
                    with jax.set_mesh(mesh):
                        return fn(*args, **kwargs, mesh=mesh)
                return mesh_fn
            return decorator
""")


@pytest.mark.parametrize(
    "decorator,kept",
    [
        ("@jtu.with_explicit_mesh((2,), 'x')", True),
        ("@jtu.with_config(x=1)", False),
        ("@jtu.skip_on_devices('tpu')", False),
        ("@parameterized.parameters(1, 2)", False),
    ],
)
def test_jax_style_test_helpers(tmp_path, decorator, kept):
    """`@jtu.with_explicit_mesh` keeps (its body enters `jax.set_mesh`); `@jtu.with_config`,
    `@jtu.skip_on_devices` and absl's `parameterized` (not in the tree) do not."""
    (tmp_path / "jax" / "_src").mkdir(parents=True)
    (tmp_path / "jax" / "__init__.py").write_text("")
    (tmp_path / "jax" / "_src" / "__init__.py").write_text("")
    (tmp_path / "jax" / "_src" / "test_util.py").write_text(JTU)
    (tmp_path / "tests").mkdir()
    entry = tmp_path / "tests" / "mesh_test.py"
    entry.write_text(
        "from absl.testing import parameterized\nfrom jax._src import test_util as jtu\n"
        + HEAD
        + f"\n{decorator}\ndef test(mesh=None):\n    {INNER}\n"
    )
    where = InProject(entry, new_project_index((tmp_path,)))
    facts = module_facts(entry.read_bytes(), where)
    assert facts is not None and facts.may_enter_mesh_elsewhere() is kept
