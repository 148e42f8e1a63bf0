"""Where a mesh passed to `jax.set_mesh` was stored: `self.mesh`, set once by the class's
`__init__`, or a module's name assigned once at its top level. With the stored value
`m.abstract_mesh` of a concrete mesh `m`, `m` is the concrete mesh on its path; every other
read of the attribute (or name) is named, since storing the concrete mesh changes them too."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.values import Mesh
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
