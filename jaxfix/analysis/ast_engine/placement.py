"""Which mesh an array, a sharding or a mesh context is on, and the name the code gives that
mesh where it is asked: one answer for every rule (issue 28: shardings and arrays are values
of the engine, not each rule's copy of "which mesh is this sharding on").

- `array(module, expr)`: the mesh of the array `expr` evaluates to, placed by
  `jax.device_put(x, NamedSharding(m, ...))`, or by `jax.device_put(x, P(...))` under an eager
  `jax.set_mesh(m)` / `use_mesh(m)` entered around that call in its own scope.
- `sharding(module, expr, context)`: the mesh of a sharding: a `NamedSharding`'s, or for a bare
  `P(...)` the context mesh (as `top_level_all_gather`'s out_sharding takes it).
- `context(module, site, at)`: the mesh a mesh-context site (contexts.py) makes current.

Each answer is a `Placed`: the `Mesh` and its `name` at the asking node: the reference the
building call is given for its mesh (`m`, `cfg.mesh`: what `NamedSharding(m, ...)` or
`set_mesh(m)` spells; for a `@contextmanager` entering `set_mesh(param)`, what the `with` item
passes for it) when that reference, read at the asking node, is this very mesh (so a fix may
write it there); None otherwise, and for a mesh a decorator enters.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxfix.analysis.ast_engine.contexts import Contexts, Entry, Site, setting_site
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    Array,
    Function,
    Mesh,
    Sharding,
    Spec,
)
from jaxfix.analysis.names import Api

_EAGER_SETTERS = frozenset({Api.SET_MESH, Api.USE_MESH})  # both raise inside jit


@dataclass(frozen=True)
class Placed:
    """A mesh as the code reaches it at one place, and the name it has there (None: none)."""

    mesh: Mesh
    name: str | None


class Placement:
    def __init__(self, contexts: Contexts) -> None:
        self.contexts = contexts
        self.evaluator = contexts.evaluator

    def array(self, module: Module, expr: ast.expr) -> Placed | None:
        """The mesh the array `expr` is on, when jaxfix sees where it was placed."""
        value = self.evaluator.value_of(module, expr)
        if not isinstance(value, Array):
            return None
        sharding = value.sharding
        if isinstance(sharding, Sharding) and isinstance(sharding.mesh, Mesh):
            given = _mesh_argument(sharding.origin)
            return Placed(sharding.mesh, self._name(module, given, sharding.mesh, expr))
        placed = value.origin
        if (
            isinstance(sharding, Spec)
            and placed is not None
            and placed in module.parents
        ):
            site = self._eager_local_site(module, placed)
            return self.context(module, site, expr) if site is not None else None
        return None

    def sharding(
        self, module: Module, expr: ast.expr, context: Placed
    ) -> Placed | None:
        """The mesh of the sharding `expr` under the context mesh `context`."""
        value = self.evaluator.value_of(module, expr)
        if isinstance(value, Spec):
            return context
        if isinstance(value, Sharding) and isinstance(value.mesh, Mesh):
            given = _mesh_argument(value.origin)
            return Placed(value.mesh, self._name(module, given, value.mesh, expr))
        return None

    def context(self, module: Module, site: Site, at: ast.AST) -> Placed | None:
        """The mesh `site` makes current, named as the code at `at` (in `module`) may spell it."""
        mesh = site.mesh
        if not isinstance(mesh, Mesh):
            return None
        if site.entry is Entry.DECORATOR:
            return Placed(mesh, None)
        given = _mesh_argument(site.node)
        name = self._name(module, given, mesh, at)
        if name is None and isinstance(given, ast.Name):
            passed = self._passed_to_context_manager(module, site, given.id)
            name = self._name(module, passed, mesh, at)
        return Placed(mesh, name)

    def name_at(
        self, module: Module, expr: ast.expr | None, mesh: Mesh, at: ast.AST
    ) -> str | None:
        """The text of `expr` (`m`, `cfg.mesh`) when, read at `at`, it is this very mesh."""
        return self._name(module, expr, mesh, at)

    def _name(
        self, module: Module, expr: ast.expr | None, mesh: Mesh, at: ast.AST
    ) -> str | None:
        text = reference(expr)
        if text is None:
            return None
        frame = self.evaluator.frame_at(module, at)
        head, *attributes = text.split(".")
        found = self.evaluator.lookup(module, head, at, frame)
        for (
            attribute
        ) in attributes:  # `self.sharding_spec.mesh`: each attribute in turn
            found = self.evaluator.attribute(found, attribute, at)
        is_it = (
            isinstance(found, Mesh) and found == mesh and found.origin is mesh.origin
        )
        return text if is_it else None

    def _eager_local_site(self, module: Module, node: ast.AST) -> Site | None:
        """The `jax.set_mesh(m)` / `use_mesh(m)` entered around `node` in its own scope that
        makes the context mesh there on every way it runs (None when it is another)."""
        found = [setting_site(w) for w in self.contexts.ways_at(module, node)]
        site = found[0] if found else None
        if site is None or any(s is not site for s in found):
            return None
        local = site.call is None and site.entry in (
            Entry.WITH,
            Entry.ENTER_CONTEXT,
            Entry.GLOBAL_SET,
        )
        return site if local and site.api in _EAGER_SETTERS else None

    def _passed_to_context_manager(
        self, module: Module, site: Site, parameter: str
    ) -> ast.expr | None:
        """`with on_mesh(mesh_b):` where `on_mesh(mesh)` enters `set_mesh(mesh)`: `mesh_b`."""
        call = site.call
        if not isinstance(call, ast.Call) or call not in module.parents:
            return None
        callee = self.evaluator.value_of(module, call.func)
        if not isinstance(callee, Function) or isinstance(callee.node, ast.Lambda):
            return None
        passed = arguments_of(call, callee.node)
        return passed.get(parameter) if passed is not None else None


def arguments_of(
    call: ast.Call, function: ast.FunctionDef | ast.AsyncFunctionDef
) -> dict[str, ast.expr] | None:
    """The argument expressions of a call of a `def` of the tree by parameter name; None when
    the call or the function uses `*`/`**`, or the arguments do not bind."""
    a = function.args
    if a.vararg is not None or a.kwarg is not None:
        return None
    positional = [p.arg for p in (*a.posonlyargs, *a.args)]
    bound: dict[str, ast.expr] = {}
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred) or index >= len(positional):
            return None
        bound[positional[index]] = arg
    keywords = positional[len(a.posonlyargs) :] + [p.arg for p in a.kwonlyargs]
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in keywords or keyword.arg in bound:
            return None
        bound[keyword.arg] = keyword.value
    return bound


def _mesh_argument(call: ast.AST | None) -> ast.expr | None:
    """The mesh a `NamedSharding(mesh, ...)`, `set_mesh(mesh)`, ... call is given (its first
    parameter in the signature table, `mesh`)."""
    if not isinstance(call, ast.Call):
        return None
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "mesh"), None)


def reference(expr: ast.AST | None) -> str | None:
    """'mesh' for a name, 'self.mesh' for an attribute of a name, 'self.spec.mesh' for a
    chain of them (not `.abstract_mesh`, which is another mesh): how a message names a mesh
    reached through it; None for anything else."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and expr.attr != "abstract_mesh":
        head = reference(expr.value)
        return f"{head}.{expr.attr}" if head is not None else None
    return None
