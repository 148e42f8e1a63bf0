"""JAX013: a mesh from `jax.make_mesh(shape, names)` without `axis_types`, used as code written
for Auto axes uses one; its axes are Explicit since JAX 0.9."""

from __future__ import annotations

import ast
import functools
import math
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.arguments import passed_argument
from jaxfix.analysis.ast_engine.contexts import setting_site
from jaxfix.analysis.ast_engine.values import (
    AxisType,
    BoundMethod,
    External,
    Instance,
    ListValue,
    Mesh,
    Sharding,
    Spec,
    Unknown,
    Value,
)
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule, keyword_arg
from jaxfix.codemods.text import not_fixed, other_file, with_note
from jaxfix.ground.diagnostics import Fix, Safety
from jaxfix.settings.options import raises_on

if TYPE_CHECKING:
    import libcst as cst

    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.analysis.ast_engine.project import Module

_WSC = frozenset(
    {
        "jax.lax.with_sharding_constraint",
        "jax.experimental.pjit.with_sharding_constraint",
        "jax._src.pjit.with_sharding_constraint",
    }
)
_SHARD_MAPS = frozenset({Api.SHARD_MAP, Api.EXPERIMENTAL_SHARD_MAP})
# Host or fresh arrays: what shard_map sees as unsharded (P(None, ...)). NumPy's are never
# sharded; these jax.numpy constructors make a replicated array unless given a sharding.
_SHAPED = ("ones", "zeros", "empty", "full")
_RANK_ONE = ("arange", "linspace")
_CONSTRUCTORS = frozenset(
    f"{module}.{name}"
    for module in ("numpy", "jax.numpy")
    for name in (*_SHAPED, *_RANK_ONE)
)
_DOTS = frozenset(
    {
        "jax.numpy.dot",
        "jax.numpy.matmul",
        "jax.numpy.einsum",
        "jax.numpy.tensordot",
        "jax.numpy.inner",
        "jax.lax.dot",
        "jax.lax.dot_general",
    }
)
_MATMULS = frozenset({"jax.numpy.dot", "jax.numpy.matmul"})
_DEVICE_PUT = frozenset({"jax.device_put", "jax._src.api.device_put"})
# NumPy arrays made from data: never sharded; their rank is at least the data's nesting.
_FROM_DATA = frozenset({"numpy.array", "numpy.asarray"})
_PLACING = frozenset({"device", "out_sharding", "sharding", "like"})
_SAME_RANK = frozenset({"astype", "copy"})
# Code written for Explicit axes: the fix would change what it relies on.
_EXPLICIT_CODE = re.compile(
    rb"\breshard\b|\bout_sharding\s*=|\btypeof\s*\(|\bexplicit_axes\b|\bauto_axes\b"
    rb"|\bAxisType\s*\.\s*Explicit\b|\bAxisType\s*\.\s*Manual\b"
)


class MakeMeshExplicitDefault(Rule):
    """
    ## What it does
    Finds a mesh made by `jax.make_mesh(shape, names)` without `axis_types`, used where JAX
    then surely raises: given to `jax.lax.with_sharding_constraint` in a
    `NamedSharding(mesh, spec)` whose spec names one of its axes (outside any mesh context),
    or to `jax.shard_map(f, mesh=mesh, in_specs=...)` (or the experimental `shard_map`;
    called, jitted, as the decorator `@jax.shard_map(mesh=..., ...)` or
    `@partial(jax.shard_map, mesh=..., ...)`, or that partial applied to a function)
    applied to a NumPy array or a fresh `jax.numpy` array (`np.arange(16.0).reshape(8, 2)`,
    `np.array([x] * n)`, `jnp.ones((8, 2))`) whose in_spec names one of its axes: written
    there, or a parameter of the enclosing function (a method, an object's `__call__`
    whose objects are only ever called, a function under `jax.jit`) that every call of it in
    the project passes so; or multiplied, `a @ b` (`jnp.matmul`, `jnp.dot`), as 2-D arrays
    of a literal shape (`jnp.ones((8, 8))`) placed by
    `jax.device_put(x, NamedSharding(mesh, P(...)))` with literal specs, directly or as
    parameters every call passes so, whose specs surely clash: one axis on both contracting
    dimensions, or on both of the result's (outside any mesh context). The engine follows
    the mesh
    through any name or import spelling ([docs/engine.md](../engine.md)); a mesh it cannot
    pin down is not reported. The fix gives the `make_mesh` call
    `axis_types=(AxisType.Auto,) * n`, its axes as they were before JAX 0.9.

    ## Why is this bad?
    Since JAX 0.9, `jax.make_mesh` makes Explicit axes unless told otherwise
    (`jax.sharding.Mesh(devices, names)` still makes Auto ones). Code written for Auto axes
    then fails (jax 0.10.2 and 0.12.0.1): `with_sharding_constraint` raises ``ValueError:
    The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto axes
    of the mesh``, eager or jitted, even when the array is already so sharded; `shard_map`
    raises ``ValueError: in_specs passed to shard_map: P('data', None) does not match the
    specs of the input: P(None, None)`` for an input not placed on its in_spec; an
    `a @ b` whose operands' contracting dimensions are sharded on one axis raises
    ``ShardingTypeError: Contracting dimensions are sharded and it is ambiguous how the
    output should be sharded``, and operands sharded in conflicting ways ``... produces an
    illegally sharded result`` (eager too). Where the code does not show the operands'
    shardings and shapes, a run's log (`--from-log`, `jaxfix repair`) names them.

    ## Example
    ```python
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    x = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("data", None)))
    ```

    ## Use instead
    ```python
    mesh = jax.make_mesh(
        (4, 2), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2
    )
    x = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("data", None)))
    ```

    ## Fix safety
    Unsafe: the mesh's axes become Auto for every use of it, not only the one that raises.
    Where the module holds code written for Explicit axes (`reshard`, `out_sharding=`,
    `jax.typeof(...)`, `explicit_axes`/`auto_axes`, `AxisType.Explicit`), or the
    `make_mesh` call is in another module, the report comes without a fix. A
    `with_sharding_constraint` under `jax.set_mesh` is an assertion on the array's sharding
    (``AssertionError: `with_sharding_constraint` acts as an assert when all axes of mesh
    are of type `Explicit` ``), which the code does not show: not reported. Not reported
    either on a target JAX before 0.9, nor a `shard_map` given `axis_names=` (jax 0.10.2 runs
    it, 0.12.0.1 raises).

    ## References
    - `make_mesh` in jax/_src/sharding_impls.py, whose axes default to Explicit;
      `check_shardings_are_auto` in jax/_src/pjit.py, shard_map's `wrapped` in
      jax/_src/shard_map.py, `_dot_general_sharding_rule` in jax/_src/lax/lax.py and
      `call_shape_dtype_sharding_rule` in jax/_src/lax/utils.py (jax 0.10.2 and 0.12.0.1),
      which raise.
    """

    code = "JAX013"
    name = "make-mesh-explicit-default"
    summary = (
        "a jax.make_mesh mesh without axis_types (Explicit since JAX 0.9) used as Auto"
    )
    fixes = {Safety.UNSAFE: "give make_mesh `axis_types=(AxisType.Auto,) * n`"}
    tokens = ((b"with_sharding_constraint",), (b"shard_map",), (b"device_put",))
    raises = (
        "The spec of NamedSharding passed to with_sharding_constraint can only refer to "
        "Auto axes of the mesh. Got spec={text}",
        "in_specs passed to shard_map: {text} does not match the specs of the input: {text}",
        "Contracting dimensions are sharded and it is ambiguous how the output should be "
        "sharded. Please specify the output sharding via the `out_sharding` parameter.",
        "dot_general operation with inputs: {text} produces an illegally sharded result",
    )
    error = ("ValueError", "ValueError", "ShardingTypeError", "ShardingTypeError")
    raised_in = (
        "jax/_src/pjit.py",
        "jax/_src/shard_map.py",
        "jax/_src/lax/lax.py",
        "jax/_src/lax/utils.py",
    )
    raises_since = "0.9"

    def visit_Call(self, node: ast.Call) -> None:
        found = None
        if raises_on(self.raises_since, self.options.jax_version):
            found = self._constraint(node) or self._shard_map(node)
            if found is None and not node.keywords and len(node.args) == 2:
                callee = self.analysis.value_of(node.func)
                if isinstance(callee, External) and callee.name in _MATMULS:
                    found = self._matmul(node, *node.args)
        if found is None:
            if (
                self._from_a_run
                and self._may_raise(node)
                and self.analysis.confirmed(node, self.code)
            ):
                self._confirmed(node)
            return
        mesh, what = found
        if self.expected(node):
            return
        self._report(node, mesh, what)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        """`a @ b` of operands placed so that it surely raises, or where a run's log shows
        the dot_general's error."""
        if not isinstance(node.op, ast.MatMult):
            return
        if raises_on(self.raises_since, self.options.jax_version):
            found = self._matmul(node, node.left, node.right)
            if found is not None:
                if not self.expected(node):
                    self._report(node, *found)
                return
        if (
            self._from_a_run
            and isinstance(node.op, ast.MatMult)
            and self.analysis.confirmed(node, self.code)
        ):
            self._confirmed(node)

    # -- with_sharding_constraint -----------------------------------------------------------

    def _constraint(self, node: ast.Call) -> tuple[Mesh, str] | None:
        analysis = self.analysis
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr != "with_sharding_constraint":
                return None
        elif not isinstance(func, ast.Name):
            return None
        callee = analysis.value_of(func)
        if not isinstance(callee, External) or callee.name not in _WSC:
            return None
        shardings = passed_argument(node, 1, "shardings")
        if shardings is None:
            return None
        for sharding in _leaves(analysis.value_of(shardings)):
            if not isinstance(sharding, Sharding) or not isinstance(
                sharding.mesh, Mesh
            ):
                continue
            mesh = sharding.mesh
            axis = _named_axis(sharding.spec, mesh)
            if axis is None or not self._explicit_by_default(mesh):
                continue
            if not self._outside_contexts(node):
                return None  # an assertion on the array's sharding there
            return mesh, (
                f"with_sharding_constraint names its Explicit axis {axis!r}: JAX raises "
                "ValueError: The spec of NamedSharding passed to with_sharding_constraint "
                "can only refer to Auto axes of the mesh"
            )
        return None

    def _outside_contexts(self, node: ast.AST) -> bool:
        """Whether no way the call runs enters a mesh context."""
        return all(setting_site(way) is None for way in self.analysis.ways_at(node))

    # -- shard_map applied to unsharded arrays ----------------------------------------------

    def _shard_map(self, node: ast.Call) -> tuple[Mesh, str] | None:
        analysis = self.analysis
        if not node.args or node.keywords:
            return None
        if any(isinstance(a, ast.Starred) for a in node.args):
            return None
        args = self._mapped(node.func)
        if (
            args is None
            or "axis_names" in args
            or "mesh" not in args
            or "in_specs" not in args
        ):
            return None
        mesh = analysis.value_of(args["mesh"])
        if not isinstance(mesh, Mesh) or not self._explicit_by_default(mesh):
            return None
        specs = analysis.value_of(args["in_specs"])
        if isinstance(specs, Spec):
            per_argument: list[Value] = [specs] * len(node.args)
        elif isinstance(specs, tuple) and len(specs) == len(node.args):
            per_argument = list(specs)
        else:
            return None
        for argument, spec in zip(node.args, per_argument):
            if not isinstance(spec, Spec):
                continue
            axis = _named_axis(spec, mesh)
            rank = self._unsharded_rank(argument)
            if axis is None or rank is None or len(spec.parts) > rank:
                continue
            return mesh, (
                f"shard_map's in_specs name its Explicit axis {axis!r} but "
                f"`{analysis.text(argument)}` is not sharded so: JAX raises ValueError: "
                "in_specs passed to shard_map: ... does not match the specs of the input"
            )
        return None

    def _mapped(self, func: ast.expr) -> dict[str, ast.expr] | None:
        """The arguments of the `shard_map(...)` that `func` is, names, jits
        (`jax.jit(shard_map(...))`) or decorates (`@jax.shard_map(mesh=..., ...)`,
        `@partial(jax.shard_map, mesh=..., ...)` over the `def` it names)."""
        analysis = self.analysis
        written = analysis.written_as(func) if isinstance(func, ast.Name) else func
        if isinstance(written, ast.Call):
            if analysis.called_api(written) in _SHARD_MAPS:
                return analysis.bind(written)
            if (
                isinstance(written.func, ast.Call)
                and len(written.args) == 1
                and not isinstance(written.args[0], ast.Starred)
                and not written.keywords
            ):
                # `partial(jax.shard_map, mesh=..., ...)(f)`: the decorator, applied
                return self._decorating(written.func)
            application = analysis.jit_application(written)
            if (
                application is None
                or application.function is None
                or application.keywords
            ):
                return None
            inner = application.function
            if isinstance(inner, ast.Name):
                inner = analysis.written_as(inner)
            if isinstance(inner, ast.Call) and analysis.called_api(inner) in (
                _SHARD_MAPS
            ):
                return analysis.bind(inner)
            return None
        if not isinstance(func, ast.Name):
            return None
        function = analysis.definition(func)
        if function is None or len(function.decorator_list) != 1:
            return None
        return self._decorating(function.decorator_list[0])

    def _decorating(self, decorator: ast.expr) -> dict[str, ast.expr] | None:
        """The shard_map keywords of `@jax.shard_map(**keywords)` or
        `@partial(jax.shard_map, **keywords)`."""
        analysis = self.analysis
        if not isinstance(decorator, ast.Call) or decorator.args[1:]:
            return None
        if any(k.arg is None for k in decorator.keywords):
            return None
        keywords = {k.arg: k.value for k in decorator.keywords if k.arg}
        api = analysis.called_api(decorator)
        if api is Api.SHARD_MAP and not decorator.args:
            return keywords
        if (
            api is Api.PARTIAL
            and decorator.args
            and analysis.api_of(decorator.args[0]) in _SHARD_MAPS
        ):
            return keywords
        return None

    def _unsharded_rank(
        self,
        argument: ast.expr,
        analysis: Analysis | None = None,
        *,
        exact: bool = False,
    ) -> int | None:
        """The rank of an array the code makes unsharded (a NumPy array, or a `jax.numpy`
        constructor's without a sharding), where the code shows it; for a parameter of the
        enclosing function, the least rank every call of it in the project passes so; else
        None. `exact`: only a rank the code surely gives (a shape written out)."""
        analysis = analysis or self.analysis
        if isinstance(argument, ast.Name) and not exact:
            function = _parameter_of(analysis, argument)
            if function is not None:
                return self._passed_rank(analysis, function, argument.id)
        expr = (
            analysis.written_as(argument)
            if isinstance(argument, ast.Name)
            else argument
        )
        rank: int | None = None
        while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
            method = expr.func.attr
            if method == "reshape" and rank is None:
                rank = _shape_rank(expr.args) if not expr.keywords else None
                if rank is None:
                    return None
            elif method not in _SAME_RANK:
                break
            expr = expr.func.value
        if not isinstance(expr, ast.Call) or any(
            k.arg is None or k.arg in _PLACING for k in expr.keywords
        ):
            return None
        callee = analysis.value_of(expr.func)
        if isinstance(callee, External) and callee.name in _FROM_DATA:
            if exact:
                return None
            made = _display_rank(expr.args[0]) if expr.args else None
            return None if made is None else made if rank is None else rank
        if not isinstance(callee, External) or callee.name not in _CONSTRUCTORS:
            return None
        short = callee.name.rsplit(".", 1)[1]
        made = (
            1
            if short in _RANK_ONE
            else _shape_rank(expr.args[:1])
            if expr.args
            else None
        )
        if made is None:
            return None
        return made if rank is None else rank

    def _passed_rank(
        self,
        analysis: Analysis,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        name: str,
    ) -> int | None:
        """The least rank of the unsharded arrays every call of `function` in the project
        passes for its parameter `name`; None when a call is unknown or passes anything
        else."""
        calls = _calls_of(analysis, function)
        klass = analysis.parents.get(function)
        if not calls:
            return None
        ranks = []
        for module, call in calls:
            there = analysis.of(module)
            passed = _passed(there, call, function, name, klass)
            if passed is None:
                return None
            if isinstance(passed, ast.Name) and _parameter_of(there, passed):
                return None  # passed on from the caller's own caller: not followed
            rank = self._unsharded_rank(passed, there)
            if rank is None:
                return None
            ranks.append(rank)
        return min(ranks)

    # -- a matmul of placed operands ----------------------------------------------------

    def _matmul(
        self, node: ast.Call | ast.BinOp, left: ast.expr, right: ast.expr
    ) -> tuple[Mesh, str] | None:
        """`a @ b` (`jnp.matmul`, `jnp.dot`) of 2-D arrays placed on one make_mesh mesh
        without axis types by specs that surely clash, for every array the code passes."""
        lefts = self._placements(left)
        rights = self._placements(right) if lefts else None
        if not lefts or not rights:
            return None
        mesh = lefts[0][0]
        if not self._explicit_by_default(mesh):
            return None
        clashes = set()
        for a_mesh, (a0, a1) in lefts:
            for b_mesh, (b0, b1) in rights:
                if a_mesh.origin is not mesh.origin or b_mesh.origin is not mesh.origin:
                    return None
                if a1 is not None and a1 == b0:
                    clashes.add("contracting")
                elif a1 is None and b0 is None and _axes(a0) & _axes(b1):
                    clashes.add("conflicting")
                else:
                    return None
        if len(clashes) != 1 or not self._outside_contexts(node):
            return None
        text = self.analysis.text(node)
        if clashes == {"contracting"}:
            return mesh, (
                f"`{text}` contracts dimensions both sharded on one of its Explicit axes: "
                "JAX raises ShardingTypeError: Contracting dimensions are sharded and it is "
                "ambiguous how the output should be sharded"
            )
        return mesh, (
            f"`{text}` would shard both dimensions of its result on one of its Explicit "
            "axes: JAX raises ShardingTypeError: dot_general operation with inputs: ... "
            "produces an illegally sharded result"
        )

    def _placements(
        self, operand: ast.expr
    ) -> list[tuple[Mesh, tuple[object, object]]] | None:
        """The mesh and the two dimensions' spec parts of the 2-D array `operand` is, placed
        by `jax.device_put(x, NamedSharding(mesh, P(...)))`; for a parameter of the
        enclosing function, those of every call of it in the project; else None."""
        analysis = self.analysis
        if isinstance(operand, ast.Name):
            function = _parameter_of(analysis, operand)
            if function is not None:
                calls = _calls_of(analysis, function)
                if not calls:
                    return None
                klass = analysis.parents.get(function)
                found = []
                for module, call in calls:
                    there = analysis.of(module)
                    passed = _passed(there, call, function, operand.id, klass)
                    if passed is None or (
                        isinstance(passed, ast.Name) and _parameter_of(there, passed)
                    ):
                        return None
                    placed = self._placed(passed, there)
                    if placed is None:
                        return None
                    found.append(placed)
                return found
        placed = self._placed(operand, analysis)
        return None if placed is None else [placed]

    def _placed(
        self, operand: ast.expr, analysis: Analysis
    ) -> tuple[Mesh, tuple[object, object]] | None:
        expr = (
            analysis.written_as(operand) if isinstance(operand, ast.Name) else operand
        )
        if (
            not isinstance(expr, ast.Call)
            or len(expr.args) != 2
            or expr.keywords
            or any(isinstance(a, ast.Starred) for a in expr.args)
        ):
            return None
        callee = analysis.value_of(expr.func)
        if not isinstance(callee, External) or callee.name not in _DEVICE_PUT:
            return None
        data = expr.args[0]
        if isinstance(data, ast.Name) and _parameter_of(analysis, data):
            return None
        shape = _literal_shape(analysis, data)
        if (
            shape is None
            or len(shape) != 2
            or self._unsharded_rank(data, analysis, exact=True) != 2
        ):
            return None
        sharding = analysis.value_of(expr.args[1])
        if not isinstance(sharding, Sharding) or not isinstance(sharding.mesh, Mesh):
            return None
        spec = sharding.spec
        names = sharding.mesh.axis_names
        if (
            not isinstance(spec, Spec)
            or spec.unreduced
            or spec.reduced
            or names is None
            or len(spec.parts) > 2
        ):
            return None
        sizes = sharding.mesh.axis_sizes or ()
        for part, length in zip(spec.parts, shape):
            axes = part if isinstance(part, tuple) else (part,)
            if part is None:
                continue
            if not all(isinstance(a, str) and a in names for a in axes):
                return None
            shards = [
                sizes[names.index(a)] if len(sizes) == len(names) else None
                for a in axes
            ]
            if None in shards or length % math.prod(shards):  # type: ignore[arg-type]  # None ruled out
                return None  # device_put raises first
        parts = (*spec.parts, None, None)
        return sharding.mesh, (parts[0], parts[1])

    # -- the mesh and the fix ---------------------------------------------------------------

    def _explicit_by_default(self, mesh: Mesh) -> bool:
        """A concrete mesh made by `make_mesh(...)` without axis types: Explicit by default."""
        origin = mesh.origin
        if (
            mesh.is_abstract
            or not isinstance(origin, ast.Call)
            or mesh.axis_types is None
            or not all(t is AxisType.EXPLICIT for t in mesh.axis_types)
        ):
            return False
        func = origin.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name != "make_mesh" and not (
            origin in self.analysis.parents
            and self.analysis.called_api(origin) is Api.MAKE_MESH
        ):
            return False
        return (
            len(origin.args) < 3
            and not any(isinstance(a, ast.Starred) for a in origin.args)
            and all(k.arg not in ("axis_types", None) for k in origin.keywords)
        )

    def _report(self, node: ast.Call | ast.BinOp, mesh: Mesh, what: str) -> None:
        analysis = self.analysis
        origin = mesh.origin
        assert isinstance(origin, ast.Call)
        here = origin in analysis.parents
        place = None if here else analysis.place(origin)
        built = (
            f"`{analysis.text(origin)}` (line {analysis.line(origin)})"
            if here
            else f"a `jax.make_mesh(...)` at {other_file(place[0], analysis.path)}:{place[1]}"
            if place is not None
            else "a `jax.make_mesh(...)` of another module"
        )
        message = (
            f"the mesh is made by {built} without axis_types, so its axes are Explicit "
            f"since JAX 0.9; {what}"
        )
        why = self._why_not_fixed(origin, mesh)
        if why is not None:
            self.report(node, with_note(message, not_fixed(why)))
            return
        count = len(mesh.axis_types or ())
        spelled, imports = self._axis_type_spelling()
        fix = Fix(
            "give make_mesh Auto axis types",
            ((origin, _with_axis_types(f"({spelled}.Auto,) * {count}")),),
            Safety.UNSAFE,
            imports,
        )
        self.report(node, message, fix=fix)

    def _why_not_fixed(self, origin: ast.Call, mesh: Mesh) -> str | None:
        if origin not in self.analysis.parents:
            return "the make_mesh call is in another module"
        if mesh.axis_types is None:
            return "how many axes the mesh has the code does not show"
        if any(k.arg is None for k in origin.keywords):
            return "the make_mesh call passes **keywords"
        if self._explicit_code:
            return (
                "this module holds code written for Explicit axes (reshard, out_sharding=, "
                "jax.typeof, explicit_axes/auto_axes, AxisType.Explicit), which Auto axes "
                "would change"
            )
        return None

    @functools.cached_property
    def _explicit_code(self) -> bool:
        return _EXPLICIT_CODE.search(self.analysis.source) is not None

    def _axis_type_spelling(self) -> tuple[str, tuple[tuple[str, str | None], ...]]:
        """`AxisType` as the module spells it: its own import of it, else through its import
        of `jax.sharding` or `jax`, else a `from jax.sharding import AxisType` added."""
        tree = self.analysis.module.tree
        for statement in tree.body:
            if isinstance(statement, ast.ImportFrom) and not statement.level:
                for alias in statement.names:
                    if (
                        statement.module in ("jax.sharding", "jax._src.mesh")
                        and alias.name == "AxisType"
                    ):
                        return alias.asname or alias.name, ()
        for statement in tree.body:
            if not isinstance(statement, ast.Import):
                continue
            for alias in statement.names:
                if alias.name == "jax.sharding" and alias.asname:
                    return f"{alias.asname}.AxisType", ()
                if alias.name == "jax" and alias.asname:
                    return f"{alias.asname}.sharding.AxisType", ()
                if alias.asname is None and alias.name.split(".")[0] == "jax":
                    return "jax.sharding.AxisType", ()
        return "AxisType", (("jax.sharding", "AxisType"),)

    # -- a run's log ------------------------------------------------------------------------

    @functools.cached_property
    def _from_a_run(self) -> bool:
        """Whether a run's log or record shows this rule's error in this module."""
        return any(e.code == self.code for e in self.analysis.evidence.evidence or ())

    def _may_raise(self, node: ast.Call) -> bool:
        """A call that may raise one of the rule's errors: with_sharding_constraint, a
        shard_map's function, a dot or einsum (a log's line names the innermost)."""
        callee = self.analysis.value_of(node.func)
        if isinstance(callee, External):
            return callee.name in _WSC or callee.name in _DOTS
        return self._mapped(node.func) is not None

    def _confirmed(self, node: ast.Call | ast.BinOp) -> None:
        """A run's log shows the error raised here, which the code alone does not prove: the
        report names the cause, with a fix where the mesh is one the engine pins down to a
        `jax.make_mesh(...)` without axis types (the call's, or the module's only one)."""
        if self.expected(node):
            return
        meshes = self._meshes_given(node) or list(self._meshes_made_here())
        what = "the log shows JAX raised this error here"
        if len(meshes) == 1:
            self._report(node, meshes[0], what)
            return
        note = (
            "which mesh it is the code does not show"
            if not meshes
            else "this module makes several meshes with jax.make_mesh(...)"
        )
        message = (
            f"{what}: since JAX 0.9 `jax.make_mesh` makes Explicit axes unless given "
            "axis_types, and code written for Auto axes fails so; give the mesh "
            "`axis_types=(jax.sharding.AxisType.Auto,) * n`"
        )
        self.report(node, with_note(message, not_fixed(note)))

    def _meshes_given(self, node: ast.Call | ast.BinOp) -> list[Mesh]:
        """The make_mesh mesh without axis types a with_sharding_constraint's sharding or a
        shard_map's `mesh=` is, where the engine pins it down."""
        analysis = self.analysis
        if not isinstance(node, ast.Call):
            return []
        values: list[Value] = []
        callee = analysis.value_of(node.func)
        if isinstance(callee, External) and callee.name in _WSC:
            shardings = passed_argument(node, 1, "shardings")
            if shardings is not None:
                values = [
                    s.mesh
                    for s in _leaves(analysis.value_of(shardings))
                    if isinstance(s, Sharding)
                ]
        args = self._mapped(node.func)
        if args is not None and "mesh" in args:
            values = [analysis.value_of(args["mesh"])]
        found: list[Mesh] = []
        for value in values:
            if (
                isinstance(value, Mesh)
                and self._explicit_by_default(value)
                and all(value.origin is not m.origin for m in found)
            ):
                found.append(value)
        return found

    def _meshes_made_here(self) -> Iterator[Mesh]:
        analysis = self.analysis
        for call in ast.walk(analysis.module.tree):
            if (
                isinstance(call, ast.Call)
                and analysis.called_api(call) is Api.MAKE_MESH
            ):
                value = analysis.value_of(call)
                if isinstance(value, Mesh) and self._explicit_by_default(value):
                    yield value


def _parameter_of(
    analysis: Analysis, name: ast.Name
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose parameter every binding reaching the read `name` is."""
    bindings = analysis.engine.evaluator.reaching(analysis.module, name)
    if not bindings or len(bindings) != 1:
        return None
    binding = next(iter(bindings))
    if binding.kind != "param":
        return None
    function = analysis.parents.get(analysis.parents.get(binding.node))  # type: ignore[arg-type]  # a parameter's node has parents
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return function if analysis.is_parameter(name, function) else None


def _calls_of(
    analysis: Analysis, function: ast.FunctionDef | ast.AsyncFunctionDef
) -> list[tuple[Module, ast.Call]] | None:
    """Every call of `function` in the project: through a decorator only where it is the one
    `jax.jit`, which passes the arguments on as they are; None where another use is seen."""
    klass = analysis.parents.get(function)
    if function.name == "__call__" and isinstance(klass, ast.ClassDef):
        return None if function.decorator_list else _instance_calls(analysis, klass)
    if not function.decorator_list:
        found = analysis.calls_passing(function)
        return None if isinstance(found, Unknown) else found
    if len(function.decorator_list) != 1:
        return None
    application = analysis.jit_application(function.decorator_list[0])
    if application is None or application.function is not None:
        return None
    calls = analysis.engine.evaluator.calls_of(
        analysis.module, function, through_decorators=True
    )
    if isinstance(calls, Unknown):
        return None
    return [(module, call) for module, call, _ in calls]


def _instance_calls(
    analysis: Analysis, klass: ast.ClassDef
) -> list[tuple[Module, ast.Call]] | None:
    """The calls of the objects of `klass` (its `__call__`): each object built by a call of
    its own `__init__` (every such call in the project) and bound to a name by a plain
    assignment whose every read calls it; a module's name another module may import, or any
    other use of an object, and None."""
    init = next(
        (
            s
            for s in klass.body
            if isinstance(s, ast.FunctionDef) and s.name == "__init__"
        ),
        None,
    )
    if init is None:
        return None
    made = analysis.calls_passing(init)
    if isinstance(made, Unknown) or not made:
        return None
    calls = []
    for module, construct in made:
        there = analysis.of(module)
        statement = there.parents.get(construct)
        if (
            not isinstance(statement, ast.Assign)
            or statement.value is not construct
            or len(statement.targets) != 1
            or not isinstance(statement.targets[0], ast.Name)
        ):
            return None
        name = statement.targets[0].id
        if module.scope_of(statement) is module.tree:
            others = analysis.engine.project.candidate_files(name, module.path)
            if isinstance(others, Unknown) or any(p != module.path for p in others):
                return None
        reads = there.reads_reached(statement, name)
        if not reads or len(reads) != len(module.loads_by_name.get(name, ())):
            return None  # read where another binding may reach too, or not by name
        for read in reads:
            call = there.parents.get(read)
            if (
                not there.bound_once(read)
                or not isinstance(call, ast.Call)
                or call.func is not read
            ):
                return None
            calls.append((module, call))
    return calls


def _passed(
    analysis: Analysis,
    call: ast.Call,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    klass: ast.AST | None,
) -> ast.expr | None:
    """The expression `call` passes for `function`'s parameter `name` (a method's: called
    on an object, `obj.method(...)`); None where it does not show."""
    a = function.args
    params = [p.arg for p in (*a.posonlyargs, *a.args)]
    if isinstance(klass, ast.ClassDef):
        called = analysis.value_of(call.func)
        if not (
            isinstance(call.func, ast.Attribute)
            and isinstance(called, BoundMethod)
            or function.name == "__call__"
            and isinstance(called, Instance)
            and called.cls.node is klass
        ):
            return None
        params = params[1:]  # the object the method is called on
    if a.posonlyargs and any(k.arg == name for k in call.keywords):
        return None
    if any(isinstance(x, ast.Starred) for x in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if name in params and params.index(name) < len(call.args):
        return call.args[params.index(name)]
    return None


def _leaves(value: Value) -> Iterator[Value]:
    if isinstance(value, tuple):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, ListValue):
        for item in value.items:
            yield from _leaves(item)
    else:
        yield value


def _axes(part: object) -> set[object]:
    """The axis names a spec part shards a dimension on."""
    if part is None:
        return set()
    return set(part) if isinstance(part, tuple) else {part}


def _named_axis(spec: Value, mesh: Mesh) -> str | None:
    """The first axis of `mesh` the spec names (a plain spec: no unreduced or reduced axes)."""
    if not isinstance(spec, Spec) or spec.unreduced or spec.reduced:
        return None
    names = mesh.axis_names or ()
    for part in spec.parts:
        for axis in part if isinstance(part, tuple) else (part,):
            if isinstance(axis, str) and axis in names:
                return axis
    return None


def _display_rank(data: ast.expr) -> int | None:
    """At least how many dimensions NumPy makes of `data` written as nested displays
    (`[x] * n`, `[[1, 2], [3, 4]]`, `[f(i) for i in r]`); None for anything else."""
    depth = 0
    while True:
        if isinstance(data, ast.BinOp) and isinstance(data.op, ast.Mult):
            data = (
                data.left
                if isinstance(data.left, (ast.List, ast.Tuple))
                else data.right
            )
        if isinstance(data, (ast.List, ast.Tuple)) and data.elts:
            if any(isinstance(e, ast.Starred) for e in data.elts):
                return depth + 1
            depth += 1
            data = data.elts[0]
        elif isinstance(data, ast.ListComp):
            depth += 1
            data = data.elt
        else:
            return depth or None


def _literal_shape(analysis: Analysis, data: ast.expr) -> tuple[int, ...] | None:
    """The shape of an array written as a `jax.numpy`/NumPy constructor of a literal shape
    (`jnp.ones((8, 8))`), or reshaped to one (`.reshape(8, 8)`); else None."""
    expr = analysis.written_as(data) if isinstance(data, ast.Name) else data
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if expr.func.attr == "reshape":
            return _literal_ints(expr.args) if not expr.keywords else None
        if expr.func.attr not in _SAME_RANK:
            break
        expr = expr.func.value
    if not isinstance(expr, ast.Call) or not expr.args:
        return None
    callee = analysis.value_of(expr.func)
    if not isinstance(callee, External) or callee.name not in _CONSTRUCTORS:
        return None
    if callee.name.rsplit(".", 1)[1] not in _SHAPED:
        return None
    return _literal_ints(expr.args[:1])


def _literal_ints(args: list[ast.expr]) -> tuple[int, ...] | None:
    """A shape written as int literals: `(8, 2)`, `8, 2`, `8`."""
    items = (
        args[0].elts
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List))
        else args
    )
    if not items or not all(
        isinstance(i, ast.Constant) and type(i.value) is int for i in items
    ):
        return None
    return tuple(i.value for i in items)  # type: ignore[attr-defined]  # Constants, checked


def _shape_rank(args: list[ast.expr]) -> int | None:
    """The rank a shape written as these arguments gives: `(8, 2)`, `8, 2`, `8`."""
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        items = args[0].elts
    else:
        items = args
    if not items or any(isinstance(i, ast.Starred) for i in items):
        return None
    if (
        not all(isinstance(i, ast.Constant) and isinstance(i.value, int) for i in items)
        and len(args) == 1
        and not isinstance(args[0], (ast.Tuple, ast.List))
    ):
        return None  # one argument that is no literal: a shape of unknown rank
    return len(items)


def _with_axis_types(text: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def edit(old: cst.CSTNode) -> cst.CSTNode:
        import libcst as cst  # for the fix, written only when it is applied

        assert isinstance(old, cst.Call)
        args = list(old.args)
        if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
            args[-1] = args[-1].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
        return old.with_changes(
            args=[*args, keyword_arg("axis_types", cst.parse_expression(text))]
        )

    return edit
