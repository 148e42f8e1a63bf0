"""Each way the project calls a function, with the frame its body runs in on that way.

`Evaluator.value` takes a function's parameters from its callers together: where two callers
pass different values the parameter is unknown. A rule whose error does not depend on the
host (two sizes both written in code) asks here instead, once per caller: the function's
parameters bound to that caller's arguments (the receiver too, for a method called on an
object). A caller whose own parameters leave an argument unknown is followed through its own
callers, a few levels up. Bounded: a function with more callers than `_MAX_WAYS` ways, or
used otherwise than called (passed on, stored), has none.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Alternatives, Frame, Unknown, Value

_MAX_WAYS = 4  # callers asked one by one (all levels together)
_LEVELS = 3  # callers of callers followed where an argument is not known


@dataclass(frozen=True)
class CallerWay:
    """One way a function runs: the calls that lead to it, the nearest first (each with the
    module holding it and the frame it is evaluated in on this way), and the frame of the
    function's body with that way's arguments."""

    calls: tuple[tuple[Module, ast.Call, Frame], ...]
    frame: Frame


def caller_ways(
    evaluator: Evaluator,
    module: Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    levels: int = _LEVELS,
) -> list[CallerWay]:
    """Each way the project calls `function` (none where jaxfix does not see every call, or
    sees more than `_MAX_WAYS` ways). An argument that is one of several values
    (`Alternatives`: a config picked from a registry by a name read at run time) makes one
    way per value."""
    is_method = isinstance(module.parents.get(function), ast.ClassDef)
    calls = evaluator.calls_of(module, function, on_objects=is_method)
    if isinstance(calls, Unknown) or not calls or len(calls) > _MAX_WAYS:
        return []
    ways: list[CallerWay] = []
    for caller, call, callee in calls:
        if callee is None:
            return []  # called through a decorator jaxfix does not see through
        here = evaluator.frame_at(caller, call)
        around: list[tuple[tuple[tuple[Module, ast.Call, Frame], ...], Frame]] = [
            ((), here)
        ]
        scope = caller.scope_of(call)
        if levels > 1 and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = evaluator.arguments(caller, call, callee, here)
            if isinstance(args, Unknown) or any(
                isinstance(value, Unknown) for _, value in args
            ):
                above = caller_ways(evaluator, caller, scope, levels - 1)
                if above:
                    around = [(way.calls, way.frame) for way in above]
        for calls_above, frame in around:
            bound = evaluator.arguments(caller, call, callee, frame)
            if isinstance(bound, Unknown):
                continue  # this way's arguments cannot be bound: not asked
            for one in _each_alternative(bound):
                ways.append(
                    CallerWay(
                        ((caller, call, frame), *calls_above),
                        Frame(function, module.path, one, callee.closure),
                    )
                )
            if len(ways) > _MAX_WAYS:
                return []
    return ways


def _each_alternative(
    bound: tuple[tuple[str, Value], ...],
) -> list[tuple[tuple[str, Value], ...]]:
    """`bound` with each `Alternatives` argument replaced by each of its values."""
    found: list[tuple[tuple[str, Value], ...]] = [()]
    for name, value in bound:
        values = value.values if isinstance(value, Alternatives) else (value,)
        found = [(*done, (name, v)) for done in found for v in values]
    return found
