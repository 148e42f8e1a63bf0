"""What surely raises under a legacy `with mesh:`: a call that needs JAX's context mesh, which
`Mesh.__enter__` does not set (it fills only `thread_resources`, which `pjit` reads).

Measured on jax 0.10.2 and 0.12.0.1: run with no other mesh context around the block,
`jax.jit(f, in_shardings=P("x"))(x)` (or its `out_shardings`, its `.lower(...)` or
`.trace(...)`) raises `RuntimeError: jit requires a non-empty mesh in context if you are
passing PartitionSpecs to in_shardings`, `jax.device_put(x, P("x"))` raises `ValueError: Please
set a mesh via jax.set_mesh if a PartitionSpec is passed to device_put`, and `jax.shard_map(f,
in_specs=..., out_specs=...)(x)` without `mesh=` raises `ValueError: The context mesh cannot be
empty`. `pjit` with PartitionSpecs runs there: it reads the old context.

A call counts where the engine shows all of it: the API (`jax.jit` as written, as a decorator,
or a jitted function the engine's value carries with its keywords), a bare `PartitionSpec`
among the values given, and a way the call runs (the engine's `ways_at`) that enters this
block and nothing that sets a context mesh (`jax.set_mesh`, `use_mesh`, `use_abstract_mesh`,
or a context manager it cannot see into). The calls looked at are the block's own, those of
the functions of the tree they call (`MAX_DEPTH` calls deep; an object called, its class's
`__call__`), and, for a block that yields in
a `@contextmanager` function, those of each `with` that enters it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.contexts import setting_site
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    BoundMethod,
    DictValue,
    Function,
    Instance,
    ListValue,
    Spec,
    Value,
)
from jaxfix.analysis.names import Api

MAX_DEPTH = 3
MAX_FUNCTIONS = 64
_JIT = "jax.jit"
_SHARDINGS = ("in_shardings", "out_shardings")
_STAGES = frozenset(
    {"lower", "trace"}
)  # `f.lower(x)` resolves the shardings as a call does
_Block = ast.With | ast.AsyncWith


@dataclass(frozen=True)
class Raising:
    """A call that raises under the block: where, and what JAX asks of the context there."""

    call: ast.Call
    path: Path
    text: str  # the call as written
    what: str


def raising_under(
    analysis: Analysis, statement: _Block, items: list[ast.withitem]
) -> Raising | None:
    """The first call under `statement` (entering the legacy meshes of `items`) that surely
    raises for want of a context mesh, or None."""
    entered = {id(item.context_expr) for item in items}
    for where, call in _calls_under(analysis, statement):
        what = needs_context_mesh(where, call)
        if what is not None and _runs_in(where, call, entered):
            return Raising(call, where.path, where.text(call), what)
    return None


def needs_context_mesh(analysis: Analysis, call: ast.Call) -> str | None:
    """What `call` gives JAX that needs a context mesh (`jit given a PartitionSpec in
    in_shardings`), or None where the engine does not show one."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _STAGES:
        func = func.value  # `jax.jit(f, in_shardings=P(...)).lower(x)`
    elif analysis.called_api(call) is Api.DEVICE_PUT:
        bound = analysis.bind(call)
        device = bound.get("device") if bound is not None else None
        if device is not None and isinstance(analysis.value_of(device), Spec):
            return "device_put given a PartitionSpec"
        return None
    if isinstance(func, ast.Call):
        return _applied(analysis, func)
    if isinstance(func, ast.Name):  # a def of the module, decorated
        definition = analysis.definition(func)
        if definition is not None:
            return _decorated(analysis, definition)
    value = analysis.value_of(func)
    function = value.function if isinstance(value, BoundMethod) else value
    if not isinstance(function, Function) or function.wrapped_by != "jit":
        return None
    if function.jit_keywords:  # `jax.jit(f, in_shardings=...)`, seen through names
        return (
            _spec_among(dict(function.jit_keywords))
            if function.jit_api == _JIT
            else None
        )
    module = analysis.engine.project.module(function.path)
    if not isinstance(module, Module) or isinstance(function.node, ast.Lambda):
        return None
    return _decorated(analysis.of(module), function.node)


def _decorated(
    analysis: Analysis, definition: ast.FunctionDef | ast.AsyncFunctionDef
) -> str | None:
    return next(
        (
            found
            for found in (_applied(analysis, d) for d in definition.decorator_list)
            if found is not None
        ),
        None,
    )


def _applied(analysis: Analysis, application: ast.expr) -> str | None:
    """What a `jax.jit(...)` / `jax.shard_map(...)` application (a call's callee, or a
    decorator) is given that needs a context mesh."""
    jit = analysis.jit_application(application)
    if jit is not None:
        if _jit_named(analysis, application) != _JIT:
            return None  # pjit reads the mesh of `with mesh:`
        return _spec_among(
            {
                k: analysis.value_of(v)
                for k, v in jit.keywords.items()
                if k in _SHARDINGS
            }
        )
    if not isinstance(application, ast.Call):
        return None
    if analysis.called_api(application) is Api.PARTIAL and application.args:
        if analysis.api_of(application.args[0]) is not Api.SHARD_MAP:
            return None
        keywords = {k.arg for k in application.keywords}
    elif analysis.called_api(application) is Api.SHARD_MAP:
        bound = analysis.bind(application)
        if bound is None:
            return None
        keywords = set(bound)
    else:
        return None
    if None in keywords or "mesh" in keywords:
        return None  # a mesh given (or maybe given by `**`)
    return "shard_map given no mesh"


def _jit_named(analysis: Analysis, application: ast.expr) -> str | None:
    """The qualified name of the jit an application calls (`jax.jit`, or a pjit)."""
    callee = application
    if isinstance(callee, ast.Call):
        partial = analysis.called_api(callee) is Api.PARTIAL
        callee = callee.args[0] if partial and callee.args else callee.func
    return analysis.qualified_name(callee)


def _spec_among(keywords: dict[str, Value]) -> str | None:
    for name in _SHARDINGS:
        if name in keywords and _holds_spec(keywords[name]):
            return f"jit given a PartitionSpec in {name}"
    return None


def _holds_spec(value: Value) -> bool:
    """Whether a sharding tree holds a bare PartitionSpec (not one inside a NamedSharding)."""
    if isinstance(value, Spec):
        return True
    if isinstance(value, tuple):
        return any(_holds_spec(v) for v in value)
    if isinstance(value, ListValue):
        return any(_holds_spec(v) for v in value.items)
    if isinstance(value, DictValue):
        return any(_holds_spec(v) for _, v in value.items)
    return False


def _runs_in(analysis: Analysis, call: ast.Call, entered: set[int]) -> bool:
    """Whether a way `call` runs enters one of the blocks' meshes and no context that sets
    JAX's context mesh."""
    return any(
        setting_site(way) is None and any(id(site.node) in entered for site in way)
        for way in analysis.ways_at(call)
    )


def _calls_under(
    analysis: Analysis, statement: _Block
) -> Iterator[tuple[Analysis, ast.Call]]:
    """The calls that may run under the block: its own, the ones of the blocks entering it
    (where it yields in a `@contextmanager` function), then those of the functions of the tree
    they call, breadth first."""
    queue: list[tuple[Analysis, ast.Call, int]] = [
        (analysis, c, 0) for c in _calls_in(statement.body)
    ]
    queue += [(where, c, 0) for where, c in _entering_blocks(analysis, statement)]
    seen: set[int] = set()
    index = 0
    while index < len(queue):
        where, call, depth = queue[index]
        index += 1
        yield where, call
        if depth >= MAX_DEPTH or len(seen) >= MAX_FUNCTIONS:
            continue
        value = where.value_of(call.func)
        if isinstance(value, Instance):  # `pipeline(latents)`: its class's `__call__`
            value = where.engine.evaluator.attribute(value, "__call__", call)
        function = value.function if isinstance(value, BoundMethod) else value
        if (
            not isinstance(function, Function)
            or function.wrapped_by is not None
            or isinstance(function.node, ast.Lambda)
            or id(function.node) in seen
        ):
            continue
        seen.add(id(function.node))
        module = where.engine.project.module(function.path)
        if isinstance(module, Module):
            queue += [
                (where.of(module), c, depth + 1) for c in _calls_in(function.node.body)
            ]


def _entering_blocks(
    analysis: Analysis, statement: _Block
) -> Iterator[tuple[Analysis, ast.Call]]:
    """For a block that yields in a `@contextmanager` function, the calls of each `with`
    of the project entering that function."""
    scope = _yielding_in(analysis, statement)
    running = analysis.calls_running(scope) if scope is not None else None
    if not isinstance(running, list):
        return
    for module, node in running:
        item = module.parents.get(node)
        block = module.parents.get(item) if isinstance(item, ast.withitem) else None
        if isinstance(block, (ast.With, ast.AsyncWith)):
            where = analysis.of(module)
            yield from ((where, c) for c in _calls_in(block.body))


def entered_unseen(analysis: Analysis, statement: _Block) -> str | None:
    """Where the block yields in a function whose users jaxfix cannot find: what `-v` says
    about a block under which no raising call was seen."""
    scope = _yielding_in(analysis, statement)
    if scope is None:
        return None
    running = analysis.calls_running(scope)
    if isinstance(running, list):
        return None
    return (
        f"the block yields in `{scope.name}`, and jaxfix cannot tell what runs under it "
        f"({running.why})"
    )


def _yielding_in(
    analysis: Analysis, statement: _Block
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function the block yields in (a `@contextmanager` one: its users run there)."""
    scope = analysis.module.scope_of(statement)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(statement.body)
    ):
        return scope
    return None


def _calls_in(statements: list[ast.stmt]) -> list[ast.Call]:
    return [n for n in _own_nodes(statements) if isinstance(n, ast.Call)]


def _own_nodes(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of `statements` in source order, outside the functions, lambdas and classes
    they define (which do not run there)."""
    stack: list[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(
            reversed(
                [
                    child
                    for child in ast.iter_child_nodes(node)
                    if not isinstance(
                        child,
                        (
                            ast.FunctionDef,
                            ast.AsyncFunctionDef,
                            ast.Lambda,
                            ast.ClassDef,
                        ),
                    )
                ]
            )
        )
