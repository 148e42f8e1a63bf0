"""Where the trail of a value ended: what `-v` prints for a call a rule looked at and left.

An `Unknown` carries why (its `why`) and where (`where`: the file and line of the innermost
expression whose value it became; the evaluator sets it, and a value made from an unknown one,
`.attr` of it, an item of it, a call of it or a conversion of it (`np.array(x)`, `int(x)`,
`math.prod(x)`: vocabulary.py), keeps its place). A `Mesh` whose sizes are not known keeps the
unknown size it was given (`sizes_lost`). These functions only put that into words: the value
as the code reaches the asked node, the step where jaxfix lost it, and why.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Protocol

from jaxfix.analysis.ast_engine.contexts import Entry, Site, Way
from jaxfix.analysis.ast_engine.placement import arguments_of
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    Array,
    DictValue,
    Instance,
    Items,
    Leaves,
    ListValue,
    Mesh,
    MeshContext,
    ShapeStruct,
    Sharding,
    Unknown,
    Value,
)
from jaxfix.ground.quoting import cut

_TEXT = 60  # characters of code quoted


class TrailQuestions(Protocol):
    """What the trail asks of the module's analysis."""

    @property
    def path(self) -> Path: ...

    def value_of(self, expr: ast.expr) -> Value: ...

    def text(self, node: ast.AST) -> str: ...

    def place(self, node: ast.AST) -> tuple[Path, int] | None: ...

    def pytree_children(self, value: Value) -> tuple[Value, ...] | None: ...

    def function_of(
        self, node: ast.AST
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None: ...

    def is_parameter(
        self, name: ast.Name, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> bool: ...

    def calls_passing(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[Module, ast.Call]] | Unknown: ...

    def of(self, module: Module) -> TrailQuestions: ...

    def is_jitted(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool: ...


def value_trail(
    analysis: TrailQuestions, expr: ast.expr, role: str, *, traced: bool = False
) -> str | None:
    """Why the mesh `expr` stands for (`role`: "the inner mesh") is not known, from the value
    the engine gives it; None when its mesh and sizes are known. `traced`: `expr` is a traced
    argument, a pytree whose leaves' meshes are asked (an object whose children jaxfix does
    not know is then where the trail ended)."""
    written = f"`{_code(analysis, expr)}`"
    return lost(
        analysis, analysis.value_of(expr), role, written, traced=traced, reached=expr
    )


def lost(
    analysis: TrailQuestions,
    value: Value,
    role: str,
    written: str,
    *,
    traced: bool = False,
    reached: ast.expr | None = None,
) -> str | None:
    """Why the mesh in `value` (reached as `written`, the expression `reached`) is not known; None
    when it is. A container, or an object of a registered pytree, says why of the first of
    its items whose mesh is not known."""
    mesh = _mesh_in(value)
    items = _items(analysis, mesh)
    if items is not None:
        for item in items:
            said = lost(analysis, item, role, written, traced=traced, reached=reached)
            if said is not None:
                return said
        return None
    if traced and isinstance(mesh, Instance):
        built = analysis.place(mesh.origin) if mesh.origin is not None else None
        at = f" built at {_where(analysis, built)}" if built is not None else ""
        return (
            f"{role} reaches here as {written}, an object of `{mesh.cls.node.name}`{at} "
            "whose children as a pytree jaxfix does not know (it reads those of a class "
            "registered by jax.tree_util's register_* at the top of its module)"
        )
    if isinstance(mesh, Unknown):
        written += _passed(analysis, reached, mesh)
        return f"{role} reaches here as {written}; {_ended(analysis, mesh)}"
    if not isinstance(mesh, Mesh) or mesh.size is not None or mesh.is_empty:
        return None
    if mesh.sizes_lost is not None:
        written += _passed(analysis, reached, mesh.sizes_lost)
    built = analysis.place(mesh.origin) if mesh.origin is not None else None
    where = f" built at {_where(analysis, built)}" if built is not None else ""
    said = f"{role} reaches here as {written}, a mesh{where} whose axis sizes jaxfix does not know"
    if mesh.sizes_lost is None:
        return said
    return f"{said}; {_ended(analysis, mesh.sizes_lost)}"


def _passed(analysis: TrailQuestions, at: ast.expr | None, end: Unknown) -> str:
    """What to add to how the value reaches `at` (", from `x`, the parameter of the jitted
    `step` (line 7) that main.py:11 passes as `batch`"): the step of the call chain it took
    into the function `at` is in, where it was lost outside that function (else nothing). A
    parameter is named when its own value was lost at the same place for the same reason;
    the call, when it is the one call of the function whose argument was."""
    function = analysis.function_of(at) if at is not None else None
    if at is None or function is None or end.where is None:
        return ""
    path, line = end.where
    defined = analysis.place(function)
    if defined is None or (
        defined[0] == path
        and function.lineno <= line <= (function.end_lineno or function.lineno)
    ):
        return ""  # lost in the function itself: its own steps say where
    name = _parameter_carrying(analysis, function, end)
    if name is None:
        return ""
    jitted = "the jitted " if analysis.is_jitted(function) else ""
    said = (
        "" if isinstance(at, ast.Name) and at.id == name else f", from `{name}`"
    ) + f", the parameter of {jitted}`{function.name}` ({_where(analysis, defined)})"
    call = _call_passing(analysis, function, name, end)
    if call is not None:
        caller, argument, place = call
        said += f" that {_where(analysis, place)} passes as `{_code(caller, argument)}`"
    return said


def _parameter_carrying(
    analysis: TrailQuestions,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    end: Unknown,
) -> str | None:
    """The parameter of `function` whose value (read in its body) was lost where `end` was,
    for the same reason."""
    a = function.args
    for parameter in (*a.posonlyargs, *a.args, *a.kwonlyargs):
        read = next(
            (
                n
                for n in ast.walk(function)
                if isinstance(n, ast.Name)
                and n.id == parameter.arg
                and isinstance(n.ctx, ast.Load)
                and analysis.is_parameter(n, function)
            ),
            None,
        )
        if read is None:
            continue
        if _same_end(_end(analysis, analysis.value_of(read)), end):
            return parameter.arg
    return None


def _call_passing(
    analysis: TrailQuestions,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    end: Unknown,
) -> tuple[TrailQuestions, ast.expr, tuple[Path, int]] | None:
    """The one call of `function` whose argument for `name` was lost where `end` was: its
    module's analysis, the argument and the call's place; None when there is not one."""
    calls = analysis.calls_passing(function)
    if isinstance(calls, Unknown):
        return None
    found = []
    for module, call in calls:
        bound = arguments_of(call, function)
        argument = bound.get(name) if bound is not None else None
        caller = analysis.of(module)
        place = caller.place(call)
        if argument is None or place is None:
            return None  # a call whose argument is not written: not one sure step
        if _same_end(_end(caller, caller.value_of(argument)), end):
            found.append((caller, argument, place))
    return found[0] if len(found) == 1 else None


def _end(analysis: TrailQuestions, value: Value) -> Unknown | None:
    """Where the mesh in `value` was lost (as `lost` finds it), else None."""
    mesh = _mesh_in(value)
    items = _items(analysis, mesh)
    if items is not None:
        for item in items:
            found = _end(analysis, item)
            if found is not None:
                return found
        return None
    if isinstance(mesh, Unknown):
        return mesh
    if isinstance(mesh, Mesh) and mesh.size is None and not mesh.is_empty:
        return mesh.sizes_lost
    return None


def _same_end(found: Unknown | None, end: Unknown) -> bool:
    return found is not None and found.where == end.where and found.why == end.why


def _items(analysis: TrailQuestions, value: Value) -> tuple[Value, ...] | None:
    """The items of a container, or the children of an object of a registered pytree."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, ListValue):
        return value.items
    if isinstance(value, DictValue):
        return tuple(v for _, v in value.items)
    if isinstance(value, Instance):
        return analysis.pytree_children(value)
    return None


def context_trail(analysis: TrailQuestions, ways: list[Way], role: str) -> str | None:
    """Why the mesh context in force (`role`) is not known on some way the node runs: a
    context manager jaxfix cannot see into, or a context whose mesh it does not know; None
    when every way's is known."""
    for way in ways:
        for site in reversed(way):
            if not site.sets_context_mesh:
                continue
            said = _site_trail(analysis, site, role)
            if said is not None:
                return said
            break  # the innermost mesh context decides this way
    return None


def _site_trail(analysis: TrailQuestions, site: Site, role: str) -> str | None:
    node = site.entered_by or site.call or site.node
    place = analysis.place(node)
    entered = f"`{_code(analysis, node)}`" + (
        f" ({_where(analysis, place)})" if place is not None else ""
    )
    if site.api is None:
        mesh = site.mesh
        why = f": {mesh.why}" if isinstance(mesh, Unknown) else ""
        function = site.node
        if site.entry is Entry.USE and isinstance(
            function, (ast.FunctionDef, ast.AsyncFunctionDef)
        ):  # the function's callers, not a context manager
            at = f" ({_where(analysis, place)})" if place is not None else ""
            return (
                f"{role} is the one around each call of `{function.name}`{at}, and "
                f"jaxfix does not see every call{why}"
            )
        return f"{role} may be set by {entered}, a context manager jaxfix does not see into{why}"
    return lost(analysis, site.mesh, role, f"the mesh entered by {entered}")


def _mesh_in(value: Value) -> Value:
    """The mesh a context, sharding, shape struct or placed array is on (else `value`)."""
    for _ in range(5):
        if isinstance(value, (MeshContext, Sharding)):
            value = value.mesh
        elif isinstance(value, ShapeStruct):
            value = value.sharding
        elif isinstance(value, Array):
            value = value.sharding
        elif isinstance(value, Leaves):
            value = value.leaf
        elif isinstance(value, Items):
            value = value.item
        else:
            break
    return value


def _ended(analysis: TrailQuestions, unknown: Unknown) -> str:
    at = f" at {_where(analysis, unknown.where)}" if unknown.where is not None else ""
    return f"jaxfix lost it{at}: {unknown.why}"


def _code(analysis: TrailQuestions, node: ast.AST) -> str:
    return cut(" ".join(analysis.text(node).split()), _TEXT)


def _where(analysis: TrailQuestions, place: tuple[Path, int]) -> str:
    """`line 12` in the asked module, else `pkg/config.py:12` from the directory both share."""
    path, line = place
    here = os.path.abspath(analysis.path)
    there = os.path.abspath(path)
    if there == here:
        return f"line {line}"
    root = os.path.commonpath([os.path.dirname(there), os.path.dirname(here)])
    return f"{Path(os.path.relpath(there, root)).as_posix()}:{line}"
