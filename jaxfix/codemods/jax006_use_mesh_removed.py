"""JAX006: `jax.sharding.use_mesh`, removed from JAX: `jax.set_mesh` enters a mesh now."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.imports import unused_imports
from jaxfix.codemods.text import missing_on_target, not_fixed, with_note
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst

    from jaxfix.ground.diagnostics import Edit

# The exceptions whose handler makes a `try:` around `use_mesh` a compatibility shim.
_SHIM_CATCHES = frozenset({"AttributeError", "Exception", "BaseException"})


class UseMeshRemoved(Rule):
    """
    ## What it does
    Finds calls of `jax.sharding.use_mesh(mesh)` (through any import spelling) and calls
    `jax.set_mesh(mesh)` instead. A compatibility shim is left alone: a call in the body of a
    `try:` that catches `AttributeError`, or under an `if`/conditional expression that tests
    `hasattr(...)`. The callee is what the engine resolves the name to (imports, aliases,
    assignments: [docs/engine.md](../engine.md)), never its spelling.

    ## Why is this bad?
    `jax.sharding.use_mesh` was removed from JAX: looking it up raises
    `AttributeError: module 'jax.sharding' has no attribute 'use_mesh'`.

    ## Example
    ```python
    with jax.sharding.use_mesh(mesh):
        y = jax.jit(f, in_shardings=P("x"))(x)
    ```

    ## Use instead
    ```python
    with jax.set_mesh(mesh):
        y = jax.jit(f, in_shardings=P("x"))(x)
    ```

    ## Fix safety
    Safe: `jax.set_mesh` is what `use_mesh` became; as a context manager it sets the same
    context mesh for the block. A `use_mesh` imported by name (`from jax.sharding import
    use_mesh`, whose import raises ImportError too) is fixed with its import: every call of
    the name becomes `jax.set_mesh(...)` and the name leaves the import, one fix per module.
    Where the import is not a plain top-level statement (inside a `try:` or a function), or
    the name is used other than called, it is reported without a fix.

    ## References
    - The JAX 0.7.1 changelog: "Removed `jax.sharding.use_mesh` in favor of `jax.set_mesh`"
      (hence `raises_since`).
    - `jax/sharding.py` of jax 0.10.2 and 0.12.0.1 has no `use_mesh`; `set_mesh` is in
      jax/_src/sharding_impls.py.
    """

    code = "JAX006"
    name = "use-mesh-removed"
    summary = "jax.sharding.use_mesh was removed: use jax.set_mesh"
    fixes = {Safety.SAFE: "call jax.set_mesh"}
    tokens = ((b"use_mesh",),)
    raises = ("module 'jax.sharding' has no attribute 'use_mesh'",)
    error = "AttributeError"
    raises_since = "0.7.1"

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        if (
            not analysis.may_call(node, Api.USE_MESH)
            or analysis.called_api(node) is not Api.USE_MESH
            or self._shim(node)
        ):
            return
        message = (
            f"`{analysis.text(node.func)}` was removed from JAX: use `jax.set_mesh`; JAX "
            "raises AttributeError: module 'jax.sharding' has no attribute 'use_mesh'"
        )
        missing = missing_on_target("`jax.set_mesh`", "0.7.1", self.options.jax_version)
        if (
            missing is not None
        ):  # --select ALL on an older target: the fix would break it
            self.report(node.func, with_note(message, missing))
            return
        if not isinstance(node.func, ast.Attribute):
            self._imported_by_name(node, message)
            return
        jax_name, imports = analysis.module_spelling("jax")
        fix = Fix(
            "call jax.set_mesh",
            ((node.func, lambda _: _set_mesh(jax_name)),),
            imports=imports,
        )
        self.report(node.func, message, fix=fix)

    def _imported_by_name(self, node: ast.Call, message: str) -> None:
        """`use_mesh(...)` of a `from jax.sharding import use_mesh`: the module's one fix
        rewrites every call of the name and takes it out of the import."""
        analysis = self.analysis
        assert isinstance(node.func, ast.Name)
        calls = self._calls_of_imported(node.func.id)
        if calls is None:
            note = not_fixed(
                "its import raises too, and is not a top-level import whose every use "
                "is a call"
            )
            self.report(node.func, with_note(message, note))
            return
        first = min(analysis.line(c) for c in calls)
        if analysis.line(node) != first:
            self.report(
                node.func, with_note(message, f"fixed with the one at line {first}")
            )
            return
        jax_name, imports = analysis.module_spelling("jax")
        uses: set[ast.AST] = {c.func for c in calls}
        edits: list[tuple[ast.AST, Edit]] = [
            (c.func, lambda _: _set_mesh(jax_name)) for c in calls
        ]
        edits.extend(unused_imports(analysis, ("jax.sharding.use_mesh",), uses))
        fix = Fix("call jax.set_mesh", tuple(edits), imports=imports)
        self.report(node.func, message, fix=fix)

    def _calls_of_imported(self, local: str) -> list[ast.Call] | None:
        """The calls of `local`, bound by a top-level `from jax.sharding import use_mesh`,
        when every read of the name is such a call outside a shim; else None."""
        analysis = self.analysis
        tree = analysis.module.tree
        imported = [
            s
            for s in tree.body
            if isinstance(s, ast.ImportFrom)
            and not s.level
            and s.module == "jax.sharding"
            and any(
                a.name == "use_mesh" and (a.asname or a.name) == local for a in s.names
            )
        ]
        if len(imported) != 1:
            return None
        calls: list[ast.Call] = []
        for name in ast.walk(tree):
            if not isinstance(name, ast.Name) or name.id != local:
                continue
            if not isinstance(name.ctx, ast.Load):
                return None  # rebound somewhere: not only the import's name
            call = analysis.parents.get(name)
            if (
                not isinstance(call, ast.Call)
                or call.func is not name
                or analysis.called_api(call) is not Api.USE_MESH
                or self._shim(call)
                or self.expected(call)
            ):
                return None
            calls.append(call)
        return calls or None

    def _shim(self, node: ast.AST) -> bool:
        """Whether `node` is in a `try:` catching AttributeError, or under a `hasattr` test."""
        parents = self.analysis.parents
        child, current = node, parents.get(node)
        while current is not None:
            if (
                isinstance(current, ast.Try)
                and child in current.body
                and any(_catches_attribute_error(h) for h in current.handlers)
            ):
                return True
            if isinstance(current, (ast.If, ast.IfExp)) and any(
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name)
                and n.func.id == "hasattr"
                for n in ast.walk(current.test)
            ):
                return True
            child, current = current, parents.get(current)
        return False


def _catches_attribute_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        (n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", None))
        in _SHIM_CATCHES
        for n in names
    )


def _set_mesh(jax_name: str) -> cst.BaseExpression:
    import libcst as cst  # for the fix, written only when it is applied

    return cst.parse_expression(f"{jax_name}.set_mesh")
