"""A MetadataWrapper that skips the traversals LibCST makes for nothing.

LibCST resolves every provider through a batched traversal of the whole module, even when the
providers only implement `visit_Module` (ScopeProvider and ExpressionContextProvider walk the
tree themselves there) or none are batchable at all (PositionProvider). Those traversals call
no provider code below the Module node, yet cost about as much as an empty visit each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import ExitStack

import libcst as cst
from libcst import BatchableCSTVisitor
from libcst.metadata import MetadataWrapper

# Visitor class -> whether `visit_Module` is its only visitor method (LibCST's get_visitors
# inspects some 1,600 attributes, so it is asked once per class).
_VISITS_ONLY_MODULE: dict[type, bool] = {}


def _visits_only_module(visitor: BatchableCSTVisitor) -> bool:
    kind = type(visitor)
    if kind not in _VISITS_ONLY_MODULE:
        _VISITS_ONLY_MODULE[kind] = set(visitor.get_visitors()) == {"visit_Module"}
    return _VISITS_ONLY_MODULE[kind]


class ModuleLevelBatchWrapper(MetadataWrapper):
    """Runs a batch whose visitors only have `visit_Module` on the Module node alone."""

    def visit_batched(
        self,
        visitors: Iterable[BatchableCSTVisitor],
        before_visit: Callable[[cst.CSTNode], None] | None = None,
        after_leave: Callable[[cst.CSTNode], None] | None = None,
    ) -> cst.CSTNode:
        visitors = list(visitors)
        if (
            before_visit
            or after_leave
            or not all(_visits_only_module(v) for v in visitors)
        ):
            return super().visit_batched(visitors, before_visit, after_leave)
        with ExitStack() as stack:
            for visitor in visitors:
                stack.enter_context(visitor.resolve(self))
            for visitor in visitors:
                visitor.visit_Module(self.module)
        return self.module
