"""JAX006: `jax.sharding.use_mesh`, removed from JAX: `jax.set_mesh` enters a mesh now."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, with_note
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst

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
    use_mesh`, whose import raises ImportError too) is reported without a fix.

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
        if analysis.called_api(node) is not Api.USE_MESH or self._shim(node):
            return
        message = (
            f"`{analysis.text(node.func)}` was removed from JAX: use `jax.set_mesh`; JAX "
            "raises AttributeError: module 'jax.sharding' has no attribute 'use_mesh'"
        )
        if not isinstance(node.func, ast.Attribute):
            note = not_fixed("its import raises too, and is not rewritten")
            self.report(node.func, with_note(message, note))
            return
        jax_name, imports = analysis.module_spelling("jax")
        fix = Fix(
            "call jax.set_mesh",
            ((node.func, lambda _: _set_mesh(jax_name)),),
            imports=imports,
        )
        self.report(node.func, message, fix=fix)

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
