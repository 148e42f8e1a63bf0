"""The import statements read from a module's text (jaxfix/analysis/ast_engine/spelled_imports.py)
hold every one the parser finds, so that a callers search skips without parsing only a module
that imports nothing reaching the function's module; the answer is the parsed module's."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import jaxfix
from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine import project as project_module
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.spelled_imports import spelled_imports


def _parsed_imports(code: bytes) -> set[tuple[str, int]]:
    found = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom):
            found.add((node.module or "", node.level))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                found.update((".".join(parts[:n]), 0) for n in range(1, len(parts) + 1))
    return found


WRITTEN_ODDLY = [
    "from . import x\n",
    "from .. import (a,\n    b)\n",
    "from .pkg.mod import y as z\n",
    "from.mod import y\n",
    "from a . b import c\n",
    "import a.b.c as d, e, f . g\n",
    "x = 1; import h\n",
    "import i, \\\n    j.k\n",
    "from \\\n  l.m import n\n",
    "def f():\n    if True:\n        from o import p\n    import q\n",
    "try:\n    import r\nexcept ImportError:\n    s = None\n",
    "# -*- coding: latin-1 -*-\nimport \xe9t\xe9\n".encode("latin-1").decode("latin-1"),
    "x = 'from t import u'  # import v\nimport w\n",
]


@pytest.mark.parametrize("code", WRITTEN_ODDLY)
def test_every_import_the_parser_finds_is_read_from_the_text(code):
    source = code.encode("latin-1") if "latin-1" in code else code.encode()
    assert _parsed_imports(source) <= set(spelled_imports(source) or ())


def test_jaxfix_s_own_modules_imports_are_all_read():
    for path in Path(jaxfix.__file__).parent.rglob("*.py"):
        source = path.read_bytes()
        found = spelled_imports(source)
        assert found is None or _parsed_imports(source) <= set(found), path


def test_statements_are_found_where_the_pattern_finds_them():
    """The scan tries its pattern only at a `from` or an `import` (where each match begins):
    the same statements as the pattern searched through the whole text."""
    from jaxfix.analysis.ast_engine.spelled_imports import _IMPORT, _statements

    texts = [
        *WRITTEN_ODDLY,
        "reimport x\nfromage import y\nfrom  from import z\nimportimport a\n",
        "from x import from y import z\nimport a, import b\n",
        *(p.read_text() for p in Path(jaxfix.__file__).parent.rglob("*.py")),
    ]
    for text in texts:
        assert [m.span() for m in _statements(text)] == [
            m.span() for m in _IMPORT.finditer(text)
        ], text[:80]


def test_a_dynamic_import_may_import_anything():
    assert (
        spelled_imports(b"import importlib\nm = importlib.import_module(name)\n")
        is None
    )
    assert spelled_imports(b"m = __import__(name)\n") is None


LIB = b'import jax\n\n\ndef make(n):\n    return jax.make_mesh((n,), ("data",))\n'
TRAIN = b"from pkg.lib import make\n\nmake(4)\n"
# holds and reads `make` and holds the word `lib`, but imports no module that brings pkg.lib's
WORDS_ONLY = b"import other_lib as lib\n\nmake = lib.factory\nmake(8)\n"


def test_a_module_that_only_holds_the_words_is_not_parsed_for_the_callers(
    tmp_path, monkeypatch
):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_bytes(b"")
    for name, code in (("lib", LIB), ("train", TRAIN), ("words", WORDS_ONLY)):
        (package / f"{name}.py").write_bytes(code)
    parsed: list[str] = []
    original = project_module._parse

    def recorded(path: Path, source: bytes) -> object:
        parsed.append(path.name)
        return original(path, source)

    monkeypatch.setattr(project_module, "_parse", recorded)
    files = tuple(sorted(tmp_path.rglob("*.py")))
    engine = Engine(roots=(tmp_path,), files=files, jax_version=(0, 10, 2))
    module = engine.begin(package / "lib.py")
    assert isinstance(module, Module)
    call = next(
        node
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", None) == "make_mesh"
    )
    assert re.search(r"\b4\b", repr(engine.value_of(module, call)))
    assert "train.py" in parsed and "words.py" not in parsed


def test_a_module_s_imports_are_scanned_once_per_run_for_the_same_bytes(
    tmp_path, monkeypatch
):
    """Searches for callers from several modules read a module's imports from its text: the
    scan runs once for its bytes; each search still records the file; changed bytes are
    scanned again."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_bytes(b"")
    words = package / "words.py"
    for path, code in ((package / "lib.py", LIB), (words, WORDS_ONLY)):
        path.write_bytes(code)
    scanned: list[bytes] = []
    original = project_module.spelled_imports

    def recorded(code: bytes) -> list[tuple[str, int]] | None:
        scanned.append(code)
        return original(code)

    monkeypatch.setattr(project_module, "spelled_imports", recorded)
    files = tuple(sorted(tmp_path.rglob("*.py")))
    engine = Engine(roots=(tmp_path,), files=files, jax_version=(0, 10, 2))
    for _ in range(2):
        engine.begin(package / "lib.py")
        assert engine.project.spelled_imports(words) == [("other_lib", 0)]
        assert words.resolve() in engine.project.read
    assert scanned == [WORDS_ONLY]
    words.write_bytes(WORDS_ONLY + b"import pkg.lib\n")
    assert ("pkg.lib", 0) in (engine.project.spelled_imports(words) or ())
    assert len(scanned) == 2
