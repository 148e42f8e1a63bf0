"""JAX102: the deprecated `with mesh:` context, and the `pjit` calls it served."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.reach import Reach
from jaxfix.analysis.ast_engine.values import (
    Class,
    External,
    Foreign,
    Function,
    Mesh,
    Unknown,
)
from jaxfix.analysis.names import EXPECTED_ERROR_METHODS, SIGNATURES, Api
from jaxfix.codemods.base import Rule, keyword_arg
from jaxfix.codemods.imports import unused_imports
from jaxfix.codemods.legacy_mesh_raises import Raising, raising_under
from jaxfix.codemods.text import (
    missing_on_target,
    not_fixed,
    other_file,
    raised_in_called_code,
    short,
    with_note,
)
from jaxfix.ground.diagnostics import Fix, Safety
from jaxfix.settings.options import Options

if TYPE_CHECKING:
    from jaxfix.ground.diagnostics import Edit

PJIT = "jax.experimental.pjit.pjit"
# pjit's parameters that may be passed by position after `fun` (jax 0.10.2 and 0.12.0.1):
# `jax.jit`'s keyword-only ones, in the same order.
_PJIT_POSITIONAL = SIGNATURES[Api.JIT].keyword_only
# The context managers of unittest, absltest and pytest that test an error or a warning.
_TESTS_ERRORS = frozenset(
    {*EXPECTED_ERROR_METHODS, "assertWarns", "assertWarnsRegex", "raises", "warns"}
    | {"deprecated_call"}
)
_Edit = Callable[[cst.CSTNode], cst.CSTNode]
_RAISES = "JAX014"  # the rule of the blocks under which a call surely raises


class LegacyMeshContext(Rule):
    """
    ## What it does
    Finds the legacy `with mesh:` (a concrete `jax.sharding.Mesh`, however it is spelled or
    built: `with Mesh(devices, names):`, `with mesh, other_context:`). With
    `--unsafe-fixes` it enters the mesh with `jax.set_mesh(mesh)` instead, and turns every
    `pjit` of the same scope, and each `pjit` function the block calls, into `jax.jit`: one
    fix for the whole scope. A `from jax.experimental.pjit import pjit` (or `from
    jax.experimental import pjit`) that only those `pjit`s used goes too.

    A block under which a call surely raises for want of a context mesh (`jax.jit` given
    PartitionSpecs, among others) is JAX014's, selected by default, wherever JAX014 runs:
    this rule, a deprecation, reports the others.

    Which value is a concrete mesh is the engine's answer ([docs/engine.md](../engine.md)); a
    mesh it cannot pin down (a parameter nobody passes in view) is not reported.

    ## Why is this bad?
    `with mesh:` is deprecated (a `DeprecationWarning` since JAX 0.10.1) and sets no context
    mesh for the APIs that read one: inside it, `jax.jit(f, in_shardings=P("x"))` raises
    `RuntimeError: jit requires a non-empty mesh in context if you are passing
    PartitionSpecs to in_shardings` (or `out_shardings`), `jax.device_put(x, P("x"))` raises `ValueError: Please
    set a mesh via jax.set_mesh if a PartitionSpec is passed to device_put`, and
    `jax.shard_map` without `mesh=` raises `ValueError: The context mesh cannot be empty`.

    ## Example
    ```python
    from jax.experimental.pjit import pjit

    mesh = Mesh(np.array(jax.devices()), ("x",))
    with mesh:
        y = pjit(f, in_shardings=P("x"))(x)
        z = jax.device_put(x, P("x"))
    ```

    ## Use instead
    ```python
    mesh = Mesh(np.array(jax.devices()), ("x",))
    with jax.set_mesh(mesh):
        y = jax.jit(f, in_shardings=P("x"))(x)
        z = jax.device_put(x, P("x"))
    ```

    ## Fix safety
    Unsafe: `jax.set_mesh` is not the old context. `pjit` with `PartitionSpec`s ignores it
    (it raises `pjit requires a non-empty mesh in context`), hence `pjit` becomes `jax.jit`
    in the same fix (positional shardings become keywords); a `pjit` reached otherwise (from
    another module, through a helper) is not seen. And arrays created under `jax.set_mesh`
    are committed to the mesh: passed to a jit with other `in_shardings` they raise
    `Sharding passed to jit does not match the sharding on the respective arg`. Where the
    engine sees a name assigned inside the block (or an array made inline) passed to a jit
    with `in_shardings`, or to a function of the module that calls one, the rule reports
    without a fix; an assignment that runs only after the jit reads the name
    (its own statement's right side, outside a loop around both) or whose value a jitted
    function returns (committed under either context) is no such hazard. A `with mesh as m:` becomes `with jax.set_mesh(m := mesh):`
    (`jax.set_mesh` gives no value to `as`). `jax.set_mesh` also leaves empty the mesh the
    old context puts in `pxla.thread_resources.env.physical_mesh`, which some code reads (tunix's
    `shard_input` then skips its sharding), and under it an eager op on one device's shard
    (`x.addressable_shards[0].data`) raises `Received incompatible devices for jitted
    computation` (levanter's `check_sharded_consistency`): a block that uses either, or calls a
    function or class of a module that does, is reported without a fix. So is a block whose
    calls reach, followed out of the module and into the installed libraries (read, never
    imported), a function that reads `thread_resources` and asks for no mesh of
    `jax.set_mesh` (one that asks `jax.sharding.get_mesh()` first and falls back is no
    hazard); and a block that runs code jaxfix cannot name (a parameter, a value from unseen
    code) beside code that imports a library defining such a function (EasyDeL's models,
    through eformer's `get_incontext_mesh`). Libraries are found as the import system finds
    them where jaxfix runs: installed beside the project's, it sees them.
    On a target JAX before 0.7.1 (a project whose
    pin allows an older JAX), which has no `jax.set_mesh`, the rule reports without a fix.

    ## References
    - `Mesh.__enter__` in jax/_src/mesh.py (jax 0.10.2 and 0.12.0.1), which warns.
    - The JAX 0.7.1 changelog: "Exposed `jax.set_mesh`" (jax 0.7.0 has no `jax.set_mesh`).
    - JAX014, for where the errors are raised.
    """

    code = "JAX102"
    name = "legacy-mesh-context"
    summary = "`with mesh:` is deprecated: enter the mesh with jax.set_mesh"
    fixes = {
        Safety.UNSAFE: "`with jax.set_mesh(mesh):`, and `jax.jit` for `pjit` in that scope"
    }
    # A `with` statement and a spelling of a mesh (`mesh` too: one a helper of another module
    # makes spells no constructor here) or of pjit: not every file whose prose says "with".
    # The statement begins a line (a compound statement follows no `;` or `:`): in a
    # notebook's JSON, a line of a cell's source (`"    with mesh:\n"`, or after `\n`).
    tokens = (
        (
            rb'(?m)(?:^|"|\\n)(?:[ \t\f]|\\t)*(?:async[ \t]+)?with\b',
            rb"mesh|Mesh|pjit",
        ),
    )
    raises_since: ClassVar[str | None] = None  # JAX014 is the subset that raises

    def __init__(self, analysis: Analysis, options: Options) -> None:
        super().__init__(analysis, options)
        self._fixed: dict[ast.AST, int] = {}  # scope -> line of the report with its fix
        self._reach: Reach | None = None

    def visit_With(self, node: ast.With) -> None:
        # read from the code around it: before any value is asked
        if self._tested(node):
            return
        items = [i for i in node.items if self._legacy(i.context_expr)]
        if not items or self.expected(node):
            return
        raising = self._raising(node, items)
        if not self._owns(node, raising):
            return
        analysis = self.analysis
        # A log's error is raised by a call in the block, not by the `with`: the evidence on
        # the lines the block spans is this report's (--from-log, repair), also where the
        # call in the block ran a function defined elsewhere that raised (named as related).
        confirmed = analysis.confirmed_through(node, self.code)
        span = analysis.span(node)
        related = (
            (
                raised_in_called_code(
                    confirmed.evidence.line, confirmed.evidence.columns, confirmed.where
                ),
            )
            if confirmed is not None
            and not span.start[0] <= confirmed.evidence.line <= span.end[0]
            else ()
        )
        message = self._message(items[0].context_expr, raising)
        missing = missing_on_target("`jax.set_mesh`", "0.7.1", self.options.jax_version)
        if missing is not None:  # every block says so: none is fixed
            self.report(
                items[0].context_expr, with_note(message, missing), related=related
            )
            return
        scope = analysis.module.scope_of(node)
        if scope in self._fixed:
            note = f"fixed with the one at line {self._fixed[scope]}"
            self.report(
                items[0].context_expr, with_note(message, note), related=related
            )
            return
        self._fixed[scope] = analysis.line(node)
        fix, why_not = self._fix(scope)
        self.report(
            items[0].context_expr, with_note(message, why_not), fix=fix, related=related
        )

    def expected(self, node: ast.AST) -> bool:
        """Inside a test of the errors a call under the block raises (JAX014's)."""
        raises = _raises_rule()
        return self.analysis.expected(node, raises.raises, raises.error)

    def _raising(self, node: ast.With, items: list[ast.withitem]) -> Raising | None:
        """What surely raises under the block, asked where JAX014, which reports those
        blocks, runs too."""
        if not self._raises_selected:
            return None
        return raising_under(self.analysis, node, items)

    def _owns(self, node: ast.With, raising: Raising | None) -> bool:
        """Whether this rule reports the block: where JAX014 runs, it reports those under
        which a call surely raises, or under which a run raised its error."""
        if not self._raises_selected:
            return True
        code = _raises_rule().code
        return raising is None and self.analysis.confirmed_through(node, code) is None

    @functools.cached_property
    def _raises_selected(self) -> bool:
        raises = _raises_rule()
        return self.options.is_selected(raises.code, raises.raises_since)

    def _message(self, mesh: ast.expr, raising: Raising | None) -> str:
        return (
            f"`with {short(self.analysis.text(mesh))}:` is deprecated and sets no context "
            "mesh for jit, device_put or shard_map: enter it with `jax.set_mesh`"
        )

    def _tested(self, node: ast.AST) -> bool:
        return tests_error_or_warning(self.analysis, node)

    # -- what is a legacy mesh context ------------------------------------------------------

    def _legacy(self, expr: ast.expr) -> bool:
        return is_legacy_mesh(self.analysis, expr)

    def _withs(self, scope: ast.AST) -> list[ast.With]:
        module = self.analysis.module
        return [
            node
            for node in ast.walk(scope)
            if isinstance(node, ast.With)
            and module.scope_of(node) is scope
            and any(self._legacy(i.context_expr) for i in node.items)
        ]

    def _reads_legacy_env(self, withs: list[ast.With]) -> str | None:
        """Why not, where code in a block, or the module of a function or class a call in it
        names, uses what `jax.set_mesh` does not keep as `with mesh:` did (_SET_MESH_BREAKS):
        the mesh in `pxla.thread_resources`, which it leaves empty, or one device's shard of an
        array, which an eager op under it rejects."""
        analysis = self.analysis
        for statement in withs:
            for node in ast.walk(statement):
                word = _breaking_word(node)
                if word is not None:
                    return f"line {analysis.line(node)} {_SET_MESH_BREAKS[word]}"
                if not isinstance(node, ast.Call) or analysis.api_of(node.func):
                    continue
                value = analysis.value_of(node.func)
                if not isinstance(value, (Function, Class)):
                    continue
                module = analysis.engine.project.module(value.path)
                if not isinstance(module, Module):
                    continue
                for word, why in _SET_MESH_BREAKS.items():
                    if word.encode() in module.source:
                        return (
                            f"`{analysis.text(node.func)}` (line {analysis.line(node)}) is "
                            f"code of {other_file(value.path, analysis.path)}, which {why}"
                        )
        return None

    def _reaches_legacy_env(self, scope: ast.AST, withs: list[ast.With]) -> str | None:
        """Why not, where a call in a block reaches, through calls the engine follows (out of
        the module, into installed libraries: jaxfix/analysis/ast_engine/reach.py), a
        function that reads the mesh of `with mesh:` (`thread_resources`) and not the one
        jax.set_mesh sets. Where a block calls what the engine cannot name (a parameter,
        `jax.grad(f)` of an unknown `f`), the calls made before in its scope count too: what
        they built may be what that call runs."""
        analysis = self.analysis
        module = analysis.module
        calls = [n for s in withs for n in ast.walk(s) if isinstance(n, ast.Call)]
        starts = list(calls)
        opaque = next((c for c in calls if self._opaque(c)), None)
        if opaque is not None:
            inside = set(calls)
            starts += [
                n
                for n in ast.walk(scope)
                if isinstance(n, ast.Call)
                and n not in inside
                and module.scope_of(n) is scope
            ]
        if self._reach is None:  # one per module: what it found installed is kept
            self._reach = Reach(analysis.engine)
        reach = self._reach
        reached = reach.first(
            module,
            starts,
            lambda f: _reads_old_mesh_only(f) or _shard_maps_on_its_mesh(f),
        )
        if reached is not None:
            through = " -> ".join(reached.chain)
            what = (
                "reads the mesh of `with mesh:` (`thread_resources`) and not the one "
                "jax.set_mesh sets"
                if _reads_old_mesh_only(reached.node)
                else "gives shard_map a mesh of its own: under jax.set_mesh it must be "
                "the context's, which jaxfix cannot tell"
            )
            return (
                f"`{short(analysis.text(reached.start.func))}` (line "
                f"{analysis.line(reached.start)}) reaches {through}, which {what}"
            )
        if opaque is None:
            return None
        # What the block runs is not named: the libraries the code it reaches imports may
        # be what runs.
        found = reach.imported_reader(
            reach.modules, _reads_old_mesh_only, b"thread_resources"
        )
        if found is None:
            return None
        importer, name, reader, path = found
        return (
            f"`{short(analysis.text(opaque.func))}` (line {analysis.line(opaque)}) runs "
            f"code jaxfix cannot name, beside code of {other_file(importer, analysis.path)} "
            f"that imports `{name}`, whose library's `{reader.name}` "
            f"({_library_path(path)}:{reader.lineno}) reads the mesh of `with mesh:` "
            "(`thread_resources`) and not the one jax.set_mesh sets"
        )

    def _opaque(self, call: ast.Call) -> bool:
        """Whether `call` runs code the engine cannot name (`f(x)` of a parameter `f`,
        `jax.grad(f)(x)` of such an `f`)."""
        analysis = self.analysis
        func = call.func
        if isinstance(func, ast.Call) and func.args and analysis.api_of(func.func):
            func = func.args[0]  # `jax.grad(f)(x)`, `jax.jit(f)(x)`: `f` runs
        elif analysis.api_of(func) is not None:
            return False
        value = analysis.value_of(func)
        return isinstance(value, Unknown) and not isinstance(value, Foreign)

    # -- the fix ----------------------------------------------------------------------------

    def _fix(self, scope: ast.AST) -> tuple[Fix | None, str | None]:
        analysis = self.analysis
        withs = self._withs(scope)
        hazard = (
            self._committed_hazard(scope, withs)
            or self._reads_legacy_env(withs)
            or self._reaches_legacy_env(scope, withs)
            or self._other_pjit(withs)
            or self._yields_to_other_pjit(scope, withs)
            or self._traced(scope)
        )
        if hazard is not None:
            return None, not_fixed(hazard)
        jax_name, imports = analysis.module_spelling("jax")
        edits: list[tuple[ast.AST, Edit]] = []
        for statement in withs:
            for item in statement.items:
                if not self._legacy(item.context_expr):
                    continue
                target = item.optional_vars
                if target is not None and not isinstance(target, ast.Name):
                    return None, not_fixed(
                        f"`as {analysis.text(target)}` cannot take the mesh from jax.set_mesh"
                    )
                edits.append((item, _set_mesh(jax_name)))
        pjits = self._pjits(scope, withs)
        uses = {node for reference in pjits for node in ast.walk(reference)}
        for reference in pjits:
            call = analysis.parents.get(reference)
            if (
                isinstance(call, ast.Call)
                and call.func is reference
                and len(call.args) > 1
            ):
                if any(isinstance(a, ast.Starred) for a in call.args) or len(
                    call.args
                ) > 1 + len(_PJIT_POSITIONAL):
                    return None, not_fixed(
                        f"line {analysis.line(call)} passes pjit's arguments as `*args`"
                    )
                edits.append((call, jit_call(jax_name)))
            else:
                edits.append((reference, _jit(jax_name)))
        edits.extend(unused_imports(analysis, (PJIT, "jax.experimental.pjit"), uses))
        title = "enter the mesh with jax.set_mesh"
        if pjits:
            title += " and use jax.jit for pjit"
        return Fix(title, tuple(edits), Safety.UNSAFE, imports), None

    def _traced(self, scope: ast.AST) -> str | None:
        """Why not: the blocks run in a function jit traces (decorated with `jit` or `pjit`,
        directly or through `partial`, or passed to them in this module: `jax.jit(f)`):
        jax.set_mesh cannot be entered inside jit."""
        analysis = self.analysis
        module = analysis.module
        current = scope
        while current is not module.tree:
            if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in current.decorator_list:
                    if self._jit_applied(decorator):
                        return (
                            f"the block is in `{current.name}`, which "
                            f"`@{short(analysis.text(decorator))}` traces: jax.set_mesh cannot be "
                            "entered inside jit"
                        )
                for use in module.loads_by_name.get(current.name, ()):
                    call = analysis.parents.get(use)
                    if (
                        isinstance(call, ast.Call)
                        and call.args[:1] == [use]
                        and self._jit_applied(call.func)
                    ):
                        return (
                            f"the block is in `{current.name}`, which "
                            f"`{short(analysis.text(call))}` (line {analysis.line(call)}) "
                            "traces: jax.set_mesh cannot be entered inside jit"
                        )
            current = module.scope_of(current)
        return None

    def _jit_applied(self, target: ast.expr) -> bool:
        """Whether `target`, applied to a function, makes jit or pjit trace it: `jit`,
        `jax.jit`, `pjit`, `jax.jit(...)` / `pjit(...)` as a decorator with arguments,
        `partial(jax.jit, ...)`."""
        if isinstance(target, ast.Call):
            partial = self.analysis.called_api(target) is Api.PARTIAL
            target = target.args[0] if partial and target.args else target.func
        name = (
            target.attr
            if isinstance(target, ast.Attribute)
            else target.id
            if isinstance(target, ast.Name)
            else None
        )
        return name in ("jit", "pjit")

    def _other_pjit(self, withs: list[ast.With]) -> str | None:
        """Why not: a block calls or decorates with a `pjit` that is not
        jax.experimental.pjit.pjit (`from jax._src.pjit import pjit`), which jaxfix does not
        rewrite to jax.jit, directly or through a name bound to one (`f = pjit.pjit(g, ...)`
        before the block): it reads the mesh of `with mesh:`, which jax.set_mesh leaves empty
        (with PartitionSpecs it then raises)."""
        return self._other_pjit_in(
            [part for statement in withs for part in statement.body]
        )

    def _other_pjit_in(self, parts: list[ast.stmt]) -> str | None:
        analysis = self.analysis
        bound = analysis.names_bound_from("pjit")
        for node in (n for part in parts for n in ast.walk(part)):
            if isinstance(node, ast.Name) and node.id != "pjit" and node.id in bound:
                parent = analysis.parents.get(node)
                if isinstance(parent, ast.Call) and parent.func is node:
                    other = self._bound_to_other_pjit(node.id)
                    if other is not None:
                        return (
                            f"`{node.id}` called at line {analysis.line(node)} is what "
                            f"`{analysis.text(other)}` (line {analysis.line(other)}) returns, "
                            "not jax.experimental.pjit.pjit, which jaxfix rewrites to jax.jit: "
                            "it reads the mesh of `with mesh:`, which jax.set_mesh leaves empty"
                        )
                continue
            if not (
                (isinstance(node, ast.Name) and node.id == "pjit")
                or (isinstance(node, ast.Attribute) and node.attr == "pjit")
            ):
                continue
            if self._applied(node) and analysis.qualified_name(node) != PJIT:
                return (
                    f"`{analysis.text(node)}` at line {analysis.line(node)} is not "
                    "jax.experimental.pjit.pjit, which jaxfix rewrites to jax.jit: it "
                    "reads the mesh of `with mesh:`, which jax.set_mesh leaves empty"
                )
        return None

    def _applied(self, node: ast.expr) -> bool:
        """Whether `node` is called or is a function's decorator."""
        parent = self.analysis.parents.get(node)
        return (isinstance(parent, ast.Call) and parent.func is node) or (
            isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node in parent.decorator_list
        )

    def _bound_to_other_pjit(self, name: str) -> ast.expr | None:
        """A `pjit` other than jax.experimental.pjit.pjit whose result this module assigns to
        `name` (`name = pjit.pjit(f, ...)`), by name in any scope."""
        analysis = self.analysis
        for statement in ast.walk(analysis.module.tree):
            if not (
                isinstance(statement, ast.Assign)
                and any(
                    isinstance(t, ast.Name) and t.id == name for t in statement.targets
                )
            ):
                continue
            for node in ast.walk(statement.value):
                if (
                    (
                        (isinstance(node, ast.Name) and node.id == "pjit")
                        or (isinstance(node, ast.Attribute) and node.attr == "pjit")
                    )
                    and self._applied(node)
                    and analysis.qualified_name(node) != PJIT
                ):
                    return node
        return None

    def _yields_to_other_pjit(
        self, scope: ast.AST, withs: list[ast.With]
    ) -> str | None:
        """Why not: a block yields (a context manager's or a fixture's generator), so the code
        under the mesh is its users'; a user in this module (a function the context manager
        decorates, a `with` entering it) calls a `pjit` other than jax.experimental.pjit.pjit."""
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        if not any(_yields(part) for statement in withs for part in statement.body):
            return None
        analysis = self.analysis
        for use in analysis.module.loads_by_name.get(scope.name, ()):
            node: ast.AST = use
            parent = analysis.parents.get(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                node, parent = parent, analysis.parents.get(parent)
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = parent.body if node in parent.decorator_list else []
            elif isinstance(parent, ast.withitem):
                statement = analysis.parents.get(parent)
                body = statement.body if isinstance(statement, ast.With) else []
            else:
                continue
            why = self._other_pjit_in(body)
            if why is not None:
                return (
                    f"the block yields to code of `{scope.name}`'s users: at line "
                    f"{analysis.line(use)}, {why}"
                )
        return None

    def _pjits(self, scope: ast.AST, withs: list[ast.With]) -> list[ast.expr]:
        """`pjit` as written in the scope (not in a function defined there), and the `pjit`
        application of each function the blocks call by name in this module."""
        analysis = self.analysis
        module = analysis.module
        found: dict[ast.expr, None] = {}
        for node in ast.walk(scope):
            if (
                isinstance(node, (ast.Name, ast.Attribute))
                and module.scope_of(node) is scope
                and analysis.may_denote(node, "pjit")
                and analysis.qualified_name(node) == PJIT
            ):
                found[node] = None
        for statement in withs:
            for node in (n for part in statement.body for n in ast.walk(part)):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    for reference in self._applied_pjit(node.func):
                        found[reference] = None
        return sorted(found, key=lambda n: (n.lineno, n.col_offset))

    def _applied_pjit(self, callee: ast.Name) -> list[ast.expr]:
        """The `pjit` that made the function `callee` names: `f = pjit(g, ...)`, or a
        decorator `@pjit` / `@partial(pjit, ...)` of its `def`."""
        analysis = self.analysis
        definition = analysis.definition(callee)
        candidates: list[ast.expr] = (
            list(definition.decorator_list)
            if definition is not None
            else [analysis.written_as(callee)]
        )
        found = []
        for expr in candidates:
            if isinstance(expr, ast.Call):
                if analysis.qualified_name(expr.func) == PJIT:
                    found.append(expr.func)
                    continue
                expr = expr.args[0] if expr.args else expr
            if analysis.qualified_name(expr) == PJIT and expr in analysis.parents:
                found.append(expr)
        return found

    def _committed_hazard(self, scope: ast.AST, withs: list[ast.With]) -> str | None:
        """Where a name assigned inside a block is passed to a jit with `in_shardings`: under
        jax.set_mesh that array is committed to the mesh, and a jit of other shardings raises."""
        analysis = self.analysis
        created: dict[str, list[ast.stmt]] = {}
        for statement in withs:
            for part in statement.body:
                for node in ast.walk(part):
                    if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                        continue
                    targets = (
                        node.targets if isinstance(node, ast.Assign) else [node.target]
                    )
                    for written in targets:
                        for name in ast.walk(written):
                            if isinstance(name, ast.Name):
                                created.setdefault(name.id, []).append(node)
        inside = {
            node
            for statement in withs
            for part in statement.body
            for node in ast.walk(part)
        }
        for call in ast.walk(scope):
            if (
                not isinstance(call, ast.Call)
                or analysis.module.scope_of(call) is not scope
            ):
                continue
            passed = [
                a
                for a in call.args
                if (
                    isinstance(a, ast.Name)
                    and any(
                        self._made_before(m, call) and not self._on_host(m)
                        for m in created.get(a.id, ())
                    )
                )
                or (
                    isinstance(a, ast.Call)
                    and call in inside
                    and not self._host_call(a)
                )
            ]
            if not passed or not (
                self._jit_with_shardings(call.func) or self._runs_jit_within(call.func)
            ):
                continue
            made = (
                f", made at line {analysis.line(created[passed[0].id][0])},"
                if isinstance(passed[0], ast.Name)
                else ""
            )
            to = (
                "a jit with in_shardings"
                if self._jit_with_shardings(call.func)
                else f"`{analysis.text(call.func)}`, which calls a jit with in_shardings,"
            )
            return (
                f"`{short(analysis.text(passed[0]))}`{made} is passed to {to} "
                f"at line {analysis.line(call)}: an array made under "
                "jax.set_mesh is committed to the mesh, and a jit of other shardings raises"
            )
        return None

    def _host_call(self, expr: ast.expr) -> bool:
        """A call of NumPy (`np.zeros(...)`, `np.asarray(...)`): a host array, which
        jax.set_mesh does not commit to its mesh."""
        if not isinstance(expr, ast.Call):
            return False
        analysis = self.analysis
        value = analysis.engine.evaluator.value_of(analysis.module, expr.func)
        name = value.name if isinstance(value, External) else None
        return name is not None and name.startswith("numpy.")

    def _on_host(self, assignment: ast.stmt) -> bool:
        """Whether `assignment` binds the value of a NumPy call (a plain `x = np...(...)`)."""
        return (
            isinstance(assignment, (ast.Assign, ast.AnnAssign))
            and assignment.value is not None
            and self._host_call(assignment.value)
        )

    def _made_before(self, assignment: ast.stmt, call: ast.Call) -> bool:
        """Whether the array `assignment` binds may reach `call`: it is written before the
        call starts (not by the call's own statement, whose right side runs first), or both
        are in one loop, where a later pass reads what an earlier one wrote. An array a
        jitted function returns is committed under either context: never a hazard."""
        value = getattr(assignment, "value", None)
        if (
            isinstance(value, ast.Call)
            and not isinstance(assignment, ast.AugAssign)
            and self._jitted(value.func)
        ):
            return False
        end = (assignment.end_lineno or 0, assignment.end_col_offset or 0)
        if end <= (call.lineno, call.col_offset):
            return True
        current = self.analysis.parents.get(call)
        while current is not None:
            if isinstance(current, (ast.For, ast.AsyncFor, ast.While)) and any(
                n is assignment for n in ast.walk(current)
            ):
                return True
            current = self.analysis.parents.get(current)
        return False

    def _runs_jit_within(self, func: ast.expr) -> bool:
        """Whether `func` names a function of this module whose body calls a jit with
        `in_shardings` (an array passed to it may reach that jit)."""
        if not isinstance(func, ast.Name):
            return False
        definition = self.analysis.definition(func)
        return definition is not None and any(
            isinstance(c, ast.Call) and self._jit_with_shardings(c.func)
            for c in ast.walk(definition)
        )

    def _jitted(self, func: ast.expr) -> bool:
        """Whether calling `func` runs a jitted function (its result is a committed array)."""
        analysis = self.analysis
        if isinstance(func, ast.Name):
            definition = analysis.definition(func)
            if definition is not None:
                return any(
                    analysis.jit_application(d) is not None
                    for d in definition.decorator_list
                )
            func = analysis.written_as(func)
        return analysis.jit_application(func) is not None

    def _jit_with_shardings(self, func: ast.expr) -> bool:
        analysis = self.analysis
        expr = analysis.written_as(func) if isinstance(func, ast.Name) else func
        definition = analysis.definition(func) if isinstance(func, ast.Name) else None
        applications = (
            [analysis.jit_application(d) for d in definition.decorator_list]
            if definition is not None
            else [analysis.jit_application(expr)]
        )
        for application in applications:
            if application is None:
                continue
            shardings = application.keywords.get("in_shardings")
            if shardings is None and isinstance(expr, ast.Call) and len(expr.args) > 1:
                shardings = expr.args[1]  # pjit's positional in_shardings
            if shardings is not None and not (
                isinstance(shardings, ast.Constant) and shardings.value is None
            ):
                return True
        return False


def _raises_rule() -> type[Rule]:
    """JAX014, the rule of the blocks under which a call raises (it subclasses this one),
    as registered."""
    from jaxfix.codemods import RULES

    return RULES[_RAISES]


def is_legacy_mesh(analysis: Analysis, expr: ast.expr) -> bool:
    """Whether `expr` (a `with` item) is a concrete mesh entered the legacy way."""
    value = analysis.value_of(expr)
    return isinstance(value, Mesh) and not value.is_abstract


def tests_error_or_warning(analysis: Analysis, node: ast.AST) -> bool:
    """Whether `node` is inside a block that tests an error or a warning (a test of the error,
    or of a deprecation itself): left alone (JAX101 and JAX103 ask it too)."""
    parents = analysis.parents
    current = parents.get(node)
    while current is not None:
        if isinstance(current, ast.With) and any(
            isinstance(item.context_expr, ast.Call)
            and _last_name(item.context_expr.func) in _TESTS_ERRORS
            for item in current.items
        ):
            return True
        current = parents.get(current)
    return False


def _last_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else None


def _yields(statement: ast.stmt) -> bool:
    """Whether `statement` yields, outside the functions, lambdas and classes it defines."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        stack.extend(
            child
            for child in ast.iter_child_nodes(node)
            if not isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
            )
        )
    return False


def _jax_jit(jax_name: str) -> cst.BaseExpression:
    return cst.parse_expression(f"{jax_name}.jit")


def _jit(jax_name: str) -> _Edit:
    return lambda _: _jax_jit(jax_name)


def jit_call(jax_name: str) -> _Edit:
    """`pjit(f, a, b)` -> `jax.jit(f, in_shardings=a, out_shardings=b)` (JAX103 reuses it)."""

    def edit(old: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(old, cst.Call)
        args = list(old.args)
        positional = [a for a in args[1:] if a.keyword is None]
        rest = [a for a in args[1:] if a.keyword is not None]
        named = [
            keyword_arg(name, a.value).with_changes(comma=a.comma)
            for name, a in zip(_PJIT_POSITIONAL, positional)
        ]
        return old.with_changes(func=_jax_jit(jax_name), args=[args[0], *named, *rest])

    return edit


def _set_mesh(jax_name: str) -> _Edit:
    """`mesh` -> `jax.set_mesh(mesh)`; `mesh as m` -> `jax.set_mesh(m := mesh)`."""

    def edit(old: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(old, cst.WithItem)
        value = old.item
        if old.asname is not None:
            assert isinstance(old.asname.name, cst.Name)
            value = cst.NamedExpr(target=old.asname.name, value=value)
        call = cst.Call(
            func=cst.parse_expression(f"{jax_name}.set_mesh"), args=[cst.Arg(value)]
        )
        return old.with_changes(item=call, asname=None)

    return edit


# What code under `with mesh:` may use that `jax.set_mesh` does not keep, each measured on jax
# 0.10.2 and 0.12.0.1: tunix's `shard_input` reads the first (and then skips its sharding),
# levanter's `check_sharded_consistency` compares shards (`ValueError: Received incompatible
# devices for jitted computation ... jit's context mesh`).
_SET_MESH_BREAKS = {
    "thread_resources": "reads the mesh of `with mesh:` (`thread_resources`), which "
    "jax.set_mesh leaves empty",
    "addressable_shards": "works on one device's shard of an array (`addressable_shards`), "
    "which an eager op under jax.set_mesh rejects",
    "addressable_data": "works on one device's shard of an array (`addressable_data`), "
    "which an eager op under jax.set_mesh rejects",
}


# What code that also asks for the mesh jax.set_mesh sets calls: its read of `thread_resources`
# is a fallback for the old context (haliax's `_resolve_mesh`), no hazard.
_NEW_MESH_QUERIES = frozenset(
    {"get_concrete_mesh", "get_abstract_mesh", "get_mesh", "set_mesh", "use_mesh"}
)


def _library_path(path: Path) -> str:
    parts = path.parts
    for index, part in enumerate(parts[:-1]):
        if part in ("site-packages", "dist-packages"):
            return "/".join(parts[index + 1 :])
    return path.name


def _reads_old_mesh_only(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function reads `thread_resources` and asks for no mesh of the new
    context (eformer's `get_incontext_mesh`, tunix's `shard_input`)."""
    names = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute):
            names.add(child.attr)
        elif isinstance(child, ast.Name):
            names.add(child.id)
        elif isinstance(child, ast.alias):
            names.add((child.asname or child.name).rpartition(".")[2])
    return "thread_resources" in names and not names & _NEW_MESH_QUERIES


def _shard_maps_on_its_mesh(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function gives shard_map a mesh (`jax.shard_map(f, mesh=m, ...)`, the
    experimental one's `shard_map(f, m, ...)`, `partial(shard_map, mesh=m)`): JAX raises
    where that mesh is not the context's, which `with mesh:` did not set and jax.set_mesh
    does."""
    for child in ast.walk(node):
        if not isinstance(child, ast.Call):
            continue
        name = _last_name(child.func)
        if name == "shard_map" and (
            len(child.args) >= 2 or any(k.arg == "mesh" for k in child.keywords)
        ):
            return True
        if (
            name == "partial"
            and child.args
            and _last_name(child.args[0]) == "shard_map"
            and (len(child.args) >= 3 or any(k.arg == "mesh" for k in child.keywords))
        ):
            return True
    return False


def _breaking_word(node: ast.AST) -> str | None:
    """The word of _SET_MESH_BREAKS `node` names (`pxla.thread_resources`, `x.addressable_shards`)."""
    name = (
        node.attr
        if isinstance(node, ast.Attribute)
        else node.id
        if isinstance(node, ast.Name)
        else None
    )
    return name if name in _SET_MESH_BREAKS else None
