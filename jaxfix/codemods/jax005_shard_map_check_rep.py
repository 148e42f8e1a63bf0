"""JAX005: `check_rep=` given to `jax.shard_map`, which takes `check_vma=`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.values import DictValue
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, with_note
from jaxfix.evidence.facts import Evidence
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst


class ShardMapCheckRep(Rule):
    """
    ## What it does
    Finds `check_rep=` passed to `jax.shard_map` (through any import spelling:
    `from jax import shard_map as sm`, `jax._src.shard_map.shard_map`), directly or through
    `functools.partial(jax.shard_map, ..., check_rep=...)` (also as a decorator), and renames
    it `check_vma=`; also a `check_rep` key of a mapping passed by `**` whose value the
    engine knows (a dict literal here, a constant imported from another module), renamed
    where the dict is written. `check_rep` is the keyword of the deprecated
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
    without a fix. Renaming the key of a mapping bound to a name is unsafe: other code
    may read that mapping (an experimental `shard_map`, which takes `check_rep`). A mapping
    written in another module is reported at the call; from a recorded run (`jaxfix
    repair`, `--evidence`) its key is renamed there.

    ## References
    - `shard_map` in jax/_src/shard_map.py (jax 0.10.2 and 0.12.0.1): its keyword-only
      parameters are `out_specs`, `in_specs`, `mesh`, `axis_names` and `check_vma`.
    - `shard_map` in jax/experimental/shard_map.py calls it with `check_vma=check_rep`.
    """

    code = "JAX005"
    name = "shard-map-check-rep"
    summary = "`check_rep=` given to jax.shard_map, which takes `check_vma=`"
    fixes = {
        Safety.SAFE: "rename `check_rep=` to `check_vma=`",
        Safety.UNSAFE: "rename the `check_rep` key of a mapping passed by `**` that other "
        "code may read too",
    }
    tokens = ((b"check_rep", b"shard_map"), (b"shard_map", rb"\*\*"))
    raises = ("shard_map() got an unexpected keyword argument 'check_rep'",)
    error = "TypeError"

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        # the keyword first: most calls have none, and their callee is then not evaluated
        given = {k.arg: k for k in node.keywords if k.arg is not None}
        old = given.get("check_rep")
        spread = [k for k in node.keywords if k.arg is None]
        if old is None and not spread:
            return
        api = analysis.called_api(node)
        if api is Api.PARTIAL and node.args:
            api = analysis.api_of(node.args[0])
        if api is not Api.SHARD_MAP:
            return
        if old is None:
            for keyword in spread:
                self._spread(node, keyword, given)
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

    def checks(self, call: ast.Call) -> bool:
        api = self.analysis.called_api(call)
        if api is Api.PARTIAL and call.args:
            api = self.analysis.api_of(call.args[0])
        return api is Api.SHARD_MAP

    def _spread(
        self, call: ast.Call, keyword: ast.keyword, given: dict[str, ast.keyword]
    ) -> None:
        """`**mapping` whose value the engine knows (a dict here, a constant of another
        module, `dict(...)`) holding a `check_rep` key: renamed where the dict is written."""
        analysis = self.analysis
        mapping = analysis.value_of(keyword.value)
        if not isinstance(mapping, DictValue) or mapping.get("check_rep") is None:
            return
        message = (
            f"`{analysis.text(keyword)}` passes `check_rep`: jax.shard_map takes "
            "`check_vma=`; JAX raises TypeError: shard_map() got an unexpected keyword "
            "argument 'check_rep'"
        )
        if "check_vma" in given or mapping.get("check_vma") is not None:
            self.report(call, with_note(message, not_fixed("it passes check_vma too")))
            return
        written = (
            analysis.written_elsewhere(keyword.value)
            if isinstance(keyword.value, (ast.Name, ast.Attribute))
            else (analysis.module, keyword.value)
        )
        key = _key(written[1], "check_rep") if written is not None else None
        if written is None or key is None:
            why = "the mapping is not written as a dict literal with that key"
            self.report(call, with_note(message, not_fixed(why)))
            return
        module, table = written
        if module is not analysis.module:
            where = f"{module.path.name}:{key.lineno}"
            self.report(
                call,
                with_note(message, not_fixed(f"the key is written in {where}")),
            )
            return
        safety = Safety.SAFE if table is keyword.value else Safety.UNSAFE
        fix = Fix("rename the key to `check_vma`", ((key, _renamed_key),), safety)
        self.report(call, message, fix=fix)

    def at_value(self, evidence: Evidence) -> None:
        """The `check_rep` key of the mapping a recorded call passed by `**` is written here
        (jaxfix/check/value_sites.py found it): renamed here."""
        site = evidence.value_site
        if site is None:
            return
        line, column = site.span[0], site.span[1]
        key = next(
            (
                n
                for n in ast.walk(self.analysis.module.tree)
                if (
                    (isinstance(n, ast.Constant) and n.value == "check_rep")
                    or (isinstance(n, ast.keyword) and n.arg == "check_rep")
                )
                and getattr(n, "lineno", None) == line
                and self.analysis.span(n).start == (line, column)
            ),
            None,
        )
        if key is None:
            return  # changed since the run
        raised = f"{site.raised[0].name}:{site.raised[1]}"
        message = (
            f"the `check_rep` key of `{site.name}` reaches jax.shard_map by `**` at "
            f"{raised}: jax.shard_map takes `check_vma=`; JAX raises TypeError: "
            "shard_map() got an unexpected keyword argument 'check_rep'"
        )
        # the key of a dict literal, or the keyword of a `dict(check_rep=False)` call
        rename = rename_check_rep if isinstance(key, ast.keyword) else _renamed_key
        fix = Fix("rename the key to `check_vma`", ((key, rename),), Safety.UNSAFE)
        self.report(key, message, fix=fix)


def _key(table: ast.expr, name: str) -> ast.Constant | None:
    """The key `name` of a dict literal (`{"check_rep": False}`) or `dict(...)` call."""
    if isinstance(table, ast.Dict):
        keys = [
            k for k in table.keys if isinstance(k, ast.Constant) and k.value == name
        ]
        return keys[0] if len(keys) == 1 else None
    return None


def _renamed_key(old: cst.CSTNode) -> cst.CSTNode:
    """`"check_rep"` -> `"check_vma"`, in the same quotes."""
    import libcst as cst  # for the fix, written only when it is applied

    assert isinstance(old, cst.SimpleString)
    return old.with_changes(value=old.value.replace("check_rep", "check_vma"))


def rename_check_rep(old: cst.CSTNode) -> cst.CSTNode:
    """The `check_rep=` argument renamed `check_vma=` (JAX101 reuses it)."""

    import libcst as cst  # for the fix, written only when it is applied

    assert isinstance(old, cst.Arg)  # an `ast.keyword` is written as an Arg
    return old.with_changes(keyword=cst.Name("check_vma"))
