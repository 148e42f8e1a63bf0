"""Which mesh contexts are in force where a node runs, over `ast`, for a whole project.

`Contexts.ways_at(module, node)` gives every way the node may run as a list of `Site`s,
outermost first: in its own scope, the `with` items around it (and earlier items of the same
`with`), `x.enter_context(cm)` earlier in an enclosing block (until `x.close()`), and a bare
`jax.set_mesh(m)` earlier in an enclosing block (a compound statement holding one makes the mesh
unknown); a bare `set_mesh` elsewhere in the module when the node is in a function
(`ELSEWHERE`: it may have run before). Around that, for a function, each call in the project
that runs it (`f(...)`, `jax.jit(f)(...)`, `jax.jit(f).lower(...)`, a method through its
object, `self.f` jitted into an attribute by `self.attr = jax.jit(self.f)` and run as
`self.attr(...)`, a function or lambda that `jax.tree.map` and its `_with_path` kin are given,
which runs inside that call) with the ways around that call; a use of the function that is not
such a call gives one unknown site (`USE`); a decorator of the tree that wraps the call of the function in a mesh
context gives those sites (`DECORATOR`); `setUp`/`setUpClass` entering contexts give them to a
TestCase's `test*` methods (`SETUP`).

A `with` item is a mesh context when its value is one (`MeshContext`: set_mesh, use_mesh,
use_abstract_mesh; a concrete `Mesh` is the legacy `with mesh:`, which sets no abstract mesh); a
`@contextmanager` function of the tree gives the sites in force at its one `yield` (or the one
`yield` the call reaches, each `if` around it decided by a `bool` the call gives: `if abstract:`
with `abstract=True`), its parameters bound to the call's arguments; an object of a class of the tree, those its
`__enter__` leaves entered (none when it calls no mesh API; when its body pins them down,
`self.cm = use_abstract_mesh(m)` (or a method's `self.view.scope()` that returns one) then
`self.cm.__enter__()`, `jax.set_mesh(m)`, or `self.stack.enter_context(cm)` on an
`ExitStack` the class makes, in its statements' order, the object reaching no other code: its
methods use `self` only for attributes, but `__enter__` may `return self`, and may register it
(`stack.append(self)`); where the object is handed out (to `as`, a registry) or held by
other code (a name bound before the `with`, a factory's result), no code of the run but the
class's own `__exit__` may read `.__exit__`; else one unknown site); the standard library, pytest, NumPy and JAX's public
non-mesh APIs enter none; anything else is an unknown site. `current_mesh` picks, on each way,
the innermost site that sets JAX's context mesh: one mesh when every way agrees, `None` when no
way has one, else Unknown.
"""

from __future__ import annotations

import ast
import enum
import functools
import weakref
from dataclasses import dataclass, replace
from pathlib import Path

from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    BoundMethod,
    Class,
    External,
    Foreign,
    Frame,
    Function,
    Instance,
    Mesh,
    MeshContext,
    Unknown,
    Value,
    join,
)
from jaxfix.analysis.ast_engine.vocabulary import api_of
from jaxfix.analysis.names import (
    ENTER_METHODS,
    EXPECTED_ERROR_METHODS,
    MESH_CONTEXT_APIS,
    Api,
    imported_name_enters_no_mesh,
)

_MAX_WAYS = 32
_MAX_DEPTH = 4
_EXIT_METHODS = frozenset({"close", "pop_all"})
_RUNS_FUNCTION = frozenset(
    {"lower", "trace", "eval_shape"}
)  # jit(f).lower(...) traces f


@functools.cache
def _test_case_methods() -> frozenset[str]:
    """TestCase methods (absltest's expected-error managers too, and those a newer unittest
    dropped): `with self.assertRaises(...)` enters no mesh. unittest is imported only when a
    `with self.<method>(...)` asks (~12 ms that `jaxfix repair` pays in every run else)."""
    import unittest

    return frozenset(dir(unittest.TestCase)) | frozenset(EXPECTED_ERROR_METHODS)


# Calls that run their first argument (a function) before they return.
MAPS_AT_ONCE = frozenset(
    {
        "jax.tree.map",
        "jax.tree_util.tree_map",
        "jax.tree.map_with_path",
        "jax.tree_util.tree_map_with_path",
    }
)

# Builtins that iterate their argument at once (a generator passed to them runs there).
_ITERATES = frozenset(
    {"list", "tuple", "set", "dict", "sum", "min", "max", "any", "all"}
)


class Entry(enum.Enum):
    WITH = "with"
    ENTER_CONTEXT = "enter_context"
    GLOBAL_SET = "global set_mesh"
    ELSEWHERE = "set_mesh elsewhere"
    USE = "use"
    DECORATOR = "decorator"
    SETUP = "setUp"


@dataclass(frozen=True)
class Site:
    """One context that may be in force: how it is entered, by which API (None: a context
    manager jaxfix cannot see into), its mesh, and where (`call`: the call of the node's
    function in a caller, for sites found around it, or what `entered_by` names; `entered_by`:
    for a site in the body of a `@contextmanager` function or a decorator's wrapper, the
    `with` item, `enter_context` argument or decorator that entered it, the outermost when
    they nest)."""

    entry: Entry
    api: Api | None
    mesh: Value
    node: ast.AST
    call: ast.AST | None = None
    entered_by: ast.AST | None = None

    @property
    def sets_context_mesh(self) -> bool:
        return self.api is None or self.api in MESH_CONTEXT_APIS


Way = tuple[Site, ...]


class Contexts:
    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator
        # through a weak reference: the evaluator and its answers are freed with the module's
        # questions, not left in a cycle for the collector
        current_mesh = weakref.WeakMethod(self._current_mesh_in)

        def asked(module: Module, node: ast.AST, frame: Frame) -> Value:
            method = current_mesh()
            assert method is not None, (
                "an evaluator is asked only while its contexts live"
            )
            return method(module, node, frame)

        evaluator.current_mesh = asked
        device_mesh = weakref.WeakMethod(self._current_device_mesh_in)

        def asked_device_mesh(module: Module, node: ast.AST, frame: Frame) -> Value:
            method = device_mesh()
            assert method is not None, (
                "an evaluator is asked only while its contexts live"
            )
            return method(module, node, frame)

        evaluator.current_device_mesh = asked_device_mesh
        self._ways: dict[tuple[ast.AST, object], list[Way]] = {}
        self._active: set[tuple[ast.AST, object]] = set()
        self._entering: set[tuple[ast.AST, Frame]] = set()  # context managers' yields
        self._setters: dict[Path, list[ast.Call]] = {}

    def current_mesh(self, module: Module, node: ast.AST) -> Value:
        """The mesh JAX's context holds where `node` runs: a `Mesh`, None (no context on any
        way), or Unknown."""
        return _current(self.ways_at(module, node))

    def _current_mesh_in(
        self, module: Module, node: ast.AST, frame: Frame, concrete: bool = False
    ) -> Value:
        current = _current_device if concrete else _current
        if frame.args is None:
            found = current(self.ways_at(module, node))
        else:
            # inside a followed call: what its own body enters (evaluated with the call's
            # arguments), inside what every call of the function in the project is under (a
            # context differing between them, or a use other than a call, is Unknown)
            local = self._local(module, node, frame)
            if (_device_setting_site if concrete else setting_site)(local) is not None:
                found = current([local])
            else:
                outer = self._around_scope(module, frame.scope, 0)
                found = current([(*o, *local) for o in outer])
        return found if found is not None else Unknown("no mesh context is known here")

    def _current_device_mesh_in(
        self, module: Module, node: ast.AST, frame: Frame
    ) -> Value:
        """The concrete mesh `jax.sharding.get_mesh()` returns where `node` runs."""
        return self._current_mesh_in(module, node, frame, concrete=True)

    def ways_at(self, module: Module, node: ast.AST, depth: int = 0) -> list[Way]:
        frame = self.evaluator.frame_at(module, node)
        key = (node, self.evaluator.unrolling())  # one iteration of the loops around it
        cached = self._ways.get(key)
        if cached is not None:
            return cached
        if key in self._active or depth > _MAX_DEPTH:
            self.evaluator.cut()
            return [(Site(Entry.USE, None, Unknown("callers nested too deep"), node),)]
        self._active.add(key)
        try:
            local = self._local(module, node, frame)
            outer = self._around_scope(module, frame.scope, depth)
            ways = [(*o, *local) for o in outer][: _MAX_WAYS + 1]
            if len(ways) > _MAX_WAYS:
                ways = [(Site(Entry.USE, None, Unknown("too many ways to run"), node),)]
        finally:
            self._active.discard(key)
        self._ways[key] = ways
        return ways

    # -- inside the node's own scope ---------------------------------------------------------

    def _local(self, module: Module, node: ast.AST, frame: Frame) -> Way:
        levels: list[list[Site]] = []
        child: ast.AST = node
        parent = module.parents.get(node)
        scope = frame.scope
        while parent is not None and child is not scope:
            found: list[Site] = []
            if isinstance(parent, (ast.With, ast.AsyncWith)):
                items = parent.items
                if isinstance(child, ast.withitem):
                    items = items[: items.index(child)]
                elif child not in parent.body:
                    items = []
                for item in items:
                    found.extend(
                        self._entered(module, item.context_expr, frame, Entry.WITH)
                    )
            for field in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(parent, field, None)
                if isinstance(block, list) and child in block:
                    # inside a `with`'s body: after (inside) its items
                    found = found + self._earlier(
                        module, block[: block.index(child)], frame
                    )
            levels.append(found)
            if parent is scope:
                break
            child, parent = parent, module.parents.get(parent)
        return tuple(site for level in reversed(levels) for site in level)

    def _earlier(
        self, module: Module, statements: list[ast.stmt], frame: Frame
    ) -> list[Site]:
        """Sites statements earlier in the block leave in force: `x.enter_context(cm)` and a
        bare `jax.set_mesh(m)`."""
        sites: list[Site] = []
        for statement in statements:
            call = _statement_call(statement)
            if call is not None and isinstance(call.func, ast.Attribute):
                if call.func.attr in ENTER_METHODS and len(call.args) == 1:
                    sites.extend(
                        self._entered(module, call.args[0], frame, Entry.ENTER_CONTEXT)
                    )
                    continue
                if call.func.attr in _EXIT_METHODS:
                    sites = [s for s in sites if s.entry is not Entry.ENTER_CONTEXT]
                    continue
            setters = self._global_setters(module)
            if call is not None:
                if call in setters:
                    value = self.evaluator.value(module, call, frame)
                    if isinstance(value, MeshContext) and value.api is Api.SET_MESH:
                        sites.append(
                            Site(Entry.GLOBAL_SET, Api.SET_MESH, value.mesh, call)
                        )
                continue
            held = next((c for c in setters if module.is_within(c, statement)), None)
            if held is None:
                continue
            if isinstance(
                statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                # `def configure(): jax.set_mesh(m)` then `configure()`: calls are not
                # followed here, so the mesh is unknown from the definition on
                why = (
                    f"`{statement.name}` holds a set_mesh (line {held.lineno}) and may "
                    "have run since"
                )
            else:
                why = f"set_mesh under a compound statement (line {statement.lineno})"
            sites.append(Site(Entry.GLOBAL_SET, None, Unknown(why), statement))
        return sites

    def _is_global_setter(self, module: Module, call: ast.Call, frame: Frame) -> bool:
        parent = module.parents.get(call)
        if not isinstance(parent, ast.Expr):
            return False
        callee = self.evaluator.api_value(module, call.func, frame)
        return isinstance(callee, External) and api_of(callee.name) in (
            Api.SET_MESH,
            Api.USE_MESH,
        )

    def _entered(
        self,
        module: Module,
        expr: ast.expr,
        frame: Frame,
        entry: Entry,
        shared: bool = False,
    ) -> list[Site]:
        """What entering `expr` puts in force (`shared`: an object a name bound earlier
        holds, which other code may hold too)."""
        value = self.evaluator.value(module, expr, frame)
        if isinstance(value, MeshContext):
            return [Site(entry, value.api, value.mesh, expr)]
        if isinstance(value, Mesh):
            return [Site(entry, Api.MESH, value, expr)]  # legacy `with mesh:`
        if isinstance(value, Instance):
            return self._enter_method(module, value, expr, entry, shared)
        if isinstance(expr, ast.Call):
            callee = self.evaluator.value(module, expr.func, frame)
            if isinstance(callee, External):
                if imported_name_enters_no_mesh(callee.name) or callee.name.startswith(
                    "builtins."
                ):
                    return []
            if isinstance(callee, Function) and callee.wrapped_by == "contextmanager":
                return self._at_yield(module, expr, callee, frame, entry)
            if (
                isinstance(callee, BoundMethod)
                and callee.function.wrapped_by == "contextmanager"
            ):  # `with strategy.scope():`, a @contextmanager method of an object
                return self._at_yield(
                    module, expr, callee.function, frame, entry, callee.receiver
                )
            if (
                isinstance(callee, Unknown)
                and isinstance(expr.func, ast.Attribute)
                and isinstance(expr.func.value, ast.Name)
                and expr.func.value.id == "self"
                and expr.func.attr in _test_case_methods()
            ):
                return []  # an inherited unittest.TestCase method (assertRaises, ...)
        assigned = self._assigned_call(module, expr, frame)
        if assigned is not None:  # `ctx = data_parallel(2)` ... `with ctx:`
            return self._entered(
                module,
                assigned,
                self.evaluator.frame_at(module, assigned),
                entry,
                shared=True,
            )
        why = (
            value.why
            if isinstance(value, Unknown)
            else "a context manager jaxfix cannot see into"
        )
        return [Site(entry, None, Unknown(why), expr)]

    def _assigned_call(
        self, module: Module, expr: ast.expr, frame: Frame
    ) -> ast.Call | None:
        """The one call a name entered by `with` was bound to (`ctx = cm(...)`; the context
        manager is entered where the `with` is), or for `self.ctx` in a TestCase's `test*`
        method, the one `self.ctx = cm(...)` of its `setUp` (which runs just before it) when
        no other method of the class or of a subclass in the module assigns it."""
        if isinstance(expr, ast.Name):
            bindings = self.evaluator.reaching(module, expr)
            if bindings is None or len(bindings) != 1:
                return None
            (binding,) = bindings
            node = binding.node
            if binding.kind == "assign" and not binding.path:
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    return node.value
            return None
        method = frame.scope
        klass = module.parents.get(method)
        if not (
            isinstance(expr, ast.Attribute)
            and isinstance(expr.value, ast.Name)
            and isinstance(method, ast.FunctionDef)
            and method.name.startswith("test")
            and method.args.args
            and expr.value.id == method.args.args[0].arg
            and isinstance(klass, ast.ClassDef)
        ):
            return None
        name = expr.attr
        assigning = [
            s
            for s in klass.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and module.assigns_self_attribute(s, name)
        ]
        if [s.name for s in assigning] != ["setUp"]:
            return None
        if self.evaluator._subclass_assigning(Class(klass, module.path), name):
            return None
        setup = assigning[0]
        this = setup.args.args[0].arg if setup.args.args else None
        stores = [
            s.value
            for s in setup.body
            if isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Attribute)
            and s.targets[0].attr == name
            and isinstance(s.targets[0].value, ast.Name)
            and s.targets[0].value.id == this
        ]
        if len(stores) != 1 or not isinstance(stores[0], ast.Call):
            return None
        if len(_stores_of(setup, this, name)) != 1:
            return None
        return stores[0]

    def _enter_method(
        self,
        module: Module,
        instance: Instance,
        expr: ast.expr,
        entry: Entry,
        shared: bool = False,
    ) -> list[Site]:
        enter = next(
            (
                s
                for s in instance.cls.node.body
                if isinstance(s, ast.FunctionDef) and s.name == "__enter__"
            ),
            None,
        )
        if enter is None:
            return [
                Site(
                    entry, None, Unknown("an object without a visible __enter__"), expr
                )
            ]
        if not any(_may_enter(n) for n in ast.walk(enter)):
            return []
        unknown = [
            Site(entry, None, Unknown("a class whose __enter__ may enter a mesh"), expr)
        ]
        item = module.parents.get(expr)
        if isinstance(module.parents.get(item) if item else None, ast.AsyncWith):
            return unknown  # `async with` runs `__aenter__`
        named = isinstance(item, ast.withitem) and item.optional_vars is not None
        sites = self._entered_by_enter(instance, enter, expr, entry, named, shared)
        return unknown if sites is None else sites

    def _made_by(self, expr: ast.expr, instance: Instance) -> bool:
        """Whether `expr` builds the object itself (`with Scope(m):`), so that no other code
        holds it; an object a name reads or a factory returns may be held elsewhere."""
        return isinstance(expr, ast.Call) and instance.origin is expr

    def _entered_by_enter(
        self,
        instance: Instance,
        enter: ast.FunctionDef,
        expr: ast.expr,
        entry: Entry,
        named: bool = False,
        shared: bool = False,
    ) -> list[Site] | None:
        """The mesh contexts `__enter__` leaves entered, when its body pins them down: the
        object is made by the `with` item itself and reaches no other code (its methods use
        `self` only for attributes), each call of the body that may enter a context is
        `x.__enter__()` of a mesh context (`self.cm = use_abstract_mesh(m)` before it), a
        `jax.set_mesh(m)` call, or a mesh context made and not entered (stored or returned),
        each other call is of an API that enters none, and no other method of the class but
        `__exit__` enters or exits one; else None."""
        target = self.evaluator.module(instance.cls.path)
        if isinstance(target, Unknown):
            return None
        for method in instance.cls.node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if not _self_only_for_attributes(
                target, method, registers=method.name == "__enter__"
            ):
                return None
            if method.name in ("__enter__", "__exit__"):
                continue
            for node in ast.walk(method):
                if _exits(node) or (
                    _may_enter(node) and not self._stores_context(target, node)
                ):
                    return None
        shared = shared or not self._made_by(expr, instance)
        if not self._handed_out_safely(target, instance.cls.node, enter, named, shared):
            return None
        if shared and self._changed_from_outside(target):
            return None
        a = enter.args
        if (
            a.posonlyargs
            or len(a.args) != 1
            or a.vararg
            or a.kwonlyargs
            or a.kwarg
            or enter.decorator_list
            or self.evaluator.is_generator(enter)
        ):
            return None
        frame = Frame(
            enter, instance.cls.path, ((a.args[0].arg, instance),), instance.cls.closure
        )
        for node in ast.walk(enter):
            if (
                isinstance(node, ast.Call)
                and not _may_enter(node)
                and not self._enters_nothing(target, node, frame)
                and not self._registering(target, enter, node, frame)
                and not self._makes_context(target, node, frame)
            ):
                return None  # a helper that may enter (or exit) a mesh context
        sites: list[Site] = []
        returned = False  # a `return` earlier in the body: what follows may not run
        for index, statement in enumerate(enter.body):
            calls = [n for n in ast.walk(statement) if _may_enter(n)]
            value = getattr(statement, "value", None)
            if (
                value in calls
                and isinstance(value, ast.Call)
                and _called_name(value) == "enter_context"
                and len(value.args) == 1
                and all(n is value or _within(n, value.args[0]) for n in calls)
            ):
                calls = [value]  # `stack.enter_context(use_abstract_mesh(m))`
            if not calls:
                returned = returned or any(
                    isinstance(n, ast.Return) for n in ast.walk(statement)
                )
                continue
            if returned:
                return None
            if len(calls) != 1 or not isinstance(
                statement, (ast.Expr, ast.Assign, ast.Return)
            ):
                return None  # under a compound statement, or more than one call
            call = calls[0]
            assert isinstance(call, ast.Call)
            if statement.value is not call:
                return None  # passed on to other code
            found = self._entered_in_enter(
                target, statement, enter.body[:index], call, frame
            )
            if found is None:
                return None
            sites.extend(
                replace(site, entry=entry, call=expr, entered_by=expr) for site in found
            )
            returned = isinstance(statement, ast.Return)
        return sites

    def _changed_from_outside(self, module: Module) -> bool:
        """Whether code outside the methods that own them may change an attribute that the
        methods of `module`'s classes read on their object (`runner.view = other` between
        building the object and entering it; `view.mesh = m`): a store `x.attr = ...` of
        such a name anywhere in the run other than on a method's own first parameter (the
        values jaxfix gives the object's attributes are what its constructor made)."""
        names: set[str] = set()
        for klass in ast.walk(module.tree):
            if not isinstance(klass, ast.ClassDef):
                continue
            for method in klass.body:
                if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                params = [*method.args.posonlyargs, *method.args.args]
                if not params:
                    continue
                this = params[0].arg
                names.update(
                    n.attr
                    for n in ast.walk(method)
                    if isinstance(n, ast.Attribute)
                    and isinstance(n.value, ast.Name)
                    and n.value.id == this
                )
        for name in sorted(names):
            holders = self.evaluator.project.candidate_files(
                name, module.path, imported=False
            )
            if isinstance(holders, Unknown):
                return True
            for path in {module.path, *holders}:
                other = self.evaluator.module(path)
                if isinstance(other, Unknown):
                    return True
                for store in other.attribute_stores(name):
                    owner = other.scope_of(store)
                    params = (
                        [*owner.args.posonlyargs, *owner.args.args]
                        if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef))
                        else []
                    )
                    if not (
                        params
                        and isinstance(other.parents.get(owner), ast.ClassDef)
                        and isinstance(store.value, ast.Name)
                        and store.value.id == params[0].arg
                    ):
                        return True
        return False

    def _handed_out_safely(
        self,
        module: Module,
        klass: ast.ClassDef,
        enter: ast.FunctionDef,
        named: bool,
        shared: bool = False,
    ) -> bool:
        """Where `__enter__` hands the object out (`return self` to a `with ... as name`, or
        `stack.append(self)`), or the object is `shared` (a name or a factory's result, not
        built by the `with` item), code that holds it could exit its mesh context: only when
        no module of the run reads `.__exit__` but the class's own `__exit__`. `return self`
        to a `with` without `as` hands it to no one."""
        this = enter.args.args[0].arg if enter.args.args else None
        returned = any(
            isinstance(n, ast.Return)
            and isinstance(n.value, ast.Name)
            and n.value.id == this
            for n in ast.walk(enter)
        )
        registered = any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "append"
            and any(isinstance(a, ast.Name) and a.id == this for a in n.args)
            for n in ast.walk(enter)
        )
        if not (registered or (returned and named) or shared):
            return True
        holders = self.evaluator.project.candidate_files(
            "__exit__", module.path, imported=False
        )
        if isinstance(holders, Unknown):
            return False
        for path in {module.path, *holders}:
            other = self.evaluator.module(path)
            if isinstance(other, Unknown):
                return False
            for read in other.loads_by_name.get("__exit__", ()):
                if not isinstance(read, ast.Attribute):
                    return False
                method = other.scope_of(read)
                if not (
                    other is module
                    and isinstance(method, ast.FunctionDef)
                    and method.name == "__exit__"
                    and module.parents.get(method) is klass
                ):
                    return False
        return True

    def _registering(
        self, module: Module, enter: ast.FunctionDef, call: ast.Call, frame: Frame
    ) -> bool:
        """`stack.append(self)` in `__enter__` (see `_registers_itself`), on a receiver that
        is no object of a class of the tree (a list, or a `threading.local()`'s attribute)."""
        this = enter.args.args[0].arg if enter.args.args else None
        if not (
            len(call.args) == 1
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id == this
            and _registers_itself(module, enter, call.args[0], call)
        ):
            return False
        assert isinstance(call.func, ast.Attribute)
        receiver = self.evaluator.value(module, call.func.value, frame)
        return not isinstance(receiver, (Instance, Class, BoundMethod, Function))

    def _makes_context(self, module: Module, call: ast.Call, frame: Frame) -> bool:
        """A call in `__enter__` that only makes the context the body enters: the argument
        of `stack.enter_context(...)` on an `ExitStack` (entered there: `_entered` asks what
        it enters), or a call whose value is a mesh context or a mesh (`self.view.scope()`
        returning `use_abstract_mesh(self.mesh)`), stored for a later `.__enter__()`."""
        parent = module.parents.get(call)
        if (
            isinstance(parent, ast.Call)
            and parent.args == [call]
            and isinstance(parent.func, ast.Attribute)
            and parent.func.attr == "enter_context"
            and self._is_exit_stack(module, parent.func.value, frame)
        ):
            return True
        made = self.evaluator.value(module, call, frame)
        return isinstance(made, MeshContext) and made.api is not Api.SET_MESH

    def _is_exit_stack(self, module: Module, receiver: ast.expr, frame: Frame) -> bool:
        """`receiver` is a `contextlib.ExitStack()` the class makes: a name or `self.attr`
        whose every store in the class (or the function) is `ExitStack()` or None."""
        scope: ast.AST = frame.scope
        if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name):
            klass = module.parents.get(scope)
            if not isinstance(klass, ast.ClassDef):
                return False
            stores = [
                module.parents.get(target)
                for method in klass.body
                if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
                and method.args.args
                for target in _stores_of(method, method.args.args[0].arg, receiver.attr)
            ]
        elif isinstance(receiver, ast.Name):
            stores = [
                module.parents.get(n)
                for n in ast.walk(scope)
                if isinstance(n, ast.Name)
                and n.id == receiver.id
                and isinstance(n.ctx, ast.Store)
            ]
        else:
            return False
        if not stores:
            return False
        for statement in stores:
            if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                return False
            value = statement.value
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            if not isinstance(value, ast.Call) or value.args or value.keywords:
                return False
            callee = self.evaluator.value(
                module, value.func, self.evaluator.frame_at(module, value)
            )
            if not (
                isinstance(callee, External) and callee.name == "contextlib.ExitStack"
            ):
                return False
        return True

    def _enters_nothing(self, module: Module, call: ast.Call, frame: Frame) -> bool:
        """A call of an API from outside the tree that enters no mesh context."""
        callee = self.evaluator.value(module, call.func, frame)
        if not isinstance(callee, External):
            return False
        if api_of(callee.name) in MESH_CONTEXT_APIS:
            return False
        return imported_name_enters_no_mesh(callee.name) or callee.name.startswith(
            "builtins."
        )

    def _entered_in_enter(
        self,
        module: Module,
        statement: ast.stmt,
        before: list[ast.stmt],
        call: ast.Call,
        frame: Frame,
    ) -> list[Site] | None:
        """The sites `call`, of the statement of `__enter__`'s body after those `before`,
        enters (none, or one); None when unknown."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "__enter__":
            if call.args or call.keywords:
                return None
            receiver = func.value
            entered = self.evaluator.value(module, receiver, frame)
            this = frame.args[0][0] if frame.args else None
            if (
                isinstance(receiver, ast.Attribute)
                and isinstance(receiver.value, ast.Name)
                and receiver.value.id == this
            ):
                # `self.cm`: assigned by one earlier statement of the body (else only by
                # __init__, which the value above asks)
                name = f"{this}.{receiver.attr}"
                env = self.evaluator.flow(module, frame).before.get(statement)
                bindings = env.get(name) if env is not None else None
                if bindings:
                    if len(bindings) != 1 or next(iter(bindings)).node not in before:
                        return None
                    entered = self.evaluator._bindings_value(
                        module, name, bindings, frame
                    )
            if isinstance(entered, MeshContext):
                origin = entered.origin or call
                return [Site(Entry.WITH, entered.api, entered.mesh, origin)]
            if isinstance(entered, Mesh):  # the legacy `with mesh:`
                return [Site(Entry.WITH, Api.MESH, entered, entered.origin or call)]
            return None
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "enter_context"
            and len(call.args) == 1
            and not call.keywords
            and self._is_exit_stack(module, func.value, frame)
        ):  # `self._stack.enter_context(cm)`: entered, exited when the stack closes
            return [
                replace(site, entry=Entry.WITH)
                for site in self._entered(module, call.args[0], frame, Entry.WITH)
            ]
        made = self.evaluator.value(module, call, frame)
        if not isinstance(made, MeshContext):
            return None
        if made.api is Api.SET_MESH:  # sets the mesh when merely called
            return [Site(Entry.WITH, Api.SET_MESH, made.mesh, made.origin or call)]
        return []  # made, stored or returned, not entered

    def _stores_context(self, module: Module, call: ast.AST) -> bool:
        """`self.cm = use_abstract_mesh(m)` (or `use_mesh`) in a method: a mesh context made
        and stored, not entered (`set_mesh` sets the mesh when merely called)."""
        statement = module.parents.get(call)
        if not (
            isinstance(call, ast.Call)
            and isinstance(statement, (ast.Assign, ast.Return))
            and statement.value is call
        ):
            return False
        callee = self.evaluator.value(
            module, call.func, self.evaluator.frame_at(module, call)
        )
        return isinstance(callee, External) and api_of(callee.name) in (
            Api.USE_ABSTRACT_MESH,
            Api.USE_MESH,
        )

    def _at_yield(
        self,
        module: Module,
        call: ast.Call,
        function: Function,
        frame: Frame,
        entry: Entry,
        receiver: Value | None = None,
    ) -> list[Site]:
        target = self.evaluator.module(function.path)
        if isinstance(target, Unknown):
            return [Site(entry, None, target, call)]
        yields = [
            n
            for n in ast.walk(function.node)
            if isinstance(n, (ast.Yield, ast.YieldFrom))
        ]
        positional, keywords = self.evaluator._call_arguments(module, call, frame)
        if receiver is not None and isinstance(positional, list):
            positional = [receiver, *positional]
        args = self.evaluator.bind(function, positional, keywords)
        if isinstance(args, Unknown):
            return [Site(entry, None, args, call)]
        inner = Frame(function.node, function.path, args, function.closure)
        if len(yields) != 1:
            yields = self._yields_taken(target, function.node, yields, inner)
        if len(yields) != 1:
            return [
                Site(
                    entry, None, Unknown("a context manager with several yields"), call
                )
            ]
        key = (yields[0], inner)
        if key in self._entering:
            self.evaluator.cut()
            return [
                Site(entry, None, Unknown("a context manager entering itself"), call)
            ]
        self._entering.add(key)
        try:
            return [
                replace(s, entry=entry, call=call, entered_by=call)
                for s in self._local(target, yields[0], inner)
            ]
        finally:
            self._entering.discard(key)

    def _yields_taken(
        self,
        module: Module,
        function: ast.AST,
        yields: list[ast.Yield | ast.YieldFrom],
        frame: Frame,
    ) -> list[ast.Yield | ast.YieldFrom]:
        """The yields of a context manager this call reaches, each `if` around one decided by
        a `bool` the call gives (`if abstract:` with `abstract=True`); all of them when one
        test is not such a value, the branch then unknown."""
        taken = []
        for node in yields:
            child: ast.AST = node
            parent = module.parents.get(node)
            reached = True
            while parent is not None and child is not function:
                if isinstance(parent, ast.If) and child is not parent.test:
                    test = self.evaluator.value(module, parent.test, frame)
                    if not isinstance(test, bool):
                        return yields
                    reached = reached and test is (child in parent.body)
                child, parent = parent, module.parents.get(parent)
            if reached:
                taken.append(node)
        return taken

    # -- around the scope --------------------------------------------------------------------

    def _around_scope(self, module: Module, scope: ast.AST, depth: int) -> list[Way]:
        if scope is module.tree:
            return [()]
        if isinstance(scope, ast.ClassDef):
            return self.ways_at(module, scope, depth + 1)
        elsewhere = self._elsewhere(module, scope)
        if isinstance(scope, ast.Lambda):
            at_once = self._calling_at_once(module, scope)
            if at_once is not None:  # its body runs inside that call, in its context
                return [
                    (*elsewhere, *(replace(s, call=s.call or at_once) for s in way))
                    for way in self.ways_at(module, at_once, depth + 1)
                ]
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return [
                (
                    *elsewhere,
                    Site(Entry.USE, None, Unknown("a lambda used as a value"), scope),
                )
            ]
        sites = [
            *elsewhere,
            *self._setup(module, scope),
            *self._decorators(module, scope),
        ]
        calls = self.calls_running(module, scope)
        if isinstance(calls, Unknown):
            return [(*sites, Site(Entry.USE, None, calls, scope))]
        if not calls:
            return [tuple(sites)]
        generator = self.evaluator.is_generator(scope)
        ways: list[Way] = []
        for caller, call in calls:
            if generator:  # its body runs where the generator is iterated
                iterated = _iterated_at(caller, call)
                if iterated is None:
                    continue  # `gen()` as a statement: nothing of its body runs
                if not iterated:
                    why = f"a generator iterated elsewhere (line {caller.line(call)})"
                    ways.append((*sites, Site(Entry.USE, None, Unknown(why), call)))
                    continue
            for way in self.ways_at(caller, call, depth + 1):
                ways.append((*(replace(s, call=s.call or call) for s in way), *sites))
        return ways or [tuple(sites)]

    def _calling_at_once(self, module: Module, function: ast.AST) -> ast.Call | None:
        """The call that runs `function` (a lambda or a function's name) before it returns,
        where `function` is the function argument of `jax.tree.map` and its kin; else None."""
        call = module.parents.get(function)
        if not (isinstance(call, ast.Call) and call.args and call.args[0] is function):
            return None
        callee = self.evaluator.value(
            module, call.func, self.evaluator.frame_at(module, call)
        )
        if isinstance(callee, External) and callee.name in MAPS_AT_ONCE:
            return call
        return None

    def calls_running(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[Module, ast.AST]] | Unknown:
        """Where `function`'s body runs, each in its module: the `with C(...)` items running an
        `__enter__`, the calls of what a decorator's wrapper wraps, else its calls in the
        project (of its decorated name too) or the `jax.jit(f)(...)`-style runs of it."""
        entered = self._with_items_entering(module, function)
        if entered is None:
            entered = self._wrapper_runs(module, function)
        if entered is not None:
            return entered
        found = self.evaluator.calls_of(module, function, through_decorators=True)
        if isinstance(found, Unknown):
            runs = self._runs_of(module, function)
            # none in its own module is not none at all: the use elsewhere may call it
            return runs if runs else found
        return [(caller, call) for caller, call, _ in found]

    def _with_items_entering(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[Module, ast.AST]] | None:
        """For `__enter__` of a class: the `with C(...)` items that run it, when every use of
        the class is such an item and no object of it can reach other code (its methods use
        `self` only for attributes, `__enter__` does not return it); else None (not known)."""
        cls = module.parents.get(function)
        if function.name != "__enter__" or not isinstance(cls, ast.ClassDef):
            return None
        for method in cls.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not _self_only_for_attributes(module, method):
                    return None
        others = self.evaluator.project.candidate_files(cls.name, module.path)
        if isinstance(others, Unknown):
            return None
        runs: list[tuple[Module, ast.AST]] = []
        for path in (module.path, *(p for p in others if p != module.path)):
            other = self.evaluator.module(path)
            if isinstance(other, Unknown):
                return None
            for use in other.loads_by_name.get(cls.name, ()):
                value = self.evaluator.value(
                    other, use, self.evaluator.frame_at(other, use)
                )
                if isinstance(value, Foreign) or (
                    isinstance(value, Class) and value.node is not cls
                ):
                    continue
                if not isinstance(value, Class):
                    return None
                call = other.parents.get(use)
                item = other.parents.get(call) if call is not None else None
                if not (
                    isinstance(call, ast.Call)
                    and call.func is use
                    and isinstance(item, ast.withitem)
                    and item.context_expr is call
                ):
                    return None
                runs.append((other, call))
        return runs

    def _wrapper_runs(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[Module, ast.AST]] | None:
        """For a decorator's wrapper (`def deco(fn): def wrapper(...): ...; return wrapper`):
        the calls of the functions `deco` decorates outermost, and `deco(f)(...)`, when those
        are all its uses and the wrapper's only use is that `return`; else None (not known)."""
        outer = module.scope_of(function)
        if not isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        frame = self.evaluator.frame_at(module, function)
        for decorator in function.decorator_list:
            wraps = decorator.func if isinstance(decorator, ast.Call) else decorator
            found = self.evaluator.value(module, wraps, frame)
            if not (isinstance(found, External) and found.name == "functools.wraps"):
                return None
        for use in module.loads_by_name.get(function.name, ()):
            returned = module.parents.get(use)
            if not (
                isinstance(use, ast.Name)
                and isinstance(returned, ast.Return)
                and module.scope_of(returned) is outer
            ):
                return None
        others = self.evaluator.project.candidate_files(outer.name, module.path)
        if isinstance(others, Unknown):
            return None
        runs: list[tuple[Module, ast.AST]] = []
        for path in (module.path, *(p for p in others if p != module.path)):
            other = self.evaluator.module(path)
            if isinstance(other, Unknown):
                return None
            for use in other.loads_by_name.get(outer.name, ()):
                value = self.evaluator.value(
                    other, use, self.evaluator.frame_at(other, use)
                )
                if isinstance(value, Foreign) or (
                    isinstance(value, Function) and value.node is not outer
                ):
                    continue
                if not isinstance(value, Function):
                    return None
                parent = other.parents.get(use)
                if isinstance(
                    parent, (ast.FunctionDef, ast.AsyncFunctionDef)
                ) and parent.decorator_list[:1] == [use]:
                    calls = self.evaluator.calls_of(
                        other, parent, through_decorators=True
                    )
                    if isinstance(calls, Unknown):
                        return None
                    runs.extend((m, call) for m, call, _ in calls)
                    continue
                applied = other.parents.get(parent) if parent is not None else None
                if (
                    isinstance(parent, ast.Call)
                    and parent.func is use
                    and isinstance(applied, ast.Call)
                    and applied.func is parent
                ):
                    runs.append((other, applied))
                    continue
                return None
        return runs

    def _runs_of(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[Module, ast.AST]] | Unknown:
        """The calls running `function`, when it is used through `jax.jit(f)` and then called or
        lowered (`jax.jit(f)(x)`, `jax.jit(f).lower(x)`, `g = jax.jit(f); g.lower(x)`)."""
        found: list[tuple[Module, ast.AST]] = []
        for use in module.loads_by_name.get(function.name, ()):
            value = self.evaluator.value(
                module, use, self.evaluator.frame_at(module, use)
            )
            if isinstance(value, Foreign):
                continue
            if isinstance(value, Unknown):
                if isinstance(use, ast.Name) and self.evaluator.is_definition_of(
                    module, use, function
                ):
                    parent = module.parents.get(use)
                    if isinstance(parent, ast.Call) and parent.func is use:
                        found.append((module, parent))
                        continue
                return Unknown(
                    f"`{function.name}` at line {module.line(use)} may be it"
                )
            if isinstance(value, BoundMethod):  # `obj.method`: its function's use
                value = value.function
            if not isinstance(value, Function) or value.node is not function:
                continue
            parent = module.parents.get(use)
            if isinstance(parent, ast.Call) and parent.func is use:
                found.append((module, parent))
                continue
            at_once = self._calling_at_once(module, use)
            if at_once is not None:  # `jax.tree.map(f, tree)` runs f there
                found.append((module, at_once))
                continue
            through = self.evaluator.runs_through_jitted_attribute(module, use)
            if through is not None:  # `self.attr = jax.jit(self.f)`; `self.attr(x)`
                found.extend((module, run) for run in through)
                continue
            if value.wrapped_by == "jit":
                run = _run_of(module, use)
                if run is not None:
                    found.append((module, run))
                    continue
            if isinstance(parent, ast.Call) and use in parent.args:
                jitted = self.evaluator.value(
                    module, parent, self.evaluator.frame_at(module, parent)
                )
                if isinstance(jitted, Function) and jitted.wrapped_by == "jit":
                    run = _run_of(module, parent)
                    if run is not None:
                        found.append((module, run))
                        continue
                    runs = self._runs_through_name(module, parent)
                    if runs is not None:
                        found.extend((module, r) for r in runs)
                        continue
            return Unknown(
                f"`{function.name}` is used other than called (line {module.line(use)})"
            )
        return found

    def _runs_through_name(
        self, module: Module, jitted: ast.Call
    ) -> list[ast.AST] | None:
        """For `g = jax.jit(f)` at module level: the calls that run f through `g` (`g(x)`,
        `g.lower(x)`), when every read of `g` this binding reaches is one and no other module
        names `g`; else None."""
        statement = module.parents.get(jitted)
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and module.scope_of(statement) is module.tree
        ):
            return None
        name = statement.targets[0].id
        others = self.evaluator.project.candidate_files(name, module.path)
        if isinstance(others, Unknown) or any(p != module.path for p in others):
            return None
        runs: list[ast.AST] = []
        for use in module.loads_by_name.get(name, ()):
            if not isinstance(use, ast.Name):
                continue
            reaching = self.evaluator.reaching(module, use)
            if reaching is None:
                return None
            if not any(b.node is statement for b in reaching):
                continue
            run = _run_of(module, use)
            if run is None:
                return None
            runs.append(run)
        return runs

    def _elsewhere(self, module: Module, scope: ast.AST) -> list[Site]:
        """A bare `set_mesh(m)` outside `scope`: it may have run before the scope runs."""
        for call in self._global_setters(module):
            if not module.is_within(call, scope):
                return [
                    Site(
                        Entry.ELSEWHERE,
                        None,
                        Unknown(
                            f"a set_mesh at line {call.lineno} may have run before"
                        ),
                        call,
                    )
                ]
        return []

    def _global_setters(self, module: Module) -> list[ast.Call]:
        """The module's bare `set_mesh(...)` / `use_mesh(...)` statements (found once)."""
        found = self._setters.get(module.path)
        if found is None:
            found = self._setters[module.path] = [
                call
                for call in module.bare_calls
                if (
                    isinstance(call.func, ast.Name)  # maybe an alias: cheap to ask
                    or _last_name(call.func) in ("set_mesh", "use_mesh")
                )
                and self._is_global_setter(
                    module, call, self.evaluator.frame_at(module, call)
                )
            ]
        return found

    def _setup(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[Site]:
        klass = module.parents.get(function)
        if not isinstance(klass, ast.ClassDef) or not function.name.startswith("test"):
            return []
        sites: list[Site] = []
        for name in ("setUpClass", "setUp"):
            method = next(
                (
                    s
                    for s in klass.body
                    if isinstance(s, ast.FunctionDef) and s.name == name
                ),
                None,
            )
            if method is None:
                continue
            frame = (
                self.evaluator.frame_at(module, method.body[0]) if method.body else None
            )
            if frame is None:
                continue
            for site in self._earlier(module, method.body, frame):
                sites.append(replace(site, entry=Entry.SETUP))
        return sites

    def _decorators(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[Site]:
        sites: list[Site] = []
        frame = self.evaluator.frame_at(module, function)
        for decorator in function.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            value = self.evaluator.value(module, target, frame)
            if isinstance(value, External):
                if imported_name_enters_no_mesh(value.name) or value.name.startswith(
                    "builtins."
                ):
                    continue  # jax.jit, functools.partial, pytest marks, property
                sites.append(
                    Site(
                        Entry.DECORATOR,
                        None,
                        Unknown(f"decorated by `{value.name}`"),
                        decorator,
                    )
                )
                continue
            if not isinstance(value, Function) or isinstance(value.node, ast.Lambda):
                sites.append(
                    Site(
                        Entry.DECORATOR,
                        None,
                        Unknown("a decorator jaxfix cannot see into"),
                        decorator,
                    )
                )
                continue
            sites.extend(self._wrapper_sites(module, decorator, value, frame))
        return sites

    def _wrapper_sites(
        self, module: Module, decorator: ast.expr, deco: Function, frame: Frame
    ) -> list[Site]:
        """`def deco(fn): def wrapper(*a): with set_mesh(m): return fn(*a)` (or a factory
        `deco(args)` returning such a decorator): the sites around the call of `fn`."""
        target = self.evaluator.module(deco.path)
        if isinstance(target, Unknown):
            return [Site(Entry.DECORATOR, None, target, decorator)]
        node = deco.node
        args: tuple[tuple[str, Value], ...] | Unknown = ()
        if isinstance(decorator, ast.Call):
            positional, keywords = self.evaluator._call_arguments(
                module, decorator, frame
            )
            args = self.evaluator.bind(deco, positional, keywords)
            inner = _returned_def(node)
            if inner is None or isinstance(args, Unknown):
                return [
                    Site(
                        Entry.DECORATOR,
                        None,
                        Unknown("a decorator factory jaxfix cannot follow"),
                        decorator,
                    )
                ]
            outer_frame = Frame(node, deco.path, args, deco.closure)
            node = inner
        else:
            outer_frame = deco.closure or self.evaluator.frame_at(target, node)
        if not isinstance(node, ast.FunctionDef) or not node.args.args:
            return [
                Site(
                    Entry.DECORATOR,
                    None,
                    Unknown("a decorator jaxfix cannot see into"),
                    decorator,
                )
            ]
        wrapper = _returned_def(node)
        if wrapper is None:
            if _returns_name(node, node.args.args[0].arg):
                return []  # returns the function itself (registers it): no context
            return [
                Site(
                    Entry.DECORATOR,
                    None,
                    Unknown("a decorator returning something jaxfix cannot see into"),
                    decorator,
                )
            ]
        fn = node.args.args[0].arg
        calls = [
            c
            for c in ast.walk(wrapper)
            if isinstance(c, ast.Call)
            and isinstance(c.func, ast.Name)
            and c.func.id == fn
        ]
        if len(calls) != 1:
            return [
                Site(
                    Entry.DECORATOR,
                    None,
                    Unknown("a wrapper calling the function other than once"),
                    decorator,
                )
            ]
        deco_frame = Frame(
            node,
            deco.path,
            ((fn, Unknown("the decorated function")),)
            if isinstance(decorator, ast.Call)
            else None,
            outer_frame,
        )
        wrapper_frame = Frame(wrapper, deco.path, (), deco_frame)
        return [
            replace(s, entry=Entry.DECORATOR, call=decorator, entered_by=decorator)
            for s in self._local(target, calls[0], wrapper_frame)
        ]


def setting_site(way: Way) -> Site | None:
    """The site that sets JAX's context mesh on `way`: the innermost that sets one."""
    return next((s for s in reversed(way) if s.sets_context_mesh), None)


def _device_setting_site(way: Way) -> Site | None:
    """The innermost site on `way` that may set JAX's concrete (device) mesh: `jax.set_mesh`,
    `use_mesh`, or a context manager jaxfix cannot see into (`use_abstract_mesh` sets only
    the abstract mesh, and leaves the concrete one as it was)."""
    return next(
        (
            s
            for s in reversed(way)
            if s.sets_context_mesh and s.api is not Api.USE_ABSTRACT_MESH
        ),
        None,
    )


def _current_device(ways: list[Way]) -> Value:
    """The concrete mesh `jax.sharding.get_mesh()` returns on every way: the mesh of the
    innermost `jax.set_mesh` / `use_mesh` (the same on each way), else Unknown (no such
    context on some way: the empty mesh, or one set where jaxfix does not see)."""
    meshes: list[Value] = []
    for way in ways:
        setting = _device_setting_site(way)
        if setting is None:
            return Unknown("no jax.set_mesh on some way the code runs")
        if setting.api is None:
            return Unknown(
                "a context manager jaxfix does not see into may set the mesh"
            )
        meshes.append(setting.mesh)
    return join(meshes, "the concrete mesh differs between the ways the code runs")


def _current(ways: list[Way]) -> Value:
    meshes: list[Value] = []
    for way in ways:
        setting = setting_site(way)
        meshes.append(setting.mesh if setting is not None else None)
    if all(m is None for m in meshes):
        return None
    if any(m is None for m in meshes):
        return Unknown("a mesh context on some ways the code runs, none on others")
    abstract = [m.abstract if isinstance(m, Mesh) else m for m in meshes]
    return join(abstract, "the context mesh differs between the ways the code runs")


def _may_enter(node: ast.AST) -> bool:
    """A call that may enter a mesh context: a mesh context API (by its last name),
    `__enter__` or `enter_context`."""
    if not isinstance(node, ast.Call):
        return False
    name = _called_name(node)
    return api_of(f"jax.{name}") in MESH_CONTEXT_APIS or name in (
        "__enter__",
        "enter_context",
    )


def _within(node: ast.AST, tree: ast.AST) -> bool:
    return any(n is node for n in ast.walk(tree))


def _exits(node: ast.AST) -> bool:
    """A call that may exit a mesh context entered earlier."""
    return isinstance(node, ast.Call) and _called_name(node) in (
        "__exit__",
        *_EXIT_METHODS,
    )


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _statement_call(statement: ast.stmt) -> ast.Call | None:
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        return statement.value
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and isinstance(
        statement.value, ast.Call
    ):
        call = statement.value
        if isinstance(call.func, ast.Attribute) and call.func.attr in ENTER_METHODS:
            return call
    return None


def _stores_of(
    function: ast.AST, self_name: str | None, name: str
) -> list[ast.Attribute]:
    """Every `<self_name>.name = ...` target inside `function`."""
    return [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Attribute)
        and isinstance(n.ctx, ast.Store)
        and n.attr == name
        and isinstance(n.value, ast.Name)
        and n.value.id == self_name
    ]


def _iterated_at(module: Module, call: ast.AST) -> bool | None:
    """Whether the generator `call` makes is run where it is made (a `with` item, an
    `enter_context` argument, a `for` or comprehension, `yield from`, `list(...)`); None
    when it is dropped unrun (a call statement)."""
    parent = module.parents.get(call)
    if isinstance(parent, ast.Expr):
        return None
    if isinstance(parent, ast.withitem):
        return parent.context_expr is call
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
        return parent.iter is call
    if isinstance(parent, ast.YieldFrom):
        return True
    if isinstance(parent, ast.Call) and call in parent.args:
        func = parent.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in _ITERATES or (
            isinstance(func, ast.Attribute) and name in ENTER_METHODS
        )
    return False


def _returned_def(function: ast.AST) -> ast.FunctionDef | None:
    """The nested `def` a function returns by name."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    defs = {s.name: s for s in function.body if isinstance(s, ast.FunctionDef)}
    for statement in function.body:
        if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Name):
            return defs.get(statement.value.id)
    return None


def _last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _returns_name(function: ast.FunctionDef, name: str) -> bool:
    """Every `return` of `function` returns the name `name`, and it is used nowhere else
    (`registry.append(f)` or `run_later(f)` may run it anywhere)."""
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    returned = {id(r.value) for r in returns}
    return (
        bool(returns)
        and all(isinstance(r.value, ast.Name) and r.value.id == name for r in returns)
        and all(
            id(n) in returned
            for n in ast.walk(function)
            if isinstance(n, ast.Name) and n.id == name
        )
    )


def _run_of(module: Module, jit_call: ast.AST) -> ast.AST | None:
    """`jax.jit(f)(x)` or `jax.jit(f).lower(x)`: the call that runs f's body."""
    parent = module.parents.get(jit_call)
    if isinstance(parent, ast.Call) and parent.func is jit_call:
        return parent
    if isinstance(parent, ast.Attribute) and parent.attr in _RUNS_FUNCTION:
        grand = module.parents.get(parent)
        if isinstance(grand, ast.Call) and grand.func is parent:
            return grand
    return None


def _self_only_for_attributes(
    module: Module,
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    *,
    registers: bool = False,
) -> bool:
    """Whether `method` reads its first parameter only as `self.attr` (never `self` itself,
    nor `self.__enter__`), so the object cannot reach other code through it. `registers`
    (for `__enter__`): also `return self` and a statement `stack.append(self)` (a context
    object that registers itself where others look it up), which hand the object out only
    once its mesh context is made (`_handed_out_safely` asks who may exit it)."""
    params = [*method.args.posonlyargs, *method.args.args]
    if not params:
        return True  # no object to hand out
    name = params[0].arg
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and node.id == name:
            parent = module.parents.get(node)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                if parent.attr != "__enter__":
                    continue
                return False
            if registers and _registers_itself(module, method, node, parent):
                continue
            return False
    return True


def _registers_itself(
    module: Module, method: ast.AST, node: ast.Name, parent: ast.AST | None
) -> bool:
    """`return self` as the method's last statement, or `<...>.append(self)` as a
    statement of its body."""
    body = getattr(method, "body", [])
    if isinstance(parent, ast.Return):
        return parent.value is node and bool(body) and body[-1] is parent
    statement = module.parents.get(parent) if parent is not None else None
    return (
        isinstance(parent, ast.Call)
        and parent.args == [node]
        and not parent.keywords
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr == "append"
        and isinstance(statement, ast.Expr)
        and statement in body
    )
