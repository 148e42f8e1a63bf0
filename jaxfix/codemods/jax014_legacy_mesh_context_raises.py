"""JAX014: a `with mesh:` block under which a call surely raises for want of a context mesh."""

from __future__ import annotations

import ast

from jaxfix.analysis.ast_engine.values import Unknown
from jaxfix.codemods.jax102_legacy_mesh_context import LegacyMeshContext
from jaxfix.codemods.legacy_mesh_raises import Raising, entered_unseen, raising_under
from jaxfix.codemods.text import other_file, short
from jaxfix.ground.diagnostics import Safety


class LegacyMeshContextRaises(LegacyMeshContext):
    """
    ## What it does
    Finds a legacy `with mesh:` (a concrete `jax.sharding.Mesh` entered as a context manager)
    under which a call surely raises because the block sets no context mesh: a `jax.jit`
    given a `PartitionSpec` in `in_shardings` or `out_shardings`, then called, lowered or
    traced; `jax.device_put(x, P(...))`; `jax.shard_map(f, in_specs=..., out_specs=...)`
    without `mesh=`, called. The call may be in the block, in a function of the project the
    block calls, or, for a block that yields in a `@contextmanager` function, under a `with`
    that enters it. With `--unsafe-fixes` it enters the mesh with `jax.set_mesh(mesh)`: the
    fix of JAX102, with its refusals.

    JAX102 is the deprecation of every `with mesh:`; this rule is the subset that raises,
    selected by default. Where both are selected, a block is this rule's alone.

    What counts is what the engine shows ([docs/engine.md](../engine.md)): the API, a bare
    `PartitionSpec` among its arguments, and a way the call runs that enters the block and
    no context that sets a mesh (`jax.set_mesh`, `use_mesh`, `use_abstract_mesh`, or a
    context manager jaxfix cannot see into). `pjit` is not counted: it reads the mesh of
    `with mesh:` and runs there.

    ## Why is this bad?
    `Mesh.__enter__` sets only the old resource environment, not the context mesh that
    `jax.jit`, `jax.device_put` and `jax.shard_map` read. Inside it,
    `jax.jit(f, in_shardings=P("x"))(x)` raises `RuntimeError: jit requires a non-empty mesh
    in context if you are passing PartitionSpecs to in_shardings`, `jax.device_put(x,
    P("x"))` raises `ValueError: Please set a mesh via jax.set_mesh if a PartitionSpec is
    passed to device_put`, and `jax.shard_map` without `mesh=` raises `ValueError: The context
    mesh cannot be empty` (jax 0.10.2 and 0.12.0.1).

    ## Example
    ```python
    mesh = Mesh(np.array(jax.devices()), ("x",))
    with mesh:
        y = jax.jit(f, in_shardings=P("x"))(x)
    ```

    ## Use instead
    ```python
    mesh = Mesh(np.array(jax.devices()), ("x",))
    with jax.set_mesh(mesh):
        y = jax.jit(f, in_shardings=P("x"))(x)
    ```

    ## Fix safety
    Unsafe, as JAX102's: `jax.set_mesh` commits the arrays made under it, and code that
    reads the old context (`thread_resources`, `pjit` reached from elsewhere) loses it; each
    hazard JAX102 refuses to fix is refused here too, with the same reason. The errors are
    this rule's (`raises`): a log or a recorded run (`--from-log`, `jaxfix repair`) that
    shows one raised under a block makes it this rule's too, where the engine alone does not
    see the call; a recorded run also names the `with mesh:` still in force when a test
    raised (a pytest fixture's `with Mesh(...) as m: yield m`, whose generator is in no
    traceback), which is fixed as the block around the raising call is.

    ## References
    - `_create_sharding_for_array` in jax/_src/pjit.py ("jit requires a non-empty mesh"),
      `device_put` in jax/_src/api.py, `_shard_map` in jax/_src/shard_map.py, which raise.
    - `Mesh.__enter__` in jax/_src/mesh.py, which fills only `thread_resources`.
    """

    code = "JAX014"
    name = "legacy-mesh-context-raises"
    summary = "a call under `with mesh:` raises for want of a context mesh"
    fixes = {Safety.UNSAFE: "`with jax.set_mesh(mesh):`, as JAX102 fixes it"}
    tokens = (
        (
            rb'(?m)(?:^|"|\\n)(?:[ \t\f]|\\t)*(?:async[ \t]+)?with\b',
            rb"mesh|Mesh",
        ),
    )
    raises = (
        # `in_shardings` or `out_shardings`: JAX names the argument the spec was passed to
        "jit requires a non-empty mesh in context if you are passing `PartitionSpec`s to "
        "{text}",
        "Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put",
        "The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter into a mesh "
        "context",
    )
    # jit's is a RuntimeError, device_put's and shard_map's are ValueErrors.
    error = ("RuntimeError", "ValueError", "ValueError")
    raised_in = ("jax/_src/pjit.py", "jax/_src/api.py", "jax/_src/shard_map.py")
    # The first release measured: `with mesh:` warns since 0.10.1, and 0.10.2 raises; an
    # older target leaves the rule to `--select`.
    raises_since = "0.10.1"

    def _raising(self, node: ast.With, items: list[ast.withitem]) -> Raising | None:
        return raising_under(self.analysis, node, items)

    def expected(self, node: ast.AST) -> bool:
        return self.analysis.expected(node, self.raises, self.error)

    def _legacy(self, expr: ast.expr) -> bool:
        return super()._legacy(expr) or self._entered_in_run(expr)

    def _entered_in_run(self, expr: ast.expr) -> bool:
        """A stored mesh (a name, an attribute) the engine cannot evaluate, entered by this
        `with` and still in force when the run raised this rule's error under it: JAX's
        message says no context mesh was set, and the recorder noted this line as the one
        that entered the mesh the error left (`Mesh.__exit__`; jaxfix/check/value_sites.py
        places that evidence on the item). The item's own name must say mesh (`self.mesh`,
        `device_mesh`): an evidence file can be forged, and no fact of the code proves an
        unknown object a mesh."""
        spelled = expr.id if isinstance(expr, ast.Name) else getattr(expr, "attr", "")
        if "mesh" not in spelled.lower() or not isinstance(
            self.analysis.value_of(expr), Unknown
        ):
            return False  # a record is a claim: `with self.lock:` is never taken for a mesh
        evidence = self.analysis.evidence.at(expr, self.code)
        site = evidence.value_site if evidence is not None else None
        return (
            evidence is not None
            and evidence.at_value
            and site is not None
            and site.path == self.analysis.path
            and site.span[:2] == self.analysis.span(expr).start
        )

    def _owns(self, node: ast.With, raising: Raising | None) -> bool:
        confirmed = self.analysis.confirmed_through(node, self.code)
        if raising is not None or confirmed is not None:
            return True
        self.leave(node, entered_unseen(self.analysis, node))
        return False

    def _message(self, mesh: ast.expr, raising: Raising | None) -> str:
        analysis = self.analysis
        entered = short(analysis.text(mesh))
        if raising is None:  # a run's error, under the block
            return (
                f"a call under `with {entered}:` raised for want of a context mesh, which "
                "it does not set: enter it with `jax.set_mesh`"
            )
        where = (
            f"line {raising.call.lineno}"
            if raising.path == analysis.path
            else f"{other_file(raising.path, analysis.path)}:{raising.call.lineno}"
        )
        return (
            f"`{short(raising.text)}` ({where}) raises under `with {entered}:`, "
            f"which sets no context mesh ({raising.what}): enter it with `jax.set_mesh`"
        )
