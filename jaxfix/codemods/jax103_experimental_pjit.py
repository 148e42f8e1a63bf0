"""JAX103: the deprecated `jax.experimental.pjit.pjit`, which `jax.jit` replaces."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.contexts import setting_site
from jaxfix.analysis.ast_engine.values import Mesh, Sharding
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.imports import unused_imports
from jaxfix.codemods.jax102_legacy_mesh_context import (
    PJIT,
    is_legacy_mesh,
    jit_call,
    tests_error_or_warning,
)
from jaxfix.codemods.text import not_fixed, with_note
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst

    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.analysis.ast_engine.values import Value
    from jaxfix.ground.diagnostics import Edit
    from jaxfix.settings.options import Options

# pjit's sharding parameters, by keyword or by position after `fun`.
_SHARDINGS = ("in_shardings", "out_shardings")
_MODULE = "jax.experimental.pjit"


class ExperimentalPjit(Rule):
    """
    ## What it does
    Finds uses of the deprecated `jax.experimental.pjit.pjit` (through any import spelling):
    calls, `@pjit` and `@partial(pjit, ...)` decorators, and calls `jax.jit` instead
    (positional shardings become keywords), removing a `from jax.experimental.pjit import
    pjit` or `from jax.experimental import pjit` that nothing else uses. All uses of a module are one fix. A module with a `with
    mesh:` block is JAX102's, which turns its `pjit` into `jax.jit` with the context: JAX103
    says nothing there. The callee and the shardings are what the engine resolves them to
    ([docs/engine.md](../engine.md)).

    ## Why is this bad?
    `jax.experimental.pjit.pjit` is deprecated: importing it warns `DeprecationWarning:
    jax.experimental.pjit.pjit has been deprecated. Please use jax.jit instead.` (jax 0.10.2
    and 0.12.0.1), and a later JAX removes it.
    Where warnings are errors (`python -W error::DeprecationWarning`, pytest's
    `filterwarnings = ["error"]`), the import raises it: `--from-log` and `jaxfix repair`
    (with `--select ALL` or this rule selected) tie that traceback's line to this rule's fix,
    which rewrites the import.

    ## Example
    ```python
    from jax.experimental.pjit import pjit

    y = pjit(f, NamedSharding(mesh, P("x")), NamedSharding(mesh, P()))(x)
    ```

    ## Use instead
    ```python
    import jax

    y = jax.jit(f, in_shardings=NamedSharding(mesh, P("x")), out_shardings=NamedSharding(mesh, P()))(x)
    ```

    ## Fix safety
    Safe where `in_shardings` and `out_shardings` are absent, None or shardings the engine
    knows (`NamedSharding(...)`, tuples of them): `pjit` is `jax.jit` then. `pjit` with
    `PartitionSpec`s reads the mesh of a `with mesh:` block, which `jax.jit` does not: such
    a use (or one whose shardings the engine cannot tell) is reported without a fix, as is a
    `pjit` passed around as a value. Where every way the `pjit(...)` call runs is under
    `jax.set_mesh` of a concrete mesh (a `with` block, or a `jax.set_mesh(mesh)` statement
    before it), its specs are rewritten too: `pjit` ignores that context and raises
    (``RuntimeError: pjit requires a non-empty mesh in context if you are passing
    `PartitionSpec`s to in_shardings``), `jax.jit` takes the specs from it. From a recorded
    run (`jaxfix repair`, `--from-log`) that raised so where the function pjit made is called,
    the report is at that call.

    ## References
    - `pjit` in jax/_src/pjit.py (jax 0.10.2 and 0.12.0.1) warns and calls `jit`'s
      implementation; `_resolve_in_shardings` raises `pjit requires a non-empty mesh in
      context` for PartitionSpecs outside `with mesh:`.
    """

    code = "JAX103"
    name = "experimental-pjit"
    summary = "jax.experimental.pjit.pjit is deprecated: use jax.jit"
    fixes = {Safety.SAFE: "call jax.jit, its shardings by keyword"}
    tokens = ((b"pjit",),)
    # what the warning says where it is an error (`-W error::DeprecationWarning`)
    raises = (
        "jax.experimental.pjit.pjit has been deprecated. {text}",
        # PartitionSpecs outside `with mesh:`, `jax.set_mesh` included, which pjit ignores
        "pjit requires a non-empty mesh in context if you are passing `PartitionSpec`s to "
        "{text}",
    )
    error = ("DeprecationWarning", "RuntimeError")
    raised_in = ("jax/_src/deprecations.py",)
    raises_since = None

    def __init__(self, analysis: Analysis, options: Options) -> None:
        super().__init__(analysis, options)
        self._fixed_at: int | None = (
            None  # the line of the report with the module's fix
        )
        self._jax102: bool | None = None  # whether the module has a `with mesh:` block

    def visit_Module(self, node: ast.Module) -> None:
        """The reads of a name or attribute that may denote pjit (by the names this module
        binds from code naming it), in source order; not one whose attribute is read
        (`pjit.pjit_p` of the module jax._src.pjit)."""
        analysis = self.analysis
        loads = analysis.module.loads_by_name
        reads = [
            read
            for name in analysis.names_bound_from("pjit")
            for read in loads.get(name, ())
            if not isinstance(analysis.parents.get(read), ast.Attribute)
        ]
        reads.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        for read in reads:
            self._reference(read)

    def _reference(self, node: ast.AST) -> None:
        analysis = self.analysis
        if (
            not isinstance(node, (ast.Name, ast.Attribute))
            or not isinstance(node.ctx, ast.Load)
            or analysis.parents.get(node).__class__ in (ast.alias, ast.ImportFrom)
            or not analysis.may_denote(node, "pjit")
            # once per module, before the names' values: a module with a `with mesh:` block
            # (JAX102's case) gets no report here, so its names are not evaluated
            or self._with_mesh()
            or analysis.qualified_name(node) != PJIT
            or tests_error_or_warning(analysis, node)
        ):
            return
        message = (
            f"`{analysis.text(node)}` is deprecated (jax.experimental.pjit.pjit warns): "
            "use `jax.jit`"
        )
        why_not = self._why_not(node)
        # from a run: pjit's error is raised where the function it made is called
        raised = self._raised_at(node) if self.recorded else None
        if raised is not None:
            node = raised
            message = (
                f"{message}; pjit raised here: it takes PartitionSpecs from a `with mesh:` "
                "block only, and ignores `jax.set_mesh`"
            )
        if why_not is not None:
            self.report(node, with_note(message, not_fixed(why_not)))
        elif self._fixed_at is not None:
            self.report(
                node, with_note(message, f"fixed with the one at line {self._fixed_at}")
            )
        else:
            self._fixed_at = analysis.line(node)
            self.report(node, message, fix=self._fix())

    def _with_mesh(self) -> bool:
        """Whether the module enters a concrete mesh with `with mesh:` (JAX102's case)."""
        if self._jax102 is None:
            self._jax102 = any(
                isinstance(node, ast.With)
                and any(
                    is_legacy_mesh(self.analysis, i.context_expr) for i in node.items
                )
                for node in self.analysis.module.withs
            )
        return self._jax102

    def _call_of(self, node: ast.expr) -> tuple[ast.Call | None, bool]:
        """The call that applies `node` (`pjit(...)` or `partial(pjit, ...)`), and whether it
        is a partial; (None, False) for a bare `@pjit` decorator or another use."""
        parent = self.analysis.parents.get(node)
        if isinstance(parent, ast.Call):
            if parent.func is node:
                return parent, False
            if (
                parent.args
                and parent.args[0] is node
                and self.analysis.called_api(parent) is Api.PARTIAL
            ):
                return parent, True
        return None, False

    def _why_not(self, node: ast.expr) -> str | None:
        """Why this use is not rewritten; None when it is."""
        call, partial = self._call_of(node)
        if call is None:
            parent = self.analysis.parents.get(node)
            decorates = (
                isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef))
                and node in parent.decorator_list
            )
            return None if decorates else "pjit is used as a value here"
        args = call.args[2:] if partial else call.args[1:]
        if (
            partial
            and len(call.args) > 1
            or any(isinstance(a, ast.Starred) for a in call.args)
            or any(k.arg is None for k in call.keywords)
        ):
            return "its arguments are not all written out"
        given = dict(zip(_SHARDINGS, args))
        given.update((k.arg, k.value) for k in call.keywords if k.arg in _SHARDINGS)
        if self._under_set_mesh(call):
            return None  # jax.jit takes the specs from that context; pjit ignores it
        for name, expr in given.items():
            if not _shardings_only(self.analysis.value_of(expr)):
                return (
                    f"its {name} may hold PartitionSpecs, which pjit takes from a "
                    "`with mesh:` block and jax.jit does not"
                )
        return None

    def _raised_at(self, node: ast.expr) -> ast.Call | None:
        """The call of the function `pjit(...)` made at `node` where a run raised pjit's
        error: the call applying it (`pjit(f, ...)(x)`), or a call of the name it is bound
        to (`step = pjit(f, ...)`, then `step(x)`)."""
        analysis = self.analysis
        call, partial = self._call_of(node)
        if call is None or partial:
            return None
        parent = analysis.parents.get(call)
        candidates: list[ast.AST | None] = []
        if isinstance(parent, ast.Call) and parent.func is call:
            candidates.append(parent)
        elif (
            isinstance(parent, ast.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)
        ):
            candidates.extend(
                analysis.parents.get(read)
                for read in analysis.reads_reached(parent, parent.targets[0].id)
            )
        return next(
            (
                c
                for c in candidates
                if isinstance(c, ast.Call) and analysis.confirmed(c, self.code)
            ),
            None,
        )

    def _under_set_mesh(self, call: ast.Call) -> bool:
        """Whether every way `call` runs is under `jax.set_mesh` of a concrete mesh (a
        `with` block, or a `jax.set_mesh(mesh)` statement before it)."""
        sites = [setting_site(way) for way in self.analysis.ways_at(call)]
        return bool(sites) and all(
            site is not None
            and site.api is Api.SET_MESH
            and isinstance(site.mesh, Mesh)
            and not site.mesh.is_abstract
            for site in sites
        )

    def _fix(self) -> Fix:
        analysis = self.analysis
        jax_name, imports = analysis.module_spelling("jax")
        edits: list[tuple[ast.AST, Edit]] = []
        uses: set[ast.AST] = set()
        for node in ast.walk(analysis.module.tree):
            if (
                not isinstance(node, (ast.Name, ast.Attribute))
                or not isinstance(node.ctx, ast.Load)
                or not analysis.may_denote(node, "pjit")
                or analysis.qualified_name(node) != PJIT
                or tests_error_or_warning(analysis, node)
                or self._why_not(node) is not None
            ):
                continue
            uses.update(ast.walk(node))
            call, partial = self._call_of(node)
            if call is not None and not partial and len(call.args) > 1:
                edits.append((call, jit_call(jax_name)))
            else:
                edits.append((node, _jax_jit(jax_name)))
        edits.extend(unused_imports(analysis, (PJIT, _MODULE), uses))
        return Fix("call jax.jit", tuple(edits), imports=imports)


def _shardings_only(value: Value) -> bool:
    """Whether `value` is None, a sharding, or a tuple or list of such: never a
    PartitionSpec, nor what the engine cannot tell."""
    if value is None or isinstance(value, Sharding):
        return True
    if isinstance(value, (tuple, list)):
        return all(_shardings_only(v) for v in value)
    return False


def _jax_jit(jax_name: str) -> Edit:
    def edit(_: cst.CSTNode) -> cst.CSTNode:
        import libcst as cst  # for the fix, written only when it is applied

        return cst.parse_expression(f"{jax_name}.jit")

    return edit
