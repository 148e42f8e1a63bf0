"""JAX011: an `out_sharding=NamedSharding(other, P(...))` under a context of another mesh."""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.contexts import setting_site
from jaxfix.analysis.ast_engine.values import (
    AxisType,
    External,
    Mesh,
    Sharding,
    Spec,
    Unknown,
    Value,
)
from jaxfix.analysis.names import Api
from jaxfix.codemods.base import Rule
from jaxfix.codemods.text import not_fixed, with_note
from jaxfix.evidence.facts import Evidence
from jaxfix.ground.diagnostics import Fix, Safety

if TYPE_CHECKING:
    import libcst as cst

# The modules whose functions check an `out_sharding=` against the context mesh
# (`canonicalize_sharding` in jax/_src/sharding_impls.py); `jax.sharding.reshard` does not.
_CHECKING_MODULES = ("jax.numpy.", "jax.random.", "jax.lax.")
_CONTEXTS = frozenset({Api.SET_MESH, Api.USE_ABSTRACT_MESH})


class OutShardingOtherMesh(Rule):
    """
    ## What it does
    Finds an `out_sharding=NamedSharding(other, P(...))` given to a `jax.numpy`,
    `jax.random` or `jax.lax` function (`jnp.zeros`, `jnp.einsum`, `jax.random.normal`, ...),
    or to `jax.sharding.auto_axes(f, out_sharding=...)(x)`, where the context mesh
    (`jax.set_mesh`, `use_abstract_mesh`, on every way the call runs: [docs/engine.md](../engine.md))
    is another mesh. Where the spec's axes are Explicit axes of the context mesh, the fix
    passes the bare `P(...)`, which JAX puts on the context mesh. A sharding built elsewhere
    (imported from another module, an attribute: `out_sharding=layout.ROWS`) is asked of the
    engine, and the fix passes its spec: `out_sharding=layout.ROWS.spec`.

    ## Why is this bad?
    These functions take their output sharding on the context mesh: given one on another
    mesh, JAX raises ``ValueError: Context mesh AbstractMesh('x': 8, ...) should match the
    mesh of sharding AbstractMesh('x': 4, 'y': 2, ...) passed to jnp.zeros``, and
    `auto_axes` ``ValueError: Context mesh ... must match the mesh passed to shardings ...``
    (jax 0.10.2 and 0.12.0.1). Two meshes whose axes are all Auto are let through (not by
    `auto_axes`), and are not reported. An operation on an array placed on another mesh
    than the context mesh fails the same way while it is traced (``For primitive
    dot_general, context mesh ... should match the aval mesh ...``): no `out_sharding` to
    change there, and which mesh is meant the code does not say; from a recorded run
    (`jaxfix repair`, `--evidence`) the report names where each mesh's sizes come from (a
    factory's literal, the environment variable a launcher sets).

    ## Example
    ```python
    mesh = jax.make_mesh((8,), ("x",))
    other = jax.make_mesh((4, 2), ("x", "y"))
    with jax.set_mesh(mesh):
        z = jnp.zeros((8,), out_sharding=NamedSharding(other, P("x")))
    ```

    ## Use instead
    ```python
    mesh = jax.make_mesh((8,), ("x",))
    other = jax.make_mesh((4, 2), ("x", "y"))
    with jax.set_mesh(mesh):
        z = jnp.zeros((8,), out_sharding=P("x"))
    ```

    ## Fix safety
    Safe: the code as written never ran, and the bare spec is the one sharding JAX accepts
    there, on the context mesh. A spec naming an axis the context mesh lacks, or one of
    its Auto axes, is reported without a fix (the computation belongs under the other
    mesh's context, which jaxfix cannot decide).

    ## References
    - `canonicalize_sharding` in jax/_src/sharding_impls.py, `_get_new_mesh` in
      jax/_src/pjit.py and `check_avals_context_mesh` in jax/_src/core.py (jax 0.10.2 and
      0.12.0.1), which raise.
    """

    code = "JAX011"
    name = "out-sharding-other-mesh"
    summary = "an out_sharding on another mesh than the context mesh"
    fixes = {Safety.SAFE: "pass the bare PartitionSpec, on the context mesh"}
    # the keyword the call needs, not jit's `out_shardings`
    tokens = ((rb"\bout_sharding\b",),)
    raises = (
        "Context mesh {mesh:context} should match the mesh of sharding {mesh:out} passed to {text}",
        "Context mesh {mesh:context} must match the mesh passed to shardings {mesh:out}. "
        "Recommended approach is to use `jax.set_mesh` context manager.",
        "For primitive {text}, context mesh {mesh:context} should match the aval mesh "
        "{mesh:aval} for shape {text}",
    )
    raised_in = ("jax/_src/sharding_impls.py", "jax/_src/pjit.py", "jax/_src/core.py")
    # canonicalize_sharding's `sharding` is the out_sharding as given (its mesh as built),
    # the pjit check's `sharding_mesh` the shardings' abstract mesh; `cur_mesh` the context's;
    # check_avals_context_mesh's `a` the array's aval.
    mesh_locals = {
        "context": "cur_mesh",
        "out": "sharding.mesh|sharding_mesh",
        "aval": "a.sharding.mesh",
    }

    def visit_Call(self, node: ast.Call) -> None:
        analysis = self.analysis
        out = next((k.value for k in node.keywords if k.arg == "out_sharding"), None)
        if out is None or not (self.recorded or self._named_sharding(out)):
            return
        api = analysis.called_api(node)
        raising: ast.Call = node
        if api is Api.AUTO_AXES:
            parent = analysis.parents.get(node)
            if not isinstance(parent, ast.Call) or parent.func is not node:
                return  # the function auto_axes makes is called elsewhere
            raising = parent
        else:
            callee = analysis.value_of(node.func)
            if (
                api is not None
                or not isinstance(callee, External)
                or not callee.name.startswith(_CHECKING_MODULES)
            ):
                return
        sharding = analysis.value_of(out)
        context = self._context(raising)
        if (
            not isinstance(sharding, Sharding)
            or not isinstance(sharding.mesh, Mesh)
            or context is None
        ):
            return
        mesh = sharding.mesh.abstract
        if mesh.equals(context) is not False:
            return
        if api is not Api.AUTO_AXES:
            if mesh.axis_types is None or context.axis_types is None:
                return
            if _all_auto(mesh) and _all_auto(context):
                return  # JAX lets two all-Auto meshes through
        if self.expected(raising):
            return
        message = (
            f"`{analysis.text(out)}` is on a mesh {mesh.shape_text()} but the context mesh "
            f"is {context.shape_text()}: JAX raises ValueError: Context mesh ... "
            + (
                "must match the mesh passed to shardings"
                if api is Api.AUTO_AXES
                else "should match the mesh of sharding ..."
            )
        )
        why = self._why_not_fixed(out, context)
        if why is not None:
            confirmed = analysis.confirmed(raising, self.code)
            note = (
                confirmed.evidence.mesh_note(self._root(confirmed.evidence))
                if confirmed is not None
                else None
            )
            # from a run: where each mesh's sizes come from (a host count, named with its
            # line and what it was in the run)
            self.report(
                raising,
                with_note(message, not_fixed(why) + (f"; {note}" if note else "")),
            )
            return
        edit = _spec_of if _literal(analysis, out) else _dot_spec
        fix = Fix("pass the bare PartitionSpec", ((out, edit),), Safety.SAFE)
        self.report(raising, message, fix=fix)

    def _root(self, evidence: Evidence) -> Path:
        """The directory this file and the run's origin frames share, from which a message
        names them."""
        paths = [os.path.abspath(p) for o in evidence.origins for p, _ in o.frames]
        paths.extend(os.path.abspath(o.path) for o in evidence.mesh_origins)
        here = os.path.abspath(self.analysis.path)
        root = Path(os.path.commonpath([*paths, here]))
        return root.parent if root.as_posix() == here else root

    def checks(self, call: ast.Call) -> bool:
        """A `jax.numpy`, `jax.random` or `jax.lax` function given `out_sharding=`, or the
        call of a function `auto_axes(f, out_sharding=...)` makes."""
        analysis = self.analysis
        inner = call.func
        if isinstance(inner, ast.Call) and analysis.called_api(inner) is Api.AUTO_AXES:
            return any(k.arg == "out_sharding" for k in inner.keywords)
        if not any(k.arg == "out_sharding" for k in call.keywords):
            return False
        callee = analysis.value_of(call.func)
        return isinstance(callee, External) and callee.name.startswith(
            _CHECKING_MODULES
        )

    def _named_sharding(self, out: ast.expr) -> bool:
        """Whether `out` may be a `NamedSharding`: written as `NamedSharding(...)`, here or
        in the one assignment of a name, or a reference to a value built elsewhere (an
        import, an attribute: the engine is asked); only then are its values asked for,
        most `out_sharding=` being specs written here."""
        written = self.analysis.written_as(out) if isinstance(out, ast.Name) else out
        if (isinstance(written, ast.Attribute) and _reference(written)) or (
            isinstance(written, ast.Name)
            and written.id in self.analysis.module.imported
        ):
            return True
        if not isinstance(written, ast.Call):
            return False
        func = written.func
        name = func.attr if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Name):
            name = func.id
        return name in self._sharding_names and (
            self.analysis.called_api(written) is Api.NAMED_SHARDING
        )

    @functools.cached_property
    def _sharding_names(self) -> frozenset[str]:
        """The names `NamedSharding` goes by in this module (an import may rename it)."""
        return frozenset(
            {"NamedSharding"}
            | {
                alias.asname
                for node in self.analysis.module.parents  # every node but the module's
                if isinstance(node, ast.ImportFrom)
                for alias in node.names
                if alias.name == "NamedSharding" and alias.asname
            }
        )

    def _context(self, node: ast.AST) -> Mesh | None:
        """The context mesh (abstract) where `node` runs, when every way it runs enters one
        by `jax.set_mesh` or `use_abstract_mesh` and they agree."""
        sites = [setting_site(way) for way in self.analysis.ways_at(node)]
        if not sites or any(s is None or s.api not in _CONTEXTS for s in sites):
            return None
        mesh = self.analysis.current_mesh(node)
        return mesh if isinstance(mesh, Mesh) else None

    def _why_not_fixed(self, out: ast.expr, context: Mesh) -> str | None:
        analysis = self.analysis
        if not _literal(analysis, out):  # built elsewhere: the fix passes its `.spec`
            if not isinstance(out, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                return "the sharding is not written here as NamedSharding(mesh, spec)"
            sharding = analysis.value_of(out)
            spec: Value = (
                sharding.spec if isinstance(sharding, Sharding) else Unknown("")
            )
            args: dict[str, ast.expr] | None = {"mesh": out, "spec": out}
        else:
            assert isinstance(out, ast.Call)
            args = analysis.bind(out)
            spec = analysis.value_of(args["spec"]) if args and "spec" in args else None
        if (
            args is None
            or set(args) != {"mesh", "spec"}
            or not isinstance(spec, Spec)
            or spec.unreduced
            or spec.reduced
        ):
            return "its spec is not one jaxfix can read"
        axes = [
            a
            for part in spec.parts
            for a in (part if isinstance(part, tuple) else (part,))
        ]
        names = context.axis_names or ()
        types = context.axis_types or ()
        for axis in axes:
            if axis is None:
                continue
            if (
                not isinstance(axis, str)
                or axis not in names
                or len(types) != len(names)
            ):
                return f"the context mesh has no axis {axis!r}"
            if types[names.index(axis)] is not AxisType.EXPLICIT:
                return f"the context mesh's axis {axis!r} is not Explicit"
        return None


def _all_auto(mesh: Mesh) -> bool:
    return mesh.axis_types is not None and all(
        t is AxisType.AUTO for t in mesh.axis_types
    )


def _reference(expr: ast.expr) -> bool:
    """`S`, `layout.S`, `cfg.sharding`: a name or a dotted attribute."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name)


def _literal(analysis: Analysis, out: ast.expr) -> bool:
    """Whether `out` is written here as `NamedSharding(...)`."""
    return isinstance(out, ast.Call) and analysis.called_api(out) is Api.NAMED_SHARDING


def _dot_spec(old: cst.CSTNode) -> cst.CSTNode:
    """A sharding built elsewhere, `s` (`layout.S`, `rows_of(m)`) -> `s.spec`."""
    import libcst as cst  # for the fix, written only when it is applied

    assert isinstance(old, cst.BaseExpression)
    return cst.Attribute(value=old, attr=cst.Name("spec"))


def _spec_of(old: cst.CSTNode) -> cst.CSTNode:
    """`NamedSharding(mesh, spec)` -> `spec`, as written."""
    import libcst as cst  # for the fix, written only when it is applied

    assert isinstance(old, cst.Call)
    keyword = next(
        (a for a in old.args if a.keyword and a.keyword.value == "spec"), None
    )
    spec = keyword if keyword is not None else old.args[1]
    return spec.value
