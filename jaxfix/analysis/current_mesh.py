"""Which mesh is current where a node runs: the setters around it, and `with mesh:` blocks.

Follows, within one module: `with` items; `enter_context` / `enterContext` /
`enterClassContext` calls earlier in the same block (ExitStack, TestCase); a bare
`jax.set_mesh(m)` statement earlier in the same block (the global setter: it sets the mesh
when called and is never exited; a later one, `set_mesh(None)` included, replaces it); a
TestCase's `setUp`/`setUpClass` for its `test*` methods; and one level of calls into a
module-level or nested function (plain or jitted). Any other `set_mesh(...)` call that is not
entered (assigned, or inside an earlier compound statement, `def` included) makes the mesh
after it unknown; one inside a function called in between is not seen.
Only `use_abstract_mesh`, `set_mesh` and `use_mesh` set the abstract mesh; `with mesh:` does
not (checked on jax 0.10.2 and 0.12.0.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import Assignment

from jaxfix.analysis.mesh import MeshValue

if TYPE_CHECKING:
    from jaxfix.analysis.module import ModuleAnalysis

MESH_CONTEXT_APIS = ("use_abstract_mesh", "set_mesh", "use_mesh")
_GLOBAL_SETTER_APIS = ("set_mesh", "use_mesh")  # called without `with`, they may set the mesh for good
ENTER_METHODS = frozenset({"enter_context", "enterContext", "enterClassContext"})
_EXIT_METHODS = frozenset({"close", "pop_all"})
_SCOPE_BOUNDARIES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_SETUP_METHODS = ("setUpClass", "setUp")  # entered in this order, so setUp's mesh is innermost


@dataclass(frozen=True)
class MeshSetter:
    """A context manager that makes a mesh current; `mesh` None means jaxfix cannot tell which."""

    api: str  # "use_abstract_mesh", "set_mesh", "use_mesh", or "other" (a helper that may)
    mesh: MeshValue | None
    node: cst.BaseExpression  # the context-manager expression


@dataclass(frozen=True)
class Enclosing:
    """The setter current at a node, and the call that leads there when it is in a caller."""

    setter: MeshSetter
    call: cst.Call | None = None
    setup: cst.FunctionDef | None = None  # the setUp/setUpClass that entered it


def entered_expression(call: cst.Call) -> cst.BaseExpression | None:
    """The context manager `x.enter_context(cm)` enters, or None for any other call."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in ENTER_METHODS and len(call.args) == 1 and not call.args[0].star:
        return call.args[0].value
    return None


class CurrentMeshModel:
    def __init__(self, analysis: ModuleAnalysis) -> None:
        self.analysis = analysis
        self.parents = analysis.parents

    def enclosing(self, context_manager: cst.BaseExpression) -> list[Enclosing]:
        """Where `context_manager` is entered, the mesh setter current just before it: one per
        followed call site when that is in the callers; [] when nothing sets a mesh there."""
        start = self._entered_at(context_manager)
        if start is None:
            return []
        chain, boundary = self._chain(start)
        if chain:
            return [Enclosing(chain[-1])]
        if isinstance(boundary, cst.FunctionDef):
            from_setup = self._from_setup(boundary)
            return [from_setup] if from_setup else self._from_callers(boundary)
        return []

    # -- where a context manager is entered ---------------------------------------------------

    def _entered_at(self, node: cst.BaseExpression) -> cst.CSTNode | None:
        parent = self.parents.get(node)
        if isinstance(parent, cst.WithItem) and parent.item is node:
            return parent
        call = self.parents.get(parent) if isinstance(parent, cst.Arg) else None
        if isinstance(call, cst.Call) and entered_expression(call) is node:
            return call
        return None

    def setters_around(self, node: cst.CSTNode) -> tuple[list[MeshSetter], cst.CSTNode | None]:
        """For any node: the setters entered around it in its own scope (outermost first), and
        the scope's node (a FunctionDef, ClassDef, Lambda, or None at module level)."""
        return self._chain(node)

    def _chain(self, node: cst.CSTNode) -> tuple[list[MeshSetter], cst.CSTNode | None]:
        """Setters entered around `node` in its own scope (outermost first), and that scope's node."""
        found: list[MeshSetter] = []
        child, current = node, self.parents.get(node)
        while current is not None and not isinstance(current, _SCOPE_BOUNDARIES):
            if isinstance(current, cst.With):
                found[:0] = [s for s in (self.setter(item.item) for item in _items_entered_before(current, child)) if s]
            elif isinstance(current, (cst.IndentedBlock, cst.Module)) and child in current.body:
                found[:0] = self._entered_by_statements(current.body[: current.body.index(child)])
            child, current = current, self.parents.get(current)
        return found, current

    def under_concrete_mesh(self, node: cst.CSTNode) -> bool:
        """Whether a `with mesh:` (a concrete Mesh as the context manager, which sets no abstract
        mesh) is around `node` in its own scope."""
        child, current = node, self.parents.get(node)
        while current is not None and not isinstance(current, _SCOPE_BOUNDARIES):
            if isinstance(current, cst.With) and any(
                self._is_concrete_mesh(item.item) for item in _items_entered_before(current, child)
            ):
                return True
            child, current = current, self.parents.get(current)
        return False

    def _is_concrete_mesh(self, expr: cst.BaseExpression) -> bool:
        if self.analysis.names.called_api(expr) in MESH_CONTEXT_APIS:
            return False
        mesh = self.analysis.meshes.mesh(expr)
        return mesh is not None and not mesh.is_abstract

    def _entered_by_statements(self, statements) -> list[MeshSetter]:
        """Setters entered by `x.enter_context(cm)` statements (they stay entered afterwards,
        unless `x.close()` or `x.pop_all()` follows) or set by bare `jax.set_mesh(m)` ones."""
        found: list[tuple[str, MeshSetter]] = []
        for statement in statements:
            if not isinstance(statement, cst.SimpleStatementLine):
                if statement in self._holding_global_setter:
                    found.append(("", MeshSetter("other", None, self._holding_global_setter[statement])))
                continue
            for small in statement.body:
                if isinstance(small, cst.Expr) and small.value in self.global_setters:
                    found.append(("", self._global_setter(small.value)))  # type: ignore[arg-type]
                    continue
                if small in self._holding_global_setter:
                    found.append(("", MeshSetter("other", None, self._holding_global_setter[small])))
                call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
                if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
                    continue
                receiver = self._code(call.func.value)
                if call.func.attr.value in _EXIT_METHODS:
                    found = [(r, s) for r, s in found if r != receiver]
                cm = entered_expression(call)
                setter = self.setter(cm) if cm is not None else None
                if setter:
                    found.append((receiver, setter))
        return [setter for _, setter in found]

    @cached_property
    def global_setters(self) -> frozenset[cst.Call]:
        """`set_mesh(...)` / `use_mesh(...)` calls that are neither a `with` item nor entered. A
        bare `set_mesh(m)` sets the mesh when called (jax 0.10.2 and 0.12.0.1), until another one
        or a `with` exit changes it; `use_mesh` is not in those versions, so what it does is unknown."""
        names = self.analysis.names
        return frozenset(
            node for node in self.analysis.nodes(cst.Call)
            if names.called_api(node) in _GLOBAL_SETTER_APIS and self._entered_at(node) is None
        )

    def _global_setter(self, call: cst.Call) -> MeshSetter | None:
        if self.analysis.names.called_api(call) == "set_mesh":
            return self.setter(call)
        return MeshSetter("other", None, call)

    @cached_property
    def _holding_global_setter(self) -> dict[cst.CSTNode, cst.Call]:
        """Every node that contains a global setter call, mapped to one such call."""
        holders: dict[cst.CSTNode, cst.Call] = {}
        for call in self.global_setters:
            node = self.parents.get(call)
            while node is not None and node not in holders:
                holders[node] = call
                node = self.parents.get(node)
        return holders

    def setter(self, context_manager: cst.BaseExpression) -> MeshSetter | None:
        """What entering `context_manager` does to the current mesh; None when nothing."""
        expr = self.analysis.meshes.resolve(context_manager)
        api = self.analysis.names.called_api(expr)
        if api in MESH_CONTEXT_APIS:
            arg = mesh_argument(expr)  # type: ignore[arg-type]
            if api != "use_abstract_mesh" and isinstance(arg, cst.Name) and arg.value == "None":
                return MeshSetter(api, MeshValue("abstract", (), (), (), False, arg), context_manager)
            return MeshSetter(api, self.analysis.meshes.mesh(arg), context_manager)
        if self.analysis.meshes.mesh(expr) is not None:
            return None  # `with mesh:` sets the concrete mesh only
        return MeshSetter("other", None, context_manager) if self._may_set_mesh(expr) else None

    def _may_set_mesh(self, expr: cst.BaseExpression) -> bool:
        """Anything that mentions a mesh, or a local helper whose body does, may set one."""
        callee = expr.func if isinstance(expr, cst.Call) else expr
        if "mesh" in self._code(callee).lower():
            return True
        helper = self.local_function(callee) if isinstance(callee, cst.Name) else None
        return helper is not None and "mesh" in self._code(helper.body).lower()

    # -- outside the function -----------------------------------------------------------------

    def _from_setup(self, method: cst.FunctionDef) -> Enclosing | None:
        """For a TestCase `test*` method, the last mesh its class's setUp/setUpClass enters."""
        klass = self.parents.get(self.parents.get(method))
        if not isinstance(klass, cst.ClassDef) or not method.name.value.startswith("test"):
            return None
        last = None
        for name in _SETUP_METHODS:
            for statement in klass.body.body:
                if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
                    setters = self._entered_by_statements(_statements(statement))
                    if setters:
                        last = Enclosing(setters[-1], setup=statement)
        return last

    def _from_callers(self, function: cst.FunctionDef) -> list[Enclosing]:
        """One level: the setter current at each direct call of a plain local function."""
        if function.asynchronous or _is_generator(function) or isinstance(self.parents.get(self.parents.get(function)), cst.ClassDef):
            return []
        if not all(self._runs_when_called(d.decorator) for d in function.decorators):
            return []
        found = []
        for call in self.calls_of(function):
            chain, boundary = self._chain(call)
            if chain:
                found.append(Enclosing(chain[-1], call=call))
            elif isinstance(boundary, cst.FunctionDef):
                from_setup = self._from_setup(boundary)
                if from_setup:
                    found.append(Enclosing(from_setup.setter, call=call, setup=from_setup.setup))
        return found

    def _runs_when_called(self, decorator: cst.BaseExpression) -> bool:
        """`jax.jit`, `partial(jax.jit, ...)`, `functools.wraps(...)`: the decorated function runs
        when called; any other decorator may run it elsewhere (another thread, at definition)."""
        names = self.analysis.names
        if names.is_api(decorator, "jit"):
            return True
        if not isinstance(decorator, cst.Call):
            return False
        if names.called_api(decorator) == "partial":
            first = decorator.args[0] if decorator.args else None
            return first is not None and first.keyword is None and not first.star and names.is_api(first.value, "jit")
        return any(q.name == "functools.wraps" for q in names.qualified_names(decorator.func))

    def setup_setter(self, method: cst.FunctionDef) -> MeshSetter | None:
        """For a TestCase `test*` method, the last mesh setter its setUp/setUpClass enters."""
        enclosing = self._from_setup(method)
        return enclosing.setter if enclosing else None

    def calls_of(self, function: cst.FunctionDef) -> list[cst.Call]:
        """Calls of a function bound only by its `def`: `f(...)`, `jax.jit(f)(...)`, and
        `g(...)` after `g = jax.jit(f)`."""
        calls = self._calls_through(self._only_assignment(function.name, function))
        return sorted(calls, key=self.analysis.source_order.__getitem__)  # no positions: they cost a code generation

    def _calls_through(self, assignment: Assignment | None, *, follow_jit: bool = True) -> list[cst.Call]:
        calls: list[cst.Call] = []
        for access in assignment.references if assignment is not None else ():
            parent = self.parents.get(access.node)
            if isinstance(parent, cst.Call) and parent.func is access.node:
                calls.append(parent)
                continue
            jitted = self.parents.get(parent) if isinstance(parent, cst.Arg) and follow_jit else None
            if not (isinstance(jitted, cst.Call) and self.analysis.names.called_api(jitted) == "jit" and jitted.args[0] is parent):
                continue
            user = self.parents.get(jitted)
            if isinstance(user, cst.Call) and user.func is jitted:
                calls.append(user)
            elif isinstance(user, cst.Assign) and len(user.targets) == 1 and isinstance(user.targets[0].target, cst.Name):
                target = user.targets[0].target
                calls.extend(self._calls_through(self._only_assignment(target, target), follow_jit=False))
        return calls

    def local_function(self, name: cst.Name) -> cst.FunctionDef | None:
        scope = self.analysis.scopes.get(name)
        assignments = scope[name.value] if scope is not None else ()
        if len(assignments) != 1:
            return None
        (assignment,) = assignments
        return assignment.node if isinstance(assignment, Assignment) and isinstance(assignment.node, cst.FunctionDef) else None

    def _only_assignment(self, name: cst.Name, node: cst.CSTNode) -> Assignment | None:
        scope = self.analysis.scopes.get(node)
        assignments = scope.assignments[name.value] if scope is not None else ()
        if len(assignments) != 1:
            return None
        (assignment,) = assignments
        return assignment if isinstance(assignment, Assignment) and assignment.node is node else None

    def _code(self, node: cst.CSTNode) -> str:
        return self.analysis.wrapper.module.code_for_node(node)


def _items_entered_before(statement: cst.With, child: cst.CSTNode) -> Sequence[cst.WithItem]:
    """The items of `statement` already entered where `child` runs: the earlier items when
    `child` is an item itself, else all of them (`child` is the body)."""
    return statement.items[: statement.items.index(child)] if child in statement.items else statement.items


def mesh_argument(call: cst.Call) -> cst.BaseExpression | None:
    """The mesh given to use_abstract_mesh / set_mesh / use_mesh, positionally or as `mesh=`."""
    for arg in call.args:
        if not arg.star and (arg.keyword is None or arg.keyword.value == "mesh"):
            return arg.value
    return None


def _statements(function: cst.FunctionDef):
    body = function.body
    return body.body if isinstance(body, cst.IndentedBlock) else ()


def _is_generator(function: cst.FunctionDef) -> bool:
    """Calling a generator function runs none of its body, so its meshes are not entered then."""

    class FindYield(cst.CSTVisitor):
        found = False

        def visit_Yield(self, node: cst.Yield) -> None:
            self.found = True

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

    finder = FindYield()
    function.visit(finder)
    return finder.found
