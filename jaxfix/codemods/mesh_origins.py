"""Where a mesh passed to `jax.set_mesh` was stored: `self.mesh`, set once by the class's
`__init__`, or a module's name assigned once at its top level. With the stored value
`m.abstract_mesh` of a concrete mesh `m`, `m` is the concrete mesh on its path; every other
read of the attribute (or name) is named, since storing the concrete mesh changes them too.

Where the mesh became abstract in this module (`abstracted_here`): `m.abstract_mesh` of a concrete
mesh `m`, or `jax.typeof(x).sharding` of an array `x`, written in the argument itself, assigned
to a name every read of which it reaches is `jax.set_mesh`'s argument, or returned by a function
whose every call is; `m` (or `x.sharding`) keeps the concrete mesh there."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.values import Mesh, ShapeStruct, Structs, Unknown
from jaxfix.analysis.names import Api
from jaxfix.codemods.stored_defaults import owner_of


@dataclass(frozen=True)
class MeshOrigin:
    """The value stored (`value`, at `line`) under the name a reader knows (`shown`); the
    concrete mesh on its path (`concrete`), when it is `concrete.abstract_mesh`; the lines
    of the reads that are not `jax.set_mesh`'s argument."""

    value: ast.expr
    shown: str
    line: int
    concrete: ast.expr | None
    other_reads: tuple[int, ...]


def mesh_origin(analysis: Analysis, argument: ast.expr) -> MeshOrigin | None:
    """Where `argument` (`self.mesh` in a method, or a module-level name) was stored, when
    it is stored once; None otherwise."""
    tree = analysis.module.tree
    touched: list[ast.Attribute | ast.Name]
    if isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name):
        cls = owner_of(analysis, argument)
        if cls is None:
            return None
        touched = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute)
            and n.attr == argument.attr
            and owner_of(analysis, n) in (cls, None)
        ]
        stores = [n for n in touched if not isinstance(n.ctx, ast.Load)]
        init = next(
            (
                s
                for s in cls.body
                if isinstance(s, ast.FunctionDef) and s.name == "__init__"
            ),
            None,
        )
        if (
            len(stores) != 1
            or init is None
            or not isinstance(store := stores[0], ast.Attribute)
            or owner_of(analysis, store) is not cls
        ):
            return None
        statement = analysis.parents.get(stores[0])
        if statement not in init.body:
            return None
    elif isinstance(argument, ast.Name):
        touched = [
            n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == argument.id
        ]
        stores = [n for n in touched if not isinstance(n.ctx, ast.Load)]
        if len(stores) != 1:
            return None
        statement = analysis.parents.get(stores[0])
        if statement not in tree.body:
            return None
    else:
        return None
    if (
        not isinstance(statement, ast.Assign)
        or len(statement.targets) != 1
        or statement.targets[0] is not stores[0]
    ):
        return None
    value = statement.value
    concrete = None
    if isinstance(value, ast.Attribute) and value.attr == "abstract_mesh":
        mesh = analysis.value_of(value.value)
        if isinstance(mesh, Mesh) and not mesh.is_abstract:
            concrete = value.value
    others = sorted(
        {
            analysis.line(n)
            for n in touched
            if isinstance(n.ctx, ast.Load) and not _set_mesh_argument(analysis, n)
        }
    )
    return MeshOrigin(
        value, analysis.text(stores[0]), analysis.line(value), concrete, tuple(others)
    )


def _set_mesh_argument(analysis: Analysis, read: ast.expr) -> bool:
    call = analysis.parents.get(read)
    return (
        isinstance(call, ast.Call)
        and call.args == [read]
        and not call.keywords
        and analysis.called_api(call) is Api.SET_MESH
    )


@dataclass(frozen=True)
class Abstracted:
    """The expression of this module that made a concrete mesh abstract (`node`) and the one
    that keeps it concrete (`concrete`): `m` for `m.abstract_mesh`, `x` for the
    `jax.typeof(x)` of `jax.typeof(x).sharding`."""

    node: ast.expr
    concrete: ast.expr


def abstracted_here(analysis: Analysis, argument: ast.expr) -> Abstracted | None:
    """Where the abstract mesh `argument` (`jax.set_mesh`'s) was made from a concrete one, when
    that is in this module and what it makes reaches only `jax.set_mesh`: in `argument`
    itself, assigned to a name whose every read it reaches is `jax.set_mesh`'s argument, or
    returned by a function every call of which is."""
    value = analysis.value_of(argument)
    if not isinstance(value, Mesh) or not value.is_abstract:
        return None
    node = value.abstracted
    if not isinstance(node, ast.expr) or node not in analysis.parents:
        return None
    concrete = _concrete_of(analysis, node)
    if concrete is None or not _reaches_only_set_mesh(analysis, node, argument):
        return None
    return Abstracted(node, concrete)


def _concrete_of(analysis: Analysis, node: ast.expr) -> ast.expr | None:
    if isinstance(node, ast.Attribute) and node.attr == "abstract_mesh":
        mesh = analysis.value_of(node.value)
        return node.value if isinstance(mesh, Mesh) and not mesh.is_abstract else None
    read = analysis.parents.get(node)
    if (
        isinstance(node, ast.Call)
        and len(node.args) == 1
        and not isinstance(node.args[0], ast.Starred)
        and not node.keywords
        and isinstance(read, ast.Attribute)
        and read.attr == "sharding"
        and analysis.called_api(node) is Api.TYPEOF
    ):
        typed = analysis.value_of(node.args[0])
        # a ShapeDtypeStruct or what eval_shape gives has no concrete mesh to keep
        return None if isinstance(typed, (ShapeStruct, Structs)) else node.args[0]
    return None


def _reaches_only_set_mesh(
    analysis: Analysis, node: ast.expr, argument: ast.expr
) -> bool:
    parents = analysis.parents
    above: ast.AST | None = node
    while above is not None and not isinstance(above, ast.stmt):
        if above is argument:
            return True
        above = parents.get(above)
    if (
        isinstance(above, ast.Assign)
        and len(above.targets) == 1
        and isinstance(target := above.targets[0], ast.Name)
    ):
        reads = analysis.reads_reached(above, target.id)
        return argument in reads and all(
            _set_mesh_argument(analysis, read) for read in reads
        )
    function = analysis.module.scope_of(node)
    if not isinstance(above, ast.Return) or not isinstance(
        function, (ast.FunctionDef, ast.AsyncFunctionDef)
    ):
        return False
    calls = analysis.calls_passing(function)
    return (
        not isinstance(calls, Unknown)
        and any(call is argument for _, call in calls)
        and all(_set_mesh_argument(analysis.of(module), call) for module, call in calls)
    )
