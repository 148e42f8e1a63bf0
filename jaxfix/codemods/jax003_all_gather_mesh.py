"""JAX003: top_level_all_gather whose input, context mesh and out_sharding are not one mesh."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import Assignment

from jaxfix.analysis.imports import api_spelling, module_spelling
from jaxfix.analysis.mesh import MeshValue, bind_arguments
from jaxfix.codemods.base import Rule
from jaxfix.diagnostics import Fix, Location, Related, Safety

_INPUT_ERROR = '"Input sharding mesh ... should be equal to out_sharding mesh ..."'
_CONTEXT_ERROR = '"Context mesh ... should match the mesh of sharding ..."'
_EAGER_SETTERS = ("set_mesh", "use_mesh")  # both raise inside jit, so what they enclose is eager


@dataclass(frozen=True)
class _Site:
    """One way the gather runs: its context mesh and input mesh, as one call site shows them."""

    context: MeshValue
    entered_by: str  # the API that made `context` current
    input: MeshValue | None
    input_text: str  # the input as the code at this site spells it
    call: cst.Call | None = None  # the caller's call, when the input or the context comes from it
    context_from_caller: bool = False
    input_from_caller: bool = False


@dataclass(frozen=True)
class _Verdict:
    """What JAX raises at one site: "input" (JAX003 proper) or "context" (a foreign out_sharding)."""

    kind: str
    site: _Site
    out: MeshValue


class AllGatherMeshMismatch(Rule):
    """
    ## What it does
    Finds `top_level_all_gather(x, out_sharding)` calls (`jax._src.shard_map`, through any
    import spelling, and any future `jax.*.top_level_all_gather`) where the mesh `x` lives on,
    the context mesh (`with jax.set_mesh(...)`, `use_mesh`, `use_abstract_mesh`) and the mesh of
    `out_sharding` (a bare `P(...)` means the context mesh) are not all equal. Each leaf of a
    literal tuple, list or dict of inputs is checked with its sharding.

    The input's mesh is known from `jax.device_put(..., NamedSharding(mesh, ...))`, or
    `jax.device_put(..., P(...))` inside `jax.set_mesh(mesh)`; for a parameter, from the
    arguments of the calls in the same module. The context is the innermost mesh context around
    the call in its own function (a bare `jax.set_mesh(m)` statement earlier in the same block
    counts: it sets the mesh globally), else the one around each call of that function (one
    level).
    Meshes compare as JAX compares them: axis names, sizes, types, and whether an abstract
    device is attached. Anything unknown means no diagnostic; so does a context or input mesh
    with non-Explicit axes (JAX fails earlier, with another error), a global `jax.set_mesh(m)`
    that is assigned or inside an earlier compound statement (`if`, `with`, `def`), and the
    legacy `with mesh:` (it does not set the context mesh). A global `jax.set_mesh(m)` inside
    a function called in between is not seen.

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
    function (so the call is eager), that mesh is a concrete mesh with a name, the input is a
    name, and the context mesh has every axis of the input's mesh. A caller whose input is
    already on the context mesh is not affected (the move is a no-op there).
    Inside a function whose context comes from its callers (possibly jitted), the rule reports
    and suggests the move at the call site, without a fix.

    When the input and context agree and only a `NamedSharding(other_mesh, spec)` differs, the
    fix is safe: the out_sharding is put on the context mesh by name, or, when the context
    comes from callers, on `jax.typeof(x).sharding.mesh` (right for every caller). When the
    input and the out_sharding agree but the context differs, it is unclear which mesh is meant:
    reported without a fix.

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
        Safety.UNSAFE: "move the input onto the context mesh with device_put",
    }
    tokens = ((b"top_level_all_gather",),)
    raises = ("Input sharding mesh {mesh} should be equal to out_sharding mesh {mesh}",)

    def __init__(self, analysis, options) -> None:
        super().__init__(analysis, options)
        self.current = analysis.current_mesh
        self.reported: set[cst.CSTNode] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if self.analysis.names.called_api(node) != "top_level_all_gather":
            return
        args = bind_arguments(node, ("xs", "out_sharding"), ("multi_dim",))
        if args is None or "xs" not in args or "out_sharding" not in args:
            return
        for x, sharding in _leaves(args["xs"], args["out_sharding"]) or ():
            self._check_leaf(node, x, sharding)

    # -- one leaf -----------------------------------------------------------------------------

    def _check_leaf(self, gather: cst.Call, x: cst.BaseExpression, sharding: cst.BaseExpression) -> None:
        sites = self._sites(gather, x)
        verdicts = [v for v in (self._verdict(site, sharding) for site in sites) if v is not None]
        if not verdicts:
            return
        first = verdicts[0]
        node = x if first.kind == "input" else sharding
        if node in self.reported:
            return
        self.reported.add(node)
        if first.kind == "input":
            fix, note = self._move_input(x, sites, verdicts)
            message = self._input_message(x, first)
        else:
            fix, note = self._rehome_sharding(x, sharding, sites, verdicts)
            message = self._context_message(sharding, first)
        self.report(node, message + (f"; {note}" if note else ""), fix=fix, related=self._related(first.site))

    def _verdict(self, site: _Site, sharding: cst.BaseExpression) -> _Verdict | None:
        out = self._out_mesh(sharding, site.context)
        if site.input is None or out is None or not _all_explicit(site.input):
            return None
        out_is_context, input_is_context = _equal(out, site.context), _equal(site.input, site.context)
        if out_is_context is None or input_is_context is None:
            return None
        if not out_is_context:
            return _Verdict("context", site, out)
        return None if input_is_context else _Verdict("input", site, out)

    # -- fixes --------------------------------------------------------------------------------

    def _move_input(self, x: cst.BaseExpression, sites: list[_Site], verdicts: list[_Verdict]) -> tuple[Fix | None, str | None]:
        if any(s.context_from_caller for s in sites):
            return None, self._suggest_at_caller(verdicts[0])
        if any(v.kind != "input" for v in verdicts):
            return None, "not fixed: other calls of this function fail differently"
        context = sites[0].context
        if sites[0].entered_by not in _EAGER_SETTERS or context.is_abstract:
            return None, "not fixed: the context mesh is abstract, there is no concrete mesh to move the input to"
        if context.name is None:
            return None, "not fixed: the context mesh has no name the fix could use"
        if not isinstance(x, cst.Name):
            return None, "not fixed: the input is an expression the fix would have to evaluate twice"
        for verdict in verdicts:
            names = verdict.site.input.axis_names  # type: ignore[union-attr]
            if names is None or context.axis_names is None:
                return None, "not fixed: the axis names of the input's or the context's mesh are not known"
            missing = [n for n in names if n not in context.axis_names]
            if missing:
                return None, f"not fixed: the context mesh has no axis {missing[0]!r} of the input's mesh"
        module = self.analysis.wrapper.module
        named_sharding, imports = api_spelling(module, "NamedSharding", "jax.sharding")
        jax_name, jax_import = module_spelling(module, "jax")
        replacement = cst.parse_expression(
            f"{jax_name}.device_put({x.value}, {named_sharding}({context.name}, {jax_name}.typeof({x.value}).sharding.spec))"
        )
        title = f"move `{x.value}` onto `{context.name}` before the gather"
        return Fix(title, ((x, replacement),), Safety.UNSAFE, (*jax_import, *imports)), None

    def _rehome_sharding(
        self, x: cst.BaseExpression, sharding: cst.BaseExpression, sites: list[_Site], verdicts: list[_Verdict]
    ) -> tuple[Fix | None, str | None]:
        first = verdicts[0]
        if any(v.kind != "context" for v in verdicts):
            return None, "not fixed: other calls of this function fail differently"
        if any(not _equal(v.site.input, v.site.context) for v in verdicts):  # type: ignore[arg-type]
            return None, self._input_elsewhere_note(first)
        call = sharding if isinstance(sharding, cst.Call) and self.analysis.names.called_api(sharding) == "NamedSharding" else None
        args = bind_arguments(call, ("mesh", "spec"), ("memory_kind",)) if call is not None else None
        if args is None or "mesh" not in args:
            return None, "not fixed: the NamedSharding is not written in this call"
        axes = self._spec_axes(args.get("spec"))
        context = first.site.context
        if axes is None or context.axis_names is None or not axes <= set(context.axis_names):
            return None, "not fixed: its PartitionSpec's axes are not all known axes of the context mesh"
        imports: tuple[tuple[str, str | None], ...] = ()
        if not any(s.context_from_caller for s in sites) and context.name is not None:
            mesh_text, title = context.name, f"put the out_sharding on `{context.name}`"
        elif isinstance(x, cst.Name):
            jax_name, imports = module_spelling(self.analysis.wrapper.module, "jax")
            mesh_text, title = f"{jax_name}.typeof({x.value}).sharding.mesh", f"put the out_sharding on `{x.value}`'s mesh"
        else:
            return None, "not fixed: the input is an expression, and the context mesh has no name here"
        return Fix(title, ((args["mesh"], cst.parse_expression(mesh_text)),), Safety.SAFE, imports), None

    # -- where the gather runs ----------------------------------------------------------------

    def _sites(self, gather: cst.Call, x: cst.BaseExpression) -> list[_Site]:
        setters, boundary = self.current.setters_around(gather)
        function = boundary if isinstance(boundary, cst.FunctionDef) else None
        parameter = self._parameter(x, function)
        if setters:
            context = self._context_mesh(setters[-1])
            if context is None:
                return []
            if parameter is None:
                return [_Site(context, setters[-1].api, self._array_mesh(x), _code(x))]
            return [
                _Site(context, setters[-1].api, self._array_mesh(arg), _code(arg), call, input_from_caller=True)
                for call, arg in self._arguments(function, parameter)  # type: ignore[arg-type]
            ]
        if function is None:
            return []
        sites = []
        for call in self.current.calls_of(function):
            outer, _ = self.current.setters_around(call)
            context = self._context_mesh(outer[-1]) if outer else None
            arg = x if parameter is None else _argument(call, function, parameter)
            if context is not None and arg is not None:
                sites.append(_Site(context, outer[-1].api, self._array_mesh(arg), _code(arg), call, True, parameter is not None))
        return sites

    def _context_mesh(self, setter) -> MeshValue | None:
        mesh = setter.mesh
        if setter.api == "other" or mesh is None or mesh.is_empty or not _all_explicit(mesh):
            return None
        return mesh

    def _parameter(self, x: cst.BaseExpression, function: cst.FunctionDef | None) -> cst.Param | None:
        if function is None or not isinstance(x, cst.Name):
            return None
        scope = self.analysis.scopes.get(x)
        assignments = scope[x.value] if scope is not None else ()
        if len(assignments) != 1:
            return None
        (assignment,) = assignments
        if isinstance(assignment, Assignment) and isinstance(assignment.node, cst.Param):
            if self.analysis.parents.get(self.analysis.parents.get(assignment.node)) is function:
                return assignment.node
        return None

    def _arguments(self, function: cst.FunctionDef, parameter: cst.Param) -> list[tuple[cst.Call, cst.BaseExpression]]:
        found = []
        for call in self.current.calls_of(function):
            arg = _argument(call, function, parameter)
            if arg is not None:
                found.append((call, arg))
        return found

    # -- meshes of arrays and shardings -------------------------------------------------------

    def _array_mesh(self, expr: cst.BaseExpression) -> MeshValue | None:
        """The mesh of an array made by `jax.device_put(value, sharding)`, when that is visible."""
        target = self.analysis.meshes.resolve(expr)
        if self.analysis.names.called_api(target) != "device_put":
            return None
        args = bind_arguments(target, ("x", "device"), ("src", "donate", "may_alias"))  # type: ignore[arg-type]
        sharding = args.get("device") if args else None
        if sharding is None:
            return None
        resolved = self.analysis.meshes.resolve(sharding)
        api = self.analysis.names.called_api(resolved)
        if api == "NamedSharding":
            return self._named_sharding_mesh(resolved)  # type: ignore[arg-type]
        if api == "PartitionSpec":
            setters, _ = self.current.setters_around(target)
            if setters and setters[-1].api in _EAGER_SETTERS:
                return self._context_mesh(setters[-1])
        return None

    def _out_mesh(self, sharding: cst.BaseExpression, context: MeshValue) -> MeshValue | None:
        resolved = self.analysis.meshes.resolve(sharding)
        api = self.analysis.names.called_api(resolved)
        if api == "PartitionSpec":
            return context
        if api == "NamedSharding":
            return self._named_sharding_mesh(resolved)  # type: ignore[arg-type]
        return None

    def _named_sharding_mesh(self, call: cst.Call) -> MeshValue | None:
        args = bind_arguments(call, ("mesh", "spec"), ("memory_kind",))
        return self.analysis.meshes.mesh(args.get("mesh")) if args else None

    def _spec_axes(self, spec: cst.BaseExpression | None) -> set[str] | None:
        """Every axis name a literal `P(...)` mentions (partitions, reduced, unreduced)."""
        call = self.analysis.meshes.resolve(spec) if spec is not None else None
        if self.analysis.names.called_api(call) != "PartitionSpec":
            return None
        axes: set[str] = set()
        for arg in call.args:  # type: ignore[union-attr]
            if arg.star or (arg.keyword is not None and arg.keyword.value not in ("reduced", "unreduced")):
                return None
            value = arg.value
            if isinstance(value, cst.Name) and value.value == "None" and arg.keyword is None:
                continue
            names = [value] if isinstance(value, cst.SimpleString) and arg.keyword is None else _collection(value)
            if names is None or not all(isinstance(n, cst.SimpleString) for n in names):
                return None
            axes.update(n.evaluated_value for n in names)  # type: ignore[union-attr]
        return axes

    # -- messages -----------------------------------------------------------------------------

    def _input_message(self, x: cst.BaseExpression, verdict: _Verdict) -> str:
        site = verdict.site
        return (
            f"top_level_all_gather input `{_short(x)}` is on {_describe(site.input)} but its "  # type: ignore[arg-type]
            f"out_sharding is on the context mesh {_describe(site.context)}{self._via(site)}; "
            f"JAX raises {_INPUT_ERROR}"
        )

    def _context_message(self, sharding: cst.BaseExpression, verdict: _Verdict) -> str:
        site = verdict.site
        return (
            f"top_level_all_gather out_sharding `{_short(sharding)}` is on {_describe(verdict.out)} but the "
            f"context mesh is {_describe(site.context)}{self._via(site)}; JAX raises {_CONTEXT_ERROR}"
        )

    def _input_elsewhere_note(self, verdict: _Verdict) -> str:
        site = verdict.site
        if _equal(site.input, verdict.out):  # type: ignore[arg-type]
            return (
                f"not fixed: the input is on that mesh too, so either gather under "
                f"`jax.set_mesh({verdict.out.name or '...'})` or move the input onto the context mesh"
            )
        return f"not fixed: the input `{site.input_text}` is on a third mesh, {_describe(site.input)}"  # type: ignore[arg-type]

    def _suggest_at_caller(self, verdict: _Verdict) -> str:
        site = verdict.site
        moved = (
            f"jax.device_put({site.input_text}, NamedSharding({site.context.name or '<context mesh>'}, "
            f"jax.typeof({site.input_text}).sharding.spec))"
        )
        if site.input_from_caller:
            return f"not fixed inside a function whose context comes from its caller: pass `{moved}` at line {self._line(site.call)}"
        return f"not fixed inside a function whose context comes from its caller (it may run under jit): gather `{moved}`"

    def _via(self, site: _Site) -> str:
        if site.context_from_caller:
            return f" (entered around the call at line {self._line(site.call)})"
        if site.input_from_caller:
            return f" (the input is `{_short(site.input_text)}`, passed at line {self._line(site.call)})"
        return ""

    def _line(self, node: cst.CSTNode | None) -> int:
        return self.analysis.positions[node].start.line  # type: ignore[index]

    def _related(self, site: _Site) -> tuple[Related, ...]:
        if site.call is None:
            return ()
        start = self.analysis.positions[site.call].start
        return (Related("the function is called here", Location(start.line, start.column + 1)),)


# -- helpers ------------------------------------------------------------------------------------


def _leaves(xs: cst.BaseExpression, out: cst.BaseExpression) -> list[tuple[cst.BaseExpression, cst.BaseExpression]] | None:
    """(input leaf, its sharding) for a literal tuple, list or dict of inputs, one level deep,
    with one sharding for all or a container of the same kind; None when they do not match."""
    containers = (cst.Tuple, cst.List, cst.Dict)
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


def _items(node: cst.BaseExpression) -> list[tuple[object, cst.BaseExpression]] | None:
    """(index or string key, value) for a literal tuple, list or dict; None for anything else."""
    if isinstance(node, (cst.Tuple, cst.List)):
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        return [(i, e.value) for i, e in enumerate(node.elements)]
    if isinstance(node, cst.Dict):
        items = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
                return None
            items.append((element.key.evaluated_value, element.value))
        return items
    return None


def _collection(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    if isinstance(node, (cst.Set, cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
        return [e.value for e in node.elements]
    return None


def _argument(call: cst.Call, function: cst.FunctionDef, parameter: cst.Param) -> cst.BaseExpression | None:
    positional = [*function.params.posonly_params, *function.params.params]
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index < len(positional) and positional[index] is parameter:
                return arg.value
        elif arg.keyword.value == parameter.name.value:
            return arg.value
    return None


def _all_explicit(mesh: MeshValue) -> bool:
    return mesh.axis_types is not None and all(t == "Explicit" for t in mesh.axis_types)


def _equal(a: MeshValue, b: MeshValue) -> bool | None:
    """Equal as JAX compares meshes: names, sizes, types and abstract device; None if unknown."""
    same = a.same_as(b)
    return same if not same else a.has_abstract_device == b.has_abstract_device


def _describe(mesh: MeshValue) -> str:
    text = f"mesh {mesh.shape_text()}"
    if mesh.name:
        text = f"`{mesh.name}` {mesh.shape_text()}"
    return text if mesh.has_abstract_device else text + " without an abstract device"


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _short(node: cst.CSTNode | str, limit: int = 60) -> str:
    text = " ".join((node if isinstance(node, str) else _code(node)).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
