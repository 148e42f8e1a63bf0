"""TST004: a jitted function whose out_shardings' mesh has another size than the context mesh
(a report-only rule of the suite: one module and its fixtures, registered by --rule-module)."""

from __future__ import annotations

import ast

from jaxfix.analysis.ast_engine.jitting import JitApplication
from jaxfix.analysis.ast_engine.values import (
    ListValue,
    Mesh,
    MeshKind,
    Sharding,
    Value,
)
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import Safety
from jaxfix.ground.quoting import cut


class OutShardingMeshSize(Rule):
    """
    ## What it does
    Finds a call (or `.lower(...)`) of `jax.jit(f, out_shardings=NamedSharding(m, spec))` under
    `jax.set_mesh(c)` where the meshes `m` and `c` have different sizes: the jit written
    inline, through a name bound once, or as a `@jax.jit(...)` / `@partial(jax.jit, ...)`
    decorator; `out_shardings` one `NamedSharding` or a tuple or list of them.

    Not reported, because JAX does not raise there (jax 0.10.2 and 0.12.0.1): the legacy
    `with mesh:` context; no mesh context at all; meshes of the same devices in another shape
    or with other axis names; a jitted function built under the mesh but called outside it.
    Meshes of the same size on other devices raise too, but their devices are not visible in
    the code; under `use_abstract_mesh` JAX raises another message (and JAX001's first).

    ## Why is this bad?
    JAX raises `ValueError: Received incompatible devices for jitted computation. Got jit's
    context mesh with device ids [0, 1, 2, 3, 4, 5, 6, 7] on platform CPU and explicit output
    sharding with device ids [0, 1, 2, 3] on platform CPU` when the call runs (or lowers).

    ## Example
    ```python
    small = jax.make_mesh((4,), ("x",))
    with jax.set_mesh(jax.make_mesh((8,), ("x",))):
        jax.jit(f, out_shardings=NamedSharding(small, P("x")))(x)
    ```

    ## Use instead
    ```python
    mesh = jax.make_mesh((8,), ("x",))
    with jax.set_mesh(mesh):
        jax.jit(f, out_shardings=NamedSharding(mesh, P("x")))(x)
    ```

    ## Fix safety
    It reports, it does not fix: which of the two meshes is meant is the author's choice.

    ## References
    - [`jax.jit`](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html)
    - [`jax.set_mesh`](https://docs.jax.dev/en/latest/_autosummary/jax.set_mesh.html)
    """

    code = "TST004"
    name = "out-sharding-mesh-size"
    summary = (
        "a jitted call whose out_shardings mesh differs in size from the context mesh"
    )
    fixes: dict[Safety, str] = {}  # it reports, it does not fix
    tokens = ((b"out_shardings",),)
    raises = (
        "Received incompatible devices for jitted computation. Got jit's context mesh with "
        "device ids {text} on platform {text} and explicit output sharding with device ids "
        "{text} on platform {text}",
    )
    raised_in = ("jax/_src/pjit.py",)  # re-raised there (jax 0.10.2 and 0.12.0.1)

    def visit_Call(self, node: ast.Call) -> None:
        jitted = self._jitted(node)  # which calls
        out = jitted.keywords.get("out_shardings") if jitted else None
        if out is None:
            return
        # Confirmed mode: this is the call TST004 checks where a log shows its error (its
        # message names no mesh: nothing to fill in; the engine says when the code shows
        # no reason).
        self.analysis.confirmed(node, self.code)
        sizes = _mesh_sizes(self.analysis.value_of(out))  # question 2
        if not sizes:
            return
        for site in self.analysis.enclosing(node):  # question 1
            mesh = site.mesh
            context = (
                mesh.size
                if site.api is Api.SET_MESH
                and isinstance(mesh, Mesh)
                and mesh.kind is MeshKind.CONCRETE
                else None
            )
            other = sorted(size for size in sizes if size != context)
            if context is not None and other:
                text = cut(" ".join(self.analysis.text(site.node).split()), 60)
                return self.report(
                    node,
                    f"out_shardings is on a mesh of size {other[0]}, the context mesh of "
                    f"{text} (line {self.analysis.line(site.node)}) of size "
                    f"{context}: JAX raises 'Received incompatible devices for jitted "
                    "computation'",
                )

    def _jitted(self, call: ast.Call) -> JitApplication | None:
        """The jit that `call` runs: `jit(f, ...)(x)`, `g(x)` or `g.lower(x)` for a `g` that is
        `jit(f, ...)` or a function under a jit decorator."""
        analysis, func = self.analysis, call.func
        if isinstance(func, ast.Attribute) and func.attr == "lower":
            func = func.value
        target = analysis.written_as(func)
        if isinstance(target, ast.Call):
            applied = analysis.jit_application(target)
            return applied if applied and applied.function is not None else None
        definition = analysis.definition(func) if isinstance(func, ast.Name) else None
        for decorator in definition.decorator_list if definition else ():
            applied = analysis.jit_application(decorator)
            if applied is not None:
                return applied
        return None


def _mesh_sizes(out: Value) -> set[int]:
    """The sizes of the concrete meshes of `out`'s NamedShardings (one, or a tuple or list of
    them); empty when one of them is not known."""
    shardings = (
        out
        if isinstance(out, tuple)
        else out.items
        if isinstance(out, ListValue)
        else (out,)
    )
    sizes = set()
    for sharding in shardings:
        mesh = sharding.mesh if isinstance(sharding, Sharding) else None
        if not isinstance(mesh, Mesh) or mesh.kind is not MeshKind.CONCRETE:
            return set()
        if mesh.size is None:
            return set()
        sizes.add(mesh.size)
    return sizes
