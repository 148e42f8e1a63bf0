"""JAX001: lowering a jitted computation whose only meshes are AbstractMesh needs lowering_platforms."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import libcst as cst

from jaxfix.analysis.confirmed import (
    Confirmed,
    changed_since_the_log,
    confirmed_mesh,
    contradicts,
)
from jaxfix.analysis.contexts import Entry
from jaxfix.analysis.names import Api
from jaxfix.analysis.syntax import code, is_none, short
from jaxfix.analysis.values import AxisType, MeshValue
from jaxfix.codemods.base import CstRule, keyword_arg
from jaxfix.codemods.import_spelling import module_spelling
from jaxfix.codemods.text import not_fixed
from jaxfix.diagnostics import Fix, Safety
from jaxfix.evidence import MeshFacts
from jaxfix.rule_settings import RuleSetting
from jaxfix.screen import ModuleFacts

# How the message names the primitives that need devices at lowering.
_DEVICE_PRIMITIVES = {
    Api.PURE_CALLBACK: "jax.pure_callback",
    Api.IO_CALLBACK: "jax.experimental.io_callback",
    Api.INSPECT_ARRAY_SHARDING: "jax.debug.inspect_array_sharding",
}
_DEVICE_APIS = frozenset(
    {Api.DEVICE_PUT, Api.MAKE_MESH, Api.MESH, Api.SET_MESH, Api.USE_MESH}
)
# jax.jit keywords that cannot bring devices in; `device=` and `backend=` can.
_DEVICE_FREE_JIT_KEYWORDS = frozenset(
    {
        "in_shardings",
        "out_shardings",
        "static_argnums",
        "static_argnames",
        "donate_argnums",
        "donate_argnames",
        "keep_unused",
        "inline",
        "compiler_options",
    }
)
_SHAPE_DTYPE_STRUCT_KEYWORDS = frozenset({"shape", "dtype", "sharding", "weak_type"})
_MAX_TEXT = 40


KNOWN_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def _platforms(values: list[str]) -> tuple[str, ...]:
    for platform in values:
        if platform not in KNOWN_PLATFORMS:
            raise ValueError(
                f"unknown platform '{platform}' (valid: {', '.join(KNOWN_PLATFORMS)})"
            )
    return tuple(values)


@dataclass(frozen=True)
class _Jitted:
    """A `jax.jit` application: its keywords and the function, when the module shows it."""

    keywords: Mapping[str, cst.BaseExpression]
    function: cst.FunctionDef | cst.Lambda | None


@dataclass(frozen=True)
class _AbstractOnly:
    """Why only AbstractMesh is in play (from the code, or from a log), JAX's context mesh,
    and the mesh size if known."""

    reason: str
    context: MeshValue | None
    size: int | None
    logged: str = ""  # from a log: where it shows JAX raised here


def _is_trace_call(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "trace"
    )


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next(
        (a for a in call.args if a.keyword is not None and a.keyword.value == name),
        None,
    )


def _mesh_text(mesh: MeshValue) -> str:
    return mesh.name or short(mesh.node, _MAX_TEXT)


def _logged_text(mesh: MeshFacts, node: cst.CSTNode, *, kind: bool = False) -> str:
    """The log's context mesh in a message: 'the [abstract] one (2, 4) ('x', 'y')'."""
    if mesh.is_empty:
        return "an empty one"
    shape = confirmed_mesh(None, mesh, node).shape_text()
    return f"the {mesh.kind} one {shape}" if kind else f"the one {shape}"


class MissingLoweringPlatforms(CstRule):
    """
    ## What it does
    Finds `.lower()` calls on a jitted function whose shardings involve only `AbstractMesh`es:
    `jax.jit(f).trace(*args).lower()` and `jax.jit(f).lower(*args)`, with the jitted function
    reached directly, through a name (`g = jax.jit(f)`, `@jax.jit`, `@jit`,
    `@partial(jax.jit, ...)`, `pjit(f)`) or with the traced stage kept in a variable. It adds
    `lowering_platforms=(jax.export.default_export_platform(),)` (or the `--platform` tuple).

    It fires only when the module shows that no device is in play: every argument is a
    `jax.ShapeDtypeStruct` unsharded or sharded with `NamedSharding(abstract_mesh, ...)`, or
    brings no devices (a Python number, NumPy data, a `jnp.arange`/`ones`/`zeros`/... array
    without `device=`, `jax.device_put(x)` without a device or sharding; see
    [docs/engine.md](../engine.md)), `in_shardings`/`out_shardings` are absent or on
    abstract meshes, the function body (when visible) uses no concrete mesh, sharding or
    `device_put`, no mesh other than `use_abstract_mesh` may be current at the `.trace()`, and
    either a sharding names an abstract mesh or the enclosing `use_abstract_mesh(M)` is JAX's
    context mesh (M has an `Explicit` axis; `AbstractMesh` axes default to `Auto` before jax
    0.11 and to `Explicit` since, see `--jax-version`). A context mesh carrying an abstract
    device (`abstract_device=`, `concrete_mesh.abstract_mesh`) gives JAX the platform: no report.
    Nor when the abstract meshes in play differ in size, or may (a size the module does not
    show, on more than one mesh): JAX then raises "AbstractMesh should be of the same size
    across all shardings" first; nor when they are not all one mesh and one may have a
    non-Auto axis: an operation on arguments of different meshes then raises "Mesh for all
    inputs should be equal".

    Deliberately not reported, since a concrete mesh may then supply the devices: a module that
    calls `jax.set_mesh(m)` or `use_mesh(m)` outside a `with` item or `enter_context` (a global
    setter) anywhere; and a `.trace()` where a mesh context other than `use_abstract_mesh` is
    or may be in force: `with mesh:`, `jax.set_mesh`/`use_mesh`, or a context manager, setUp,
    decorator or use of its function that may enter one, or that the engine does not follow to
    one mesh (what it follows and what it does not: [docs/engine.md](../engine.md)). A
    decorator of this module whose wrapper calls the function inside `use_abstract_mesh(M)`
    counts as that context, as if entered around the `.trace()`. A function or lambda never
    used under a mesh context is still reported.

    When the lowered function visibly calls `jax.pure_callback`, `io_callback` or
    `jax.debug.inspect_array_sharding`, it reports JAX's other error instead, without a fix.

    ## Why is this bad?
    With no device to take the platform from, lowering raises
    `ValueError: Passing lowering_platforms via jax.export or
    jit(f).trace(*args).lower(lowering_platforms=...) is required when only AbstractMesh exists
    in a jitted computation. Got context mesh: ...`. Host callbacks need devices even then:
    `ValueError: AbstractMesh cannot be used when jaxpr contains primitives that require
    devices to be present during lowering.`

    ## Example
    ```python
    mesh = AbstractMesh((2, 4), ("x", "y"))
    x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))
    lowered = jax.jit(f).lower(x)
    ```

    ## Use instead
    ```python
    lowered = jax.jit(f).trace(x).lower(lowering_platforms=(jax.export.default_export_platform(),))
    ```
    or export, which picks the platform itself: `jax.export.export(jax.jit(f))(x)`.

    `jax.jit(f).lower(x, lowering_platforms=...)` would not work: `jit(f).lower` passes keywords
    on to `f`. A `.compile()` of the result then needs `device_assignment=`.

    ## Fix safety
    Safe: the call raised on every run, so no behavior that worked changes; the default value
    is the platform `jax.export` itself uses. Rewriting `jit(f).lower(*a, **k)` to
    `jit(f).trace(*a, **k).lower(...)` is safe too, since `lower` is documented as that very
    shortcut. `import jax` is added when missing. When a `.compile()` without
    `device_assignment=` follows (chained, or on the variable holding the lowered stage), it
    would raise `device_assignment cannot be None` after the fix: the fix then also adds
    `device_assignment=tuple(jax.devices()[:N])`, N being the abstract mesh's size, and is
    unsafe (which devices to use is the user's choice); with N unknown there is no fix. Mesh
    contexts visible in the module (including around callers of the enclosing function) and
    global `jax.set_mesh` calls silence the rule; a caller in another module that enters a mesh
    context is not visible, and there the explicit platform overrides the one that context
    would give.

    ## References
    - `lower_sharding_computation` in jax/_src/interpreters/pxla.py (jax 0.10.2 and 0.12.0.1),
      which raises both errors.
    - `Traced.lower` in jax/_src/stages.py, which takes the platform from the context mesh's
      abstract device; `get_ctx_mesh` in jax/_src/pjit.py, which uses an abstract context mesh
      only when it has an Explicit axis.
    """

    code = "JAX001"
    name = "missing-lowering-platforms"
    summary = "lowering with only AbstractMesh shardings needs lowering_platforms"
    settings = (
        RuleSetting(
            "platforms",
            list,
            (),
            "lowering_platforms for the fixes (`--platform`); default: "
            "`(jax.export.default_export_platform(),)`",
            "a list of platform names",
            parse=_platforms,
        ),
    )
    fixes = {
        Safety.SAFE: "add lowering_platforms (`jit(f).lower(x)` becomes `jit(f).trace(x).lower(...)`)",
        Safety.UNSAFE: "also add device_assignment when a `.compile()` follows",
    }
    # An abstract mesh, a NamedSharding or use_abstract_mesh, jit or pjit, and a `.lower(` call
    # (whitespace, comments and line continuations allowed around `lower`, and the `\n", "` of a
    # notebook's JSON, whose raw bytes the runner prefilters).
    tokens = (
        (
            rb"AbstractMesh|abstract_mesh",
            rb"NamedSharding|use_abstract_mesh",
            rb"\bp?jit\b",
            rb"\.(?:\s|\\[nrt]?|[\",]|#[^\r\n]*(?![^\r\n]))*lower(?:\s|\\[nrt]?|[\",]|#[^\r\n]*(?![^\r\n]))*\(",
        ),
    )
    raises = (
        "Passing lowering_platforms via jax.export or jit(f).trace(*args).lower(lowering_platforms=...) is "
        "required when only AbstractMesh exists in a jitted computation. Got context mesh: {mesh:context?}",
        "AbstractMesh cannot be used when jaxpr contains primitives that require devices to be present during lowering.",
    )
    raised_in = ("jax/_src/interpreters/pxla.py",)
    mesh_locals = {"context": "context_mesh"}

    @classmethod
    def screen(cls, module: ModuleFacts) -> bool:
        """A `.lower()` call (`visit_Call`) on a jitted callable (`_jitted`), and why only
        AbstractMesh is in play: an abstract mesh in a NamedSharding or a use_abstract_mesh
        context (`_abstract_only`)."""
        return (
            module.calls_method("lower")
            and module.mentions(Api.JIT)
            and module.may_build_abstract_mesh()
            and (
                module.mentions(Api.NAMED_SHARDING)
                or module.calls(Api.USE_ABSTRACT_MESH) > 0
            )
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "lower":
            return
        stage = self.analysis.resolve(func.value)
        reported = len(self.reports)
        traced = (
            isinstance(stage, cst.Call)
            and isinstance(stage.func, cst.Attribute)
            and stage.func.attr.value == "trace"
        )
        trace = node  # `jit(f).lower(x)` traces and lowers in one call
        jitted_expr = func.value
        if traced and isinstance(stage, cst.Call):  # `jit(f).trace(x).lower()`
            assert isinstance(stage.func, cst.Attribute)
            trace, jitted_expr = stage, stage.func.value
        jitted = self._jitted(jitted_expr)
        self._check(node, trace, jitted, rewrite_to_trace=not traced)
        confirmed = self.analysis.confirmed(node, self.code)
        if confirmed is not None and len(self.reports) == reported:
            # It raised, yet the code does not show why: ask again with the log's answer.
            self._check(
                node, trace, jitted, rewrite_to_trace=not traced, confirmed=confirmed
            )

    def _contradicted(self, trace: cst.Call, logged: list[MeshFacts]) -> str | None:
        """Why the log's context meshes are not what the code shows at the `.trace()`: a
        concrete mesh entered around it (JAX then has devices and does not raise this), or an
        enclosing `use_abstract_mesh` whose mesh is not the log's; None where they agree or the
        code does not show."""
        if not logged:
            return None
        concrete = self._concrete_context(trace)
        if concrete is not None:
            return changed_since_the_log(
                f"the concrete mesh `{_mesh_text(concrete)}` {concrete.shape_text()} current",
                _logged_text(logged[0], trace, kind=True),
            )
        known, context = self._context_mesh(trace)
        sites = self.analysis.contexts_at(trace)
        innermost = sites[-1].mesh if known and sites else None
        if not isinstance(innermost, MeshValue):
            return None  # no mesh entered here: a caller elsewhere may enter any
        types = not self._default_types(innermost)
        for fact in logged:
            if context is None:
                if (
                    types and not fact.is_empty
                ):  # an abstract mesh without Explicit axes
                    return changed_since_the_log(
                        f"no context mesh (`{_mesh_text(innermost)}` has no Explicit axis)",
                        _logged_text(fact, trace),
                    )
            elif (fact.is_empty and types) or (
                not fact.is_empty and contradicts(context, fact, types=types)
            ):
                return changed_since_the_log(
                    f"the context mesh {context.shape_text()}",
                    _logged_text(fact, trace),
                )
        return None

    def _concrete_context(self, trace: cst.Call) -> MeshValue | None:
        """A concrete, non-empty mesh that `jax.set_mesh`/`use_mesh` visibly enter around the
        `.trace()` (in its own function, or by a decorator of this module)."""
        for site in self.analysis.contexts_at(trace):
            mesh = site.mesh
            visible = site.is_local or (
                site.entry is Entry.DECORATOR and site.call is None
            )
            if (
                visible
                and site.api in (Api.SET_MESH, Api.USE_MESH)
                and isinstance(mesh, MeshValue)
                and not mesh.is_abstract
                and mesh.axis_sizes
                and mesh.axis_names != ()
            ):
                return mesh
        return None

    def _default_types(self, mesh: MeshValue) -> bool:
        """Whether the mesh's axis types are `AbstractMesh`'s default, which jax 0.11 changed
        from Auto to Explicit (the log may come from either)."""
        node = mesh.node
        if (
            not isinstance(node, cst.Call)
            or self.analysis.called_api(node) is not Api.ABSTRACT_MESH
        ):
            return False
        args = self.analysis.bind(node)
        types = args.get("axis_types") if args is not None else None
        return types is None or is_none(types)

    # -- the jitted callable ----------------------------------------------------------------

    def _jitted(self, expr: cst.BaseExpression) -> _Jitted | None:
        """`jax.jit(f, ...)` (reached through names: for one bound several times, the assignment
        that reaches here), or a function whose outermost decorator is `@jax.jit` or
        `@partial(jax.jit, ...)`; None unless its keywords are device-free."""
        target = self.analysis.resolve(expr)
        if (
            isinstance(target, cst.Name) and self.analysis.definition(target) is None
        ):  # bound more than once
            reaching = self.analysis.reaching_bindings(target)
            value = (
                self.analysis.bound_value(next(iter(reaching)))
                if reaching is not None and len(reaching) == 1
                else None
            )
            target = self.analysis.resolve(value) if value is not None else target
        if isinstance(target, cst.Call):
            jitted = self.analysis.jit_application(target)
            if jitted is None or jitted.function is None:
                return None
            function: cst.FunctionDef | cst.Lambda | None = self._function(
                jitted.function
            )
        elif isinstance(target, cst.Name):
            definition = self.analysis.definition(target)
            if not isinstance(definition, cst.FunctionDef) or not definition.decorators:
                return None
            jitted = self.analysis.jit_application(definition.decorators[0].decorator)
            if jitted is None or jitted.function is not None:
                return None
            function = definition
        else:
            return None
        if any(k not in _DEVICE_FREE_JIT_KEYWORDS for k in jitted.keywords):
            return None
        return _Jitted(jitted.keywords, function)

    def _function(
        self, expr: cst.BaseExpression
    ) -> cst.FunctionDef | cst.Lambda | None:
        target = self.analysis.resolve(expr)
        if isinstance(target, cst.Lambda):
            return target
        definition = (
            self.analysis.definition(target) if isinstance(target, cst.Name) else None
        )
        return definition if isinstance(definition, cst.FunctionDef) else None

    # -- why only AbstractMesh is in play ---------------------------------------------------

    def _check(
        self,
        lower: cst.Call,
        trace: cst.Call,
        jitted: _Jitted | None,
        *,
        rewrite_to_trace: bool,
        confirmed: Confirmed | None = None,
    ) -> None:
        """Whether only AbstractMesh is in play at the `.lower()`, as the module shows it or,
        `confirmed`, as the log does: it raised there, so no device was in play whatever the
        code around it does, and the message's context mesh gives the mesh size."""
        if confirmed is None:
            if jitted is None:
                return
            platforms = (
                None if rewrite_to_trace else _keyword(lower, "lowering_platforms")
            )
            if not rewrite_to_trace and any(a is not platforms for a in lower.args):
                return
        else:
            platforms = _keyword(lower, "lowering_platforms")
            refused = self._why_no_fix_from_log(
                lower, trace, jitted, platforms, confirmed, rewrite_to_trace
            )
            if refused is not None:
                self.report(lower, refused)
                return
        body = self._body_uses(jitted.function if jitted is not None else None)
        if body is None and confirmed is None:
            return
        if confirmed is not None:
            abstract_only: _AbstractOnly | None = self._logged_abstract_only(
                lower, confirmed
            )
        else:
            abstract_only = (
                self._abstract_only(trace, jitted) if jitted is not None else None
            )
        if abstract_only is None:
            return
        if body:
            why = (
                f", but only AbstractMesh is in play ({abstract_only.reason}): JAX raises"
                if confirmed is None
                else f" ({abstract_only.logged}): adding lowering_platforms would make JAX raise"
            )
            self.report(
                lower,
                f"{body[0]} needs devices at lowering{why} "
                "'AbstractMesh cannot be used when jaxpr contains primitives that require devices'; "
                "lower with a concrete mesh (jax.make_mesh shardings or jax.set_mesh) instead",
            )
            return
        given = platforms is not None and not is_none(platforms.value)
        if confirmed is None and (
            given
            or (
                abstract_only.context is not None
                and abstract_only.context.has_abstract_device
            )
        ):
            return
        self._report_missing(
            lower, platforms, abstract_only, rewrite_to_trace=rewrite_to_trace
        )

    def _why_no_fix_from_log(
        self,
        lower: cst.Call,
        trace: cst.Call,
        jitted: _Jitted | None,
        platforms: cst.Arg | None,
        confirmed: Confirmed,
        rewrite_to_trace: bool,
    ) -> str | None:
        """Why a `.lower()` the log shows raising gets no fix from it: it passes the platforms
        now, the code shows another context mesh (changed since the log), or it may be
        `jit(f).lower(...)`, whose keywords go to f."""
        logged = f"the log shows JAX raised it here ({confirmed.where})"
        if platforms is not None and not is_none(platforms.value):
            return f"`.lower()` raised for lack of lowering_platforms ({logged}), but passes them now: nothing to fix"
        changed = self._contradicted(trace, list(confirmed.evidence.meshes("context")))
        if changed is not None:
            return (
                f"`.lower()` needs lowering_platforms ({logged}); {not_fixed(changed)}"
            )
        positional = any(a.keyword is None for a in lower.args)
        if rewrite_to_trace and jitted is None and not positional:
            return (
                f"`.lower()` needs lowering_platforms ({logged}); not fixed: jaxfix cannot tell whether "
                "this is `jit(f).lower(...)`, whose keywords go to f, or a traced stage's `.lower()`"
            )
        return None

    def _logged_abstract_only(
        self, lower: cst.Call, confirmed: Confirmed
    ) -> _AbstractOnly:
        """The log's answer: JAX raised here; its context mesh, when it names one."""
        contexts = [m for m in confirmed.logged("context", lower) if not m.is_empty]
        context = contexts[0] if len(contexts) == 1 else None
        logged = f"the log shows JAX raised it here ({confirmed.where})"
        reason = logged + (
            f", under the context mesh {context.shape_text()}"
            if context is not None
            else ""
        )
        size = context.size if context is not None else None
        return _AbstractOnly(reason, context, size, logged)

    def _abstract_only(self, trace: cst.Call, jitted: _Jitted) -> _AbstractOnly | None:
        known, context = self._context_mesh(trace)
        arguments = self._traced_arguments(trace, jitted)
        if not known or arguments is None:
            return None
        meshes: list[MeshValue] = [context] if context is not None else []
        reasons: list[str] = []
        for argument in arguments:
            found = self._argument_meshes(argument)
            if found is None:
                return None
            meshes += found
            if found:
                reasons.append(
                    f"argument `{short(argument, _MAX_TEXT)}` is sharded on AbstractMesh `{_mesh_text(found[0])}`"
                )
        for keyword in ("in_shardings", "out_shardings"):
            if keyword in jitted.keywords:
                found = self._sharding_meshes(jitted.keywords[keyword])
                if found is None:
                    return None
                meshes += found
                if found:
                    reasons.append(
                        f"`{keyword}` use AbstractMesh `{_mesh_text(found[0])}`"
                    )
        if context is not None:
            reasons.insert(
                0,
                f"traced under use_abstract_mesh(`{_mesh_text(context)}`), which has an Explicit axis",
            )
        sizes = {m.size for m in meshes}
        if (
            not reasons or len(sizes - {None}) > 1
        ):  # meshes of different sizes raise another error
            return None
        if (
            None in sizes and len({id(m.node) for m in meshes}) > 1
        ):  # their sizes may differ: unknown
            return None
        one_mesh = all(
            m.node is meshes[0].node or m.equals(meshes[0]) for m in meshes[1:]
        )
        if not one_mesh and not all(
            m.axis_types is not None and set(m.axis_types) <= {AxisType.AUTO}
            for m in meshes
        ):
            return None  # JAX may raise "Mesh for all inputs should be equal" first
        return _AbstractOnly(
            reasons[0], context, sizes.pop() if len(sizes) == 1 else None
        )

    def _traced_arguments(
        self, trace: cst.Call, jitted: _Jitted
    ) -> list[cst.BaseExpression] | None:
        """The arguments that are traced (not static); None when that is unclear."""
        static_numbers = self._static_numbers(
            jitted, sum(1 for a in trace.args if a.keyword is None)
        )
        static_names = self._static_names(jitted)
        if (
            static_numbers is None
            or static_names is None
            or any(a.star for a in trace.args)
        ):
            return None
        arguments = []
        for index, arg in enumerate(trace.args):
            if arg.keyword is None and index in static_numbers:
                continue
            if arg.keyword is not None and arg.keyword.value in static_names:
                continue
            arguments.append(arg.value)
        return arguments

    def _static_numbers(self, jitted: _Jitted, count: int) -> set[int] | None:
        node = jitted.keywords.get("static_argnums")
        if node is None:
            return set()
        value = self.analysis.value_of(node)
        numbers = (value,) if isinstance(value, int) else value
        if not isinstance(numbers, tuple) or not all(
            isinstance(n, int) for n in numbers
        ):
            return None
        return {n % count if count else n for n in numbers if isinstance(n, int)}

    def _static_names(self, jitted: _Jitted) -> set[str] | None:
        node = jitted.keywords.get("static_argnames")
        if node is None:
            return set()
        value = self.analysis.value_of(node)
        names = (value,) if isinstance(value, str) else value
        if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
            return None
        return {n for n in names if isinstance(n, str)}

    def _argument_meshes(self, expr: cst.BaseExpression) -> list[MeshValue] | None:
        """The abstract meshes an argument is sharded on; None unless it surely has no devices."""
        if self.analysis.device_free.brings_no_devices(expr):
            return []  # host data or an uncommitted array: the sharded arguments decide
        node = self.analysis.resolve(expr)
        if isinstance(node, (cst.Tuple, cst.List, cst.Dict)):
            return self._each(node, self._argument_meshes)
        if (
            not isinstance(node, cst.Call)
            or self.analysis.called_api(node) is not Api.SHAPE_DTYPE_STRUCT
        ):
            return None
        args = self.analysis.bind(node)
        if args is None or not args.keys() <= _SHAPE_DTYPE_STRUCT_KEYWORDS:
            return None
        sharding = args.get("sharding")
        return [] if sharding is None else self._sharding_meshes(sharding)

    def _sharding_meshes(self, expr: cst.BaseExpression) -> list[MeshValue] | None:
        node = self.analysis.resolve(expr)
        if is_none(node):
            return []
        if isinstance(node, (cst.Tuple, cst.List, cst.Dict)):
            return self._each(node, self._sharding_meshes)
        if (
            not isinstance(node, cst.Call)
            or self.analysis.called_api(node) is not Api.NAMED_SHARDING
        ):
            return None
        args = self.analysis.bind(node)
        mesh = self.analysis.value_of(args["mesh"]) if args and "mesh" in args else None
        return [mesh] if isinstance(mesh, MeshValue) and mesh.is_abstract else None

    def _each(
        self,
        node: cst.Tuple | cst.List | cst.Dict,
        evaluate: Callable[[cst.BaseExpression], list[MeshValue] | None],
    ) -> list[MeshValue] | None:
        if isinstance(node, cst.Dict):
            if any(not isinstance(e, cst.DictElement) for e in node.elements):
                return None
            values = [e.value for e in node.elements]
        else:
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                return None
            values = [e.value for e in node.elements]
        found: list[MeshValue] = []
        for value in values:
            meshes = evaluate(value)
            if meshes is None:
                return None
            found += meshes
        return found

    def _context_mesh(self, trace: cst.Call) -> tuple[bool, MeshValue | None]:
        """(known, mesh): JAX's abstract context mesh at the `.trace()`, or None for none.

        JAX uses the innermost `use_abstract_mesh` only when it has an Explicit axis
        (`get_ctx_mesh` in jax/_src/pjit.py). Unknown when any other mesh context may be in
        force: a global `jax.set_mesh(m)` anywhere in the module, `with mesh:`, a
        set_mesh/use_mesh or unknown context manager (entered by `with` or `enter_context`), or
        anything around a use of the enclosing function (see jaxfix/analysis/contexts.py).
        """
        sites = self.analysis.contexts_at(trace)
        around = [
            s
            for s in sites
            if s.is_local or (s.entry is Entry.DECORATOR and s.call is None)
        ]
        if len(around) < len(sites) or any(
            s.api is not Api.USE_ABSTRACT_MESH for s in sites
        ):
            return False, None
        if not sites:
            return True, None
        mesh = sites[-1].mesh
        if (
            not isinstance(mesh, MeshValue)
            or not mesh.is_abstract
            or mesh.has_explicit_axis is None
        ):
            return False, None
        return True, mesh if mesh.has_explicit_axis else None

    def _body_uses(
        self, function: cst.FunctionDef | cst.Lambda | None
    ) -> list[str] | None:
        """Device-needing primitives the jitted body calls; None when it uses concrete devices."""
        if function is None:
            return []
        found: list[str] = []
        concrete = False
        rule = self

        class Scan(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                nonlocal concrete
                api = rule.analysis.called_api(node)
                if api in _DEVICE_PRIMITIVES:
                    found.append(_DEVICE_PRIMITIVES[api])
                if api in _DEVICE_APIS or (
                    api is Api.NAMED_SHARDING and rule._sharding_meshes(node) is None
                ):
                    concrete = True

            def visit_Name(self, node: cst.Name) -> None:
                nonlocal concrete
                mesh = rule.analysis.value_of(node)
                concrete = concrete or (
                    isinstance(mesh, MeshValue) and not mesh.is_abstract
                )

        function.body.visit(Scan())
        return None if concrete else found

    # -- the fix ----------------------------------------------------------------------------

    def _report_missing(
        self,
        lower: cst.Call,
        platforms: cst.Arg | None,
        abstract_only: _AbstractOnly,
        *,
        rewrite_to_trace: bool,
    ) -> None:
        value, imports = self._platforms_value()
        if rewrite_to_trace:
            trace = lower.with_changes(
                func=lower.func.with_changes(attr=cst.Name("trace"))
            )
            fixed = cst.Call(
                func=cst.Attribute(value=trace, attr=cst.Name("lower")),
                args=[keyword_arg("lowering_platforms", value)],
            )
        elif platforms is not None:
            fixed = lower.with_changes(args=[platforms.with_changes(value=value)])
        else:
            fixed = lower.with_changes(args=[keyword_arg("lowering_platforms", value)])
        message = (
            f"`.lower()` needs lowering_platforms: only AbstractMesh is in play ({abstract_only.reason}), "
            "so JAX raises 'Passing lowering_platforms ... is required when only AbstractMesh exists'"
        )
        compiles = self._compiles_without_devices(lower)
        if not compiles:
            self.report(
                lower,
                message,
                fix=Fix(
                    f"add lowering_platforms={code(value)}",
                    ((lower, fixed),),
                    Safety.SAFE,
                    imports,
                ),
            )
            return
        message += "; the .compile() that follows then needs device_assignment="
        size = abstract_only.size
        if size is None:
            self.report(lower, message + " (mesh size unknown: no fix)")
            return
        jax_name, jax_import = module_spelling(self.analysis.wrapper.module, "jax")
        devices = cst.parse_expression(f"tuple({jax_name}.devices()[:{size}])")
        first = compiles[0].func
        chained = isinstance(first, cst.Attribute) and first.value is lower
        edits: list[tuple[cst.CSTNode, cst.CSTNode]] = (
            [] if chained else [(lower, fixed)]
        )
        for call in compiles:
            func = call.func.with_changes(value=fixed) if chained else call.func
            edits.append(
                (
                    call,
                    call.with_changes(
                        func=func,
                        args=[*call.args, keyword_arg("device_assignment", devices)],
                    ),
                )
            )
        title = f"add lowering_platforms={code(value)} and device_assignment={code(devices)}"
        self.report(
            lower, message, fix=Fix(title, tuple(edits), Safety.UNSAFE, jax_import)
        )

    def _platforms_value(
        self,
    ) -> tuple[cst.BaseExpression, tuple[tuple[str, str | None], ...]]:
        platforms = self.setting("platforms")
        if platforms:
            names = ", ".join(f'"{p}"' for p in platforms)
            return cst.parse_expression(
                f"({names},)" if len(platforms) == 1 else f"({names})"
            ), ()
        jax_name, jax_import = module_spelling(self.analysis.wrapper.module, "jax")
        return cst.parse_expression(
            f"({jax_name}.export.default_export_platform(),)"
        ), jax_import

    def _compiles_without_devices(self, lower: cst.Call) -> list[cst.Call]:
        """`.compile()` calls without device_assignment= on the lowered stage: chained or via its
        variable (the reads this assignment reaches)."""
        parent = self.analysis.parents.get(lower)
        uses: list[cst.CSTNode | None]
        if isinstance(parent, cst.Attribute):
            uses = [parent]
        elif (
            isinstance(parent, cst.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            reached = self.analysis.reads_reached(
                frozenset({parent.targets[0].target})
            )  # the name may be bound again
            uses = [self.analysis.parents.get(read) for read in reached]
        else:
            return []
        calls = []
        for use in uses:
            call = (
                self.analysis.parents.get(use)
                if isinstance(use, cst.Attribute) and use.attr.value == "compile"
                else None
            )
            if (
                isinstance(call, cst.Call)
                and call.func is use
                and _keyword(call, "device_assignment") is None
            ):
                calls.append(call)
        return calls
