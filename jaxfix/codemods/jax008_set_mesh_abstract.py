"""JAX008: an AbstractMesh given to `jax.set_mesh`, which takes a concrete Mesh."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.values import Mesh, Unknown
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.make_mesh_devices import make_mesh_refusal
from jaxfix.codemods.mesh_origins import abstracted_here, mesh_origin
from jaxfix.codemods.text import not_fixed, other_file, what_runs, with_note
from jaxfix.evidence.facts import Evidence, ValueSite
from jaxfix.ground.diagnostics import Fix, Location, Related, Safety
from jaxfix.ground.quoting import cut
from jaxfix.settings.options import Options

if TYPE_CHECKING:
    import libcst as cst


class SetMeshAbstract(Rule):
    """
    ## What it does
    Finds `with jax.set_mesh(mesh):` where the engine knows `mesh` is an `AbstractMesh` (a
    hand-built `AbstractMesh(...)`, a concrete mesh's `.abstract_mesh`, through any name or
    import spelling: [docs/engine.md](../engine.md)), and enters it with
    `jax.sharding.use_abstract_mesh(mesh)`, the context that takes an abstract mesh. A mesh
    the engine cannot pin down is not reported, unless a run's log (`--from-log`, `repair`)
    shows this call raised the error.

    ## Why is this bad?
    `jax.set_mesh` takes only a concrete `jax.sharding.Mesh`: given an abstract one it
    raises ``ValueError: Expected mesh of type `jax.sharding.Mesh`. Got <class
    'jax._src.mesh.AbstractMesh'>``.

    ## Example
    ```python
    abstract = jax.sharding.AbstractMesh((8,), ("x",))
    with jax.set_mesh(abstract):
        out = jax.eval_shape(f, x)
    ```

    ## Use instead
    ```python
    abstract = jax.sharding.AbstractMesh((8,), ("x",))
    with jax.sharding.use_abstract_mesh(abstract):
        out = jax.eval_shape(f, x)
    ```

    ## Fix safety
    Safe where the body, as written, neither computes eagerly nor calls a function of the
    project, a jitted function or a callable jaxfix does not know, nor yields (a context
    manager's `with` runs its caller's body there, which jaxfix does not see: a
    `jit(in_shardings=P(...))` needs the concrete mesh): an abstract mesh context
    serves tracing, `jax.eval_shape` and lowering. A body that computes eagerly
    (`jax.random.key(0)`, `step(x)` of a jitted `step`) needs devices an abstract mesh lacks
    (JAX would raise JAX001's error), one that calls a project function or an unknown
    callable, or yields, may: there the concrete mesh is kept where this module made it abstract
    (unsafe: the concrete mesh is what such a body needs), `m.abstract_mesh` becoming `m` and
    `jax.typeof(x).sharding` becoming `x.sharding` (the array's own, concrete, mesh), when
    what is made there reaches only `jax.set_mesh` (written in its argument, assigned to a
    name every read of which is its argument, or returned by a function every call of which
    is), outside a jitted function; otherwise it is reported without a fix, naming where the
    mesh was made abstract. Where that is another module (`Plan(mesh=m.abstract_mesh)` in the
    module that builds the plan), the fix is made there, reported at `m.abstract_mesh`, when
    every `jax.set_mesh` of the project given that mesh is a `with` around such a body and no
    `use_abstract_mesh` is given it (which takes only an abstract mesh). A `set_mesh` not entered by a `with` sets the mesh for the rest of the
    program, which `use_abstract_mesh` cannot: its fix (unsafe: another module may read what
    is stored there) goes where the mesh was stored, `self.mesh = mesh.abstract_mesh` in the
    class's `__init__` or a module's `M = mesh.abstract_mesh`, which then stores the concrete
    mesh `mesh`, when the engine knows it is one and every other read of the attribute (or
    name) in the module is `jax.set_mesh`'s argument too; otherwise that place is named
    (a hand-built `AbstractMesh(...)` has no concrete mesh on its path). From a recorded run
    (`jaxfix repair`, `--evidence`), where the raising line has no fix of its own (a `with`
    whose body may need devices, a bare set_mesh), the hand-built
    `AbstractMesh(sizes, names, axis_types=...)` the run built the given mesh with, in any
    module of the tree (a config passing it to a strategy object), is built concrete there
    with `jax.make_mesh` of the same arguments (unsafe: another reader of that mesh may need
    it abstract; the axis types must be written, as the two default differently), when it
    may fit the devices: jax.make_mesh raises on a shape larger than the devices the program
    has, and jaxfix never asks JAX how many there are. A size above the devices the run shows
    exactly (jax.make_mesh's own message names them) is reported, naming that message; a shape
    of the device count (`(jax.device_count(),)`) always fits; otherwise the fix is written
    and repair's next run checks it (its guard undoes a fix the program then fails on, and
    says so). Where the
    run built the given mesh as a concrete mesh's (`.abstract_mesh`, read back from the
    context: `mesh=get_current_abstract_or_physical_mesh()` inside `with jax.set_mesh(self.mesh):`),
    the one call in the block of the `with` where the run put it in force that reads the
    current mesh (`jax.sharding.get_abstract_mesh()`, or a function of the tree taking
    nothing that calls it) gets the concrete mesh that `with` enters, as it names it (a name
    or `self.x` holding the mesh the run built; unsafe: another reader of the value may need
    it abstract).

    ## References
    - `set_mesh` in jax/_src/sharding_impls.py (jax 0.10.2 and 0.12.0.1), which raises.
    - `use_abstract_mesh` in jax/_src/mesh.py.
    """

    code = "JAX008"
    name = "set-mesh-abstract"
    summary = "an AbstractMesh given to jax.set_mesh, which takes a concrete Mesh"
    fixes = {
        Safety.SAFE: "enter it with `jax.sharding.use_abstract_mesh`",
        Safety.UNSAFE: "store the concrete mesh where a bare set_mesh's mesh is set",
    }
    # a set_mesh call; `m.abstract_mesh` read in a module of its own (the attribute, not
    # `use_abstract_mesh`): the fix where another module's set_mesh gets it
    tokens = (
        (b"set_mesh",),
        (rb"\.(?:\s|\\[nrt]?|[\",]|#[^\r\n]*(?![^\r\n]))*abstract_mesh\b",),
    )
    raises = ("Expected mesh of type `jax.sharding.Mesh`. Got {text}",)
    raised_in = ("jax/_src/sharding_impls.py",)
    # the mesh set_mesh was given: where the run built it is where a concrete one is made
    mesh_locals = {"given": "mesh"}
    unnamed_meshes = frozenset({"given"})

    def __init__(self, analysis: Analysis, options: Options) -> None:
        super().__init__(analysis, options)
        self._found_calls: dict[Api, list[tuple[Analysis, ast.Call, object]]] = {}

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        if (
            len(node.args) != 1
            or not analysis.may_call(node, Api.SET_MESH)
            or analysis.called_api(node) is not Api.SET_MESH
        ):
            return
        (argument,) = node.args
        value = analysis.value_of(argument)
        if isinstance(value, Mesh) and not value.is_abstract:
            return
        if not isinstance(value, Mesh) and analysis.confirmed(node, self.code) is None:
            return  # neither the engine nor a run's log shows an abstract mesh
        if analysis.confirmed(node, self.code) is None and analysis.not_taken(node):
            return  # on the side of `x if abstract else jax.set_mesh(m)` never taken
        if self.expected(node):
            return
        message = (
            f"`{analysis.text(argument)}` is an AbstractMesh: jax.set_mesh takes a concrete "
            "Mesh; JAX raises ValueError: Expected mesh of type `jax.sharding.Mesh`"
        )
        statement = analysis.parents.get(analysis.parents.get(node, node))
        if not isinstance(statement, ast.With):
            self._not_entered(node, argument, message)
            return
        needed = analysis.devices_needed(statement)
        if needed is not None:
            call, eager = needed
            what = what_runs(analysis, call, eager)
            needs = (
                f"line {analysis.line(call)} {what}, which may need devices an "
                "abstract mesh lacks"
            )
            if not self._keep_concrete(node, argument, message, needs):
                self.report(
                    node, with_note(message, not_fixed(needs + self._made_at(argument)))
                )
            return
        name, imports = analysis.api_spelling(Api.USE_ABSTRACT_MESH, "jax.sharding")
        fix = Fix(
            "enter it with use_abstract_mesh",
            ((node.func, _callee(name)),),
            Safety.SAFE,
            imports,
        )
        self.report(node, message, fix=fix)

    def at_value(self, evidence: Evidence) -> None:
        """The run built the abstract mesh it gave `jax.set_mesh` here, by a hand-built
        `AbstractMesh(sizes, names, axis_types=...)` (jaxfix/check/value_sites.py): built
        concrete with `jax.make_mesh` of the same arguments (the axis types written: the two
        default differently), when the raising line makes no fix of its own (a `with` whose
        body may need devices, or a bare set_mesh)."""
        site = evidence.value_site
        analysis = self.analysis
        node = analysis.expression_at(site.span) if site is not None else None
        if site is not None and site.onto is not None and isinstance(node, ast.Call):
            self._concrete_in_hand(node, site)
            return
        if (
            site is None
            or not isinstance(node, ast.Call)
            or analysis.called_api(node) is not Api.ABSTRACT_MESH
            or len(node.args) != 2
            or any(isinstance(a, ast.Starred) for a in node.args)
            or [k.arg for k in node.keywords] != ["axis_types"]  # their defaults differ
            or self._fixed_where_raised(site.raised)
        ):
            return
        jax_name, imports = analysis.module_spelling("jax")
        raised = f"{other_file(site.raised[0], analysis.path)}:{site.raised[1]}"
        message = (
            f"`{cut(analysis.text(node.func), 40)}(...)` builds the AbstractMesh the run "
            f"gave jax.set_mesh at {raised}, whose code needs a concrete Mesh; JAX raises "
            "ValueError: Expected mesh of type `jax.sharding.Mesh`"
        )
        related = (
            Related(
                "the jax.set_mesh that raised",
                Location(site.raised[1], 1),
                site.raised[0],
            ),
        )
        refusal = make_mesh_refusal(analysis, node.args[0], evidence)
        if refusal is not None:
            self.report(node, with_note(message, not_fixed(refusal)), related=related)
            return
        self.report(
            node,
            message,
            fix=Fix(
                "build it concrete with jax.make_mesh",
                ((node.func, _callee(f"{jax_name}.make_mesh")),),
                Safety.UNSAFE,  # another reader of this mesh may need it abstract
                imports,
            ),
            related=related,
        )

    def _concrete_in_hand(self, node: ast.Call, site: ValueSite) -> None:
        """The run gave jax.set_mesh the abstract mesh this call reads from the context
        (jaxfix/check/value_sites.py), inside the `with` that put its concrete mesh in force,
        which this function names `site.onto`: that mesh is passed instead, when the call
        takes no argument, the `with` around it in this function enters `site.onto` by
        `jax.set_mesh` or `use_mesh`, and the block assigns it nowhere."""
        analysis = self.analysis
        onto = site.onto
        block = _with_around(analysis, node)
        setter = block.items[0].context_expr if block is not None else None
        if (
            onto is None
            or node.args
            or node.keywords
            or block is None
            or len(block.items) != 1
            or not isinstance(setter, ast.Call)
            or analysis.called_api(setter) not in (Api.SET_MESH, Api.USE_MESH)
            or [analysis.text(a) for a in setter.args] != [onto]
            or any(
                isinstance(n, (ast.Name, ast.Attribute))
                and not isinstance(n.ctx, ast.Load)
                and ast.unparse(n) == onto
                for statement in block.body
                for n in ast.walk(statement)
            )
            or self._fixed_where_raised(site.raised)
        ):
            return
        raised = f"{other_file(site.raised[0], analysis.path)}:{site.raised[1]}"
        self.report(
            node,
            f"`{cut(analysis.text(node), 60)}` reads back, abstract, the mesh `{onto}` "
            f"entered at line {setter.lineno}; the run gave it to jax.set_mesh at {raised}, "
            "which takes a concrete Mesh; JAX raises ValueError: Expected mesh of type "
            "`jax.sharding.Mesh`",
            fix=Fix(
                f"pass the concrete mesh `{onto}` entered around it",
                ((node, lambda _: _expression(onto)),),
                Safety.UNSAFE,  # another reader of this value may need it abstract
            ),
            related=(
                Related(
                    "the jax.set_mesh that raised",
                    Location(site.raised[1], 1),
                    site.raised[0],
                ),
            ),
        )

    def _fixed_where_raised(self, raised: tuple[Path, int]) -> bool:
        """Whether the `jax.set_mesh` that raised is a `with` whose body needs no devices:
        there use_abstract_mesh is its own fix."""
        analysis = self.analysis
        module = analysis.engine.project.module(raised[0])
        if isinstance(module, Unknown):
            return True  # not knowing, nothing is changed here
        other = analysis.of(module)
        for call in ast.walk(module.tree):
            if (
                isinstance(call, ast.Call)
                and call.lineno == raised[1]
                and other.called_api(call) is Api.SET_MESH
            ):
                statement = other.parents.get(other.parents.get(call, call))
                return (
                    isinstance(statement, ast.With)
                    and other.devices_needed(statement) is None
                )
        return True

    def visit_Attribute(self, node: ast.Attribute) -> None:
        """`m.abstract_mesh` of a concrete mesh that another module's `with jax.set_mesh(...)`
        gets, around a body that needs devices: the concrete mesh is kept here, when no
        `use_abstract_mesh` of the project gets it too."""
        if node.attr != "abstract_mesh" or not isinstance(node.ctx, ast.Load):
            return
        analysis = self.analysis
        if self._used_here(node):
            return  # read for an attribute, compared, or given to JAX here: it stays here
        mesh = analysis.value_of(node.value)
        if not isinstance(mesh, Mesh) or mesh.is_abstract:
            return
        setters = self._readers(node, Api.SET_MESH, "set_mesh")
        if not setters or any(a.module is analysis.module for a, _ in setters):
            return  # none, or one in this module: its own report says what to do
        entered = [(a, c) for a, c in setters if self._entered_needing_devices(a, c)]
        if len(entered) != len(setters):
            return
        if self._readers(node, Api.USE_ABSTRACT_MESH, "use_abstract_mesh"):
            return  # an abstract-only reader: keeping the concrete mesh would break it
        where, call = entered[0]
        concrete = analysis.text(node.value)
        self.report(
            node,
            f"`{cut(analysis.text(node), 40)}` is the AbstractMesh given to jax.set_mesh at "
            f"{where.path.name}:{where.line(call)}, around code that may need devices; "
            "JAX raises ValueError: Expected mesh of type `jax.sharding.Mesh`",
            fix=Fix(
                f"keep the concrete mesh `{cut(concrete, 40)}` here",
                ((node, lambda _: _expression(concrete)),),
                Safety.UNSAFE,  # the concrete mesh is what that body needs
            ),
        )

    def _used_here(self, node: ast.Attribute) -> bool:
        """`m.abstract_mesh.update(...)`, `.shape`, `[...]`, a comparison, or an argument of a
        JAX call (`use_abstract_mesh(m.abstract_mesh)`): what such a use makes is not this
        mesh, so no other module's set_mesh is asked about (a search of the project)."""
        parent = self.analysis.parents.get(node)
        return isinstance(parent, (ast.Attribute, ast.Subscript, ast.Compare)) or (
            isinstance(parent, ast.Call)
            and node in parent.args
            and self.analysis.called_api(parent) is not None
        )

    def _readers(
        self, node: ast.Attribute, api: Api, word: str
    ) -> list[tuple[Analysis, ast.Call]]:
        """The one-argument calls of `api` in the project (this module included) whose
        argument is the abstract mesh `node` makes."""
        return [
            (other, call)
            for other, call, value in self._calls_of(api, word)
            if isinstance(value, Mesh) and value.abstracted is node
        ]

    def _calls_of(self, api: Api, word: str) -> list[tuple[Analysis, ast.Call, object]]:
        """The one-argument calls of `api` in the modules of the project holding `word`, with
        their argument's value; found once for the module this rule runs on."""
        cached = self._found_calls.get(api)
        if cached is not None:
            return cached
        analysis = self.analysis
        project = analysis.engine.project
        paths = project.candidate_files(word, analysis.path, imported=False)
        found: list[tuple[Analysis, ast.Call, object]] = []
        for path in (*([] if isinstance(paths, Unknown) else paths), analysis.path):
            module = project.module(path)
            if isinstance(module, Unknown):
                continue
            other = analysis.of(module)
            for call in ast.walk(module.tree):
                if (
                    isinstance(call, ast.Call)
                    and len(call.args) == 1
                    and other.may_call(call, api)
                    and other.called_api(call) is api
                ):
                    found.append((other, call, other.value_of(call.args[0])))
        self._found_calls[api] = found
        return found

    def _entered_needing_devices(self, analysis: Analysis, call: ast.Call) -> bool:
        """`with jax.set_mesh(m):` around a body that may need devices, not testing the
        error."""
        statement = analysis.parents.get(analysis.parents.get(call, call))
        return (
            isinstance(statement, ast.With)
            and analysis.devices_needed(statement) is not None
            and not analysis.expected(call, self.raises, self.error)
        )

    def _keep_concrete(
        self, node: ast.Call, argument: ast.expr, message: str, needs: str
    ) -> bool:
        """A `with` body that may need devices keeps the concrete mesh where this module made
        it abstract (`m.abstract_mesh` becomes `m`, `jax.typeof(x).sharding` becomes
        `x.sharding`), when what is made there reaches only `jax.set_mesh`, outside a
        jitted function; whether it was fixed so."""
        analysis = self.analysis
        if self._in_jitted_function(node):
            return False
        found = abstracted_here(analysis, argument)
        if found is None:
            return False
        concrete = analysis.text(found.concrete)
        fix = Fix(
            f"keep the concrete mesh: `{cut(analysis.text(found.node), 40)}` becomes "
            f"`{cut(concrete, 40)}` (line {analysis.line(found.node)})",
            ((found.node, lambda _: _expression(concrete)),),
            Safety.UNSAFE,  # the concrete mesh is what the body needs, if it is one
        )
        self.report(node, with_note(message, needs), fix=fix)
        return True

    def _made_at(self, argument: ast.expr) -> str:
        """Where the abstract mesh was made from a concrete one and why the concrete mesh is
        not kept there, for the note; empty when jaxfix does not know where."""
        analysis = self.analysis
        value = analysis.value_of(argument)
        made = value.abstracted if isinstance(value, Mesh) else None
        place = analysis.place(made) if made is not None else None
        if made is None or place is None:
            return ""
        path, line = place
        owner = analysis.engine.project.holding(made) or analysis.module
        shown = cut(analysis.of(owner).text(made), 40)
        if path != analysis.path:
            return (
                f"; it is made abstract at {path.name}:{line} (`{shown}`), in another "
                "module, where the concrete mesh is kept when no other code needs it "
                "abstract"
            )
        return (
            f"; it is made abstract at line {line} (`{shown}`), but what is made there "
            "does not reach only jax.set_mesh (or jaxfix cannot tell that it does)"
        )

    def _in_jitted_function(self, node: ast.AST) -> bool:
        """Whether `node` is in a function a decorator jits (there `x.sharding` of a traced
        `x` raises)."""
        analysis = self.analysis
        scope = analysis.module.scope_of(node)
        return isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            analysis.jit_application(d) is not None for d in scope.decorator_list
        )

    def _not_entered(self, node: ast.Call, argument: ast.expr, message: str) -> None:
        """A bare `jax.set_mesh(m)` sets the mesh for what follows, which no abstract
        mesh context can: the fix goes where `m` was stored (`self.mesh = mesh.abstract_mesh`
        in `__init__`, a module's `M = mesh.abstract_mesh`), which stores the concrete mesh
        when it is on the path and nothing else reads what is stored there; else that place
        is named."""
        analysis = self.analysis
        unentered = (
            "it is not entered by a `with`: jax.set_mesh sets the mesh for what follows, "
            "use_abstract_mesh only inside a `with`"
        )
        origin = mesh_origin(analysis, argument)
        if origin is None:
            self.report(node, with_note(message, not_fixed(unentered)))
            return
        stored = (
            f"`{origin.shown}` is set to `{cut(analysis.text(origin.value), 50)}` at "
            f"line {origin.line}"
        )
        if origin.concrete is None or origin.other_reads:
            value = origin.value
            why = (
                f"it is also read at line {origin.other_reads[0]}, where it may have to "
                "stay abstract"
                if origin.other_reads
                else f"jaxfix does not know `{cut(analysis.text(value.value), 40)}` is a "
                "concrete mesh"
                if isinstance(value, ast.Attribute) and value.attr == "abstract_mesh"
                else "no concrete mesh is on its path"
            )
            self.report(
                node,
                with_note(
                    message,
                    not_fixed(
                        f"{unentered}; {stored}, which should hold the concrete mesh, "
                        f"but {why}"
                    ),
                ),
            )
            return
        concrete = analysis.text(origin.concrete)
        fix = Fix(
            f"store the concrete mesh `{concrete}` where `{origin.shown}` is set (line "
            f"{origin.line})",
            ((origin.value, lambda _: _expression(concrete)),),
            Safety.UNSAFE,  # another module may read what is stored there
        )
        self.report(node, with_note(message, f"{stored}"), fix=fix)


def _expression(text: str) -> cst.BaseExpression:
    import libcst as cst  # for the fix, written only when it is applied

    return cst.parse_expression(text)


def _with_around(analysis: Analysis, node: ast.AST) -> ast.With | None:
    """The innermost `with` whose body holds `node`, in its function."""
    child, parent = node, analysis.parents.get(node)
    while parent is not None and not isinstance(
        parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    ):
        if isinstance(parent, ast.With) and child in parent.body:
            return parent
        child, parent = parent, analysis.parents.get(parent)
    return None


def _callee(name: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def edit(old: cst.CSTNode) -> cst.CSTNode:
        import libcst as cst  # for the fix, written only when it is applied

        return cst.parse_expression(name)

    return edit
