"""Recorded errors whose value is written in another place: the evidence gains a site there.

A JAX002 record names the frames that built its inner mesh (the recorder's provenance, placed
and checked by jaxfix/evidence/records.py). Before the rules run, the walk of
jaxfix/analysis/ast_engine/written_at.py follows them to where the sizes are written; that place
(in a file of the tree, which may be another than the one that raised) gets evidence of its own
(`Evidence.at_value`), so the rule reports there, with its fix, and the raising line's evidence
says where it went (`Evidence.value_site`), or why jaxfix cannot follow (`value_unknown`). A
`Fix` thus stays in one file. The rule still decides at both places (the static answer at the
raising line first); this only points it at the value.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.analysis.mesh_axes import differing_axes
from jaxfix.check.run import Run
from jaxfix.evidence.facts import DataEntry, Evidence, Facts, ValueSite

if TYPE_CHECKING:
    from jaxfix.analysis.ast_engine import Engine
    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.analysis.ast_engine.evaluate import Evaluator
    from jaxfix.analysis.ast_engine.project import Module
    from jaxfix.analysis.ast_engine.written_at import Written

_WALKED = ("JAX002", "new", "built")  # the rule, the role and the kind of origin walked
# JAX003's input error raised in a function (jitted or not) whose context mesh its caller sets:
# the walk goes to the argument the caller's call passes for the gather's input.
_CALLED = ("JAX003", "raised", "called")


def _unplaced(
    evidence: Mapping[Path, tuple[Evidence, ...]],
    keep: Callable[[Path, Evidence], object],
) -> list[tuple[Path, int, Evidence]]:
    """Each recorded error of `evidence` not yet placed at a value (`at_value`) that `keep`
    takes, with its path and its index under that path."""
    return [
        (path, index, item)
        for path, items in evidence.items()
        for index, item in enumerate(items)
        if not item.at_value and keep(path, item)
    ]


def with_value_sites(
    evidence: Mapping[Path, tuple[Evidence, ...]],
    run: Run,
    files: Collection[Path],
) -> dict[Path, tuple[Evidence, ...]]:
    """`evidence` (by resolved path), each walked error marked with where its value is written,
    and that place's evidence added under its file (only a file of `files`, the run's)."""
    found: dict[Path, list[Evidence]] = {
        p: list(items) for p, items in evidence.items()
    }
    cached = _unplaced(
        evidence,
        lambda path, item: (
            item.code == _WALKED[0]
            and any(o.kind == "cached" and o.role == _WALKED[1] for o in item.origins)
        ),
    )
    walked = _unplaced(
        evidence,
        lambda path, item: item.code == _WALKED[0] and _origin(item) is not None,
    )
    called = _unplaced(
        evidence,
        lambda path, item: item.code == _CALLED[0] and _caller(item) is not None,
    )
    contexts = _unplaced(
        evidence, lambda path, item: item.code == _CALLED[0] and _context_entries(item)
    )
    passed = _unplaced(
        evidence, lambda path, item: item.code == _CALLED[0] and _passed_paths(item)
    )
    wrong = _unplaced(
        evidence,
        lambda path, item: (
            item.code == _CALLED[0] and _passed_paths(item, wrong_context=True)
        ),
    )
    spread = _unplaced(evidence, lambda path, item: item.code == _SPREAD[0])
    blocks = _unplaced(
        evidence,
        lambda path, item: item.code == _BLOCK[0] and _outer_frames(item, path),
    )
    withs = _unplaced(
        evidence,
        lambda path, item: item.code == _BLOCK[0] and _entered_withs(item, path),
    )
    unpassed = _unplaced(
        evidence,
        lambda path, item: item.code == _UNPASSED[0] and _outer_frames(item, path),
    )
    given = _unplaced(evidence, lambda path, item: item.code == _GIVEN[0])
    made = _unplaced(evidence, lambda path, item: item.code == _MADE[0])
    # JAX002 walks its own inner mesh; another rule's error (JAX003's too, once its own
    # walks placed nothing: they run first) names the origin of each mesh its message
    # names, for its report, and hands a size the rule may set there to the rule
    named = _unplaced(
        evidence, lambda path, item: item.code != _WALKED[0] and _built_chains(item)
    )
    if not (
        walked
        or cached
        or called
        or contexts
        or passed
        or wrong
        or spread
        or blocks
        or withs
        or unpassed
        or given
        or made
        or named
    ):
        return dict(evidence)
    from jaxfix.analysis.ast_engine.values import Unknown
    from jaxfix.analysis.ast_engine.written_at import written_at

    if not run.scope and run.scope_root is not None:
        # `--evidence` (repair's run is scoped already): the walk counts callers and reads
        # over the project's files, as repair does, not over none
        from jaxfix.sources.discovery import project_files

        scope = project_files(
            run.scope_root, list(files), run.options.exclude, run.options.all_includes
        )
        run = replace(run, scope=tuple(scope))
    engine = run.engine(run.options.jax_version)
    ours = {p.resolve() for p in files}
    if cached:
        for path, index, item in cached:
            found[path][index] = _with_cached_paths(engine, item)
        walked = _unplaced(
            {p: tuple(items) for p, items in found.items()},
            lambda path, item: item.code == _WALKED[0] and _origin(item) is not None,
        )
    for path, index, item in walked:
        chains = _origins(item)
        if len(chains) > 1:
            _along_each(engine, path, index, item, chains, found, ours, run)
            continue
        written = written_at(
            engine.evaluator,
            chains[0][0],
            _differing_axis(item.facts),
            _differing_name(item.facts),
            _inner_sizes(item.facts),
            item.cwds,
            arguments=item.arguments,
            columns=_frame_columns(item, _WALKED[1], chains[0][0]),
        )
        if isinstance(written, Unknown):
            keyed = _config_key(engine, item, path, chains[0][0], run)
            if isinstance(keyed, ValueSite):
                found[path][index] = replace(item, value_site=keyed)
                continue
            origin = _origin_site(item, path, written, ours, item.facts)
            found[path][index] = replace(
                item,
                value_unknown=keyed or written.why,
                value_origin=origin,
                value_origins=(origin,) if origin is not None else (),
            )
            continue
        if written.data is not None:
            entry = _data_site(item, path, written, _tree(run))
            found[path][index] = (
                replace(item, value_site=entry)
                if isinstance(entry, ValueSite)
                else replace(item, value_unknown=entry)
            )
            continue
        where = written.module.path.resolve()
        if where not in ours:
            found[path][index] = replace(
                item,
                value_unknown=f"its sizes are written in {written.module.path.name}, outside the files given",
            )
            continue
        extent = _extent(written.module, written.node)
        site = ValueSite(
            (path, item.line),
            where,
            extent,
            written.name,
            written.keyword,
            written.why,
            axis=written.axis,
            override=written.override,
            total=written.total,
        )
        _move(found, path, index, item, site)
    for path, index, item in called:
        _at_caller(engine, path, index, item, found, ours)
    for path, index, item in contexts:
        _at_out_sharding(engine, path, index, item, found, ours)
    for path, index, item in passed:
        if found[path][index].value_site is None:
            _at_passed_mesh(engine, path, index, item, found, ours)
    for path, index, item in wrong:
        _at_entered_context(engine, path, index, item, found, ours)
    for path, index, item in spread:
        _at_mapping(engine, path, index, item, found, ours)
    for path, index, item in blocks:
        _in_block(engine, path, index, item, found, ours)
    for path, index, item in withs:
        if found[path][index].value_site is None:
            _at_entered_with(engine, path, index, item, found, ours)
    for path, index, item in unpassed:
        _at_unpassed(engine, path, index, item, found, ours)
    for path, index, item in given:
        _at_given(engine, path, index, item, found, ours)
    for path, index, item in made:
        _at_made_mesh(engine, path, index, item, found, ours)
    for path, index, item in named:
        _mesh_origins(engine, path, index, found, ours, _tree(run))
    return {p: tuple(items) for p, items in found.items()}


# JAX013's mesh, made by a `jax.make_mesh(...)` without axis_types in another module of the
# run (a factory such as `create_mesh(dims, names)`): that call gets the evidence.
_MADE = ("JAX013", "made")


def _at_made_mesh(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """The one mesh the shard_maps applied on the raising line are given (`mesh=`, also of a
    `def` a `@partial(jax.shard_map, mesh=...)` decorates), as the engine follows it there:
    when a `jax.make_mesh(...)` of another of the run's files made it, that
    call gets the evidence, with the number of axes the engine saw (the rule decides there)."""
    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.analysis.ast_engine.shard_map_keywords import applied_keywords
    from jaxfix.analysis.ast_engine.values import AxisType, Mesh, Unknown
    from jaxfix.analysis.names import Api

    module = engine.evaluator.module(path)
    if isinstance(module, Unknown):
        return
    analysis = Analysis(engine, module)
    meshes: dict[int, Mesh] = {}
    for call in module.calls:
        if not call.lineno <= item.line <= (call.end_lineno or call.lineno):
            continue
        args = applied_keywords(analysis, call)
        mesh = analysis.value_of(args["mesh"]) if args and "mesh" in args else None
        if isinstance(mesh, Mesh) and isinstance(mesh.origin, ast.Call):
            meshes[id(mesh.origin)] = mesh
    if len(meshes) != 1:
        _at_built_make_mesh(engine, path, index, item, found, ours)
        return
    (mesh,) = meshes.values()
    origin = mesh.origin
    assert isinstance(origin, ast.Call)  # selected so
    holder = engine.project.holding(origin)
    if (
        holder is None
        or holder.path.resolve() == path.resolve()
        or holder.path.resolve() not in ours
        or not mesh.axis_types
        or not all(t is AxisType.EXPLICIT for t in mesh.axis_types)
        or Analysis(engine, holder).called_api(origin) is not Api.MAKE_MESH
    ):
        return
    site = ValueSite(
        (path, item.line),
        holder.path.resolve(),
        _extent(holder, origin),
        ast.unparse(origin.func),
        why="the mesh the run raised on is made here",
        role=_MADE[1],
        axes=len(mesh.axis_types),
    )
    _move(found, path, index, item, site)


def _at_built_make_mesh(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """Where the code does not show the mesh JAX raised on (a layer's `self.mesh`, given by
    the model that a factory's mesh was passed to): the `jax.make_mesh(...)` call on the line
    where the run built it (`made`'s creation frames), when every record agrees on that
    line, the run saw the mesh's axes all Explicit, and the frames are a path the code
    shows (`_checked_chain`): that call gets the evidence, as the engine's own mesh would."""
    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.analysis.ast_engine.values import Mesh, Unknown
    from jaxfix.analysis.names import Api

    built = [o for o in item.origins if (o.role, o.kind) == (_MADE[1], "built")]
    places = {o.frames[-1] for o in built if o.frames}
    axes = {len(o.mesh.axis_names) for o in built if o.mesh is not None}
    if (
        len(places) != 1
        or len(axes) != 1
        or any(
            o.mesh is None
            or o.mesh.axis_types is None
            or set(o.mesh.axis_types) != {"Explicit"}
            for o in built
        )
    ):
        return
    ((where, line),) = places
    if where.resolve() not in ours:
        return
    module = engine.evaluator.module(where.resolve())
    if isinstance(module, Unknown):
        return
    analysis = Analysis(engine, module)
    calls = [
        call
        for call in module.calls
        if call.lineno == line and analysis.called_api(call) is Api.MAKE_MESH
    ]
    if len(calls) != 1 or not all(
        _checked_chain(engine, item, o.frames) for o in built
    ):
        return
    made = analysis.value_of(calls[0])
    recorded = {(o.mesh.axis_names, o.mesh.axis_sizes) for o in built if o.mesh}
    if isinstance(made, Mesh) and any(
        known is not None
        and None not in known
        and tuple(known) not in {r[i] for r in recorded}
        for i, known in enumerate((made.axis_names, made.axis_sizes))
    ):
        return  # the call's own names or sizes are not the run's mesh's
    site = ValueSite(
        (path, item.line),
        where.resolve(),
        _extent(module, calls[0]),
        ast.unparse(calls[0].func),
        why="the run built the mesh it raised on here",
        role=_MADE[1],
        axes=axes.pop(),
    )
    _move(found, path, index, item, site)


def _checked_chain(
    engine: Engine, item: Evidence, frames: tuple[tuple[Path, int], ...]
) -> bool:
    """Whether creation `frames` (outermost first) are a path the code shows: each frame's
    line calls the function (or the class whose `__init__`) holding the next frame's line,
    and the outermost runs in a function (or module body) the raising record's own frames
    pass through: the mesh was built on the path that raised."""
    from jaxfix.analysis.ast_engine.values import Unknown

    def scope_of(place: tuple[Path, int]) -> tuple[Path, int] | None:
        module = engine.evaluator.module(place[0].resolve())
        if isinstance(module, Unknown):
            return None
        function = _function_at(module.tree, place[1])
        return place[0].resolve(), function.lineno if function is not None else 0

    raised = [
        o.frames for o in item.origins if (o.role, o.kind) == ("raised", "called")
    ]
    on_path = {scope_of(place) for chain in raised for place in chain} - {None}
    if not frames or scope_of(frames[0]) not in on_path:
        return False
    for (path, line), inner in zip(frames, frames[1:]):
        module = engine.evaluator.module(path.resolve())
        target_module = engine.evaluator.module(inner[0].resolve())
        if isinstance(module, Unknown) or isinstance(target_module, Unknown):
            return False
        target = _function_at(target_module.tree, inner[1])
        if target is None or not any(
            _calls(engine, module, call, target)
            for call in module.calls
            if call.lineno <= line <= (call.end_lineno or call.lineno)
        ):
            return False
    return True


def _calls(
    engine: Engine, module: Module, call: ast.Call, target: ast.FunctionDef
) -> bool:
    """Whether `call` calls `target`: the function, or the class whose `__init__` it is (by
    name where the engine cannot tell what is called)."""
    from jaxfix.analysis.ast_engine.values import Class, Function, Unknown

    callee = engine.evaluator.value_of(module, call.func)
    if isinstance(callee, Function):
        return callee.node is target
    if isinstance(callee, Class):
        return target.name == "__init__" and any(m is target for m in callee.node.body)
    if isinstance(callee, Unknown):
        func = call.func
        named = (
            func.attr
            if isinstance(func, ast.Attribute)
            else func.id
            if isinstance(func, ast.Name)
            else None
        )
        return named == target.name
    return False


# JAX008's abstract mesh given to `jax.set_mesh`: where the run built it, a hand-built
# `AbstractMesh(...)` of the tree, gets evidence of its own (the rule may build it concrete).
_GIVEN = ("JAX008", "given", "built")


def _given_built(item: Evidence) -> tuple[Path, int] | None:
    """The one place every record of the site saw the given mesh built (the innermost of its
    creation frames); None when there is none or there are several."""
    places = {
        o.frames[-1]
        for o in item.origins
        if (o.role, o.kind) == _GIVEN[1:] and o.frames
    }
    return next(iter(places)) if len(places) == 1 else None


def _at_given(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """The one `AbstractMesh(...)` call (JAX's, however the code names it) on the line where
    the run built the mesh it gave `jax.set_mesh`, in the run's files: that call gets the
    evidence."""
    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.analysis.ast_engine.values import Unknown
    from jaxfix.analysis.names import Api

    place = _given_built(item)
    if place is None:
        _at_made_abstract(engine, path, index, item, found, ours)
        return
    where = place[0].resolve()
    if where not in ours:
        return
    module = engine.evaluator.module(where)
    if isinstance(module, Unknown):
        return
    analysis = Analysis(engine, module)
    calls = [
        call
        for call in ast.walk(module.tree)
        if isinstance(call, ast.Call)
        and call.lineno == place[1]
        and analysis.called_api(call) is Api.ABSTRACT_MESH
    ]
    if not calls:
        _at_context_read(engine, path, index, item, found, ours)
        if found[path][index] is item:
            _at_made_abstract(engine, path, index, item, found, ours)
    if len(calls) != 1:
        return
    site = ValueSite(
        (path, item.line),
        where,
        _extent(module, calls[0]),
        ast.unparse(calls[0].func),
        why="the run built the mesh it gave jax.set_mesh here",
        role=_GIVEN[1],
    )
    _move(found, path, index, item, site)


def _at_made_abstract(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """The abstract mesh given `jax.set_mesh` is that of a concrete mesh the run built in a
    factory: the caller's line that makes it abstract (`make(config).abstract_mesh`, the one
    `.abstract_mesh` read there, in the run's files; where the run noted no creation, the
    one assigned to a name the calling frame's line passes; where the caller's line reads
    none, the factory's own `return mesh.abstract_mesh` of the mesh it built) gets the
    evidence; the rule keeps the concrete mesh there when nothing else needs it abstract."""
    chains = {
        kind: {o.frames for o in item.origins if (o.role, o.kind) == (role, kind)}
        for role, kind in (_GIVEN[1:], ("raised", "called"))
    }
    kind = "built" if chains["built"] else "called"
    if len(chains[kind]) != 1:
        return
    (frames,) = chains[kind]
    if len(frames) < 2:
        return
    reads = _abstract_reads(engine, frames[-2], kind, ours)
    if not reads and kind == "built":
        # the factory itself returns it abstract (`mesh = jax.make_mesh(...)`, then
        # `return mesh.abstract_mesh`)
        reads = _abstract_reads(engine, frames[-1], "returned", ours)
    if len(reads) != 1:
        return
    where, module, read = reads[0]
    site = ValueSite(
        (path, item.line),
        where,
        _extent(module, read),
        ast.unparse(read),
        why="the run built the concrete mesh here, and this makes it abstract",
        role=_GIVEN[1],
    )
    _move(found, path, index, item, site)


def _abstract_reads(
    engine: Engine, frame: tuple[Path, int], kind: str, ours: set[Path]
) -> list[tuple[Path, Module, ast.Attribute]]:
    """The `.abstract_mesh` reads of the run's files that make abstract the concrete mesh
    `frame` leads to: on its line (`kind` "built": the caller's line of the creation), on
    the lines assigning the names its call passes ("called"), or returned by its function
    from its line's value or the name that line assigns alone ("returned": the creation's
    own line)."""
    from jaxfix.analysis.ast_engine.values import Unknown

    where = frame[0].resolve()
    module = engine.evaluator.module(where)
    if where not in ours or isinstance(module, Unknown):
        return []
    line = frame[1]
    if kind == "returned":
        returned = _returned_from(module, line)
        return [(where, module, r) for r in returned]
    lines = {line} if kind == "built" else _passed_from(module, line)
    return [
        (where, module, node)
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "abstract_mesh"
        and isinstance(node.ctx, ast.Load)
        and node.lineno in lines
    ]


def _returned_from(module: Module, line: int) -> list[ast.Attribute]:
    """The `return X.abstract_mesh` of the function holding `line`, X being the name `line`
    assigns there (once in the function)."""
    scopes = [
        f
        for f in ast.walk(module.tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        and f.lineno <= line <= (f.end_lineno or f.lineno)
    ]
    if not scopes:
        return []
    scope = max(scopes, key=lambda f: f.lineno)
    assigned = [
        (statement.lineno, target.id)
        for statement in ast.walk(scope)
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name)
    ]
    names = {name for at, name in assigned if at == line}
    once = {n for n in names if sum(1 for _, m in assigned if m == n) == 1}
    return [
        statement.value
        for statement in ast.walk(scope)
        if isinstance(statement, ast.Return)
        and isinstance(statement.value, ast.Attribute)
        and statement.value.attr == "abstract_mesh"
        and isinstance(statement.value.value, ast.Name)
        and statement.value.value.id in once
    ]


def _passed_from(module: Module, line: int) -> set[int]:
    """The lines of the function holding `line` that assign the names a call on `line`
    passes (each assigned once there)."""
    scopes = [
        f
        for f in ast.walk(module.tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        and f.lineno <= line <= (f.end_lineno or f.lineno)
    ]
    if not scopes:
        return set()
    scope = max(scopes, key=lambda f: f.lineno)
    passed = {
        argument.id
        for call in ast.walk(scope)
        if isinstance(call, ast.Call) and call.lineno == line
        for argument in [*call.args, *(k.value for k in call.keywords)]
        if isinstance(argument, ast.Name)
    }
    assigned: dict[str, list[int]] = {}
    for statement in ast.walk(scope):
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name) and target.id in passed:
                    assigned.setdefault(target.id, []).append(statement.lineno)
    return {lines[0] for lines in assigned.values() if len(lines) == 1}


def _at_context_read(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """The abstract mesh given `jax.set_mesh` is that of a concrete mesh the run built (no
    `AbstractMesh(...)` where it did), read from the context: in the `with` the run put it
    in force with that concrete mesh (as the block names it), the one call that reads the
    current mesh (`jax.sharding.get_abstract_mesh()`, or a function of the tree taking
    nothing that calls it) gets the evidence; the rule passes the concrete mesh there."""
    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.analysis.ast_engine.passed_meshes import entered_as_built

    chains = {
        kind: {o.frames for o in item.origins if (o.role, o.kind) == ("given", kind)}
        for kind in ("built", "entered")
    }
    if len(chains["built"]) != 1 or len(chains["entered"]) != 1:
        return
    (built,), (entered,) = chains["built"], chains["entered"]
    if Path(os.path.abspath(entered[-1][0])).resolve() not in ours:
        return
    named = entered_as_built(engine.evaluator, entered, built)
    if named is None:
        return
    module, block, given = named
    analysis = Analysis(engine, module)
    reads = [
        call
        for statement in block.body
        for call in ast.walk(statement)
        if isinstance(call, ast.Call) and _reads_current_mesh(engine, analysis, call)
    ]
    if len(reads) != 1:
        return
    site = ValueSite(
        (path, item.line),
        module.path.resolve(),
        _extent(module, reads[0]),
        ast.unparse(reads[0]),
        why=f"the run put the mesh in force with `{ast.unparse(given)}` at line "
        f"{given.lineno}, and this reads it back abstract",
        role=_GIVEN[1],
        onto=ast.unparse(given),
    )
    _move(found, path, index, item, site)


def _reads_current_mesh(engine: Engine, analysis: Analysis, call: ast.Call) -> bool:
    """`jax.sharding.get_abstract_mesh()`, or a call without arguments of a function of the
    tree that takes none and calls it (`utils.get_current_abstract_or_physical_mesh()`)."""
    from jaxfix.analysis.ast_engine.values import Function, Unknown
    from jaxfix.analysis.names import Api

    if call.args or call.keywords:
        return False
    if analysis.called_api(call) is Api.GET_ABSTRACT_MESH:
        return True
    callee = engine.evaluator.value_of(analysis.module, call.func)
    if not isinstance(callee, Function) or not isinstance(callee.node, ast.FunctionDef):
        return False
    arguments = callee.node.args
    if arguments.args or arguments.posonlyargs or arguments.kwonlyargs:
        return False
    target = engine.evaluator.module(callee.path)
    if isinstance(target, Unknown):
        return False
    inner = analysis.of(target)
    return any(
        isinstance(node, ast.Call) and inner.called_api(node) is Api.GET_ABSTRACT_MESH
        for node in ast.walk(callee.node)
    )


# JAX001's `.lower(lowering_platforms=platforms)` whose `platforms` is a parameter left at
# its `None` default by the call the run came through: that call gets the evidence.
_UNPASSED = ("JAX001", "lowering_platforms")


def _unpassed_parameter(
    module: Module, line: int
) -> tuple[ast.FunctionDef, str] | None:
    """The function holding the `.lower(...)` on `line` and its parameter that call passes
    as lowering_platforms, when that parameter defaults to `None`."""
    for call in module.calls:
        if call.lineno != line or not isinstance(call.func, ast.Attribute):
            continue
        passed = [k.value for k in call.keywords if k.arg == _UNPASSED[1]]
        scope = module.scope_of(call)
        if (
            call.func.attr != "lower"
            or len(passed) != 1
            or not isinstance(passed[0], ast.Name)
            or not isinstance(scope, ast.FunctionDef)
        ):
            continue
        arguments = scope.args
        named = [*arguments.posonlyargs, *arguments.args]
        defaults = dict(
            zip(
                [a.arg for a in named[len(named) - len(arguments.defaults) :]],
                arguments.defaults,
            )
        )
        defaults.update(
            (a.arg, d)
            for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)
            if d is not None
        )
        default = defaults.get(passed[0].id)
        if isinstance(default, ast.Constant) and default.value is None:
            return scope, passed[0].id
    return None


def _passes(call: ast.Call, function: ast.FunctionDef, parameter: str) -> bool:
    """Whether `call` of `function` may pass `parameter` (by keyword, by position, or by
    `*`/`**` unpacking); a method called on its object passes `self` implicitly."""
    if any(k.arg in (parameter, None) for k in call.keywords) or any(
        isinstance(a, ast.Starred) for a in call.args
    ):
        return True
    named = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if parameter not in named:
        return False  # keyword-only
    bound = (
        1
        if isinstance(call.func, ast.Attribute) and named[:1] in (["self"], ["cls"])
        else 0
    )
    return len(call.args) + bound > named.index(parameter)


def _at_unpassed(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """The call the run made of the function whose `.lower()` raised, one frame out, when it
    leaves the parameter the lowering's platforms come from at `None`: that call gets the
    evidence (JAX001 passes the platforms there)."""
    from jaxfix.analysis.ast_engine.values import Unknown

    module = engine.evaluator.module(path)
    if isinstance(module, Unknown):
        return
    unpassed = _unpassed_parameter(module, item.line)
    if unpassed is None:
        return
    function, parameter = unpassed
    where, line = _outer_frames(item, path)[0]
    caller = engine.evaluator.module(where)
    if where not in ours or isinstance(caller, Unknown):
        return
    calls = [
        c
        for c in caller.calls
        if c.lineno <= line <= (c.end_lineno or c.lineno)
        and (
            (isinstance(c.func, ast.Attribute) and c.func.attr == function.name)
            or (isinstance(c.func, ast.Name) and c.func.id == function.name)
        )
        and not _passes(c, function, parameter)
    ]
    if len(calls) != 1:
        return
    extent = _extent(caller, calls[0])
    site = ValueSite(
        (path, item.line),
        where,
        extent,
        ast.unparse(calls[0].func),
        keyword=parameter,
        why=f"`{function.name}` lowers with its parameter `{parameter}`, `None` unless given",
    )
    _move(found, path, index, item, site)


def _built_chains(item: Evidence) -> list[tuple[str, tuple[tuple[Path, int], ...]]]:
    """The distinct (role, frames) along which the run built a mesh the message names (the
    records agreeing on the meshes), at most _MAX_CHAINS."""
    facts = item.agreed
    if facts is None:
        return []
    chains = list(
        dict.fromkeys(
            (o.role, o.frames)
            for o in item.origins
            if o.kind == "built" and o.role in facts and o.frames
        )
    )
    return chains if len(chains) <= _MAX_CHAINS else []


def _one_axis(facts: Facts, role: str) -> int | None:
    """The axis of the `role` mesh whose size is wrong, when one is: its only axis, or the
    one axis whose size differs from the other mesh's of the same name; with no other mesh,
    its one axis larger than 1 (the others do not make its size)."""
    mesh = facts[role]
    larger = [i for i, size in enumerate(mesh.axis_sizes) if size != 1]
    if len(mesh.axis_sizes) == 1:
        return 0
    others = [m for r, m in facts.meshes if r != role]
    if not others and len(larger) == 1:
        return larger[0]
    if len(others) != 1:
        return None
    differing = differing_axes(
        mesh.axis_names, mesh.axis_sizes, others[0].axis_names, others[0].axis_sizes
    )
    return differing[0] if len(differing) == 1 else None


def _mesh_origins(
    engine: Engine,
    path: Path,
    index: int,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
    roots: list[Path],
) -> None:
    """Each mesh the message names, walked from where the run built it to where its sizes
    are computed from the host (or written, in the run's files): the report names that place
    (`Evidence.mesh_origins`); nothing is fixed there."""
    from jaxfix.analysis.ast_engine.values import Unknown
    from jaxfix.analysis.ast_engine.written_at import written_at

    item = found[path][index]
    if item.value_site is not None or item.value_origins or item.value_unknown:
        return
    origins: list[ValueSite] = []
    facts = item.agreed
    assert facts is not None  # _built_chains found chains
    for role, frames in _built_chains(item):
        mesh = facts[role]
        named = _named_differently(engine, item, path, role, frames, ours)
        if named is not None:
            origins.append(named)
            _move(found, path, index, item, named)  # the rule may rename them there
            continue
        axis = _one_axis(facts, role)
        written = written_at(
            engine.evaluator,
            frames,
            axis,
            mesh.axis_names[axis] if axis is not None else None,
            mesh.axis_sizes,
            item.cwds,
            arguments=item.arguments,
            columns=_frame_columns(item, role, frames),
        )
        if isinstance(written, Unknown):
            site = _origin_site(item, path, written, ours) or _unfollowed_site(
                item, path, written, ours, (roots, facts, role)
            )
            if site is not None:
                origins.append(replace(site, role=role))
            continue
        if written.data is not None:  # named with its entry, never changed from here
            entry = _data_site(item, path, written, roots, role)
            if isinstance(entry, ValueSite):
                keys = "".join(f"[{json.dumps(k)}]" for k in written.data.keys)
                origins.append(
                    replace(
                        entry,
                        name=f"{written.data.name}{keys}",
                        role=role,
                        why="read from that file when it runs",
                    )
                )
            continue
        where = written.module.path.resolve()
        if where not in ours:
            continue
        extent = _extent(written.module, written.node)
        site = ValueSite(
            (path, item.line),
            where,
            extent,
            _written_text(written),
            why=written.why or "written in the code",
            role=role,
            axis=_sized_axis(item, role, written, axis),
        )
        origins.append(site)
        if site.axis is not None or _whole(item, role, written, frames):
            _move(found, path, index, item, site)  # the rule may resize it there
    if origins:
        found[path][index] = replace(found[path][index], mesh_origins=tuple(origins))


# JAX003's context-mesh error: the out_sharding's mesh, its sizes written whole as a literal,
# may take the context mesh's there (the rule decides).
_MATCHED = ("JAX003", "out", "context")


def _whole(
    item: Evidence,
    role: str,
    written: Written,
    frames: tuple[tuple[Path, int], ...],
) -> bool:
    """Whether the walk ended at a literal holding all the sizes of a mesh whose rule sets
    them from another mesh the message names (`_MATCHED`), outside the function that built
    the mesh (whose every call, or read of a property, gets that literal: a mesh that works
    may be built there too)."""
    from jaxfix.analysis.ast_engine.written_at import in_builder

    facts = item.agreed
    return not in_builder(written, frames) and (
        (item.code, role) == _MATCHED[:2]
        and facts is not None
        and facts.get(_MATCHED[2]) is not None
        and isinstance(written.node, (ast.List, ast.Tuple))
        and written.axis is None
        and written.keyword is None
        and written.override is None
        and not written.total
    )


def _named_differently(
    engine: Engine,
    item: Evidence,
    path: Path,
    role: str,
    frames: tuple[tuple[Path, int], ...],
    ours: set[Path],
) -> ValueSite | None:
    """Of an error whose rule sets the `role` mesh from another the message names
    (`_MATCHED`), where the two have the same sizes and axis types but other axis names: the
    literal of the run's files the walk from where the run built it reaches for its names,
    outside the function that built the mesh (which other meshes may be built by)."""
    from jaxfix.analysis.ast_engine.values import Unknown
    from jaxfix.analysis.ast_engine.written_at import in_builder, written_at

    facts = item.agreed
    other = facts.get(_MATCHED[2]) if facts is not None else None
    if (item.code, role) != _MATCHED[:2] or facts is None or other is None:
        return None
    mesh = facts[role]
    if (
        mesh.axis_sizes != other.axis_sizes
        or mesh.axis_types != other.axis_types
        or mesh.axis_names == other.axis_names
        or mesh.axis_names is None
        or other.axis_names is None
    ):
        return None
    written = written_at(
        engine.evaluator,
        frames,
        sizes=mesh.axis_sizes,
        cwds=item.cwds,
        names=True,
        arguments=item.arguments,
        columns=_frame_columns(item, role, frames),
    )
    if (
        isinstance(written, Unknown)
        or written.data is not None
        or written.keyword is not None
        or written.override is not None
        or not isinstance(written.node, (ast.Tuple, ast.List))
        or written.module.path.resolve() not in ours
        or in_builder(written, frames)
    ):
        return None
    return ValueSite(
        (path, item.line),
        written.module.path.resolve(),
        _extent(written.module, written.node),
        _written_text(written),
        why=written.why,
        role=role,
        names=True,
    )


# JAX010's abstract mesh lowered beside a device assignment of another size (its message
# states the assignment's size): the walk reaching one of its axis sizes hands that to the rule.
_SIZED = ("JAX010", "abstract", "devices")


def _sized_axis(
    item: Evidence, role: str, written: Written, axis: int | None
) -> int | None:
    """The axis of the `role` mesh whose size alone is written where the walk ended, when
    the error's rule sets it from a number the message states (`_SIZED`), along one chain;
    else None."""
    facts = item.agreed
    if (
        (item.code, role) != _SIZED[:2]
        or facts is None
        or facts.count(_SIZED[2]) is None
        or len(_built_chains(item)) != 1
        or written.keyword is not None
        or written.override is not None
        or written.total
    ):
        return None
    if written.axis is not None:
        return written.axis
    return axis if len(facts[role].axis_sizes) == 1 else None


def _written_text(written: Written) -> str:
    """What is written at the walk's end, as a reader sees it there: `width=4` for a
    keyword's value, the expression's text otherwise (cut to a line)."""
    from jaxfix.analysis.ast_engine.positions import span
    from jaxfix.ground.quoting import cut
    from jaxfix.sources.text import source_text, split_lines

    lines = split_lines(source_text(written.module.source))
    where = span(lines, written.node)
    text = (
        lines[where.start[0] - 1][where.start[1] : where.end[1]]
        if where.start[0] == where.end[0]
        else written.name
    )
    parent = written.module.parents.get(written.node)
    if isinstance(parent, ast.keyword) and parent.arg is not None:
        text = f"{parent.arg}={text}"
    return cut(text, 60)


# JAX005's keyword raised from a `**mapping` whose dict is written in another module: the key
# gets evidence of its own there.
_SPREAD = ("JAX005", "check_rep")


def _at_mapping(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """A call on the raising line passing `**NAME`, where `NAME` is a dict written at the top
    of another module of the run with the refused key: that key gets the evidence, the
    raising line says where it went."""
    from jaxfix.analysis.ast_engine.assignments import written_elsewhere
    from jaxfix.analysis.ast_engine.values import Unknown

    evaluator = engine.evaluator
    module = evaluator.module(path)
    if isinstance(module, Unknown):
        return
    names = [
        k.value
        for call in module.calls
        if call.lineno <= item.line <= (call.end_lineno or call.lineno)
        for k in call.keywords
        if k.arg is None and isinstance(k.value, (ast.Name, ast.Attribute))
    ]
    for name in names:
        written = written_elsewhere(evaluator, module, name)
        if written is None or written[0].path.resolve() == path:
            continue
        target, table = written
        keys: list[ast.AST] = [
            k
            for k in (table.keys if isinstance(table, ast.Dict) else ())
            if isinstance(k, ast.Constant) and k.value == _SPREAD[1]
        ]
        if _dict_call(evaluator, target, table):  # `dict(check_rep=False)`: its keyword
            keys = [k for k in table.keywords if k.arg == _SPREAD[1]]
        where = target.path.resolve()
        if len(keys) != 1 or where not in ours:
            continue
        extent = _extent(target, keys[0])
        site = ValueSite(
            (path, item.line),
            where,
            extent,
            ast.unparse(name),
            why=f"`**{ast.unparse(name)}` passes its keys as keywords",
        )
        _move(found, path, index, item, site)
        return


def _dict_call(evaluator: Evaluator, module: Module, table: ast.expr) -> bool:
    """Whether `table` is a call of the builtin `dict` with keywords alone."""
    return (
        isinstance(table, ast.Call)
        and not table.args
        and getattr(evaluator.value_of(module, table.func), "name", None)
        == "builtins.dict"
    )


# JAX014's jit raised in a module whose caller, in another module, runs it in a `with mesh:`
# block: the block's call gets evidence of its own, where the rule reports the block.
_BLOCK = ("JAX014",)


def _outer_frames(item: Evidence, path: Path) -> list[tuple[Path, int]]:
    """The frames the run went through on its way to the raising line that are in other files
    (the recorder's `raised` `called` origins), innermost first, each once."""
    frames = [
        (where.resolve(), line)
        for o in item.origins
        if (o.role, o.kind) == _CALLED[1:]
        for where, line in reversed(o.frames[:-1])
    ]
    return [f for f in dict.fromkeys(frames) if f[0] != path]


def _in_block(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """Each call the run went through in another module that is inside a `with` block gets
    the evidence (JAX014 asks for it through the block's lines); the raising line says where
    the first went."""
    from jaxfix.analysis.ast_engine.values import Unknown

    sites = []
    for where, line in _outer_frames(item, path):
        module = engine.evaluator.module(where)
        if where not in ours or isinstance(module, Unknown):
            continue
        block = min(
            (
                w
                for w in module.withs
                if isinstance(w, ast.With)
                and w.body[0].lineno <= line <= (w.end_lineno or w.lineno)
            ),
            key=lambda w: (w.end_lineno or w.lineno) - w.lineno,
            default=None,
        )
        if block is None:
            continue
        extent = _extent(module, block.items[0].context_expr)
        site = ValueSite(
            (path, item.line),
            where,
            extent,
            ast.unparse(block.items[0].context_expr),
            why="the run called the raising code from this block",
        )
        sites.append(site)
        found.setdefault(where, []).append(
            replace(
                item,
                line=line,
                columns=None,
                origins=(),
                callers=(),
                value_site=site,
                at_value=True,
            )
        )
    if sites:
        found[path][index] = replace(item, value_site=sites[0])


def _entered_withs(item: Evidence, path: Path) -> list[tuple[Path, int]]:
    """The `with` statements in other files the run was inside when it raised, not on its
    way there (a fixture's `with mesh:`, whose generator waits in no traceback)."""
    on_the_way = set(_outer_frames(item, path))
    return [
        place
        for place in dict.fromkeys(
            (where.resolve(), line)
            for o in item.origins
            if (o.role, o.kind) == ("with", "entered")
            for where, line in o.frames[-1:]
        )
        if place[0] != path and place not in on_the_way
    ]


def _at_entered_with(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """Each `with` the run was inside, in another module, that no frame of the traceback
    shows (JAX014 raised in a test under a fixture's `with mesh:`) gets the evidence on its
    line; the rule owns the block then."""
    from jaxfix.analysis.ast_engine.values import Unknown

    sites = []
    for where, line in _entered_withs(item, path):
        module = engine.evaluator.module(where)
        if where not in ours or isinstance(module, Unknown):
            continue
        blocks = [
            w
            for w in module.withs
            if isinstance(w, ast.With)
            and any(
                i.context_expr.lineno <= line <= (i.context_expr.end_lineno or line)
                for i in w.items
            )
        ]
        if len(blocks) != 1:
            continue
        site = ValueSite(
            (path, item.line),
            where,
            _extent(module, blocks[0].items[0].context_expr),
            ast.unparse(blocks[0].items[0].context_expr),
            why="the run raised inside this block",
        )
        sites.append(site)
        found.setdefault(where, []).append(
            replace(
                item,
                line=line,
                columns=None,
                origins=(),
                callers=(line,),
                value_site=site,
                at_value=True,
            )
        )
    if sites:
        found[path][index] = replace(item, value_site=sites[0])


def _context_entries(item: Evidence) -> list[tuple[Path, int, int, Facts]]:
    """For a recorded JAX003 context-mesh error: each frame that built the out_sharding's mesh
    in a file where the run entered the context mesh (the out_sharding was made there and
    passed down to the gather), with that entry's line and the record's meshes. The rule
    keeps those in one function."""
    found: dict[tuple[Path, int, int], Facts] = {}
    for out in item.origins:
        facts = out.facts if out.facts is not None else item.agreed
        if (
            (out.role, out.kind) != ("out", "built")
            or facts is None
            or facts.get("out") is None
            or facts.get("context") is None
            or _input_elsewhere(facts)
        ):
            continue
        for entered in item.origins:
            if (
                (entered.role, entered.kind) != ("context", "entered")
                or (entered.facts if entered.facts is not None else item.agreed)
                != facts
                or not entered.frames
            ):
                continue
            where, line = entered.frames[-1]
            where = Path(os.path.abspath(where))
            for path, built in out.frames:
                if Path(os.path.abspath(path)) == where:
                    found.setdefault((where, built, line), facts)
    return [(*place, facts) for place, facts in found.items()]


def _input_elsewhere(facts: Facts) -> bool:
    """Whether a context-mesh error's input is on another mesh than the context (the run
    held it): the out_sharding must not move onto the context then."""
    given, context = facts.get("input"), facts.get("context")
    return given is not None and context is not None and given.differs_from(context)


def _wrong_context(item: Evidence) -> bool:
    """Whether a recorded context-mesh error's input and out_sharding are on one mesh, the
    context on another (every record agreeing): the context is the one to change."""
    facts = item.agreed
    if facts is None:
        return False
    given, out = facts.get("input"), facts.get("out")
    return (
        given is not None
        and out is not None
        and not given.differs_from(out)
        and _input_elsewhere(facts)
    )


def _at_entered_context(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """A context-mesh error whose input and out_sharding agree: the mesh the `with` the run
    entered the context in gives (`jax.set_mesh(E)`) gets evidence of its own, with the
    out_sharding's mesh as that block reads it (jaxfix/analysis/ast_engine/passed_meshes.py);
    the rule enters that one there."""
    from jaxfix.analysis.ast_engine.passed_meshes import mesh_read_in_block
    from jaxfix.analysis.ast_engine.values import Unknown

    placed: dict[tuple[Path, tuple[int, int, int, int]], ValueSite | None] = {}
    for raised, built, entered, _ in _passed_paths(item, wrong_context=True):
        where = Path(os.path.abspath(entered[-1][0])).resolve() if entered else None
        module = engine.evaluator.module(where) if where in ours else None
        if where is None or module is None or isinstance(module, Unknown):
            continue
        read = mesh_read_in_block(engine.evaluator, raised, entered, built)
        setter = _setter_on(module, entered[-1][1])
        if read is None or setter is None:
            continue
        onto, given = ast.unparse(read), setter.args[0]
        if onto == ast.unparse(given):
            continue
        extent = _extent(module, given)
        known = placed.get((where, extent), False)
        placed[(where, extent)] = (
            ValueSite(
                (path, item.line),
                where,
                extent,
                ast.unparse(given),
                why="the run entered the context mesh here; the input and the "
                f"out_sharding are on `{onto}` (line {read.lineno})",
                onto=onto,
            )
            if known is False or (known is not None and known.onto == onto)
            else None  # two paths through this `with` name two meshes
        )
    sites = [site for site in placed.values() if site is not None]
    for site in sites:
        found.setdefault(site.path, []).append(
            _at_value(item, site.span, site, keep_origins=True)
        )
    if sites:
        found[path][index] = replace(item, value_site=sites[0])


def _setter_on(module: Module, line: int) -> ast.Call | None:
    """The one `with` item on `line` that calls something with one positional argument
    (`jax.set_mesh(E)`; the rule checks what it calls)."""
    calls = [
        item.context_expr
        for block in module.withs
        if isinstance(block, ast.With)
        for item in block.items
        if isinstance(item.context_expr, ast.Call)
        and item.context_expr.lineno
        <= line
        <= (item.context_expr.end_lineno or item.context_expr.lineno)
        and len(item.context_expr.args) == 1
        and not item.context_expr.keywords
    ]
    return calls[0] if len(calls) == 1 else None


def _at_out_sharding(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """A context-mesh error whose out_sharding was made by the function entering the context
    (then passed to a helper that gathers): the mesh expression of that `NamedSharding(m,
    spec)` (JAX's, however the code names it) gets evidence of its own; the rule puts it on
    the entered mesh there."""
    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.analysis.ast_engine.values import Unknown
    from jaxfix.analysis.names import Api

    placed = []
    for where, built, entered, facts in _context_entries(item):
        where = where.resolve()
        if where not in ours:
            continue
        module = engine.evaluator.module(where)
        if isinstance(module, Unknown):
            continue
        analysis = Analysis(engine, module)
        meshes = [
            call.args[0]
            for call in ast.walk(module.tree)
            if isinstance(call, ast.Call)
            and call.args
            and isinstance(call.args[0], ast.Call)
            and call.args[0].lineno == built
            and analysis.called_api(call) is Api.NAMED_SHARDING
        ]
        if len(meshes) != 1:
            continue
        extent = _extent(module, meshes[0])
        site = ValueSite(
            (path, item.line),
            where,
            extent,
            ast.unparse(meshes[0]),
            why="the out_sharding the gather raised on is made here, in the function that "
            f"enters the context mesh (line {entered})",
        )
        placed.append(site)
        found.setdefault(where, []).append(
            _at_value(replace(item, facts=(facts,)), extent, site, keep_origins=True)
        )
    if placed:
        found[path][index] = replace(item, value_site=placed[0])


_Paths = tuple[tuple[tuple[Path, int], ...], ...]


def _passed_paths(item: Evidence, *, wrong_context: bool = False) -> list[_Paths]:
    """For a recorded JAX003 context-mesh error whose out_sharding may move onto the context
    (with `wrong_context`: whose context is the one to change): each combination of the
    distinct raised, out built, context entered and context built frames of its records
    (which go together is for the walk to tell: their frames must agree), at most
    _MAX_CHAINS of each (more: none)."""
    facts = item.agreed
    if (
        facts is None
        or facts.get("out") is None
        or facts.get("context") is None
        or _input_elsewhere(facts) != wrong_context
        or (wrong_context and not _wrong_context(item))
    ):
        return []

    def frames(role: str, kind: str) -> list[tuple[tuple[Path, int], ...]]:
        return list(
            dict.fromkeys(
                o.frames for o in item.origins if (o.role, o.kind) == (role, kind)
            )
        )

    kinds = [
        frames(*_CALLED[1:]),
        frames("out", "built"),
        frames("context", "entered"),
        frames("context", "built") or [()],
    ]
    if any(len(kind) > _MAX_CHAINS for kind in kinds):
        return []
    return [
        (raised, built, entered, context)
        for raised in kinds[0]
        for built in kinds[1]
        for entered in kinds[2]
        for context in kinds[3]
    ]


def _at_passed_mesh(
    engine: Engine,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """A context-mesh error whose out_sharding's mesh the function entering the context
    passed down to the gather's helpers (jaxfix/analysis/ast_engine/passed_meshes.py): that
    argument gets evidence of its own; the rule puts the entered mesh there."""
    from jaxfix.analysis.ast_engine.passed_meshes import (
        context_named,
        out_mesh_passed_by,
    )
    from jaxfix.analysis.ast_engine.values import Unknown

    placed: dict[tuple[Path, tuple[int, int, int, int]], ValueSite] = {}
    for raised, built, entered, context in _passed_paths(item):
        passed = out_mesh_passed_by(engine.evaluator, raised, built, entered)
        if isinstance(passed, Unknown):
            continue
        where = passed.module.path.resolve()
        if where not in ours:
            continue
        extent = _extent(passed.module, passed.node)
        known = placed.get((where, extent))
        if known is not None and known.entered is not None:
            continue
        named = context_named(engine.evaluator, raised, entered, context)
        if known is not None and named is None:
            continue
        placed[(where, extent)] = ValueSite(
            (path, item.line),
            where,
            extent,
            ast.unparse(passed.node),
            why=f"`{passed.function}` makes the out_sharding on its parameter "
            f"`{passed.parameter}`, which this call passes",
            passed_as=passed.parameter,
            entered=ast.unparse(named) if named is not None else None,
        )
    for site in placed.values():
        found.setdefault(site.path, []).append(
            _at_value(item, site.span, site, keep_origins=True)
        )
    if placed:
        found[path][index] = replace(item, value_site=next(iter(placed.values())))


def _caller(item: Evidence) -> list[tuple[tuple[Path, int], ...]] | None:
    """The caller's and the gather's frames of a recorded JAX003 input error, one pair per
    caller the run went through, when every record agrees on the input and out_sharding
    meshes; else None."""
    frames = [o.frames for o in item.origins if (o.role, o.kind) == _CALLED[1:]]
    if (
        not frames
        or item.agreed is None
        or item.agreed.get("input") is None
        or item.agreed.get("out") is None
        or item.meshes("context")
    ):
        return None
    return frames


def _at_caller(
    engine: object,
    path: Path,
    index: int,
    item: Evidence,
    found: dict[Path, list[Evidence]],
    ours: set[Path],
) -> None:
    """A gather whose context mesh its caller sets: the caller's argument for its input gets
    evidence of its own (the rule moves it there), the raising line says where it went."""
    from jaxfix.analysis.ast_engine.passed_meshes import context_named
    from jaxfix.analysis.ast_engine.values import Unknown
    from jaxfix.analysis.ast_engine.written_at import gather_input_passed_by

    callers = _caller(item)
    assert callers is not None
    placed: list[ValueSite] = []
    why = None
    # the run noted where the out_sharding's mesh was put in force: it is the context mesh
    out_entered = any((o.role, o.kind) == ("out", "entered") for o in item.origins)
    entries = list(
        dict.fromkeys(
            o.frames for o in item.origins if (o.role, o.kind) == ("out", "entered")
        )
    )[:_MAX_CHAINS]
    builds = list(
        dict.fromkeys(
            o.frames for o in item.origins if (o.role, o.kind) == ("out", "built")
        )
    )[:_MAX_CHAINS]
    for frames in callers:
        passed = gather_input_passed_by(
            engine.evaluator,  # type: ignore[attr-defined]
            frames,
            out_entered,
        )
        if isinstance(passed, Unknown):
            why = why or passed.why
            continue
        where = passed.module.path.resolve()
        if where not in ours:
            continue
        extent = _extent(passed.module, passed.node)
        named = next(
            (
                found_name
                for entered in entries
                for built in builds
                if (
                    found_name := context_named(
                        engine.evaluator,  # type: ignore[attr-defined]
                        frames,
                        entered,
                        built,
                    )
                )
                is not None
            ),
            None,
        )
        site = ValueSite(
            (path, item.line),
            where,
            extent,
            ast.unparse(passed.node),
            why=f"`{passed.function}` gathers its parameter `{passed.parameter}` under the "
            "context mesh this call runs in",
            tree=passed.tree,
            entered=ast.unparse(named) if named is not None else None,
        )
        placed.append(site)
        found.setdefault(where, []).append(
            _at_value(item, extent, site, keep_origins=True)
        )
    if placed:
        found[path][index] = replace(item, value_site=placed[0])
    elif why is not None:
        found[path][index] = replace(item, value_unknown=why)


def _config_key(
    engine: Engine,
    item: Evidence,
    path: Path,
    frames: tuple[tuple[Path, int], ...],
    run: Run,
) -> ValueSite | str | None:
    """Where the walk stopped before the value: the YAML entry the differing axis's size is
    read from by config key, on the line the run built the inner mesh
    (jaxfix/check/config_keys.py)."""
    from jaxfix.analysis.ast_engine.values import Unknown
    from jaxfix.check.config_keys import config_key_site

    axis, name, sizes = (
        _differing_axis(item.facts),
        _differing_name(item.facts),
        _inner_sizes(item.facts),
    )
    if axis is None or name is None or sizes is None or not frames:
        return None
    where, line = frames[-1]
    module = engine.evaluator.module(where.resolve())
    if isinstance(module, Unknown):
        return None
    return config_key_site(
        item, path, module, line, axis, name, sizes[axis], _tree(run)
    )


def _differing_axis(facts: tuple[Facts, ...]) -> int | None:
    """The inner mesh's axis whose size differs from the enclosing mesh's axis of that name
    (or the one axis the enclosing mesh has no name for: jaxfix/analysis/mesh_axes.py), when
    every record (of `facts`) agrees on both meshes and one axis does; else None (its sizes
    are then followed only as one literal holding them all)."""
    new = [m for f in facts if (m := f.get("new")) is not None]
    prev = [m for f in facts if (m := f.get("prev")) is not None]
    if (
        not new
        or not prev
        or len({(m.axis_names, m.axis_sizes) for m in new}) != 1
        or len({(m.axis_names, m.axis_sizes) for m in prev}) != 1
    ):
        return None
    inner, outer = new[0], prev[0]
    differing = differing_axes(
        inner.axis_names, inner.axis_sizes, outer.axis_names, outer.axis_sizes
    )
    return differing[0] if len(differing) == 1 else None


def _inner_sizes(facts: tuple[Facts, ...]) -> tuple[int, ...] | None:
    """The inner mesh's sizes, when every record (of `facts`) agrees on them."""
    new = {m.axis_sizes for f in facts if (m := f.get("new")) is not None}
    return next(iter(new)) if len(new) == 1 and all(new) else None


def _differing_name(facts: tuple[Facts, ...]) -> str | None:
    """The name of `_differing_axis`'s axis, when the inner mesh's names are known."""
    axis = _differing_axis(facts)
    new = [m for f in facts if (m := f.get("new")) is not None]
    if axis is None or not new or not new[0].axis_names:
        return None
    names = new[0].axis_names
    return names[axis] if 0 <= axis < len(names) else None


def _with_cached_paths(engine: Engine, item: Evidence) -> Evidence:
    """`item`, each inner mesh that another test's body built (`cached`: a memoized factory
    handed it on) given the path its own test took to it: the one call, in a function the
    record's frames to the raising line went through (innermost first), of a function the
    cached chain went through (innermost first), followed by that chain from there. The walk
    checks each step of the path as it checks the run's."""
    from jaxfix.evidence.facts import Origin

    added = []
    for origin in item.origins:
        if origin.kind != "cached" or origin.role != _WALKED[1] or not origin.reached:
            continue
        path = _path_through_call(engine, origin.reached, origin.frames)
        if path is not None:
            added.append(Origin(origin.role, _WALKED[2], path, origin.facts))
    return replace(item, origins=item.origins + tuple(added)) if added else item


def _path_through_call(
    engine: Engine,
    reached: tuple[tuple[Path, int], ...],
    cached: tuple[tuple[Path, int], ...],
) -> tuple[tuple[Path, int], ...] | None:
    """`reached` up to a frame whose function calls, on one line of its own, a function of
    `cached` (the frame there), then `cached` from that function on; None when none does."""
    from jaxfix.analysis.ast_engine.values import Function, Unknown

    for at in range(len(reached) - 1, -1, -1):
        path, line = reached[at]
        module = engine.evaluator.module(path.resolve())
        if isinstance(module, Unknown):
            continue
        caller = _function_at(module.tree, line)
        if caller is None:
            continue
        for into in range(len(cached) - 1, -1, -1):
            target = engine.evaluator.module(cached[into][0].resolve())
            if isinstance(target, Unknown):
                continue
            function = _function_at(target.tree, cached[into][1])
            if function is None:
                continue
            calls = [
                call
                for call in module.calls
                if _function_at(module.tree, call.lineno) is caller
                and isinstance(
                    callee := engine.evaluator.value_of(module, call.func), Function
                )
                and callee.node is function
            ]
            if len(calls) == 1:
                return (*reached[:at], (path, calls[0].lineno), *cached[into:])
            if calls:
                return None
    return None


def _function_at(tree: ast.Module, line: int) -> ast.FunctionDef | None:
    """The innermost `def` of `tree` holding `line`."""
    found = None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.FunctionDef)
            and node.lineno <= line <= (node.end_lineno or node.lineno)
            and (found is None or node.lineno >= found.lineno)
        ):
            found = node
    return found


def _frame_columns(
    item: Evidence, role: str, frames: tuple[tuple[Path, int], ...]
) -> tuple[tuple[int, int] | None, ...]:
    """The columns the run recorded for the calls of `frames`, a chain along which it built
    the `role` mesh: () where its records of that chain disagree on them."""
    found = {
        o.columns
        for o in item.origins
        if o.role == role and o.kind == "built" and o.frames == frames
    }
    return found.pop() if len(found) == 1 else ()


def _origin(item: Evidence) -> tuple[tuple[Path, int], ...] | None:
    chains = _origins(item)
    return chains[0][0] if chains else None


_MAX_CHAINS = 8  # distinct creation paths walked for one raising line

_Chain = tuple[tuple[tuple[Path, int], ...], tuple[Facts, ...]]


def _origins(item: Evidence) -> list[_Chain]:
    """The distinct frame chains along which the run built the inner mesh (one per path the
    records took to the raising line), each with the meshes of the records that took it
    (the evidence's own when the records did not say), at most _MAX_CHAINS of them (more:
    none walked)."""
    by_frames: dict[tuple[tuple[Path, int], ...], list[Facts]] = {}
    for o in item.origins:
        if (o.role, o.kind) != _WALKED[1:]:
            continue
        own = by_frames.setdefault(o.frames, [])
        if o.facts is not None and o.facts not in own:
            own.append(o.facts)
    chains = [
        (frames, tuple(facts) if facts else item.facts)
        for frames, facts in by_frames.items()
    ]
    return chains if len(chains) <= _MAX_CHAINS else []


def _along_each(
    engine: object,
    path: Path,
    index: int,
    item: Evidence,
    chains: list[_Chain],
    found: dict[Path, list[Evidence]],
    ours: set[Path],
    run: Run,
) -> None:
    """One raising line the run reached along several paths (two callers, each passing its
    own preset; a test per config, each with its own sizes): each path is walked with the
    meshes of its own records (the axis to change is the one that differs on that path),
    and each place a walk reaches in the run's Python files gets evidence of its own, with
    the meshes of the paths that reach it (a place two paths share, once; the rule fixes it
    only where those records agree on the inner and enclosing meshes). One data file's entry
    reached by a path is changed from the raising line (its fix holds one entry, with that
    path's meshes); a path that ends where its size is computed from the host is named with
    its place, and one that reaches no place is named, and the others still get theirs."""
    from jaxfix.analysis.ast_engine.values import Unknown
    from jaxfix.analysis.ast_engine.written_at import written_at

    sites: dict[tuple[Path, tuple[int, int, int, int]], ValueSite] = {}
    data: list[ValueSite] = []
    origins: list[ValueSite] = []
    why = None
    for frames, facts in chains:
        written = written_at(
            engine.evaluator,  # type: ignore[attr-defined]
            frames,
            _differing_axis(facts),
            _differing_name(facts),
            _inner_sizes(facts),
            item.cwds,
            arguments=item.arguments,
            columns=_frame_columns(item, _WALKED[1], frames),
        )
        if isinstance(written, Unknown):
            computed = _origin_site(item, path, written, ours, facts)
            if computed is not None:
                if computed not in origins:
                    origins.append(computed)
                continue
            why = why or written.why
            continue
        where = written.module.path.resolve()
        if written.data is not None:
            entry = _data_site(replace(item, facts=facts), path, written, _tree(run))
            if isinstance(entry, str):
                why = why or entry
            elif len(data) < 1:
                data.append(replace(entry, facts=facts))
            else:
                why = (
                    why or f"one path the run took reads its sizes from {written.name}"
                )
            continue
        if where not in ours:
            why = why or f"one path the run took reads its sizes from {written.name}"
            continue
        extent = _extent(written.module, written.node)
        site = sites.get((where, extent)) or ValueSite(
            (path, item.line),
            where,
            extent,
            written.name,
            written.keyword,
            written.why,
            axis=written.axis,
            override=written.override,
            total=written.total,
        )
        sites[(where, extent)] = replace(
            site, facts=(*site.facts, *(f for f in facts if f not in site.facts))
        )
    for (where, extent), site in sites.items():
        found.setdefault(where, []).append(
            replace(_at_value(item, extent, site), facts=site.facts)
        )
    placed = [*data, *sites.values()]
    if placed or origins or why is not None:
        # the others' reason too: a path that reaches no place is named at the raising line
        found[path][index] = replace(
            item,
            value_site=placed[0] if placed else None,
            value_unknown=why,
            value_origin=origins[0] if origins else None,
            value_origins=tuple(origins),
        )


def _origin_site(
    item: Evidence,
    raised: Path,
    stopped: object,
    ours: set[Path],
    facts: tuple[Facts, ...] = (),
) -> ValueSite | None:
    """Where a walk that stopped at a size computed from the host (`Computed`) stopped, as
    a place in the run's files (with the meshes of the records whose path ends there): the
    origin the report names; None for any other stop."""
    from jaxfix.analysis.ast_engine.written_at import Computed

    if not isinstance(stopped, Computed):
        return None
    where = stopped.path.resolve()
    if where not in ours:
        return None
    module = stopped.module
    return ValueSite(
        (raised, item.line),
        where,
        _extent(module, stopped.node),
        stopped.text,
        why=f"computed from {' and '.join(stopped.reads)} "
        f"{'and other values ' if stopped.mixed else ''}when it runs",
        axis=stopped.axis,
        facts=facts,
        total=stopped.total,
        variable=stopped.variable,
        scale=stopped.scale,
        dividend=stopped.dividend,
        reads_at=tuple((p.resolve(), line) for p, line in stopped.places),
    )


def _unfollowed_site(
    item: Evidence,
    raised: Path,
    stopped: object,
    ours: set[Path],
    mesh: tuple[list[Path], Facts, str] | None = None,
) -> ValueSite | None:
    """Where a walk stopped at an expression the code computes the sizes with from other
    values (`Unfollowed`), in the run's files: the place a report names, changing nothing;
    with `mesh` (the tree's folders, the message's meshes, the role of the one walked), the
    entries of a config file the run was given that the sizes are computed from."""
    from jaxfix.analysis.ast_engine.written_at import Unfollowed
    from jaxfix.check.config_factors import (
        as_run,
        config_factors,
        environment_factors,
        read_names,
        target_size,
    )
    from jaxfix.ground.quoting import cut

    if not isinstance(stopped, Unfollowed) or stopped.path.resolve() not in ours:
        return None
    factors = []
    product = None
    agreed = False
    read: list[tuple[Path, int, str]] = []
    if mesh is not None:
        roots, facts, role = mesh
        sizes = dict(zip(facts[role].axis_names, facts[role].axis_sizes))
        known = {str(a): s for a, s in sizes.items() if s is not None}
        names = read_names(stopped.module.tree, stopped.node)
        factors = config_factors(names, item.arguments, item.cwds, roots, known)
        product = target_size(facts, role)
        agreed = as_run(factors, known)
        total = facts[role].size
        read = environment_factors(names, item.environment, roots, total, product)
        agreed = agreed or (bool(read) and not factors)
    return ValueSite(
        (raised, item.line),
        stopped.path.resolve(),
        _extent(stopped.module, stopped.node),
        cut(ast.unparse(stopped.node), 60),
        why="which the code computes from other values as it runs (jaxfix does not "
        "follow them further)",
        unfollowed=True,
        factors=(
            *((f.path, f.line, f"{f.key} is {f.value}") for f in factors),
            *read,
        ),
        product=product if factors or read else None,
        factors_as_run=agreed,
    )


_MAX_DATA_BYTES = 1 << 20  # a config file larger than this is not read


def _data_site(
    item: Evidence,
    raised: Path,
    written: Written,
    roots: list[Path],
    role: str = _WALKED[1],
) -> ValueSite | str:
    """The JSON (or YAML) entry the run read the sizes of its `role` mesh (the inner mesh)
    from, checked against the file as it is now; or, in one line, why jaxfix does not change
    it: a file outside the project's tree or in .git, that is not one file from where the
    run read it, or whose entry no longer holds the run's sizes."""
    from jaxfix.sources.file_io import ReadError, read_regular
    from jaxfix.write.json_entry import (
        NotAnEntry,
        find_entry,
        find_toml_entry,
        find_yaml_entry,
    )

    data = written.data
    assert data is not None
    shown = f"{data.name}{''.join(f'[{k!r}]' for k in data.keys)}"
    read_at = f"{written.module.path.name}:{written.module.line(written.node)}"
    if data.up_from_module is not None:
        parents = Path(os.path.abspath(written.module.path)).parents
        if data.up_from_module > len(parents):
            return (
                f"the run read {shown} (at {read_at}) from above the file system's root"
            )
        bases = [parents[data.up_from_module - 1]]
    else:
        bases = list(item.cwds) or [Path.cwd()]
    candidates = {Path(os.path.realpath(base / data.name)) for base in bases}
    if len(candidates) != 1:
        return (
            f"the run read {shown} (at {read_at}) from several directories: not written"
        )
    (file,) = candidates
    if not any(file.is_relative_to(root) for root in roots):
        return f"the run read its sizes from {shown} (at {read_at}), a file outside the project's tree: not written"
    if ".git" in file.parts:
        return f"the run read its sizes from {shown} (at {read_at}), a file in .git: not written"
    try:
        content = read_regular(file, _MAX_DATA_BYTES, bound="1 MiB")
    except ReadError as error:
        return f"the run read its sizes from {shown} (at {read_at}), which cannot be read now: {error}"
    try:
        finder = {"yaml": find_yaml_entry, "toml": find_toml_entry}.get(
            data.kind, find_entry
        )
        entry = finder(content, data.keys, scalar=written.axis is not None)
    except NotAnEntry as error:
        return f"the run read its sizes from {shown} (at {read_at}): {error}"
    new = list(item.meshes(role))
    axis = written.axis
    if not new or any(
        (
            tuple(m.axis_sizes) != entry.values
            if axis is None
            else not (0 <= axis < len(m.axis_sizes))
            or (m.axis_sizes[axis],) != entry.values
        )
        for m in new
    ):
        seen = new[0].axis_sizes if new else ()
        held = list(seen) if axis is None or not 0 <= axis < len(seen) else seen[axis]
        return (
            f"{_relative(file, roots)}:{entry.line}: {shown} now holds {entry.text}, "
            f"not the run's {held} (changed since the run): not written"
        )
    return ValueSite(
        (raised, item.line),
        file,
        (entry.line, entry.column, entry.end_line, entry.end_column),
        json.dumps(data.keys[-1]) if isinstance(data.keys[-1], str) else shown,
        entry=DataEntry(entry.spans, hashlib.sha256(content).hexdigest(), entry.text),
        axis=axis,
    )


def _tree(run: Run) -> list[Path]:
    """The folders of the project (the paths the run was given, else its root)."""
    given = [Path(os.path.realpath(p)) for p in run.project]
    folders = [p if p.is_dir() else p.parent for p in given]
    if not folders and run.scope_root is not None:
        folders = [Path(os.path.realpath(run.scope_root))]
    return folders


def _relative(file: Path, roots: list[Path]) -> str:
    for root in roots:
        if file.is_relative_to(root):
            return file.relative_to(root).as_posix()
    return file.name


def _move(
    found: dict[Path, list[Evidence]],
    path: Path,
    index: int,
    item: Evidence,
    site: ValueSite,
) -> None:
    """The raising line's evidence names `site`; `site`'s file gets the evidence at the
    place its value is written."""
    found[path][index] = replace(item, value_site=site)
    found.setdefault(site.path, []).append(_at_value(item, site.span, site))


def _at_value(
    item: Evidence,
    extent: tuple[int, int, int, int],
    site: ValueSite,
    *,
    keep_origins: bool = False,
) -> Evidence:
    """`item` again, at the place its value is written (`extent`: line, column, end line and
    column; its columns only where it is on one line), its origins dropped unless kept."""
    columns = (extent[1], extent[3]) if extent[0] == extent[2] else None
    moved = replace(
        item, line=extent[0], columns=columns, value_site=site, at_value=True
    )
    return moved if keep_origins else replace(moved, origins=())


def _extent(module: Module, node: ast.AST) -> tuple[int, int, int, int]:
    """Where `node` lies in `module`'s source: start line and column, end line and column."""
    from jaxfix.analysis.ast_engine.positions import span
    from jaxfix.sources.text import source_text, split_lines

    where = span(split_lines(source_text(module.source)), node)
    return (*where.start, *where.end)
