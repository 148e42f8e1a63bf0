"""JAX904: `jax.device_put(x, P(axis))` where the context mesh has no such axis (a report-only rule)."""

from __future__ import annotations

import libcst as cst

from jaxfix.analysis.contexts import context_mesh_sites
from jaxfix.analysis.names import Api
from jaxfix.analysis.values import MeshValue
from jaxfix.codemods.base import CstRule
from jaxfix.diagnostics import Safety


class SpecAxisNotInMesh(CstRule):
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

    code = "JAX904"
    name = "spec-axis-not-in-mesh"
    summary = "device_put(x, P(axis)) where the context mesh has no such axis"
    fixes: dict[Safety, str] = {}  # it reports, it does not fix
    tokens = ((b"device_put",),)
    raises = ("Resource axis: {text} of {text} is not found in mesh: {text}.",)

    def visit_Call(self, node: cst.Call) -> None:
        analysis = self.analysis
        args = (
            analysis.bind(node) if analysis.called_api(node) is Api.DEVICE_PUT else None
        )  # which calls
        spec = analysis.resolve(args["device"]) if args and "device" in args else None
        if (
            not isinstance(spec, cst.Call)
            or analysis.called_api(spec) is not Api.PARTITION_SPEC
        ):
            return
        axes = [
            analysis.value_of(arg.value) for arg in spec.args if arg.keyword is None
        ]  # question 2
        for site in context_mesh_sites(analysis.contexts_at(node)):  # question 1
            mesh = site.mesh
            if not isinstance(mesh, MeshValue) or mesh.axis_names is None:
                continue
            names = mesh.axis_names
            missing = [
                axis for axis in axes if isinstance(axis, str) and axis not in names
            ]
            if missing:
                return self.report(
                    node,
                    f"axis {missing[0]!r} is not in the context mesh {mesh.shape_text()}",
                )
