"""JAX001: lowering a jitted computation whose only meshes are AbstractMesh needs lowering_platforms."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.contexts import Entry, Site
from jaxfix.analysis.ast_engine.evidence import (
    Confirmed,
    changed_since_the_log,
    contradicts,
)
from jaxfix.analysis.ast_engine.jitting import JitApplication
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    Array,
    AxisType,
    BoundMethod,
    DictValue,
    Function,
    Items,
    Jitted,
    Leaves,
    ListValue,
    Mesh,
    ShapeStruct,
    Sharding,
    Structs,
    Unknown,
    Value,
)
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule, keyword_arg
from jaxfix.codemods.text import not_fixed
from jaxfix.evidence.facts import Evidence, MeshFacts, Origin
from jaxfix.ground.diagnostics import Fix, Location, Related, Safety
from jaxfix.ground.quoting import cut
from jaxfix.settings.rule_settings import RuleSetting

if (
    TYPE_CHECKING
):  # the fixes' edits import it when they run: a run with no fix needs none
    import libcst as cst

# How the message names the primitives that need devices at lowering.
_DEVICE_PRIMITIVES = {
    Api.PURE_CALLBACK: "jax.pure_callback",
    Api.IO_CALLBACK: "jax.experimental.io_callback",
    Api.INSPECT_ARRAY_SHARDING: "jax.debug.inspect_array_sharding",
}
_DEVICE_APIS = frozenset(
    {Api.DEVICE_PUT, Api.MAKE_MESH, Api.MESH, Api.SET_MESH, Api.USE_MESH}
)
# jax.jit keywords that cannot bring devices in; `device=` and `backend=` can.
_DEVICE_FREE_JIT_KEYWORDS = frozenset(
    {
        "in_shardings",
        "out_shardings",
        "static_argnums",
        "static_argnames",
        "donate_argnums",
        "donate_argnames",
        "keep_unused",
        "inline",
        "compiler_options",
    }
)
_SHAPE_DTYPE_STRUCT_KEYWORDS = frozenset({"shape", "dtype", "sharding", "weak_type"})
_MAX_TEXT = 40
_JAX_ERROR = (
    "'Passing lowering_platforms ... is required when only AbstractMesh exists'"
)


KNOWN_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def _platforms(values: list[str]) -> tuple[str, ...]:
    for platform in values:
        if platform not in KNOWN_PLATFORMS:
            raise ValueError(
                f"unknown platform '{platform}' (valid: {', '.join(KNOWN_PLATFORMS)})"
            )
    return tuple(values)


@dataclass(frozen=True)
class _Jitted:
    """A `jax.jit` application: its keywords and the function, when the module shows it; or,
    for a jitted function the engine reached elsewhere (returned by another module's call),
    its keywords' values (`values`)."""

    keywords: Mapping[str, ast.expr]
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None
    values: Mapping[str, Value] | None = None
    # The module's questions where `function` is defined, when another module (a model
    # module's `@jax.jit def forward`, imported by an export script): its body is read there.
    where: Analysis | None = None
    # `jax.jit(self.method, ...)`: the method's first parameter is bound, not traced
    bound: bool = False

    def keyword(self, analysis: Analysis, name: str) -> tuple[bool, Value]:
        """Whether jit was given keyword `name`, and its value."""
        if name in self.keywords:
            return True, analysis.value_of(self.keywords[name])
        if self.values is not None and name in self.values:
            return True, self.values[name]
        return False, None


@dataclass(frozen=True)
class _Valued:
    """A traced argument known by its value only (an item of `*args` or `**kwargs`), and how
    the message names it."""

    value: Value
    text: str


@dataclass(frozen=True)
class _Found:
    """An abstract mesh an argument or sharding is on, and how the message names it; the
    argument sharded on it, when it is one the code passes."""

    mesh: Mesh
    text: str
    argument: ast.expr | None = None
    # in a collection that may be empty (`Items`): it may be in play, and proves nothing
    maybe: bool = False


@dataclass(frozen=True)
class _AbstractOnly:
    """Why only AbstractMesh is in play (from the code, or from a log), JAX's context mesh,
    and the mesh size if known."""

    reason: str
    context: Mesh | None
    size: int | None
    logged: str = ""  # from a log: where it shows JAX raised here
    # the mesh in play whose size is not known, and how the message names it
    unsized: _Found | None = None
    # from a recorded run: where it built the meshes of the lowering's argument shardings
    related: tuple[Related, ...] = ()


@dataclass(frozen=True)
class _Context:
    """JAX's abstract context mesh at a node (None: none), as far as known, and the innermost
    site entering a mesh there (on the first way it runs)."""

    known: bool
    mesh: Mesh | None = None
    site: Site | None = None


def _imported_name(analysis: Analysis, name: ast.Name) -> str | None:
    """The name `from m import x as name` imports (`x`), when that is what binds `name`."""
    for node in analysis.module.tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name.id:
                    return alias.name
    return None


def _rebound_jit(
    where: Analysis, module: Module, name: str | None
) -> JitApplication | None:
    """`name = jax.jit(f, ...)` at the top of `module`, when that is the one statement of the
    module binding `name` anywhere (so it is what an import of it gets)."""
    if name is None:
        return None
    bindings = [
        node
        for node in ast.walk(module.tree)
        if (
            isinstance(node, ast.Name)
            and node.id == name
            and not isinstance(node.ctx, ast.Load)
        )
        or (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.name == name
        )
        or (
            isinstance(node, (ast.Import, ast.ImportFrom))
            and any((a.asname or a.name).split(".")[0] == name for a in node.names)
        )
        or (isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names)
    ]
    if len(bindings) != 1:
        return None
    for statement in module.tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and statement.targets[0] is bindings[0]
            and isinstance(statement.value, ast.Call)
        ):
            return where.jit_application(statement.value)
    return None


def _parsed(text: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def edit(_: cst.CSTNode) -> cst.CSTNode:
        import libcst as cst

        return cst.parse_expression(text)

    return edit


def _inside_func(node: ast.AST, expr: ast.expr) -> bool:
    """Whether `node` is part of `expr`'s called function (`jax` and `jit` of `jax.jit(f)`)."""
    return isinstance(expr, ast.Call) and any(n is node for n in ast.walk(expr.func))


def _read_again_alike(expr: ast.expr, analysis: Analysis) -> bool:
    """A name or attribute chain on one, or `jax.jit(...)` of such arguments and constant
    keywords: evaluated again when the partial is called, the same jitted function."""
    if isinstance(expr, ast.Call):
        if analysis.called_api(expr) is not Api.JIT:
            return False
        return all(_read_again_alike(a, analysis) for a in expr.args) and all(
            k.arg is not None and isinstance(k.value, (ast.Constant, ast.Tuple))
            for k in expr.keywords
        )
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name)


def _short(text: str) -> str:
    return cut(" ".join(text.split()), _MAX_TEXT)


def _appended(args: Sequence[cst.Arg], new: cst.Arg) -> list[cst.Arg]:
    """`args` and `new` last, laid out as the call was: after a trailing comma, on the line
    the closing parenthesis had; else after the last argument, which keeps what followed it."""
    import libcst as cst

    if not args:
        return [new]
    last = args[-1]
    between = (
        args[-2].comma.whitespace_after
        if len(args) > 1 and isinstance(args[-2].comma, cst.Comma)
        else cst.SimpleWhitespace(" ")
    )
    if isinstance(last.comma, cst.Comma):  # `f(\n  a,\n  b,\n)`
        return [
            *args[:-1],
            last.with_changes(comma=last.comma.with_changes(whitespace_after=between)),
            new.with_changes(comma=last.comma),
        ]
    return [
        *args[:-1],
        last.with_changes(
            comma=cst.Comma(whitespace_after=between),
            whitespace_after_arg=cst.SimpleWhitespace(""),
        ),
        new.with_changes(whitespace_after_arg=last.whitespace_after_arg),
    ]


def _is_none(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _or_else(
    passed: cst.BaseExpression, fallback: cst.BaseExpression
) -> cst.BooleanOperation:
    """`passed or fallback`, `passed` in parentheses where `or` would bind into it."""
    import libcst as cst

    if (
        isinstance(passed, (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr))
        and not passed.lpar
    ):
        passed = passed.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BooleanOperation(left=passed, operator=cst.Or(), right=fallback)


def _keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def _tuple_text(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _shape_text(
    sizes: tuple[int | None, ...] | None, names: tuple[str, ...] | None
) -> str:
    """'(8, 4) ('data', 'model')', with '?' for what is unknown."""
    size_text = (
        "?"
        if sizes is None
        else _tuple_text(["?" if s is None else str(s) for s in sizes])
    )
    name_text = "?" if names is None else _tuple_text([repr(n) for n in names])
    return f"{size_text} {name_text}"


def _mesh_shape(mesh: Mesh | MeshFacts) -> str:
    return _shape_text(mesh.axis_sizes, mesh.axis_names)


def _logged_text(mesh: MeshFacts, *, kind: bool = False) -> str:
    """The log's context mesh in a message: 'the [abstract] one (2, 4) ('x', 'y')'."""
    if mesh.is_empty:
        return "an empty one"
    shape = _mesh_shape(mesh)
    return f"the {mesh.kind} one {shape}" if kind else f"the one {shape}"


def _explicit(mesh: Mesh) -> bool | None:
    return None if mesh.axis_types is None else AxisType.EXPLICIT in mesh.axis_types


def _equal(a: Mesh, b: Mesh) -> bool:
    """Surely the same mesh as JAX compares them (everything known and alike)."""
    return (
        a.axis_names is not None
        and a.axis_sizes is not None
        and None not in a.axis_sizes
        and a.axis_types is not None
        and a == b
    )


class MissingLoweringPlatforms(Rule):
    """
    ## What it does
    Finds `.lower()` calls on a jitted function whose shardings involve only `AbstractMesh`es:
    `jax.jit(f).trace(*args).lower()` and `jax.jit(f).lower(*args)`, with the jitted function
    reached directly, through a name (`g = jax.jit(f)`, `@jax.jit`, `@jit`,
    `@partial(jax.jit, ...)`, `pjit(f)`), imported from another module of the project that
    jits it so (`@jax.jit def forward`, or `forward = jax.jit(_forward)` as the name's one
    binding there: a model module lowered by an export script), a method jitted with
    `@partial(jax.jit, static_argnames=("self",))` lowered through its class
    (`Model.forward.lower(model, x)`), `jax.jit(self.method, ...)` reached through an instance
    (a `cached_property`, an attribute `__init__` sets), an item of a dict of jitted steps,
    a jitted function a helper is given (`fn.lower(*args)` in a module that never names jit),
    `jax.jit(func, ...)` of a helper's parameter (the function its callers give, its body
    checked), or with the traced stage kept in a variable. It adds
    `lowering_platforms=(jax.export.default_export_platform(),)` (or the `--platform` tuple).

    It fires only when the project shows that no device is in play: every argument is a
    `jax.ShapeDtypeStruct` unsharded or sharded with `NamedSharding(abstract_mesh, ...)` (as
    written, or as the engine evaluates it: a parameter from its callers, a factory's result,
    `self.mesh`, what `jax.eval_shape` returns under an Explicit abstract mesh), or
    brings no devices (a Python number, NumPy data, a `jnp.arange`/`ones`/`zeros`/... array
    without `device=`, `jax.device_put(x)` without a device or sharding; see
    [docs/engine.md](../engine.md)), `in_shardings`/`out_shardings` are absent or on
    abstract meshes, the function body (when visible) uses no concrete mesh, sharding or
    `device_put`, no mesh other than `use_abstract_mesh` may be current at the `.trace()`, and
    either a sharding names an abstract mesh or the enclosing `use_abstract_mesh(M)` is JAX's
    context mesh (M has an `Explicit` axis; `AbstractMesh` axes default to `Auto` before jax
    0.11 and to `Explicit` since, see `--jax-version`). A context mesh carrying an abstract
    device (`abstract_device=`, `concrete_mesh.abstract_mesh`) gives JAX the platform: no report.
    Nor when the abstract meshes in play differ in size, or may (a size the module does not
    show, on more than one mesh): JAX then raises "AbstractMesh should be of the same size
    across all shardings" first; nor when they are not all one mesh and one may have a
    non-Auto axis: an operation on arguments of different meshes then raises "Mesh for all
    inputs should be equal".

    Deliberately not reported, since a concrete mesh may then supply the devices: a module that
    calls `jax.set_mesh(m)` or `use_mesh(m)` outside a `with` item or `enter_context` (a global
    setter) anywhere; and a `.trace()` where a mesh context other than `use_abstract_mesh` is
    or may be in force on some way it runs: `with mesh:`, `jax.set_mesh`/`use_mesh`, or a
    context manager, setUp, decorator, caller or use of its function that may enter one, or
    that the engine does not follow to one mesh (what it follows and what it does not:
    [docs/engine.md](../engine.md)). A decorator (of this module or another) whose wrapper
    calls the function inside `use_abstract_mesh(M)`, or a caller that does, counts as that
    context, as if entered around the `.trace()`; the ways the `.trace()` runs must agree on
    it. A function never used under a mesh context is still reported.

    An op that computes eagerly (`jax.random.key(0)`, `jnp.ones(...)`, `jnp.asarray(...)` of
    host data) at module level under `use_abstract_mesh(M)`, M with an `Explicit` axis (with an
    abstract device too: it gives no platform to an eager op), raises the same error with no
    `.lower()` in sight (JAX lowers it on the context mesh): it is reported, without a fix
    (which mesh to run it under is the user's choice). Code in a function is not: it may be
    traced, and then lowers nothing eagerly.

    From a recorded run (`jaxfix repair`, `--from-log`, `--evidence`) that raised at the call
    of a `functools.partial` of a jitted function's `.lower` (`lower = partial(jax.jit(f).lower,
    params)`, or a `cached_property` returning one), the partial's function is rewritten to
    trace, then lower with the platforms (`lambda *args, **kwargs: jax.jit(f).trace(*args,
    **kwargs).lower(lowering_platforms=...)`), so every call of the partial goes through there
    (the jitted expression is then read when the partial is called: unsafe when it reads an
    attribute or a name bound more than once, which may hold another function by then).

    When the lowered function visibly calls `jax.pure_callback`, `io_callback` or
    `jax.debug.inspect_array_sharding`, it reports JAX's other error instead, without a fix.

    ## Why is this bad?
    With no device to take the platform from, lowering raises
    `ValueError: Passing lowering_platforms via jax.export or
    jit(f).trace(*args).lower(lowering_platforms=...) is required when only AbstractMesh exists
    in a jitted computation. Got context mesh: ...`. Host callbacks need devices even then:
    `ValueError: AbstractMesh cannot be used when jaxpr contains primitives that require
    devices to be present during lowering.`

    ## Example
    ```python
    mesh = AbstractMesh((2, 4), ("x", "y"))
    x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))
    lowered = jax.jit(f).lower(x)
    ```

    ## Use instead
    ```python
    lowered = jax.jit(f).trace(x).lower(lowering_platforms=(jax.export.default_export_platform(),))
    ```
    or export, which picks the platform itself: `jax.export.export(jax.jit(f))(x)`.

    `jax.jit(f).lower(x, lowering_platforms=...)` would not work: `jit(f).lower` passes keywords
    on to `f`. A `.compile()` of the result then needs `device_assignment=`.

    ## Fix safety
    Safe: the call raised on every run, so no behavior that worked changes; the default value
    is the platform `jax.export` itself uses. Rewriting `jit(f).lower(*a, **k)` to
    `jit(f).trace(*a, **k).lower(...)` is safe too, since `lower` is documented as that very
    shortcut. `import jax` is added when missing. When a `.compile()` without
    `device_assignment=` follows (chained, or on the variable holding the lowered stage), it
    would raise `device_assignment cannot be None` after the fix: the fix then also adds
    `device_assignment=tuple(jax.devices()[:N])`, N being the abstract mesh's size, and is
    unsafe (which devices to use is the user's choice). Where the code does not show N (a
    size from the environment) but names the mesh (`mesh`, one name bound once in the
    function that lowers and compiles), N is `mesh.size`, read when it runs, else
    `x.sharding.mesh.size` of an argument `x` so named (a ShapeDtypeStruct or an array);
    otherwise there is no fix (lowering_platforms alone would only move the error to the
    compile). Mesh
    contexts around the `.trace()` or around any caller of the enclosing function in the
    project's files (whatever paths jaxfix is given), and global `jax.set_mesh` calls, silence
    the rule; a caller outside the project that enters a mesh context is not seen, and there
    the explicit platform overrides the one that context would give.

    A `lowering_platforms=p` whose `p` is None where it runs (the engine shows it, as a
    class attribute left at `None` read through a method; or a recorded run raised there
    and the engine shows no value) becomes `lowering_platforms=p or (...)`: unsafe, as `p`
    is the code's own setting, kept wherever it is not None (JAX raises only for None).

    ## References
    - `lower_sharding_computation` in jax/_src/interpreters/pxla.py (jax 0.10.2 and 0.12.0.1),
      which raises both errors.
    - `Traced.lower` in jax/_src/stages.py, which takes the platform from the context mesh's
      abstract device; `get_ctx_mesh` in jax/_src/pjit.py, which uses an abstract context mesh
      only when it has an Explicit axis.
    """

    code = "JAX001"
    name = "missing-lowering-platforms"
    summary = "lowering with only AbstractMesh shardings needs lowering_platforms"
    settings = (
        RuleSetting(
            "platforms",
            list,
            (),
            "lowering_platforms for JAX001's fixes: cpu, cuda, rocm, tpu (default: "
            "`(jax.export.default_export_platform(),)`)",
            "a list of platform names",
            parse=_platforms,
            flag="--platform",
            metavar="NAME",
        ),
    )
    fixes = {
        Safety.SAFE: "add lowering_platforms (`jit(f).lower(x)` becomes `jit(f).trace(x).lower(...)`)",
        Safety.UNSAFE: "also add device_assignment when a `.compile()` follows; "
        "`lowering_platforms=p or (...)` where the `p` passed is None",
    }
    # jit or pjit and a `.lower(` call (whitespace, comments and line continuations allowed
    # around `lower`, and the `\n", "` of a notebook's JSON, whose raw bytes the runner
    # prefilters): the meshes may come from another module. Or a `.lower(` beside an abstract
    # mesh or a shape struct (the jitted function imported from a model module). Or
    # `use_abstract_mesh` (an eager op under it). Or `.lower(*` (a helper given the function).
    tokens = (
        (
            rb"\bp?jit\b",
            rb"\.(?:\s|\\[nrt]?|[\",]|#[^\r\n]*(?![^\r\n]))*lower(?:\s|\\[nrt]?|[\",]|#[^\r\n]*(?![^\r\n]))*\(",
        ),
        (
            rb"\b(?:AbstractMesh|abstract_mesh|ShapeDtypeStruct|eval_shape)\b",
            rb"\.(?:\s|\\[nrt]?|[\",]|#[^\r\n]*(?![^\r\n]))*lower(?:\s|\\[nrt]?|[\",]|#[^\r\n]*(?![^\r\n]))*\(",
        ),
        (rb"use_abstract_mesh",),
        # `fn.lower(*args)` on a jitted function the module is given (a parameter: an AOT or
        # logging helper that never names jit); a string's `.lower()` takes no argument
        (rb"\.lower\(\*",),
    )
    raises = (
        "Passing lowering_platforms via jax.export or jit(f).trace(*args).lower(lowering_platforms=...) is "
        "required when only AbstractMesh exists in a jitted computation. Got context mesh: {mesh:context?}",
        "AbstractMesh cannot be used when jaxpr contains primitives that require devices to be present during lowering.",
    )
    raised_in = ("jax/_src/interpreters/pxla.py",)
    mesh_locals = {"context": "context_mesh", "argument": "unique_in_shardings[*].mesh"}

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr != "lower":
            if not self._partial_lower(node):
                self._check_eager(node)
            return
        stage = self.analysis.written_as(func.value)
        reported = len(self.reports)
        trace = node  # `jit(f).lower(x)` traces and lowers in one call
        jitted_expr = func.value
        traced = False
        if (
            isinstance(stage, ast.Call)
            and isinstance(stage.func, ast.Attribute)
            and stage.func.attr == "trace"
        ):  # `jit(f).trace(x).lower()`
            traced, trace, jitted_expr = True, stage, stage.func.value
        jitted = self._jitted(jitted_expr)
        confirmed = self.analysis.confirmed(node, self.code)
        changed = self._changed(trace, confirmed) if confirmed is not None else None
        if (
            changed is not None
        ):  # the log is about other code: no fix, whatever the code shows
            self.report(node, changed)
            return
        self._check(node, trace, jitted, rewrite_to_trace=not traced)
        if confirmed is not None and len(self.reports) == reported:
            # It raised, yet the code does not show why: ask again with the log's answer.
            self._check(
                node, trace, jitted, rewrite_to_trace=not traced, confirmed=confirmed
            )

    # -- an eager op under an abstract-only context -----------------------------------------

    def _partial_lower(self, call: ast.Call) -> bool:
        """A call the run raised JAX001 at, of a `functools.partial` of a jitted function's
        `.lower` (`lower = partial(jax.jit(f).lower, params)`, then `lower(x)`; the partial
        bound to a name, or stored once in an attribute of `self` by the class): the
        partial's function is rewritten to trace, then lower with lowering_platforms
        (`lambda *args, **kwargs: jax.jit(f).trace(*args, **kwargs).lower(lowering_platforms=
        ...)`), which every call of the partial goes through; the jitted expression (a name,
        an attribute chain, or `jax.jit(...)` of such) is read when the partial is called.
        Only from a run: the code alone does not show what the partial is called under.
        Whether it was handled (reported)."""
        if not any(
            e.code == self.code
            and call.lineno <= e.line <= (call.end_lineno or call.lineno)
            for e in self.analysis.evidence.evidence
        ):
            return False  # (the static road, or no record of this line: nothing read)
        partial = self._partial_assigned(call.func)
        if partial is None:
            return False
        confirmed = self.analysis.confirmed(call, self.code)
        if confirmed is None:
            return False
        lower = partial.args[0]
        assert isinstance(lower, ast.Attribute)
        jitted_expr = lower.value
        if not _read_again_alike(jitted_expr, self.analysis):
            self.report(
                call,
                f"`.lower()` of the partial `{_short(self.analysis.text(partial))}` needs "
                f"lowering_platforms (the log shows JAX raised it here, {confirmed.where}); not "
                "fixed: the jitted function is an expression the fix would evaluate at each call",
            )
            return True
        jitted = self._jitted(jitted_expr)
        body = (
            self._body_uses(jitted.function, jitted.where or self.analysis)
            if jitted is not None
            else []
        )
        if body:
            self.report(
                call,
                f"{body[0]} needs devices at lowering, and the log shows only AbstractMesh in "
                f"play ({confirmed.where}): adding lowering_platforms would make JAX raise "
                "'AbstractMesh cannot be used when jaxpr contains primitives that require "
                "devices'; lower with a concrete mesh (jax.make_mesh shardings or "
                "jax.set_mesh) instead",
            )
            return True
        value, imports = self._platforms_value()
        text = (
            f"lambda *args, **kwargs: {self.analysis.text(jitted_expr)}.trace(*args, "
            f"**kwargs).lower(lowering_platforms={value})"
        )
        self.report(
            call,
            f"this call runs `{_short(self.analysis.text(lower))}` through the partial "
            f"`{_short(self.analysis.text(partial))}` (line {self.analysis.line(partial)}), "
            f"which needs lowering_platforms: the log shows only AbstractMesh in play "
            f"({confirmed.where}), so JAX raises {_JAX_ERROR}",
            fix=Fix(
                f"make the partial trace, then lower with lowering_platforms={value}",
                ((lower, _parsed(text)),),
                # read when the partial is called, not when it is made: the same function
                # where every name it reads is bound once (an attribute may be set again)
                Safety.SAFE
                if all(
                    isinstance(n, ast.Name) and self.analysis.bound_once(n)
                    for n in ast.walk(jitted_expr)
                    if isinstance(n, (ast.Name, ast.Attribute))
                    and not _inside_func(n, jitted_expr)
                )
                else Safety.UNSAFE,
                imports,
            ),
            related=(
                Related(
                    "the partial is made here",
                    Location(self.analysis.line(partial), partial.col_offset + 1),
                    self.analysis.path,
                ),
            ),
        )
        return True

    def _partial_assigned(self, func: ast.expr) -> ast.Call | None:
        """The `functools.partial(<jitted>.lower, ...)` a called name (its one assignment) or
        `self.attr` (assigned once in the class, nowhere else in the module) holds."""
        found: ast.expr | None = None
        if isinstance(func, ast.Name):
            found = self.analysis.written_as(func)
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
        ):
            stores = [
                node
                for node in ast.walk(self.analysis.module.tree)
                if isinstance(node, (ast.Assign, ast.AnnAssign))
                and any(
                    isinstance(t, ast.Attribute) and t.attr == func.attr
                    for t in (
                        node.targets if isinstance(node, ast.Assign) else [node.target]
                    )
                )
            ]
            properties = [
                node
                for node in ast.walk(self.analysis.module.tree)
                if isinstance(node, ast.FunctionDef)
                and node.name == func.attr
                and any(
                    ast.unparse(d).split(".")[-1] in ("cached_property", "property")
                    for d in node.decorator_list
                )
            ]
            if len(stores) == 1 and not properties and stores[0].value is not None:
                found = stores[0].value
            elif not stores and len(properties) == 1:
                # `@cached_property def _lower(self): return partial(...)`
                returns = [
                    n for n in ast.walk(properties[0]) if isinstance(n, ast.Return)
                ]
                if len(returns) == 1 and returns[0].value is not None:
                    found = returns[0].value
        if (
            isinstance(found, ast.Call)
            and self.analysis.qualified_name(found.func) == "functools.partial"
            and found.args
            and isinstance(found.args[0], ast.Attribute)
            and found.args[0].attr == "lower"
            and not any(isinstance(a, ast.Starred) for a in found.args)
        ):
            return found
        return None

    def _check_eager(self, call: ast.Call) -> None:
        """`jax.random.key(0)` (an op that computes, so lowers) run at module level under
        `use_abstract_mesh(M)`, M Explicit: JAX lowers it with only an AbstractMesh."""
        module = self.analysis.module
        if (
            not module.has_module_level_with
            or module.scope_of(call) is not module.tree
            or not any(
                isinstance(parent, (ast.With, ast.AsyncWith))
                for parent in self._parents(call)
            )
        ):
            return  # code in a function may be traced (then it lowers nothing eagerly)
        op = self.analysis.eager_op(call)
        if op is None:
            return
        context = self._context_mesh(call)
        if not context.known or context.mesh is None or context.site is None:
            return  # (an abstract device does not help an eager op: checked on both tiers)
        self.report(
            call,
            f"`{_short(self.analysis.text(call))}` runs eagerly, so JAX lowers it, and only AbstractMesh "
            f"is in play (run under use_abstract_mesh(`{self._site_text(context.site)}`), which "
            f"has an Explicit axis): JAX raises {_JAX_ERROR}; run it outside the "
            "use_abstract_mesh context or under a concrete mesh (jax.set_mesh)",
        )

    def _parents(self, node: ast.AST) -> list[ast.AST]:
        found = []
        parent = self.analysis.module.parents.get(node)
        while parent is not None:
            found.append(parent)
            parent = self.analysis.module.parents.get(parent)
        return found

    # -- the log ------------------------------------------------------------------------------

    def _contradicted(self, trace: ast.Call, logged: list[MeshFacts]) -> str | None:
        """Why the log's context meshes are not what the code shows at the `.trace()`: a
        concrete mesh entered around it (JAX then has devices and does not raise this), or an
        enclosing `use_abstract_mesh` whose mesh is not the log's; None where they agree or the
        code does not show."""
        if not logged:
            return None
        concrete = self._concrete_context(trace)
        if concrete is not None:
            mesh, text = concrete
            return changed_since_the_log(
                f"the concrete mesh `{text}` {_mesh_shape(mesh)} current",
                _logged_text(logged[0], kind=True),
            )
        context = self._context_mesh(trace)
        innermost = (
            context.site.mesh if context.known and context.site is not None else None
        )
        if not isinstance(innermost, Mesh):
            return None  # no mesh entered here: a caller elsewhere may enter any
        assert context.site is not None
        types = not self._default_types(innermost)
        for fact in logged:
            if context.mesh is None:
                if (
                    types and not fact.is_empty
                ):  # an abstract mesh without Explicit axes
                    return changed_since_the_log(
                        f"no context mesh (`{self._site_text(context.site)}` has no Explicit axis)",
                        _logged_text(fact),
                    )
            elif (fact.is_empty and types) or (
                not fact.is_empty and contradicts(context.mesh, fact, types=types)
            ):
                return changed_since_the_log(
                    f"the context mesh {_mesh_shape(context.mesh)}",
                    _logged_text(fact),
                )
        return None

    def _visible(self, site: Site, node: ast.AST) -> bool:
        """Entered in the node's own function (or module body), or by a decorator of it."""
        if site.call is None:
            return site.entry in (Entry.WITH, Entry.ENTER_CONTEXT, Entry.GLOBAL_SET)
        if site.entry is not Entry.DECORATOR:
            return False
        scope = self.analysis.module.scope_of(node)
        return (
            isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
            and site.call in scope.decorator_list
        )

    def _concrete_context(self, trace: ast.Call) -> tuple[Mesh, str] | None:
        """A concrete, non-empty mesh that `jax.set_mesh`/`use_mesh` visibly enter around the
        `.trace()` (in its own function, or by a decorator of this module), and its text."""
        for way in self.analysis.ways_at(trace):
            for site in way:
                mesh = site.mesh
                if (
                    self._visible(site, trace)
                    and site.api in (Api.SET_MESH, Api.USE_MESH)
                    and isinstance(mesh, Mesh)
                    and not mesh.is_abstract
                    and mesh.axis_sizes
                    and mesh.axis_names != ()
                ):
                    return mesh, self._site_text(site)
        return None

    def _default_types(self, mesh: Mesh) -> bool:
        """Whether the mesh's axis types are `AbstractMesh`'s default, which jax 0.11 changed
        from Auto to Explicit (the log may come from either)."""
        node = mesh.origin
        if (
            not isinstance(node, ast.Call)
            or node not in self.analysis.module.parents
            or self.analysis.called_api(node) is not Api.ABSTRACT_MESH
        ):
            return False
        args = self.analysis.bind(node)
        types = args.get("axis_types") if args is not None else None
        return types is None or _is_none(types)

    # -- the jitted callable ----------------------------------------------------------------

    def _jitted(self, expr: ast.expr) -> _Jitted | None:
        """`jax.jit(f, ...)` (reached through names: the one assignment that reaches here), or
        a function whose outermost decorator is `@jax.jit` or `@partial(jax.jit, ...)`, or
        what the engine knows `expr` to be (an item of a dict of jitted steps, an attribute
        an object's `__init__` set to `jax.jit(self._step, in_shardings=...)`); None unless
        its keywords are device-free."""
        found = self._jitted_as_written(expr)
        if found is None:
            value = self.analysis.value_of(expr)
            if isinstance(value, (Function, BoundMethod)):  # a body the tree shows
                found = self._jitted_by_value(value)
        return found

    def _jitted_by_value(self, value: Value) -> _Jitted | None:
        """A jitted function as the engine knows it: `jax.jit(f, **k)` of a `def` or a lambda
        of the tree (undecorated: `step = jax.jit(lambda x: ...)` handed to a flops helper), a `def` whose outermost decorator jits it (read from its module, not
        bound to an instance: JAX's jitted function does not bind one), `jax.jit(obj.method,
        **k)` (the receiver bound), or jit of a function from outside the tree; None for
        anything else or keywords that may bring devices."""
        bound = isinstance(value, BoundMethod)
        function = value.function if isinstance(value, BoundMethod) else value
        if isinstance(value, Jitted):
            keywords = dict(value.keywords)
            if any(k not in _DEVICE_FREE_JIT_KEYWORDS for k in keywords):
                return None
            return _Jitted({}, None, keywords)
        if (
            not isinstance(function, Function)
            or function.wrapped_by != "jit"
            or function.bound
            or not isinstance(
                function.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
        ):
            return None
        module = self.analysis.engine.project.module(function.path)
        if not isinstance(module, Module):
            return None
        where = self.analysis.of(module)
        if not isinstance(function.node, ast.Lambda) and function.node.decorator_list:
            if bound:
                return None  # `obj.step` of a jitted `def step(self, ...)`: not bound by JAX
            jitted = where.jit_application(function.node.decorator_list[0])
            if jitted is None or jitted.function is not None:
                return None
            values = {k: where.value_of(v) for k, v in jitted.keywords.items()}
        else:
            values = dict(function.jit_keywords)
        if any(k not in _DEVICE_FREE_JIT_KEYWORDS for k in values):
            return None
        return _Jitted({}, function.node, values, where, bound=bound)

    def _jitted_as_written(self, expr: ast.expr) -> _Jitted | None:
        target = self.analysis.written_as(expr)
        function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None
        if isinstance(target, ast.Call):
            jitted = self.analysis.jit_application(target)
            if (
                jitted is None
                and isinstance(expr, ast.Name)
                and self.analysis.bound_once(expr)
            ):  # `step = partitioner.partition(fn, ...)`: what the call returns
                return self._jitted_value(expr)
            if jitted is None or jitted.function is None:
                return None
            function = self._function(jitted.function)
            if function is None and not any(
                k not in _DEVICE_FREE_JIT_KEYWORDS for k in jitted.keywords
            ):  # `jax.jit(func, ...)` of a parameter: the function its callers give
                given = self._jitted_by_value(
                    _jit_of(self.analysis.value_of(jitted.function))
                )
                if given is not None and given.function is not None:
                    return _Jitted(
                        jitted.keywords,
                        given.function,
                        None,
                        given.where,
                        bound=given.bound,
                    )
        elif isinstance(target, ast.Name):
            definition = self.analysis.definition(target)
            if definition is None and self.analysis.bound_once(target):
                imported = self._jitted_elsewhere(target)
                if imported is not None:
                    return imported
                return self._jitted_value(target)  # unpacked, imported: by its value
            if definition is None or not definition.decorator_list:
                return None
            jitted = self.analysis.jit_application(definition.decorator_list[0])
            if jitted is None or jitted.function is not None:
                return None
            function = definition
        elif isinstance(target, ast.Attribute):
            return self._jitted_method(target)
        else:
            return None
        if any(k not in _DEVICE_FREE_JIT_KEYWORDS for k in jitted.keywords):
            return None
        return _Jitted(jitted.keywords, function)

    def _jitted_method(self, expr: ast.Attribute) -> _Jitted | None:
        """A method read from its class (`Model.forward`, self passed explicitly) whose
        outermost decorator jits it (`@partial(jax.jit, static_argnames=("self",))`), its
        keywords' values as its module gives them, or `jax.jit(self.method)` of an instance
        (bound: the arguments given are the traced ones); None for anything else (a method bound to
        an instance: the jitted function then lacks an argument and JAX raises TypeError)."""
        value = self.analysis.value_of(expr)
        if (
            isinstance(value, BoundMethod)
            and value.function.wrapped_by == "jit"
            and not value.function.bound
            and isinstance(value.function.node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and not value.function.node.decorator_list
        ):  # `jax.jit(self._step, ...)` (a property's, a cached_property's, `__init__`'s)
            return self._jitted_by_value(value)
        if (
            not isinstance(value, Function)
            or value.wrapped_by != "jit"
            or value.bound
            or not isinstance(value.node, (ast.FunctionDef, ast.AsyncFunctionDef))
            or not value.node.decorator_list
        ):
            return None
        module = self.analysis.engine.project.module(value.path)
        if not isinstance(module, Module):
            return None
        where = self.analysis.of(module)
        jitted = where.jit_application(value.node.decorator_list[0])
        if jitted is None or jitted.function is not None:
            return None
        if any(k not in _DEVICE_FREE_JIT_KEYWORDS for k in jitted.keywords):
            return None
        values = {k: where.value_of(v) for k, v in jitted.keywords.items()}
        return _Jitted({}, value.node, values, where)

    def _jitted_elsewhere(self, name: ast.Name) -> _Jitted | None:
        """A function of another module of the project whose outermost decorator jits it
        (`from model import forward`, `@jax.jit def forward`), its keywords' values as that
        module gives them; None for anything else (a `def` rebound there: the engine's value
        is then not a `def` of it)."""
        value = self.analysis.value_of(name)
        if (
            not isinstance(value, Function)
            or value.wrapped_by != "jit"
            or not isinstance(value.node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ):
            return None
        module = self.analysis.engine.project.module(value.path)
        if not isinstance(module, Module) or module is self.analysis.module:
            return None
        where = self.analysis.of(module)
        if value.node.decorator_list:
            jitted = where.jit_application(value.node.decorator_list[0])
            if jitted is None or jitted.function is not None:
                return None
        else:
            jitted = _rebound_jit(where, module, _imported_name(self.analysis, name))
            if jitted is None or not (
                isinstance(jitted.function, ast.Name)
                and where.definition(jitted.function) is value.node
            ):
                return None
        if any(k not in _DEVICE_FREE_JIT_KEYWORDS for k in jitted.keywords):
            return None
        values = {k: where.value_of(v) for k, v in jitted.keywords.items()}
        return _Jitted({}, value.node, values, where)

    def _jitted_value(self, name: ast.Name) -> _Jitted | None:
        """`jax.jit(f, ...)` of a function from outside the tree, or of an undecorated one of the
        tree with the keywords it was given, as the engine knows the value of the name bound once (`fn, args = make()`: returned by a call of another
        module, unpacked); None unless its keywords are device-free."""
        value = self.analysis.value_of(name)
        if (
            isinstance(value, Function)
            and value.wrapped_by == "jit"
            and not value.bound
            and isinstance(value.node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and not value.node.decorator_list
        ):  # `jax.jit(fn, in_shardings=...)` returned by a function of the tree (a
            # partitioner's `partition(fn, ...)`): jit's keywords as the engine knows them
            module = self.analysis.engine.project.module(value.path)
            if not isinstance(module, Module):
                return None
            values = dict(value.jit_keywords)
            if any(k not in _DEVICE_FREE_JIT_KEYWORDS for k in values):
                return None
            return _Jitted({}, value.node, values, self.analysis.of(module))
        if not isinstance(value, Jitted):
            return None
        keywords = dict(value.keywords)
        if any(k not in _DEVICE_FREE_JIT_KEYWORDS for k in keywords):
            return None
        return _Jitted({}, None, keywords)

    def _function(
        self, expr: ast.expr
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None:
        target = self.analysis.written_as(expr)
        if isinstance(target, ast.Lambda):
            return target
        return (
            self.analysis.definition(target) if isinstance(target, ast.Name) else None
        )

    # -- why only AbstractMesh is in play ---------------------------------------------------

    def _check(
        self,
        lower: ast.Call,
        trace: ast.Call,
        jitted: _Jitted | None,
        *,
        rewrite_to_trace: bool,
        confirmed: Confirmed | None = None,
    ) -> None:
        """Whether only AbstractMesh is in play at the `.lower()`, as the module shows it or,
        `confirmed`, as the log does: it raised there, so no device was in play whatever the
        code around it does, and the message's context mesh gives the mesh size."""
        if confirmed is None:
            if jitted is None:
                func = trace.func
                if isinstance(func, ast.Attribute):
                    self.leave(lower, self._jitted_trail(trace, func.value))
                return
            platforms = (
                None if rewrite_to_trace else _keyword(lower, "lowering_platforms")
            )
            if not rewrite_to_trace and (
                lower.args or any(k is not platforms for k in lower.keywords)
            ):
                return
        else:
            platforms = _keyword(lower, "lowering_platforms")
            refused = self._why_no_fix_from_log(
                lower, jitted, platforms, confirmed, rewrite_to_trace
            )
            if refused is not None:
                self.report(lower, refused)
                return
        body = (
            self._body_uses(jitted.function, jitted.where or self.analysis)
            if jitted is not None
            else []
        )
        if body is None and confirmed is None:
            return
        if confirmed is not None:
            abstract_only: _AbstractOnly | None = self._logged_abstract_only(
                lower, confirmed
            )
        else:
            abstract_only = (
                self._abstract_only(trace, jitted) if jitted is not None else None
            )
        if abstract_only is None:
            if confirmed is None and jitted is not None:
                self.leave(lower, self._trail(trace, jitted))
            return
        if body:
            why = (
                f", but only AbstractMesh is in play ({abstract_only.reason}): JAX raises"
                if confirmed is None
                else f" ({abstract_only.logged}): adding lowering_platforms would make JAX raise"
            )
            self.report(
                lower,
                f"{body[0]} needs devices at lowering{why} "
                "'AbstractMesh cannot be used when jaxpr contains primitives that require devices'; "
                "lower with a concrete mesh (jax.make_mesh shardings or jax.set_mesh) instead",
            )
            return
        given = platforms is not None and not (
            _is_none(platforms.value) or self.analysis.value_of(platforms.value) is None
        )
        if confirmed is None and (
            given
            or (
                abstract_only.context is not None
                and abstract_only.context.has_abstract_device
            )
        ):
            return
        self._report_missing(
            lower, platforms, abstract_only, rewrite_to_trace=rewrite_to_trace
        )

    def _why_no_fix_from_log(
        self,
        lower: ast.Call,
        jitted: _Jitted | None,
        platforms: ast.keyword | None,
        confirmed: Confirmed,
        rewrite_to_trace: bool,
    ) -> str | None:
        """Why a `.lower()` the log shows raising gets no fix from it (besides a log the code
        contradicts, `_changed`): it passes the platforms now, or it may be `jit(f).lower(...)`,
        whose keywords go to f."""
        logged = f"the log shows JAX raised it here ({confirmed.where})"
        site = confirmed.evidence.value_site
        if platforms is not None and site is not None and site.keyword is not None:
            # the call the run came through leaves the parameter at None: fixed there
            return (
                f"`.lower()` raised for lack of lowering_platforms ({logged}): its "
                f"`{_short(self.analysis.text(platforms.value))}` is None where "
                f"`{site.name}` is called without `{site.keyword}`, which passes them"
            )
        if platforms is not None and not self._may_be_none(platforms.value):
            return f"`.lower()` raised for lack of lowering_platforms ({logged}), but passes them now: nothing to fix"
        positional = bool(lower.args)
        if rewrite_to_trace and jitted is None and not positional:
            return (
                f"`.lower()` needs lowering_platforms ({logged}); not fixed: jaxfix cannot tell whether "
                "this is `jit(f).lower(...)`, whose keywords go to f, or a traced stage's `.lower()`"
            )
        return None

    def _may_be_none(self, expr: ast.expr) -> bool:
        """Whether `expr` may be None where it is passed: the engine shows None, or does not
        show a value (a run that raised for want of platforms shows it was None there).
        `a or b` is None only where `b` is."""
        while isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
            expr = expr.values[-1]
        value = self.analysis.value_of(expr)
        return value is None or isinstance(value, Unknown)

    def _changed(self, trace: ast.Call, confirmed: Confirmed) -> str | None:
        """The report for a `.lower()` whose log contradicts the code (changed since the log),
        checked before the code's own answer: a log about other code unlocks no fix."""
        changed = self._contradicted(trace, list(confirmed.evidence.meshes("context")))
        if changed is None:
            return None
        logged = f"the log shows JAX raised it here ({confirmed.where})"
        return f"`.lower()` needs lowering_platforms ({logged}); {not_fixed(changed)}"

    def _logged_abstract_only(
        self, lower: ast.Call, confirmed: Confirmed
    ) -> _AbstractOnly:
        """The log's answer: JAX raised here; its context mesh, when it names one."""
        contexts = [
            m
            for m in dict.fromkeys(confirmed.evidence.meshes("context"))
            if not m.is_empty
        ]
        context = contexts[0] if len(contexts) == 1 else None
        logged = f"the log shows JAX raised it here ({confirmed.where})"
        reason = logged + (
            f", under the context mesh {_mesh_shape(context)}"
            if context is not None
            else ""
        )
        size = context.size if context is not None else None
        built = _argument_origins(confirmed, self.analysis.path)
        if built:
            reason += "; " + "; ".join(text for text, _ in built)
        related = tuple(place for _, places in built for place in places)
        return _AbstractOnly(reason, None, size, logged, related=related)

    def _abstract_only(self, trace: ast.Call, jitted: _Jitted) -> _AbstractOnly | None:
        context = self._context_mesh(trace)
        arguments = self._traced_arguments(trace, jitted)
        if not context.known or arguments is None:
            return None
        found: list[_Found] = (
            [_Found(context.mesh, "")] if context.mesh is not None else []
        )
        reasons: list[str] = []
        for argument in arguments:
            if isinstance(argument, _Valued):
                meshes = self._value_meshes(argument.value, argument=True)
                text = argument.text
            else:
                meshes = self._argument_meshes(argument)
                text = _short(self.analysis.text(argument))
                if meshes is not None:
                    meshes = [replace(m, argument=argument) for m in meshes]
            if meshes is None:
                return None
            found += meshes
            surely = [m for m in meshes if not m.maybe]
            if surely:
                reasons.append(
                    f"argument `{text}` is sharded on AbstractMesh `{surely[0].text}`"
                )
        for keyword in ("in_shardings", "out_shardings"):
            if keyword in jitted.keywords:
                meshes = self._sharding_meshes(jitted.keywords[keyword])
            elif jitted.values is not None and keyword in jitted.values:
                meshes = self._value_meshes(jitted.values[keyword], argument=False)
            else:
                continue
            if meshes is None:
                return None
            found += meshes
            surely = [m for m in meshes if not m.maybe]
            if surely:
                reasons.append(f"`{keyword}` use AbstractMesh `{surely[0].text}`")
        if context.mesh is not None and context.site is not None:
            reasons.insert(
                0,
                f"traced under use_abstract_mesh(`{self._site_text(context.site)}`), which has an Explicit axis",
            )
        meshes_in_play = [f.mesh for f in found]
        sizes = {m.size for m in meshes_in_play}
        if (
            not reasons or len(sizes - {None}) > 1
        ):  # meshes of different sizes raise another error
            return None
        if None in sizes and len({_identity(m) for m in meshes_in_play}) > 1:
            return None  # their sizes may differ: unknown
        first = meshes_in_play[0]
        one_mesh = all(
            (m.origin is not None and m.origin is first.origin and m == first)
            or _equal(m, first)
            for m in meshes_in_play[1:]
        )
        if not one_mesh and not all(
            m.axis_types is not None and set(m.axis_types) <= {AxisType.AUTO}
            for m in meshes_in_play
        ):
            return None  # JAX may raise "Mesh for all inputs should be equal" first
        unsized = next((f for f in found if f.mesh.size is None), None)
        return _AbstractOnly(
            reasons[0],
            context.mesh,
            sizes.pop() if len(sizes) == 1 else None,
            unsized=unsized,
        )

    def _trail(self, trace: ast.Call, jitted: _Jitted) -> str | None:
        """Where a mesh `_abstract_only` needed was lost (`-v`): the context's, else an
        argument's."""
        if not self._context_mesh(trace).known:
            return self.analysis.context_trail(trace, "the context mesh")
        arguments = self._traced_arguments(trace, jitted)
        if arguments is None:
            return self._spliced_trail(trace)
        for argument in arguments:
            if isinstance(argument, _Valued):
                if self._value_meshes(argument.value, argument=True) is None:
                    said = self.analysis.lost(
                        argument.value, "the argument's mesh", f"`{argument.text}`"
                    )
                    if said is not None:
                        return said
            elif self._argument_meshes(argument) is None:
                said = self.analysis.trail(argument, "the argument's mesh", traced=True)
                if said is not None:
                    return said
        for keyword in ("in_shardings", "out_shardings"):
            if keyword in jitted.keywords:
                if self._sharding_meshes(jitted.keywords[keyword]) is None:
                    said = self.analysis.trail(
                        jitted.keywords[keyword], f"the mesh of `{keyword}`"
                    )
                    if said is not None:
                        return said
            elif jitted.values is not None and keyword in jitted.values:
                value = jitted.values[keyword]
                if self._value_meshes(value, argument=False) is None:
                    said = self.analysis.lost(
                        value, f"the mesh of `{keyword}`", f"jit's `{keyword}`"
                    )
                    if said is not None:
                        return said
        return None

    def _spliced_trail(self, trace: ast.Call) -> str | None:
        """Why the items of a `*args` or `**kwargs` of the `.trace()` are not known."""
        for node in (
            *(a.value for a in trace.args if isinstance(a, ast.Starred)),
            *(k.value for k in trace.keywords if k.arg is None),
        ):
            value = self.analysis.value_of(node)
            if isinstance(value, (tuple, ListValue, DictValue)):
                continue
            said = self.analysis.lost(
                value,
                "what is spliced into the traced arguments",
                f"`{_short(self.analysis.text(node))}`",
            )
            if said is not None:
                return said
        return None

    def _jitted_trail(self, trace: ast.Call, expr: ast.expr) -> str | None:
        """Why the function a `.trace(...)` or `.lower(*args)` is called on is not known to
        be jitted (`-v`), where the engine lost it; None where it knows it is something else."""
        value = self.analysis.value_of(expr)
        if not isinstance(value, Unknown) or not (trace.args or trace.keywords):
            return None
        return self.analysis.lost(
            value, "the lowered function", f"`{_short(self.analysis.text(expr))}`"
        )

    def _traced_arguments(
        self, trace: ast.Call, jitted: _Jitted
    ) -> list[ast.expr | _Valued] | None:
        """The arguments that are traced (not static), an item of `*args` or `**kwargs` by
        its value; None when that is unclear."""
        positional: list[ast.expr | _Valued] = []
        for arg in trace.args:
            if not isinstance(arg, ast.Starred):
                positional.append(arg)
                continue
            spliced = self.analysis.value_of(arg.value)
            items = (
                spliced
                if isinstance(spliced, tuple)
                else spliced.items
                if isinstance(spliced, ListValue)
                else None
            )
            if items is None:
                return None
            text = _short(self.analysis.text(arg.value))
            positional += [_Valued(v, f"{text}[{i}]") for i, v in enumerate(items)]
        static_numbers = self._static_numbers(jitted, len(positional))
        static_names = self._static_names(jitted)
        if static_numbers is None or static_names is None:
            return None
        if isinstance(jitted.function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # JAX makes a parameter named static static where it is passed positionally too
            parameters = [
                *jitted.function.args.posonlyargs,
                *jitted.function.args.args,
            ][1 if jitted.bound else 0 :]
            static_numbers = static_numbers | {
                i for i, p in enumerate(parameters) if p.arg in static_names
            }
        arguments = [a for i, a in enumerate(positional) if i not in static_numbers]
        for keyword in trace.keywords:
            if keyword.arg is not None:
                if keyword.arg not in static_names:
                    arguments.append(keyword.value)
                continue
            spliced = self.analysis.value_of(keyword.value)
            if not isinstance(spliced, DictValue) or not all(
                isinstance(k, str) for k, _ in spliced.items
            ):
                return None
            text = _short(self.analysis.text(keyword.value))
            arguments += [
                _Valued(v, f"{text}[{k!r}]")
                for k, v in spliced.items
                if k not in static_names
            ]
        return arguments

    def _static_numbers(self, jitted: _Jitted, count: int) -> set[int] | None:
        given, value = jitted.keyword(self.analysis, "static_argnums")
        if not given:
            return set()
        numbers = (value,) if isinstance(value, int) else value
        if not isinstance(numbers, tuple) or not all(
            isinstance(n, int) for n in numbers
        ):
            return None
        return {n % count if count else n for n in numbers if isinstance(n, int)}

    def _static_names(self, jitted: _Jitted) -> set[str] | None:
        given, value = jitted.keyword(self.analysis, "static_argnames")
        if not given:
            return set()
        names = (value,) if isinstance(value, str) else value
        if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
            return None
        return {n for n in names if isinstance(n, str)}

    def _argument_meshes(self, expr: ast.expr) -> list[_Found] | None:
        """The abstract meshes an argument is sharded on; None unless it surely has no devices."""
        if self.analysis.brings_no_devices(expr):
            return []  # host data or an uncommitted array: the sharded arguments decide
        node = self.analysis.written_as(expr)
        if isinstance(node, (ast.Tuple, ast.List, ast.Dict)):
            return self._each(node, self._argument_meshes)
        if (
            isinstance(node, ast.Call)
            and self.analysis.called_api(node) is Api.SHAPE_DTYPE_STRUCT
        ):
            args = self.analysis.bind(node)
            if args is None or not args.keys() <= _SHAPE_DTYPE_STRUCT_KEYWORDS:
                return None
            sharding = args.get("sharding")
            return [] if sharding is None else self._sharding_meshes(sharding)
        return self._value_meshes(self.analysis.value_of(expr), argument=True)

    def _sharding_meshes(self, expr: ast.expr) -> list[_Found] | None:
        node = self.analysis.written_as(expr)
        if _is_none(node):
            return []
        if isinstance(node, (ast.Tuple, ast.List, ast.Dict)):
            return self._each(node, self._sharding_meshes)
        if (
            isinstance(node, ast.Call)
            and self.analysis.called_api(node) is Api.NAMED_SHARDING
        ):
            args = self.analysis.bind(node)
            given = args.get("mesh") if args is not None else None
            mesh = self.analysis.value_of(given) if given is not None else None
            if not isinstance(mesh, Mesh) or not mesh.is_abstract or given is None:
                return None
            return [_Found(mesh, self._mesh_text(given))]
        return self._value_meshes(self.analysis.value_of(expr), argument=False)

    def _value_meshes(self, value: Value, *, argument: bool) -> list[_Found] | None:
        """The abstract meshes of a value the engine knows (a sharding, a shape struct, what
        eval_shape returns, containers of them); None for anything that may carry devices."""
        if value is None:
            return None if argument else []
        if isinstance(value, Sharding):
            mesh = value.mesh
            if not isinstance(mesh, Mesh) or not mesh.is_abstract:
                return None
            return [_Found(mesh, self._origin_text(mesh))]
        if argument and isinstance(value, ShapeStruct):
            return self._value_meshes(value.sharding, argument=False)
        if argument and isinstance(value, Array) and value.sharding is None:
            # host data or an array made unsharded (`jnp.ones(...)` a helper returns): as
            # `brings_no_devices` says of the same call written at the lowering
            return []
        if isinstance(value, Leaves):  # a pytree mapped from eval_shape's structs
            return self._value_meshes(value.leaf, argument=argument)
        if isinstance(value, Items):  # a comprehension's items, maybe none
            meshes = self._value_meshes(value.item, argument=argument)
            return None if meshes is None else [replace(m, maybe=True) for m in meshes]
        if argument and isinstance(value, Structs):
            # eval_shape's structs are sharded on the abstract context mesh when it has an
            # Explicit axis; under an Auto one they carry no sharding
            mesh = value.mesh
            if not isinstance(mesh, Mesh) or not mesh.is_abstract:
                return None
            explicit = _explicit(mesh)
            if explicit is None:
                return None
            return [_Found(mesh, self._origin_text(mesh))] if explicit else []
        items = (
            value
            if isinstance(value, tuple)
            else value.items
            if isinstance(value, ListValue)
            else tuple(v for _, v in value.items)
            if isinstance(value, DictValue)
            else self.analysis.pytree_children(value)
        )
        if items is None:
            return None
        found: list[_Found] = []
        for item in items:
            meshes = self._value_meshes(item, argument=argument)
            if meshes is None:
                return None
            found += meshes
        return found

    def _each(
        self,
        node: ast.Tuple | ast.List | ast.Dict,
        evaluate: Callable[[ast.expr], list[_Found] | None],
    ) -> list[_Found] | None:
        if isinstance(node, ast.Dict):
            if any(key is None for key in node.keys):
                return None
            values = list(node.values)
        else:
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return None
            values = list(node.elts)
        found: list[_Found] = []
        for value in values:
            meshes = evaluate(value)
            if meshes is None:
                return None
            found += meshes
        return found

    def _context_mesh(self, node: ast.AST) -> _Context:
        """JAX's abstract context mesh where `node` runs, on every way it runs.

        JAX uses the innermost `use_abstract_mesh` only when it has an Explicit axis
        (`get_ctx_mesh` in jax/_src/pjit.py). Unknown when any other mesh context may be in
        force on some way: a global `jax.set_mesh(m)` anywhere in the module, `with mesh:`, a
        set_mesh/use_mesh or unknown context manager, or one around a caller the engine does
        not follow (see jaxfix/analysis/ast_engine/contexts.py); or when the ways disagree.
        """
        ways = self.analysis.ways_at(node)
        if any(s.api is not Api.USE_ABSTRACT_MESH for way in ways for s in way):
            return _Context(False)
        meshes: list[Mesh | None] = []
        for way in ways:
            if not way:
                meshes.append(None)
                continue
            mesh = way[-1].mesh
            if not isinstance(mesh, Mesh) or not mesh.is_abstract:
                return _Context(False)
            explicit = _explicit(mesh)
            if explicit is None:
                return _Context(False)
            meshes.append(mesh if explicit else None)
        innermost = next((way[-1] for way in ways if way), None)
        first = meshes[0] if meshes else None
        if first is None:
            if any(m is not None for m in meshes):
                return _Context(False)
            return _Context(True, None, innermost)
        if not all(m is not None and (m is first or _equal(m, first)) for m in meshes):
            return _Context(False)
        return _Context(True, first, innermost)

    def _body_uses(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None,
        analysis: Analysis,
    ) -> list[str] | None:
        """Device-needing primitives the jitted body calls; None when it uses concrete devices.
        `analysis`: the questions of the module the body is in."""
        if function is None:
            return []
        found: list[str] = []
        body: list[ast.AST] = (
            [function.body] if isinstance(function, ast.Lambda) else [*function.body]
        )
        for statement in body:
            for node in ast.walk(statement):
                if isinstance(node, ast.Call):
                    api = analysis.called_api(node)
                    if api in _DEVICE_PRIMITIVES:
                        found.append(_DEVICE_PRIMITIVES[api])
                    if api in _DEVICE_APIS or (
                        api is Api.NAMED_SHARDING
                        and (
                            self._sharding_meshes(node)
                            if analysis is self.analysis
                            else self._value_meshes(
                                analysis.value_of(node), argument=False
                            )
                        )
                        is None
                    ):
                        return None
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    mesh = analysis.value_of(node)
                    if isinstance(mesh, Mesh) and not mesh.is_abstract:
                        return None
        return found

    # -- how messages name meshes -------------------------------------------------------------

    def _mesh_text(self, expr: ast.expr) -> str:
        """The name the mesh is reached through (`mesh`, `self.mesh`), else its code."""
        return self.analysis.reference(expr) or _short(self.analysis.text(expr))

    def _origin_text(self, mesh: Mesh) -> str:
        return (
            _short(self.analysis.text(mesh.origin)) if mesh.origin is not None else "?"
        )

    def _site_text(self, site: Site) -> str:
        """The mesh a `use_abstract_mesh(M)` (or `set_mesh(M)`) site enters, as written."""
        node = site.node
        if isinstance(node, ast.Call):
            given = node.args[0] if node.args else None
            given = next((k.value for k in node.keywords if k.arg == "mesh"), given)
            if given is not None and not isinstance(given, ast.Starred):
                return self.analysis.reference(given) or _short(
                    self.analysis.text(given)
                )
        mesh = site.mesh
        return self._origin_text(mesh) if isinstance(mesh, Mesh) else "?"

    def at_value(self, evidence: Evidence) -> None:
        """The call the run came through leaves the parameter the raising `.lower()` takes
        its lowering_platforms from at `None` (jaxfix/check/value_sites.py found it): that
        call passes the platforms."""
        site = evidence.value_site
        if site is None or site.keyword is None:
            return
        line, column = site.span[0], site.span[1]
        call = next(
            (
                c
                for c in self.analysis.module.calls
                if c.lineno == line and self.analysis.span(c).start == (line, column)
            ),
            None,
        )
        if call is None or any(k.arg == site.keyword for k in call.keywords):
            return  # changed since the run
        value, imports = self._platforms_value()
        keyword = site.keyword

        def passed(old: cst.CSTNode) -> cst.Call:
            import libcst as cst

            assert isinstance(old, cst.Call)
            new = keyword_arg(keyword, cst.parse_expression(value))
            return old.with_changes(args=_appended(old.args, new))

        shared = Path(
            os.path.commonpath([site.raised[0], os.path.abspath(self.analysis.path)])
        )  # the files are named from the folder they share
        where = Path(os.path.relpath(site.raised[0], shared)).as_posix()
        raised = f"{where}:{site.raised[1]}"
        self.report(
            call,
            f"`{site.name}(...)` leaves `{keyword}` at `None`, which the `.lower()` at "
            f"{raised} passes as lowering_platforms: only AbstractMesh is in play there, so "
            f"JAX raises {_JAX_ERROR}",
            fix=Fix(
                f"pass {keyword}={value}", ((call, passed),), Safety.UNSAFE, imports
            ),
        )

    # -- the fix ----------------------------------------------------------------------------

    def _report_missing(
        self,
        lower: ast.Call,
        platforms: ast.keyword | None,
        abstract_only: _AbstractOnly,
        *,
        rewrite_to_trace: bool,
    ) -> None:
        value, imports = self._platforms_value()
        # `lowering_platforms=EXPR` where EXPR is None when it runs (the engine shows it, or
        # the run raised there): EXPR stays, and the fix's platforms stand in for None
        fallback = (
            platforms.value
            if platforms is not None and not _is_none(platforms.value)
            else None
        )

        def fixed(old: cst.CSTNode) -> cst.Call:
            import libcst as cst

            assert isinstance(old, cst.Call)
            new = cst.parse_expression(value)
            if rewrite_to_trace:
                assert isinstance(old.func, cst.Attribute)
                trace = old.with_changes(
                    func=old.func.with_changes(attr=cst.Name("trace"))
                )
                return cst.Call(
                    func=cst.Attribute(value=trace, attr=cst.Name("lower")),
                    args=[keyword_arg("lowering_platforms", new)],
                )
            given = next(
                (
                    a
                    for a in old.args
                    if a.keyword is not None and a.keyword.value == "lowering_platforms"
                ),
                None,
            )
            if platforms is not None and given is not None:
                if fallback is not None:
                    new = _or_else(given.value, new)
                return old.with_changes(args=[given.with_changes(value=new)])
            return old.with_changes(args=[keyword_arg("lowering_platforms", new)])

        reason, related = abstract_only.reason, abstract_only.related
        confirmed = self.analysis.confirmed(lower, self.code)
        if not related and confirmed is not None:
            # the code shows why; the run also shows where it built the argument meshes
            built = _argument_origins(confirmed, self.analysis.path)
            reason = "; ".join([reason, *(text for text, _ in built)])
            related = tuple(place for _, places in built for place in places)
        message = (
            f"`.lower()` needs lowering_platforms: only AbstractMesh is in play ({reason}), "
            f"so JAX raises {_JAX_ERROR}"
        )
        title = f"add lowering_platforms={value}"
        if fallback is not None:
            passed = _short(self.analysis.text(fallback))
            message += f"; it passes `{passed}`, which is None " + (
                "here" if confirmed is None else "when it runs (the run raised)"
            )
            title = f"pass `{passed} or {value}`"
        compiles = self._compiles_without_devices(lower)
        if not compiles:
            self.report(
                lower,
                message,
                fix=Fix(
                    title,
                    ((lower, fixed),),
                    # an expression the code passes keeps its non-None values
                    Safety.SAFE if fallback is None else Safety.UNSAFE,
                    imports,
                ),
                related=related,
            )
            return
        message += "; the .compile() that follows then needs device_assignment="
        size: str | None = (
            str(abstract_only.size) if abstract_only.size is not None else None
        )
        unsized = abstract_only.unsized
        if size is None and unsized is not None:
            # the mesh's size when it runs, read from a name the compile sees
            size = self._size_read(unsized, lower, compiles)
        if size is None:
            why = (
                self.analysis.lost(unsized.mesh, "its mesh", f"`{unsized.text}`")
                if unsized is not None
                else None
            )
            self.report(
                lower,
                message
                + " (mesh size unknown, and neither the mesh nor its argument is a name "
                "read where it compiles: no fix; lowering_platforms alone would make the "
                ".compile() raise "
                "'device_assignment cannot be `None`')" + (f"; {why}" if why else ""),
                related=related,
            )
            return
        jax_name, jax_import = self.analysis.module_spelling("jax")
        devices = f"tuple({jax_name}.devices()[:{size}])"
        first = compiles[0].func
        chained = isinstance(first, ast.Attribute) and first.value is lower

        def compiled(old: cst.CSTNode) -> cst.Call:
            import libcst as cst

            assert isinstance(old, cst.Call)
            func = old.func
            if chained:
                assert isinstance(func, cst.Attribute) and isinstance(
                    func.value, cst.Call
                )
                func = func.with_changes(value=fixed(func.value))
            return old.with_changes(
                func=func,
                args=[
                    *old.args,
                    keyword_arg("device_assignment", cst.parse_expression(devices)),
                ],
            )

        edits: list[tuple[ast.AST, Callable[[cst.CSTNode], cst.CSTNode]]] = (
            [] if chained else [(lower, fixed)]
        )
        edits += [(call, compiled) for call in compiles]
        title = f"add lowering_platforms={value} and device_assignment={devices}"
        self.report(
            lower,
            message,
            fix=Fix(title, tuple(edits), Safety.UNSAFE, jax_import),
            related=related,
        )

    def _platforms_value(self) -> tuple[str, tuple[tuple[str, str | None], ...]]:
        """The lowering_platforms the fix passes, as code, and the import it needs."""
        platforms = self.setting("platforms")
        if platforms:
            names = ", ".join(f'"{p}"' for p in platforms)
            return (f"({names},)" if len(platforms) == 1 else f"({names})"), ()
        jax_name, jax_import = self.analysis.module_spelling("jax")
        return f"({jax_name}.export.default_export_platform(),)", jax_import

    def _size_read(
        self, unsized: _Found, lower: ast.Call, compiles: list[ast.Call]
    ) -> str | None:
        """The size of the mesh in play whose size the code does not show
        (`AbstractMesh((n, 4), ...)`, `n` from the environment), read when the program runs
        from a name the function of the lowering binds once and reads, where each
        `.compile()` is: the mesh's (`mesh.size`), else the argument's sharded on it
        (`x.sharding.mesh.size`, `x` a ShapeDtypeStruct or an array); None otherwise."""
        scope = self.analysis.module.scope_of(lower)
        if any(self.analysis.module.scope_of(c) is not scope for c in compiles):
            return None
        if self._named_once(unsized.text, scope, (Mesh,)):
            return f"{unsized.text}.size"
        argument = unsized.argument
        if isinstance(argument, ast.Name) and self._named_once(
            argument.id, scope, (ShapeStruct, Array)
        ):
            return f"{argument.id}.sharding.mesh.size"
        return None

    def _named_once(self, name: str, scope: ast.AST, kinds: tuple[type, ...]) -> bool:
        """Whether `name` is read in `scope` (not a nested function), bound once, as a value
        of one of `kinds`."""
        if not name.isidentifier():
            return False
        reads = [
            n
            for n in ast.walk(scope)
            if isinstance(n, ast.Name)
            and n.id == name
            and isinstance(n.ctx, ast.Load)
            and self.analysis.module.scope_of(n) is scope
        ]
        return (
            bool(reads)
            and all(self.analysis.bound_once(n) for n in reads)
            and isinstance(self.analysis.value_of(reads[0]), kinds)
        )

    def _compiles_without_devices(self, lower: ast.Call) -> list[ast.Call]:
        """`.compile()` calls without device_assignment= on the lowered stage: chained or via its
        variable (the reads this assignment reaches)."""
        parents = self.analysis.module.parents
        parent = parents.get(lower)
        uses: list[ast.AST | None]
        if isinstance(parent, ast.Attribute):
            uses = [parent]
        elif (
            isinstance(parent, ast.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)
        ):
            reached = self.analysis.reads_reached(parent, parent.targets[0].id)
            uses = [parents.get(read) for read in reached]
        else:
            return []
        calls = []
        for use in uses:
            call = (
                parents.get(use)
                if isinstance(use, ast.Attribute) and use.attr == "compile"
                else None
            )
            if (
                isinstance(call, ast.Call)
                and call.func is use
                and _keyword(call, "device_assignment") is None
            ):
                calls.append(call)
        return calls


def _jit_of(value: Value) -> Value:
    """What `jax.jit(value)` is, for a function of the tree or a method bound to an object
    (its body kept); anything else unchanged (then no jitted function)."""
    if isinstance(value, Function) and value.wrapped_by is None and not value.bound:
        return replace(value, wrapped_by="jit")
    if (
        isinstance(value, BoundMethod)
        and value.function.wrapped_by is None
        and not value.function.bound
    ):
        return replace(value, function=replace(value.function, wrapped_by="jit"))
    return None


def _identity(mesh: Mesh) -> int:
    return id(mesh.origin) if mesh.origin is not None else id(mesh)


_LISTED_ARGUMENTS = 4  # argument meshes named in a message


def _argument_origins(
    confirmed: Confirmed, raised: Path
) -> list[tuple[str, tuple[Related, ...]]]:
    """Where the recorded run built the meshes of the lowering's argument shardings (each
    chain placed in the tree and checked against the code), as a phrase for the message and
    places (the creation line, then the callers it came through)."""
    chains = list(
        dict.fromkeys(
            o.frames
            for o in confirmed.evidence.origins
            if o.kind == "built" and o.role.startswith("argument") and o.frames
        )
    )[:_LISTED_ARGUMENTS]
    if not chains:
        return []
    paths = [os.path.abspath(p) for chain in chains for p, _ in chain]
    root = Path(os.path.commonpath([*paths, os.path.abspath(raised)]))
    if root.as_posix() in paths:
        root = root.parent
    found = []
    for chain in chains:
        innermost = list(reversed(chain))
        shown = Origin("argument", "built", chain).describe(root)
        places = tuple(
            Related(
                "the run built an argument sharding's abstract mesh here"
                if n == 0
                else "called from here",
                Location(line, 1),
                path,
            )
            for n, (path, line) in enumerate(innermost[:3])
        )
        found.append(
            (f"the run built an argument sharding's abstract mesh at {shown}", places)
        )
    return found
