"""The rule base class: a LibCST visitor that reports; the engine applies the fixes.

Rules are batchable visitors, so one traversal serves every rule that runs on a file; their
`visit_<Node>` methods cannot skip a node's children.
"""

from __future__ import annotations

import inspect
from typing import ClassVar

import libcst as cst

from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.diagnostics import Fix, Related, Report, Safety
from jaxfix.options import Options

DOC_SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety", "## References")


class Rule(cst.BatchableCSTVisitor):
    """Subclasses set the class attributes below and put their ruff-style docs in the docstring."""

    code: ClassVar[str]
    name: ClassVar[str]  # kebab-case, e.g. "missing-lowering-platforms"
    summary: ClassVar[str]  # one line for --list-rules
    fix_safety: ClassVar[Safety]  # of the rule's usual fix
    # Prefilter: the file can only be flagged if, for some group, every token occurs in its bytes.
    tokens: ClassVar[tuple[tuple[bytes, ...], ...]]

    def __init__(self, analysis: ModuleAnalysis, options: Options) -> None:
        super().__init__()
        self.analysis = analysis
        self.options = options
        self.reports: list[Report] = []

    def report(self, node: cst.CSTNode, message: str, *, fix: Fix | None = None, related: tuple[Related, ...] = ()) -> None:
        self.reports.append(Report(self.code, message, node, fix, related))

    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def may_apply(cls, source: bytes) -> bool:
        return any(all(token in source for token in group) for group in cls.tokens)


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """`name=value` formatted as black writes it (no spaces around `=`)."""
    no_space = cst.SimpleWhitespace("")
    return cst.Arg(value=value, keyword=cst.Name(name), equal=cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space))
