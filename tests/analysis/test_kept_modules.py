"""Which parsed modules a run's project keeps between two modules' questions
(jaxfix/analysis/ast_engine/project.py, `Project.begin`): up to `KEPT_NODES` syntax nodes, what
their trees cost, whatever their source's size."""

from __future__ import annotations

from pathlib import Path

from jaxfix.analysis.ast_engine import project
from jaxfix.analysis.ast_engine.project import Module, Project

CODE = b"".join(b"value_%d = compute(%d, scale=2)\n" % (n, n) for n in range(60))
# as many nodes as CODE, and a thousand times its size in comments (a notebook's outputs
# kept as text)
COMMENTED = CODE + b"# output: " + b"0" * (1000 * len(CODE)) + b"\n"


def _project(tmp_path: Path) -> tuple[Project, dict[str, Path]]:
    paths = {}
    for name, code in (("small", CODE), ("commented", COMMENTED), ("other", CODE)):
        paths[name] = tmp_path / f"{name}.py"
        paths[name].write_bytes(code)
    checked = tmp_path / "checked.py"
    checked.write_bytes(b"import small\n")
    paths["checked"] = checked
    return Project((tmp_path,), tuple(paths.values()), freeze_trees=True), paths


def test_a_module_counts_its_nodes_not_its_bytes(tmp_path):
    found, paths = _project(tmp_path)
    small, commented = (found.module(paths[n]) for n in ("small", "commented"))
    assert isinstance(small, Module) and isinstance(commented, Module)
    assert commented.nodes == small.nodes == len(small.parents) + 1
    assert len(commented.source) > 1000 * len(small.source)
    unindexed = Module(paths["small"], small.tree, small.source)
    assert unindexed.nodes == len(CODE) // 8 + 1  # estimated until it is indexed


def test_the_budget_keeps_a_large_commented_module_with_the_others(
    tmp_path, monkeypatch
):
    found, paths = _project(tmp_path)
    found.begin(paths["checked"])
    modules = [found.module(paths[n]) for n in ("small", "commented", "other")]
    nodes = sum(m.nodes for m in modules if isinstance(m, Module))
    monkeypatch.setattr(project, "KEPT_NODES", nodes)
    found.begin(paths["checked"])
    assert set(found._modules) == {
        paths[n].resolve() for n in ("small", "commented", "other")
    }
    monkeypatch.setattr(project, "KEPT_NODES", nodes - 1)  # one module too many
    found.begin(paths["checked"])
    # the least recently used goes
    assert set(found._modules) == {paths[n].resolve() for n in ("commented", "other")}
