"""JAX012: a function calling `buffer_callback` lowered for several platforms, or exported."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.values import Function, ListValue, Value
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, with_note
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst

    from jaxfix.ground.diagnostics import Edit

# The platforms a buffer callback lowers for (jax/_src/buffer_callback.py registers these).
_CALLBACK_PLATFORMS = ("cpu", "cuda", "rocm")

# What may keep a call of the body from running: a branch, a loop, a handler, a nested scope.
_MAY_SKIP = (
    ast.If,
    ast.IfExp,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    ast.Match,
    ast.BoolOp,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.comprehension,
)


class BufferCallbackLowering(Rule):
    """
    ## What it does
    Finds a jitted function whose body calls `jax.experimental.buffer_callback.buffer_callback`
    (on every way the body runs: not in a branch, loop or nested function) where it is
    lowered for more than one platform
    (`f.trace(x).lower(lowering_platforms=("cpu", "cuda"))`, `jax.export.export(f,
    platforms=[...])(x)`), or exported with `jax.export.export(f)(x)` at all; the engine
    follows the jitted function through any name or import spelling
    ([docs/engine.md](../engine.md)). Where the platforms are written at the lowering
    (`lowering_platforms=("cpu", "cuda")`), the unsafe fix keeps the first of them a buffer
    callback lowers for (cpu, cuda, rocm); an export, or platforms named elsewhere, is
    reported without a fix.

    ## Why is this bad?
    A buffer callback lowers for one platform only: JAX raises ``NotImplementedError:
    multi-platform lowering for buffer_callback``. And `jax.export` cannot serialize host
    callbacks: exporting such a function raises ``NotImplementedError: serialization of
    host_callbacks is not yet implemented``, whatever the platforms (jax 0.10.2 and
    0.12.0.1). A JAX001 fix with several `--platform` values lowers such a function for
    several platforms; this rule then reports it.

    ## Example
    ```python
    @jax.jit
    def f(x):
        return buffer_callback(callback, jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    lowered = f.trace(x).lower(lowering_platforms=("cpu", "cuda"))
    ```

    ## Use instead
    ```python
    lowered = f.trace(x).lower(lowering_platforms=("cpu",))
    ```
    For `jax.export`, lower with `jit(f).trace(x).lower(...)` instead: an export of a host
    callback cannot be serialized.

    ## Fix safety
    Unsafe: the lowering is for one platform, the first listed, where the code asked for
    several; which one the program needs, the code does not say. A list with no platform a
    buffer callback lowers for, or given by a name, is reported without a fix; so is
    `jax.export` (no platform makes its serialization work).

    ## References
    - `_buffer_callback_lowering` in jax/_src/buffer_callback.py and `_check_lowering` in
      jax/_src/export/_export.py (jax 0.10.2 and 0.12.0.1), which raise.
    """

    code = "JAX012"
    name = "buffer-callback-lowering"
    summary = (
        "a function calling buffer_callback lowered for several platforms, or exported"
    )
    fixes = {
        Safety.UNSAFE: "lower for the first listed platform a buffer callback supports"
    }
    tokens = ((b"buffer_callback",),)
    raises = (
        "multi-platform lowering for buffer_callback",
        "serialization of host_callbacks is not yet implemented",
    )
    error = "NotImplementedError"
    raised_in = ("jax/_src/buffer_callback.py", "jax/_src/export/_export.py")

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "lower"
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Attribute)
            and func.value.func.attr == "trace"
        ):
            platforms = _keyword(node, "lowering_platforms")
            callback = self._callback(func.value.func.value)
            if callback is None or platforms is None or not self._several(platforms):
                return
            self._report(node, callback, multi=True, platforms=platforms)
            return
        if (
            not isinstance(func, ast.Call)
            or analysis.called_api(func) is not Api.EXPORT
        ):
            return
        args = func.args
        if not args or isinstance(args[0], ast.Starred):
            return
        callback = self._callback(args[0])
        if callback is None:
            return
        platforms = _keyword(func, "platforms")
        self._report(
            node, callback, multi=platforms is not None and self._several(platforms)
        )

    def _report(
        self,
        node: ast.Call,
        callback: ast.Call,
        *,
        multi: bool,
        platforms: ast.expr | None = None,
    ) -> None:
        if self.expected(node):
            return
        line = self.analysis.line(callback)
        if multi:
            message = (
                f"the lowered function calls buffer_callback (line {line}), which lowers "
                "for one platform only: JAX raises NotImplementedError: multi-platform "
                "lowering for buffer_callback; lower for one platform"
            )
            kept = _first_supported(platforms)
            if platforms is None or kept is None:
                why = (
                    "no listed platform is one a buffer callback lowers for"
                    if isinstance(platforms, (ast.Tuple, ast.List))
                    else "the platforms are not written at the lowering"
                )
                self.report(node, with_note(message, not_fixed(why)))
                return
            fix = Fix(
                f'lower for "{kept}" only',
                ((node, _only(kept)),),
                Safety.UNSAFE,
            )
            self.report(node, message, fix=fix)
            return
        else:
            message = (
                f"the exported function calls buffer_callback (line {line}): JAX raises "
                "NotImplementedError: serialization of host_callbacks is not yet "
                "implemented; lower it with jit(f).trace(x).lower(...) instead"
            )
        self.report(node, message)

    def _several(self, expr: ast.expr) -> bool:
        value: Value = self.analysis.value_of(expr)
        items = value.items if isinstance(value, ListValue) else value
        return (
            isinstance(items, tuple)
            and all(isinstance(i, str) for i in items)
            and len(set(items)) > 1
        )

    def _callback(self, jitted: ast.expr) -> ast.Call | None:
        """The `buffer_callback(...)` call that runs whenever the jitted function `jitted`
        (a function of this module) runs; None when there is none, or it may not run."""
        analysis = self.analysis
        value = analysis.value_of(jitted)
        if (
            not isinstance(value, Function)
            or value.wrapped_by != "jit"
            or value.node not in analysis.parents
        ):
            return None
        function = value.node
        body = (
            function.body if not isinstance(function, ast.Lambda) else [function.body]
        )
        for index, part in enumerate(body):
            if any(
                isinstance(n, (ast.Return, ast.Raise))
                for earlier in body[:index]
                for n in ast.walk(earlier)
            ):
                return None  # an earlier statement may leave the function
            for call in ast.walk(part):
                if (
                    isinstance(call, ast.Call)
                    and analysis.called_api(call) is Api.BUFFER_CALLBACK
                    and self._always_runs(call, function)
                ):
                    return call
        return None

    def _always_runs(self, node: ast.AST, function: ast.AST) -> bool:
        parent = self.analysis.parents.get(node)
        while parent is not None and parent is not function:
            if isinstance(parent, _MAY_SKIP):
                return False
            parent = self.analysis.parents.get(parent)
        return parent is function


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _first_supported(expr: ast.expr | None) -> str | None:
    """The first platform a buffer callback lowers for in a literal tuple or list of
    platform names; None when it is not one, or lists none."""
    if not isinstance(expr, (ast.Tuple, ast.List)):
        return None
    names = [e.value for e in expr.elts if isinstance(e, ast.Constant)]
    if len(names) != len(expr.elts) or not all(isinstance(n, str) for n in names):
        return None
    return next((n for n in names if n in _CALLBACK_PLATFORMS), None)


def _only(platform: str) -> Edit:
    """The `.lower(...)` call with `lowering_platforms=` the one `platform`."""

    def edit(old: cst.CSTNode) -> cst.CSTNode:
        import libcst as cst  # for the fix, written only when it is applied

        assert isinstance(old, cst.Call)
        one = cst.parse_expression(f'("{platform}",)')
        return old.with_changes(
            args=[
                a.with_changes(value=one)
                if a.keyword is not None and a.keyword.value == "lowering_platforms"
                else a
                for a in old.args
            ]
        )

    return edit
