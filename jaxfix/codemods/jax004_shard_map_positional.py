"""JAX004: arguments after the function passed to `jax.shard_map` by position."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, with_note
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst

# What the deprecated jax.experimental.shard_map.shard_map takes by position after the
# function, as jax.shard_map names it: code moved to jax.shard_map by renaming keeps that order.
SHARD_MAP_KEYWORDS = ("mesh", "in_specs", "out_specs", "check_vma")


class ShardMapPositional(Rule):
    """
    ## What it does
    Finds `jax.shard_map(f, mesh, in_specs, out_specs)` calls (through any import spelling:
    `from jax import shard_map as sm`, `jax._src.shard_map.shard_map`) that pass anything but
    the function by position, and passes those arguments by keyword, in the order
    `jax.experimental.shard_map.shard_map` takes them: `mesh`, `in_specs`, `out_specs`, then
    its `check_rep`, which `jax.shard_map` calls `check_vma`. Such calls come from code moved
    off the deprecated `jax.experimental.shard_map.shard_map` by changing the import only.
    The callee is what the engine resolves the name to (imports, aliases, assignments:
    [docs/engine.md](../engine.md)), never its spelling.

    ## Why is this bad?
    Every parameter of `jax.shard_map` after the function is keyword-only: the call raises
    `TypeError: shard_map() takes from 0 to 1 positional arguments but 4 were given`.

    ## Example
    ```python
    total = jax.shard_map(local_sum, mesh, P("x"), P())(x)
    ```

    ## Use instead
    ```python
    total = jax.shard_map(local_sum, mesh=mesh, in_specs=P("x"), out_specs=P())(x)
    ```

    ## Fix safety
    Safe: the call never ran on `jax.shard_map`, and the only order these arguments had is
    the one of `jax.experimental.shard_map.shard_map`, whose `check_rep` is passed on as
    `check_vma`. A call with a `*args`, more than five positional arguments, or a keyword
    that a positional argument would also give is reported without a fix.

    ## References
    - `shard_map` in jax/_src/shard_map.py (jax 0.10.2 and 0.12.0.1):
      `def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(), check_vma=True)`.
    - `shard_map` in jax/experimental/shard_map.py: `def shard_map(f, mesh, in_specs, out_specs, check_rep=True)`.
    """

    code = "JAX004"
    name = "shard-map-positional-arguments"
    summary = "arguments after the function passed to jax.shard_map by position"
    fixes = {Safety.SAFE: "pass them by keyword, in the experimental shard_map's order"}
    tokens = ((b"shard_map",),)
    raises = ("shard_map() takes from 0 to 1 positional arguments but {text}",)
    error = "TypeError"

    def visit_Call(self, node: ast.Call) -> None:
        if (
            len(node.args) < 2
            or not self.analysis.may_call(node, Api.SHARD_MAP)
            or self.analysis.called_api(node) is not Api.SHARD_MAP
        ):
            return
        extra = node.args[1:]
        message = (
            f"jax.shard_map takes only its function by position, here given {len(node.args)} "
            "positional arguments; JAX raises TypeError: shard_map() takes from 0 to 1 "
            "positional arguments"
        )
        given = {k.arg for k in node.keywords}
        note = None
        if any(isinstance(a, ast.Starred) for a in node.args):
            note = not_fixed("a *argument's parts are not known")
        elif len(extra) > len(SHARD_MAP_KEYWORDS):
            note = not_fixed("more positional arguments than shard_map ever took")
        elif given & set(SHARD_MAP_KEYWORDS[: len(extra)]):
            note = not_fixed("a keyword gives one of them too")
        elif "check_rep" in given and len(extra) == len(SHARD_MAP_KEYWORDS):
            note = not_fixed("it passes check_rep= too")
        if note is not None:
            self.report(node, with_note(message, note))
            return
        count = len(node.args)
        fix = Fix(
            "pass them by keyword",
            ((node, lambda old: by_keyword(old, count)),),
        )
        self.report(node, message, fix=fix)


def by_keyword(old: cst.CSTNode, count: int) -> cst.CSTNode:
    """The call with its first `count` positional arguments after the function named as
    `SHARD_MAP_KEYWORDS` (JAX101 reuses it)."""
    import libcst as cst  # for the fix, written only when it is applied

    assert isinstance(old, cst.Call)

    no_space = cst.SimpleWhitespace("")
    args = list(old.args)
    for index in range(1, count):
        args[index] = args[index].with_changes(
            keyword=cst.Name(SHARD_MAP_KEYWORDS[index - 1]),
            equal=cst.AssignEqual(
                whitespace_before=no_space, whitespace_after=no_space
            ),
        )
    return old.with_changes(args=args)
