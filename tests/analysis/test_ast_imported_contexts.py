"""Decorators and context managers imported from another module of the tree, as the `ast`
engine follows them: the mesh current at the user's inner `use_abstract_mesh` is the helper's
when the helper surely enters it (also through a name, an attribute set in `setUp`, an alias,
a re-export, another module), None when it enters none, and Unknown when it cannot be seen (a
class whose `__enter__` enters one, a module that does not parse, is missing or outside the
tree, a star import, an import cycle). Ported from the JAX002 screen's
tests/test_screen_imports.py: the same trees, the question asked of the engine; the screen's
own facts (what it keeps, how far it looks, that it reads no LibCST tree) go with it."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from ast_programs import of_file, shape
from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Mesh, Unknown, Value
from jaxfix.cache.store import Cache
from jaxfix.check import dependencies
from jaxfix.cli.main import cli

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
# The wrapper calls a function of another module that sets the mesh for good.
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

# (helper modules, the user's code, whether the mesh they enter is known where the user's
# inner use_abstract_mesh runs): with size 2 JAX002 reports exactly the known ones (they
# conflict with the inner 4); the others are no mesh or Unknown, and nothing is reported.
MESH, NONE, UNKNOWN = "the helper's mesh", "no mesh", "unknown"
CASES = {
    "decorator": ({"helpers.py": WRAPPER}, USE_DECORATOR, MESH),
    "decorator-factory": ({"helpers.py": FACTORY}, USE_FACTORY, MESH),
    "contextmanager": ({"helpers.py": CONTEXT}, USE_WITH, MESH),
    "entered-contextmanager": ({"helpers.py": CONTEXT}, USE_ENTERED, MESH),
    "through-same-module": ({"helpers.py": THROUGH_SAME_MODULE}, USE_WITH, MESH),
    "through-other-module": (
        {"helpers.py": THROUGH_OTHER_MODULE, "meshes.py": CONTEXT},
        USE_WITH,
        MESH,
    ),
    "re-exported": (
        {"helpers.py": CONTEXT, "__init__.py": "from .helpers import data_parallel\n"},
        USE_REEXPORTED,
        MESH,
    ),
    "contextmanager-bound-to-a-name": ({"helpers.py": CONTEXT}, USE_NAMED, MESH),
    "contextmanager-bound-to-an-attribute": (
        {"helpers.py": CONTEXT},
        USE_ATTRIBUTE,
        MESH,
    ),
    "decorator-enters-none": ({"helpers.py": NO_MESH}, USE_DECORATOR, NONE),
    "contextmanager-enters-none": ({"helpers.py": NO_MESH}, USE_WITH, NONE),
    "class-with-enter": ({"helpers.py": CLASS}, USE_WITH, UNKNOWN),
    # The LibCST engine did not follow an alias of the context manager (no report); the new
    # one does: the same function, the same mesh
    "alias-of-a-contextmanager": (
        {"helpers.py": ALIAS},
        USE_WITH.replace("import data_parallel", "import parallel as data_parallel"),
        MESH,
    ),
    "helper-does-not-parse": (
        {"helpers.py": CONTEXT + "\ndef broken(:\n"},
        USE_WITH,
        UNKNOWN,
    ),
    "helper-outside-the-tree": (
        {},
        USE_WITH.replace("from .helpers", "from not_in_this_tree"),
        UNKNOWN,
    ),
    "star-import": (
        {"helpers.py": CONTEXT},
        USE_WITH.replace("import data_parallel", "import *"),
        UNKNOWN,
    ),
    "other-module-missing": ({"helpers.py": THROUGH_OTHER_MODULE}, USE_WITH, UNKNOWN),
    # A gap both engines share: a call statement into another module is not followed, so
    # the set_mesh it runs is not seen ("no mesh", where the mesh is the helper's)
    "decorator-calls-imported-setter": (
        {"helpers.py": CALLS_IMPORTED_SETTER, "meshes.py": SETTER},
        USE_DECORATOR,
        NONE,
    ),
    "context-managers-in-an-import-cycle": (
        {"helpers.py": THROUGH_OTHER_MODULE, "meshes.py": CYCLE},
        USE_WITH,
        UNKNOWN,
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


def _inner_mesh(entry: Path, engine: Engine | None = None) -> Value:
    """The mesh current at the user's inner `use_abstract_mesh(AbstractMesh((4,), ...))`."""
    if engine is None:
        engine, module = of_file(entry, (entry.parent.parent,))
    else:
        found = engine.module(entry)
        assert isinstance(found, Module)
        module = found
    (inner,) = [
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "use_abstract_mesh"
    ]
    return engine.current_mesh(module, inner)


@pytest.mark.parametrize("size", [2, 4])
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_mesh_a_helper_of_another_module_enters(
    tmp_path: Path, case: str, size: int
) -> None:
    helpers, user, answer = CASES[case]
    found = _inner_mesh(_tree(tmp_path, helpers, user, size))
    if answer == MESH:
        assert isinstance(found, Mesh) and shape(found) == ((size,), ("x",)), found
    elif answer == NONE:
        assert found is None, found
    else:
        assert isinstance(found, Unknown), found


@pytest.mark.parametrize("modules", [2, 3])
def test_a_chain_of_context_managers_is_followed_to_its_end(
    tmp_path: Path, modules: int
) -> None:
    """helpers.data_parallel enters m1's, which enters m2's...; the last enters no mesh.
    (The screen stopped looking four modules away; the engine follows the whole chain.)"""
    chain = {"helpers.py": THROUGH_OTHER_MODULE.replace("meshes", "m1")}
    for index in range(1, modules):
        chain[f"m{index}.py"] = THROUGH_OTHER_MODULE.replace("meshes", f"m{index + 1}")
    chain[f"m{modules}.py"] = NO_MESH
    assert _inner_mesh(_tree(tmp_path, chain, USE_WITH, 2)) is None


def test_the_modules_read_are_dependencies_of_the_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file with nothing to report because helpers.py's context manager enters no mesh is
    checked again once it enters one: the cached result names helpers.py and meshes.py, read
    through it."""
    monkeypatch.setattr(
        dependencies, "SETTLED_NS", 0
    )  # files written here count as settled
    hits: list[str] = []
    real = Cache.get

    def get(
        self: Cache,
        path: Path,
        source: bytes,
        lines: frozenset[int] | None = None,
        **kwargs: bool,
    ) -> object:
        found = real(self, path, source, lines, **kwargs)
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


def test_a_helper_of_many_modules_is_read_once_per_run(tmp_path: Path) -> None:
    entry = _tree(tmp_path, {"helpers.py": NO_MESH}, USE_WITH, 2)
    second = tmp_path / "pkg" / "second.py"
    second.write_text(entry.read_text())
    engine = Engine(
        roots=(tmp_path,), files=tuple(tmp_path.rglob("*.py")), jax_version=(0, 10, 2)
    )
    assert _inner_mesh(entry, engine) is None and _inner_mesh(second, engine) is None
    helpers = (tmp_path / "pkg" / "helpers.py").resolve()
    assert helpers in engine.project.read
    assert engine.module(helpers) is engine.module(helpers)  # parsed once, kept


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
    "decorator",
    [
        "@jtu.with_explicit_mesh((2,), 'x')",
        "@jtu.with_config(x=1)",
        "@jtu.skip_on_devices('tpu')",
        "@parameterized.parameters(1, 2)",
    ],
)
def test_jax_style_test_helpers(tmp_path: Path, decorator: str) -> None:
    """JAX's own modules are never the tree's, even in a tree that holds `jax/` (the JAX
    repository): `@jtu.with_explicit_mesh` is not seen into, and neither are
    `@jtu.with_config` and `@jtu.skip_on_devices`, which enter none; absl's `parameterized`
    is outside the tree. All Unknown. (The LibCST engine followed jax/_src/test_util.py when
    the tree held it, and its screen dropped the last three: it knew more.)"""
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
    engine, module = of_file(entry, (tmp_path,))
    (inner,) = [
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "use_abstract_mesh"
    ]
    assert isinstance(engine.current_mesh(module, inner), Unknown)
