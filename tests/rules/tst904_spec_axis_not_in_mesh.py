"""TST904: `jax.device_put(x, P(axis))` where the context mesh has no such axis (a report-only rule)."""

from __future__ import annotations

import ast

from jaxfix.analysis.ast_engine.values import Mesh, Spec
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import Safety


class SpecAxisNotInMesh(Rule):
    """
    ## What it does
    Finds `jax.device_put(x, P(axis))` where the context mesh has no axis `axis`.

    ## Why is this bad?
    JAX raises `ValueError: Resource axis: y of P('y',) is not found in mesh: ('x',).`

    ## Example
    ```python
    with jax.set_mesh(jax.make_mesh((8,), ("x",))):
        jax.device_put(1, P("y"))
    ```

    ## Use instead
    ```python
    with jax.set_mesh(jax.make_mesh((8,), ("x",))):
        jax.device_put(1, P("x"))
    ```

    ## Fix safety
    It reports, it does not fix.

    ## References
    - [`jax.device_put`](https://docs.jax.dev/en/latest/_autosummary/jax.device_put.html)
    """

    code = "TST904"
    name = "spec-axis-not-in-mesh"
    summary = "device_put(x, P(axis)) where the context mesh has no such axis"
    fixes: dict[Safety, str] = {}  # it reports, it does not fix
    tokens = ((b"device_put",),)
    raises = ("Resource axis: {text} of {text} is not found in mesh: {text}.",)

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        args = (
            analysis.bind(node) if analysis.called_api(node) is Api.DEVICE_PUT else None
        )
        if not args or "device" not in args:  # which calls
            return
        spec = analysis.value_of(args["device"])  # question 2: what P(...) evaluates to
        mesh = analysis.current_mesh(node)  # question 1: one mesh on every way it runs
        if (
            not isinstance(spec, Spec)
            or not isinstance(mesh, Mesh)
            or not mesh.axis_names
        ):
            return  # not a spec, or no context, or a mesh the code does not show: a miss
        names = mesh.axis_names
        axes = [
            a
            for part in spec.parts
            for a in (part if isinstance(part, tuple) else (part,))
        ]
        missing = [a for a in axes if isinstance(a, str) and a not in names]
        # (the engine drops a report where the code tests the error: assertRaises)
        if missing:
            self.report(
                node, f"axis {missing[0]!r} is not in the context mesh's axes {names}"
            )
