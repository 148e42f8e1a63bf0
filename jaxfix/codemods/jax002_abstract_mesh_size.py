"""JAX002: `use_abstract_mesh` entered inside a mesh context of another size."""

from __future__ import annotations

import ast
import math
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeGuard

import libcst as cst

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.callers import CallerWay
from jaxfix.analysis.ast_engine.contexts import Entry
from jaxfix.analysis.ast_engine.enclosing import Enclosing
from jaxfix.analysis.ast_engine.evidence import (
    Confirmed,
    changed_since_the_log,
    confirmed_mesh,
)
from jaxfix.analysis.ast_engine.mesh_sizes import ConfigKey, EnvironmentVariable
from jaxfix.analysis.ast_engine.values import ListValue, Mesh, Unknown, tuple_text
from jaxfix.analysis.ast_engine.written_at import Written, called_through, written_at
from jaxfix.analysis.mesh_axes import differing_axes
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule, keyword_arg
from jaxfix.codemods.loops import iteration_text, loops_text, may_end_early
from jaxfix.codemods.module_edits import (
    every_caller_seen,
    field_read_once,
    kept_once,
    module_edit,
    read_once,
)
from jaxfix.codemods.text import (
    not_fixed,
    other_file,
    related,
    way_places,
    with_note,
)
from jaxfix.evidence.facts import (
    LISTED,
    Evidence,
    Facts,
    MeshFacts,
    Origin,
    ValueSite,
    listed,
)
from jaxfix.ground.diagnostics import DataEdit, Fix, Location, Related, Safety
from jaxfix.ground.quoting import cut
from jaxfix.settings.options import Options
from jaxfix.settings.rule_settings import RuleSetting
from jaxfix.sources.words import words_of

_JAX_ERROR = '"use_abstract_mesh cannot change the size of the mesh"'


class AbstractMeshSizeChange(Rule):
    """
    ## What it does
    Finds `jax.sharding.use_abstract_mesh(inner)` entered while another non-empty mesh is
    current (set by `use_abstract_mesh` or `jax.set_mesh`) whose size (the product of its axis
    sizes) differs from `inner`'s. With `--unsafe-fixes` it resizes one axis of `inner` so that
    both sizes match.

    The enclosing mesh is JAX's context mesh where `inner` is entered, as the engine follows
    it: `with` items, entered context managers, a bare `jax.set_mesh(m)`, a TestCase's setUp,
    decorators and `@contextmanager` helpers (of this module or imported from the project),
    the callers of its function in the project; the sizes through its value model. What it follows there, and what it
    does not, is [docs/engine.md](../engine.md). A mesh or size the engine cannot pin down is
    never reported, so a context it does not follow means no report. An empty mesh
    (`AbstractMesh((), ())`, `set_mesh(None)`) in between resets the chain, as in JAX; so
    does any context manager that may enter a mesh the engine cannot see. An inner
    `use_abstract_mesh(...)` stored in a variable before its `with` is not seen. Inside `for`
    loops over items the engine spells out (`for m in meshes:` with a function's `*meshes`
    from its callers, `for name, shape in SHAPES.items()`, `zip`, `enumerate`), or around
    the calls of its function (`for shape in SHAPES: stage(shape)`), each
    iteration is asked on its own: the report names the iterations whose size differs,
    without a fix (and says nothing where the loop may end early, by `break`, `return`,
    `yield` or `raise`, before an iteration that raises). Sizes computed from the
    host's devices (`jax.device_count()`, `jax.devices()`) are asked on hosts of every
    device count from 1 to 256 and beyond to 65536: reported, without a fix, only where they
    differ on every one (`(n, 2)` inside `(n,)`); `(n // 2, 2)` inside `(n,)`, which runs on
    every even count, is not, unless the user gives the host the program runs on
    (`--host-devices N`; never jaxfix's own environment) and they differ on its count: reported there, without a fix, except where the project's code may
    set its own device count (docs/configuration.md).

    Where the inner mesh is not one mesh on every way the code runs (its function's callers
    pass different objects or sizes: `model.init()` and `model.ff_layer.init()`; a config
    picked from a registry by a name read at run time, one of several registered), each way is
    asked on its own, a few callers and a few levels up: a way whose inner mesh's size differs
    from a mesh entered around its calls, both sizes written in the code, is reported at the
    `use_abstract_mesh`, naming the call that starts it and the size it gives, without a fix
    (the other ways run); a way that runs, or runs under a test of the error, says nothing.
    Sizes computed from the host's devices are never asked per way.

    Where the rule stops: the same error raised by `jax.experimental.pjit.pjit`, not by a
    `use_abstract_mesh` in the code. The legacy `with Mesh(devices, names):` sets no abstract
    mesh, but a `pjit(f)(x)` called under it enters that mesh's abstract mesh while it traces
    (`jax.jit` does not). It raises when the abstract mesh current there is not empty and of
    another size: one set by `jax.set_mesh(m)` around it (eagerly or in a `jax.jit` function), or
    the one an enclosing `pjit` function entered while traced under another legacy
    `with Mesh(...)` (JAX's pjit_test.py `testNestedDifferentResources`; checked on jax
    0.10.2 and 0.12.0.1). jaxfix reads `pjit` as `jax.jit` and reports none of these (see
    fixtures/JAX002/pjit_under_legacy_mesh_not_detected.py).

    ## Why is this bad?
    JAX lets a nested `use_abstract_mesh` change the shape of the mesh but not its size.
    Entering it raises
    `ValueError: use_abstract_mesh cannot change the size of the mesh. Got new mesh: ...
    with size=64 and prev mesh: ... with size=32`. It typically happens in multi-stage code
    where one stage's FSDP/TP degree was changed and the other's was not.

    ## Example
    ```python
    from jax.sharding import AbstractMesh, use_abstract_mesh

    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):  # size 64 in 32
            ...
    ```

    ## Use instead
    ```python
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
        with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
            ...
    ```
    or leave the enclosing context before entering a mesh of another size.

    ## Fix safety
    Unsafe: it changes a mesh shape, and so how arrays are sharded. It is applied only with
    `--unsafe-fixes` (always shown by `--dry-run`). One "fill" axis is resized: `--fill-axis
    NAME` (`fill-axis` in config) when the inner mesh has that axis, else the first axis whose
    size differs from the enclosing mesh's axis of the same name, else the first axis. The fix
    is offered only when the new size is a whole number, every followed caller needs the same
    size, and that axis's size is an integer literal written for this use alone: in the
    `AbstractMesh(...)` (or `.update(axis_sizes=...)`) given to the context, in the assignment
    to its name that reaches the `with` (the engine's reaching bindings: the latest one in
    straight-line code, one in each branch of an `if`, or in a loop's body, all resized), or as
    the argument of a mesh factory of the module or the project whose body builds the sizes
    from its parameters
    (`make_mesh(data=4, model=2)`: `data=4` is rewritten, the factory and its other calls are
    not). A name must not be read elsewhere, except under this same context. When the size is
    read from an environment variable or a config file's key, the report says which and the
    value to set. Where no literal can be rewritten and the inner mesh is an `AbstractMesh(...)`
    of this module built beside the one concrete enclosing mesh (the same axis names and
    types; that mesh kept by a name or `self` attribute assigned before it in the same
    function), and nothing else reads what it builds, that construction becomes the enclosing
    mesh's view, `mesh.abstract_mesh`; otherwise the report says why there is no fix.

    Where the engine follows the inner mesh back through the calls that returned it to sizes
    written in another module of the project (a launcher's constant, a config's dict entry, a
    helper's argument), the report stays at the `use_abstract_mesh` and the fix changes that
    module (jaxfix/codemods/module_edits.py): the fill axis's integer of the tuple or list
    there, when that literal is read on this way alone and the mesh it builds is kept by one
    name read once (a mesh that also reaches other code keeps its size: reported, naming the
    place); a dataclass field's default, by giving the field to the construction that made the
    object, when every other read of that object is of another field. Two reports that would
    change one place two ways are both left unfixed, each naming the other. The fix is the
    same whichever paths jaxfix is given (the module changed may be outside them, inside the
    project's root).

    From a recorded run (`jaxfix repair`, `--evidence`), where the line that raised has no such
    literal, the fix goes where the run's frames lead: from the `AbstractMesh(...)` that built
    the inner mesh, through each caller's argument, to the tuple that holds its sizes (a dict
    entry of a config module, a dataclass's or NamedTuple's keyword, a constant, a config
    field set by attribute in a config module, an enum preset's `match` case, a JSON, YAML
    or TOML file's entry, a `key=value` override string). A line several tests reached, each
    with its own sizes, is followed along each path with that path's sizes. A field default
    (shared by every instance) is overridden by a keyword at the construction the run used;
    a constant other code also reads is replaced at the read on the run's path only. A step the engine
    cannot follow (a computed value, two assignments) means no fix: the report names the lines
    the run built the mesh at and where the walk stopped. A size computed from the host when
    it runs (`jax.device_count() // 2`, `jax.process_count() * 2`, `len(jax.devices())`) is
    where the value is written, but a literal there would be right on that host only: the
    report names its file, line and expression (and the size that would match), and nothing
    is changed.

    ## References
    - `use_abstract_mesh.__enter__` in jax/_src/mesh.py (jax 0.10.2 and 0.12.0.1), which raises
      the error.
    - `jax.set_mesh` in jax/_src/sharding_impls.py, which makes `mesh.abstract_mesh` current.
    """

    code = "JAX002"
    name = "abstract-mesh-size-change"
    summary = "use_abstract_mesh inside a mesh context of a different size"
    settings = (
        RuleSetting(
            "fill-axis",
            str,
            None,
            "the axis JAX002 resizes to match the enclosing mesh, when the inner mesh has it",
            "an axis name",
            flag="--fill-axis",
            metavar="AXIS",
        ),
    )
    fixes = {Safety.UNSAFE: "resize the inner mesh along one axis"}
    # use_abstract_mesh and a second mesh context: use_abstract_mesh twice, set_mesh or use_mesh,
    # or an import alias of use_abstract_mesh (one spelling, many calls).
    # The enclosing mesh may be entered in another module (an imported decorator or context
    # manager), so the file needs only the inner `use_abstract_mesh`; the screen does the rest.
    tokens = ((rb"use_abstract_mesh",),)
    raises = (
        "use_abstract_mesh cannot change the size of the mesh. "
        "Got new mesh: {mesh:new} with size={size:new} and prev mesh: {mesh:prev} with size={size:prev}",
    )
    raised_in = ("jax/_src/mesh.py",)
    mesh_locals = {"new": "self.mesh", "prev": "self.prev"}

    @classmethod
    def impossible(cls, facts: Facts) -> str | None:
        new, prev = facts.get("new"), facts.get("prev")
        if new is not None and prev is not None and new.size == prev.size:
            return f"its meshes are of one size, which cannot raise {cls.code}"
        return None

    def __init__(self, analysis: Analysis, options: Options) -> None:
        super().__init__(analysis, options)
        self.origins: list[Related] = []  # places a report names (another file's too)

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        if (
            not analysis.is_entered(node)
            or not analysis.may_call(node, Api.USE_ABSTRACT_MESH)
            or analysis.called_api(node) is not Api.USE_ABSTRACT_MESH
        ):
            return
        args = analysis.bind(node)
        argument = args.get("mesh") if args else None
        inner = analysis.value_of(argument) if argument is not None else None
        confirmed = analysis.confirmed(node, self.code)
        sites = analysis.enclosing(node)
        known = [
            (site, site.mesh)
            for site in sites
            if isinstance(site.mesh, Mesh)
            and not site.mesh.is_empty
            and site.mesh.size is not None
        ]
        shown_inner = inner if _sized_abstract(inner) else None
        conflicts = [
            site
            for site, mesh in known
            if shown_inner is not None and mesh.size != shown_inner.size
        ]
        if (
            argument is not None
            and shown_inner is None
            and confirmed is None
            and self._by_caller(node, argument, sites)
        ):
            return
        if argument is not None and not conflicts and confirmed is None:
            if self._in_loop(node, argument):
                return
            if shown_inner is None or len(known) != len(sites):
                host = self._on_every_host(node, argument)
                if host is True:
                    return
                if isinstance(host, str):
                    self.leave(node, host)
                    return
        if argument is None or (not conflicts and confirmed is None):
            if argument is not None and confirmed is None:
                self.leave(
                    node,
                    analysis.trail(argument, "the inner mesh")
                    or analysis.context_trail(node, "the enclosing mesh"),
                )
            return
        if conflicts and shown_inner is not None:
            if self.expected(node):  # a test of this error
                return
            outers = [mesh for _, mesh in known]
            message = self._message(node, shown_inner, conflicts[0])
            related = self._related(conflicts[0])
            inner = shown_inner
        else:
            # It raised, yet the code shows no conflict: the log's meshes fill in what the
            # code leaves unknown (the new mesh, and the previous one whatever set it).
            assert confirmed is not None  # else returned above
            inner = confirmed.fill(
                "new", inner if isinstance(inner, Mesh) else None, argument
            )
            # Every way the call runs has a mesh the code shows: a log must agree with it.
            shown = (
                frozenset(mesh.size for _, mesh in known if mesh.size is not None)
                if sites and len(known) == len(sites)
                else None
            )
            message = self._logged(node, confirmed)
            disagreement = self._disagreement(inner, confirmed, shown)
            own = self._own_path(confirmed)
            if (disagreement is not None or inner is None) and own is not None:
                # several paths, each with its own sizes: the one that read a data file's
                # entry gets its fix here, with that path's meshes
                in_data = self._data_fix(
                    own, own.logged("prev", node), confirmed.evidence.value_site
                )
                if in_data is not None:
                    fix, note, place = in_data
                    self.report(
                        node,
                        with_note(with_note(message, note), self._others(confirmed)),
                        fix=fix,
                        related=(place, *_origin_places(confirmed.evidence)),
                    )
                    return
            if disagreement is not None or inner is None:
                self.report(
                    node,
                    with_note(
                        with_note(message, disagreement), self._each_built(confirmed)
                    ),
                    related=_origin_places(confirmed.evidence),
                )
                return
            outers = confirmed.logged("prev", node)
            related = ()
        self.origins = []
        fix, why_not = self._fix(node, argument, inner, outers, confirmed is None)
        if why_not is not None and confirmed is not None:
            in_data = self._data_fix(confirmed, outers)
            if in_data is not None:  # the sizes are a JSON file's entry: changed there
                fix, note, place = in_data
                self.report(
                    node, with_note(message, note), fix=fix, related=(*related, place)
                )
                return
        if why_not is not None:
            related = (*related, *self.origins)
        if why_not is not None and confirmed is not None:
            origin = self._origin_note(confirmed, inner, outers)
            why_not = (
                self._value_note(confirmed)
                or (origin and with_note(origin, self._built_at(confirmed, False)))
                or with_note(why_not, self._built_at(confirmed))
            )
            related = (*related, *_origin_places(confirmed.evidence))
        self.report(node, with_note(message, why_not), fix=fix, related=related)

    def _by_caller(
        self, node: ast.Call, argument: ast.expr, sites: list[Enclosing]
    ) -> bool:
        """Where the inner mesh is not one mesh on every way (the callers of its function
        pass different objects or sizes): each caller asked on its own (`caller_ways`). A
        caller whose arguments make the inner mesh of another size than a mesh entered around
        its call (or in the function itself) is reported, naming it and the sizes it passes,
        without a fix; a caller whose sizes match says nothing. Both sizes are written in the
        code (a size from the host's devices is not known here). True when it reported."""
        analysis = self.analysis
        for way in analysis.caller_ways(node):
            inner = analysis.value_in(argument, way.frame)
            if not _sized_abstract(inner):
                continue
            outer = next(
                (
                    site
                    for site in (self._on_way(site, way) for site in sites)
                    if site is not None
                    and isinstance(site.mesh, Mesh)
                    and not site.mesh.is_empty
                    and site.mesh.size is not None
                    and site.mesh.size != inner.size
                ),
                None,
            )
            if outer is None:
                continue
            if self.expected_on_way(node, way):
                return True  # a test of this error
            places = way_places(way, analysis)
            first, call, _ = way.calls[-1]
            passed = (
                f"{_describe(inner)} on the way called from {places[0]} "
                f"(`{_short(analysis.of(first).text(call))}`)"
                + (f" through {', '.join(places[1:])}" if places[1:] else "")
            )
            message = self._message(node, inner, outer).replace(
                f"(line {analysis.line(node)}, {_describe(inner)})", f"({passed})", 1
            )
            self.report(
                node,
                with_note(
                    message,
                    not_fixed(
                        "the sizes are those of one way the code runs, which jaxfix "
                        "does not rewrite for that way alone"
                    ),
                ),
                related=self._related(outer),
            )
            return True
        return False

    def _on_way(self, site: Enclosing, way: CallerWay) -> Enclosing | None:
        """`site` as it is on `way`: in the function itself (a mesh read from its parameters
        asked with that way's), or around one of the way's calls, its mesh asked in the frame
        that call runs in; None when the site is on other ways."""
        if site.call is None:
            frame = way.frame
        else:
            steps = [step for step in way.calls if step[1] is site.call]
            if not steps:
                return None
            frame = steps[0][2]
        holder = self.analysis.engine.project.holding(site.node)
        if (
            holder is None
            or not isinstance(site.node, ast.Call)
            or holder.scope_of(site.node) is not frame.scope
        ):
            return site
        there = self.analysis.of(holder)
        args = there.bind(site.node)
        mesh = args.get("mesh") if args else None
        if mesh is None:
            return site
        return replace(site, mesh=there.value_in(mesh, frame))

    def _on_every_host(self, node: ast.Call, argument: ast.expr) -> bool | str:
        """Sizes computed from the host's devices (`jax.device_count()`, `jax.devices()`):
        asked on one host of each device count of `_HOSTS` (1 to 65536), reports when on
        every one of them the inner mesh and the one enclosing mesh are known and their
        sizes differ (`(n, 2)` inside `(n,)`), without a fix; silent where one count runs
        (`(n // 2, 2)` inside `(n,)` runs on every even count) or any size is not known.
        Where one count runs, the host the program runs on decides: when it is pinned
        (`Options.host_devices`), a count on which they differ is reported, without a fix.
        True when it reported; where a count runs, why it is left (what `-v` says)."""
        found: list[tuple[int, Mesh, Enclosing]] = []
        for devices in _HOSTS:
            sizes = self._on_host(node, argument, devices)
            if sizes is None:
                return self._on_pinned_host(node, argument, False)
            inner, site = sizes
            assert isinstance(site.mesh, Mesh)  # `_on_host` built it
            if site.mesh.size == inner.size:
                return self._on_pinned_host(
                    node,
                    argument,
                    bool(found)
                    and (
                        "the inner and the enclosing sizes are computed from the host's "
                        f"devices: they differ on a host of {found[0][0]} device"
                        f"{'s' if found[0][0] > 1 else ''} but match on one of {devices} "
                        f"(both {inner.size}); only the host decides"
                    ),
                )
            found.append((devices, inner, site))
        if self.expected(node):
            return True
        _, inner, site = next(f for f in found if f[0] == 8)
        examples = "; ".join(
            f"n = {devices}: {mesh.size} inside {site_of.mesh.size}"
            for devices, mesh, site_of in found
            if devices in (1, 2, 3) and isinstance(site_of.mesh, Mesh)
        )
        outer_mesh = site.mesh
        assert isinstance(outer_mesh, Mesh)
        note = (
            "whatever the host's device count n (the sizes above are at n = 8), the two "
            f"sizes differ ({examples}; jaxfix tried every n to 256, and more to "
            f"{_HOSTS[-1]}): both are computed from the host's devices, the inner mesh's "
            f"{self._written(inner, argument)}, the enclosing one's "
            f"{self._written(outer_mesh, site.node)}; not fixed: no size written there "
            "holds on every host"
        )
        self.report(
            node,
            with_note(self._message(node, inner, site), note),
            related=self._related(site),
        )
        return True

    def _on_host(
        self, node: ast.Call, argument: ast.expr, devices: int
    ) -> tuple[Mesh, Enclosing] | None:
        """The inner mesh and the one enclosing site on a host of `devices` devices, both
        meshes built; None where either is not known there."""
        analysis = self.analysis
        with analysis.on_host(devices):
            inner = analysis.value_of(argument)
            sites = analysis.enclosing(node)
        if not (
            isinstance(inner, Mesh)
            and _built(inner)
            and inner.is_abstract
            and len(sites) == 1
        ):
            return None
        (site,) = sites
        outer = site.mesh
        if not (isinstance(outer, Mesh) and _built(outer)):
            return None
        return inner, site

    def _on_pinned_host(
        self, node: ast.Call, argument: ast.expr, left: bool | str
    ) -> bool | str:
        """Where the sizes are not shown to differ on every host (`left`: why, or False),
        the host the program runs on decides: reported, without a fix, when it is pinned
        (`Options.host_devices`) and they differ on its count; else `left`, or why not."""
        pinned = self.options.host_devices
        sizes = self._on_host(node, argument, pinned) if pinned is not None else None
        if pinned is None or sizes is None:
            return left
        inner, site = sizes
        outer = site.mesh
        assert isinstance(outer, Mesh)  # `_on_host` built it
        if outer.size == inner.size:
            return (
                f"on the {pinned} devices {self._pinned_by()} pins, both sizes are "
                f"{inner.size}; a host of another count decides otherwise"
            )
        setter = _sets_device_count(self.analysis)
        if setter is not None:
            return (
                f"{setter} may set the device count of the run itself: the {pinned} "
                f"devices {self._pinned_by()} pins may not be the program's; only the "
                "host decides"
            )
        if self.expected(node):
            return True
        note = (
            f"the program sees {pinned} devices where it runs ({self._pinned_by()} "
            "pins them), and the sizes depend on the host's devices: the inner mesh's "
            f"{self._written(inner, argument)}, the enclosing one's "
            f"{self._written(outer, site.node)}; not fixed: a size written for this "
            "host alone would be wrong on another"
        )
        self.report(
            node,
            with_note(self._message(node, inner, site), note),
            related=self._related(site),
        )
        return True

    def _pinned_by(self) -> str:
        """What pins the host's device count, in words."""
        return f"--host-devices {self.options.host_devices}"

    def _written(self, mesh: Mesh, fallback: ast.AST) -> str:
        """`by `AbstractMesh((n, 2), ...)` (line 20)`: the call that built `mesh`, where this
        module holds it, else the expression `fallback` that reaches it here."""
        analysis = self.analysis
        node = mesh.origin if mesh.origin in analysis.parents else fallback
        holder = (
            None if node in analysis.parents else analysis.engine.project.holding(node)
        )
        if holder is None:
            return f"by `{_short(analysis.text(node))}` (line {analysis.line(node)})"
        there = analysis.of(holder)
        return (
            f"by `{_short(there.text(node))}` "
            f"({other_file(holder.path, analysis.path)}:{there.line(node)})"
        )

    def _in_loop(self, node: ast.Call, argument: ast.expr) -> bool:
        """Inside `for` loops over items jaxfix spells out (`for m in meshes:`, a function's
        `*meshes` filled by its caller, `for name, shape in SHAPES.items()`), each iteration
        asked on its own: reports the iterations whose inner mesh's size differs from the
        enclosing one's, naming them (no fix: the sizes differ from one item to the next).
        Only where nothing in the loops' bodies may end them early (`break`, `return`,
        `yield`, `raise`) or the first iteration raises; True when it reported."""
        analysis = self.analysis
        iterations = analysis.iterations(node)
        if not isinstance(iterations, list) or len(iterations) < 2:
            return False
        raising: list[tuple[int, Mesh, Enclosing]] = []
        for index, bound in enumerate(iterations):
            with analysis.unrolled(bound):
                inner = analysis.value_of(argument)
                sites = analysis.enclosing(node)
            if not _sized_abstract(inner):
                continue
            conflict = next(
                (
                    site
                    for site in sites
                    if isinstance(site.mesh, Mesh)
                    and not site.mesh.is_empty
                    and site.mesh.size is not None
                    and site.mesh.size != inner.size
                ),
                None,
            )
            if conflict is not None:
                raising.append((index, inner, conflict))
        if not raising:
            return False
        loops = {loop for loop, _, _ in iterations[0]}
        if raising[0][0] != 0 and any(may_end_early(loop) for loop in loops):
            return False
        if self.expected(node):
            return True
        _, inner, conflict = raising[0]
        where = loops_text(
            [(loop, analysis.loop_module(loop)) for loop in loops], analysis.path
        )
        each = "; ".join(
            _iteration_text(iterations[index], mesh) for index, mesh, _ in raising
        )
        every = (
            "every iteration"
            if len(raising) == len(iterations)
            else f"{len(raising)} of {len(iterations)} iterations"
        )
        note = (
            f"on {every} of {where}: {each}; not fixed: the"
            " sizes come from the loop's items"
        )
        self.report(
            node,
            with_note(self._message(node, inner, conflict), note),
            related=self._related(conflict),
        )
        return True

    def _origin_note(
        self, confirmed: Confirmed, inner: Mesh, outers: list[Mesh]
    ) -> str | None:
        """Where the run's inner mesh got its size when it is computed from the host (the
        walk back along the run's frames stopped there): the place and the expression, and
        the size that would match the enclosing mesh."""
        evidence = confirmed.evidence
        origin = evidence.value_origin
        if origin is None or evidence.value_site is not None:
            return None
        several = len(evidence.value_origins) > 1  # each named with its own setting
        note = not_fixed(
            evidence.origin_note(self._origin_root(confirmed), settings=several) or ""
        )
        resized = self._resized(inner, outers)
        if isinstance(resized, str) or several:
            return note
        axis, axis_name, inner_sizes, size = resized
        setting = (
            (origin.variable_setting(size, evidence.environment) or "")
            if origin.axis == axis
            else ""
        )
        return (
            f"{note} ({setting}axis {axis_name!r} is {inner_sizes[axis]} in the run; "
            f"{size} would make the enclosing size {outers[0].size})"
        )

    def _unknown(self, confirmed: Confirmed) -> str | None:
        """Why a path the run took reaches no place jaxfix changes, naming the origin when
        it is computed from the host."""
        return confirmed.evidence.origin_note(self._origin_root(confirmed))

    def _origin_root(self, confirmed: Confirmed) -> Path | None:
        """The directory the origin's file and the frames that built the inner mesh share:
        the origin is named from it as those frames are."""
        origin = confirmed.evidence.value_origin
        if origin is None:
            return None
        frames = [
            path
            for o in confirmed.evidence.origins
            if (o.role, o.kind) == ("new", "built")
            for path, _ in o.frames
        ]
        return self._root(origin.path, *frames)

    def _value_note(self, confirmed: Confirmed) -> str | None:
        """Where the run's inner mesh got its sizes, when that place makes the fix."""
        site = confirmed.evidence.value_site
        if site is None:
            return None
        note = (
            f"the run built the inner mesh from `{site.name}`, written at "
            f"{site.where(self._root(site.path))}: its fix goes there"
        )
        unknown = self._unknown(confirmed)
        return with_note(
            with_note(note, site.why),
            f"another path the run took to this line: {unknown}" if unknown else None,
        )

    def _each_built(self, confirmed: Confirmed, why: bool = True) -> str | None:
        """Where the run built each inner mesh entered here, when it came along several
        paths (what to change, path by path), and (with `why`) what stopped the walk from
        each."""
        origins = list(
            dict.fromkeys(
                o.frames
                for o in confirmed.evidence.origins
                if (o.role, o.kind) == ("new", "built")
            )
        )
        if len(origins) < 2:
            return None
        root = self._root(*(p for frames in origins for p, _ in frames))
        shown = [Origin("new", "built", f).describe(root) for f in origins[:LISTED]]
        if len(set(shown)) < len(
            shown
        ):  # alike in their innermost frames: the outermost
            shown = [
                f"{text}, ..., from {Origin('new', 'built', frames[:1]).describe(root)}"
                if len(frames) > LISTED
                else text
                for text, frames in zip(shown, origins)
            ]
        built = "; ".join(shown)
        unknown = self._unknown(confirmed) if why else None
        return f"the run built the inner meshes at {built}" + (
            f" ({unknown})" if unknown else ""
        )

    def _built_at(self, confirmed: Confirmed, why: bool = True) -> str | None:
        """Where the run built the inner mesh (its creation frame, then the callers it came
        through), each path from the directory the files share: what to change when jaxfix
        cannot; then, with `why`, where the walk back from there stopped."""
        origins = list(
            {
                o.frames: o
                for o in confirmed.evidence.origins
                if (o.role, o.kind) == ("new", "built")
            }.values()
        )
        if len(origins) > 1:  # several paths to this line, with one inner mesh
            return self._each_built(confirmed, why)
        if not origins:
            return None
        (origin,) = origins
        root = self._root(*(p for p, _ in origin.frames))
        built = f"the run built the inner mesh at {origin.describe(root)}"
        unknown = self._unknown(confirmed) if why else None
        return f"{built}; {unknown}" if unknown else built

    def _disagreement(
        self,
        inner: Mesh | None,
        confirmed: Confirmed,
        shown: frozenset[int] | None,
    ) -> str | None:
        """Why the log's meshes do not make a fix here: the code shows an enclosing mesh the
        log does not (a log is not a fact against the code), or an inner mesh of another size
        (already fixed, or changed since), or the log shows several."""
        logged_sizes = {m.size for m in confirmed.evidence.meshes("prev")}
        contradicted = sorted(logged_sizes - shown) if shown is not None else []
        if contradicted:
            return not_fixed(
                changed_since_the_log(
                    f"an enclosing mesh of size {listed([str(n) for n in sorted(shown or ())], ' or ')}",
                    f"the one of size {contradicted[0]}",
                )
            )
        if inner is None or inner.size is None:
            return not_fixed("the log shows meshes of several sizes entered here")
        if all(m.size == inner.size for m in confirmed.evidence.meshes("new")):
            return None
        if all(
            (prev := f.get("prev")) is not None and prev.size == inner.size
            for f in confirmed.evidence.facts
        ):
            return f"the code builds a mesh of the enclosing size {inner.size} here now: already fixed where its sizes are written"
        return not_fixed(
            f"the code builds a mesh of size {inner.size} here, not the one in the log (changed since the log?)"
        )

    def _logged(self, node: ast.Call, confirmed: Confirmed) -> str:
        prev = sorted(confirmed.logged("prev", node), key=lambda m: m.size or 0)
        inside = listed([f"size {m.size} {m.shape_text()}" for m in prev], " or ")
        return (
            f"`{_short(self.analysis.text(node))}` (line {self.analysis.line(node)}) is entered while a mesh of {inside} is current, "
            f"as the log shows ({confirmed.where}); JAX raises {_JAX_ERROR}"
        )

    # -- the fix ------------------------------------------------------------------------------

    def _fix(
        self,
        node: ast.Call,
        argument: ast.expr,
        inner: Mesh,
        outers: list[Mesh],
        static: bool = False,
    ) -> tuple[Fix | None, str | None]:
        """The fix and the note the report carries (why there is none, or where it edits
        another module); `static`: no recorded run confirms the site (a run's fix of another
        module is made there, by `at_value`)."""
        resized = self._resized(inner, outers)
        if isinstance(resized, str):
            return None, resized
        axis, axis_name, inner_sizes, size = resized
        literals, why_not = self._size_literals(
            node, argument, axis, axis_name, inner_sizes, size
        )
        if literals is None:
            view = self._enclosing_view(node, argument, inner, outers)
            if view is not None:
                return view, None
            written = (
                self._where_written(argument, axis, axis_name, inner_sizes)
                if static
                else None
            )
            elsewhere = (
                self._fix_where_written(
                    node, written, inner, axis, axis_name, inner_sizes, size
                )
                if written is not None
                else None
            )
            return elsewhere if elsewhere is not None else (None, why_not)
        new_sizes = [size if i == axis else s for i, s in enumerate(inner_sizes)]
        title = f"resize the inner mesh to {tuple_text([str(s) for s in new_sizes])}"
        edits = tuple((literal, _integer(size)) for literal in literals)
        return Fix(title, edits, Safety.UNSAFE), None

    def _enclosing_view(
        self, node: ast.Call, argument: ast.expr, inner: Mesh, outers: list[Mesh]
    ) -> Fix | None:
        """Where the inner mesh's sizes cannot be rewritten: the `AbstractMesh(...)` that
        builds it, in this module, becomes the abstract mesh of the enclosing one
        (`self.mesh.abstract_mesh`), when the enclosing mesh is one concrete mesh of the same
        axis names and types, kept by a name (or `self` attribute) assigned before it in the
        same function, and every read of what the construction makes is this context's."""
        analysis = self.analysis
        built = inner.origin
        if (
            not isinstance(built, ast.Call)
            or built not in analysis.parents
            or analysis.called_api(built) is not Api.ABSTRACT_MESH
            or not outers
            or not _one_concrete_mesh(inner, outers)
            or not _read_only_by(analysis, built, argument)
        ):
            return None
        function = analysis.module.scope_of(built)
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        statement = _statement_of(analysis, built)
        outer = outers[0]
        for earlier in function.body:
            if earlier is statement:
                break
            if (
                isinstance(earlier, ast.Assign)
                and len(earlier.targets) == 1
                and isinstance(target := earlier.targets[0], (ast.Name, ast.Attribute))
                and (analysis.reference(target) is not None)
            ):
                kept = analysis.value_of(earlier.value)
                if isinstance(kept, Mesh) and kept.origin is outer.origin:
                    view = f"{analysis.text(target)}.abstract_mesh"
                    return Fix(
                        f"enter the abstract mesh of the enclosing mesh: `{_short(view)}`",
                        ((built, _expression(view)),),
                        Safety.UNSAFE,
                    )
        return None

    def _resized(
        self, inner: Mesh, outers: list[Mesh]
    ) -> tuple[int, str, list[int], int] | str:
        """The fill axis, its name, the inner mesh's sizes and the axis's new size that makes
        it the enclosing size; or why there is none."""
        sizes = sorted({mesh.size for mesh in outers if mesh.size is not None})
        if len(sizes) > 1:
            return not_fixed(
                f"it is entered under meshes of sizes {listed([str(size) for size in sizes])}"
            )
        if inner.axis_sizes is None or not sizes:
            return not_fixed("the inner mesh's axis sizes are not known")
        inner_sizes = [s or 0 for s in inner.axis_sizes]  # all known: inner.size is
        axis = self._fill_axis(inner, outers[0])
        axis_name = inner.axis_names[axis] if inner.axis_names else f"#{axis + 1}"
        others = math.prod(s for i, s in enumerate(inner_sizes) if i != axis)
        if others <= 0 or sizes[0] % others:
            return (
                f"no whole-number size of axis {axis_name!r} makes it {sizes[0]}: "
                "exit the enclosing mesh context before entering this one"
            )
        return axis, axis_name, inner_sizes, sizes[0] // others

    # -- the fix where the value is written (a recorded run's frames lead there) ---------------

    def at_value(self, evidence: Evidence) -> None:
        """The inner mesh's sizes are written here (a dict entry of a config module, a
        dataclass field, a constant): resize them here, unless the line that raised fixes it
        itself (what the static road knows comes first)."""
        site = evidence.value_site
        node = self.analysis.expression_at(site.span) if site is not None else None
        confirmed = Confirmed(evidence)
        new = confirmed.agreed("new")
        if site is None or node is None or new is None:
            return  # changed since the run: the raising line's report says where it was
        if site.override is not None:
            self._at_override(node, site, new, confirmed)
            return
        if site.total:
            self._at_total(node, site, new, confirmed)
            return
        value = self.analysis.value_of(node)
        if site.axis is not None and not 0 <= site.axis < len(new.axis_sizes):
            return
        written = (
            tuple(new.axis_sizes) if site.axis is None else new.axis_sizes[site.axis]
        )
        if (
            site.keyword is None
            and (value.items if isinstance(value, ListValue) else value) != written
        ):
            return
        inner = confirmed_mesh(None, new, node)
        outers = confirmed.logged("prev", node)
        resized = self._resized(inner, outers)
        if isinstance(resized, str) or self._fixed_where_raised(site, resized):
            return
        axis, _, inner_sizes, size = resized
        if site.axis is not None and site.axis != axis:
            return  # the run's path leads to another axis than the one to change
        new_sizes = tuple_text(
            [str(size if i == axis else s) for i, s in enumerate(inner_sizes)]
        )
        root = self._root(site.raised[0])
        raised = f"{Path(os.path.abspath(site.raised[0])).relative_to(root).as_posix()}:{site.raised[1]}"
        message = (
            f"`{site.name}` is {tuple_text([str(s) for s in inner_sizes])}: the run built the inner mesh of the "
            f"{self.code} error at {raised} from it, entered inside a mesh of size {outers[0].size}; set it to {new_sizes}"
        )
        title = f"resize the inner mesh to {new_sizes} where its sizes are written"
        if site.axis is not None:  # one axis's size, written on its own
            axis_name = inner.axis_names[axis] if inner.axis_names else f"#{axis + 1}"
            message = (
                f"`{site.name}` is {inner_sizes[axis]}, the size of axis {axis_name!r} of the inner mesh "
                f"{tuple_text([str(s) for s in inner_sizes])} the run built for the {self.code} error at "
                f"{raised}, entered inside a mesh of size {outers[0].size}; set it to {size}"
            )
            title = f"set axis {axis_name!r} to {size} where its size is written"
            if site.keyword is not None:
                title = f"give `{_called(self.analysis, node)}` {site.keyword}={size}"
                edits = ((node, _keyword(site.keyword, str(size))),)
            elif isinstance(node, ast.Constant):
                edits = ((node, _integer(size)),)
            else:  # the narrowest read of a shared name
                edits = ((node, _expression(str(size))),)
        elif site.keyword is not None:
            title = f"give `{_called(self.analysis, node)}` {site.keyword}={new_sizes}"
            edit = _keyword(site.keyword, new_sizes)
            edits = ((node, edit),)
        elif isinstance(node, (ast.Tuple, ast.List)):  # the literal: its one axis
            edits = ((node.elts[axis], _integer(size)),)
        else:  # the narrowest read of a shared name
            edits = ((node, _expression(new_sizes)),)
        back = Related(
            f"the {self.code} error this value makes: use_abstract_mesh entered inside a "
            f"mesh of size {outers[0].size}",
            Location(site.raised[1], 1),
            site.raised[0],
        )
        self.report(
            node,
            with_note(message, site.why),
            fix=Fix(title, edits, Safety.UNSAFE),
            related=(back,),
        )

    def _at_total(
        self,
        node: ast.expr,
        site: ValueSite,
        new: MeshFacts,
        confirmed: Confirmed,
    ) -> None:
        """The inner mesh's `-1` axis is filled from this number of devices (`num_devices //
        known`): it must still be the run's total (the product of the inner mesh's sizes,
        else it changed since the run), and becomes the enclosing mesh's size, when every way
        the run's sizes could have been filled (any axis the `-1` one) keeps whole sizes."""
        sizes = [s or 0 for s in new.axis_sizes]
        total = math.prod(sizes)
        if total <= 0 or not (
            (  # the narrowest read of a shared name (`config.HALF`)
                isinstance(node, (ast.Name, ast.Attribute))
                and self.analysis.value_of(node) == total
            )
            or (isinstance(node, ast.Constant) and node.value == total)
        ):
            return  # changed since the run
        outers = confirmed.logged("prev", node)
        enclosing = sorted({m.size for m in outers if m.size is not None})
        if len(enclosing) != 1 or enclosing[0] == total:
            return
        size = enclosing[0]
        if any(size % (total // s) for s in sizes):
            return  # the axes not filled would not divide the new number
        root = self._root(site.raised[0])
        raised = f"{Path(os.path.abspath(site.raised[0])).relative_to(root).as_posix()}:{site.raised[1]}"
        shown = tuple_text([str(s) for s in sizes])
        message = (
            f"`{site.name}` is {total}, the number of devices the inner mesh {shown} of the "
            f"{self.code} error at {raised} fills its `-1` axis from, entered inside a mesh "
            f"of size {size}; set it to {size}"
        )
        edit = (
            _integer(size) if isinstance(node, ast.Constant) else _expression(str(size))
        )
        self.report(
            node,
            with_note(message, site.why),
            fix=Fix(
                f"fill the inner mesh from {size} devices where that number is written",
                ((node, edit),),
                Safety.UNSAFE,
            ),
            related=(
                Related(
                    f"the {self.code} error this value makes: use_abstract_mesh entered "
                    f"inside a mesh of size {size}",
                    Location(site.raised[1], 1),
                    site.raised[0],
                ),
            ),
        )

    def _own_path(self, confirmed: Confirmed) -> Confirmed | None:
        """The evidence with only the meshes of the path that leads to its value's place,
        when the records of several paths disagree and that place has its own."""
        site = confirmed.evidence.value_site
        if site is None or not site.facts or site.facts == confirmed.evidence.facts:
            return None
        return Confirmed(replace(confirmed.evidence, facts=site.facts))

    def _others(self, confirmed: Confirmed) -> str | None:
        """What the other paths the run took to this line lead to: a place that gets its own
        fix, a size computed from the host (named, with what it would have to be), or why
        the walk stopped."""
        notes = []
        site = confirmed.evidence.value_site
        if confirmed.evidence.value_origins or confirmed.evidence.value_unknown:
            unknown = self._unknown(confirmed)
            if unknown:
                notes.append(f"another path the run took to this line: {unknown}")
        if site is not None and site.entry is None:
            notes.append(
                f"the run built another inner mesh from `{site.name}`, written at "
                f"{site.where(self._root(site.path))}: its fix goes there"
            )
        return "; ".join(notes) or None

    def _at_override(
        self,
        node: ast.expr,
        site: ValueSite,
        new: MeshFacts,
        confirmed: Confirmed,
    ) -> None:
        """The inner mesh's sizes are the value of a `key=value` override string
        (`"eval.mesh_shape=2,2"`, split at the commas by the code the run went through): the
        string's integers must still be the run's sizes (else it changed since the run);
        the fill axis's integer is rewritten in it."""
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            return
        key, _, value = node.value.partition("=")
        parts = value.split(",")
        if key.strip() != site.override or not all(p.strip().isdigit() for p in parts):
            return
        if tuple(int(p) for p in parts) != tuple(new.axis_sizes):
            return  # changed since the run
        inner = confirmed_mesh(None, new, node)
        outers = confirmed.logged("prev", node)
        resized = self._resized(inner, outers)
        if isinstance(resized, str) or self._fixed_where_raised(site, resized):
            return
        axis, _, inner_sizes, size = resized
        written = [
            part.replace(part.strip(), str(size)) if i == axis else part
            for i, part in enumerate(parts)
        ]
        text = f"{key}={','.join(written)}"
        source = self.analysis.text(node)
        quote = source[-1] if source and source[-1] in "'\"" else '"'
        prefix = source[: source.index(quote)] if quote in source else ""
        if "\\" in source or quote in text or "\\" in text or prefix not in ("", "u"):
            return
        shown = tuple_text(
            [str(size if i == axis else s) for i, s in enumerate(inner_sizes)]
        )
        root = self._root(site.raised[0])
        raised = f"{Path(os.path.abspath(site.raised[0])).relative_to(root).as_posix()}:{site.raised[1]}"
        message = (
            f"the override `{source}` sets {key} to "
            f"{tuple_text([str(s) for s in inner_sizes])}: the run built the inner mesh of "
            f"the {self.code} error at {raised} from it, entered inside a mesh of size "
            f"{outers[0].size}; set it to {shown}"
        )
        back = Related(
            f"the {self.code} error this value makes: use_abstract_mesh entered inside a "
            f"mesh of size {outers[0].size}",
            Location(site.raised[1], 1),
            site.raised[0],
        )
        self.report(
            node,
            with_note(message, site.why),
            fix=Fix(
                f"resize the inner mesh to {shown} in the override",
                ((node, _expression(f"{prefix}{quote}{text}{quote}")),),
                Safety.UNSAFE,
            ),
            related=(back,),
        )

    def _data_fix(
        self,
        confirmed: Confirmed,
        outers: list[Mesh],
        site: ValueSite | None = None,
    ) -> tuple[Fix | None, str, Related] | None:
        """The run read the inner mesh's sizes from a JSON, YAML or TOML file's entry
        (checked against the file by jaxfix/check/value_sites.py): the fix changes the fill
        axis's integer there, and the note and the related place say what it is and what to
        set it to."""
        site = site or confirmed.evidence.value_site
        new = confirmed.agreed("new")
        if site is None or site.entry is None or new is None:
            return None
        inner = confirmed_mesh(None, new, self.analysis.module.tree)
        resized = self._resized(inner, outers)
        if isinstance(resized, str):
            return None
        axis, axis_name, inner_sizes, size = resized
        target = outers[0].size or 0
        if site.axis is not None:  # one axis's integer: that axis's size alone
            if site.axis != axis or len(site.entry.items) != 1:
                return None
            place = (
                f"{site.where(self._root(site.path))}: {site.name} is {site.entry.text}"
            )
            what = (
                f"{place}, the size of axis {axis_name!r} of the inner mesh "
                f"{tuple_text([str(s) for s in inner_sizes])}; the enclosing mesh has size "
                f"{target}: set it to {size}"
            )
            related = Related(what, Location(site.span[0], site.span[1] + 1), site.path)
            edit = DataEdit(
                site.path, site.entry.items[0], str(size).encode(), site.entry.digest
            )
            fix = Fix(
                f"set {site.name} ({site.where(self._root(site.path))}) to {size}",
                (),
                Safety.UNSAFE,
                data=(edit,),
            )
            return fix, f"the run read the inner mesh's sizes from {what}", related
        choices = [axis, *(i for i in range(len(inner_sizes)) if i != axis)]
        settings = []
        for i in choices:
            others = math.prod(s for j, s in enumerate(inner_sizes) if j != i)
            if others > 0 and target % others == 0:
                shown = [
                    target // others if j == i else s for j, s in enumerate(inner_sizes)
                ]
                text = f"[{', '.join(str(v) for v in shown)}]"
                if text not in settings:
                    settings.append(text)
        place = f"{site.where(self._root(site.path))}: {site.name} is {site.entry.text}"
        what = f"{place}; the enclosing mesh has size {target}: set it to {' or '.join(settings)}"
        related = Related(what, Location(site.span[0], site.span[1] + 1), site.path)
        edit = DataEdit(
            site.path, site.entry.items[axis], str(size).encode(), site.entry.digest
        )
        fix = Fix(
            f"set {site.name} ({site.where(self._root(site.path))}) to {settings[0]}",
            (),
            Safety.UNSAFE,
            data=(edit,),
        )
        return fix, f"the run read the inner mesh's sizes from {what}", related

    def _fixed_where_raised(
        self, site: ValueSite, resized: tuple[int, str, list[int], int]
    ) -> bool:
        """Whether the line that raised resizes literals of its own (the static answer)."""
        module = self.analysis.engine.evaluator.module(site.raised[0])
        if isinstance(module, Unknown):
            return False
        there = type(self)(self.analysis.of(module), self.options)
        axis, axis_name, inner_sizes, size = resized
        for call in module.calls:
            if call.lineno != site.raised[1] or (
                there.analysis.called_api(call) is not Api.USE_ABSTRACT_MESH
            ):
                continue
            args = there.analysis.bind(call)
            argument = args.get("mesh") if args else None
            if argument is not None and (
                there._size_literals(
                    call, argument, axis, axis_name, inner_sizes, size
                )[0]
                is not None
            ):
                return True
        return False

    def _root(self, *paths: Path) -> Path:
        """The directory the files share, from which a message names them."""
        absolute = [os.path.abspath(p) for p in (*paths, self.analysis.path)]
        root = Path(os.path.commonpath(absolute))
        if root.as_posix() in absolute:  # one file
            root = root.parent
        return root

    def _size_literals(
        self,
        node: ast.Call,
        argument: ast.expr,
        axis: int,
        axis_name: str,
        inner_sizes: list[int],
        size: int,
    ) -> tuple[list[ast.Constant] | None, str | None]:
        """The integer literal of the fill axis on each way the inner mesh is built, if rewriting
        them changes only what runs under this context (no other read of the names passed
        through, in this module or another, and every call leading here one whose mesh
        context the engine knows, `every_caller_seen`); else what the user could change."""
        written = self.analysis.mesh_sizes(argument)
        if isinstance(written, Unknown):
            why = self._written_elsewhere(
                argument, axis, axis_name, inner_sizes, size
            ) or (written.why + self._built_elsewhere(argument))
            return None, not_fixed(
                f"the inner mesh's size of axis {axis_name!r} is not written where jaxfix can change it: {why}"
            )
        literals = []
        for way in written:
            elsewhere = sorted(
                {
                    self.analysis.line(read)
                    for read in way.shared_with
                    if not self._under_context(read, node)
                }
            )
            if elsewhere:
                return None, not_fixed(
                    f"{_short(self.analysis.text(argument))} is also used at line {elsewhere[0]}"
                )
            if isinstance(way.read_elsewhere, Unknown):
                return None, not_fixed(
                    f"jaxfix cannot tell what else reads the mesh's sizes: {way.read_elsewhere.why}"
                )
            if way.read_elsewhere is not None:
                path, line = way.read_elsewhere
                return None, not_fixed(
                    f"{_short(self.analysis.text(argument))} is also read at "
                    f"{other_file(path, self.analysis.path)}:{line}"
                )
            source = (
                way.axes[axis]
                if len(way.axes) == len(inner_sizes)
                else Unknown("the mesh has another number of axes here")
            )
            if isinstance(source, EnvironmentVariable):
                return None, not_fixed(
                    f"axis {axis_name!r} is read from the environment variable {source.name}: set it to {size}"
                )
            if isinstance(source, ConfigKey):
                keys = "".join(f"[{key!r}]" for key in source.keys)
                where = source.file if source.file is not None else "the config"
                read = f"line {source.line}"
                if source.path is not None:
                    self.origins.append(
                        Related(
                            f"axis {axis_name!r} is read here from {where}{keys}: set it to {size}",
                            Location(source.line, 1),
                            source.path,
                        )
                    )
                    if os.path.abspath(source.path) != os.path.abspath(
                        self.analysis.path
                    ):
                        read = f"{other_file(source.path, self.analysis.path)}:{source.line}"
                return None, not_fixed(
                    f"axis {axis_name!r} is read from {where}{keys} (read at {read}): set it to {size}"
                )
            if isinstance(source, Unknown):
                return None, not_fixed(
                    f"the inner mesh's size of axis {axis_name!r} is not written where jaxfix can change it: {source.why}"
                )
            if source.value != inner_sizes[axis]:
                return None, not_fixed(
                    f"line {self.analysis.line(source)} does not build the size {inner_sizes[axis]} of axis {axis_name!r}"
                )
            literals.append(source)
        if not every_caller_seen(
            self.analysis.engine.contexts, self.analysis.module, node
        ):
            return None, not_fixed(
                "the code around it may be called where jaxfix does not know the mesh "
                "in force (a method of an object another module is handed): its sizes "
                "are left as they are"
            )
        return literals, None

    def _where_written(
        self, argument: ast.expr, axis: int, axis_name: str, inner_sizes: list[int]
    ) -> Written | None:
        """Where the inner mesh's sizes are written, walked back along the calls the engine
        returned it through (`Mesh.built_at`, the frames a recorded run gives repair), when
        that literal (a tuple of them, or the axis's integer alone) still holds them; None
        where the walk stops."""
        inner = self.analysis.value_of(argument)
        frames = self._frames(inner)
        if not isinstance(inner, Mesh) or not frames:
            return None
        evaluator = self.analysis.engine.evaluator
        written = written_at(evaluator, frames, axis, axis_name, tuple(inner_sizes))
        if isinstance(written, Unknown):
            return None
        if written.data is not None or written.override is not None or written.total:
            return None
        if (
            written.keyword is not None
        ):  # a field's default: this construction's keyword
            return written
        held = evaluator.value_of(written.module, written.node)
        expected: object = (
            inner_sizes[axis] if written.axis is not None else tuple(inner_sizes)
        )
        if (held.items if isinstance(held, ListValue) else held) != expected:
            return None
        return written

    def _frames(self, inner: object, led: bool = True) -> tuple[tuple[Path, int], ...]:
        """The frames the inner mesh was built along (`Mesh.built_at`); for one built in
        this module by no call of the tree (`AbstractMesh(self.config.shape, ...)` in a
        method), its line, with `led` led up the project's one caller of each function
        (`called_through`: where the walk finds its sizes; the mesh itself goes from its
        line)."""
        if not isinstance(inner, Mesh):
            return ()
        if inner.built_at:
            return inner.built_at
        origin = inner.origin
        if not isinstance(origin, ast.expr) or origin not in self.analysis.parents:
            return ()
        frames = ((self.analysis.path, origin.lineno),)
        if not led:
            return frames
        return called_through(self.analysis.engine.evaluator, frames)

    def _fix_where_written(
        self,
        raising: ast.Call,
        written: Written,
        inner: Mesh,
        axis: int,
        axis_name: str,
        inner_sizes: list[int],
        size: int,
    ) -> tuple[Fix, str] | None:
        """The fill axis's size changed where the inner mesh's sizes are written, in another
        module (jaxfix/codemods/module_edits.py): when that literal is read by this way
        alone (`written.why`: a name other code reads too is not changed), the mesh it builds
        goes one way from where it is built (`read_once`), every call leading to
        `raising` is one whose mesh context the engine knows (`every_caller_seen`), and it
        is the integer of the axis, or a tuple or list of the sizes."""
        evaluator = self.analysis.engine.evaluator
        if (
            written.module is self.analysis.module
            or not read_once(evaluator, self._frames(inner, led=False))
            or not every_caller_seen(
                self.analysis.engine.contexts, self.analysis.module, raising
            )
        ):
            return None
        node = written.node
        new_sizes = tuple_text(
            [str(size if i == axis else s) for i, s in enumerate(inner_sizes)]
        )
        at = f"{other_file(written.module.path, self.analysis.path)}:{written.module.line(node)}"
        if written.keyword is not None:
            given = str(size) if written.axis is not None else new_sizes
            keyword = (
                module_edit(written.module, node, _keyword(written.keyword, given))
                if field_read_once(written.module, node, written.keyword)
                else None
            )
            if keyword is None:
                return None
            fix = Fix(
                f"give `{_called(self.analysis, node)}` {written.keyword}={given} ({at})",
                (),
                Safety.UNSAFE,
                data=(keyword,),
            )
            note = (
                f"its sizes come from the default of `{written.keyword}`, which the object "
                f"built at {at} keeps: the fix gives that construction "
                f"{written.keyword}={given}"
            )
            return fix, note
        if written.why is not None or not kept_once(evaluator, written.module, node):
            return None
        if written.axis is None and isinstance(node, (ast.Tuple, ast.List)):
            if len(node.elts) != len(inner_sizes):
                return None
            node = node.elts[axis]
        if not (
            isinstance(node, ast.Constant)
            and type(node.value) is int
            and node.value == inner_sizes[axis]
        ):
            return None
        edit = module_edit(written.module, node, _integer(size))
        if edit is None:
            return None
        fix = Fix(
            f"resize the inner mesh to {new_sizes} where its sizes are written ({at})",
            (),
            Safety.UNSAFE,
            data=(edit,),
        )
        note = (
            f"its sizes are written at {at} (`{_short(written.name)}`), where the calls "
            f"that build it lead: the fix sets axis {axis_name!r} to {size} there"
        )
        return fix, note

    def _written_elsewhere(
        self,
        argument: ast.expr,
        axis: int,
        axis_name: str,
        inner_sizes: list[int],
        size: int,
    ) -> str | None:
        """Where the inner mesh's sizes are written (`_where_written`): the report names it,
        and says what to set there; None where the walk stops."""
        written = self._where_written(argument, axis, axis_name, inner_sizes)
        if written is None:
            return None
        at = written.module.line(written.node)
        here = (
            f"line {at}"
            if written.module.path == self.analysis.path
            else f"{other_file(written.module.path, self.analysis.path)}:{at}"
        )
        self.origins.append(
            Related(
                f"the inner mesh's sizes are written here: set axis {axis_name!r} to {size}",
                Location(at, 1),
                written.module.path,
            )
        )
        if written.why is not None:  # the read of a name other code reads too
            return (
                f"its sizes come through {here} (`{_short(written.name)}`), where the "
                f"calls that build it lead ({written.why}): set axis {axis_name!r} to "
                f"{size} there"
            )
        return (
            f"its sizes are written at {here} (`{_short(written.name)}`), where the calls "
            f"that build it lead: set axis {axis_name!r} to {size} there"
        )

    def _built_elsewhere(self, argument: ast.expr) -> str:
        """Where the inner mesh is built, when another module builds it: where a reader
        goes on from."""
        inner = self.analysis.value_of(argument)
        if not isinstance(inner, Mesh) or not inner.built_at:
            return ""
        built, line = inner.built_at[-1]
        if built == self.analysis.path:
            return ""
        return f" (it is built at {other_file(built, self.analysis.path)}:{line})"

    def _under_context(self, read: ast.AST, use: ast.Call) -> bool:
        """Whether `read` runs inside the `with` that enters `use` (its body or a later item), not
        in a function or class defined there."""
        parents = self.analysis.parents
        item = parents.get(use)
        statement = parents.get(item) if isinstance(item, ast.withitem) else None
        if not isinstance(statement, (ast.With, ast.AsyncWith)) or not isinstance(
            item, ast.withitem
        ):
            return False
        later = statement.items[statement.items.index(item) + 1 :]
        child, current = read, parents.get(read)
        while current is not None and current is not statement:
            if isinstance(
                current,
                (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef),
            ):
                return False
            child, current = current, parents.get(current)
        return current is statement and (
            child in statement.body or any(child is i for i in later)
        )

    def _fill_axis(self, inner: Mesh, outer: Mesh) -> int:
        names = inner.axis_names or ()
        fill = self.setting("fill-axis")
        if fill in names:
            return names.index(fill)
        if (
            outer.axis_names is not None
            and outer.axis_sizes is not None
            and inner.axis_sizes is not None
        ):
            differing = differing_axes(
                names, inner.axis_sizes, outer.axis_names, outer.axis_sizes
            )
            if differing:
                return differing[0]
        return 0

    # -- the message --------------------------------------------------------------------------

    def _message(self, node: ast.Call, inner: Mesh, outer: Enclosing) -> str:
        line = self.analysis.line
        where = f"line {_line_of(outer, outer.node, self.analysis.path)}"
        if outer.setup is not None:
            where += f" in {outer.setup}"
        via = (
            f", through the call at line {_line_of(outer, outer.call, self.analysis.path)}"
            if outer.call is not None
            else ""
        )
        placement = "after" if outer.entry is Entry.GLOBAL_SET else "inside"
        assert isinstance(outer.mesh, Mesh)  # only known meshes conflict
        return (
            f"`{_short(self.analysis.text(node))}` (line {line(node)}, {_describe(inner)}) is entered {placement} "
            f"`{_short(self.analysis.text(outer.node))}` ({where}, {_describe(outer.mesh)}){via}; JAX raises {_JAX_ERROR}"
        )

    def _related(self, outer: Enclosing) -> tuple[Related, ...]:
        if outer.path is not None:
            return ()  # a place in another file: the message names it
        what = (
            "the mesh is set here"
            if outer.entry is Entry.GLOBAL_SET
            else "the enclosing mesh is entered here"
        )
        found = [related(self.analysis, what, outer.node)]
        if outer.call is not None:
            found.append(
                related(self.analysis, "the function is called here", outer.call)
            )
        return tuple(found)


def _one_concrete_mesh(inner: Mesh, outers: list[Mesh]) -> bool:
    """Every enclosing mesh is the one concrete mesh (built at one place) with the inner
    mesh's axis names and types."""
    first = outers[0]
    return (
        first.origin is not None
        and not first.is_abstract
        and all(m.origin is first.origin and m == first for m in outers)
        and inner.axis_names is not None
        and inner.axis_names == first.axis_names
        and inner.axis_types is not None
        and inner.axis_types == first.axis_types
    )


def _statement_of(analysis: Analysis, node: ast.AST) -> ast.AST | None:
    above: ast.AST | None = node
    while above is not None and not isinstance(above, ast.stmt):
        above = analysis.parents.get(above)
    return above


def _read_only_by(analysis: Analysis, built: ast.Call, argument: ast.expr) -> bool:
    """What `built` makes reaches only `argument`: it is written there, or assigned to a
    name (or a `self` attribute) whose every read in the module is `argument`."""
    above: ast.AST | None = built
    while above is not None and not isinstance(above, ast.stmt):
        if above is argument:
            return True
        above = analysis.parents.get(above)
    if (
        not isinstance(above, ast.Assign)
        or len(above.targets) != 1
        or above.value is not built
    ):
        return False
    target = above.targets[0]
    if isinstance(target, ast.Name):
        reads = analysis.reads_reached(above, target.id)
        return reads == [argument]
    if not isinstance(target, ast.Attribute) or not isinstance(target.value, ast.Name):
        return False
    touched = [
        n
        for n in ast.walk(analysis.module.tree)
        if isinstance(n, ast.Attribute) and n.attr == target.attr
    ]
    return [n for n in touched if n is not target] == [argument]


def _line_of(outer: Enclosing, node: ast.AST, here: Path) -> str:
    """`N`, or `N of pkg/other.py` for a site in another module of the project (`here`: the
    reporting module)."""
    number = getattr(node, "lineno", 0)
    if outer.path is None:
        return str(number)
    return f"{number} of {other_file(outer.path, here)}"


def _short(text: str) -> str:
    return cut(" ".join(text.split()), 60)


def _integer(size: int) -> Callable[[cst.CSTNode], cst.CSTNode]:
    return lambda _: cst.Integer(str(size))


def _expression(text: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    return lambda _: cst.parse_expression(text)


def _keyword(name: str, text: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def edit(node: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(node, cst.Call)
        return node.with_changes(
            args=(*node.args, keyword_arg(name, cst.parse_expression(text)))
        )

    return edit


def _iteration_text(bound: tuple[tuple[ast.For, str, object], ...], mesh: Mesh) -> str:
    """One iteration's loop variables, then the inner mesh it makes."""
    names = iteration_text(bound)
    return f"{names} gives {_describe(mesh)}" if names else _describe(mesh)


# The device counts `_on_every_host` asks about: every one to 256, then around each power
# of two and three times one, to 65536 (a size `n // 256` changes only every 256 devices).
_HOSTS = tuple(
    sorted(
        {*range(1, 257)}
        | {
            v
            for k in range(8, 17)
            for v in (2**k - 1, 2**k, 2**k + 1, 3 * 2 ** (k - 1), 5 * 2 ** (k - 2))
            if v <= 2**16
        }
    )
)


# Words of code that may set the device count of its own run, whatever `--host-devices`
# says (`os.environ["XLA_FLAGS"] = ...`, `jax.config.update("jax_num_cpu_devices", 4)`, a
# platform of its choosing, processes joined by `jax.distributed.initialize()`).
_SETS_DEVICE_COUNT = (
    ("xla_force_host_platform_device_count",),
    ("jax_num_cpu_devices",),
    ("JAX_NUM_CPU_DEVICES",),
    ("XLA_FLAGS",),
    ("JAX_PLATFORMS",),
    ("jax_platforms",),
    ("jax_platform_name",),
    ("distributed", "initialize"),
)


def _sets_device_count(analysis: Analysis) -> str | None:
    """A module of the project whose words show that it may set the device count of its
    run (`_SETS_DEVICE_COUNT`), named; None when none does."""
    project = analysis.engine.project
    own = words_of(analysis.source)
    for words in _SETS_DEVICE_COUNT:
        if all(word.encode() in own for word in words):
            return "this module"
        holders: set[Path] | None = None
        for word in words:
            found = project.candidate_files(word, analysis.path, imported=False)
            if not isinstance(found, list):
                return f"`{word}` in several modules"
            holders = set(found) if holders is None else holders & set(found)
        if holders:
            return other_file(min(holders), analysis.path)
    return None


def _built(mesh: Mesh) -> bool:
    """A mesh whose every axis size is known and at least 1."""
    return (
        not mesh.is_empty
        and mesh.axis_sizes is not None
        and all(isinstance(s, int) and s >= 1 for s in mesh.axis_sizes)
    )


def _describe(mesh: Mesh) -> str:
    return f"size {mesh.size}: {mesh.shape_text()}"


def _origin_places(evidence: Evidence) -> tuple[Related, ...]:
    """Where the run's inner mesh got its sizes, as places in their files: where they are
    written (the fix's place), else where the run built the mesh and the callers it came
    through, innermost first; and where a path computes them from the host, when one does."""
    site = evidence.value_site
    origins = evidence.value_origins or (
        (evidence.value_origin,) if evidence.value_origin is not None else ()
    )
    computed = tuple(  # where each path the run took computes the size from the host
        Related(
            f"`{origin.name}`: the inner mesh's size is written here, {origin.why}"
            + (f" ({setting})" if (setting := origin.setting()) else ""),
            Location(origin.span[0], origin.span[1] + 1),
            origin.path,
        )
        for origin in origins
    ) + tuple(  # and where it reads the host's values, on other lines
        Related("the inner mesh's size is read here", Location(line, 1), where)
        for origin in origins
        for where, line in origin.reads_at
        if (where, line) != (origin.path, origin.span[0])
    )
    if site is not None:
        return (
            Related(
                f"`{site.name}`: the inner mesh's sizes are written here",
                Location(site.span[0], site.span[1] + 1),
                site.path,
            ),
            *computed,
        )
    built = [o for o in evidence.origins if (o.role, o.kind) == ("new", "built")]
    if len(built) != 1:
        return computed
    frames = list(reversed(built[0].frames))
    return computed + tuple(
        Related(
            "the run built the inner mesh here" if n == 0 else "called from here",
            Location(line, 1),
            path,
        )
        for n, (path, line) in enumerate(frames[:LISTED])
    )


def _called(analysis: Analysis, node: ast.AST) -> str:
    """A construction as a fix's title names it: as written when short, else its callee
    (`dataclasses.replace(...)`)."""
    text = " ".join(analysis.text(node).split())
    if len(text) <= 40 or not isinstance(node, ast.Call):
        return text[:40]
    return f"{cut(analysis.text(node.func), 36)}(...)"


def _sized_abstract(value: object) -> TypeGuard[Mesh]:
    """An abstract mesh with axes whose size the engine knows."""
    return (
        isinstance(value, Mesh)
        and value.is_abstract
        and not value.is_empty
        and value.size is not None
    )
