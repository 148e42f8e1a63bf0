"""JAX102's search of an installed library for a reader of `thread_resources`
(jaxfix/analysis/ast_engine/reach.py, `imported_reader`) reads a module's bytes before parsing
it: one without the word is only looked at for its relative imports, so one without either is
not parsed, and what the search finds, and the files it depends on, are the same."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine import project as project_module
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.reach import _MAY_IMPORT_RELATIVELY, Reach
from jaxfix.check.dependencies import recorded

RELATIVE_IMPORTS = [
    "from . import a",
    "from .a import b",
    "from ..a.b import c",
    "from ...a import b",
    "from\t.a import b",
    "from \\\n    .a import b",
    "from \\\r\n.a import b",
    "if x:\n    from .a import (b,\n        c)",
    "try:\n    from . a import b\nexcept ImportError:\n    pass",
]


@pytest.mark.parametrize("source", RELATIVE_IMPORTS)
def test_every_relative_import_is_seen_in_the_bytes(source):
    levels = [
        node.level
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom)
    ]
    assert levels and all(levels)
    assert _MAY_IMPORT_RELATIVELY.search(source.encode())


@pytest.mark.parametrize(
    "source", ["import os", "from os import path", "from os.path import join"]
)
def test_absolute_imports_are_not_taken_for_relative_ones(source):
    assert not _MAY_IMPORT_RELATIVELY.search(source.encode())


def _reads_old(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(node, ast.Attribute) and node.attr == "thread_resources"
        for node in ast.walk(function)
    )


@pytest.fixture
def library(tmp_path: Path) -> Path:
    package = tmp_path / "site" / "meshlib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from .plain import helper\nfrom .inner import current\n"
    )
    (package / "plain.py").write_text(
        "import os\n\n\ndef helper():\n    return os.sep\n"
    )
    (package / "inner.py").write_text("from .deep import current\n")
    (package / "deep.py").write_text(
        "from jax.interpreters import pxla\n\n\n"
        "def current():\n    return pxla.thread_resources.env.physical_mesh\n"
    )
    return package


def test_a_module_without_the_word_or_relative_imports_is_not_parsed(
    library, tmp_path, monkeypatch
):
    parsed: list[Path] = []
    original = project_module._parse

    def counting(path: Path, source: bytes) -> object:
        parsed.append(path)
        return original(path, source)

    monkeypatch.setattr(project_module, "_parse", counting)
    engine = Engine(roots=(tmp_path,), files=(), jax_version=(0, 10, 2))
    start = library / "__init__.py"
    engine.begin(start)
    found = Reach(engine)._reader_near(start, _reads_old, b"thread_resources")
    assert found is not None
    node, path = found
    assert node.name == "current" and path == library / "deep.py"
    assert library / "plain.py" not in parsed  # neither the word nor a relative import
    assert library / "inner.py" in parsed  # its relative import leads to deep.py
    engine.project.created_ns = time.time_ns() + 10**12
    dependencies = {d.path for d in recorded(engine.project, start)[0]}
    assert (
        library / "plain.py" in dependencies
    )  # its bytes decided it: still depended on
    assert isinstance(engine.project.module(library / "plain.py"), Module)
