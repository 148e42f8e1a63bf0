"""JAX003: top_level_all_gather whose input, context mesh and out_sharding are not one mesh."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace

import libcst as cst

from jaxfix.analysis.confirmed import Confirmed, changed_since_the_log
from jaxfix.analysis.contexts import ContextSite, Entry, context_mesh_sites
from jaxfix.analysis.cst_names import bind, signature_of
from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.analysis.names import MESH_CONTEXT_APIS, Api
from jaxfix.analysis.syntax import code, short
from jaxfix.analysis.values import MeshValue
from jaxfix.codemods.base import CstRule
from jaxfix.codemods.import_spelling import api_spelling, module_spelling
from jaxfix.codemods.text import not_fixed, related, with_note
from jaxfix.diagnostics import Fix, Related, Safety
from jaxfix.options import Options
from jaxfix.screen import ModuleFacts

_INPUT_ERROR = '"Input sharding mesh ... should be equal to out_sharding mesh ..."'
_CONTEXT_ERROR = '"Context mesh ... should match the mesh of sharding ..."'
_EAGER_SETTERS = (
    Api.SET_MESH,
    Api.USE_MESH,
)  # both raise inside jit, so what they enclose is eager


@dataclass(frozen=True, kw_only=True)
class _Site:
    """One way the gather runs: its context mesh and input mesh, as one call site shows them."""

    context: MeshValue
    entered_by: Api | None  # the API that made `context` current
    input: MeshValue | None
    input_text: str  # the input as the code at this site spells it
    call: cst.Call | None = (
        None  # the caller's call, when the input or the context comes from it
    )
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
    out: MeshValue


class AllGatherMeshMismatch(CstRule):
    """
    ## What it does
    Finds `top_level_all_gather(x, out_sharding)` calls (`jax._src.shard_map`, through any
    import spelling, and any future `jax.*.top_level_all_gather`) where the mesh `x` lives on,
    the context mesh (`with jax.set_mesh(...)`, `use_mesh`, `use_abstract_mesh`) and the mesh of
    `out_sharding` (a bare `P(...)` means the context mesh) are not all equal. Each leaf of a
    literal tuple, list or dict of inputs is checked with its sharding.

    The input's mesh is known from `jax.device_put(..., NamedSharding(mesh, ...))`, or
    `jax.device_put(..., P(...))` inside `jax.set_mesh(mesh)`; for a parameter, from the
    arguments of the calls in the same module. The context mesh is JAX's where the call runs,
    as the engine follows it (what it follows and what it does not:
    [docs/engine.md](../engine.md)). Meshes compare as JAX compares them: axis names, sizes,
    types, and whether an abstract device is attached. Anything unknown means no diagnostic;
    so does a context or input mesh with non-Explicit axes (JAX fails earlier, with another
    error).

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
    # The gather, a device_put for its input's mesh, and a mesh context.
    tokens = (
        (
            b"top_level_all_gather",
            b"device_put",
            rb"(?:set|use)_mesh|use_abstract_mesh",
        ),
    )
    raises = (
        "Input sharding mesh {mesh:input} should be equal to out_sharding mesh {mesh:out}",
    )
    raised_in = ("jax/_src/shard_map.py",)
    mesh_locals = {"input": "aval.sharding.mesh", "out": "out_sh.mesh"}

    @classmethod
    def screen(cls, module: ModuleFacts) -> bool:
        """The gather (`visit_Call`), its input placed by device_put (`_array_mesh`), a mesh
        context (`_context_mesh`) and a sharding to compare (`_out_mesh`)."""
        return (
            module.calls(Api.TOP_LEVEL_ALL_GATHER) > 0
            and module.calls(Api.DEVICE_PUT) > 0
            and module.calls(*MESH_CONTEXT_APIS) > 0
            and module.mentions(Api.NAMED_SHARDING, Api.PARTITION_SPEC)
        )

    def __init__(self, analysis: ModuleAnalysis, options: Options) -> None:
        super().__init__(analysis, options)
        self.reported: set[cst.CSTNode] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if self.analysis.called_api(node) is not Api.TOP_LEVEL_ALL_GATHER:
            return
        args = self.analysis.bind(node)
        if args is None or "xs" not in args or "out_sharding" not in args:
            return
        reported = len(self.reports)
        for x, sharding in _leaves(args["xs"], args["out_sharding"]) or ():
            self._check_leaf(node, x, sharding)
        confirmed = self.analysis.confirmed(node, self.code)
        if confirmed is not None and len(self.reports) == reported:
            # It raised, yet the code shows no failing leaf: ask again with the log's meshes.
            self._check_leaf(node, args["xs"], args["out_sharding"], confirmed)

    # -- one leaf -----------------------------------------------------------------------------

    def _check_leaf(
        self,
        gather: cst.Call,
        x: cst.BaseExpression,
        sharding: cst.BaseExpression,
        confirmed: Confirmed | None = None,
    ) -> None:
        """The input's mesh, the context's and the out_sharding's on each way the gather runs
        (`confirmed`: with the log's input mesh where the code does not show it)."""
        logged = (
            f"the log shows JAX raised {_INPUT_ERROR} here ({confirmed.where})"
            if confirmed is not None
            else ""
        )
        input_mesh = confirmed.agreed("input") if confirmed is not None else None
        if confirmed is not None and (
            input_mesh is None
            or confirmed.agreed("out") is None
            or isinstance(x, (cst.Tuple, cst.List, cst.Dict))
        ):
            self.report(
                gather,
                f"{logged}; not fixed: the log shows several meshes, or the input is a container of arrays",
            )
            return
        sites = self._sites(gather, x)
        changed = self._contradicted(sites, sharding, confirmed)
        if changed is not None:
            self.report(gather, f"{logged}; {not_fixed(changed)}")
            return
        if confirmed is not None:
            sites = [
                s
                if s.input is not None
                else replace(s, input=confirmed.fill("input", None, x))
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
            self._report_leaf(x, sharding, sites, verdicts, source)
        elif confirmed is not None:
            filled = confirmed.fill("input", None, x)
            out = confirmed.fill("out", None, gather)
            assert filled is not None and out is not None  # both agreed, above
            self.report(
                gather,
                (
                    f"{logged}: the input `{short(x)}` is on {_describe(filled)}, the context mesh is {_describe(out)}; "
                    "not fixed: jaxfix does not see where that context mesh is set (a decorator, a caller, another module): "
                    f"move the input onto it (jax.device_put({short(x)}, NamedSharding(<context mesh>, jax.typeof({short(x)}).sharding.spec))) "
                    "or gather under the input's mesh"
                ),
            )

    def _contradicted(
        self,
        sites: list[_Site],
        sharding: cst.BaseExpression,
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
                    self._out_mesh(sharding, site.context),
                ),
                ("the input's mesh", "input", site.input),
            ]
            for what, role, mesh in shown:
                logged = confirmed.contradiction(role, mesh)
                if mesh is not None and logged is not None:
                    return changed_since_the_log(
                        f"{what} {_named(mesh)}", f"the one {logged.shape_text()}"
                    )
        return None

    def _report_leaf(
        self,
        x: cst.BaseExpression,
        sharding: cst.BaseExpression,
        sites: list[_Site],
        verdicts: list[_Verdict],
        source: str = "",
    ) -> None:
        first = verdicts[0]
        node = x if first.kind is _Failure.INPUT else sharding
        if node in self.reported:
            return
        self.reported.add(node)
        if first.kind is _Failure.INPUT:
            fix, note = self._move_input(x, sites, verdicts)
            message = self._input_message(x, first)
        else:
            fix, note = self._rehome_sharding(x, sharding, sites, verdicts)
            message = self._context_message(sharding, first)
        self.report(
            node,
            with_note(message + source, note),
            fix=fix,
            related=self._related(first.site),
        )

    def _verdict(self, site: _Site, sharding: cst.BaseExpression) -> _Verdict | None:
        out = self._out_mesh(sharding, site.context)
        if site.input is None or out is None or not site.input.all_explicit:
            return None
        out_is_context, input_is_context = (
            out.equals(site.context),
            site.input.equals(site.context),
        )
        if out_is_context is None or input_is_context is None:
            return None
        if not out_is_context:
            return _Verdict(_Failure.CONTEXT, site, out)
        return None if input_is_context else _Verdict(_Failure.INPUT, site, out)

    # -- fixes --------------------------------------------------------------------------------

    def _move_input(
        self, x: cst.BaseExpression, sites: list[_Site], verdicts: list[_Verdict]
    ) -> tuple[Fix | None, str | None]:
        if any(s.context_from_caller for s in sites):
            return None, self._suggest_at_caller(verdicts[0])
        if any(v.kind is not _Failure.INPUT for v in verdicts):
            return None, not_fixed("other calls of this function fail differently")
        context = sites[0].context
        if sites[0].entered_by not in _EAGER_SETTERS or context.is_abstract:
            return None, not_fixed(
                "the context mesh is abstract, there is no concrete mesh to move the input to"
            )
        if context.name is None:
            return None, not_fixed("the context mesh has no name the fix could use")
        if not isinstance(x, cst.Name):
            return None, not_fixed(
                "the input is an expression the fix would have to evaluate twice"
            )
        for verdict in verdicts:
            names = (
                verdict.site.input.axis_names
                if verdict.site.input is not None
                else None
            )
            if names is None or context.axis_names is None:
                return None, not_fixed(
                    "the axis names of the input's or the context's mesh are not known"
                )
            missing = [n for n in names if n not in context.axis_names]
            if missing:
                return None, not_fixed(
                    f"the context mesh has no axis {missing[0]!r} of the input's mesh"
                )
        module = self.analysis.wrapper.module
        named_sharding, imports = api_spelling(
            module, Api.NAMED_SHARDING, "jax.sharding"
        )
        jax_name, jax_import = module_spelling(module, "jax")
        replacement = cst.parse_expression(
            f"{jax_name}.device_put({x.value}, {named_sharding}({context.name}, {jax_name}.typeof({x.value}).sharding.spec))"
        )
        title = f"move `{x.value}` onto `{context.name}` before the gather"
        return Fix(
            title, ((x, replacement),), Safety.UNSAFE, (*jax_import, *imports)
        ), None

    def _rehome_sharding(
        self,
        x: cst.BaseExpression,
        sharding: cst.BaseExpression,
        sites: list[_Site],
        verdicts: list[_Verdict],
    ) -> tuple[Fix | None, str | None]:
        first = verdicts[0]
        if any(v.kind is not _Failure.CONTEXT for v in verdicts):
            return None, not_fixed("other calls of this function fail differently")
        if any(
            v.site.input is None or not v.site.input.equals(v.site.context)
            for v in verdicts
        ):
            return None, self._input_elsewhere_note(first)
        is_named = (
            isinstance(sharding, cst.Call)
            and self.analysis.called_api(sharding) is Api.NAMED_SHARDING
        )
        args = (
            self.analysis.bind(sharding)
            if is_named and isinstance(sharding, cst.Call)
            else None
        )
        if args is None or "mesh" not in args:
            return None, not_fixed("the NamedSharding is not written in this call")
        axes = self._spec_axes(args.get("spec"))
        context = first.site.context
        if (
            axes is None
            or context.axis_names is None
            or not axes <= set(context.axis_names)
        ):
            return None, not_fixed(
                "its PartitionSpec's axes are not all known axes of the context mesh"
            )
        imports: tuple[tuple[str, str | None], ...] = ()
        if not any(s.context_from_caller for s in sites) and context.name is not None:
            mesh_text, title = context.name, f"put the out_sharding on `{context.name}`"
        elif isinstance(x, cst.Name):
            jax_name, imports = module_spelling(self.analysis.wrapper.module, "jax")
            mesh_text, title = (
                f"{jax_name}.typeof({x.value}).sharding.mesh",
                f"put the out_sharding on `{x.value}`'s mesh",
            )
        else:
            return None, not_fixed(
                "the input is an expression, and the context mesh has no name here"
            )
        return Fix(
            title,
            ((args["mesh"], cst.parse_expression(mesh_text)),),
            Safety.SAFE,
            imports,
        ), None

    # -- where the gather runs ----------------------------------------------------------------

    def _sites(self, gather: cst.Call, x: cst.BaseExpression) -> list[_Site]:
        """One site per way the gather runs: under the context the core finds, with the input
        as this function spells it or, for a parameter, as each caller passes it."""
        analysis = self.analysis
        function = _enclosing_function(analysis.parents, gather)
        parameter = self._parameter(x, function)
        sites = []
        for outer in context_mesh_sites(analysis.contexts_at(gather)):
            context = _context_mesh(outer)
            if context is None:
                if outer.call is None:
                    return []
                continue
            if outer.call is not None:  # the context comes from this caller
                arg = (
                    x
                    if parameter is None or function is None
                    else _argument(outer.call, function, parameter)
                )
                if arg is not None:
                    sites.append(
                        _Site(
                            context=context,
                            entered_by=outer.api,
                            input=self._array_mesh(arg),
                            input_text=code(arg),
                            call=outer.call,
                            context_from_caller=True,
                            input_from_caller=parameter is not None,
                        )
                    )
                continue
            if parameter is None or function is None:
                return [
                    _Site(
                        context=context,
                        entered_by=outer.api,
                        input=self._array_mesh(x),
                        input_text=code(x),
                    )
                ]
            return [
                _Site(
                    context=context,
                    entered_by=outer.api,
                    input=self._array_mesh(arg),
                    input_text=code(arg),
                    call=call,
                    input_from_caller=True,
                )
                for call in analysis.calls_running(function)
                if (arg := _argument(call, function, parameter)) is not None
            ]
        return sites

    def _parameter(
        self, x: cst.BaseExpression, function: cst.FunctionDef | None
    ) -> cst.Param | None:
        """The parameter of `function` (the gather's own) that `x` names, if it is one."""
        definition = (
            self.analysis.definition(x)
            if function is not None and isinstance(x, cst.Name)
            else None
        )
        if not isinstance(definition, cst.Param):
            return None
        parameters = self.analysis.parents.get(definition)
        return (
            definition
            if parameters is not None
            and self.analysis.parents.get(parameters) is function
            else None
        )

    # -- meshes of arrays and shardings -------------------------------------------------------

    def _array_mesh(self, expr: cst.BaseExpression) -> MeshValue | None:
        """The mesh of an array made by `jax.device_put(value, sharding)`, when that is visible."""
        target = self.analysis.resolve(expr)
        if (
            not isinstance(target, cst.Call)
            or self.analysis.called_api(target) is not Api.DEVICE_PUT
        ):
            return None
        args = self.analysis.bind(target)
        sharding = args.get("device") if args else None
        if sharding is None:
            return None
        resolved = self.analysis.resolve(sharding)
        api = self.analysis.called_api(resolved)
        if api is Api.NAMED_SHARDING and isinstance(resolved, cst.Call):
            return self._named_sharding_mesh(resolved)
        if api is Api.PARTITION_SPEC:
            local = [
                s
                for s in self.analysis.contexts_at(target)
                if s.is_local and s.sets_context_mesh
            ]
            if local and local[-1].api in _EAGER_SETTERS:
                return _context_mesh(local[-1])
        return None

    def _out_mesh(
        self, sharding: cst.BaseExpression, context: MeshValue
    ) -> MeshValue | None:
        resolved = self.analysis.resolve(sharding)
        api = self.analysis.called_api(resolved)
        if api is Api.PARTITION_SPEC:
            return context
        if api is Api.NAMED_SHARDING and isinstance(resolved, cst.Call):
            return self._named_sharding_mesh(resolved)
        return None

    def _named_sharding_mesh(self, call: cst.Call) -> MeshValue | None:
        args = self.analysis.bind(call)
        mesh = self.analysis.value_of(args["mesh"]) if args and "mesh" in args else None
        return mesh if isinstance(mesh, MeshValue) else None

    def _spec_axes(self, spec: cst.BaseExpression | None) -> set[str] | None:
        """Every axis name a literal `P(...)` mentions (partitions, reduced, unreduced)."""
        call = self.analysis.resolve(spec) if spec is not None else None
        if (
            not isinstance(call, cst.Call)
            or self.analysis.called_api(call) is not Api.PARTITION_SPEC
        ):
            return None
        axes: set[str] = set()
        for arg in call.args:
            if arg.star or (
                arg.keyword is not None
                and arg.keyword.value not in ("reduced", "unreduced")
            ):
                return None
            value = arg.value
            if (
                isinstance(value, cst.Name)
                and value.value == "None"
                and arg.keyword is None
            ):
                continue
            names = (
                [value]
                if isinstance(value, cst.SimpleString) and arg.keyword is None
                else _collection(value)
            )
            texts = [
                n.evaluated_value
                for n in names or ()
                if isinstance(n, cst.SimpleString)
            ]
            if (
                names is None
                or len(texts) != len(names)
                or not all(isinstance(t, str) for t in texts)
            ):
                return None
            axes.update(str(t) for t in texts)
        return axes

    # -- messages -----------------------------------------------------------------------------

    def _input_message(self, x: cst.BaseExpression, verdict: _Verdict) -> str:
        site = verdict.site
        assert site.input is not None  # a verdict needs the input's mesh
        return (
            f"top_level_all_gather input `{short(x)}` is on {_describe(site.input)} but its "
            f"out_sharding is on the context mesh {_describe(site.context)}{self._via(site)}; "
            f"JAX raises {_INPUT_ERROR}"
        )

    def _context_message(self, sharding: cst.BaseExpression, verdict: _Verdict) -> str:
        site = verdict.site
        return (
            f"top_level_all_gather out_sharding `{short(sharding)}` is on {_describe(verdict.out)} but the "
            f"context mesh is {_describe(site.context)}{self._via(site)}; JAX raises {_CONTEXT_ERROR}"
        )

    def _input_elsewhere_note(self, verdict: _Verdict) -> str:
        site = verdict.site
        if site.input is not None and site.input.equals(verdict.out):
            return not_fixed(
                f"the input is on that mesh too, so either gather under "
                f"`jax.set_mesh({verdict.out.name or '...'})` or move the input onto the context mesh"
            )
        described = (
            _describe(site.input) if site.input is not None else "an unknown mesh"
        )
        return not_fixed(
            f"the input `{site.input_text}` is on a third mesh, {described}"
        )

    def _suggest_at_caller(self, verdict: _Verdict) -> str:
        site = verdict.site
        moved = (
            f"jax.device_put({site.input_text}, NamedSharding({site.context.name or '<context mesh>'}, "
            f"jax.typeof({site.input_text}).sharding.spec))"
        )
        if site.input_from_caller and site.call is not None:
            return not_fixed(
                f"inside a function whose context comes from its caller: pass `{moved}` at line {self.analysis.line(site.call)}"
            )
        return not_fixed(
            f"inside a function whose context comes from its caller (it may run under jit): gather `{moved}`"
        )

    def _via(self, site: _Site) -> str:
        if site.call is None:
            return ""
        if site.context_from_caller:
            return f" (entered around the call at line {self.analysis.line(site.call)})"
        if site.input_from_caller:
            return f" (the input is `{short(site.input_text)}`, passed at line {self.analysis.line(site.call)})"
        return ""

    def _related(self, site: _Site) -> tuple[Related, ...]:
        return (
            ()
            if site.call is None
            else (related(self.analysis, "the function is called here", site.call),)
        )


# -- helpers ------------------------------------------------------------------------------------


def _enclosing_function(
    parents: Mapping[cst.CSTNode, cst.CSTNode], node: cst.CSTNode
) -> cst.FunctionDef | None:
    """The function whose body `node` is in (None at module level, in a class body or lambda)."""
    current = parents.get(node)
    while current is not None and not isinstance(
        current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)
    ):
        current = parents.get(current)
    return current if isinstance(current, cst.FunctionDef) else None


def _context_mesh(site: ContextSite) -> MeshValue | None:
    """The context mesh a site sets, when it is known, non-empty and all-Explicit (with Auto
    axes JAX fails earlier, with another error)."""
    mesh = site.mesh
    if (
        site.api is None
        or not isinstance(mesh, MeshValue)
        or mesh.is_empty
        or not mesh.all_explicit
    ):
        return None
    if (
        site.entry is Entry.DECORATOR
    ):  # its name is the decorator's, not in scope at the gather
        return replace(mesh, name=None)
    return mesh


def _leaves(
    xs: cst.BaseExpression, out: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, cst.BaseExpression]] | None:
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
        items: list[tuple[object, cst.BaseExpression]] = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement) or not isinstance(
                element.key, cst.SimpleString
            ):
                return None
            items.append((element.key.evaluated_value, element.value))
        return items
    return None


def _collection(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    if isinstance(node, (cst.Set, cst.Tuple, cst.List)) and not any(
        isinstance(e, cst.StarredElement) for e in node.elements
    ):
        return [e.value for e in node.elements]
    return None


def _argument(
    call: cst.Call, function: cst.FunctionDef, parameter: cst.Param
) -> cst.BaseExpression | None:
    """What `call` passes for `parameter` of `function` (None when it passes nothing, or the
    arguments cannot be bound)."""
    signature = signature_of(function)
    args = bind(call, signature) if signature is not None else None
    return args.get(parameter.name.value) if args is not None else None


def _named(mesh: MeshValue) -> str:
    """'`mesh` (4, 2) ('x', 'y')', or the shape alone."""
    return f"`{mesh.name}` {mesh.shape_text()}" if mesh.name else mesh.shape_text()


def _describe(mesh: MeshValue) -> str:
    text = f"mesh {mesh.shape_text()}"
    if mesh.name:
        text = f"`{mesh.name}` {mesh.shape_text()}"
    return text if mesh.has_abstract_device else text + " without an abstract device"
