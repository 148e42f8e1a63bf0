"""No module of jaxfix imports itself through others: every `import` and `from ... import`
between jaxfix's modules counts (under `if TYPE_CHECKING:` and inside functions too: a
type-only or deferred circle is the same knot), read with `ast`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Each module's dotted name -> its file and whether it is a package's `__init__.py`."""
    found = {}
    for path in sorted((root / "jaxfix").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def import_edges(root: Path) -> dict[str, set[str]]:
    """Which jaxfix modules each jaxfix module imports (`from pkg import mod` names `pkg.mod`;
    `from mod import name` names `mod`)."""
    modules = _modules(root)
    edges: dict[str, set[str]] = {}
    for name, (path, package) in modules.items():
        here = name if package else name.rpartition(".")[0]
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
            if isinstance(node, ast.Import):
                imported |= {
                    alias.name for alias in node.names if alias.name in modules
                }
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    if f"{base}.{alias.name}" in modules:
                        imported.add(f"{base}.{alias.name}")
                    elif base in modules:
                        imported.add(base)
        edges[name] = imported - {name}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (`a -> b -> ... -> a`) per strongly connected group of modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(edges[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return [_cycle_in(group, edges) for group in groups]


def _cycle_in(group: set[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest way from the group's first module back to itself, within the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for other in sorted(edges[module] & group):
                if other == start:
                    return paths[module] + [start]
                if other not in paths:
                    paths[other] = paths[module] + [other]
                    following.append(other)
        frontier = following
    raise AssertionError(
        f"no cycle through {start}"
    )  # a strongly connected group has one


def test_jaxfix_has_no_import_circle():
    found = circles(import_edges(ROOT))
    assert not found, "import circles:\n" + "\n".join(
        " -> ".join(cycle) for cycle in found
    )


@pytest.mark.parametrize("where", ["top", "TYPE_CHECKING", "function"])
def test_a_new_circle_is_found_however_it_is_imported(tmp_path, where):
    package = tmp_path / "jaxfix"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "a.py").write_text("from jaxfix.sub import b\n")
    import_b = {
        "top": "from ..sub.a import thing\n",
        "TYPE_CHECKING": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from jaxfix.sub.a import Thing\n",
        "function": "def f():\n    import jaxfix.sub.a\n",
    }[where]
    (package / "sub" / "b.py").write_text(import_b)
    assert circles(import_edges(tmp_path)) == [
        ["jaxfix.sub.a", "jaxfix.sub.b", "jaxfix.sub.a"]
    ]
    (package / "sub" / "b.py").write_text(
        "import jaxfix.sub\nfrom jaxfix import sub\n"
    )  # the package, not `a`
    assert circles(import_edges(tmp_path)) == []
