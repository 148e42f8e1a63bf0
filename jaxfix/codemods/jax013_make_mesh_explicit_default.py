"""JAX013: a mesh from `jax.make_mesh(shape, names)` without `axis_types`, used as code written
for Auto axes uses one; its axes are Explicit since JAX 0.9."""

from __future__ import annotations

import ast
import functools
import math
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeAlias, cast

from jaxfix.analysis.ast_engine.arguments import passed_argument
from jaxfix.analysis.ast_engine.contexts import Entry, setting_site
from jaxfix.analysis.ast_engine.shard_map_keywords import (
    SHARD_MAPS,
    decorator_keywords,
)
from jaxfix.analysis.ast_engine.spelling import Imports
from jaxfix.analysis.ast_engine.values import (
    Array,
    AxisType,
    External,
    ListValue,
    Mesh,
    MeshContext,
    Sharding,
    Spec,
    Value,
)
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule, keyword_arg
from jaxfix.codemods.text import not_fixed, other_file, with_note
from jaxfix.evidence.facts import Evidence
from jaxfix.ground.diagnostics import Fix, Safety
from jaxfix.settings.options import raises_on

if TYPE_CHECKING:
    import libcst as cst


_WSC = frozenset(
    {
        "jax.lax.with_sharding_constraint",
        "jax.experimental.pjit.with_sharding_constraint",
        "jax._src.pjit.with_sharding_constraint",
    }
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
_CONSTRAINT_WORDS = (b"with_sharding_constraint", b"shard_map", b"device_put")
_DOT_NAMES = frozenset(name.rpartition(".")[2] for name in _DOTS)
_WSC_NAMES = frozenset(name.rpartition(".")[2] for name in _WSC)
_MATMULS = frozenset({"jax.numpy.dot", "jax.numpy.matmul", "jax.lax.dot"})
# The two operands of a contraction and the one dimension of each it contracts.
_Contracted: TypeAlias = tuple[tuple[ast.expr, ast.expr], tuple[int, int]]
# Code written for Explicit axes: the fix would change what it relies on.
_EXPLICIT_CODE = re.compile(
    rb"\breshard\b|\bout_sharding\s*=|\btypeof\s*\(|\bexplicit_axes\b|\bauto_axes\b"
    rb"|\bAxisType\s*\.\s*Manual\b"
)
_EXPLICIT_TYPE = re.compile(rb"\bAxisType\s*\.\s*Explicit\b")
_MESH_CONSTRUCTORS = frozenset({"Mesh", "AbstractMesh", "make_mesh"})
_NAMES_COMPUTED = (
    "the mesh's axis names are computed in the call: how many axes each call of this "
    "factory makes the code does not show"
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
    applied to an array the engine knows is unsharded (a NumPy array, a `jax.numpy` or
    `jax.random` array made without a sharding: `np.arange(16.0).reshape(8, 2)`,
    `np.array([x] * n)`, `jnp.ones((8, 2))`, passed through any functions, a method, an
    object's `__call__` or a jitted function, or made in another module) whose in_spec names
    one of its axes, or to an array placed on a NamedSharding of the mesh with a spec other
    than its in_spec (both padded to the array's known rank, every axis named of a size above
    1); or contracted, `a @ b` (`jnp.matmul`, `jnp.dot`, `lax.dot`,
    `jnp.einsum("ij,jk->ik", a, b)`, `jnp.tensordot(a, b, axes=1)`,
    `lax.dot_general(a, b, (((1,), (0,)), ((), ())))`), as 2-D arrays of a shape the code
    shows placed on NamedShardings of the mesh (by `jax.device_put` here or in a helper of
    another module) whose specs surely clash: one axis on both contracting dimensions, or on
    both of the result's (outside any mesh context); or indexed by an array, `emb[tokens]`
    (an unsharded array of one or more dimensions, in a module that also holds one of the
    calls above), as an array placed on a NamedSharding of the mesh whose first dimension
    is sharded (eager or jitted, outside any mesh context or under `jax.set_mesh` of that
    mesh). The engine follows the mesh and arrays
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
    illegally sharded result`` (eager too); `emb[tokens]` of an embedding sharded on its
    first dimension raises ``ShardingTypeError: Use `.at[...].get(out_sharding=)` to provide
    output PartitionSpec for the gather indexing``. Where the code does not show the operands'
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
    `jax.typeof(...)`, `explicit_axes`/`auto_axes`, `AxisType.Explicit` other than in
    another mesh's `axis_types=`, directly or through a constant or helper only used so), or
    the `make_mesh` call is in another module, the report comes without a fix; from a
    recorded run (`jaxfix repair`, `--evidence`) the run's shard_map mesh made by a
    `make_mesh` of another of its files (a factory, `create_mesh(dims, names)`) gets the fix
    there, `* len(names)` where the names are a name it is given (each caller's count), the
    number where they are a literal. A
    `with_sharding_constraint` under `jax.set_mesh` is an assertion on the array's sharding
    (``AssertionError: `with_sharding_constraint` acts as an assert when all axes of mesh
    are of type `Explicit` ``), which the code does not show: reported only from a run
    that raised it (`jaxfix repair`, `--from-log`), on the mesh the sharding or the context
    (for a bare spec) gives. Not reported
    either on a target JAX before 0.9, nor a `shard_map` given `axis_names=` (jax 0.10.2 runs
    it, 0.12.0.1 raises).

    ## References
    - `make_mesh` in jax/_src/sharding_impls.py, whose axes default to Explicit;
      `check_shardings_are_auto` in jax/_src/pjit.py, shard_map's `wrapped` in
      jax/_src/shard_map.py, `_dot_general_sharding_rule` in jax/_src/lax/lax.py and
      `call_shape_dtype_sharding_rule` in jax/_src/lax/utils.py, `_gather_sharding_rule` in
      jax/_src/lax/slicing.py (jax 0.10.2 and 0.12.0.1), which raise.
    """

    code = "JAX013"
    name = "make-mesh-explicit-default"
    summary = (
        "a jax.make_mesh mesh without axis_types (Explicit since JAX 0.9) used as Auto"
    )
    fixes = {Safety.UNSAFE: "give make_mesh `axis_types=(AxisType.Auto,) * n`"}
    tokens = (
        (b"with_sharding_constraint",),
        (b"shard_map",),
        (rb"[\w)\]] *@[\s(=]",),  # `a @ b`, `a @= b`: not a decorator, not an address
        # the calls `_contracted` reads, not the words (`dotted`, `jnp.dot` passed on)
        (rb"\bmatmul\s*\(",),
        (rb"\bdot\s*\(",),
        (rb"\beinsum\s*\(",),
        (rb"\btensordot\s*\(",),
        (rb"\bdot_general\s*\(",),
    )
    raises = (
        "The spec of NamedSharding passed to with_sharding_constraint can only refer to "
        "Auto axes of the mesh. Got spec={text}",
        "in_specs passed to shard_map: {text} does not match the specs of the input: {text}",
        "Contracting dimensions are sharded and it is ambiguous how the output should be "
        "sharded. Please specify the output sharding via the `out_sharding` parameter.",
        "dot_general operation with inputs: {text} produces an illegally sharded result",
        "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
        "`Explicit`. The array sharding: {text} did not match the sharding provided: {text}",
        "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
        "indexing as out sharding could not be resolved unambiguously (or would require "
        "collectives on inputs). Got operand={text}, indices={text}",
    )
    error = (
        "ValueError",
        "ValueError",
        "ShardingTypeError",
        "ShardingTypeError",
        "AssertionError",
        "ShardingTypeError",
    )
    raised_in = (
        "jax/_src/pjit.py",
        "jax/_src/shard_map.py",
        "jax/_src/lax/lax.py",
        "jax/_src/lax/utils.py",
        "jax/_src/lax/slicing.py",
    )
    # the mesh JAX found Explicit axes on (with_sharding_constraint's sharding's, the
    # gather's or the dot's first operand's): where the run built it is the make_mesh call
    # to give Auto axes, when the code does not show which mesh it is
    mesh_locals = {
        "made": "check_shardings_are_auto:s.mesh|assert_shardings_equal:user_sharding.mesh"
        "|_gather_sharding_rule:operand.sharding.mesh"
        "|_dot_general_sharding_rule:lhs.sharding.mesh"
    }
    unnamed_meshes = frozenset({"made"})
    raises_since = "0.9"

    def visit_Call(self, node: ast.Call) -> None:
        found = None
        if self._raises:
            if self._constraint_or_shard_map_possible:
                found = self._constraint(node) or self._shard_map(node)
            contracted = self._contracted(node) if found is None else None
            if contracted is not None:
                found = self._contraction(node, contracted)
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

    def visit_Module(self, node: ast.Module) -> None:
        for product in self.analysis.module.matmuls:
            self._matmul(product)
        for indexing in self._indexings() if self._raises else ():
            found = self._gather(indexing)
            if found is not None and not self.expected(indexing):
                self._report(indexing, *found)

    def _indexings(self) -> list[ast.Subscript]:
        """Every `x[i]` read whose index is a name or attribute (an index array is held by
        one, `emb[tokens]`, never written there), in source order: found from the module's
        index of loads, without a walk."""
        parents = self.analysis.module.parents
        found = []
        for reads in self.analysis.module.loads_by_name.values():
            for read in reads:
                parent = parents.get(read)
                if (
                    isinstance(parent, ast.Subscript)
                    and parent.slice is read
                    and isinstance(parent.ctx, ast.Load)
                ):
                    found.append(parent)
        return sorted(found, key=lambda n: (n.lineno, n.col_offset))

    def _matmul(self, node: ast.BinOp) -> None:
        """`a @ b` of operands placed so that it surely raises, or where a run's log shows
        the dot_general's error."""
        if self._raises:
            found = self._contraction(node, ((node.left, node.right), (1, 0)))
            if found is not None:
                if not self.expected(node):
                    self._report(node, *found)
                return
        if self._from_a_run and self.analysis.confirmed(node, self.code):
            self._confirmed(node)

    def _contracted(self, node: ast.Call) -> _Contracted | None:
        """The operands of `jnp.matmul(a, b)`, `jnp.dot`, `lax.dot`, `jnp.einsum("ij,jk->ik",
        a, b)`, `jnp.tensordot(a, b, axes=1)` or `lax.dot_general(a, b, (((1,), (0,)), ((),
        ())))` of 2-D operands and the one dimension of each it contracts; else None."""
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr not in _DOT_NAMES or not self._of_a_module(func):
                return None  # not asked of the engine: most calls are none of these
        elif not self._imported_as(func, _DOT_NAMES):
            return None
        callee = self.analysis.value_of(func)
        if not isinstance(callee, External) or callee.name not in _DOTS:
            return None
        if any(isinstance(a, ast.Starred) for a in node.args):
            return None
        name = callee.name
        if name in _MATMULS and len(node.args) == 2 and not node.keywords:
            return (node.args[0], node.args[1]), (1, 0)
        if name == "jax.numpy.einsum" and len(node.args) == 3 and not node.keywords:
            spelled = self.analysis.value_of(node.args[0])
            dims = _einsum_dims(spelled) if isinstance(spelled, str) else None
            return None if dims is None else ((node.args[1], node.args[2]), dims)
        keywords = {k.arg: k.value for k in node.keywords}
        if len(node.args) < 2 or len(node.args) + len(keywords) != 3:
            return None
        given = node.args[2] if len(node.args) == 3 else None
        if name == "jax.numpy.tensordot":
            given = given or keywords.get("axes")
            axes = self.analysis.value_of(given) if given is not None else None
            dims = _tensordot_dims(axes)
        elif name == "jax.lax.dot_general":
            given = given or keywords.get("dimension_numbers")
            numbers = self.analysis.value_of(given) if given is not None else None
            dims = _dot_general_dims(numbers)
        else:
            return None
        return None if dims is None else ((node.args[0], node.args[1]), dims)

    @functools.cached_property
    def _raises(self) -> bool:
        """Whether the target JAX raises (asked of every call: once per module)."""
        return raises_on(self.raises_since, self.options.jax_version)

    @functools.cached_property
    def _constraint_or_shard_map_possible(self) -> bool:
        """Whether the module names what the constraint and shard_map checks look for (a
        module that only contracts arrays is not asked of its every call)."""
        return any(word in self.analysis.source for word in _CONSTRAINT_WORDS)

    def _imported(self, name: ast.Name) -> bool:
        """Whether the module imports a name `name` may be (`from jax.numpy import einsum as
        es`): what a call of a JAX API by a bare name needs, checked before asking the engine
        of every call."""
        return name.id in self.analysis.module.imported

    def _imported_as(self, func: ast.expr, names: frozenset[str]) -> bool:
        """Whether a callee spelled as a bare name is one the module imports, from code that
        spells one of `names` (`from jax.numpy import einsum as es`): a name imported from
        elsewhere under another name (`from jax.numpy import zeros`) is asked no value, as
        an attribute of another name is not (a value's import parses the module it names)."""
        return (
            isinstance(func, ast.Name)
            and self._imported(func)
            and self.analysis.may_be_named(func, *names)
        )

    def _of_a_module(self, func: ast.Attribute) -> bool:
        """Whether `jnp.dot`'s `jnp` (the name the attribute chain starts from) is a name the
        module imports, as a JAX module is. An array's own `x.dot(y)` is not what this rule
        reports, and asking of `x` would ask of every caller of its function."""
        root: ast.expr = func.value
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and self._imported(root)

    # -- with_sharding_constraint -----------------------------------------------------------

    def _constraint(self, node: ast.Call) -> tuple[Mesh, str] | None:
        analysis = self.analysis
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr != "with_sharding_constraint":
                return None
        elif not self._imported_as(func, _WSC_NAMES):
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

    # -- shard_map applied to arrays not placed on its in_specs ---------------------------

    def _shard_map(self, node: ast.Call) -> tuple[Mesh, str] | None:
        analysis = self.analysis
        if not node.args or node.keywords:
            return None
        if any(isinstance(a, ast.Starred) for a in node.args):
            return None
        func = node.func
        if isinstance(func, ast.Name) and not (
            analysis.may_be_named(func, "shard_map")
            or func.id in self._shard_map_decorated
        ):
            return None  # not bound from a shard_map nor a def it decorates: not asked
        args = self._mapped(func)
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
            array = analysis.value_of(argument)
            if not isinstance(array, Array):
                continue
            if array.unsharded:
                if axis is None or len(spec.parts) > len(array.shape):
                    continue
                return mesh, (
                    f"shard_map's in_specs name its Explicit axis {axis!r} but "
                    f"`{analysis.text(argument)}` is not sharded so: JAX raises ValueError: "
                    "in_specs passed to shard_map: ... does not match the specs of the input"
                )
            if _placed_otherwise(array, spec, mesh):
                return mesh, (
                    f"shard_map's in_specs give `{analysis.text(argument)}` a spec other than "
                    "the one it is placed with on the mesh's Explicit axes: JAX raises "
                    "ValueError: in_specs passed to shard_map: ... does not match the specs "
                    "of the input"
                )
        return None

    @functools.cached_property
    def _shard_map_decorated(self) -> frozenset[str]:
        """The names of the module's functions with one decorator naming shard_map (or a name
        bound from it): what `_mapped` may find behind a bare name besides a binding."""
        analysis = self.analysis
        return frozenset(
            node.name
            for node in analysis.module.parents
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and len(node.decorator_list) == 1
            and any(
                isinstance(part, (ast.Name, ast.Attribute))
                and analysis.may_be_named(part, "shard_map")
                for part in ast.walk(node.decorator_list[0])
            )
        )

    def _mapped(self, func: ast.expr) -> dict[str, ast.expr] | None:
        """The arguments of the `shard_map(...)` that `func` is, names, jits
        (`jax.jit(shard_map(...))`) or decorates (`@jax.shard_map(mesh=..., ...)`,
        `@partial(jax.shard_map, mesh=..., ...)` over the `def` it names)."""
        analysis = self.analysis
        written = analysis.written_as(func) if isinstance(func, ast.Name) else func
        if isinstance(written, ast.Call):
            if analysis.called_api(written) in SHARD_MAPS:
                return analysis.bind(written)
            if (
                isinstance(written.func, ast.Call)
                and len(written.args) == 1
                and not isinstance(written.args[0], ast.Starred)
                and not written.keywords
            ):
                # `partial(jax.shard_map, mesh=..., ...)(f)`: the decorator, applied
                return decorator_keywords(analysis, written.func)
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
                SHARD_MAPS
            ):
                return analysis.bind(inner)
            return None
        if not isinstance(func, ast.Name):
            return None
        function = analysis.definition(func)
        if function is None or len(function.decorator_list) != 1:
            return None
        return decorator_keywords(analysis, function.decorator_list[0])

    # -- a contraction of placed operands ------------------------------------------------

    def _contraction(
        self, node: ast.Call | ast.BinOp, found: _Contracted
    ) -> tuple[Mesh, str] | None:
        """A contraction of two 2-D arrays placed on one make_mesh mesh without axis types, over
        one dimension of each, whose specs surely clash: one axis on both contracting
        dimensions, or, these unsharded, on the result's two dimensions."""
        (left, right), (i, j) = found
        lhs = self._placed(left)
        rhs = self._placed(right) if lhs is not None else None
        if lhs is None or rhs is None:
            return None
        mesh = lhs[0]
        if rhs[0].origin is not mesh.origin or not self._explicit_by_default(mesh):
            return None
        a, b = lhs[1], rhs[1]
        if a[i] is not None and a[i] == b[j]:
            clash = "contracting"
        elif a[i] is None and b[j] is None and _axes(a[1 - i]) & _axes(b[1 - j]):
            clash = "conflicting"
        else:
            return None
        if not self._outside_contexts(node):
            return None
        text = self.analysis.text(node)
        if clash == "contracting":
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

    def _gather(self, node: ast.Subscript) -> tuple[Mesh, str] | None:
        """`x[idx]` of an array placed on a NamedSharding of a make_mesh mesh without axis
        types whose first dimension is sharded, by an unsharded array of one or more
        dimensions (a gather: eager or traced, whatever the context mesh, JAX cannot tell how
        to shard its result)."""
        # the index first: most are a loop's or a parameter's number, settled sooner than the
        # array they index (then asked no more); a comprehension's count is not asked at all
        if self._counted(node.slice):
            return None
        index = self.analysis.value_of(node.slice)
        if not isinstance(index, Array) or not index.unsharded or not index.shape:
            return None
        array = self.analysis.value_of(node.value)
        if not isinstance(array, Array) or not isinstance(array.sharding, Sharding):
            return None
        mesh, spec = array.sharding.mesh, array.sharding.spec
        if (
            not isinstance(mesh, Mesh)
            or not isinstance(spec, Spec)
            or not spec.parts
            or spec.unreduced
            or spec.reduced
            or mesh.axis_names is None
        ):
            return None
        first = spec.parts[0]
        axes = first if isinstance(first, tuple) else (first,)
        if first is None or not all(
            isinstance(a, str) and a in mesh.axis_names for a in axes
        ):
            return None
        if not self._explicit_by_default(mesh) or not self._under_own_mesh(node, mesh):
            return None
        return mesh, (
            f"`{self.analysis.text(node)}` gathers along a dimension sharded on one of its "
            "Explicit axes: JAX raises ShardingTypeError: Use `.at[...].get(out_sharding=)` "
            "to provide output PartitionSpec for the gather indexing"
        )

    def _counted(self, index: ast.expr) -> bool:
        """Whether `index` is a comprehension's or a loop's variable bound by `for i in
        range(...)` (`np.ndindex(...)`), or the count of `for i, v in enumerate(...)`
        (`np.ndenumerate(...)`), those the engine says: an int (a tuple of ints) whatever the
        iterable, never an index array. Its value is not asked:
        the iterable (`range(x.ndim)`) may take following `x` to every caller, for an answer
        never read."""
        if not isinstance(index, ast.Name):
            return False
        parents = self.analysis.module.parents
        loop: ast.comprehension | ast.For | None = _comprehension_binding(
            index, parents
        ) or _loop_binding(index, parents)
        if loop is None or not isinstance(loop.iter, ast.Call):
            return False
        target = loop.target
        if isinstance(target, ast.Name):
            counters = _COUNTING
        elif (
            isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(target.elts[0], ast.Name)
            and not _binds(target.elts[1], index.id)
        ):
            counters = _COUNTING_FIRST
        else:
            return False
        func = self.analysis.value_of(loop.iter.func)
        return isinstance(func, External) and func.name in counters

    def _under_own_mesh(self, node: ast.AST, mesh: Mesh) -> bool:
        """Whether, on every way `node` runs, the mesh context in force is `jax.set_mesh` of
        `mesh` itself (made by the same call) or none: the innermost entered around it, and
        a bare one of this module that may have run before it."""
        for way in self.analysis.ways_at(node):
            for site in reversed(
                way
            ):  # the innermost in force decides; one that may have
                if (
                    not site.sets_context_mesh
                ):  # run before (ELSEWHERE) leaves the outer too
                    continue
                entered = site.mesh
                if site.entry is Entry.ELSEWHERE and site.node in self.analysis.parents:
                    context = self.analysis.value_of(cast(ast.expr, site.node))
                    entered = (
                        context.mesh
                        if isinstance(context, MeshContext)
                        and context.api is Api.SET_MESH
                        else None
                    )
                elif site.api is not Api.SET_MESH:
                    return False
                if not (
                    isinstance(entered, Mesh)
                    and entered.origin is mesh.origin
                    and entered == mesh
                ):
                    return False
                if site.entry is not Entry.ELSEWHERE:
                    break
        return True

    def _placed(self, operand: ast.expr) -> tuple[Mesh, tuple[object, object]] | None:
        """The mesh and the two dimensions' spec parts of the 2-D array the engine says
        `operand` is, placed on a NamedSharding of a known shape whose every sharded size its
        axes divide (else device_put raises first)."""
        array = self.analysis.value_of(operand)
        if not isinstance(array, Array) or not isinstance(array.sharding, Sharding):
            return None
        shape, sharding = array.known_shape, array.sharding
        spec, mesh = sharding.spec, sharding.mesh
        if (
            shape is None
            or len(shape) != 2
            or not isinstance(mesh, Mesh)
            or not isinstance(spec, Spec)
            or spec.unreduced
            or spec.reduced
            or mesh.axis_names is None
            or len(spec.parts) > 2
        ):
            return None
        names, sizes = mesh.axis_names, mesh.axis_sizes or ()
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
                return None
        parts = (*spec.parts, None, None)
        return mesh, (parts[0], parts[1])

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

    def _report(self, node: ast.expr, mesh: Mesh, what: str) -> None:
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
        confirmed = (
            self.analysis.confirmed(node, self.code)
            if self._from_a_run and isinstance(node, ast.Call)
            else None
        )
        site = confirmed.evidence.value_site if confirmed is not None else None
        if not here and site is not None and site.axes is not None:
            where = other_file(site.path, self.analysis.path)
            why = (
                "the make_mesh call is in another module, where jaxfix reports it "
                f"({where}:{site.span[0]})"
            )
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

    def at_value(self, evidence: Evidence) -> None:
        """The `jax.make_mesh(...)` that made the mesh a recorded error of another module was
        about (jaxfix/check/value_sites.py found it, with the mesh's number of axes): given
        Auto axis types here, unless this module's code relies on Explicit ones."""
        site = evidence.value_site
        if site is None or site.axes is None:
            return
        line, column = site.span[0], site.span[1]
        analysis = self.analysis
        call = next(
            (
                c
                for c in analysis.module.calls
                if c.lineno == line
                and analysis.span(c).start == (line, column)
                and analysis.called_api(c) is Api.MAKE_MESH
            ),
            None,
        )
        if call is None:
            return  # changed since the run
        raised = f"{other_file(site.raised[0], analysis.path)}:{site.raised[1]}"
        message = (
            f"the mesh JAX raised on at {raised} is made here by `jax.make_mesh(...)` "
            "without axis_types, so its axes are Explicit since JAX 0.9"
        )
        if len(call.args) >= 3 or any(k.arg == "axis_types" for k in call.keywords):
            return  # it gives axis types: changed since the run
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            why: str | None = "the make_mesh call passes *arguments or **keywords"
        else:
            why = self._explicit_code_note()
        count = _axis_count(call, site.axes)
        if why is not None or count is None:
            self.report(call, with_note(message, not_fixed(why or _NAMES_COMPUTED)))
            return
        spelled, imports = self._axis_type_spelling()
        fix = Fix(
            "give make_mesh Auto axis types",
            ((call, _with_axis_types(f"({spelled}.Auto,) * {count}")),),
            Safety.UNSAFE,
            imports,
        )
        self.report(call, message, fix=fix)

    def _explicit_code_note(self) -> str | None:
        if self._explicit_code:
            return (
                "this module holds code written for Explicit axes (reshard, out_sharding=, "
                "jax.typeof, explicit_axes/auto_axes, AxisType.Explicit), which Auto axes "
                "would change"
            )
        return None

    def _why_not_fixed(self, origin: ast.Call, mesh: Mesh) -> str | None:
        if origin not in self.analysis.parents:
            return "the make_mesh call is in another module"
        if mesh.axis_types is None:
            return "how many axes the mesh has the code does not show"
        if any(k.arg is None for k in origin.keywords):
            return "the make_mesh call passes **keywords"
        return self._explicit_code_note()

    @functools.cached_property
    def _explicit_code(self) -> bool:
        """Whether the module holds code written for Explicit axes. `AxisType.Explicit` that
        only declares another mesh's axis types (`Mesh(devices, names,
        axis_types=(AxisType.Explicit,) * 2)`, directly, through a constant or a helper whose
        every use is such an argument) relies on nothing: it is not counted."""
        source = self.analysis.source
        if _EXPLICIT_CODE.search(source) is not None:
            return True
        if _EXPLICIT_TYPE.search(source) is None:
            return False
        tree = self.analysis.module.tree
        named = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and node.attr == "Explicit"
            and _last_name(node.value) == "AxisType"
        ]
        return not named or not all(self._declares_axis_types(n, tree) for n in named)

    def _declares_axis_types(self, node: ast.AST, tree: ast.Module) -> bool:
        """`node` is (part of) a mesh constructor's axis types argument, or of a module
        constant or a function's one return that is only ever used as one."""
        parents = self.analysis.parents
        child, parent = node, parents.get(node)
        while parent is not None:
            if _axis_types_argument(child, parent):
                return True
            if isinstance(parent, ast.Return):
                function = parents.get(parent)
                return (
                    isinstance(function, ast.FunctionDef)
                    and len(function.body) - _docstring(function) == 1
                    and _only_as_axis_types(function.name, tree, parents, call=True)
                )
            if isinstance(parent, ast.Assign):
                targets = parent.targets
                return (
                    parents.get(parent) is tree
                    and len(targets) == 1
                    and isinstance(targets[0], ast.Name)
                    and _only_as_axis_types(targets[0].id, tree, parents, call=False)
                )
            if isinstance(parent, (ast.stmt, ast.Lambda)):
                return False
            child, parent = parent, parents.get(parent)
        return False

    def _axis_type_spelling(self) -> tuple[str, Imports]:
        """`AxisType` as the module spells it: its own import of it, else through its import
        of `jax`, else a `from jax.sharding import AxisType` added."""
        spelled, imports = self.analysis.api_spelling(Api.AXIS_TYPE, "jax.sharding")
        if imports:
            jax_name, jax_imports = self.analysis.module_spelling("jax")
            if not jax_imports:
                return f"{jax_name}.sharding.AxisType", ()
        return spelled, imports

    # -- a run's log ------------------------------------------------------------------------

    @functools.cached_property
    def _from_a_run(self) -> bool:
        """Whether a run's log or record shows this rule's error in this module."""
        return any(e.code == self.code for e in self.analysis.evidence.evidence or ())

    def checks(self, call: ast.Call) -> bool:
        return self._may_raise(call)

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
        given = self._meshes_given(node)
        if given is None:
            return  # the code shows the mesh, with Auto axes: not this error's
        meshes = given or list(self._meshes_made_here())
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

    def _meshes_given(self, node: ast.Call | ast.BinOp) -> list[Mesh] | None:
        """The make_mesh mesh without axis types a with_sharding_constraint's sharding (a
        bare spec's: the context mesh) or a shard_map's `mesh=` is, where the engine pins
        it down; None where every mesh it is shown to be has Auto axes (fixed already)."""
        analysis = self.analysis
        if not isinstance(node, ast.Call):
            return []
        values: list[Value] = []
        callee = analysis.value_of(node.func)
        if isinstance(callee, External) and callee.name in _WSC:
            shardings = passed_argument(node, 1, "shardings")
            leaves = (
                list(_leaves(analysis.value_of(shardings)))
                if shardings is not None
                else []
            )
            values = [s.mesh for s in leaves if isinstance(s, Sharding)]
            if any(isinstance(s, Spec) for s in leaves):
                # a bare spec is on the context mesh (`jax.set_mesh(mesh)` around it)
                values.extend(
                    site.mesh
                    for site in map(setting_site, analysis.ways_at(node))
                    if site is not None and site.api is Api.SET_MESH
                )
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
        meshes = [v for v in values if isinstance(v, Mesh)]
        if not found and meshes and all(map(_all_auto, meshes)):
            return None
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


def _comprehension_binding(
    name: ast.Name, parents: dict[ast.AST, ast.AST]
) -> ast.comprehension | None:
    """The generator of a comprehension around `name` that binds it where it is read (the
    innermost such comprehension, its last generator in view binding the name); None when
    none does or a function or lambda lies between (its own names)."""
    child: ast.AST = name
    node = parents.get(name)
    while node is not None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return None
        if isinstance(node, ast.comprehension):
            comprehension = parents.get(node)
            if child is node.target or not isinstance(comprehension, _COMPREHENSIONS):
                return None
            generators = comprehension.generators
            place = generators.index(node)
            # its iterable sees the generators before it; its conditions, it too
            seen = (
                generators[: place + 1]
                if child is not node.iter
                else generators[:place]
            )
            for generator in reversed(seen):
                if _binds(generator.target, name.id):
                    return generator
            child, node = comprehension, parents.get(comprehension)
            continue
        if isinstance(node, _COMPREHENSIONS):
            for generator in reversed(node.generators):
                if _binds(generator.target, name.id):
                    return generator
        child, node = node, parents.get(node)
    return None


def _loop_binding(name: ast.Name, parents: dict[ast.AST, ast.AST]) -> ast.For | None:
    """The `for` statement of a function in whose body `name` is read and whose target binds
    it, where nothing else in that body binds the name and the function declares it neither
    global nor nonlocal (no call rebinds it): at the read, the loop's own item."""
    child: ast.AST = name
    node = parents.get(name)
    while node is not None and not isinstance(node, _SCOPES):
        if isinstance(node, ast.For) and _binds(node.target, name.id):
            function = parents.get(node)
            while function is not None and not isinstance(function, _SCOPES):
                function = parents.get(function)
            if (
                child not in node.body
                or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
                or any(_rebinds(n, name.id) for s in node.body for n in ast.walk(s))
                or any(
                    isinstance(n, (ast.Global, ast.Nonlocal)) and name.id in n.names
                    for n in ast.walk(function)
                )
            ):
                return None
            return node
        child, node = node, parents.get(node)
    return None


def _rebinds(node: ast.AST, name: str) -> bool:
    """Whether `node` binds `name` (a store, a `del`, an import, a def, a handler, a
    pattern)."""
    if isinstance(node, ast.Name):
        return node.id == name and not isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.alias):
        return (node.asname or node.name.partition(".")[0]) == name
    if isinstance(
        node,
        (
            ast.FunctionDef,
            ast.AsyncFunctionDef,
            ast.ClassDef,
            ast.ExceptHandler,
            ast.MatchAs,
            ast.MatchStar,
        ),
    ):
        return node.name == name
    return isinstance(node, ast.MatchMapping) and node.rest == name


def _binds(target: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
# Iterables whose every item is an int or a tuple of ints (`_counted`), and those whose every
# item's first element is one.
_COUNTING = frozenset({"builtins.range", "numpy.ndindex"})
_COUNTING_FIRST = frozenset({"builtins.enumerate", "numpy.ndenumerate"})
_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    *_COMPREHENSIONS,
)


def _all_auto(mesh: Mesh) -> bool:
    return mesh.axis_types is not None and all(
        t is AxisType.AUTO for t in mesh.axis_types
    )


def _leaves(value: Value) -> Iterator[Value]:
    if isinstance(value, tuple):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, ListValue):
        for item in value.items:
            yield from _leaves(item)
    else:
        yield value


def _einsum_dims(spelled: str) -> tuple[int, int] | None:
    """`"ij,jk->ik"` (or `"ij,jk"`): of two 2-D operands, the dimensions of the one index both
    have and the result has not; None for anything else (batch or summed indices, `...`)."""
    inputs, arrow, output = spelled.replace(" ", "").partition("->")
    operands = inputs.split(",")
    if len(operands) != 2 or not all(
        len(o) == 2 and o.isalpha() and o[0] != o[1] for o in operands
    ):
        return None
    lhs, rhs = operands
    if not arrow:
        output = "".join(sorted(c for c in lhs + rhs if (lhs + rhs).count(c) == 1))
    shared = [c for c in lhs if c in rhs]
    if len(shared) != 1 or shared[0] in output:
        return None
    if sorted(output) != sorted(c for c in lhs + rhs if c != shared[0]):
        return None
    return lhs.index(shared[0]), rhs.index(shared[0])


def _tensordot_dims(axes: Value) -> tuple[int, int] | None:
    """`axes=1`, `axes=((1,), (0,))`, `axes=(1, 0)` of 2-D operands: the dimensions it
    contracts; None for anything else."""
    if axes == 1 and type(axes) is int:
        return 1, 0
    if isinstance(axes, tuple) and len(axes) == 2:
        pair = [a[0] if isinstance(a, tuple) and len(a) == 1 else a for a in axes]
        ints = [p for p in pair if type(p) is int and -2 <= p < 2]
        if len(ints) == 2:
            return ints[0] % 2, ints[1] % 2
    return None


def _dot_general_dims(numbers: Value) -> tuple[int, int] | None:
    """`(((1,), (0,)), ((), ()))`: one contracting dimension each, no batch ones."""
    if not isinstance(numbers, tuple) or len(numbers) != 2:
        return None
    contracting, batch = numbers
    if batch != ((), ()) or not isinstance(contracting, tuple):
        return None
    return _tensordot_dims(contracting)


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


def _placed_otherwise(array: Array, spec: Spec, mesh: Mesh) -> bool:
    """Whether `array`, of a known shape placed on a NamedSharding of `mesh` (its axes dividing
    the sizes they shard), surely has a spec other than `spec` on it: the two differ once
    padded to its rank, every axis either names of a known size above 1 (JAX drops the others)."""
    sharding, shape = array.sharding, array.known_shape
    if (
        shape is None
        or not isinstance(sharding, Sharding)
        or not isinstance(sharding.mesh, Mesh)
        or sharding.mesh.origin is not mesh.origin
        or mesh.axis_names is None
        or mesh.axis_sizes is None
        or len(mesh.axis_sizes) != len(mesh.axis_names)
    ):
        return False
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    placed = _padded_parts(sharding.spec, shape, sizes)
    given = _padded_parts(spec, shape, sizes)
    return placed is not None and given is not None and placed != given


def _padded_parts(
    spec: Value, shape: tuple[int, ...], sizes: dict[str, int | None]
) -> tuple[tuple[str, ...], ...] | None:
    """Each dimension's axes under a plain spec, padded to the shape's rank; None where an
    axis is not one of `sizes` of a known size above 1, or does not divide its dimension."""
    if (
        not isinstance(spec, Spec)
        or spec.unreduced
        or spec.reduced
        or len(spec.parts) > len(shape)
    ):
        return None
    parts: list[tuple[str, ...]] = []
    for part, length in zip((*spec.parts, *[None] * len(shape)), shape):
        axes = part if isinstance(part, tuple) else () if part is None else (part,)
        shards = 1
        for axis in axes:
            size = sizes.get(axis) if isinstance(axis, str) else None
            if size is None or size <= 1:
                return None
            shards *= size
        if length % shards:
            return None
        parts.append(tuple(str(a) for a in axes))
    return tuple(parts)


def _axis_count(call: ast.Call, axes: int) -> str | None:
    """How many axes the `jax.make_mesh(...)` call makes, as the fix writes it: the number of
    a literal of names (`("data", "model")`, which must be the run's `axes`), else
    `len(names)` of a name read as given (`names`, `tuple(names)`, `list(names)`: every call
    of a factory taking its names gets its own count); None for anything else."""
    names = passed_argument(call, 1, "axis_names")
    if isinstance(names, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in names.elts):
            return None
        return str(axes) if len(names.elts) == axes else None
    if (
        isinstance(names, ast.Call)
        and isinstance(names.func, ast.Name)
        and names.func.id in ("tuple", "list")
        and len(names.args) == 1
        and not names.keywords
    ):
        names = names.args[0]
    read = names
    while isinstance(read, ast.Attribute):
        read = read.value
    if isinstance(read, ast.Name) and names is not None:
        return f"len({ast.unparse(names)})"  # a name, or an attribute of one (`self.names`)
    return None


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


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _axis_types_argument(child: ast.AST, parent: ast.AST) -> bool:
    """`child` is the axis types argument of a mesh constructor call `parent` (by keyword, or
    the third positional argument of `Mesh`, `AbstractMesh` or `make_mesh`)."""
    if isinstance(parent, ast.keyword):
        return parent.arg == "axis_types"
    return (
        isinstance(parent, ast.Call)
        and _last_name(parent.func) in _MESH_CONSTRUCTORS
        and len(parent.args) > 2
        and parent.args[2] is child
    )


def _docstring(function: ast.FunctionDef) -> int:
    first = function.body[0]
    return int(
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )


def _only_as_axis_types(
    name: str, tree: ast.Module, parents: dict[ast.AST, ast.AST], *, call: bool
) -> bool:
    """Every read of `name` in the module is a mesh constructor's axis types argument
    (`call`: `name(...)` is), and there is at least one."""
    reads = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Name)
        and node.id == name
        and isinstance(node.ctx, ast.Load)
    ]
    if not reads:
        return False
    for read in reads:
        used: ast.AST = read
        if call:
            caller = parents.get(read)
            if not isinstance(caller, ast.Call) or caller.func is not read:
                return False
            used = caller
        parent = parents.get(used)
        if parent is None or not _axis_types_argument(used, parent):
            return False
    return True
