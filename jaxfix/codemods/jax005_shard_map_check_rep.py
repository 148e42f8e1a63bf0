"""JAX005: `check_rep=` given to `jax.shard_map`, which takes `check_vma=`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.values import DictValue, Unknown
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, other_file, with_note
from jaxfix.evidence.facts import Evidence
from jaxfix.ground.diagnostics import Fix, Safety
from jaxfix.settings.options import Options

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
    written in another module (a config's `dict(check_rep=False)`, handed on through
    constructors and copies the engine follows) is renamed where its key is written, reported
    there as the key that reaches `jax.shard_map` (unsafe, as above); the call names that
    place. From a recorded run (`jaxfix repair`, `--evidence`) its key is renamed there too.

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
    # a key written in a module that never spells shard_map reaches it through others
    tokens = ((b"check_rep",), (b"shard_map", rb"\*\*"))
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

    def __init__(self, analysis: Analysis, options: Options) -> None:
        super().__init__(analysis, options)
        self._spreads: list[tuple[Analysis, ast.Call, DictValue]] | None = None

    def visit_keyword(self, node: ast.keyword) -> None:
        """`check_rep=` of a call (`dict(check_rep=False)`): a key another module's
        jax.shard_map may get, where the engine's value of its mapping says it was written."""
        if node.arg == "check_rep" and isinstance(
            self.analysis.parents.get(node), ast.Call
        ):
            self._key_written(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        """The `"check_rep"` key of a dict literal, as `visit_keyword`."""
        table = self.analysis.parents.get(node)
        if node.value == "check_rep" and isinstance(table, ast.Dict):
            if any(k is node for k in table.keys):
                self._key_written(node)

    def _key_written(self, key: ast.keyword | ast.Constant) -> None:
        """A key written here that reaches `jax.shard_map` by `**` only in other modules
        (a call here reports it itself): renamed here."""
        uses = [
            (where, call)
            for where, call, mapping in self._spread_calls()
            if mapping.written_at("check_rep") is key
        ]
        analysis = self.analysis
        if not uses or any(where.module is analysis.module for where, _ in uses):
            return
        where, call = uses[0]
        message = (
            f"the `check_rep` key written here reaches jax.shard_map by `**` at "
            f"{other_file(where.path, analysis.path)}:{where.line(call)}: jax.shard_map "
            "takes `check_vma=`; JAX raises TypeError: shard_map() got an unexpected keyword "
            "argument 'check_rep'"
        )
        rename = rename_check_rep if isinstance(key, ast.keyword) else _renamed_key
        fix = Fix("rename the key to `check_vma`", ((key, rename),), Safety.UNSAFE)
        self.report(key, message, fix=fix)

    def _spread_calls(self) -> list[tuple[Analysis, ast.Call, DictValue]]:
        """The calls of jax.shard_map in the project's modules spelling it that pass a
        mapping the engine knows by `**`, without check_vma; found once a module."""
        if self._spreads is not None:
            return self._spreads
        analysis = self.analysis
        project = analysis.engine.project
        paths = project.candidate_files("shard_map", analysis.path, imported=False)
        found: list[tuple[Analysis, ast.Call, DictValue]] = []
        for path in [] if isinstance(paths, Unknown) else paths:
            module = project.module(path)
            if isinstance(module, Unknown) or module is analysis.module:
                continue
            other = analysis.of(module)
            for call in ast.walk(module.tree):
                if not isinstance(call, ast.Call) or not self._shard_map(other, call):
                    continue
                if any(k.arg == "check_vma" for k in call.keywords):
                    continue
                for keyword in (k for k in call.keywords if k.arg is None):
                    mapping = other.value_of(keyword.value)
                    if (
                        isinstance(mapping, DictValue)
                        and mapping.get("check_vma") is None
                    ):
                        found.append((other, call, mapping))
        self._spreads = found
        return found

    @staticmethod
    def _shard_map(analysis: Analysis, call: ast.Call) -> bool:
        if not any(k.arg is None for k in call.keywords):
            return False
        if not analysis.may_call(call, Api.SHARD_MAP, Api.PARTIAL):
            return False
        api = analysis.called_api(call)
        if api is Api.PARTIAL and call.args:
            api = analysis.api_of(call.args[0])
        return api is Api.SHARD_MAP

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
            node = mapping.written_at("check_rep")
            if (
                node is not None and node in analysis.parents
            ):  # `kw = dict(check_rep=...)`
                rename = (
                    rename_check_rep if isinstance(node, ast.keyword) else _renamed_key
                )
                fix = Fix(
                    "rename the key to `check_vma`", ((node, rename),), Safety.UNSAFE
                )
                self.report(call, message, fix=fix)
                return
            self.report(call, with_note(message, not_fixed(self._written_at(mapping))))
            return
        module, table = written
        if module is not analysis.module:
            where = f"{module.path.name}:{key.lineno}"
            self.report(
                call,
                with_note(
                    message,
                    not_fixed(
                        f"the key is written in {where}, which renames it (unsafe)"
                    ),
                ),
            )
            return
        safety = Safety.SAFE if table is keyword.value else Safety.UNSAFE
        fix = Fix("rename the key to `check_vma`", ((key, _renamed_key),), safety)
        self.report(call, message, fix=fix)

    def _written_at(self, mapping: DictValue) -> str:
        """Why the call is not fixed here: where the key is written, when the engine saw it."""
        analysis = self.analysis
        node = mapping.written_at("check_rep")
        place = analysis.place(node) if node is not None else None
        if place is None:
            return "the mapping is not written as a dict literal with that key"
        return (
            f"the key is written at {other_file(place[0], analysis.path)}:{place[1]}, "
            "which renames it (unsafe)"
        )

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
