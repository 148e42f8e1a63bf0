"""JAX003: top_level_all_gather whose input, context mesh and out_sharding are not one mesh."""

from __future__ import annotations

import ast
import enum
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.callers import CallerWay
from jaxfix.analysis.ast_engine.contexts import Entry, Site, setting_site
from jaxfix.analysis.ast_engine.enclosing import Enclosing
from jaxfix.analysis.ast_engine.evidence import Confirmed, changed_since_the_log
from jaxfix.analysis.ast_engine.placement import Placed, arguments_of
from jaxfix.analysis.ast_engine.values import (
    Array,
    BoundMethod,
    DictValue,
    Function,
    ListValue,
    Mesh,
    Sharding,
    Spec,
    Unknown,
    Value,
    tuple_text,
)
from jaxfix.analysis.ast_engine.vocabulary import api_of
from jaxfix.analysis.ast_engine.written_at import (
    Computed,
    Written,
    called_through,
    in_builder,
    written_at,
)
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.bindings import enclosing_scope, first_evaluated, local_for
from jaxfix.codemods.loops import iteration_text, loops_text, may_end_early
from jaxfix.codemods.module_edits import (
    every_caller_seen,
    kept_once,
    module_edit,
    read_alone,
    read_once,
)
from jaxfix.codemods.stored_defaults import StoredDefault, stored_default
from jaxfix.codemods.text import (
    not_fixed,
    other_file,
    related,
    way_places,
    with_note,
)
from jaxfix.evidence.facts import Evidence, ValueSite
from jaxfix.ground.diagnostics import Fix, Location, Related, Safety
from jaxfix.ground.quoting import cut
from jaxfix.settings.options import Options

if TYPE_CHECKING:
    import libcst as cst

    from jaxfix.analysis.ast_engine.project import Module
    from jaxfix.ground.diagnostics import Edit

_INPUT_ERROR = '"Input sharding mesh ... should be equal to out_sharding mesh ..."'
_CONTEXT_ERROR = '"Context mesh ... should match the mesh of sharding ..."'
_EAGER_SETTERS = (
    Api.SET_MESH,
    Api.USE_MESH,
)  # both raise inside jit, so what they enclose is eager
_LOCAL_ENTRIES = (Entry.WITH, Entry.ENTER_CONTEXT, Entry.GLOBAL_SET)


@dataclass(frozen=True, kw_only=True)
class _Site:
    """One way the gather runs: its context mesh and input mesh, as one call site shows them."""

    context: Placed
    entered_by: Api | None  # the API that made `context` current
    entered_at: ast.AST | None = None  # the call that did, in the gather's own function
    input: Placed | None
    input_text: str  # the input as the code at this site spells it
    call: ast.AST | None = (
        None  # the caller's call, when the input or the context comes from it
    )
    caller: Analysis | None = None  # the module of `call`
    context_from_caller: bool = False
    input_from_caller: bool = False


class _Failure(enum.Enum):
    INPUT = "input"  # JAX003 proper: the input is not on the context mesh
    CONTEXT = (
        "context"  # a foreign out_sharding: JAX raises its context-mesh error first
    )


@dataclass(frozen=True)
class _Verdict:
    """What JAX raises at one site."""

    kind: _Failure
    site: _Site
    out: Placed


class AllGatherMeshMismatch(Rule):
    """
    ## What it does
    Finds `top_level_all_gather(x, out_sharding)` calls (`jax._src.shard_map`, through any
    import spelling, and any future `jax.*.top_level_all_gather`) where the mesh `x` lives on,
    the context mesh (`with jax.set_mesh(...)`, `use_mesh`, `use_abstract_mesh`) and the mesh of
    `out_sharding` (a bare `P(...)` means the context mesh) are not all equal. Each leaf of a
    literal tuple, list or dict of inputs is checked with its sharding.

    The input's mesh is known from `jax.device_put(..., NamedSharding(mesh, ...))`, or
    `jax.device_put(..., P(...))` inside `jax.set_mesh(mesh)`, as the engine follows the value
    (through names, returns, containers); for a parameter, from the arguments of each call of
    the function in the project. The context mesh is JAX's where the call runs,
    as the engine follows it (what it follows and what it does not:
    [docs/engine.md](../engine.md)). Meshes compare as JAX compares them: axis names, sizes,
    types, and whether an abstract device is attached. Anything unknown means no diagnostic;
    so does a context or input mesh with non-Explicit axes (JAX fails earlier, with another
    error). Inside `for` loops over items the engine spells out (a function's `*meshes` from
    its callers, `.items()`, `zip`, `enumerate`), or around the calls of its function (`for m in meshes: with
    jax.set_mesh(m): gather()`), each iteration is asked on its own: the
    report names the iterations whose meshes disagree, without a fix (and says nothing where
    the loop may end early, by `break`, `return`, `yield` or `raise`, before one of them).
    Where the callers of the gather's function pass different trees (`gather(weights, specs)`
    for each layer's weights and for the embedding), each caller is asked on its own, under
    the one context mesh every way runs in: a way whose out_sharding is a tree of bare
    `PartitionSpec`s and whose input has a leaf on an Explicit mesh that surely is another
    (an axis of another name, or of another size known on both: so on every host) is reported,
    naming the way, without a fix; so is a way whose out_sharding is a tree of `NamedSharding`s
    on an Explicit mesh that surely is not the context mesh, its input a tree of arrays on
    Explicit meshes (JAX compares the out_sharding with the context mesh first).

    ## Why is this bad?
    `top_level_all_gather` gathers on the input's mesh and cannot move data to another one.
    When `x` is on mesh A but the context mesh is B, `P(...)` and `NamedSharding(B, ...)` both
    make JAX raise `ValueError: Input sharding mesh A should be equal to out_sharding mesh B`.
    A `NamedSharding` on any mesh other than the context's raises
    `ValueError: Context mesh ... should match the mesh of sharding ...` first.

    ## Example
    ```python
    x = jax.device_put(arr, NamedSharding(mesh_a, P("x")))
    with jax.set_mesh(mesh_b):
        y = top_level_all_gather(x, P(reduced={"x"}))
    ```

    ## Use instead
    ```python
    x = jax.device_put(arr, NamedSharding(mesh_a, P("x")))
    with jax.set_mesh(mesh_b):
        y = top_level_all_gather(
            jax.device_put(x, NamedSharding(mesh_b, jax.typeof(x).sharding.spec)), P(reduced={"x"})
        )
    ```
    or gather under `jax.set_mesh(mesh_a)`.

    ## Fix safety
    Moving the input onto the context mesh (above) is unsafe: it copies data across devices,
    and the input's array dimensions must divide by the new mesh's axis sizes. It is offered
    only when the context is set by `jax.set_mesh`/`use_mesh` around the call in the same
    function (so the call is eager), that mesh is a concrete mesh with a name, and the context
    mesh has every axis of the input's mesh. The fix reads the input and the mesh twice, so
    each that is not a plain name (`self.w`, a call, `self.compute_mesh`) is first bound to a
    local, one statement before the statement that read it (`w = self.w` before the gather,
    `compute_mesh = self.compute_mesh` before the `with`); where that statement evaluates
    something else first (`return self.log(), top_level_all_gather(self.w, ...)`), binding
    would change the order: reported without a fix. A caller whose input is already on the
    context mesh is not affected (the move is a no-op there).
    Inside a function whose context comes from its callers (possibly jitted), the rule reports
    and suggests the move at the call site, without a fix. Wherever no move is offered, when
    the input's mesh has the
    context mesh's axis names, types and size, and the engine follows it back to a tuple of
    its sizes written in another module, read on this way alone, of a mesh kept by one name
    read once (or by an object so kept, passed on by methods returning it, or read off an
    object a local name holds, read there alone, as its property; the way back goes through
    property reads, static methods and a base `__init__` given the keyword by `**kwargs`):
    that tuple is set to the context mesh's sizes there (unsafe; the meshes are then
    equal as JAX compares them, and the input's dimensions must divide by the new sizes; the
    report stays at the gather, see JAX002 for how such a fix is written). From a recorded run (`jaxfix
    repair`, `--evidence`) that went through one caller, when the gather's input is a
    parameter of its function (which does not assign it), its out_sharding a bare `P(...)`,
    and the caller's call sits in a `with jax.set_mesh(E):` (E a name or attribute the block
    does not assign, or an entry of a dict read by a literal key, `self._meshes["train"]`,
    or by a class's constant, `self.meshes[Role.SERVE]`, the block changing neither it nor
    the dict: bound to a local first), the argument that
    call passes is moved onto `E` there (unsafe), unless the run saw the context mesh entered
    somewhere else; when a helper `@contextmanager` around the call enters it (`with
    inference_context(runner):`, its body `with jax.set_mesh(runner.mesh): yield`) and the
    run noted it entered there, onto that mesh as the caller names it (`runner.mesh`). From a recorded run (`jaxfix repair`,
    `--from-log`, `--evidence`), a context mesh the engine cannot follow but that the gather's
    own function enters as `with jax.set_mesh(E):`, E a name or an attribute (`self.mesh`) the
    block does not assign, with a bare `P(...)` out_sharding, gets the same move onto `E`
    (bound to a local when it is an attribute). A recorded "Context mesh ... should match the
    mesh of sharding ..." whose meshes the engine cannot follow, under a `with
    jax.set_mesh(E):` in the gather's own function with E a name, puts a
    `NamedSharding(m, spec)` out_sharding on `E` (unsafe there: the run does not show the
    input's mesh). The gather may sit in a lambda jitted and called where it is written
    (`jax.jit(lambda v: ...)(x)` inside the block), and the out_sharding may be a local that
    only the gather reads, assigned once before the `with` in the same block of statements
    (`out = NamedSharding(m, spec)`): the assignment is changed, and E may then also be an
    attribute chain (`self.mesh`) that nothing between the assignment and the gather assigns.
    A recorded context-mesh error whose out_sharding's mesh the run's frames lead back to a
    literal holding all its sizes (through the calls, the properties read and the methods
    called on the way: `layer.shape = (2, 4)` in an experiment's override of the method that
    builds the layer) sets that literal to the context mesh's sizes, when both meshes have
    the same axis names, in order, and types (unsafe: it changes a configuration).
    A recorded context-mesh error whose out_sharding a helper makes on a mesh its caller
    passes (`gather_params_for_decoding(params, config, decode_mesh)`, the helper making
    `NamedSharding(mesh, spec)`, perhaps in a nested function), the call inside the `with
    jax.set_mesh(E):` where the run entered the context: the argument the run's frames show
    carrying the out_sharding's mesh (a local assigned where the run built it, a parameter
    passed down that way, or `self.x` its class stores once there) becomes E, when the helpers read that parameter only as
    the mesh of a `NamedSharding` made before the gather (or pass it on along the run's
    calls), and the context mesh has every axis of the out_sharding's (unsafe: the run does
    not show the input's mesh). E may be entered by a setter jaxfix does not follow (a
    version switch's `compat.set_mesh(train_mesh)`): the `with` on the line where the run
    entered the context, whose one argument holds the mesh the run built there (as the
    argument is proved). A helper that also uses the mesh after the gather is left.
    Otherwise it is reported with the run's meshes, where the run built each and entered the
    context (and, where they print alike, that one of them is a hand-built `AbstractMesh`
    carrying no device).
    The caller's input walk also goes through a gather in a lambda that `jax.jit` wraps and
    calls where it is written (`jax.jit(lambda w: top_level_all_gather(w, out))(weights)`),
    and through a gather in a function a helper maps over a tree (`jax.tree.map(_one,
    source)`: the tree is the input, moved leaf by leaf where the caller passes it),
    and takes an out_sharding made of bare PartitionSpecs (a dict or list of them); when the
    out_sharding is a container, the input is a pytree and is moved leaf by leaf
    (`jax.tree.map(lambda leaf: jax.device_put(leaf, NamedSharding(m,
    jax.typeof(leaf).sharding.spec)), weights)`); the caller's `with` may enter the mesh
    through a setter jaxfix does not follow, as above.

    When the input and context agree and only a `NamedSharding(other_mesh, spec)` differs, the
    fix is safe: the out_sharding is put on the context mesh by name, or, when the context
    comes from callers, on `jax.typeof(x).sharding.mesh` (right for every caller). When the
    input and the out_sharding agree but the context differs, it is unclear which mesh is meant:
    reported without a fix. A recorded run holds the input's mesh under the context-mesh
    error too (JAX's message does not print it): where it agrees with the out_sharding's, the
    out_sharding is never moved onto the context; the `with jax.set_mesh(E):` where the run
    entered the context (around the gather, or around the call the run made to reach it) gets
    the out_sharding's mesh instead, as that block reads it (`self.p_mesh`, stored once where
    the run built it; a local assigned where the run built it), when the block assigns
    neither (unsafe: the rest of the block runs under that mesh too).

    ## References
    - `_top_level_ag` in jax/_src/shard_map.py (jax 0.10.2 and 0.12.0.1) raises
      "Input sharding mesh ... should be equal to out_sharding mesh ...".
    - `canonicalize_sharding` in jax/_src/sharding_impls.py raises "Context mesh ... should
      match the mesh of sharding ...".
    """

    code = "JAX003"
    name = "all-gather-foreign-mesh"
    summary = "top_level_all_gather whose input, context mesh and out_sharding are on different meshes"
    fixes = {
        Safety.SAFE: "put a foreign out_sharding on the context mesh",
        Safety.UNSAFE: "move the input onto the context mesh with device_put, or set its mesh's sizes to the context's where they are written (or the context mesh's to the input's, or the out_sharding mesh's axis names to the context's)",
    }
    # The gather (its input's device_put and its mesh context may be in another module).
    tokens = ((b"top_level_all_gather",),)
    raises = (
        "Input sharding mesh {mesh:input} should be equal to out_sharding mesh {mesh:out}",
        "Context mesh {mesh:context} should match the mesh of sharding {mesh:out} passed to top_level_all_gather",
    )
    raised_in = ("jax/_src/shard_map.py", "jax/_src/sharding_impls.py")
    # The context-mesh error is raised in canonicalize_sharding: its `sharding` is the
    # out_sharding as given (its mesh as built), `cur_mesh` the context's abstract mesh; the
    # input's, which that message does not print, is its caller `_top_level_ag`'s `aval`.
    mesh_locals = {
        "input": "aval.sharding.mesh|_top_level_ag:aval.sharding.mesh",
        "out": "out_sh.mesh|sharding.mesh",
        "context": "cur_mesh",
    }

    def __init__(self, analysis: Analysis, options: Options) -> None:
        super().__init__(analysis, options)
        self.reported: set[ast.AST] = set()

    def visit_Call(self, node: ast.Call) -> None:
        if (
            not self.analysis.may_call(node, Api.TOP_LEVEL_ALL_GATHER)
            or self.analysis.called_api(node) is not Api.TOP_LEVEL_ALL_GATHER
        ):
            return
        args = self.analysis.bind(node)
        if args is None or "xs" not in args or "out_sharding" not in args:
            return
        reported = len(self.reports)
        confirmed = self.analysis.confirmed(node, self.code)
        for x, sharding in _leaves(args["xs"], args["out_sharding"]) or ():
            self._check_leaf(node, x, sharding, against=confirmed)
        if confirmed is not None and len(self.reports) == reported:
            # It raised, yet the code shows no failing leaf: ask again with the log's meshes.
            self._check_leaf(node, args["xs"], args["out_sharding"], confirmed)

    # -- one leaf -----------------------------------------------------------------------------

    def _check_leaf(
        self,
        gather: ast.Call,
        x: ast.expr,
        sharding: ast.expr,
        confirmed: Confirmed | None = None,
        against: Confirmed | None = None,
    ) -> None:
        """The input's mesh, the context's and the out_sharding's on each way the gather runs
        (`confirmed`: with the log's input mesh where the code does not show it; `against`: a
        log the meshes the code shows must not contradict, else the code changed since)."""
        logged = _logged_here(confirmed) if confirmed is not None else ""
        if confirmed is not None and _context_error(confirmed):
            out = confirmed.fill("out", None, gather)
            context = confirmed.fill("context", None, gather)
            shown = (
                f": the out_sharding `{self._short(sharding)}` is on mesh {out.shape_text()}, "
                f"the context mesh is {context.shape_text()}"
                + _device_difference(out, context)
                if out is not None and context is not None
                else ""
            )
            given, on = confirmed.agreed("input"), confirmed.agreed("out")
            wrong_context = (
                given is not None
                and on is not None
                and not given.differs_from(on)
                and context is not None
                and _context_differs(confirmed)
            )
            fix = self._onto_entered(gather, sharding, context)
            if fix == "already":
                return  # the out_sharding is on the mesh entered around it now (fixed)
            if wrong_context and isinstance(fix, Fix):
                fix = "the run saw the input on the out_sharding's mesh too"
            unseen = (
                "jaxfix does not see where the out_sharding's mesh or the context mesh "
                "is set"
            )
            hint = (
                "enter the input's and out_sharding's mesh around the gather instead of "
                "the context mesh"
                if wrong_context
                else "put the out_sharding on the context mesh (a bare PartitionSpec means it)"
            )
            note = (
                None
                if isinstance(fix, Fix)
                else confirmed.evidence.mesh_note(self._frames_root(confirmed))
            )
            self.report(
                gather if not isinstance(fix, Fix) else sharding,
                f"{logged}{shown}; "
                + (
                    "the out_sharding is put on the context mesh entered around the call"
                    if isinstance(fix, Fix)
                    else f"not fixed: {fix if isinstance(fix, str) else unseen}: {hint}"
                    + (f"; {note}" if note else "")
                ),
                fix=fix if isinstance(fix, Fix) else None,
                related=() if isinstance(fix, Fix) else _origin_places(confirmed),
            )
            return
        input_mesh = confirmed.agreed("input") if confirmed is not None else None
        if confirmed is not None and (
            input_mesh is None
            or confirmed.agreed("out") is None
            or isinstance(x, (ast.Tuple, ast.List, ast.Dict))
        ):
            self.report(
                gather,
                f"{logged}; not fixed: the log shows several meshes, or the input is a container of arrays",
            )
            return
        sites = self._sites(gather, x)
        log = confirmed or against
        changed = self._contradicted(sites, sharding, log)
        if changed is not None and log is not None:
            if gather not in self.reported:  # once for all the gather's leaves
                self.reported.add(gather)
                self.report(gather, f"{_logged_here(log)}; {not_fixed(changed)}")
            return
        if confirmed is not None:
            sites = [
                s if s.input is not None else replace(s, input=_logged(confirmed, x))
                for s in sites
            ]
        verdicts = [
            v
            for v in (self._verdict(site, sharding) for site in sites)
            if v is not None
        ]
        if verdicts:
            source = (
                f" (the input's mesh from the log, {confirmed.where})"
                if confirmed is not None
                else ""
            )
            self._report_leaf(
                x, sharding, sites, verdicts, source, recorded=log is not None
            )
        elif confirmed is None:
            if self._by_caller(gather, x, sharding):
                return
            if not self._in_loop(gather, x, sharding):
                self.leave(gather, self._trail(gather, x, sharding, sites))
        else:
            filled = confirmed.fill("input", None, x)
            out = confirmed.fill("out", None, gather)
            assert filled is not None and out is not None  # both agreed, above
            text = self._short(x)
            entered = self._entered_around(gather, sharding)
            moved = (
                self._move_onto(x, entered.args[0])
                if entered is not None
                and filled.axis_names is not None
                and out.axis_names is not None
                and set(filled.axis_names) <= set(out.axis_names)
                else None
            )
            if entered is not None and moved is not None:
                # set_mesh takes a concrete mesh: the fix moves the input onto what it entered
                self.report(
                    gather,
                    f"{logged}: the input `{text}` is on {_describe(Placed(filled, None))}, the context mesh "
                    f"`{self._short(entered.args[0])}` entered around the call is {_describe(Placed(out, None))}",
                    fix=moved,
                )
                return
            self.report(
                gather,
                (
                    f"{logged}: the input `{text}` is on {_describe(Placed(filled, None))}, the context mesh is {_describe(Placed(out, None))}; "
                    "not fixed: jaxfix does not see where that context mesh is set (a decorator, a caller, another module): "
                    f"move the input onto it (jax.device_put({text}, NamedSharding(<context mesh>, jax.typeof({text}).sharding.spec))) "
                    "or gather under the input's mesh"
                ),
            )

    def _by_caller(self, gather: ast.Call, x: ast.expr, sharding: ast.expr) -> bool:
        """Where the input is not one tree on every way (the callers of the gather's function
        pass different trees: `gather(weights, specs)` for each layer and for the embedding),
        each caller asked on its own (`caller_ways`), under the context mesh entered on that
        way (every way of the gather runs under one). A way whose out_sharding is a tree of bare PartitionSpecs (the context mesh)
        and whose input has a leaf on an Explicit mesh that surely is another (an axis of
        another name or known size: so on every host) is reported, naming the way, without
        a fix; a way that runs says nothing, a test of the error says nothing. True when it
        reported."""
        analysis = self.analysis
        ways = analysis.ways_at(gather)
        if not ways or any(setting_site(way) is None for way in ways):
            return False
        contexts = analysis.enclosing(gather)
        callers = analysis.caller_ways(gather)
        for way in callers:
            context = _context_on_way(contexts, way, callers)
            if context is None:
                continue
            out_tree = _tree_leaves(analysis.value_in(sharding, way.frame))
            in_tree = _tree_leaves(analysis.value_in(x, way.frame))
            if (
                out_tree is None
                or in_tree is None
                or out_tree[1] != in_tree[1]  # paired leaf by leaf, else another error
            ):
                continue
            arrays = in_tree[0]
            if not all(isinstance(s, Spec) for s in out_tree[0]):
                if self._foreign_out_on_way(
                    gather, sharding, way, context, out_tree[0], arrays
                ):
                    return True
                continue
            foreign = next(
                (
                    a.sharding.mesh
                    for a in arrays
                    if isinstance(a, Array)
                    and isinstance(a.sharding, Sharding)
                    and isinstance(a.sharding.mesh, Mesh)
                    and a.sharding.mesh.all_explicit
                    and a.sharding.mesh.equals(context) is False
                ),
                None,
            )
            if foreign is None:
                continue
            if self.expected_on_way(gather, way):
                return True  # a test of this error
            places = way_places(way, analysis)
            first, call, _ = way.calls[-1]
            self.report(
                gather,
                with_note(
                    f"top_level_all_gather input `{self._short(x)}` is on mesh "
                    f"{foreign.shape_text()} on the way called from {places[0]} "
                    f"(`{self._short(analysis.of(first).text(call))}`)"
                    + (f" through {', '.join(places[1:])}" if places[1:] else "")
                    + f", but its out_sharding `{self._short(sharding)}` is on the "
                    f"context mesh {context.shape_text()}; JAX raises {_INPUT_ERROR}",
                    not_fixed(
                        "the input is that of one way the code runs, which jaxfix does "
                        "not move for that way alone: place it on the context mesh where "
                        "it is made"
                    ),
                ),
                related=tuple(
                    related(analysis, "the function is called here", call)
                    for caller, call, _ in way.calls
                    if caller is analysis.module
                ),
            )
            return True
        return False

    def _foreign_out_on_way(
        self,
        gather: ast.Call,
        sharding: ast.expr,
        way: CallerWay,
        context: Mesh,
        shardings: list[Value],
        arrays: list[Value],
    ) -> bool:
        """One caller's way whose out_sharding is a tree of `NamedSharding`s on an Explicit
        mesh that surely is not the context mesh (an axis of another name or known size: on
        every host; nanodo's evaluator gathering onto a mesh built from its config's
        `eval.mesh_axes`), its input a tree of arrays on Explicit meshes: JAX compares the
        out_sharding with the context mesh first and raises; reported, naming the way,
        without a fix. True when it reported (or the way is a test of the error)."""
        meshes = [s.mesh for s in shardings if isinstance(s, Sharding)]
        if (
            not context.all_explicit
            or len(meshes) != len(shardings)
            or not all(
                isinstance(m, Mesh) and m.all_explicit and m.equals(context) is False
                for m in meshes
            )
            or not all(
                isinstance(a, Array)
                and isinstance(a.sharding, Sharding)
                and isinstance(a.sharding.mesh, Mesh)
                and a.sharding.mesh.all_explicit
                for a in arrays
            )
        ):
            return False
        if self.expected_on_way(gather, way):
            return True  # a test of this error
        analysis = self.analysis
        places = way_places(way, analysis)
        first, call, _ = way.calls[-1]
        foreign = meshes[0]
        assert isinstance(foreign, Mesh)
        renamed = (
            self._out_named_where_written(gather, foreign, context)
            if len(set(meshes)) == 1
            else None
        )
        fix, note, places_named = renamed or (
            None,
            not_fixed(
                "the out_sharding's mesh is built on that way from values jaxfix does "
                "not change for it alone: build it with the context mesh's axes"
            ),
            (),
        )
        self.report(
            gather,
            with_note(
                f"top_level_all_gather out_sharding `{self._short(sharding)}` is on mesh "
                f"{foreign.shape_text()} on the way called from {places[0]} "
                f"(`{self._short(analysis.of(first).text(call))}`)"
                + (f" through {', '.join(places[1:])}" if places[1:] else "")
                + f", but the context mesh is {context.shape_text()}; JAX raises "
                f"{_CONTEXT_ERROR}",
                note,
            ),
            fix=fix,
            related=(
                *(
                    related(analysis, "the function is called here", call)
                    for caller, call, _ in way.calls
                    if caller is analysis.module
                ),
                *places_named,
            ),
        )
        return True

    def _out_named_where_written(
        self, gather: ast.Call, foreign: Mesh, context: Mesh
    ) -> tuple[Fix | None, str, tuple[Related, ...]] | None:
        """Where the out_sharding's mesh is the context mesh under other axis names (the
        same types, and sizes known equal or written at one place for both: nanodo's
        `create_mesh(c.eval.mesh_axes)` beside `create_mesh(c.mesh_axes)`), the names set to
        the context mesh's where they are written: the literal the walk from where the mesh
        is built (`Mesh.built_at`, led up the project's one caller of each function,
        `called_through`) reaches for its names (`written_at(names=True)`), in another
        module, outside the function that builds the mesh. Changed only when that literal
        is read this way alone (`read_once`, `read_alone`), every call leading to the gather is one whose mesh context the
        engine knows (`every_caller_seen`), and no other string of the project spells the
        old names (code naming the axes would then name missing ones); otherwise the
        place is named without a fix. None where the names are not written so."""
        if (
            foreign.axis_names is None
            or context.axis_names is None
            or foreign.axis_names == context.axis_names
            or len(foreign.axis_names) != len(context.axis_names)
            or foreign.axis_types != context.axis_types
            or foreign.has_abstract_device != context.has_abstract_device
        ):
            return None
        evaluator = self.analysis.engine.evaluator
        frames = called_through(evaluator, foreign.built_at)
        if not self._sized_alike(foreign, context):
            return None
        written = written_at(evaluator, frames, names=True)
        if (
            isinstance(written, Unknown)
            or written.data is not None
            or written.override is not None
            or written.keyword is not None
            or written.module is self.analysis.module
            or not isinstance(written.node, (ast.Tuple, ast.List))
            or in_builder(written, foreign.built_at)
            or [
                e.value if isinstance(e, ast.Constant) else None
                for e in written.node.elts
            ]
            != list(foreign.axis_names)
        ):
            return None
        node = written.node
        first = ast.get_source_segment(
            written.module.source.decode("utf-8", "replace"), node.elts[0]
        )
        spelled = _spelled(first or "", context.axis_names)
        new = _names_literal(node, spelled)
        line = written.module.line(node)
        at = f"{other_file(written.module.path, self.analysis.path)}:{line}"
        place = Related(
            f"the out_sharding mesh's axis names are written here: set them to {new}",
            Location(line, 1),
            written.module.path,
        )
        named = (
            f"the out_sharding mesh's axis names are written at {at} "
            f"(`{self._short(written.name)}`)"
        )
        if (
            written.why is not None
            or not read_once(evaluator, foreign.built_at)
            or not read_alone(evaluator, written.module, node)
            or not every_caller_seen(
                self.analysis.engine.contexts, self.analysis.module, gather
            )
            or not self._spelled_there_alone(foreign.axis_names, written.module, node)
        ):
            why = written.why or "other code may read those names too"
            return None, f"{named} ({why}): set them to {new} there", (place,)
        edits = [
            module_edit(written.module, element, _written(text))
            for element, old, text in zip(
                node.elts, foreign.axis_names, spelled, strict=True
            )
            if old != text[1:-1]
        ]
        if not edits or any(e is None for e in edits):
            return None
        fix = Fix(
            f"name the out_sharding mesh's axes as the context mesh's: {new} ({at})",
            (),
            Safety.UNSAFE,  # it changes a configuration
            data=tuple(e for e in edits if e is not None),
        )
        note = f"{named}, where the calls that build it lead: the fix sets them to {new} there"
        return fix, note, (place,)

    def _sized_alike(self, foreign: Mesh, context: Mesh) -> bool:
        """Whether the two meshes surely have the same sizes: both known and equal, or
        both built at one line from sizes the walk finds written at one place (a host
        read, `(jax.device_count(),)`, the same on the host that runs both)."""
        if foreign.axis_sizes is not None and None not in foreign.axis_sizes:
            return foreign.axis_sizes == context.axis_sizes
        if (
            not foreign.built_at
            or not context.built_at
            or foreign.built_at[-1] != context.built_at[-1]
        ):
            return False
        evaluator = self.analysis.engine.evaluator
        ends = [
            written_at(evaluator, called_through(evaluator, m.built_at))
            for m in (foreign, context)
        ]
        nodes = [e.node if isinstance(e, (Written, Computed)) else None for e in ends]
        return nodes[0] is not None and nodes[0] is nodes[1]

    def _spelled_there_alone(
        self, names: tuple[str, ...], module: Module, literal: ast.expr
    ) -> bool:
        """Whether no string of the project's modules but the elements of `literal`
        spells one of `names` (a `P("replica")` elsewhere names the axis)."""
        project = self.analysis.engine.evaluator.project
        own = {id(e) for e in ast.walk(literal)}
        for name in set(names):
            paths = project.candidate_files(name, module.path, imported=False)
            if isinstance(paths, Unknown):
                return False
            for path in paths:
                other = self.analysis.engine.evaluator.module(path)
                if isinstance(other, Unknown):
                    return False
                if any(
                    isinstance(n, ast.Constant) and n.value == name and id(n) not in own
                    for n in ast.walk(other.tree)
                ):
                    return False
        return True

    def _in_loop(self, gather: ast.Call, x: ast.expr, sharding: ast.expr) -> bool:
        """Inside `for` loops over items jaxfix spells out, each iteration asked on its own:
        reports the iterations whose meshes disagree, naming them (no fix: what to move
        differs from one item to the next), where nothing may end the loops before them
        (`break`, `return`, `yield`, `raise`) or the first iteration raises; True when it
        reported."""
        analysis = self.analysis
        iterations = analysis.iterations(gather)
        if not isinstance(iterations, list) or len(iterations) < 2:
            return False
        raising: list[tuple[int, _Verdict]] = []
        for index, bound in enumerate(iterations):
            with analysis.unrolled(bound):
                verdict = next(
                    (
                        v
                        for v in (
                            self._verdict(site, sharding)
                            for site in self._sites(gather, x)
                        )
                        if v is not None
                    ),
                    None,
                )
            if verdict is not None:
                raising.append((index, verdict))
        if not raising:
            return False
        loops = {loop for loop, _, _ in iterations[0]}
        if raising[0][0] != 0 and any(may_end_early(loop) for loop in loops):
            return False
        if self.expected(gather) or gather in self.reported:
            return True
        self.reported.add(gather)
        first = raising[0][1]
        message = (
            self._input_message(x, first)
            if first.kind is _Failure.INPUT
            else self._context_message(sharding, first)
        )
        where = loops_text(
            [(loop, analysis.loop_module(loop)) for loop in loops], analysis.path
        )
        every = (
            "every iteration"
            if len(raising) == len(iterations)
            else f"{len(raising)} of {len(iterations)} iterations"
        )
        each = "; ".join(iteration_text(iterations[index]) for index, _ in raising)
        note = (
            f"on {every} of {where}"
            + (f" ({each})" if each else "")
            + "; not fixed: the meshes come from the loop's items"
        )
        self.report(gather, with_note(message, note), related=self._related(first.site))
        return True

    def _trail(
        self, gather: ast.Call, x: ast.expr, sharding: ast.expr, sites: list[_Site]
    ) -> str | None:
        """Where the mesh a leaf's verdict needed was lost (`-v`)."""
        analysis = self.analysis
        if not sites:
            return analysis.context_trail(gather, "the context mesh")
        site = sites[0]
        if site.input is None:
            return analysis.trail(x, "the input's mesh")
        if analysis.sharding_mesh(sharding, site.context) is None:
            return analysis.trail(sharding, "the out_sharding's mesh")
        return None

    def _entered_around(self, gather: ast.Call, sharding: ast.expr) -> ast.Call | None:
        """The innermost `with jax.set_mesh(E):` call around the gather, in its own function,
        when the run's context mesh is surely E's: E is a name or an attribute of one that the
        block does not assign, the out_sharding a bare `P(...)` (so the log's out mesh is the
        context mesh), and nothing else sets a mesh in between."""
        if not (
            isinstance(sharding, ast.Call)
            and self.analysis.called_api(sharding) is Api.PARTITION_SPEC
        ):
            return None
        return self._set_mesh_around(gather)

    def _set_mesh_around(
        self, gather: ast.expr, through_jit: bool = False
    ) -> ast.Call | None:
        """The innermost `jax.set_mesh(E)` a `with` enters around the gather in its own function,
        E a name or an attribute of one that the block does not assign; None when another
        mesh context is entered in between, or none. With `through_jit`, a gather in a lambda
        jitted and called where it is written (`jax.jit(lambda s: ...)(x)`) looks on from that
        call: it is traced there, under the same context."""
        node: ast.AST = gather
        while (parent := self.analysis.parents.get(node)) is not None:
            if through_jit and isinstance(parent, ast.Lambda):
                called = self._jitted_and_called(parent)
                if called is not None:
                    node = called
                    continue
            if through_jit and isinstance(parent, ast.FunctionDef):
                called = self._decorated_and_called(parent)
                if called is not None:
                    node = called
                    continue
            if isinstance(
                parent,
                (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef),
            ):
                return None
            if isinstance(parent, ast.With) and node in parent.body:
                for item in parent.items:
                    call = item.context_expr
                    if isinstance(call, ast.Call) and self.analysis.called_api(
                        call
                    ) in (
                        *_EAGER_SETTERS,
                        Api.USE_ABSTRACT_MESH,
                    ):
                        if (
                            self.analysis.called_api(call) not in _EAGER_SETTERS
                            or len(call.args) != 1
                        ):
                            return None
                        target = call.args[0]
                        return (
                            call
                            if _plain_reference(target)
                            and not _assigned_in(
                                parent, self.analysis.text(target), self.analysis
                            )
                            else None
                        )
            node = parent
        return None

    def _decorated_and_called(self, function: ast.FunctionDef) -> ast.Call | None:
        """`@jax.jit def step(x): ...` nested in a function that calls `step(...)` once, and
        reads the name nowhere else: that call, where the function is traced (under the
        context in force there)."""
        outer: ast.AST | None = self.analysis.parents.get(function)
        while outer is not None and not isinstance(
            outer, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            outer = self.analysis.parents.get(outer)
        if (
            not isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef))
            or len(function.decorator_list) != 1
            or self.analysis.api_of(function.decorator_list[0]) is not Api.JIT
        ):
            return None
        reads = [
            node
            for node in ast.walk(outer)
            if isinstance(node, ast.Name) and node.id == function.name
        ]
        binds = [
            node
            for node in ast.walk(outer)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.name == function.name
        ]
        if len(reads) != 1 or len(binds) != 1 or not isinstance(reads[0].ctx, ast.Load):
            return None
        called = self.analysis.parents.get(reads[0])
        if isinstance(called, ast.Call) and called.func is reads[0]:
            return called
        return None

    def _jitted_and_called(self, function: ast.Lambda) -> ast.Call | None:
        """`jax.jit(lambda ...)(args)`: the call that traces the lambda where it is written."""
        jitted = self.analysis.parents.get(function)
        if (
            not isinstance(jitted, ast.Call)
            or not jitted.args
            or jitted.args[0] is not function
            or self.analysis.called_api(jitted) is not Api.JIT
        ):
            return None
        called = self.analysis.parents.get(jitted)
        if isinstance(called, ast.Call) and called.func is jitted:
            return called
        return None

    def _onto_entered(
        self, gather: ast.Call, sharding: ast.expr, context: Mesh | None
    ) -> Fix | str | None:
        """From a recorded context-mesh error: the `NamedSharding(m, spec)` out_sharding put on
        the mesh a `with jax.set_mesh(E):` around the gather enters (E a name, or an attribute
        chain on one: read again), when the spec's axes are all the run's context mesh's;
        "already" when it is on E now. The out_sharding may be a local name the gather alone
        reads, assigned once in the same function (`out = NamedSharding(m, spec)`): changed
        there, when nothing between that assignment and the `with` assigns E.
        Unsafe where static's is safe: the run does not show the input's mesh."""
        entered = self._set_mesh_around(gather, through_jit=True)
        target = entered.args[0] if entered is not None else None
        if entered is not None and (stored := stored_default(self.analysis, sharding)):
            return (
                stored
                if isinstance(stored, str)
                else self._default_onto_context(stored, context)
            )
        written = self._sharding_written(sharding, entered)
        args = (
            self.analysis.bind(written)
            if isinstance(written, ast.Call)
            and self.analysis.called_api(written) is Api.NAMED_SHARDING
            else None
        )
        axes = self._spec_axes(args.get("spec")) if args is not None else None
        names = context.axis_names if context is not None else None
        if (
            target is None
            or not (
                isinstance(target, ast.Name)
                or (written is not sharding and _plain_reference(target))
            )
            or args is None
            or "mesh" not in args
            or axes is None
            or names is None
            or not axes <= set(names)
        ):
            return None
        text = self.analysis.text(target)
        if self.analysis.text(args["mesh"]) == text:
            return "already"
        assigned = (
            f" (where `{self.analysis.text(sharding)}` is assigned, line {self.analysis.line(written)})"
            if written is not sharding
            else ""
        )
        return Fix(
            f"put the out_sharding on `{text}`{assigned}",
            ((args["mesh"], lambda _: _expression(text)),),
            Safety.UNSAFE,  # the run does not show the input's mesh: it may be a third
        )

    def _default_onto_context(
        self, stored: StoredDefault, context: Mesh | None
    ) -> Fix | str | None:
        """The out_sharding a method reads from `self` is a keyword default
        `NamedSharding(m, spec)` (a factory's, or `__init__`'s): the default becomes `spec`,
        which the gather reads on the context mesh entered around it, when the spec's axes
        are all the run's context mesh's; "already" when it is a bare spec now."""
        value = stored.value
        if (
            isinstance(value, ast.Call)
            and self.analysis.called_api(value) is Api.PARTITION_SPEC
        ):
            return "already"
        args = (
            self.analysis.bind(value)
            if isinstance(value, ast.Call)
            and self.analysis.called_api(value) is Api.NAMED_SHARDING
            else None
        )
        spec = args.get("spec") if args is not None else None
        axes = self._spec_axes(spec)
        names = context.axis_names if context is not None else None
        if spec is None or axes is None or names is None or not axes <= set(names):
            return None
        text = self.analysis.text(spec)
        return Fix(
            f"put the out_sharding on the context mesh: the default of `{stored.parameter}` "
            f"of `{stored.function}` (line {self.analysis.line(value)}) becomes its "
            "PartitionSpec, which means the mesh entered around the gather",
            ((value, lambda _: _expression(text)),),
            Safety.UNSAFE,  # the run does not show the input's mesh: it may be a third
        )

    def _sharding_written(
        self, sharding: ast.expr, entered: ast.Call | None
    ) -> ast.expr:
        """The out_sharding as written: for a local name that only this gather reads, bound
        once by a plain assignment in the statement list that holds the `with` entering
        `entered` (before it), with no statement in between assigning the entered mesh, that
        assignment's value; else `sharding` itself."""
        if not isinstance(sharding, ast.Name) or entered is None:
            return sharding
        block = self.analysis.parents.get(entered)
        block = self.analysis.parents.get(block) if block is not None else None
        if not isinstance(block, ast.With) or not self.analysis.bound_once(sharding):
            return sharding
        holder = self.analysis.parents.get(block)
        body = next(
            (
                statements
                for field in ("body", "orelse", "finalbody")
                if isinstance(statements := getattr(holder, field, None), list)
                and block in statements
            ),
            None,
        )
        if body is None:
            return sharding
        index = body.index(block)
        assigned = [
            i
            for i, statement in enumerate(body[:index])
            if isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == sharding.id
        ]
        if len(assigned) != 1:
            return sharding
        statement = body[assigned[0]]
        assert isinstance(statement, ast.Assign)
        reads = self.analysis.reads_reached(statement, sharding.id)
        if reads != [sharding]:
            return sharding
        mesh = self.analysis.text(entered.args[0])
        if _changes(body[assigned[0] + 1 : index], mesh, self.analysis) or _assigned_in(
            block, sharding.id, self.analysis
        ):
            return sharding
        return statement.value

    def _contradicted(
        self,
        sites: list[_Site],
        sharding: ast.expr,
        confirmed: Confirmed | None,
    ) -> str | None:
        """Why the log's meshes are not what the code shows at some site (the out_sharding's
        mesh, or the input's); None where they agree, the code does not show, or no log."""
        if confirmed is None:
            return None
        for site in sites:
            shown = [
                (
                    "the out_sharding mesh",
                    "out",
                    self.analysis.sharding_mesh(sharding, site.context),
                ),
                ("the input's mesh", "input", site.input),
            ]
            for what, role, placed in shown:
                if placed is None:
                    continue
                logged = confirmed.contradiction(role, placed.mesh)
                if logged is not None:
                    return changed_since_the_log(
                        f"{what} {_named(placed)}",
                        f"the one {logged.shape_text()}",
                    )
        return None

    def _report_leaf(
        self,
        x: ast.expr,
        sharding: ast.expr,
        sites: list[_Site],
        verdicts: list[_Verdict],
        source: str = "",
        recorded: bool = False,
    ) -> None:
        first = verdicts[0]
        node = x if first.kind is _Failure.INPUT else sharding
        if node in self.reported:
            return
        self.reported.add(node)
        places = self._related(first.site)
        if first.kind is _Failure.INPUT:
            fix, note = self._move_input(x, sites, verdicts)
            message = self._input_message(x, first)
            written = (
                self._input_sized_where_written(node, verdicts)
                if fix is None and not recorded
                else None
            )
            if written is None and fix is None and not recorded:
                written = self._context_sized_where_written(node, verdicts)
            if written is not None:
                fix, origin, place = written
                note = (
                    origin if fix is not None or note is None else f"{note}; {origin}"
                )
                places = (*places, place)
        else:
            fix, note = self._rehome_sharding(x, sharding, sites, verdicts, recorded)
            message = self._context_message(sharding, first)
        self.report(node, with_note(message + source, note), fix=fix, related=places)

    def _input_sized_where_written(
        self, node: ast.AST, verdicts: list[_Verdict]
    ) -> tuple[Fix | None, str, Related] | None:
        """Where the input cannot be moved here, the input mesh's sizes set to the context
        mesh's where they are written in another module (walked back along the calls the
        engine returned the mesh through, `Mesh.built_at`; jaxfix/codemods/module_edits.py):
        JAX compares the meshes' axis names, sizes and types, so a mesh of the context's
        names and types, the same size and every way of the gather under that context, is
        then equal to it. Only a tuple or list literal of the sizes read by this way alone
        (`written.why`), of a mesh that goes one way from where it is built, as does
        every object keeping it (`read_once`, `kept_once`), when every call leading to
        `node` is one whose mesh context the engine knows (`every_caller_seen`), is
        changed; otherwise that place is named, without a fix."""
        contexts = {v.site.context.mesh for v in verdicts}
        inputs = {v.site.input.mesh for v in verdicts if v.site.input is not None}
        if (
            len(contexts) != 1
            or len(inputs) != 1
            or len(verdicts) != len([v for v in verdicts if v.site.input is not None])
        ):
            return None
        (context,), (given,) = contexts, inputs
        if (
            context.axis_sizes is None
            or given.axis_sizes is None
            or given.axis_names is None
            or given.axis_names != context.axis_names
            or given.axis_types != context.axis_types
            or given.has_abstract_device != context.has_abstract_device
            or given.size is None
            or given.size != context.size
        ):
            return None
        evaluator = self.analysis.engine.evaluator
        sizes = tuple(s for s in given.axis_sizes if s is not None)
        wanted = tuple(s for s in context.axis_sizes if s is not None)
        written = written_at(evaluator, given.built_at, sizes=sizes)
        if (
            isinstance(written, Unknown)
            or written.data is not None
            or written.override is not None
            or written.keyword is not None
            or written.total
            or written.axis is not None
            or written.module is self.analysis.module
            or not isinstance(written.node, (ast.Tuple, ast.List))
            or len(written.node.elts) != len(sizes)
        ):
            return None
        held = [
            e.value if isinstance(e, ast.Constant) else None for e in written.node.elts
        ]
        if held != list(sizes) or any(type(v) is not int for v in held):
            return None
        line = written.module.line(written.node)
        at = f"{other_file(written.module.path, self.analysis.path)}:{line}"
        shown = tuple_text([str(s) for s in wanted])
        place = Related(
            f"the input mesh's sizes are written here: set them to {shown}",
            Location(line, 1),
            written.module.path,
        )
        named = f"the input mesh's sizes are written at {at} (`{self._short(written.name)}`)"
        if (
            written.why is not None
            or not read_once(evaluator, given.built_at)
            or not kept_once(evaluator, written.module, written.node)
            or not every_caller_seen(
                self.analysis.engine.contexts, self.analysis.module, node
            )
        ):
            why = written.why or "other code may reach that mesh too"
            return None, f"{named} ({why}): set them to {shown} there", place
        edits = [
            module_edit(written.module, element, _written(str(size)))
            for element, size, old in zip(written.node.elts, wanted, sizes)
            if size != old
        ]
        if not edits or any(e is None for e in edits):
            return None
        fix = Fix(
            f"set the input mesh's sizes to {shown} where they are written ({at})",
            (),
            Safety.UNSAFE,
            data=tuple(e for e in edits if e is not None),
        )
        note = (
            f"{named}, where the calls that build it lead: the fix sets them to "
            f"{shown} there"
        )
        return fix, note, place

    def _context_sized_where_written(
        self, node: ast.AST, verdicts: list[_Verdict]
    ) -> tuple[Fix | None, str, Related] | None:
        """Where the input cannot be moved here and its mesh and the context mesh a caller
        enters are built by one call of one function of the tree on one argument each
        (vit's `create_mesh(config.mesh)` and `create_mesh(config.eval_mesh)`), from
        literals of (name, size) pairs of the same names in order (`(("batch", -1),
        ("model", 2))`, a `-1` filled by the builder): the context's sizes set to the
        input's there, so the two calls build equal meshes. Changed only when the context
        mesh goes one way from where it is built (`read_once`) into a `with` around the one
        statement leading to the gather, its literal is read this way alone (`read_alone`), in another module, outside the
        builder, and every call leading to `node` is one whose mesh context the engine
        knows (`every_caller_seen`); otherwise the place is named, without a fix."""
        contexts = {v.site.context.mesh for v in verdicts}
        inputs = {v.site.input.mesh for v in verdicts if v.site.input is not None}
        calls = {v.site.call for v in verdicts}
        if len(contexts) != 1 or len(inputs) != 1 or len(calls) != 1:
            return None
        (context,), (given,) = contexts, inputs
        site = verdicts[0].site
        if (
            given.axis_names is None
            or given.axis_names != context.axis_names
            or given.axis_types != context.axis_types
            or given.has_abstract_device != context.has_abstract_device
            or site.call is None
            or site.caller is None
            or not self._built_alike(given, context)
        ):
            return None
        evaluator = self.analysis.engine.evaluator
        ends = [
            written_at(evaluator, called_through(evaluator, m.built_at), filled=True)
            for m in (given, context)
        ]
        source, written = ends
        if (
            isinstance(source, Unknown)
            or isinstance(written, Unknown)
            or source.data is not None
            or written.data is not None
            or written.override is not None
            or written.keyword is not None
            or written.total
            or written.axis is not None
            or written.module is self.analysis.module
            or in_builder(written, context.built_at)
            or not isinstance(source.node, (ast.Tuple, ast.List))
            or not isinstance(written.node, (ast.Tuple, ast.List))
        ):
            return None
        pairs = [_pair(e) for e in written.node.elts]
        sources = [_pair(e) for e in source.node.elts]
        if (
            any(p is None for p in (*pairs, *sources))
            or [p[0] for p in pairs if p is not None]
            != [p[0] for p in sources if p is not None]
            or [p[0] for p in pairs if p is not None] != list(given.axis_names)
        ):
            return None
        text = source.module.source.decode("utf-8", "replace")
        changes = [
            (mine[1], ast.get_source_segment(text, theirs[1]) or "")
            for mine, theirs in zip(pairs, sources, strict=True)
            if mine is not None
            and theirs is not None
            and ast.dump(mine[1]) != ast.dump(theirs[1])
        ]
        if not changes or any(not new for _, new in changes):
            return None
        shown = tuple_text(
            [
                f"({p[0]!r}, {ast.get_source_segment(text, p[1])})"
                for p in sources
                if p is not None
            ]
        )
        line = written.module.line(written.node)
        at = f"{other_file(written.module.path, self.analysis.path)}:{line}"
        place = Related(
            f"the context mesh's sizes are written here: set them to the input mesh's, {shown}",
            Location(line, 1),
            written.module.path,
        )
        named = (
            f"the context mesh's sizes are written at {at} "
            f"(`{self._short(written.name)}`), the input mesh's at "
            f"{other_file(source.module.path, self.analysis.path)}:"
            f"{source.module.line(source.node)}, both built by one call"
        )
        if (
            written.why is not None
            or not read_once(evaluator, context.built_at)
            or not _entered_around_alone(site.caller.module, site.call)
            or not read_alone(evaluator, written.module, written.node)
            or not every_caller_seen(
                self.analysis.engine.contexts, self.analysis.module, node
            )
        ):
            why = written.why or "other code may reach that mesh too"
            return None, f"{named} ({why}): set them to {shown} there", place
        edits = [
            module_edit(written.module, size, _written(new)) for size, new in changes
        ]
        if any(e is None for e in edits):
            return None
        fix = Fix(
            f"set the context mesh's sizes to the input mesh's, {shown}, where they are "
            f"written ({at})",
            (),
            Safety.UNSAFE,  # it changes a configuration
            data=tuple(e for e in edits if e is not None),
        )
        note = f"{named}: the fix sets the context's to {shown} there"
        return fix, note, place

    def _built_alike(self, given: Mesh, context: Mesh) -> bool:
        """Whether the two meshes are built through the same frames but the outermost,
        each a call of one function of the tree on one positional argument alone: what
        they are built from is that argument (and the host)."""
        if (
            len(given.built_at) < 2
            or given.built_at[1:] != context.built_at[1:]
            or given.built_at[0] == context.built_at[0]
        ):
            return False
        evaluator = self.analysis.engine.evaluator
        inner_path, inner_line = given.built_at[1]
        callees = []
        for path, line in (given.built_at[0], context.built_at[0]):
            module = evaluator.module(path)
            if isinstance(module, Unknown):
                return False
            runs = [
                (c, f)
                for c in module.calls
                if c.lineno == line
                and isinstance(f := evaluator.value_of(module, c.func), Function)
                and Path(os.path.abspath(f.path)) == Path(os.path.abspath(inner_path))
                and f.node.lineno <= inner_line <= (f.node.end_lineno or f.node.lineno)
            ]
            if len(runs) != 1:
                return False
            call, function = runs[0]
            if (
                len(call.args) != 1
                or call.keywords
                or isinstance(call.args[0], ast.Starred)
            ):
                return False
            callees.append(function.node)
        return callees[0] is callees[1]

    def _verdict(self, site: _Site, sharding: ast.expr) -> _Verdict | None:
        out = self.analysis.sharding_mesh(sharding, site.context)
        if site.input is None or out is None or not site.input.mesh.all_explicit:
            return None
        context = site.context.mesh
        out_is_context, input_is_context = (
            # a bare P(...) is on the context mesh itself, whatever of it is unknown
            True if out is site.context else out.mesh.equals(context),
            site.input.mesh.equals(context),
        )
        if (
            out_is_context is False
        ):  # JAX compares these first, whatever the input's mesh
            return _Verdict(_Failure.CONTEXT, site, out)
        if out_is_context is None or input_is_context is None:
            return None
        return None if input_is_context else _Verdict(_Failure.INPUT, site, out)

    # -- fixes --------------------------------------------------------------------------------

    def _move_input(
        self, x: ast.expr, sites: list[_Site], verdicts: list[_Verdict]
    ) -> tuple[Fix | None, str | None]:
        if any(s.context_from_caller for s in sites):
            return None, self._suggest_at_caller(verdicts[0])
        if any(v.kind is not _Failure.INPUT for v in verdicts):
            return None, not_fixed("other calls of this function fail differently")
        context = sites[0].context
        if sites[0].entered_by not in _EAGER_SETTERS or context.mesh.is_abstract:
            return None, not_fixed(
                "the context mesh is abstract, there is no concrete mesh to move the input to"
            )
        entered = _mesh_given(sites[0].entered_at)
        if context.name is None and not self._entered_beside(entered, x):
            return None, not_fixed("the context mesh has no name the fix could use")
        names = context.mesh.axis_names
        for verdict in verdicts:
            given = verdict.site.input
            axes = given.mesh.axis_names if given is not None else None
            if axes is None or names is None:
                return None, not_fixed(
                    "the axis names of the input's or the context's mesh are not known"
                )
            missing = [n for n in axes if n not in names]
            if missing:
                return None, not_fixed(
                    f"the context mesh has no axis {missing[0]!r} of the input's mesh"
                )
        # the expression the run saw entering the context: a name, an attribute, or an
        # unnamed one (`set_mesh(make())`) that `_move_onto` binds to a local once
        mesh: ast.expr | str = (
            entered
            if entered is not None
            and (context.name is None or self.analysis.text(entered) == context.name)
            else context.name or ""
        )
        fix = self._move_onto(x, mesh)
        if fix is None:
            what = (
                f"the input `{self._short(x)}`"
                if not isinstance(x, ast.Name)
                and first_evaluated(self.analysis, x) is None
                and not self.analysis.rereads_same(x)
                else f"the context mesh `{self._short(mesh)}`"
            )
            return None, not_fixed(
                f"{what} is an expression the fix would read again, and binding it to a "
                "local first would change what runs before it"
            )
        return fix, None

    def _entered_beside(self, entered: ast.expr | None, x: ast.expr) -> bool:
        """Whether `entered`, the unnamed mesh expression a `set_mesh` was given, is in this
        module and in the scope that reads `x` (not a context manager's `__enter__`), and
        not a bare name (one the engine gave no mesh name to): one `_move_onto` may bind."""
        if entered is None or isinstance(entered, ast.Name):
            return False
        node: ast.AST = entered
        while (parent := self.analysis.parents.get(node)) is not None:
            node = parent
        return node is self.analysis.module.tree and enclosing_scope(
            self.analysis, entered
        ) is enclosing_scope(self.analysis, x)

    def _move_onto(
        self,
        x: ast.expr,
        mesh: ast.expr | str,
        reread: bool = False,
        tree: bool = False,
    ) -> Fix | None:
        """`x` put onto the context mesh with its own spec (unsafe: a copy): the mesh the code
        names `mesh`, or the expression `mesh` that entered the context; with `tree`, `x` is
        a pytree of arrays, each leaf moved with its own spec (`jax.tree.map`). What the fix
        reads twice is a name: an input or a mesh written another way is bound to a local
        just before the statement that read it (jaxfix/codemods/bindings.py); where that
        would change what runs first, read again when the engine shows that gives the same
        object (`Analysis.rereads_same`: an attribute chain kept on its objects, nothing
        storing it in between); None otherwise."""
        edits: list[tuple[ast.AST, Edit]] = []
        if isinstance(x, ast.Name):
            value = x.id
        else:
            binding = local_for(self.analysis, x, "to_gather")
            if binding is not None:
                edits.append((binding.statement, binding.edit(self.analysis.text(x))))
                value = binding.name
            elif self.analysis.rereads_same(x):  # both reads in the one expression
                value = self.analysis.text(x)
            else:
                return None
        if isinstance(mesh, ast.Name):
            mesh = mesh.id
        if not isinstance(mesh, str):
            binding = local_for(
                self.analysis, mesh, "mesh", read_at=x, avoid=frozenset({value})
            )
            between = self._after_entering(mesh, x) if binding is None else None
            if binding is not None:
                local = binding.name
                edits.append(
                    (binding.statement, binding.edit(self.analysis.text(mesh)))
                )
                edits.append((mesh, lambda _: _expression(local)))
                mesh = local
            elif between is not None and self.analysis.rereads_same(mesh, between):
                mesh = self.analysis.text(mesh)
            else:
                return None
        elif not mesh.isidentifier() and not reread:
            return None  # an attribute read again, with nowhere it was read to bind it
        named_sharding, imports = self.analysis.api_spelling(
            Api.NAMED_SHARDING, "jax.sharding"
        )
        jax_name, jax_import = self.analysis.module_spelling("jax")
        moved = f"{jax_name}.device_put({value}, {named_sharding}({mesh}, {jax_name}.typeof({value}).sharding.spec))"
        if tree:
            leaf = "leaf" if "leaf" not in (value, mesh.split(".")[0]) else "leaf_"
            moved = (
                f"{jax_name}.tree.map(lambda {leaf}: {jax_name}.device_put({leaf}, "
                f"{named_sharding}({mesh}, {jax_name}.typeof({leaf}).sharding.spec)), "
                f"{value})"
            )
        edits.append((x, lambda _: _expression(moved)))
        return Fix(
            f"move `{self._short(x)}` onto `{mesh}` before the gather",
            tuple(edits),
            Safety.UNSAFE,
            (*jax_import, *imports),
        )

    def _after_entering(self, mesh: ast.expr, x: ast.expr) -> list[ast.AST] | None:
        """What runs between the read of `mesh`, the one argument of a `with jax.set_mesh(
        mesh):` in the function holding `x`, and the read of `x`: that call, the `with`'s
        later items, and its body's statements up to the one holding `x` (all of it); None
        where `x` is not in that body, in that scope."""
        call = self.analysis.parents.get(mesh)
        item = self.analysis.parents.get(call) if call is not None else None
        block = self.analysis.parents.get(item) if item is not None else None
        if not (
            isinstance(call, ast.Call)
            and call.args == [mesh]
            and self.analysis.called_api(call) in _EAGER_SETTERS
            and isinstance(item, ast.withitem)
            and isinstance(block, ast.With)
        ):
            return None
        node: ast.AST = x
        while (parent := self.analysis.parents.get(node)) is not block:
            if parent is None or isinstance(
                parent,
                (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef),
            ):
                return None
            if isinstance(parent, ast.comprehension) or isinstance(
                parent, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
            ):
                return None
            node = parent
        if not isinstance(node, ast.stmt) or node not in block.body:
            return None
        later = block.items[block.items.index(item) + 1 :]
        return [
            call,
            *(i.context_expr for i in later),
            *block.body[: block.body.index(node) + 1],
        ]

    def _rehome_sharding(
        self,
        x: ast.expr,
        sharding: ast.expr,
        sites: list[_Site],
        verdicts: list[_Verdict],
        recorded: bool = False,
    ) -> tuple[Fix | None, str | None]:
        """`recorded`: a run showed this gather raising (repair, `--evidence`)."""
        first = verdicts[0]
        if any(v.kind is not _Failure.CONTEXT for v in verdicts):
            return None, not_fixed("other calls of this function fail differently")
        if any(
            v.site.input is None or not v.site.input.mesh.equals(v.site.context.mesh)
            for v in verdicts
        ):
            return None, self._input_elsewhere_note(first)
        args = (
            self.analysis.bind(sharding)
            if isinstance(sharding, ast.Call)
            and self.analysis.called_api(sharding) is Api.NAMED_SHARDING
            else None
        )
        if args is None or "mesh" not in args:
            # a run showed it raising: a local bound before the `with` that enters the
            # context mesh is put on that mesh where it is assigned, as the run's own
            # answer does (the static answer and the run's together)
            gather = self.analysis.parents.get(sharding)
            moved = (
                self._onto_entered(gather, sharding, first.site.context.mesh)
                if recorded and isinstance(gather, ast.Call)
                else None
            )
            if isinstance(moved, Fix):
                return moved, None
            return None, not_fixed("the NamedSharding is not written in this call")
        axes = self._spec_axes(args.get("spec"))
        context = first.site.context
        names = context.mesh.axis_names
        if axes is None or names is None or not axes <= set(names):
            return None, not_fixed(
                "its PartitionSpec's axes are not all known axes of the context mesh"
            )
        imports: tuple[tuple[str, str | None], ...] = ()
        if not any(s.context_from_caller for s in sites) and context.name is not None:
            mesh_text, title = context.name, f"put the out_sharding on `{context.name}`"
        elif isinstance(x, ast.Name):
            jax_name, imports = self.analysis.module_spelling("jax")
            mesh_text, title = (
                f"{jax_name}.typeof({x.id}).sharding.mesh",
                f"put the out_sharding on `{x.id}`'s mesh",
            )
        else:
            return None, not_fixed(
                "the input is an expression, and the context mesh has no name here"
            )
        return Fix(
            title,
            ((args["mesh"], lambda _: _expression(mesh_text)),),
            Safety.SAFE,
            imports,
        ), None

    def _spec_axes(self, spec: ast.expr | None) -> set[str] | None:
        """Every axis name a `P(...)` names (partitions, reduced, unreduced), when all known."""
        value = self.analysis.value_of(spec) if spec is not None else None
        if not isinstance(value, Spec):
            return None
        axes: set[str] = set()
        for part in (*value.parts, value.reduced, value.unreduced):
            if part is None:
                continue
            names = (
                (part,)
                if isinstance(part, str)
                else tuple(part)
                if isinstance(part, (tuple, frozenset))
                else None
            )
            if names is None or not all(isinstance(n, str) for n in names):
                return None
            axes.update(str(n) for n in names)
        return axes

    # -- where the gather runs ----------------------------------------------------------------

    def _sites(self, gather: ast.Call, x: ast.expr) -> list[_Site]:
        """One site per way the gather runs: under the context the engine finds, with the input
        as this function spells it or, for a parameter, as each caller passes it."""
        analysis = self.analysis
        function = _enclosing_function(analysis, gather)
        parameter = _parameter(analysis, x, function)
        outer = [setting_site(way) for way in analysis.ways_at(gather)]
        local = [
            s
            for s in outer
            if s is not None and not _from_caller(analysis, s, function)
        ]
        if local:  # entered in the gather's own function, by its decorator or setUp
            site = local[-1]
            context = _context(analysis.context_mesh(site, gather))
            if context is None:
                return []
            if parameter is None or function is None:
                return [
                    _Site(
                        context=context,
                        entered_by=site.api,
                        entered_at=site.node,
                        input=analysis.array_mesh(x),
                        input_text=analysis.text(x),
                    )
                ]
            return [
                _Site(
                    context=context,
                    entered_by=site.api,
                    entered_at=site.node,
                    input=caller.array_mesh(arg),
                    input_text=caller.text(arg),
                    call=call,
                    caller=caller,
                    input_from_caller=True,
                )
                for caller, call, arg in self._calls(function, parameter, x)
            ]
        engine_sites = [s for s in outer if s is not None]
        if function is None or not engine_sites:
            return []
        sites = []
        for caller, call, arg in self._calls(function, parameter, x):
            placing = caller if parameter is not None else analysis
            for way in caller.ways_at(call):
                around = setting_site(way)
                if (
                    around is None
                    or replace(around, call=around.call or call) not in engine_sites
                ):
                    continue  # not a way the gather runs (a generator's call runs none)
                context = _context(caller.context_mesh(around, call))
                if context is None:
                    continue
                sites.append(
                    _Site(
                        context=context,
                        entered_by=around.api,
                        input=placing.array_mesh(arg),
                        input_text=placing.text(arg),
                        call=call,
                        caller=caller,
                        context_from_caller=True,
                        input_from_caller=parameter is not None,
                    )
                )
        return sites

    def _calls(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        parameter: str | None,
        x: ast.expr,
    ) -> list[tuple[Analysis, ast.AST, ast.expr]]:
        """The calls running `function`'s body, each with its module and the input it gives
        (what it passes for `parameter`, or the gather's own input); none when unknown."""
        analysis = self.analysis
        running = analysis.calls_running(function)
        if isinstance(running, Unknown):
            return []
        if parameter is None:
            return [(analysis.of(m), call, x) for m, call in running]
        passing = analysis.calls_passing(function)
        if isinstance(passing, Unknown):
            return []
        binding = {id(call) for _, call in passing}
        found = []
        for module, call in running:
            arg = (
                _argument(
                    call,
                    function,
                    parameter,
                    _receiver_bound(analysis.of(module), call),
                )
                if id(call) in binding
                else None
            )
            if arg is not None:
                found.append((analysis.of(module), call, arg))
        return found

    # -- messages -----------------------------------------------------------------------------

    def _short(self, node: ast.AST | str) -> str:
        text = node if isinstance(node, str) else self.analysis.text(node)
        return cut(" ".join(text.split()))

    def _input_message(self, x: ast.expr, verdict: _Verdict) -> str:
        site = verdict.site
        assert site.input is not None  # a verdict needs the input's mesh
        return (
            f"top_level_all_gather input `{self._short(x)}` is on {_describe(site.input)} but its "
            f"out_sharding is on the context mesh {_describe(site.context)}{self._via(site)}; "
            f"JAX raises {_INPUT_ERROR}"
        )

    def _context_message(self, sharding: ast.expr, verdict: _Verdict) -> str:
        site = verdict.site
        return (
            f"top_level_all_gather out_sharding `{self._short(sharding)}` is on {_describe(verdict.out)} but the "
            f"context mesh is {_describe(site.context)}{self._via(site)}; JAX raises {_CONTEXT_ERROR}"
        )

    def _input_elsewhere_note(self, verdict: _Verdict) -> str:
        site = verdict.site
        if site.input is not None and site.input.mesh.equals(verdict.out.mesh):
            return not_fixed(
                f"the input is on that mesh too, so either gather under "
                f"`jax.set_mesh({verdict.out.name or '...'})` or move the input onto the context mesh"
            )
        described = (
            _describe(site.input) if site.input is not None else "an unknown mesh"
        )
        if site.input is not None and site.input.mesh.equals(site.context.mesh) is None:
            return not_fixed(
                f"jaxfix cannot tell whether the input `{site.input_text}`, on "
                f"{described}, is on the context mesh too: put the out_sharding on the "
                "context mesh"
            )
        return not_fixed(
            f"the input `{site.input_text}` is on a third mesh, {described}"
        )

    # -- the fix at the caller a recorded run went through -------------------------------------

    def at_value(self, evidence: Evidence) -> None:
        """The gather raised in a function whose context mesh its caller sets (under `jax.jit`,
        or not), and this argument of the caller's call is its input
        (jaxfix/check/value_sites.py): moved onto the mesh a `with jax.set_mesh(E):` around the
        call enters, when the run's input mesh has only axes of the context's and, where the
        run noted where that context was entered, that `with` is among those places (one per
        caller the run went through)."""
        site = evidence.value_site
        node = self.analysis.expression_at(site.span) if site is not None else None
        if site is None or node is None or site.entry is not None:
            return
        confirmed = Confirmed(evidence)
        if _context_error(confirmed) and site.onto is not None:
            self._context_onto_out(node, site, confirmed)
            return
        if _context_error(confirmed) and site.passed_as is not None:
            self._out_mesh_passed_onto_entered(node, site, confirmed)
            return
        if _context_error(confirmed) and site.role == "out" and site.names:
            self._out_mesh_named_as_context(node, site, confirmed)
            return
        if _context_error(confirmed) and site.role == "out":
            self._out_mesh_sized_as_context(node, site, confirmed)
            return
        if _context_error(confirmed):
            self._out_sharding_onto_entered(node, site, confirmed)
            return
        given, out = confirmed.agreed("input"), confirmed.agreed("out")
        entered = self._set_mesh_around(node)
        mesh: ast.expr | str | None = entered.args[0] if entered is not None else None
        helper = None
        if entered is None:
            helper = self._entered_by_helper(node, evidence)
            if helper is not None:
                entered, mesh = helper
        if entered is None and site.entered is not None:
            entered = self._entered_as_noted(
                node, self._noted_entries(confirmed, "out"), site.entered
            )
            mesh = _mesh_given(entered)
        if given is None or out is None or entered is None or mesh is None:
            return
        if (
            given.axis_names is None
            or out.axis_names is None
            or not set(given.axis_names) <= set(out.axis_names)
        ):
            return
        noted = [
            o.frames[-1]
            for o in evidence.origins
            if (o.role, o.kind) in (("out", "entered"), ("context", "entered"))
        ]
        line = self.analysis.line(entered)
        here = Path(os.path.abspath(self.analysis.path))
        if (
            helper is None
            and noted
            and (here, line) not in {(Path(os.path.abspath(p)), n) for p, n in noted}
        ):
            return  # the run's context mesh was put in force elsewhere
        fix = self._move_onto(node, mesh, reread=helper is not None, tree=site.tree)
        if fix is None:
            return
        raised = f"{other_file(site.raised[0], self.analysis.path)}:{site.raised[1]}"
        on = confirmed.fill("input", None, node)
        context = confirmed.fill("out", None, node)
        assert on is not None and context is not None  # both agreed, above
        self.report(
            node,
            f"the run's top_level_all_gather at {raised} gathers `{self._short(node)}` "
            f"({_describe(Placed(on, None))}) under the context mesh "
            f"`{self._short(mesh)}` entered around this call "
            + (f"by `{self._short(entered)}` " if helper is not None else "")
            + f"({_describe(Placed(context, None))}); JAX raises {_INPUT_ERROR}",
            fix=fix,
            related=(
                Related(
                    "the gather that raised",
                    Location(site.raised[1], 1),
                    site.raised[0],
                ),
            ),
        )

    def _context_onto_out(
        self, node: ast.expr, site: ValueSite, confirmed: Confirmed
    ) -> None:
        """A context-mesh error whose input and out_sharding the run saw on one mesh, which
        the block of the `with jax.set_mesh(E):` where it entered the context reads as
        `site.onto` (jaxfix/check/value_sites.py): E becomes that mesh, when `node` is E, on a
        line where the run noted the context entered, and the block assigns neither. Unsafe:
        everything else the block runs sees that context too."""
        given, out, context = (
            confirmed.agreed("input"),
            confirmed.agreed("out"),
            confirmed.agreed("context"),
        )
        setter = self.analysis.parents.get(node)
        block = self.analysis.parents.get(setter) if setter is not None else None
        onto = site.onto
        if (
            given is None
            or out is None
            or context is None
            or given.differs_from(out)
            or not given.differs_from(context)
            or onto is None
            or self.analysis.text(node) == onto  # on it now (fixed)
            or not isinstance(setter, ast.Call)
            or _mesh_given(setter) is not node
            or self.analysis.called_api(setter) not in _EAGER_SETTERS
            or not isinstance(block, ast.withitem)
            or self.analysis.line(setter)
            not in self._noted_entries(confirmed, "context")
        ):
            return
        with_block = self.analysis.parents.get(block)
        if not isinstance(with_block, ast.With) or any(
            _assigned_in(with_block, text, self.analysis)
            for text in (onto, self.analysis.text(node))
        ):
            return
        raised = f"{other_file(site.raised[0], self.analysis.path)}:{site.raised[1]}"
        on, current = (
            confirmed.fill("out", None, node),
            confirmed.fill("context", None, node),
        )
        assert on is not None and current is not None  # both agreed, above
        self.report(
            node,
            "the run's top_level_all_gather at "
            f"{raised} raised 'Context mesh ... should match the mesh of sharding ...': "
            f"its input and out_sharding are on {on.shape_text()}, which this block reads "
            f"as `{onto}`; the context mesh `{self._short(node)}` entered here is "
            f"{current.shape_text()}: enter `{onto}`",
            fix=Fix(
                f"enter the input's and out_sharding's mesh `{onto}`",
                ((node, lambda _: _expression(onto)),),
                Safety.UNSAFE,  # the rest of the block runs under that mesh too
            ),
            related=(
                Related(
                    "the gather that raised",
                    Location(site.raised[1], 1),
                    site.raised[0],
                ),
            ),
        )

    def _out_mesh_sized_as_context(
        self, node: ast.expr, site: ValueSite, confirmed: Confirmed
    ) -> None:
        """A context-mesh error whose out_sharding's mesh has its sizes written here, as a
        literal, where the run's frames lead (`layer.ici_mesh_shape = [2, 4]` in an
        experiment's override): set to the context mesh's sizes, when both meshes have the
        same axis names (in order) and types and the literal holds the run's sizes. Unsafe:
        it changes a configuration."""
        out, context = confirmed.agreed("out"), confirmed.agreed("context")
        if (
            out is None
            or context is None
            or not isinstance(node, (ast.List, ast.Tuple))
            or out.axis_names != context.axis_names
            or out.axis_types != context.axis_types
            or out.axis_sizes == context.axis_sizes
            or (elements := _size_elements(node, out.axis_names)) is None
            or [e.value for e in elements] != list(out.axis_sizes)
        ):
            return
        sizes = ", ".join(str(s) for s in context.axis_sizes)
        new = (
            f"[{sizes}]"
            if isinstance(node, ast.List)
            else tuple_text(sizes.split(", "))
        )
        raised = f"{other_file(site.raised[0], self.analysis.path)}:{site.raised[1]}"
        self.report(
            node,
            with_note(
                f"the run built the out_sharding's mesh of the gather at {raised} from "
                f"`{self.analysis.text(node)}` here, under a context mesh "
                f"{tuple_text([str(s) for s in context.axis_sizes])} of the same axes; set "
                f"it to {new}; JAX raises {_CONTEXT_ERROR}",
                site.why,
            ),
            fix=Fix(
                f"size the out_sharding's mesh as the context mesh: {new}",
                tuple(
                    (element, _written(str(size)))
                    for element, old, size in zip(
                        elements, out.axis_sizes, context.axis_sizes, strict=True
                    )
                    if old != size
                ),
                Safety.UNSAFE,  # it changes a configuration
            ),
            related=(
                Related(
                    "the gather that raised",
                    Location(site.raised[1], 1),
                    site.raised[0],
                ),
            ),
        )

    def _out_mesh_named_as_context(
        self, node: ast.expr, site: ValueSite, confirmed: Confirmed
    ) -> None:
        """A context-mesh error whose out_sharding's mesh has the context mesh's sizes and
        axis types under other axis names, written here as a literal where the run's frames
        lead (`EXPORT_AXES = ("data", "model")`, passed to the mesh factory): the names become
        the context mesh's, when the literal holds the run's names. Unsafe: it changes a
        configuration, and code that names the old axes reads the new ones."""
        out, context = confirmed.agreed("out"), confirmed.agreed("context")
        if (
            out is None
            or context is None
            or not isinstance(node, (ast.List, ast.Tuple))
            or out.axis_sizes != context.axis_sizes
            or out.axis_types != context.axis_types
            or out.axis_names is None
            or context.axis_names is None
            or out.axis_names == context.axis_names
            or len(node.elts) != len(out.axis_names)
            or not all(
                isinstance(e, ast.Constant) and e.value == name
                for e, name in zip(node.elts, out.axis_names, strict=True)
            )
        ):
            return
        spelled = _spelled(self.analysis.text(node.elts[0]), context.axis_names)
        new = _names_literal(node, spelled)
        raised = f"{other_file(site.raised[0], self.analysis.path)}:{site.raised[1]}"
        self.report(
            node,
            with_note(
                f"the run built the out_sharding's mesh of the gather at {raised} with the "
                f"axis names `{self.analysis.text(node)}` here, under a context mesh of the "
                f"same sizes named {tuple_text(spelled)}; set them to {new}; JAX raises "
                f"{_CONTEXT_ERROR}",
                site.why,
            ),
            fix=Fix(
                f"name the out_sharding's mesh's axes as the context mesh's: {new}",
                tuple(
                    (element, _written(text))
                    for element, old, text in zip(
                        node.elts, out.axis_names, spelled, strict=True
                    )
                    if old != text[1:-1]
                ),
                Safety.UNSAFE,  # it changes a configuration
            ),
            related=(
                Related(
                    "the gather that raised",
                    Location(site.raised[1], 1),
                    site.raised[0],
                ),
            ),
        )

    def _out_mesh_passed_onto_entered(
        self, node: ast.expr, site: ValueSite, confirmed: Confirmed
    ) -> None:
        """A context-mesh error whose out_sharding's mesh is this argument, which the called
        function makes its out_sharding on (`gather_params_for_decoding(params, config,
        decode_mesh)`, jaxfix/analysis/ast_engine/passed_meshes.py), the call inside the
        `with jax.set_mesh(E):` where the run entered the context mesh: the argument becomes
        E, when E is a plain reference the block does not assign and the context mesh has
        every axis of the out_sharding's. Unsafe: the run does not show the input's mesh."""
        out, context = confirmed.agreed("out"), confirmed.agreed("context")
        noted = self._noted_entries(confirmed, "context")
        entered = self._set_mesh_around(node)
        if entered is None and site.entered is not None:
            entered = self._entered_as_noted(node, noted, site.entered)
        mesh = _mesh_given(entered)
        if (
            out is None
            or context is None
            or out.axis_names is None
            or context.axis_names is None
            or not set(out.axis_names) <= set(context.axis_names)
            or entered is None
            or mesh is None
        ):
            return
        text = self.analysis.text(mesh)
        if self.analysis.line(entered) not in noted or self.analysis.text(node) == text:
            return
        raised = f"{other_file(site.raised[0], self.analysis.path)}:{site.raised[1]}"
        on, current = (
            confirmed.fill("out", None, node),
            confirmed.fill("context", None, node),
        )
        described = (
            f" ({on.shape_text()}; the context mesh {current.shape_text()})"
            if on is not None and current is not None
            else ""
        )
        self.report(
            node,
            "the run's top_level_all_gather at "
            f"{raised} raised 'Context mesh ... should match the mesh of sharding ...': "
            f"its out_sharding is made on `{self._short(node)}`, passed here as "
            f"`{site.passed_as}`, not on the context mesh `{text}` entered at line "
            f"{self.analysis.line(entered)}{described}",
            fix=Fix(
                f"pass the context mesh `{text}`",
                ((node, lambda _: _expression(text)),),
                Safety.UNSAFE,  # the run does not show the input's mesh: it may be a third
            ),
            related=(
                Related(
                    "the gather that raised",
                    Location(site.raised[1], 1),
                    site.raised[0],
                ),
            ),
        )

    def _noted_entries(self, confirmed: Confirmed, role: str) -> set[int]:
        """The lines of this file where the run noted the `role` mesh put in force."""
        here = Path(os.path.abspath(self.analysis.path))
        return {
            line
            for o in confirmed.evidence.origins
            if (o.role, o.kind) == (role, "entered")
            for path, line in o.frames[-1:]
            if Path(os.path.abspath(path)) == here
        }

    def _entered_as_noted(
        self, node: ast.expr, noted: set[int], text: str
    ) -> ast.Call | None:
        """The call of a `with` around `node` in its function, on a line where the run noted
        the context mesh entered, given one plain reference that reads `text` (the mesh the
        run built where that reference holds it: `compat.set_mesh(train_mesh)`, a setter
        whose spelling jaxfix does not follow), which the block does not assign; None where
        a mesh context jaxfix knows is entered nearer."""
        child: ast.AST = node
        while (parent := self.analysis.parents.get(child)) is not None:
            if isinstance(
                parent,
                (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef),
            ):
                return None
            if isinstance(parent, ast.With) and child in parent.body:
                for item in parent.items:
                    call = item.context_expr
                    given = _mesh_given(call)
                    if isinstance(call, ast.Call) and self.analysis.called_api(
                        call
                    ) in (*_EAGER_SETTERS, Api.USE_ABSTRACT_MESH):
                        return None
                    if (
                        isinstance(call, ast.Call)
                        and self.analysis.line(call) in noted
                        and given is not None
                        and _plain_reference(given)
                        and ast.unparse(given) == text
                        and not _assigned_in(
                            parent, self.analysis.text(given), self.analysis
                        )
                    ):
                        return call
            child = parent
        return None

    def _out_sharding_onto_entered(
        self, mesh: ast.expr, site: ValueSite, confirmed: Confirmed
    ) -> None:
        """A context-mesh error whose out_sharding `NamedSharding(mesh, spec)` is made here, in
        the function whose `with jax.set_mesh(E):` (where the run noted the context entered)
        runs the gather, passed down to a helper: `mesh` becomes `E`, when E is a plain
        reference the function assigns nowhere after the out_sharding is made, the spec's axes
        are all the context mesh's, and the `NamedSharding` is made before the `with` or in it.
        Unsafe: the run does not show the input's mesh."""
        named = self.analysis.parents.get(mesh)
        args = (
            self.analysis.bind(named)
            if isinstance(named, ast.Call)
            and self.analysis.called_api(named) is Api.NAMED_SHARDING
            else None
        )
        context = confirmed.agreed("context")
        out = confirmed.agreed("out")
        if (
            args is None
            or args.get("mesh") is not mesh
            or context is None
            or out is None
            or context.axis_names is None
        ):
            return
        axes = self._spec_axes(args.get("spec"))
        if axes is None or not axes <= set(context.axis_names):
            return
        function = self._enclosing_function(mesh)
        if function is None or not isinstance(named, ast.Call):
            return
        lines = {
            line
            for o in confirmed.evidence.origins
            if (o.role, o.kind) == ("context", "entered")
            for path, line in o.frames[-1:]
            if Path(os.path.abspath(path)) == Path(os.path.abspath(self.analysis.path))
        }
        setters = [
            item.context_expr
            for block in ast.walk(function)
            for item in (block.items if isinstance(block, ast.With) else ())
            if isinstance(item.context_expr, ast.Call)
            and item.context_expr.lineno in lines
            and self.analysis.called_api(item.context_expr) in _EAGER_SETTERS
            and self._enclosing_function(item.context_expr) is function
        ]
        if len(setters) != 1:
            return
        target = _mesh_given(setters[0])
        if target is None or not _plain_reference(target):
            return
        text = self.analysis.text(target)
        if self.analysis.text(mesh) == text:
            return  # on it now (fixed)
        later = [
            statement
            for statement in ast.walk(function)
            if isinstance(statement, ast.stmt)
            and statement.lineno > named.lineno
            and not isinstance(
                statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            )
        ]
        if setters[0].lineno < named.lineno or _assigns(later, text, self.analysis):
            return
        raised = f"{other_file(site.raised[0], self.analysis.path)}:{site.raised[1]}"
        on, entered = (
            confirmed.fill("out", None, mesh),
            confirmed.fill("context", None, mesh),
        )
        described = (
            f" ({on.shape_text()}; the context mesh {entered.shape_text()})"
            if on is not None and entered is not None
            else ""
        )
        self.report(
            mesh,
            "the run's top_level_all_gather at "
            f"{raised} raised 'Context mesh ... should match the mesh of sharding ...': "
            f"its out_sharding is made here on `{self._short(mesh)}`, not on the context "
            f"mesh `{text}` entered at line {setters[0].lineno}{described}",
            fix=Fix(
                f"put the out_sharding on `{text}`",
                ((mesh, lambda _: _expression(text)),),
                Safety.UNSAFE,  # the run does not show the input's mesh: it may be a third
            ),
            related=(
                Related(
                    "the gather that raised",
                    Location(site.raised[1], 1),
                    site.raised[0],
                ),
            ),
        )

    def _frames_root(self, confirmed: Confirmed) -> Path:
        """The directory this file and the run's origin frames share, from which a message
        names them."""
        paths = [
            os.path.abspath(path)
            for o in confirmed.evidence.origins
            for path, _ in o.frames
        ]
        root = Path(os.path.commonpath([*paths, os.path.abspath(self.analysis.path)]))
        return (
            root.parent
            if root.as_posix() == os.path.abspath(self.analysis.path)
            else root
        )

    def _enclosing_function(self, node: ast.AST) -> ast.AST | None:
        """The function (or lambda) whose body holds `node`; None at module level."""
        parent = self.analysis.parents.get(node)
        while parent is not None:
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                return parent
            parent = self.analysis.parents.get(parent)
        return None

    def _entered_by_helper(
        self, node: ast.expr, evidence: Evidence
    ) -> tuple[ast.Call, str] | None:
        """A context mesh entered around the call by a helper context manager of the tree
        (`with inference_context(runner):`, whose body is `with jax.set_mesh(runner.mesh):
        yield`), where the run noted it entered (its last two frames: this `with`, then the
        helper's): that `with`'s call, and the mesh as this caller names it (the helper's
        expression, its parameter replaced by what this call passes: `runner.mesh`). None
        unless every record agrees on that one place, the helper is a generator
        `@contextmanager` entering `jax.set_mesh(E)` around its one `yield`, E a plain
        reference on a parameter it never assigns, and what this call passes for it is a
        plain reference the block does not assign."""
        here = Path(os.path.abspath(self.analysis.path))
        places = {
            (o.frames[-2], o.frames[-1])
            for o in evidence.origins
            if (o.role, o.kind) in (("out", "entered"), ("context", "entered"))
            and len(o.frames) >= 2
        }
        if len(places) != 1:
            return None
        ((caller_path, caller_line), (helper_path, helper_line)) = next(iter(places))
        if Path(os.path.abspath(caller_path)) != here:
            return None
        block = None
        child: ast.AST = node
        while (parent := self.analysis.parents.get(child)) is not None:
            if isinstance(
                parent,
                (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef),
            ):
                return None
            if isinstance(parent, ast.With) and child in parent.body:
                if any(
                    isinstance(item.context_expr, ast.Call)
                    and self.analysis.called_api(item.context_expr)
                    in (*_EAGER_SETTERS, Api.USE_ABSTRACT_MESH)
                    for item in parent.items
                ):
                    return None  # a mesh set nearer the call
                if parent.lineno <= caller_line <= (parent.end_lineno or parent.lineno):
                    block = parent
                    break
            child = parent
        if block is None or len(block.items) != 1:
            return None
        call = block.items[0].context_expr
        if not isinstance(call, ast.Call) or call.lineno != caller_line:
            return None
        evaluator = self.analysis.engine.evaluator
        helper_module = evaluator.module(helper_path)
        if isinstance(helper_module, Unknown):
            return None
        caller_module = evaluator.module(self.analysis.path)
        if isinstance(caller_module, Unknown):
            return None
        callee = evaluator.value_of(caller_module, call.func)
        skipped = 0
        if isinstance(callee, BoundMethod) and isinstance(call.func, ast.Attribute):
            callee, skipped = callee.function, 1
        if not isinstance(callee, Function) or callee.path is None:
            return None
        function = callee.node
        if (
            not isinstance(function, ast.FunctionDef)
            or Path(os.path.abspath(callee.path)) != Path(os.path.abspath(helper_path))
            or not any(
                ast.unparse(d).split(".")[-1] == "contextmanager"
                for d in function.decorator_list
            )
        ):
            return None
        setters = [
            inner
            for inner in ast.walk(function)
            if isinstance(inner, ast.With)
            and inner.lineno <= helper_line <= (inner.end_lineno or inner.lineno)
            and len(inner.items) == 1
            and isinstance(inner.items[0].context_expr, ast.Call)
        ]
        yields = [
            n for n in ast.walk(function) if isinstance(n, (ast.Yield, ast.YieldFrom))
        ]
        if len(setters) != 1 or len(yields) != 1:
            return None
        (setter,) = setters
        entering = setter.items[0].context_expr
        assert isinstance(entering, ast.Call)
        name = getattr(evaluator.value_of(helper_module, entering.func), "name", None)
        if (
            not isinstance(name, str)
            or api_of(name) not in _EAGER_SETTERS
            or len(entering.args) != 1
            or entering.keywords
            or not any(n is yields[0] for n in ast.walk(setter))
            or helper_module.parents.get(setter) is not function
        ):
            return None
        target = entering.args[0]
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        if (
            not isinstance(root, ast.Name)
            or not _plain_reference(target)
            or root.id not in parameters
            or function.args.vararg
            or function.args.kwarg
            or any(
                isinstance(n, ast.Name)
                and n.id == root.id
                and not isinstance(n.ctx, ast.Load)
                for n in ast.walk(function)
            )
        ):
            return None
        if skipped and parameters and root.id == parameters[0]:
            assert isinstance(call.func, ast.Attribute)
            passed: ast.expr | None = call.func.value
        else:
            index = parameters.index(root.id) - skipped
            given = [k.value for k in call.keywords if k.arg == root.id]
            passed = (
                given[0]
                if given
                else call.args[index]
                if 0 <= index < len(call.args)
                and not any(isinstance(a, ast.Starred) for a in call.args[: index + 1])
                else None
            )
        if passed is None or not _plain_reference(passed):
            return None
        mesh = self.analysis.text(passed) + ast.unparse(target)[len(root.id) :]
        if _assigned_in(block, mesh, self.analysis):
            return None
        return call, mesh

    def _suggest_at_caller(self, verdict: _Verdict) -> str:
        site = verdict.site
        moved = (
            f"jax.device_put({site.input_text}, NamedSharding({site.context.name or '<context mesh>'}, "
            f"jax.typeof({site.input_text}).sharding.spec))"
        )
        if site.input_from_caller and site.call is not None:
            return not_fixed(
                f"inside a function whose context comes from its caller: pass `{moved}` at {self._where(site)}"
            )
        return not_fixed(
            f"inside a function whose context comes from its caller (it may run under jit): gather `{moved}`"
        )

    def _via(self, site: _Site) -> str:
        if site.call is None:
            return ""
        if site.context_from_caller:
            return f" (entered around the call at {self._where(site)})"
        if site.input_from_caller:
            return f" (the input is `{self._short(site.input_text)}`, passed at {self._where(site)})"
        return ""

    def _where(self, site: _Site) -> str:
        """'line N' of the site's call, in this module or the caller's."""
        assert site.call is not None and site.caller is not None
        line = f"line {site.caller.line(site.call)}"
        if site.caller is self.analysis:
            return line
        return f"{line} of {other_file(site.caller.path, self.analysis.path)}"

    def _related(self, site: _Site) -> tuple[Related, ...]:
        if site.call is None or site.caller is not self.analysis:
            return ()
        return (related(self.analysis, "the function is called here", site.call),)


# -- helpers ------------------------------------------------------------------------------------


def _enclosing_function(
    analysis: Analysis, node: ast.AST
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose body `node` is in (None at module level, in a class body or lambda)."""
    scope = analysis.module.scope_of(node)
    return scope if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _parameter(
    analysis: Analysis,
    x: ast.expr,
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
) -> str | None:
    """The parameter of `function` (the gather's own) that `x` names, if it is one."""
    if function is None or not isinstance(x, ast.Name):
        return None
    return x.id if analysis.is_parameter(x, function) else None


def _from_caller(
    analysis: Analysis,
    site: Site,
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
) -> bool:
    """Whether `site` is entered around a call of the gather's function (not in the function
    itself, its decorators or its TestCase's setUp)."""
    if site.call is None or function is None:
        return False
    current: ast.AST | None = site.call
    while current is not None:
        if current is function:
            return False
        current = analysis.parents.get(current)
    return True


def _argument(
    call: ast.AST,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    parameter: str,
    receiver_bound: bool = False,
) -> ast.expr | None:
    """What `call` passes for `parameter` of `function` (None when it passes nothing, or the
    arguments cannot be bound); `receiver_bound`: a method called on its object
    (`loop.decode(x)`), whose first parameter takes the object, not the first argument."""
    if not isinstance(call, ast.Call):
        return None
    if receiver_bound:
        a = function.args
        first = next(iter((*a.posonlyargs, *a.args)), None)
        if first is None or first.arg == parameter:
            return None
        # the object in the first parameter's place
        call = ast.Call(call.func, [ast.Constant(None), *call.args], call.keywords)
    args = arguments_of(call, function)
    return args.get(parameter) if args is not None else None


def _receiver_bound(analysis: Analysis, call: ast.AST) -> bool:
    """`call` calls a method bound to its object (`obj.method(...)`)."""
    return isinstance(call, ast.Call) and isinstance(
        analysis.value_of(call.func), BoundMethod
    )


def _context(placed: Placed | None) -> Placed | None:
    """The context mesh, when it is known, non-empty and all-Explicit (with Auto axes JAX fails
    earlier, with another error)."""
    if placed is None or placed.mesh.is_empty or not placed.mesh.all_explicit:
        return None
    return placed


def _logged_here(confirmed: Confirmed) -> str:
    error = _CONTEXT_ERROR if _context_error(confirmed) else _INPUT_ERROR
    return f"the log shows JAX raised {error} here ({confirmed.where})"


def _origin_places(confirmed: Confirmed) -> tuple[Related, ...]:
    """Where the run built each mesh the message names, and entered the context mesh: the
    innermost frame of the first chain of each."""
    facts = confirmed.evidence.agreed
    found: dict[tuple[str, str], Related] = {}
    for origin in confirmed.evidence.origins:
        if (
            origin.kind not in ("built", "entered")
            or not origin.frames
            or facts is None
            or facts.get(origin.role) is None
        ):
            continue
        where, line = origin.frames[-1]
        found.setdefault(
            (origin.role, origin.kind),
            Related(
                f"the run {origin.kind} the {origin.role} mesh here",
                Location(line, 1),
                where,
            ),
        )
    return tuple(found.values())


def _context_differs(confirmed: Confirmed) -> bool:
    """Whether the run's input and context meshes surely differ (it held both)."""
    given, context = confirmed.agreed("input"), confirmed.agreed("context")
    return given is not None and context is not None and given.differs_from(context)


def _context_error(confirmed: Confirmed) -> bool:
    """Whether the log's error is the context-mesh one (a foreign out_sharding), not the
    input's: its messages name a context mesh."""
    return bool(confirmed.evidence.meshes("context"))


def _logged(confirmed: Confirmed, x: ast.expr) -> Placed | None:
    filled = confirmed.fill("input", None, x)
    return Placed(filled, None) if filled is not None else None


def _context_on_way(
    contexts: list[Enclosing], way: CallerWay, ways: list[CallerWay]
) -> Mesh | None:
    """The context mesh on one of the callers' `ways`: the one known mesh of every site that
    may be on it (entered in the function itself, around one of the way's calls, or around a
    call further up than the ways go, which any of them may go through; the same mesh value
    at each, even sized by the host); None when there is none, one is not known, or they
    differ."""
    calls = {id(call) for _, call, _ in way.calls}
    others = {id(call) for one in ways for _, call, _ in one.calls} - calls
    meshes = [
        site.mesh
        for site in contexts
        if site.call is None or id(site.call) not in others
    ]
    first = meshes[0] if meshes else None
    if not isinstance(first, Mesh) or first.is_empty:
        return None
    if all(
        isinstance(m, Mesh) and (m is first or m.equals(first) is True) for m in meshes
    ):
        return first
    return None


def _tree_leaves(value: Value) -> tuple[list[Value], object] | None:
    """The leaves of a pytree of tuples, lists and dicts, in JAX's order (a dict's sorted by
    key), and its structure (equal for two trees JAX pairs leaf by leaf); None where a key is
    not a string."""
    if isinstance(value, (tuple, ListValue)):
        items = value if isinstance(value, tuple) else value.items
        found: list[Value] = []
        kinds: list[object] = []
        for item in items:
            tree = _tree_leaves(item)
            if tree is None:
                return None
            found += tree[0]
            kinds.append(tree[1])
        return found, (type(value).__name__, tuple(kinds))
    if isinstance(value, DictValue):
        if not all(isinstance(k, str) for k, _ in value.items):
            return None
        found = []
        keyed: list[tuple[str, object]] = []
        for key, item in sorted(value.items, key=lambda kv: str(kv[0])):
            tree = _tree_leaves(item)
            if tree is None:
                return None
            found += tree[0]
            keyed.append((str(key), tree[1]))
        return found, ("dict", tuple(keyed))
    return [value], "leaf"


def _leaves(xs: ast.expr, out: ast.expr) -> list[tuple[ast.expr, ast.expr]] | None:
    """(input leaf, its sharding) for a literal tuple, list or dict of inputs, one level deep,
    with one sharding for all or a container of the same kind; None when they do not match."""
    containers = (ast.Tuple, ast.List, ast.Dict)
    if not isinstance(xs, containers):
        return None if isinstance(out, containers) else [(xs, out)]
    inputs = _items(xs)
    if inputs is None:
        return None
    if not isinstance(out, containers):
        return [(value, out) for _, value in inputs]
    shardings = _items(out)
    if shardings is None or type(out) is not type(xs) or len(shardings) != len(inputs):
        return None
    by_key = dict(shardings)
    if set(by_key) != {key for key, _ in inputs}:
        return None
    return [(value, by_key[key]) for key, value in inputs]


def _items(node: ast.expr) -> list[tuple[object, ast.expr]] | None:
    """(index or string key, value) for a literal tuple, list or dict; None for anything else."""
    if isinstance(node, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        return list(enumerate(node.elts))
    if isinstance(node, ast.Dict):
        items: list[tuple[object, ast.expr]] = []
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            items.append((key.value, value))
        return items
    return None


def _written(text: str) -> Callable[[cst.CSTNode], cst.BaseExpression]:
    """The edit that writes `text` (an expression) over the node."""
    return lambda _: _expression(text)


def _named(placed: Placed) -> str:
    """'`mesh` (4, 2) ('x', 'y')', or the shape alone."""
    shape = placed.mesh.shape_text()
    return f"`{placed.name}` {shape}" if placed.name else shape


def _describe(placed: Placed) -> str:
    mesh = placed.mesh
    text = f"mesh {mesh.shape_text()}"
    if placed.name:
        text = f"`{placed.name}` {mesh.shape_text()}"
    return text if mesh.has_abstract_device else text + " without an abstract device"


def _device_difference(out: Mesh, context: Mesh) -> str:
    """Why two meshes of one shape still differ: one carries no device (a hand-built
    `AbstractMesh(...)`), the other does (a concrete mesh's `.abstract_mesh`)."""
    if (
        out.axis_names != context.axis_names
        or out.axis_sizes != context.axis_sizes
        or out.has_abstract_device == context.has_abstract_device
    ):
        return ""
    bare = "the out_sharding's" if not out.has_abstract_device else "the context"
    return (
        f" (the same shape, but {bare} mesh carries no device: an `AbstractMesh(...)` "
        "built by hand, not a concrete mesh's `.abstract_mesh`)"
    )


def _expression(text: str) -> cst.BaseExpression:
    """A fix's replacement, parsed when the fix is written (so a run with no fix imports no
    LibCST)."""
    import libcst as cst

    return cst.parse_expression(text)


def _mesh_given(call: ast.AST | None) -> ast.expr | None:
    """The mesh expression a `jax.set_mesh(E)` call is given, when it is its one argument."""
    if isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords:
        return call.args[0]
    return None


def _plain_reference(node: ast.expr) -> bool:
    """A name, or an attribute chain on one (`self.serving_mesh`), or an entry of one read by a
    literal key (`self._meshes["train"]`) or by a constant of a class or module
    (`self.role_to_mesh[Role.ROLLOUT]`, an enum's member): read again, the same object unless
    something assigns it (or, for an entry, the mapping) in between."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript) and not (
            (
                isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, (str, int))
            )
            or (
                isinstance(node.slice, ast.Attribute)
                and isinstance(node.slice.value, ast.Name)
            )
        ):
            return False
        node = node.value
    return isinstance(node, ast.Name)


def _mappings_read(node: ast.expr) -> list[ast.expr]:
    """The mappings a plain reference reads an entry of (`self._meshes` for
    `self._meshes["train"]`), outermost last."""
    read = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript):
            read.append(node.value)
        node = node.value
    return read


def _assigned_in(block: ast.With, text: str, analysis: Analysis) -> bool:
    """Whether the block assigns `text` (a name or attribute chain) anywhere in its body; for
    an entry of a mapping (`self._meshes["train"]`), also whether it assigns the mapping, an
    entry of it, or calls a method of it (`self._meshes.update(...)`)."""
    return _changes(block.body, text, analysis)


def _changes(statements: list[ast.stmt], text: str, analysis: Analysis) -> bool:
    """Whether `statements` assign `text` (a plain reference), or, for an entry of a mapping,
    the mapping, an entry of it, or call a method of it."""
    if _assigns(statements, text, analysis):
        return True
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return True
    for mapping in _mappings_read(node):
        name = ast.unparse(mapping)
        if _assigns(statements, name, analysis):
            return True
        for statement in statements:
            for inner in ast.walk(statement):
                if (
                    isinstance(inner, ast.Subscript)
                    and not isinstance(inner.ctx, ast.Load)
                    and ast.unparse(inner.value) == name
                ) or (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Attribute)
                    and ast.unparse(inner.func.value) == name
                ):
                    return True
    return False


def _assigns(statements: list[ast.stmt], text: str, analysis: Analysis) -> bool:
    """Whether any of `statements` assigns `text` (a name or attribute chain), at any depth."""
    for statement in statements:
        for node in ast.walk(statement):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
                targets = [node.target]
            if any(analysis.text(t) == text for t in targets):
                return True
    return False


def _size_elements(
    node: ast.List | ast.Tuple, names: tuple[str, ...]
) -> list[ast.Constant] | None:
    """The literal's sizes, one an axis in order: its elements, or the second of each
    (name, size) pair whose name is that axis's (`(("batch", 2), ("model", 4))`); None when
    it holds something else."""
    if len(node.elts) != len(names):
        return None
    found = []
    for element, name in zip(node.elts, names, strict=True):
        if (
            isinstance(element, (ast.Tuple, ast.List))
            and len(element.elts) == 2
            and isinstance(element.elts[0], ast.Constant)
            and element.elts[0].value == name
        ):
            element = element.elts[1]
        if not isinstance(element, ast.Constant) or type(element.value) is not int:
            return None
        found.append(element)
    return found


def _pair(node: ast.expr) -> tuple[str, ast.expr] | None:
    """`("batch", 2)`: the axis name and its size's node."""
    if (
        isinstance(node, (ast.Tuple, ast.List))
        and len(node.elts) == 2
        and isinstance(node.elts[0], ast.Constant)
        and isinstance(node.elts[0].value, str)
    ):
        return node.elts[0].value, node.elts[1]
    return None


def _entered_around_alone(module: Module, call: ast.AST) -> bool:
    """Whether `call` is in the one statement of a `with` block's body (what the block
    enters is in force there alone)."""
    node: ast.AST | None = call
    while node is not None:
        above = module.parents.get(node)
        if isinstance(above, (ast.With, ast.AsyncWith)):
            return len(above.body) == 1 and above.body[0] is node
        if isinstance(above, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        node = above
    return False


def _spelled(first: str, names: tuple[str, ...]) -> list[str]:
    """`names` as string literals, quoted as `first` (a literal of the code) is."""
    quote = '"' if first.startswith('"') else "'"
    return [quote + n + quote if quote not in n else repr(n) for n in names]


def _names_literal(node: ast.AST, spelled: list[str]) -> str:
    """`spelled` as a literal of `node`'s kind (a list or a tuple)."""
    return (
        f"[{', '.join(spelled)}]" if isinstance(node, ast.List) else tuple_text(spelled)
    )
