"""JAX005: `check_rep=` given to `jax.shard_map`, which takes `check_vma=`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, with_note
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst


class ShardMapCheckRep(Rule):
    """
    ## What it does
    Finds `check_rep=` passed to `jax.shard_map` (through any import spelling:
    `from jax import shard_map as sm`, `jax._src.shard_map.shard_map`), directly or through
    `functools.partial(jax.shard_map, ..., check_rep=...)` (also as a decorator), and renames
    it `check_vma=`. `check_rep` is the keyword of the deprecated
    `jax.experimental.shard_map.shard_map`, which still takes it (JAX101 moves those calls to
    `jax.shard_map`); code moved to `jax.shard_map` by hand often keeps it. The callee is
    what the engine resolves the name to (imports, aliases, assignments:
    [docs/engine.md](../engine.md)), never its spelling.

    ## Why is this bad?
    `jax.shard_map` has no `check_rep` parameter: calling it raises
    `TypeError: shard_map() got an unexpected keyword argument 'check_rep'` (for a `partial`,
    when it is applied).

    ## Example
    ```python
    @partial(jax.shard_map, mesh=mesh, in_specs=P("x"), out_specs=P(), check_rep=False)
    def total(x):
        return jax.lax.psum(x.sum(), "x")
    ```

    ## Use instead
    ```python
    @partial(jax.shard_map, mesh=mesh, in_specs=P("x"), out_specs=P(), check_vma=False)
    def total(x):
        return jax.lax.psum(x.sum(), "x")
    ```

    ## Fix safety
    The rename is safe: `jax.experimental.shard_map.shard_map` passes its `check_rep` on as
    `check_vma`, the same check under its new name. A call that passes both is reported
    without a fix.

    ## References
    - `shard_map` in jax/_src/shard_map.py (jax 0.10.2 and 0.12.0.1): its keyword-only
      parameters are `out_specs`, `in_specs`, `mesh`, `axis_names` and `check_vma`.
    - `shard_map` in jax/experimental/shard_map.py calls it with `check_vma=check_rep`.
    """

    code = "JAX005"
    name = "shard-map-check-rep"
    summary = "`check_rep=` given to jax.shard_map, which takes `check_vma=`"
    fixes = {Safety.SAFE: "rename `check_rep=` to `check_vma=`"}
    tokens = ((b"check_rep", b"shard_map"),)
    raises = ("shard_map() got an unexpected keyword argument 'check_rep'",)
    error = "TypeError"

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        # the keyword first: most calls have none, and their callee is then not evaluated
        given = {k.arg: k for k in node.keywords if k.arg is not None}
        old = given.get("check_rep")
        if old is None:
            return
        api = analysis.called_api(node)
        if api is Api.PARTIAL and node.args:
            api = analysis.api_of(node.args[0])
        if api is not Api.SHARD_MAP:
            return
        message = (
            f"`{analysis.text(old)}`: jax.shard_map takes `check_vma=`, not `check_rep=`; "
            "JAX raises TypeError: shard_map() got an unexpected keyword argument 'check_rep'"
        )
        if "check_vma" in given:
            self.report(old, with_note(message, not_fixed("it passes check_vma= too")))
            return
        self.report(
            old, message, fix=Fix("rename to `check_vma=`", ((old, rename_check_rep),))
        )


def rename_check_rep(old: cst.CSTNode) -> cst.CSTNode:
    """The `check_rep=` argument renamed `check_vma=` (JAX101 reuses it)."""

    import libcst as cst  # for the fix, written only when it is applied

    assert isinstance(old, cst.Arg)  # an `ast.keyword` is written as an Arg
    return old.with_changes(keyword=cst.Name("check_vma"))
