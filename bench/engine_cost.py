"""The `ast` engine's cost on a real tree, next to ruff's: one process, cold.

    python bench/engine_cost.py /work/clones/jax

Finds the tree's Python files (jaxfix's discovery), keeps the prefilter's candidates (the
rules' byte tokens), and asks the new engine (jaxfix/analysis/ast_engine) every question the
rules ask on each candidate: the value of each mesh-building call and of the mesh given to each
mesh context and NamedSharding, the current mesh at each use_abstract_mesh / .lower /
top_level_all_gather, each lowering argument's mesh. Callers of a function are looked for in
every file of the tree. Prints CPU seconds (user + system), peak RSS, files and answers, then
times `ruff check --select F401 --no-cache` (cold) and `ruff check --select F401` twice (warm:
its cache filled by the first) on the same tree in a subprocess.
"""

from __future__ import annotations

import ast
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Unknown
from jaxfix.check.prefilter import is_candidate
from jaxfix.check.registry import selected_rules
from jaxfix.settings.options import Options
from jaxfix.sources.discovery import discover

_VALUE_CALLS = {"AbstractMesh", "make_mesh", "Mesh", "update", "get_abstract_mesh"}
_MESH_ARGUMENT_CALLS = {"use_abstract_mesh", "set_mesh", "use_mesh", "NamedSharding"}
_CONTEXT_CALLS = {"use_abstract_mesh", "lower", "top_level_all_gather"}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def ask_all(engine: Engine, module: Module) -> Counter[str]:
    counts: Counter[str] = Counter()
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        answers = []
        if name in _VALUE_CALLS:
            answers.append(engine.value_of(module, node))
        if name in _MESH_ARGUMENT_CALLS and node.args:
            first = node.args[0]
            if not isinstance(first, ast.Starred):
                answers.append(engine.value_of(module, first))
        if name in _CONTEXT_CALLS:
            answers.append(engine.current_mesh(module, node))
        if name in ("lower", "trace"):
            answers.extend(
                engine.value_of(module, a)
                for a in node.args
                if not isinstance(a, ast.Starred)
            )
        for answer in answers:
            counts["unknown" if isinstance(answer, Unknown) else "known"] += 1
    return counts


def _ruff(tree: Path, *args: str) -> tuple[float, float]:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    start = time.perf_counter()
    process = subprocess.Popen(
        [ruff, "check", "--select", "F401", "--exit-zero", "-q", *args, str(tree)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main() -> None:
    tree = Path(sys.argv[1]).resolve()
    files = [p for p in discover([tree]).files if p.suffix == ".py"]
    rules = selected_rules(Options())
    start_wall, start_cpu = time.perf_counter(), _cpu()
    candidates = [p for p in files if is_candidate(p.read_bytes(), rules)]
    engine = Engine(roots=(tree,), files=tuple(files))
    counts: Counter[str] = Counter()
    lines = 0
    for path in candidates:
        module = engine.begin(
            path
        )  # as a run asks: each module on its own, its tree let go after
        if isinstance(module, Unknown):
            counts["does not parse"] += 1
            continue
        lines += module.source.count(b"\n")
        counts += ask_all(engine, module)
    wall, cpu = time.perf_counter() - start_wall, _cpu() - start_cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"tree {tree}: {len(files)} files, {len(candidates)} candidates ({lines} lines)"
    )
    print(
        f"new engine, cold, one process: {wall:.2f} s wall, {cpu:.2f} s CPU, peak {peak:.0f} MB"
    )
    print(
        f"answers: {dict(counts)}; modules kept at the end: {len(engine.project._modules)}"
    )
    with tempfile.TemporaryDirectory() as cache:
        cold = _ruff(tree, "--no-cache")
        _ruff(tree, "--cache-dir", cache)
        warm = _ruff(tree, "--cache-dir", cache)
    print(f"ruff cold: {cold[0]:.2f} s wall, {cold[1]:.2f} s CPU")
    print(f"ruff warm: {warm[0]:.2f} s wall, {warm[1]:.2f} s CPU")
    print(
        f"new engine / ruff cold: {wall / cold[0]:.1f}x wall, {cpu / max(cold[1], 1e-3):.1f}x CPU"
    )


if __name__ == "__main__":
    main()
