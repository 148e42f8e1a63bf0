"""What a rule asks about one module, over the run's `Engine` (one place: rules never
re-derive a fact the engine knows).

`Analysis(engine, module, evidence)`: `value_of(expr)`, `ways_at(node)`, `current_mesh(node)` (the two
questions), and what finding the calls a rule looks at needs: `called_api` / `api_of` (which
JAX API, whatever the spelling or alias), `bind(call)` (a JAX call's arguments by parameter
name, from the one signature table), `is_entered(expr)`, `line(node)` and `text(node)` (the
source as written). `expected(node, raises)` and `confirmed(node, code)` are the code that
tests an error (expected.py) and the evidence a log gives (evidence.py). Which mesh an array,
a sharding or a mesh context is on, with the name the code gives it (placement.py):
`array_mesh`, `sharding_mesh`, `context_mesh`, `mesh_named`; where a function runs and who
passes its parameters: `calls_running`, `calls_passing`, each call in its module (`of(module)` asks there). For a
fix that resizes a mesh: `enclosing(node)` (the context mesh's site on each way, as a message
names it) and `mesh_sizes(expr)` (where its axis sizes are written).
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from jaxfix.analysis.ast_engine import (
    Engine,
    assignments,
    device_free,
    eager,
    jitting,
    pytrees,
    spelling,
    trail,
)
from jaxfix.analysis.ast_engine.arguments import bind_arguments
from jaxfix.analysis.ast_engine.callers import CallerWay, caller_ways
from jaxfix.analysis.ast_engine.contexts import MAPS_AT_ONCE, Site, Way
from jaxfix.analysis.ast_engine.enclosing import Enclosing, enclosing
from jaxfix.analysis.ast_engine.evaluate import NotAVariable
from jaxfix.analysis.ast_engine.evidence import Confirmed, EvidenceMap
from jaxfix.analysis.ast_engine.expected import ExpectedErrors
from jaxfix.analysis.ast_engine.fields import own_fields
from jaxfix.analysis.ast_engine.mesh_sizes import MeshSizes, mesh_sizes
from jaxfix.analysis.ast_engine.placement import Placed, reference
from jaxfix.analysis.ast_engine.positions import Span, span
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.rereads import attributes_kept, rereads_same
from jaxfix.analysis.ast_engine.values import (
    BoundMethod,
    Class,
    External,
    Foreign,
    Frame,
    Function,
    Instance,
    Jitted,
    Mesh,
    Sharding,
    Unknown,
    Value,
)
from jaxfix.analysis.ast_engine.vocabulary import api_of
from jaxfix.analysis.names import ENTER_METHODS, SIGNATURES, Api, api_last_names
from jaxfix.evidence.facts import Evidence
from jaxfix.evidence.message_templates import exceptions
from jaxfix.sources.text import source_text, split_lines

# JAX APIs that run none of the code they are given (no function argument, no callback).
_RUNS_NO_CODE = frozenset(
    {
        Api.MESH,
        Api.ABSTRACT_MESH,
        Api.MAKE_MESH,
        Api.SET_MESH,
        Api.USE_MESH,
        Api.USE_ABSTRACT_MESH,
        Api.GET_ABSTRACT_MESH,
        Api.NAMED_SHARDING,
        Api.PARTITION_SPEC,
        Api.DEVICE_PUT,
        Api.TYPEOF,
        Api.TOP_LEVEL_ALL_GATHER,
        Api.SHAPE_DTYPE_STRUCT,
        Api.DEVICES,
        Api.LOCAL_DEVICES,
    }
)


class Analysis:
    """One module of the run, as the rules see it; answers come from `engine`."""

    def __init__(
        self, engine: Engine, module: Module, evidence: tuple[Evidence, ...] = ()
    ) -> None:
        self.engine = engine
        self.module = module
        self.jax_version = engine.evaluator.jax_version
        # this module's, from a log or a run (asking through a proxy: no cycle keeps this
        # Analysis, and so its module's tree, alive once the run lets go of it)
        self.evidence = EvidenceMap(weakref.proxy(self), evidence)
        self._bound_from: dict[frozenset[str], _Bound] = {}
        self._spelled_from: dict[frozenset[str], frozenset[str]] = {}

    @property
    def path(self) -> Path:
        return self.module.path

    @property
    def source(self) -> bytes:
        return self.module.source

    @property
    def parents(self) -> dict[ast.AST, ast.AST]:
        return self.module.parents

    # -- the two questions --------------------------------------------------------------------

    def value_of(self, expr: ast.expr) -> Value:
        """What `expr` evaluates to, as far as the project shows."""
        return self.engine.value_of(self.module, expr)

    def value_in(self, expr: ast.expr, frame: Frame) -> Value:
        """What `expr` evaluates to in `frame` (one of `caller_ways`)."""
        return self.engine.evaluator.value(self.module, expr, frame)

    def caller_ways(self, node: ast.AST) -> list[CallerWay]:
        """Each way the project calls the function `node` is in, with its frame on that way
        (callers.py); none outside a function or where jaxfix does not see every call."""
        scope = self.module.scope_of(node)
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        return caller_ways(self.engine.evaluator, self.module, scope)

    def iterations(
        self, node: ast.AST
    ) -> list[tuple[tuple[ast.For, str, Value], ...]] | Unknown | None:
        """Each iteration of the `for` loops around `node` (their variables' values), None
        when no loop is around it (`Evaluator.iterations`); ask inside `unrolled(one)`."""
        return self.engine.evaluator.iterations(self.module, node)

    def unrolled(
        self, bound: tuple[tuple[ast.For, str, Value], ...]
    ) -> AbstractContextManager[None]:
        """Questions asked inside see the loop variables bound as in one iteration."""
        return self.engine.evaluator.unrolled(bound)

    def not_taken(self, node: ast.AST) -> bool:
        """Whether `node` is on a side of an `if` statement or a conditional expression (in
        its own scope) that never runs: the test's value, as the engine knows it from every
        way the scope runs (a parameter from every caller), is a `bool` that picks the other
        side (`use_abstract_mesh(m) if abstract else jax.set_mesh(m)` with `abstract=True`)."""
        child: ast.AST = node
        parent = self.module.parents.get(node)
        while parent is not None and not isinstance(
            parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
                test = self.value_of(parent.test)
                if isinstance(test, bool):
                    body = parent.body if isinstance(parent, ast.If) else [parent.body]
                    if test is not any(child is b for b in body):
                        return True
            child, parent = parent, self.module.parents.get(parent)
        return False

    def on_host(self, devices: int) -> AbstractContextManager[None]:
        """Questions asked inside see the program on one host of `devices` devices
        (`Evaluator.on_host`: `jax.device_count()` is that count)."""
        return self.engine.evaluator.on_host(devices)

    def loop_module(self, loop: ast.For) -> Path | None:
        """The module of a loop `iterations` gave (it may be a caller's)."""
        return self.engine.evaluator.loop_module(loop)

    def ways_at(self, node: ast.AST) -> list[Way]:
        """Each way `node` may run: the mesh contexts in force, outermost first."""
        return self.engine.ways_at(self.module, node)

    def current_mesh(self, node: ast.AST) -> Value:
        """The mesh JAX's context holds where `node` runs: a `Mesh`, None, or Unknown."""
        return self.engine.current_mesh(self.module, node)

    # -- which mesh an array, a sharding, a context is on (placement.py) -----------------------

    def array_mesh(self, expr: ast.expr) -> Placed | None:
        """The mesh the array `expr` is on, and its name here, when jaxfix sees it placed."""
        return self.engine.placement.array(self.module, expr)

    def sharding_mesh(self, expr: ast.expr, context: Placed) -> Placed | None:
        """The mesh of the sharding `expr` (a bare `P(...)`: `context`), and its name here."""
        return self.engine.placement.sharding(self.module, expr, context)

    def context_mesh(self, site: Site, at: ast.AST) -> Placed | None:
        """The mesh the context `site` makes current, named as the code at `at` may spell it."""
        return self.engine.placement.context(self.module, site, at)

    def mesh_named(self, expr: ast.expr, mesh: Mesh, at: ast.AST) -> str | None:
        """How the code at `at` names `mesh` by the reference `expr` (`m`, `cfg.mesh`: what
        a `NamedSharding(m, ...)` is given), when `expr`, read at `at`, is this very mesh:
        what a fix writes there to reach it."""
        return self.engine.placement.name_at(self.module, expr, mesh, at)

    def calls_running(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[Module, ast.AST]] | Unknown:
        """Where `function`'s body runs in the project, each call in its module."""
        return self.engine.contexts.calls_running(self.module, function)

    def calls_passing(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[Module, ast.Call]] | Unknown:
        """The calls of `function` in the project whose arguments its parameters take (where
        a parameter's value comes from); Unknown when it is also used otherwise, or called
        through a decorator (which may pass other arguments)."""
        found = self.engine.evaluator.calls_of(self.module, function)
        if isinstance(found, Unknown):
            return found
        if any(callee is None for _, _, callee in found):
            return Unknown(f"`{function.name}` is called through a decorator")
        return [(module, call) for module, call, _ in found]

    def of(self, module: Module) -> Analysis:
        """The same questions about another module of the run (where a caller is)."""
        return self if module is self.module else Analysis(self.engine, module)

    # -- finding the calls a rule looks at ----------------------------------------------------

    def api_of(self, expr: ast.AST | None) -> Api | None:
        """The JAX API `expr` denotes (`jax.set_mesh`, an alias of it, `sharding.Mesh`);
        None for what surely is none without evaluating it (`Evaluator.api_value`)."""
        if not isinstance(expr, ast.expr):
            return None
        value = self.engine.evaluator.api_value(self.module, expr)
        return api_of(value.name) if isinstance(value, External) else None

    def qualified_name(self, expr: ast.AST | None) -> str | None:
        """The qualified name of the JAX API `expr` denotes, for a rule that tells a
        deprecated spelling from its replacement (`jax.experimental.pjit.pjit`, `jax.jit`)."""
        if not isinstance(expr, ast.expr) or self.api_of(expr) is None:
            return None
        value = self.engine.evaluator.api_value(self.module, expr)
        return value.name if isinstance(value, External) else None

    def may_denote(self, expr: ast.AST, *names: str) -> bool:
        """A cheap test before `qualified_name` for a rule after one API (`pjit`): whether
        `expr` may denote something whose last dotted name is one of `names`: the name itself,
        an attribute `.name`, or a name or attribute this module binds from code that mentions
        one of those (an import, an assignment, a parameter's default, a `for` or `with`
        target). Anything else is never that API's spelling, whatever its value: a name that
        only a parameter without a default binds where it is read neither (what the
        function's callers pass is not looked at). A name a function binds is read only
        in it (and code nested in it). The names bound whatever the scopes
        (`names_bound_from`) hold all of these: most reads are settled by them alone."""
        if isinstance(expr, ast.Attribute):
            spelled = expr.attr
        elif isinstance(expr, ast.Name):
            spelled = expr.id
        else:
            return False
        if spelled not in self.names_bound_from(*names):
            return False
        if spelled not in names:
            bound = self._bound(frozenset(names))
            if not (
                spelled in bound.anywhere
                if isinstance(expr, ast.Attribute)
                else bound.may_read(expr)
            ):
                return False
        return isinstance(expr, ast.Attribute) or not self._bare_parameter(expr)

    def _bare_parameter(self, name: ast.Name) -> bool:
        """Whether every binding reaching the read `name` is a parameter without a default
        (not a comprehension's variable of the same name)."""
        if not self._parameter_around(name):
            return False  # the flow's answer is not needed: no parameter is that name
        evaluator = self.engine.evaluator
        if evaluator.comprehension_variable(self.module, name) is not NotAVariable.NAME:
            return False
        bindings = evaluator.reaching(self.module, name)
        return bool(bindings) and all(
            b.kind == "param" and not _has_default(self.module, b.node)
            for b in bindings or ()
        )

    def _parameter_around(self, name: ast.Name) -> bool:
        """Whether a function or lambda `name` is read in (or one around it) has a parameter
        spelled so."""
        module = self.module
        scope = module.scope_of(name)
        while scope is not module.tree:
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                arguments = scope.args
                if any(
                    a is not None and a.arg == name.id
                    for a in (
                        *arguments.posonlyargs,
                        *arguments.args,
                        *arguments.kwonlyargs,
                        arguments.vararg,
                        arguments.kwarg,
                    )
                ):
                    return True
            scope = module.scope_of(scope)
        return False

    def may_call(self, node: ast.AST, *apis: Api) -> bool:
        """A cheap test before `called_api` for a rule after some APIs: whether `node` is a
        call whose callee may denote one of `apis` (`may_be`)."""
        return isinstance(node, ast.Call) and self.may_be(node.func, *apis)

    def may_be(self, expr: ast.AST, *apis: Api) -> bool:
        """A cheap test before `api_of`: whether `expr` may denote one of `apis`
        (`may_be_named` with their last names)."""
        return self.may_be_named(expr, *api_last_names(apis))

    def may_be_named(self, expr: ast.AST, *names: str) -> bool:
        """`may_denote` for any callee: an expression other than a name or an attribute
        (`f()`, `fs[0]`) may be anything. A parameter may be one of `names` only where its
        default may: what its callers pass is not looked at."""
        if not isinstance(expr, (ast.Name, ast.Attribute)):
            return True
        return self.may_denote(expr, *names)

    def names_bound_from(self, *names: str) -> frozenset[str]:
        """`names` and the names and attributes this module binds from code mentioning one of
        them, whatever the scopes: a read spelled otherwise never denotes one of them
        (`may_denote` also tells the scopes apart)."""
        key = frozenset(names)
        found = self._spelled_from.get(key)
        if found is None:
            found = self._spelled_from[key] = _names_spelled_from(self._bindings, key)
        return found

    def _bound(self, names: frozenset[str]) -> _Bound:
        found = self._bound_from.get(names)
        if found is None:
            found = self._bound_from[names] = _names_bound_from(
                self.module, self._bindings, names
            )
        return found

    @cached_property
    def _bindings(self) -> tuple[_Binding, ...]:
        return _bindings(self.module)

    def called_api(self, node: ast.AST | None) -> Api | None:
        """For a Call, the API of its callee; None for anything else."""
        return self.api_of(node.func) if isinstance(node, ast.Call) else None

    def bind(self, call: ast.Call) -> dict[str, ast.expr] | None:
        """The arguments of a JAX API call by parameter name; None when the callee is not in
        the signature table or the arguments cannot be bound (`*args`, unknown keywords)."""
        api = self.called_api(call)
        signature = SIGNATURES.get(api) if api is not None else None
        return None if signature is None else bind_arguments(call, signature)

    def rereads_same(self, expr: ast.expr, between: Sequence[ast.AST] = ()) -> bool:
        """Whether reading `expr` once more, after the code `between` ran, gives the object
        its read gave and runs nothing (rereads.py): a name, or an attribute chain on one
        whose attributes are kept on their objects, which `between` may not store."""
        return rereads_same(
            self.engine.evaluator, self.module, expr, between, self._runs_only_jax
        )

    def attributes_kept(self, expr: ast.expr) -> bool:
        """Whether every attribute of the chain `expr` (entries allowed) is kept on its
        object, so that reading it again runs no getter (rereads.py)."""
        return attributes_kept(self.engine.evaluator, self.module, expr)

    def _runs_only_jax(self, call: ast.Call) -> bool:
        """A call of a JAX API that calls nothing it is given, given no function or object
        of the tree (a pytree's flattening is the project's code)."""
        if self.called_api(call) not in _RUNS_NO_CODE:
            return False
        given = [*call.args, *(k.value for k in call.keywords)]
        return not any(
            isinstance(a, (ast.Lambda, ast.Starred))
            or isinstance(
                self.value_of(a), (Function, BoundMethod, Class, Instance, Jitted)
            )
            for a in given
        )

    def is_entered(self, expr: ast.expr) -> bool:
        """Whether `expr` is a `with` item or the argument of `x.enter_context(...)`."""
        parent = self.parents.get(expr)
        if isinstance(parent, ast.withitem):
            return parent.context_expr is expr
        return (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Attribute)
            and parent.func.attr in ENTER_METHODS
            and parent.args == [expr]
            and not parent.keywords
        )

    def enclosing(self, node: ast.AST) -> list[Enclosing]:
        """On each way `node` runs under a mesh context, the site that sets the context mesh,
        placed as a message names it (its `with` item, setUp, the call it is entered around;
        enclosing.py)."""
        return enclosing(self.engine.contexts, self.engine.project, self.module, node)

    def mesh_sizes(self, expr: ast.expr) -> tuple[MeshSizes, ...] | Unknown:
        """Where each axis size of the abstract mesh `expr` is written (one per assignment
        that may reach it): what a fix that resizes the mesh rewrites (mesh_sizes.py)."""
        return mesh_sizes(self.engine.evaluator, self.module, expr)

    # -- where a value's trail ended (trail.py: what `-v` says of a call a rule left) --------

    def trail(self, expr: ast.expr, role: str, *, traced: bool = False) -> str | None:
        """Why the mesh `expr` stands for is not known: how it reaches `expr` and the step
        where jaxfix lost it; None when it is known. `traced`: `expr` is a traced argument
        (a pytree: an object whose children are not known ends its trail)."""
        return trail.value_trail(self, expr, role, traced=traced)

    def pytree_children(self, value: Value) -> tuple[Value, ...] | None:
        """The children of an object of a class registered with JAX as a pytree node
        (pytrees.py); None for anything else."""
        return pytrees.children(self.engine.evaluator, value)

    def lost(self, value: Value, role: str, written: str) -> str | None:
        """Why the mesh in `value`, reached here as `written`, or its sizes, are not known."""
        return trail.lost(self, value, role, written)

    def context_trail(self, node: ast.AST, role: str) -> str | None:
        """Why the mesh context in force at `node` is not known on some way it runs."""
        return trail.context_trail(self, self.ways_at(node), role)

    def function_of(
        self, node: ast.AST
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function (not a method) whose body `node` is in, directly; None elsewhere."""
        scope = self.module.scope_of(node)
        if isinstance(
            scope, (ast.FunctionDef, ast.AsyncFunctionDef)
        ) and not isinstance(self.parents.get(scope), ast.ClassDef):
            return scope
        return None

    def is_jitted(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether a decorator of `function` is a jit (`@jax.jit`, `@partial(jax.jit, ...)`)."""
        return any(self.jit_application(d) is not None for d in function.decorator_list)

    def place(self, node: ast.AST) -> tuple[Path, int] | None:
        """The file and line of `node`, in this module or another the run holds."""
        if node is self.module.tree or node in self.parents:
            return self.path, self.line(node)
        other = self.engine.project.holding(node)
        return None if other is None else (other.path, other.line(node))

    # -- how code is written ---------------------------------------------------------------

    def reference(self, expr: ast.AST | None) -> str | None:
        """How a message names a mesh reached through `expr`: `mesh` for a name, `self.mesh`
        for an attribute of a name (not `.abstract_mesh`); None for anything else."""
        return reference(expr)

    def written_as(self, expr: ast.expr) -> ast.expr:
        """`expr`, or for a name the expression of the one plain assignment reaching it
        (followed on through names; assignments.py)."""
        return assignments.written_as(self.engine.evaluator, self.module, expr)

    def written_elsewhere(
        self, name: ast.Name | ast.Attribute
    ) -> tuple[Module, ast.expr] | None:
        """The module and expression a read of `name` stands for, here or, through one
        `from m import NAME` or as `m.NAME`, at the top of the project's module `m`."""
        return assignments.written_elsewhere(self.engine.evaluator, self.module, name)

    def definition(
        self, name: ast.Name
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The `def` a read of `name` denotes, when that is the one binding reaching it."""
        return assignments.definition(self.engine.evaluator, self.module, name)

    def bound_once(self, name: ast.Name) -> bool:
        """Whether one binding reaches the read `name` (an assignment, unpacking, import,
        parameter, `def`: not two branches', nor a loop's rebinding)."""
        return assignments.bound_once(self.engine.evaluator, self.module, name)

    def is_parameter(
        self, name: ast.Name, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> bool:
        """Whether every binding reaching the read `name` is a parameter of `function`."""
        bindings = self.engine.evaluator.reaching(self.module, name)
        a = function.args
        params = {id(p) for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
        return bool(bindings) and all(
            b.kind == "param" and id(b.node) in params for b in bindings or ()
        )

    def reads_reached(self, statement: ast.stmt, name: str) -> list[ast.Name]:
        """The reads of `name` the binding `statement` makes may reach."""
        return assignments.reads_reached(
            self.engine.evaluator, self.module, statement, name
        )

    def jit_application(self, expr: ast.expr) -> jitting.JitApplication | None:
        """`jax.jit(f, **keywords)` or a decorator that jits, as written (jitting.py)."""
        return jitting.jit_application(expr, self)

    def brings_no_devices(self, expr: ast.expr) -> bool:
        """Whether `expr`, passed to a jitted function, surely leaves the devices undecided:
        host data or an uncommitted array (device_free.py)."""
        return device_free.brings_no_devices(expr, self)

    def eager_op(self, call: ast.Call) -> str | None:
        """The JAX op a call runs when it computes (so lowers) eagerly, with arguments that
        bring no devices (eager.py)."""
        return eager.eager_op(call, self)

    def devices_needed(
        self, statement: ast.With
    ) -> tuple[ast.Call | ast.Yield | ast.YieldFrom, bool] | None:
        """The first call in the `with` body (as written, not in a function defined there) that
        may need devices: `(call, True)` for an eager op (eager.py), which needs them,
        `(call, False)` for a call of a function of the tree, which jaxfix does not follow, of
        a callable it does not know (a parameter, an unknown object's method), of a jitted
        function (it computes: `in_shardings=P(...)` needs a concrete mesh), or of
        `jax.device_put` onto a sharding not on a known concrete mesh; `(yield, False)` for a
        `yield` (a context manager's: the code its caller runs in its own `with` runs there);
        None when none of these is written there. A lambda `jax.tree.map` is given runs
        there too."""
        scope = self.module.scope_of(statement)
        calls = sorted(
            (
                node
                for part in statement.body
                for node in ast.walk(part)
                if isinstance(node, (ast.Call, ast.Yield, ast.YieldFrom))
                and self._runs_in(node, scope)
            ),
            key=lambda n: (n.lineno, n.col_offset),
        )
        for call in calls:
            if not isinstance(call, ast.Call):
                return call, False
            if self.eager_op(call) is not None:
                return call, True
            if self._places_off_devices(call):
                return call, False
            callee = self.value_of(call.func)
            if isinstance(callee, (Function, BoundMethod, Class, Jitted)) or (
                isinstance(callee, Unknown) and not isinstance(callee, Foreign)
            ):
                return call, False
        return None

    def _places_off_devices(self, call: ast.Call) -> bool:
        """`jax.device_put(x, s)` where `s` is not a sharding on a known concrete mesh (an
        abstract or unknown mesh's, a bare spec): placing needs the devices an abstract mesh
        context lacks."""
        callee = self.value_of(call.func)
        if not isinstance(callee, External) or callee.name != "jax.device_put":
            return False
        placement = call.args[1] if len(call.args) > 1 else None
        if placement is None:
            placement = next(
                (k.value for k in call.keywords if k.arg == "device"), None
            )
        if placement is None:
            return False
        value = self.value_of(placement)
        return not (
            isinstance(value, Sharding)
            and isinstance(value.mesh, Mesh)
            and not value.mesh.is_abstract
        )

    def _runs_in(self, node: ast.AST, scope: ast.AST) -> bool:
        """Whether `node` runs where `scope`'s own code does: in it, or in a lambda a call
        there maps over a tree at once (`jax.tree.map(lambda x: ..., tree)`)."""
        inner = self.module.scope_of(node)
        while inner is not scope:
            call = self.module.parents.get(inner)
            if not (
                isinstance(inner, ast.Lambda)
                and isinstance(call, ast.Call)
                and call.args
                and call.args[0] is inner
            ):
                return False
            callee = self.value_of(call.func)
            if not isinstance(callee, External) or callee.name not in MAPS_AT_ONCE:
                return False
            inner = self.module.scope_of(call)
        return True

    def module_spelling(self, name: str) -> tuple[str, spelling.Imports]:
        """How this module spells module `name` (`jx` for `import jax as jx`), else `name`
        and the import a fix must add (spelling.py)."""
        return spelling.module_spelling(self.module.tree, name)

    def api_spelling(self, api: Api, from_module: str) -> tuple[str, spelling.Imports]:
        """How this module spells the JAX `api` (`NS` for `from jax.sharding import
        NamedSharding as NS`), else its name and `from from_module import` it (spelling.py)."""
        return spelling.api_spelling(self.module.tree, api, from_module)

    # -- where, as written ----------------------------------------------------------------------

    def line(self, node: ast.AST) -> int:
        return self.span(node).start[0]

    def span(self, node: ast.AST) -> Span:
        """Where `node` is: 1-based lines, 0-based columns in characters."""
        return span(self._lines, node)

    def expression_at(self, span: tuple[int, int, int, int]) -> ast.expr | None:
        """The module's expression at `span` (line, column, end line, end column, as `span`
        gives them), else None."""
        for node in ast.walk(self.module.tree):
            if (
                isinstance(node, ast.expr)
                and getattr(node, "lineno", 0) == span[0]
                and (*self.span(node).start, *self.span(node).end) == span
            ):
                return node
        return None

    def text(self, node: ast.AST) -> str:
        """The node's source as written (without parentheses around it); for a node of
        another module of the run (a mesh built there), that module's (as `ast` spells it
        when the engine no longer holds that module)."""
        if node is not self.module.tree and node not in self.parents:
            other = self.engine.project.holding(node)
            return (
                ast.unparse(node)
                if other is None
                else Analysis(self.engine, other).text(node)
            )
        where = self.span(node)
        (line, column), (end_line, end_column) = where.start, where.end
        if line == end_line:
            return self._lines[line - 1][column:end_column]
        first = self._lines[line - 1][column:]
        middle = self._lines[line : end_line - 1]
        return "".join([first, *middle, self._lines[end_line - 1][:end_column]])

    @cached_property
    def _lines(self) -> list[str]:
        # Lines as `ast` counts them: \n, \r\n and \r end one (str.splitlines also splits at
        # a form feed or \x1c-\x1e, \x85, \u2028, \u2029).
        return split_lines(source_text(self.source)) or [""]

    # -- code that tests an error, evidence from a log ----------------------------------------

    def expected(
        self,
        node: ast.AST,
        raises: tuple[str, ...],
        error: str | tuple[str, ...] = "ValueError",
    ) -> bool:
        """Whether `node` runs where the code tests one of these errors, the builtin exception
        `error` (`assertRaises...`; one per message where `error` is a tuple, as
        `Rule.error`)."""
        if isinstance(error, str):
            return self._expected_errors.expects(node, raises, error)
        by_exception: dict[str, tuple[str, ...]] = {}
        for template, name in zip(raises, exceptions(error, raises)):
            by_exception[name] = (*by_exception.get(name, ()), template)
        return any(
            self._expected_errors.expects(node, templates, name)
            for name, templates in by_exception.items()
        )

    @cached_property
    def _expected_errors(self) -> ExpectedErrors:
        return ExpectedErrors(self.engine, self.module)

    def confirmed(self, node: ast.AST, code: str) -> Confirmed | None:
        """Confirmed mode (`--from-log`, `--evidence`): the log's proof that `code`'s error was
        raised at `node` (the rule asks it of the call it checks), whose meshes fill in what
        the code leaves unknown (see evidence.py)."""
        evidence = self.evidence.at(node, code)
        return None if evidence is None else Confirmed(evidence)

    def confirmed_through(self, node: ast.AST, code: str) -> Confirmed | None:
        """As `confirmed`, also where the error was raised in code a call on `node`'s lines
        ran (the log's traceback went through those lines): for a context around calls."""
        evidence = self.evidence.through(node, code)
        return None if evidence is None else Confirmed(evidence)


def _has_default(module: Module, arg: ast.AST) -> bool:
    """Whether the parameter `arg` has a default value (`*args` and `**kwargs` have none)."""
    arguments = module.parents.get(arg)
    if not isinstance(arguments, ast.arguments):
        return False
    positional = [*arguments.posonlyargs, *arguments.args]
    with_defaults = positional[len(positional) - len(arguments.defaults) :]
    return any(a is arg for a in with_defaults) or any(
        a is arg and default is not None
        for a, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
    )


@dataclass(frozen=True)
class _Binding:
    """One binding of a module, as `_names_bound_from` reads it: the names and attributes its
    source reads (and the `as` names of its aliases), what it imports (each dotted part of an
    imported module's name; the name `from m import x` takes from m), and the names it binds."""

    reads: frozenset[str]
    imports: frozenset[str]
    targets: frozenset[str]  # read anywhere: attributes, names of the module or a class
    # The names it binds in a function's (or lambda's) own scope, `local`: read only there
    # or in code nested in it; and the scope its source is read in (the module's tree, a
    # class, a function).
    local_targets: frozenset[str] = frozenset()
    local: ast.AST | None = None
    reads_in: ast.AST | None = None
    every: frozenset[str] = frozenset()  # targets and local_targets


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# The node types `_bindings` reads (`ast.parse` makes no subclass).
_BINDING_KINDS = frozenset(
    {
        ast.Import,
        ast.ImportFrom,
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.NamedExpr,
        ast.For,
        ast.AsyncFor,
        ast.comprehension,
        ast.withitem,
        ast.arguments,
    }
)


def _bindings(module: Module) -> tuple[_Binding, ...]:
    """Every binding of `module` that may carry a value from one name to another: imports,
    assignments, `for` and `with` targets, parameters' defaults (one walk of the module).
    A name a function binds (not declared `global` or `nonlocal` anywhere in the module) is
    its own: `operand = pjit.with_sharding_constraint(...)` in one function says nothing of
    `operand` in the others."""

    def read(node: ast.AST | None) -> tuple[frozenset[str], frozenset[str]]:
        """The names and attributes read under `node`, and the import names (`fields.walk`
        inlined: the hot loop, every node of every binding's source)."""
        reads: set[str] = set()
        imports: set[str] = set()
        stack = [] if node is None else [node]
        push, pop, node_type = stack.append, stack.pop, ast.AST
        while stack:
            n = pop()
            kind = type(n)  # `ast.parse` makes no subclass
            if kind is ast.Name:
                reads.add(n.id)  # type: ignore[attr-defined]  # the type was tested above
                continue  # no child but its context
            if kind is ast.Attribute:
                reads.add(n.attr)  # type: ignore[attr-defined]  # the type was tested above
            elif kind is ast.alias:
                imports.update(n.name.split("."))  # type: ignore[attr-defined]  # the type was tested above
                if n.asname is not None:  # type: ignore[attr-defined]  # the type was tested above
                    reads.add(n.asname)  # type: ignore[attr-defined]  # the type was tested above
                continue  # no child
            for name in own_fields(kind):
                value = getattr(n, name, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, node_type):
                            push(item)
                elif isinstance(value, node_type):
                    push(value)
        return frozenset(reads), frozenset(imports)

    def names(targets: Sequence[ast.AST]) -> tuple[set[str], set[str]]:
        """The names `targets` bind anywhere (attributes), and the names they bind."""
        anywhere: set[str] = set()
        local: set[str] = set()
        for target in targets:
            for item in _target_items(target):
                if isinstance(item, ast.Name):
                    local.add(item.id)
                else:
                    anywhere.add(item.attr)
        return anywhere, local

    Scoped = tuple[frozenset[str], frozenset[str], set[str], set[str], ast.AST, ast.AST]

    def binding(
        source: ast.AST | None, targets: Sequence[ast.AST], scope: ast.AST
    ) -> Scoped:
        reads, imports = read(source)
        anywhere, local = names(targets)
        return scoped(reads, imports, anywhere, local, scope, scope)

    def scoped(
        reads: frozenset[str],
        imports: frozenset[str],
        anywhere: set[str],
        local: set[str],
        scope: ast.AST,
        reads_in: ast.AST,
    ) -> Scoped:
        """A binding, made (`made`) once every node is seen: whether its names are declared
        shared is known then."""
        return reads, imports, anywhere, local, scope, reads_in

    def made(
        reads: frozenset[str],
        imports: frozenset[str],
        anywhere: set[str],
        local: set[str],
        scope: ast.AST,
        reads_in: ast.AST,
    ) -> _Binding:
        """A binding in `scope` of `local` names: a function's own unless declared shared."""
        if isinstance(scope, _FUNCTIONS):
            shared = local & declared
        else:  # the module's or a class's: read anywhere (`A.x`, `module.x`)
            shared = local
        return _Binding(
            reads,
            imports,
            frozenset(anywhere | shared),
            frozenset(local - shared),
            scope if local - shared else None,
            reads_in,
            frozenset(anywhere | local),
        )

    # names a function declares `global` or `nonlocal`: bound anywhere it binds them
    declared = set(module.declared_global)
    found: list[Scoped] = []
    for node in module.parents:  # every node but the module's own (and contexts)
        kind = type(node)
        if kind not in _BINDING_KINDS:
            if kind is ast.Nonlocal:
                declared.update(node.names)  # type: ignore[attr-defined]  # the type was tested above
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                spelled = alias.asname or alias.name.split(".")[0]
                name = (
                    f"{node.module}.{alias.name}"
                    if isinstance(node, ast.ImportFrom) and node.module
                    else alias.name
                )
                # `from m.pjit import f` binds m.pjit's `f`, whose last name is f, not
                # pjit; `import m.pjit as p` binds the module m.pjit
                parts = (
                    {alias.name}
                    if isinstance(node, ast.ImportFrom)
                    else set(name.split("."))
                )
                scope = module.scope_of(node)
                found.append(
                    scoped(
                        frozenset(), frozenset(parts), set(), {spelled}, scope, scope
                    )
                )
        elif isinstance(node, ast.Assign):
            found.append(binding(node.value, node.targets, module.scope_of(node)))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            # `:=` in a comprehension binds in the function around it, as `scope_of` says
            found.append(binding(node.value, [node.target], module.scope_of(node)))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            found.append(binding(node.iter, [node.target], module.scope_of(node)))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            found.append(
                binding(node.context_expr, [node.optional_vars], module.scope_of(node))
            )
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            defaults = [
                *zip(positional[len(positional) - len(node.defaults) :], node.defaults),
                *zip(node.kwonlyargs, node.kw_defaults),
            ]
            function = module.parents.get(node)  # the parameters are its own
            for argument, default in defaults:
                if default is None:  # a keyword-only parameter without one
                    continue
                reads, imports = read(default)
                found.append(
                    scoped(
                        reads,
                        imports,
                        set(),
                        {argument.arg},
                        module.tree if function is None else function,
                        module.scope_of(default),  # read around the definition
                    )
                )
    return tuple(
        b
        for b in (made(*args) for args in found)
        if (b.targets or b.local_targets) and (b.reads or b.imports)
    )


def _target_items(target: ast.AST) -> list[ast.Name | ast.Attribute]:
    """The names and attributes a target binds (`x`, `self.x`, the items of `a, *b`)."""
    if isinstance(target, (ast.Name, ast.Attribute)):
        return [target]
    if isinstance(target, ast.Starred):
        return _target_items(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for item in target.elts for n in _target_items(item)]
    return []


@dataclass(frozen=True)
class _Bound:
    """What `_names_bound_from` found: names and attributes that may be read anywhere
    (`anywhere`), and names bound only in functions' own scopes, each with those functions."""

    anywhere: frozenset[str]
    local: dict[str, tuple[ast.AST, ...]]
    around: _FunctionsAround

    def may_read(self, name: ast.Name) -> bool:
        """Whether the read `name` may be one of the names: bound anywhere, or by a function
        it is read in (or nested in)."""
        if name.id in self.anywhere:
            return True
        functions = self.local.get(name.id)
        return functions is not None and not self.around(name).isdisjoint(functions)


class _FunctionsAround:
    """The functions (and lambdas) a node of `module` is in, itself included: a node is
    within a function exactly when the function is among them (`Module.is_within`). Found
    once per function."""

    def __init__(self, module: Module) -> None:
        self.parents = module.parents
        self.found: dict[ast.AST | None, frozenset[ast.AST]] = {None: frozenset()}

    def nearest(self, node: ast.AST) -> ast.AST | None:
        """The innermost function `node` is in (itself, if one); None: none."""
        parents = self.parents
        current: ast.AST | None = node
        while current is not None and not isinstance(current, _FUNCTIONS):
            current = parents.get(current)
        return current

    def __call__(self, node: ast.AST | None) -> frozenset[ast.AST]:
        parents = self.parents
        current = None if node is None else self.nearest(node)
        found = self.found.get(current)
        if found is None:  # a function, in the module's tree: it has a parent
            assert current is not None
            found = self.found[current] = self(parents[current]) | {current}
        return found


def _names_spelled_from(
    bindings: tuple[_Binding, ...], seeds: frozenset[str]
) -> frozenset[str]:
    """`seeds` and the names and attributes a module (its `bindings`) binds from code
    mentioning one of them (an import of a dotted name with one of `seeds` among its parts, or
    a read of any name found so far, in any scope), until nothing new is bound (a binding may
    mention one bound after it): the least such set, whatever order the bindings are looked
    at in."""
    names = set(seeds)
    while True:
        before = len(names)
        for binding in bindings:
            targets = binding.every
            if not targets <= names and (
                not binding.imports.isdisjoint(seeds)
                or not binding.reads.isdisjoint(names)
            ):
                names.update(targets)
        if len(names) == before:
            return frozenset(names)


def _names_bound_from(
    module: Module, bindings: tuple[_Binding, ...], seeds: frozenset[str]
) -> _Bound:
    """`seeds` and the names and attributes a module (its `bindings`) binds from code
    mentioning one of them (an import of a dotted name with one of `seeds` among its parts, or
    a read of any name found so far that the code may see: one bound anywhere, or by a
    function the code is in), until nothing new is bound (a binding may mention one bound
    after it): the least such set, whatever order the bindings are looked at in."""
    anywhere = set(seeds)
    local: dict[str, dict[ast.AST, None]] = {}
    around = _FunctionsAround(module)

    def sees(binding: _Binding) -> bool:
        if not binding.imports.isdisjoint(seeds) or not binding.reads.isdisjoint(
            anywhere
        ):
            return True
        if binding.reads_in is None or binding.reads.isdisjoint(local):
            return False
        functions = around(binding.reads_in)
        return any(
            not functions.isdisjoint(local[name])
            for name in binding.reads
            if name in local
        )

    # each binding looked at once, then again only when a name it reads is newly bound where
    # it reads it: the bindings reading each name, by the innermost function they read in
    readers: dict[str, dict[ast.AST | None, list[_Binding]]] = {}
    for binding in bindings:
        where = None if binding.reads_in is None else around.nearest(binding.reads_in)
        for name in binding.reads:
            readers.setdefault(name, {}).setdefault(where, []).append(binding)
    fired: set[int] = set()
    waiting = list(bindings)
    while waiting:
        binding = waiting.pop()
        if id(binding) in fired or not sees(binding):
            continue
        fired.add(id(binding))
        for name in binding.targets:
            if name not in anywhere:
                anywhere.add(name)
                for group in readers.get(name, {}).values():
                    waiting.extend(group)
        function = binding.local
        if function is not None:
            for name in binding.local_targets:
                functions = local.setdefault(name, {})
                if function not in functions:
                    functions[function] = None
                    for where, group in readers.get(name, {}).items():
                        if function in around(where):
                            waiting.extend(group)
    return _Bound(
        frozenset(anywhere),
        {name: tuple(functions) for name, functions in local.items()},
        around,
    )
