"""JAX007: a concrete mesh given to `use_abstract_mesh`, which takes an AbstractMesh."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.values import Mesh
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, what_runs, with_note
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst


class AbstractMeshContextConcrete(Rule):
    """
    ## What it does
    Finds `jax.sharding.use_abstract_mesh(mesh)` where the engine knows `mesh` is a concrete
    mesh (made by `jax.make_mesh(...)` or `jax.sharding.Mesh(...)`, through any name or
    import spelling: [docs/engine.md](../engine.md)), and passes `mesh.abstract_mesh`
    instead. Where the `with` body computes eagerly (`jax.random.key(0)`, `jnp.arange(8)`
    outside a jit), an abstract mesh has no devices to run on: there, with `--unsafe-fixes`,
    it enters the mesh with `jax.set_mesh(mesh)` instead. A mesh the engine cannot pin down
    (a parameter nobody passes in view) is not reported, unless a run's log (`--from-log`,
    `repair`) shows this call raised the error.

    ## Why is this bad?
    `use_abstract_mesh` takes only an `AbstractMesh`: entering it with a concrete mesh
    raises ``ValueError: Expected mesh of type `jax.sharding.AbstractMesh`. Got type: <class
    'jax._src.mesh.Mesh'>``.

    ## Example
    ```python
    mesh = jax.make_mesh((8,), ("x",))
    with jax.sharding.use_abstract_mesh(mesh):
        out = jax.eval_shape(f, x)
    ```

    ## Use instead
    ```python
    mesh = jax.make_mesh((8,), ("x",))
    with jax.sharding.use_abstract_mesh(mesh.abstract_mesh):
        out = jax.eval_shape(f, x)
    ```

    ## Fix safety
    `mesh.abstract_mesh` is safe where the body, as written, neither computes eagerly nor
    calls a function of the project, a jitted function or a callable jaxfix does not know,
    nor yields (a context manager's: its caller's `with` body runs there, unseen):
    tracing, `jax.eval_shape` and lowering run under it as
    the code meant. Where the body computes eagerly, JAX would raise `Passing
    lowering_platforms ... is required when only AbstractMesh exists` (JAX001's error) under
    the abstract mesh, so the fix is `jax.set_mesh(mesh)`, which gives the body the devices
    but also makes the mesh the context for `jit` and `device_put`: unsafe. Where the body
    calls one of those, or the context is not entered by a `with` in view,
    jaxfix cannot tell which of the two the code needs: reported without a fix.

    ## References
    - `use_abstract_mesh` in jax/_src/mesh.py (jax 0.10.2 and 0.12.0.1), which raises.
    - `apply_primitive` in jax/_src/dispatch.py raises JAX001's error for an eager op under
      an abstract mesh context.
    """

    code = "JAX007"
    name = "abstract-mesh-context-concrete"
    summary = "a concrete mesh given to use_abstract_mesh, which takes an AbstractMesh"
    fixes = {
        Safety.SAFE: "pass `mesh.abstract_mesh`",
        Safety.UNSAFE: "`jax.set_mesh(mesh)` where the body computes eagerly",
    }
    tokens = ((b"use_abstract_mesh",),)
    raises = ("Expected mesh of type `jax.sharding.AbstractMesh`. Got type: {text}",)
    raised_in = ("jax/_src/mesh.py",)

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        if (
            len(node.args) != 1
            or not analysis.may_call(node, Api.USE_ABSTRACT_MESH)
            or analysis.called_api(node) is not Api.USE_ABSTRACT_MESH
        ):
            return
        (argument,) = node.args
        value = analysis.value_of(argument)
        if isinstance(value, Mesh) and value.is_abstract:
            return
        if not isinstance(value, Mesh) and (
            analysis.confirmed(node, self.code) is None or _abstract_attribute(argument)
        ):
            return  # neither the engine nor a run's log shows a concrete mesh
        if self.expected(node):
            return
        message = (
            f"`{analysis.text(argument)}` is a concrete Mesh: use_abstract_mesh takes an "
            "AbstractMesh; JAX raises ValueError: Expected mesh of type "
            "`jax.sharding.AbstractMesh`"
        )
        statement = analysis.parents.get(analysis.parents.get(node, node))
        if not isinstance(statement, ast.With):
            note = not_fixed("its context is not entered by a `with` in view")
            self.report(node, with_note(message, note))
            return
        needed = analysis.devices_needed(statement)
        if needed is None:
            fix = Fix(
                "pass `.abstract_mesh`", ((argument, _abstract_mesh),), Safety.SAFE
            )
            self.report(node, message, fix=fix)
            return
        call, eager = needed
        line = analysis.line(call)
        if not eager:
            note = not_fixed(
                f"line {line} {what_runs(analysis, call, eager)}, which may compute "
                "eagerly: `.abstract_mesh` if it only traces, `jax.set_mesh(mesh)` if it "
                "needs devices"
            )
            self.report(node, with_note(message, note))
            return
        jax_name, imports = analysis.module_spelling("jax")
        fix = Fix(
            "enter the mesh with jax.set_mesh",
            ((node, _set_mesh(jax_name)),),
            Safety.UNSAFE,
            imports,
        )
        note = (
            f"line {line} computes eagerly, which needs the devices an abstract mesh "
            "lacks: jax.set_mesh(mesh) gives them"
        )
        self.report(node, with_note(message, note), fix=fix)


def _abstract_mesh(old: cst.CSTNode) -> cst.CSTNode:
    import libcst as cst  # for the fix, written only when it is applied

    assert isinstance(old, cst.BaseExpression)
    if not isinstance(old, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        old = old.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Attribute(value=old, attr=cst.Name("abstract_mesh"))


def _set_mesh(jax_name: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    """`use_abstract_mesh(mesh)` -> `jax.set_mesh(mesh)`."""

    def edit(old: cst.CSTNode) -> cst.CSTNode:
        import libcst as cst  # for the fix, written only when it is applied

        assert isinstance(old, cst.Call)
        return old.with_changes(func=cst.parse_expression(f"{jax_name}.set_mesh"))

    return edit


def _abstract_attribute(expr: ast.expr) -> bool:
    """`x.abstract_mesh`, abstract whatever `x` is: a log's error at this line was before its
    fix (the fix made it so)."""
    return isinstance(expr, ast.Attribute) and expr.attr == "abstract_mesh"
