"""`CstRule`: a rule over LibCST and the old analysis (`ModuleAnalysis`), kept while the rules
move to `Rule` over `ast` (jaxfix/codemods/base.py); the engine runs both kinds. Apart from
base.py so that a rule over `ast` imports no LibCST; it goes with the old engine.

Its `visit_<Node>` methods cannot skip a node's children, and LibCST's matcher decorators do
not apply (`Rule` refuses a class that uses them).
"""

from __future__ import annotations

import ast

import libcst as cst

from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.codemods.base import Rule
from jaxfix.options import Options


class CstRule(Rule, cst.BatchableCSTVisitor):
    """A rule over LibCST and the old analysis, until it moves to `Rule`."""

    analysis: ModuleAnalysis  # type: ignore[assignment]  # the old analysis, until it goes

    def __init__(self, analysis: ModuleAnalysis, options: Options) -> None:
        super().__init__(analysis, options)  # type: ignore[arg-type]  # see `analysis`

    def expected(self, node: ast.AST | cst.CSTNode) -> bool:
        assert isinstance(node, cst.CSTNode)
        return self.analysis.expected_errors.expects(node, self.raises)
