"""JAX101: the deprecated `jax.experimental.shard_map.shard_map`, which `jax.shard_map` replaces."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.imports import unused_imports
from jaxfix.codemods.jax004_shard_map_positional import by_keyword
from jaxfix.codemods.jax005_shard_map_check_rep import rename_check_rep
from jaxfix.codemods.jax102_legacy_mesh_context import tests_error_or_warning
from jaxfix.codemods.text import missing_on_target, not_fixed, with_note
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst

    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.ground.diagnostics import Edit
    from jaxfix.settings.options import Options

_MODULE = "jax.experimental.shard_map"


class ExperimentalShardMap(Rule):
    """
    ## What it does
    Finds calls of the deprecated `jax.experimental.shard_map.shard_map(f, mesh, in_specs,
    out_specs, check_rep=...)` (through any import spelling), directly or through
    `functools.partial(shard_map, ...)`, and calls `jax.shard_map` instead: the arguments
    after the function by keyword (as JAX004 does), `check_rep=` renamed `check_vma=` (as
    JAX005 does). Where every use of a `from jax.experimental.shard_map import shard_map` (or
    `from jax.experimental import shard_map`) is such a call, the import goes too: importing
    the module is what warns. All calls of a module are one fix. The callee is what the engine
    resolves the name to (imports, aliases, assignments: [docs/engine.md](../engine.md)).

    ## Why is this bad?
    `jax.experimental.shard_map` is deprecated since JAX 0.8.0: importing it warns
    `DeprecationWarning: jax.experimental.shard_map is deprecated in v0.8.0. Used
    jax.shard_map instead.` (jax 0.10.2 and 0.12.0.1), and a later JAX removes it.
    Where warnings are errors (`python -W error::DeprecationWarning`, pytest's
    `filterwarnings = ["error"]`), the import raises it: `--from-log` and `jaxfix repair`
    (with `--select ALL` or this rule selected) tie that traceback's line to this rule's fix,
    which rewrites the import.

    ## Example
    ```python
    from jax.experimental.shard_map import shard_map

    total = shard_map(local_sum, mesh, P("x"), P(), check_rep=False)(x)
    ```

    ## Use instead
    ```python
    import jax

    total = jax.shard_map(local_sum, mesh=mesh, in_specs=P("x"), out_specs=P(), check_vma=False)(x)
    ```

    ## Fix safety
    Safe: `jax.experimental.shard_map.shard_map` calls `jax.shard_map` with these very
    arguments (`check_vma=check_rep`). A call whose arguments cannot be bound (`*args`, an
    unknown keyword) is reported without a fix, and then the import stays. A call inside a
    block that tests an error or a warning (`pytest.warns(DeprecationWarning)`) is left alone.
    On a target JAX before 0.6.1 (a project whose pin allows an older JAX), which has no
    `jax.shard_map`, the rule reports without a fix.

    ## References
    - `shard_map` in jax/experimental/shard_map.py (jax 0.10.2 and 0.12.0.1):
      `def shard_map(f, mesh, in_specs, out_specs, check_rep=True)`.
    - jax 0.6.0 has no `jax.shard_map`; jax 0.6.1 has it, with `check_vma`.
    """

    code = "JAX101"
    name = "experimental-shard-map"
    summary = "jax.experimental.shard_map.shard_map is deprecated: use jax.shard_map"
    fixes = {Safety.SAFE: "call jax.shard_map with keywords and check_vma"}
    tokens = ((b"experimental", b"shard_map"),)
    # what the warning says where it is an error (`-W error::DeprecationWarning`)
    raises = ("jax.experimental.shard_map is deprecated in v0.8.0. {text}",)
    error = "DeprecationWarning"
    raised_in = ("jax/_src/deprecations.py",)
    raises_since = None

    def __init__(self, analysis: Analysis, options: Options) -> None:
        super().__init__(analysis, options)
        self._fixed_at: int | None = (
            None  # the line of the report with the module's fix
        )

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        if not analysis.may_be(node.func, Api.EXPERIMENTAL_SHARD_MAP) and not (
            node.args and analysis.may_be(node.args[0], Api.EXPERIMENTAL_SHARD_MAP)
        ):
            return  # neither callee it may have is spelled so: whether a partial not asked
        partial = (
            analysis.may_call(node, Api.PARTIAL)
            and analysis.called_api(node) is Api.PARTIAL
        )
        callee = node.args[0] if partial and node.args else node.func
        if (
            not analysis.may_be(callee, Api.EXPERIMENTAL_SHARD_MAP)
            or analysis.api_of(callee) is not Api.EXPERIMENTAL_SHARD_MAP
        ) or (tests_error_or_warning(analysis, node)):
            return
        message = (
            f"`{analysis.text(callee)}` is deprecated (jax.experimental.shard_map warns "
            "since JAX 0.8.0): use `jax.shard_map`, its arguments by keyword"
        )
        why_not = _why_not(node, partial, analysis.bind(node) if not partial else None)
        if why_not is not None:
            self.report(callee, with_note(message, not_fixed(why_not)))
            return
        missing = missing_on_target(
            "`jax.shard_map`", "0.6.1", self.options.jax_version
        )
        if missing is not None:
            self.report(callee, with_note(message, missing))
            return
        if self._fixed_at is not None:
            note = f"fixed with the one at line {self._fixed_at}"
            self.report(callee, with_note(message, note))
            return
        self._fixed_at = analysis.line(node)
        self.report(callee, message, fix=self._fix())

    def _fix(self) -> Fix:
        """Every fixable call of the module, and the experimental imports they leave unused."""
        analysis = self.analysis
        jax_name, imports = analysis.module_spelling("jax")
        edits: list[tuple[ast.AST, Edit]] = []
        uses: set[ast.AST] = set()
        for call in ast.walk(analysis.module.tree):
            if not isinstance(call, ast.Call):
                continue
            partial = analysis.called_api(call) is Api.PARTIAL
            callee = call.args[0] if partial and call.args else call.func
            if analysis.api_of(
                callee
            ) is not Api.EXPERIMENTAL_SHARD_MAP or tests_error_or_warning(
                analysis, call
            ):
                continue
            bound = analysis.bind(call) if not partial else None
            if _why_not(call, partial, bound) is not None:
                continue
            uses.update(ast.walk(callee))
            edits.append((call, _to_jax_shard_map(jax_name, partial, len(call.args))))
        edits.extend(unused_imports(analysis, (_MODULE, f"{_MODULE}.shard_map"), uses))
        return Fix("call jax.shard_map", tuple(edits), imports=imports)


def _why_not(
    call: ast.Call, partial: bool, bound: dict[str, ast.expr] | None
) -> str | None:
    """Why the call is not rewritten; None when it is."""
    if partial:
        if len(call.args) > 1 or any(k.arg is None for k in call.keywords):
            return "the partial's other arguments are not by keyword"
        if any(k.arg == "check_vma" for k in call.keywords):
            return "it passes check_vma=, which the experimental shard_map never took"
        return None
    if bound is None:
        return "its arguments do not bind to the experimental shard_map's parameters"
    return None


def _to_jax_shard_map(jax_name: str, partial: bool, count: int) -> Edit:
    """The call on `jax.shard_map`: positional arguments by keyword, `check_rep=` renamed."""

    def edit(old: cst.CSTNode) -> cst.CSTNode:
        import libcst as cst  # for the fix, written only when it is applied

        assert isinstance(old, cst.Call)
        new_callee = cst.parse_expression(f"{jax_name}.shard_map")
        new: cst.CSTNode
        if partial:
            new = old.with_changes(
                args=[old.args[0].with_changes(value=new_callee), *old.args[1:]]
            )
        else:
            new = by_keyword(old.with_changes(func=new_callee), count)
        assert isinstance(new, cst.Call)
        args: list[cst.Arg] = []
        for arg in new.args:
            if arg.keyword is not None and arg.keyword.value == "check_rep":
                renamed = rename_check_rep(arg)
                assert isinstance(renamed, cst.Arg)
                arg = renamed
            args.append(arg)
        return new.with_changes(args=args)

    return edit
