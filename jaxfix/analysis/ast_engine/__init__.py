"""The value engine over Python's own `ast`, for a whole project: what the rules ask, through
`Analysis` (analysis.py; docs/engine.md says what it follows, docs/design.md what is left).

`Engine.value_of(module, expr)`: what an expression evaluates to (values.py) or `Unknown(why)`.
`Engine.ways_at(module, node)` / `current_mesh(module, node)`: the mesh contexts in force where a
node runs (contexts.py). `Engine.begin(path)` starts the questions about one module of a run:
what its answers depend on is then `engine.project.record` (project.py).
"""

from __future__ import annotations

import ast
import gc
from pathlib import Path

from jaxfix.analysis.ast_engine.contexts import Contexts, Way
from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.placement import Placement
from jaxfix.analysis.ast_engine.project import Module, Project
from jaxfix.analysis.ast_engine.values import Unknown, Value


class Engine:
    """One run's engine: its project (roots: where imports are looked for; files: where the
    callers of a function are looked for) and the target JAX version. A run's engine
    (`for_run`, jaxfix/check/run.py) keeps the collector off the trees it parses: each is
    frozen once parsed (`Project.freeze_trees`), and what the previous module's work left is
    collected when the next module begins (before it is frozen with the next tree); the run
    unfreezes at its end."""

    def __init__(
        self,
        roots: tuple[Path, ...] = (),
        files: tuple[Path, ...] = (),
        jax_version: tuple[int, ...] | None = None,
        for_run: bool = False,
    ) -> None:
        self.project = Project(roots, files, freeze_trees=for_run)
        self.jax_version = jax_version
        self._collect_between = for_run
        self._began = False
        self._new_answers()

    def _new_answers(self) -> None:
        self.evaluator = Evaluator(self.project, self.jax_version)
        self.contexts = Contexts(self.evaluator)
        self.placement = Placement(self.contexts)

    def begin(
        self,
        path: Path,
        source: bytes | None = None,
        jax_version: tuple[int, ...] | None = None,
    ) -> Module | Unknown:
        """The module at `path` (its `source` when given), its questions answered from here
        on with no answer kept from an earlier module's questions: so what they depend on is
        exactly what `project.record` records from here, and an answer about a module never
        depends on which modules the run asked about before it. The parsed modules, the word
        index and the import lookups are kept for the run (the project records each use)."""
        if jax_version is not None:
            self.jax_version = jax_version
        self.project.begin(path)
        # the previous module's answers let go before the next module is read
        del self.evaluator, self.contexts, self.placement
        try:
            if self._collect_between and self._began:
                gc.collect()  # not to freeze what is garbage now with the next tree
            return self.module(path, source)
        finally:
            self._began = True
            self._new_answers()

    def module(self, path: Path, source: bytes | None = None) -> Module | Unknown:
        if source is not None:
            return self.project.add_source(path, source)
        return self.project.module(path)

    def value_of(self, module: Module, expr: ast.expr) -> Value:
        return self.evaluator.value_of(module, expr)

    def ways_at(self, module: Module, node: ast.AST) -> list[Way]:
        return self.contexts.ways_at(module, node)

    def current_mesh(self, module: Module, node: ast.AST) -> Value:
        return self.contexts.current_mesh(module, node)
