"""JAX010: a hand-built AbstractMesh lowered beside a mesh of another size."""

from __future__ import annotations

import ast
import functools
import math
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.contexts import setting_site
from jaxfix.analysis.ast_engine.values import (
    Array,
    ListValue,
    Mesh,
    ShapeStruct,
    Sharding,
    Value,
)
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, with_note
from jaxfix.evidence.facts import Evidence, Facts, MeshFacts
from jaxfix.ground.diagnostics import Fix, Location, Related, Safety

if TYPE_CHECKING:
    import libcst as cst

_STATIC = ("static_argnums", "static_argnames")


@dataclass(frozen=True)
class _Part:
    """A mesh JAX checks the devices of at a lowering: an argument's sharding, jit's
    `in_shardings`/`out_shardings`, or the `jax.set_mesh` context; `given` is the reference
    the code gives it by (`m` in `NamedSharding(m, ...)`, `set_mesh(m)`, `m.abstract_mesh`)."""

    mesh: Mesh
    given: ast.expr | None

    @property
    def hand_built(self) -> bool:
        """An `AbstractMesh(...)` built by hand: no devices of its own, so its size is a
        claim the devices must meet."""
        return (
            self.mesh.is_abstract
            and not self.mesh.has_abstract_device
            and isinstance(self.mesh.origin, ast.Call)
        )


class AbstractMeshBesideOtherSize(Rule):
    """
    ## What it does
    Finds a jitted function lowered, exported or called (`jax.jit(f).lower(x, spec)`,
    `jax.export.export(jax.jit(f))(x, spec)`, `f(x)`) where a
    sharding on a hand-built `AbstractMesh(...)` meets a mesh of another size: an argument
    placed on a concrete mesh, a `ShapeDtypeStruct` or an `in_shardings`/`out_shardings` on
    another mesh, or the `jax.set_mesh` context. The engine follows the meshes through any
    name or import spelling ([docs/engine.md](../engine.md)); a mesh it cannot pin down is
    not reported. Where the other meshes are one concrete mesh that the code names where the
    `AbstractMesh(...)` is built, and its axis names are the same, the fix builds the abstract
    mesh from it: `mesh.abstract_mesh`; where it is built in another module, the reference
    this module gives it (`NamedSharding(SERVE_ABSTRACT, ...)`) becomes `mesh.abstract_mesh`.
    A module that builds no `AbstractMesh(...)` is looked at only when a recorded run
    (`jaxfix repair`, `--evidence`) raised the error there.

    From a recorded run whose frames lead from the `AbstractMesh(...)` to one axis's size
    written as an integer in the code (a keyword of a `functools.partial` a comprehension
    called, a factory's argument), that integer is set so that the mesh's size is the device
    assignment's, which the message states: the assignment's size over the product of the
    other axes' sizes, when it divides exactly.

    ## Why is this bad?
    An abstract mesh stands for devices; lowered beside real ones, its size must be theirs.
    JAX raises ``ValueError: AbstractMesh size: 4 does not match the device assignment size:
    8`` when it meets concrete devices, and ``ValueError: AbstractMesh should be of the same
    size across all shardings`` when it meets another abstract mesh (jax 0.10.2 and
    0.12.0.1). A function that computes on such an argument under `jax.set_mesh` fails
    first, on the same mismatch, while tracing (``For primitive mul, context mesh ...
    should match the aval mesh``); one that combines it with an argument on the other mesh,
    with ``Mesh for all inputs should be equal``.

    ## Example
    ```python
    mesh = jax.make_mesh((8,), ("x",))
    abstract = AbstractMesh((4,), ("x",))
    x = jax.device_put(np.arange(8.0), NamedSharding(mesh, P("x")))
    spec = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=NamedSharding(abstract, P("x")))
    lowered = jax.jit(lambda a, b: (a, b)).lower(x, spec)
    ```

    ## Use instead
    ```python
    mesh = jax.make_mesh((8,), ("x",))
    abstract = mesh.abstract_mesh
    x = jax.device_put(np.arange(8.0), NamedSharding(mesh, P("x")))
    spec = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=NamedSharding(abstract, P("x")))
    lowered = jax.jit(lambda a, b: (a, b)).lower(x, spec)
    ```

    ## Fix safety
    Unsafe: the hand-built mesh takes the other mesh's sizes and axis types, for every use
    of it, not only this lowering. The other mesh may be a concrete one's `m.abstract_mesh`
    (a `ShapeDtypeStruct` on it): the hand-built one becomes `m.abstract_mesh` too. Two
    hand-built meshes of different sizes, or a concrete mesh the code does not name where
    the abstract one is built, are reported without a fix: which size is meant the code
    does not say. The fix from a recorded run changes a configuration value for every
    mesh built from it; it is made only where the code still writes the size the run's
    mesh had there, along one path the run took.

    ## References
    - `_get_and_check_device_assignment` in jax/_src/interpreters/pxla.py (jax 0.10.2 and
      0.12.0.1), which raises both.
    """

    code = "JAX010"
    name = "abstract-mesh-beside-other-size"
    summary = "a hand-built AbstractMesh lowered beside a mesh of another size"
    fixes = {Safety.UNSAFE: "build the abstract mesh from the concrete one"}
    # a call `AbstractMesh(...)` (`sharding.AbstractMesh(...)`), or its import under another
    # name (`AbstractMesh as AM`): the modules the rule looks in (`_builds_abstract_meshes`)
    tokens = (
        (rb"\bAbstractMesh(?:\s|\\[nrt]?|[\",]|#[^\r\n]*(?![^\r\n]))*(?:\(|as\b)",),
    )
    raises = (
        "AbstractMesh size: {count:abstract} does not match the device assignment size: {count:devices}",
        "AbstractMesh should be of the same size across all shardings. Got {mesh:abstract} and {mesh}",
    )
    raised_in = ("jax/_src/interpreters/pxla.py",)
    # The device assignment's check holds the hand-built mesh as `abstract_mesh`.
    mesh_locals = {"abstract": "abstract_mesh"}

    @classmethod
    def impossible(cls, facts: Facts) -> str | None:
        size, devices = facts.count("abstract"), facts.count("devices")
        if size is not None and size == devices:
            return f"its sizes are equal, which cannot raise {cls.code}"
        return None

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        if not (self._builds_abstract_meshes or self.recorded):
            return
        lowering = self._lowering(node)
        if lowering is None:
            return
        arguments, keywords, jitted = lowering
        context = self._context(node)
        if context is None:
            return
        parts = [
            *(p for a in arguments for p in self._argument(a)),
            *(
                p
                for k in ("in_shardings", "out_shardings")
                if k in keywords
                for p in self._shardings(jitted.value_of(keywords[k]), keywords[k])
            ),
            *context,
        ]
        built = [p for p in parts if p.hand_built and p.mesh.size is not None]
        others = [p for p in parts if not p.hand_built and p.mesh.size is not None]
        clash = next(
            (
                (h, o)
                for h in built
                for o in (*others, *built)
                if o.mesh.size != h.mesh.size
            ),
            None,
        )
        if clash is None or self.expected(node):
            return
        hand, other = clash
        message = self._message(hand, other)
        target = self._target(others)
        if target is None or not others:
            note = not_fixed(
                "which size is meant the code does not say"
                if not others
                else "the other meshes are not one concrete mesh"
            )
            self.report(node, with_note(message, note))
            return
        edits = []
        for part in built:
            if part.mesh.size == target.mesh.size:
                continue
            built_at = part.mesh.origin
            assert isinstance(built_at, ast.Call)
            # built in another module: the reference this module gives it is what changes
            origin: ast.expr = (
                part.given
                if built_at not in analysis.parents
                and part.given is not None
                and _is_reference(part.given)
                else built_at
            )
            name = self._name_at(others, target.mesh, origin)
            why = None
            if part.mesh.axis_names != target.mesh.axis_names:
                why = "its axis names are not the concrete mesh's"
            elif (
                name is None
                or origin not in analysis.parents
                or analysis.module.scope_of(origin)
                not in (analysis.module.scope_of(node), analysis.module.tree)
            ):
                why = "the concrete mesh has no name in view where it is built"
            if why is not None or name is None:
                note = not_fixed(f"`{analysis.text(origin)}`: {why}")
                self.report(node, with_note(message, note))
                return
            edits.append((origin, _abstract_of(name)))
        fix = Fix(
            "build the abstract mesh from the concrete one",
            tuple(dict(edits).items()),
            Safety.UNSAFE,
        )
        self.report(node, message, fix=fix)

    def checks(self, call: ast.Call) -> bool:
        return self._lowering(call) is not None

    # -- the fix where the value is written (a recorded run's frames lead there) ---------------

    def at_value(self, evidence: Evidence) -> None:
        """One axis size of the abstract mesh is written here (the walk from where the run
        built it reached it): set so that the mesh's size is the device assignment's, when
        the code still holds the run's size there, the other axes' sizes are the run's and
        the assignment's size is a whole multiple of their product."""
        site, facts = evidence.value_site, evidence.agreed
        if site is None or facts is None or site.axis is None:
            return
        mesh, devices = facts.get("abstract"), facts.count("devices")
        node = self.analysis.expression_at(site.span)
        if (
            mesh is None
            or devices is None
            or node is None
            or not 0 <= site.axis < len(mesh.axis_sizes)
        ):
            return
        if not (isinstance(node, ast.Constant) and type(node.value) is int):
            return
        if node.value != mesh.axis_sizes[site.axis]:
            return  # changed since the run, or a record the code contradicts
        others = math.prod(s for i, s in enumerate(mesh.axis_sizes) if i != site.axis)
        if devices < others or devices % others or devices // others == node.value:
            return
        size = devices // others
        name = mesh.axis_names[site.axis]
        raised = f"{_shown(site.raised[0], self.analysis.path)}:{site.raised[1]}"
        self.report(
            node,
            f"`{site.name}` is the size of axis {name!r} of the abstract mesh "
            f"{_sizes(mesh)} the run lowered beside {devices} devices at {raised} "
            f"({self.code}); set it to {size}",
            fix=Fix(
                f"set axis {name!r} to {size} where its size is written",
                ((node, _integer(size)),),
                Safety.UNSAFE,
            ),
            related=(
                Related(
                    f"the {self.code} error this value makes: an abstract mesh of size "
                    f"{mesh.size} lowered beside {devices} devices",
                    Location(site.raised[1], 1),
                    site.raised[0],
                ),
            ),
        )

    # -- the lowering and its meshes --------------------------------------------------------

    def _lowering(
        self, node: ast.Call
    ) -> tuple[list[ast.expr], Mapping[str, ast.expr], Analysis] | None:
        """The arguments of a jitted function's lowering (`f.lower(...)`,
        `f.trace(...).lower()`, `jax.export.export(f)(...)` or through a name bound to
        `jax.export.export(f)`) or call (`f(...)`), jit's keywords and the analysis of the
        module they are written in; None for anything else, or a jit whose keywords the
        code does not show or that takes static ones."""
        func = node.func
        called: ast.expr = func
        arguments = [*node.args, *(k.value for k in node.keywords if k.arg)]
        # `export.export(f)(...)`, or a name bound once to `export.export(f)`
        exporter = (
            self.analysis.written_as(func) if isinstance(func, ast.Name) else func
        )
        if (
            isinstance(exporter, ast.Call)
            and self.analysis.called_api(exporter) is Api.EXPORT
        ):
            if not exporter.args or isinstance(exporter.args[0], ast.Starred):
                return None
            called = exporter.args[0]
        elif isinstance(func, ast.Attribute) and func.attr == "lower":
            called = func.value
            inner = called
            if (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute)
                and inner.func.attr == "trace"
            ):
                called = inner.func.value
                arguments = [*inner.args, *(k.value for k in inner.keywords if k.arg)]
        if any(isinstance(a, ast.Starred) for a in arguments) or any(
            k.arg is None for k in node.keywords
        ):
            return None
        found = self._jit_keywords(called)
        if found is None or any(k in found[0] for k in _STATIC):
            return None
        return arguments, *found

    @functools.cached_property
    def _builds_abstract_meshes(self) -> bool:
        """Whether the module calls `AbstractMesh(...)`: where a mesh is built by hand (the
        rule looks no further, so that a module without one costs no lowering's values)."""
        analysis = self.analysis
        names = {  # what an import binds AbstractMesh to (checked by the engine after)
            alias.asname or alias.name
            for node in analysis.module.parents  # every node but the module's own
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
            if alias.name == "AbstractMesh"
        }
        spelled = [  # the calls spelled so, asked in the order ast.walk visits them
            n
            for n in analysis.module.calls
            if (isinstance(n.func, ast.Attribute) and n.func.attr == "AbstractMesh")
            or (isinstance(n.func, ast.Name) and n.func.id in names)
        ]
        spelled.sort(key=analysis.module.depth)  # breadth first: by depth, stable
        return any(analysis.called_api(n) is Api.ABSTRACT_MESH for n in spelled)

    def _jit_keywords(
        self, expr: ast.expr
    ) -> tuple[Mapping[str, ast.expr], Analysis] | None:
        """jit's keywords where `expr` is written as a jitted function: `jax.jit(f, ...)`,
        a name bound once to it (here, or at the top of the module it is imported from), or
        a name of a `def` under one jit decorator; with the analysis of their module."""
        analysis = self.analysis
        if not isinstance(expr, (ast.Name, ast.Attribute, ast.Call)):
            return None
        written = (
            analysis.written_elsewhere(expr) if isinstance(expr, ast.Name) else None
        )
        owner = analysis.of(written[0]) if written is not None else analysis
        application = owner.jit_application(written[1] if written is not None else expr)
        if application is not None:
            if application.function is None:
                return None
            return application.keywords, owner
        function = analysis.definition(expr) if isinstance(expr, ast.Name) else None
        if function is None:
            return None
        found = [
            a
            for a in map(analysis.jit_application, function.decorator_list)
            if a is not None
        ]
        if len(found) != 1 or len(function.decorator_list) != 1:
            return None
        return found[0].keywords, analysis

    def _context(self, node: ast.Call) -> list[_Part] | None:
        """The concrete mesh a `jax.set_mesh` context gives the lowering (none when no way
        it runs has a context); None for any other context, or one the ways disagree on."""
        sites = [setting_site(way) for way in self.analysis.ways_at(node)]
        if all(s is None for s in sites):
            return []
        first = sites[0]
        if (
            first is None
            or any(s is not first for s in sites)
            or first.api is not Api.SET_MESH
            or not isinstance(first.mesh, Mesh)
            or first.mesh.is_abstract
        ):
            return None
        call = first.node
        given = (
            call.args[0]
            if isinstance(call, ast.Call)
            and call.args
            and first.call is None
            and call in self.analysis.parents
            else None
        )
        return [_Part(first.mesh, given)]

    def _argument(self, expr: ast.expr) -> Iterator[_Part]:
        value = self.analysis.value_of(expr)
        if isinstance(value, (ShapeStruct, Array)):
            yield from self._shardings(value.sharding, expr)

    def _shardings(self, value: Value, expr: ast.expr) -> Iterator[_Part]:
        if isinstance(value, (tuple, ListValue)):
            for item in value if isinstance(value, tuple) else value.items:
                yield from self._shardings(item, expr)
        elif isinstance(value, Sharding) and isinstance(value.mesh, Mesh):
            origin = value.origin
            given = (
                origin.args[0]
                if isinstance(origin, ast.Call)
                and origin.args
                and origin in self.analysis.parents
                else None
            )
            yield _Part(value.mesh, given)

    def _target(self, others: list[_Part]) -> _Part | None:
        """The one concrete mesh every other mesh is (itself or its `.abstract_mesh`)."""
        concrete = [p for p in others if not p.mesh.is_abstract]
        if not concrete:
            concrete = self._behind_abstract(others)
            if not concrete:
                return None
        mesh = concrete[0].mesh
        same = all(
            p.mesh.origin is mesh.origin and p.mesh.abstract == mesh.abstract
            for p in others
        )
        return concrete[0] if same else None

    def _behind_abstract(self, others: list[_Part]) -> list[_Part]:
        """The concrete meshes the code reaches abstract ones from (`m` of a sharding on
        `m.abstract_mesh`), as parts of their own."""
        found = []
        for part in others:
            reference = _unabstract(part.given)
            if reference is None or reference is part.given:
                continue
            value = self.analysis.value_of(reference)
            if (
                isinstance(value, Mesh)
                and not value.is_abstract
                and value.abstract == part.mesh
            ):
                found.append(_Part(value, reference))
        return found

    def _name_at(self, others: list[_Part], mesh: Mesh, at: ast.AST) -> str | None:
        """How the code at `at` names the concrete `mesh`, by a reference the code gives it
        at the lowering."""
        for part in others:
            given = _unabstract(part.given)
            name = (
                self.analysis.mesh_named(given, mesh, at) if given is not None else None
            )
            if name is not None:
                return name
        return None

    def _message(self, hand: _Part, other: _Part) -> str:
        analysis = self.analysis
        origin = hand.mesh.origin
        assert origin is not None
        built = f"`{analysis.text(origin)}` (size {hand.mesh.size})"
        if other.mesh.is_abstract:
            return (
                f"{built} is lowered beside an abstract mesh of size {other.mesh.size}: "
                "JAX raises ValueError: AbstractMesh should be of the same size across all "
                "shardings"
            )
        return (
            f"{built} is lowered beside a concrete mesh of {other.mesh.size} devices: JAX "
            f"raises ValueError: AbstractMesh size: {hand.mesh.size} does not match the "
            f"device assignment size: {other.mesh.size}"
        )


def _sizes(mesh: MeshFacts) -> str:
    """`(x 4, y 2)`."""
    return (
        "("
        + ", ".join(f"{n} {s}" for n, s in zip(mesh.axis_names, mesh.axis_sizes))
        + ")"
    )


def _shown(path: Path, beside: Path) -> str:
    """`path` from the directory it shares with `beside` (that one's parent, for one file)."""
    absolute = [os.path.abspath(path), os.path.abspath(beside)]
    root = Path(os.path.commonpath(absolute))
    if root.as_posix() in absolute:
        root = root.parent
    return Path(absolute[0]).relative_to(root).as_posix()


def _integer(size: int) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def edit(old: cst.CSTNode) -> cst.CSTNode:
        import libcst as cst  # for the fix, written only when it is applied

        return cst.Integer(str(size))

    return edit


def _is_reference(expr: ast.expr) -> bool:
    """`m`, `cfg.mesh`: a name or an attribute, which a fix may replace."""
    return isinstance(expr, ast.Name) or (
        isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
    )


def _unabstract(expr: ast.expr | None) -> ast.expr | None:
    """`m` for `m.abstract_mesh`: the reference to the concrete mesh."""
    if isinstance(expr, ast.Attribute) and expr.attr == "abstract_mesh":
        return expr.value
    return expr


def _abstract_of(name: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def edit(old: cst.CSTNode) -> cst.CSTNode:
        import libcst as cst  # for the fix, written only when it is applied

        return cst.parse_expression(f"{name}.abstract_mesh")

    return edit
