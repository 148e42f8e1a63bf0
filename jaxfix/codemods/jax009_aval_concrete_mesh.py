"""JAX009: a `ShapedArray` sharded on a concrete mesh, where an aval's mesh must be abstract."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.values import Mesh
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, with_note
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst


class AvalConcreteMesh(Rule):
    """
    ## What it does
    Finds `jax.core.ShapedArray(shape, dtype, sharding=NamedSharding(mesh, spec))` where the
    engine knows `mesh` is a concrete mesh (made by `jax.make_mesh(...)` or
    `jax.sharding.Mesh(...)`, through any name or import spelling:
    [docs/engine.md](../engine.md)), and builds the sharding on `mesh.abstract_mesh`.
    `jax.ShapeDtypeStruct` takes a concrete mesh's sharding without error and is left alone.
    A mesh the engine cannot pin down is not reported, unless a run's log (`--from-log`,
    `repair`) shows this call raised the error.

    ## Why is this bad?
    An aval's sharding must be on an abstract mesh: the call raises `ValueError: Mesh of an
    aval must be an AbstractMesh. Got Mesh('x': 8, axis_types=(Explicit,)) of type <class
    'jax._src.mesh.Mesh'>`.

    ## Example
    ```python
    mesh = jax.make_mesh((8,), ("x",))
    aval = jax.core.ShapedArray((16,), jnp.float32, sharding=NamedSharding(mesh, P("x")))
    ```

    ## Use instead
    ```python
    mesh = jax.make_mesh((8,), ("x",))
    aval = jax.core.ShapedArray(
        (16,), jnp.float32, sharding=NamedSharding(mesh.abstract_mesh, P("x"))
    )
    ```

    ## Fix safety
    Safe: the call never ran, and an aval keeps only the abstract mesh of any sharding.
    A sharding written elsewhere (a name) is fixed where it is made when that name is read
    only as the `sharding=` of ShapedArrays (one assignment reaching them all); else it is
    reported without a fix: other code may need it concrete.

    ## References
    - `get_sharding` in jax/_src/core.py (jax 0.10.2 and 0.12.0.1), which raises.
    """

    code = "JAX009"
    name = "aval-concrete-mesh"
    summary = (
        "a ShapedArray sharded on a concrete mesh: an aval's mesh must be abstract"
    )
    fixes = {Safety.SAFE: "build the sharding on `mesh.abstract_mesh`"}
    # the `sharding=` keyword the call needs (a comment or a notebook's line break may split it)
    tokens = (
        (b"ShapedArray", rb"\bsharding(?:\s|\\[nrt]?|[\",]|#[^\r\n]*(?![^\r\n]))*="),
    )
    raises = ("Mesh of an aval must be an AbstractMesh. Got {text}",)
    raised_in = ("jax/_src/core.py",)

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        # the keyword first: most calls have none, and their callee is then not evaluated
        sharding = next((k.value for k in node.keywords if k.arg == "sharding"), None)
        if (
            sharding is None
            or not analysis.may_call(node, Api.SHAPED_ARRAY)
            or analysis.called_api(node) is not Api.SHAPED_ARRAY
        ):
            return
        written = (
            analysis.written_as(sharding)
            if isinstance(sharding, ast.Name)
            else sharding
        )
        if not isinstance(written, ast.Call):
            return
        if analysis.called_api(written) is not Api.NAMED_SHARDING:
            return
        mesh = (
            written.args[0]
            if written.args
            else next((k.value for k in written.keywords if k.arg == "mesh"), None)
        )
        if mesh is None:
            return
        value = analysis.value_of(mesh)
        if isinstance(value, Mesh) and value.is_abstract:
            return
        if not isinstance(value, Mesh) and (
            analysis.confirmed(node, self.code) is None or _abstract_attribute(mesh)
        ):
            return  # neither the engine nor a run's log shows a concrete mesh
        if self.expected(node):
            return
        message = (
            f"`{analysis.text(mesh)}` is a concrete Mesh: a ShapedArray's sharding must be "
            "on an AbstractMesh; JAX raises ValueError: Mesh of an aval must be an "
            "AbstractMesh"
        )
        if written is not sharding:
            first = self._only_for_avals(sharding, written)
            if first is not None and first is not sharding:
                note = f"fixed with the one at line {analysis.line(first)}"
                self.report(sharding, with_note(message, note))
                return
            if first is not None and first is sharding:
                fix = Fix(
                    "use `.abstract_mesh`", ((mesh, _abstract_mesh),), Safety.SAFE
                )
                self.report(sharding, message, fix=fix)
                return
            note = not_fixed(
                f"the sharding is made at line {analysis.line(written)}, where other code "
                "may need it concrete"
            )
            self.report(sharding, with_note(message, note))
            return
        self.report(
            sharding,
            message,
            fix=Fix("use `.abstract_mesh`", ((mesh, _abstract_mesh),), Safety.SAFE),
        )

    def _only_for_avals(self, sharding: ast.expr, written: ast.Call) -> ast.Name | None:
        """When `sharding` names `written` through its one assignment (`sharding =
        NamedSharding(...)`), and every read that assignment reaches is the `sharding=` of a
        ShapedArray: the first of those reads (whose report carries the fix). Else None."""
        analysis = self.analysis
        assign = analysis.parents.get(written)
        if (
            not isinstance(sharding, ast.Name)
            or not analysis.bound_once(sharding)
            or not isinstance(assign, ast.Assign)
            or assign.value is not written
            or len(assign.targets) != 1
            or not isinstance(assign.targets[0], ast.Name)
            or assign.targets[0].id != sharding.id
        ):
            return None
        reads = analysis.reads_reached(assign, sharding.id)
        if not reads or sharding not in reads:
            return None
        for read in reads:
            keyword = analysis.parents.get(read)
            call = analysis.parents.get(keyword) if keyword is not None else None
            if (
                not isinstance(keyword, ast.keyword)
                or keyword.arg != "sharding"
                or not isinstance(call, ast.Call)
                or analysis.called_api(call) is not Api.SHAPED_ARRAY
                or not analysis.bound_once(read)
            ):
                return None
        return min(reads, key=lambda r: (r.lineno, r.col_offset))


def _abstract_mesh(old: cst.CSTNode) -> cst.CSTNode:
    import libcst as cst  # for the fix, written only when it is applied

    assert isinstance(old, cst.BaseExpression)
    if not isinstance(old, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        old = old.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Attribute(value=old, attr=cst.Name("abstract_mesh"))


def _abstract_attribute(expr: ast.expr) -> bool:
    """`x.abstract_mesh`, abstract whatever `x` is: a log's error at this line was before its
    fix (the fix made it so)."""
    return isinstance(expr, ast.Attribute) and expr.attr == "abstract_mesh"
