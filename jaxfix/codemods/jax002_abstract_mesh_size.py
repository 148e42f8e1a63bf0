"""JAX002: `use_abstract_mesh` entered inside a mesh context of another size."""

from __future__ import annotations

import math

import libcst as cst

from jaxfix.analysis.current_mesh import Enclosing, MeshSetter, mesh_argument
from jaxfix.analysis.mesh import MeshValue, bind_arguments
from jaxfix.codemods.base import Rule
from jaxfix.diagnostics import Fix, Location, Related, Safety

_JAX_ERROR = '"use_abstract_mesh cannot change the size of the mesh"'
_MAX_TEXT = 60


class AbstractMeshSizeChange(Rule):
    """
    ## What it does
    Finds `jax.sharding.use_abstract_mesh(inner)` entered while another non-empty mesh is
    current (set by `use_abstract_mesh` or `jax.set_mesh`) whose size (the product of its axis
    sizes) differs from `inner`'s. With `--unsafe-fixes` it resizes one axis of `inner` so that
    both sizes match.

    The enclosing mesh is found through nested `with` statements, several items of one `with`,
    `enter_context` calls earlier in the same block (`contextlib.ExitStack`,
    `TestCase.enterContext`), a bare `jax.set_mesh(mesh)` statement (the global setter)
    earlier in the same block, a TestCase's `setUp`/`setUpClass` for its `test*` methods, and
    one level of calls into a function of the same module: `f(...)`, `jax.jit(f)(...)`,
    `g(...)` after `g = jax.jit(f)`, or a `@jax.jit` function. Not followed: methods,
    callbacks (`jax.eval_shape(f, x)`), generator or async functions (`@contextmanager`
    helpers included), functions with a decorator other than `jax.jit`,
    `partial(jax.jit, ...)` or `functools.wraps(...)` (it may run the function elsewhere, on
    another thread or at definition), other modules, calls of calls, `enter_context` inside a nested block,
    an inner `use_abstract_mesh(...)` stored in a variable before its `with`, and a global
    `jax.set_mesh(mesh)` inside a function called in between. One that is assigned
    (`ctx = jax.set_mesh(mesh)`) or inside an earlier compound statement (`if`, `with`, `def`)
    makes the mesh after it unknown, so nothing is reported. An empty mesh
    (`AbstractMesh((), ())`, `set_mesh(None)`) in between resets the chain; so does any
    context manager whose code mentions a mesh, or a local helper whose body does (jaxfix
    cannot tell which mesh it sets). `with mesh:` does not set the abstract mesh and never encloses. Meshes whose size
    jaxfix cannot compute (parameters, `get_abstract_mesh()` re-layouts) are never reported.

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
    is offered only when the new size is a whole number, the sizes are integer literals where
    the inner mesh is built, that mesh is used by this context only, and every followed caller
    needs the same size. Otherwise the rule reports without a fix and says why.

    ## References
    - `use_abstract_mesh.__enter__` in jax/_src/mesh.py (jax 0.10.2 and 0.12.0.1), which raises
      the error.
    - `jax.set_mesh` in jax/_src/sharding_impls.py, which makes `mesh.abstract_mesh` current.
    """

    code = "JAX002"
    name = "abstract-mesh-size-change"
    summary = "use_abstract_mesh inside a mesh context of a different size"
    fixes = {Safety.UNSAFE: "resize the inner mesh along one axis"}
    tokens = ((b"use_abstract_mesh",),)
    raises = (
        "use_abstract_mesh cannot change the size of the mesh. "
        "Got new mesh: {mesh} with size={size} and prev mesh: {mesh} with size={size}",
    )

    def __init__(self, analysis, options) -> None:
        super().__init__(analysis, options)
        self.current = analysis.current_mesh

    def visit_Call(self, node: cst.Call) -> None:
        if self.analysis.names.called_api(node) != "use_abstract_mesh":
            return
        argument = mesh_argument(node)
        inner = self.analysis.meshes.mesh(argument) if argument is not None else None
        if inner is None or not inner.is_abstract or inner.is_empty or inner.size is None:
            return
        known = [e for e in self.current.enclosing(node) if _known_size(e.setter.mesh)]
        conflicts = [e for e in known if e.setter.mesh.size != inner.size]  # type: ignore[union-attr]
        if not conflicts:
            return
        first = conflicts[0]
        fix, why_not = self._fix(argument, inner, known)
        message = self._message(node, inner, first) + (f"; {why_not}" if why_not else "")
        self.report(node, message, fix=fix, related=self._related(first))

    # -- the fix ------------------------------------------------------------------------------

    def _fix(self, argument: cst.BaseExpression, inner: MeshValue, known: list[Enclosing]) -> tuple[Fix | None, str | None]:
        sizes = sorted({e.setter.mesh.size for e in known})  # type: ignore[union-attr]
        if len(sizes) > 1:
            return None, f"not fixed: it is entered under meshes of sizes {', '.join(map(str, sizes))}"
        literals, why_not = self._size_literals(argument, inner)
        if literals is None:
            return None, why_not
        outer = known[0].setter.mesh
        axis = self._fill_axis(inner, outer)  # type: ignore[arg-type]
        others = math.prod(s for i, s in enumerate(inner.axis_sizes) if i != axis)  # type: ignore[arg-type, misc]
        if others <= 0 or sizes[0] % others:
            axis_name = inner.axis_names[axis] if inner.axis_names else f"#{axis + 1}"
            return None, (
                f"no whole-number size of axis {axis_name!r} makes it {sizes[0]}: "
                "exit the enclosing mesh context before entering this one"
            )
        new_sizes = tuple(sizes[0] // others if i == axis else s for i, s in enumerate(inner.axis_sizes))  # type: ignore[arg-type]
        title = f"resize the inner mesh to {_tuple_text(new_sizes)}"
        edit = (literals[axis], cst.Integer(str(sizes[0] // others)))
        return Fix(title, (edit,), Safety.UNSAFE), None

    def _size_literals(self, argument: cst.BaseExpression, inner: MeshValue) -> tuple[list[cst.Integer] | None, str | None]:
        """The integer literals of the inner mesh's sizes, if rewriting them touches only this use."""
        built = inner.node
        if argument is not built:
            if not isinstance(argument, cst.Name) or self.analysis.meshes.bound_value(argument) is not built:
                return None, "not fixed: the inner mesh is built neither at this use nor in the one assignment to its name"
            elsewhere = self._other_uses(argument)
            if elsewhere:
                return None, f"not fixed: {argument.value} is also used at line {elsewhere[0]}"
        args = bind_arguments(built, ("axis_sizes", "axis_names", "axis_types"), ("abstract_device",)) if isinstance(built, cst.Call) else None
        sizes = args.get("axis_sizes") if args else None
        if isinstance(sizes, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Integer) for e in sizes.elements):
            return [e.value for e in sizes.elements], None  # type: ignore[misc]
        line = self.analysis.positions[built].start.line
        return None, f"not fixed: the inner mesh's sizes are not integer literals where it is built (line {line})"

    def _other_uses(self, name: cst.Name) -> list[int]:
        scope = self.analysis.scopes.get(name)
        (assignment,) = scope[name.value]  # bound_value checked there is exactly one
        lines = {self.analysis.positions[a.node].start.line for a in assignment.references if a.node is not name}
        return sorted(lines)

    def _fill_axis(self, inner: MeshValue, outer: MeshValue) -> int:
        names = inner.axis_names or ()
        if self.options.fill_axis in names:
            return names.index(self.options.fill_axis)
        if outer.axis_names is not None and outer.axis_sizes is not None:
            outer_sizes = dict(zip(outer.axis_names, outer.axis_sizes))
            for index, name in enumerate(names):
                if name in outer_sizes and outer_sizes[name] != inner.axis_sizes[index]:  # type: ignore[index]
                    return index
        return 0

    # -- the message --------------------------------------------------------------------------

    def _message(self, node: cst.Call, inner: MeshValue, enclosing: Enclosing) -> str:
        outer = enclosing.setter
        where = f"line {self._line(outer.node)}"
        if enclosing.setup is not None:
            where += f" in {enclosing.setup.name.value}"
        via = ""
        if enclosing.call is not None:
            via = f", through the call at line {self._line(enclosing.call)}"
        placement = "after" if self._is_global(outer) else "inside"
        return (
            f"`{self._text(node)}` (line {self._line(node)}, {_describe(inner)}) is entered {placement} "
            f"`{self._text(outer.node)}` ({where}, {_describe(outer.mesh)}){via}; JAX raises {_JAX_ERROR}"  # type: ignore[arg-type]
        )

    def _is_global(self, setter: MeshSetter) -> bool:
        """A bare `jax.set_mesh(m)`: it sets the mesh for what follows rather than enclosing it."""
        return setter.node in self.current.global_setters

    def _related(self, enclosing: Enclosing) -> tuple[Related, ...]:
        what = "the mesh is set here" if self._is_global(enclosing.setter) else "the enclosing mesh is entered here"
        related = [Related(what, self._location(enclosing.setter.node))]
        if enclosing.call is not None:
            related.append(Related("the function is called here", self._location(enclosing.call)))
        return tuple(related)

    def _text(self, node: cst.CSTNode) -> str:
        text = " ".join(self.analysis.wrapper.module.code_for_node(node).split())
        return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 3] + "..."

    def _line(self, node: cst.CSTNode) -> int:
        return self.analysis.positions[node].start.line

    def _location(self, node: cst.CSTNode) -> Location:
        start = self.analysis.positions[node].start
        return Location(start.line, start.column + 1)


def _known_size(mesh: MeshValue | None) -> bool:
    return mesh is not None and not mesh.is_empty and mesh.size is not None


def _describe(mesh: MeshValue) -> str:
    return f"size {mesh.size}: {mesh.shape_text()}"


def _tuple_text(values: tuple[int, ...]) -> str:
    return f"({values[0]},)" if len(values) == 1 else f"({', '.join(map(str, values))})"
