"""The contexts in force at a node: which mesh contexts may be entered where it runs.

`ContextModel.contexts_at(node)` lists them outermost first, as `ContextSite`s:

- `ELSEWHERE`: a global `jax.set_mesh(m)` / `use_mesh(m)` (not a `with` item, not entered)
  anywhere else in the module: it may have run before (mesh unknown).
- `USE`: the node's function (or one enclosing it) is used where a mesh context may be in
  force and jaxfix does not follow that use to one mesh: passed on, bound to another name or
  attribute, a method reached by attribute name, a decorated function where it is defined, a
  caller that is itself used under a mesh (mesh unknown).
- For each call of the node's function that runs its body (one level: `f(...)`,
  `jax.jit(f)(...)`, `g(...)` after `g = jax.jit(f)`; plain or jitted functions, not
  generators, async functions, methods, or functions with another decorator): the sites
  around that call in the caller (`call` set), its caller's setUp sites included.
- `DECORATOR`: what a decorator of the node's function whose body enters a mesh context puts
  around it: the sites around the one call of the function in the wrapper it returns
  (`def deco(fn): def wrapper(*a): with jax.set_mesh(m): return fn(*a)`, `functools.wraps`
  or not, or a factory returning such a decorator, as JAX's `jtu.with_explicit_mesh`, its
  meshes evaluated with the factory's parameters bound to the decorator's arguments); one
  unknown site when the wrapper calls it more than once or the shape is another.
- `SETUP`: what a TestCase's `setUpClass` then `setUp` enter (`enterContext`, ...), for its
  `test*` methods.
- In the node's own function (or module body), outermost first: `WITH` items (earlier items of
  the same `with` included), `ENTER_CONTEXT` (`x.enter_context(cm)`, `enterContext`,
  `enterClassContext` earlier in the block, until `x.close()` / `x.pop_all()`), and
  `GLOBAL_SET` (a bare `jax.set_mesh(m)` earlier in the block; a compound statement earlier in
  the block that contains one makes the mesh unknown).

Each site says which API enters it (`Api.USE_ABSTRACT_MESH`, `SET_MESH`, `USE_MESH`, `Api.MESH`
for the legacy `with mesh:` which sets no abstract mesh, or None for a context manager jaxfix
cannot see into) and its mesh, a `MeshValue` or `Unknown(why)`.

Whether a context manager enters a mesh is decided by what it is: a mesh API; a
`@contextmanager` function, by the sites in force at its one `yield` (its parameters bound to
the call's arguments); another function whose body enters a mesh context (directly or through
another function of its module that does: mesh unknown); nothing, for the standard library
(inherited `unittest.TestCase` methods included), the expected-error managers of
`jaxfix.analysis.expected_errors` (`self.assertRaises...`), builtins, pytest, NumPy and JAX's
public non-mesh APIs; unknown for anything else (imported from outside the tree, a parameter,
a method of an object jaxfix cannot see).

The decorators and functions looked into are those of this module bound once to a `def`, and,
with a project index (jaxfix/analysis/project.py), those defined at module level in another
module of the tree and imported (`from .testing import with_mesh`, `tu.with_mesh`): that
module's model answers about them (the sites it finds are given at this module's decorator or
`with` item), and its file becomes a dependency of this module's result.

`context_mesh_sites(sites)` picks the site that sets JAX's context mesh on each way the node
runs: the innermost mesh context around it in its own function (a bare `jax.set_mesh(m)`
earlier in the block counts: it sets the mesh globally); else its decorator's; else the last
one its TestCase's setUp enters; else, for each followed call of its function, the innermost
one around that call. The legacy `with mesh:` sets no abstract mesh and never counts.

Not followed (the mesh there is unknown, or the context is not seen): methods as callers,
callbacks (`jax.eval_shape(f, x)`), generator or async functions (`@contextmanager` helpers
included), functions with a decorator other than `jax.jit`, `partial(jax.jit, ...)` or
`functools.wraps(...)` (it may run the function elsewhere, on another thread or at
definition), callers in other modules, calls of calls (one level only), `enter_context`
inside a nested block, and a global `jax.set_mesh(m)` inside a function called in between.
A global setter that is assigned (`ctx = jax.set_mesh(m)`) or inside an earlier compound
statement (`if`, `with`, `def`) makes the mesh after it unknown.
"""

from __future__ import annotations

import enum
import unittest
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol, TypeVar

import libcst as cst
from libcst.metadata import QualifiedNameSource

from jaxfix.analysis.bindings import Bindings
from jaxfix.analysis.bodies import is_generator, own_nodes
from jaxfix.analysis.cst_names import ApiResolver, bind
from jaxfix.analysis.expected_errors import ExpectedErrors
from jaxfix.analysis.jitting import jit_application
from jaxfix.analysis.names import (
    ENTER_METHODS,
    MESH_CONTEXT_APIS,
    SIGNATURES,
    Api,
    imported_name_enters_no_mesh,
)
from jaxfix.analysis.project import Analysed, External, Recorded
from jaxfix.analysis.syntax import short
from jaxfix.analysis.values import MeshKind, MeshValue, Unknown, Value

NodeT = TypeVar("NodeT", bound=cst.CSTNode)


class ContextValues(Protocol):
    """What `ContextModel` asks of the module's value model."""

    def resolve(self, node: cst.BaseExpression) -> cst.BaseExpression: ...

    def value_of(self, expr: cst.BaseExpression) -> Value: ...

    def value_with(
        self, node: cst.BaseExpression, params: Mapping[cst.Param, Value]
    ) -> Value: ...

    def arguments(
        self,
        function: cst.FunctionDef,
        call: cst.Call,
        evaluate: Callable[[cst.BaseExpression], Value],
    ) -> dict[cst.Param, Value] | Unknown: ...


class ContextQuestions(Analysed, Recorded, Protocol):
    """What `ContextModel` asks of a module's analysis (this module's, or another's whose
    function it looks into)."""

    @property
    def parents(self) -> Mapping[cst.CSTNode, cst.CSTNode]: ...

    @property
    def source_order(self) -> Mapping[cst.CSTNode, int]: ...

    @property
    def names(self) -> ApiResolver: ...

    @property
    def bindings(self) -> Bindings: ...

    @property
    def values(self) -> ContextValues: ...

    @property
    def expected_errors(self) -> ExpectedErrors: ...

    @property
    def contexts(self) -> ContextModel: ...

    def nodes(self, kind: type[NodeT]) -> list[NodeT]: ...

    def line(self, node: cst.CSTNode) -> int: ...

    def external_definition(
        self, expr: cst.BaseExpression
    ) -> External[ContextQuestions] | None: ...

    def depends_on(self, path: Path, other: Recorded | None = None) -> None: ...


_EXIT_METHODS = frozenset({"close", "pop_all"})
_GLOBAL_SETTERS = frozenset(
    {Api.SET_MESH, Api.USE_MESH}
)  # called without `with`, they may set the mesh for good
_SCOPE_BOUNDARIES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_SETUP_METHODS = (
    "setUpClass",
    "setUp",
)  # entered in this order, so setUp's mesh is innermost


Params = Mapping[
    cst.Param, Value
]  # the values of the parameters of the functions around a node
_UNBOUND: Params = {}


class Entry(enum.Enum):
    ELSEWHERE = "a global set_mesh elsewhere in the module"
    USE = "a use of the function where a mesh may be current"
    SETUP = "entered by setUp/setUpClass"
    DECORATOR = "a decorator that enters a mesh"
    WITH = "a with item"
    ENTER_CONTEXT = "entered by enter_context"
    GLOBAL_SET = "a bare set_mesh earlier in the block"


_LOCAL_ENTRIES = frozenset({Entry.WITH, Entry.ENTER_CONTEXT, Entry.GLOBAL_SET})


@dataclass(frozen=True, kw_only=True)
class ContextSite:
    entry: Entry
    api: (
        Api | None
    )  # USE_ABSTRACT_MESH / SET_MESH / USE_MESH, MESH (`with mesh:`), None: not visible
    mesh: MeshValue | Unknown
    node: (
        cst.CSTNode
    )  # the context manager, the set_mesh call, or the use of the function
    call: cst.Call | None = (
        None  # the call of the node's function that this site is entered around
    )
    setup: cst.FunctionDef | None = None  # the setUp/setUpClass that entered it

    @property
    def is_local(self) -> bool:
        """Entered in the node's own function or module body (not by a caller, setUp, decorator)."""
        return self.entry in _LOCAL_ENTRIES and self.call is None

    @property
    def sets_context_mesh(self) -> bool:
        """False for `with mesh:` (the legacy context sets the concrete mesh only, checked on jax
        0.10.2 and 0.12.0.1), for what jaxfix only knows through uses, and for other modules'
        setters; True where a mesh context is entered, known or not."""
        return self.api is not Api.MESH and self.entry not in (
            Entry.USE,
            Entry.ELSEWHERE,
        )


@dataclass(frozen=True)
class _Seen:
    """A function jaxfix can look into, and the context model of the module that defines it."""

    function: cst.FunctionDef
    owner: ContextModel


def context_mesh_sites(sites: Sequence[ContextSite]) -> list[ContextSite]:
    """The site that sets JAX's context mesh on each way the node runs, from `contexts_at`: the
    innermost local one; else a decorator's; else setUp's; else, per followed call, the innermost
    one around it. [] when no mesh context is known to be entered."""
    setting = [s for s in sites if s.sets_context_mesh]
    for group in (
        [s for s in setting if s.is_local],
        [s for s in setting if s.entry is Entry.DECORATOR and s.call is None],
        [s for s in setting if s.entry is Entry.SETUP and s.call is None],
    ):
        if group:
            return [group[-1]]
    by_call: dict[cst.Call, ContextSite] = {}
    for site in setting:
        if site.call is not None:
            by_call[site.call] = site  # later sites of the same call are inner
    return list(by_call.values())


class ContextModel:
    def __init__(self, analysis: ContextQuestions) -> None:
        self._analysis = analysis
        self._parents = analysis.parents
        self._names = analysis.names
        self._bindings = analysis.bindings
        self._values = analysis.values
        self._outside_of: dict[cst.CSTNode | None, list[ContextSite]] = {}
        self._entering: set[cst.FunctionDef] = (
            set()
        )  # @contextmanager functions being looked into
        self._enters: dict[
            cst.FunctionDef, bool
        ] = {}  # enters_mesh, asked of this module's functions by any module

    # -- the question -------------------------------------------------------------------------

    def contexts_at(self, node: cst.CSTNode) -> list[ContextSite]:
        own, scope = self._local(node)
        outside = self._outside(scope)
        listed = {site.node for site in [*own, *outside]}
        elsewhere = [
            ContextSite(
                entry=Entry.ELSEWHERE,
                api=self._names.called_api(call),
                mesh=self._at_line("set globally", call),
                node=call,
            )
            for call in self.global_setters
            if call not in listed
        ]
        return [*elsewhere, *outside, *own]

    # -- within the node's own function -------------------------------------------------------

    def _local(
        self, node: cst.CSTNode, params: Params = _UNBOUND
    ) -> tuple[list[ContextSite], cst.CSTNode | None]:
        """Sites entered around `node` in its own scope (outermost first), and that scope's node
        (a FunctionDef, ClassDef, Lambda, or None at module level); their meshes evaluated with
        `params` (of the functions enclosing `node`) bound."""
        found: list[ContextSite] = []
        child, current = node, self._parents.get(node)
        while current is not None and not isinstance(current, _SCOPE_BOUNDARIES):
            if isinstance(current, cst.With):
                items = [
                    i
                    for i in _items_entered_before(current, child)
                    if not self._analysis.expected_errors.is_expectation(i)
                ]
                found[:0] = [
                    s
                    for s in (
                        self._site(item.item, Entry.WITH, params) for item in items
                    )
                    if s is not None
                ]
            elif (
                isinstance(current, (cst.IndentedBlock, cst.Module))
                and child in current.body
            ):
                statements = current.body[: current.body.index(child)]
                found[:0] = self._entered_by_statements(statements, params)
            child, current = current, self._parents.get(current)
        return found, current

    def _entered_by_statements(
        self, statements: Sequence[cst.BaseStatement], params: Params = _UNBOUND
    ) -> list[ContextSite]:
        """Sites entered by `x.enter_context(cm)` statements (they stay entered afterwards,
        unless `x.close()` or `x.pop_all()` follows) or set by bare `jax.set_mesh(m)` ones."""
        found: list[tuple[str, ContextSite]] = []
        for statement in statements:
            if not isinstance(statement, cst.SimpleStatementLine):
                if statement in self._holding_global_setter:
                    found.append(
                        (
                            "",
                            self._unknown_global(
                                self._holding_global_setter[statement]
                            ),
                        )
                    )
                continue
            for small in statement.body:
                if isinstance(small, cst.Expr) and small.value in self.global_setters:
                    assert isinstance(small.value, cst.Call)
                    found.append(("", self._global_site(small.value, params)))
                    continue
                if small in self._holding_global_setter:
                    found.append(
                        ("", self._unknown_global(self._holding_global_setter[small]))
                    )
                call = (
                    small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
                )
                if not isinstance(call, cst.Call) or not isinstance(
                    call.func, cst.Attribute
                ):
                    continue
                receiver = self._code(call.func.value)
                if call.func.attr.value in _EXIT_METHODS:
                    found = [(r, s) for r, s in found if r != receiver]
                entered = entered_expression(call)
                site = (
                    self._site(entered, Entry.ENTER_CONTEXT, params)
                    if entered is not None
                    else None
                )
                if site is not None:
                    found.append((receiver, site))
        return [site for _, site in found]

    @cached_property
    def global_setters(self) -> frozenset[cst.Call]:
        """`set_mesh(...)` / `use_mesh(...)` calls that are neither a `with` item nor entered. A
        bare `set_mesh(m)` sets the mesh when called (jax 0.10.2 and 0.12.0.1), until another one
        or a `with` exit changes it; `use_mesh` is not in those versions, so what it does is unknown."""
        return frozenset(
            node
            for node in self._analysis.nodes(cst.Call)
            if self._names.called_api(node) in _GLOBAL_SETTERS
            and not self.is_entered(node)
        )

    def _global_site(self, call: cst.Call, params: Params = _UNBOUND) -> ContextSite:
        if self._names.called_api(call) is Api.SET_MESH:
            site = self._site(call, Entry.GLOBAL_SET, params)
            assert site is not None  # a set_mesh call always makes a site
            return site
        return self._unknown_global(call)

    def _unknown_global(self, call: cst.Call) -> ContextSite:
        why = self._at_line("a global mesh setter", call, "may or may not have run")
        return ContextSite(entry=Entry.GLOBAL_SET, api=None, mesh=why, node=call)

    @cached_property
    def _holding_global_setter(self) -> dict[cst.CSTNode, cst.Call]:
        """Every node that contains a global setter call, mapped to one such call."""
        holders: dict[cst.CSTNode, cst.Call] = {}
        for call in self.global_setters:
            node = self._parents.get(call)
            while node is not None and node not in holders:
                holders[node] = call
                node = self._parents.get(node)
        return holders

    def is_entered(self, node: cst.BaseExpression) -> bool:
        parent = self._parents.get(node)
        if isinstance(parent, cst.WithItem) and parent.item is node:
            return True
        call = self._parents.get(parent) if isinstance(parent, cst.Arg) else None
        return isinstance(call, cst.Call) and entered_expression(call) is node

    # -- what entering a context manager does -------------------------------------------------

    def _site(
        self,
        context_manager: cst.BaseExpression,
        entry: Entry,
        params: Params = _UNBOUND,
    ) -> ContextSite | None:
        """What entering `context_manager` does to the mesh; None when it enters none."""
        expr = self._values.resolve(context_manager)
        api = self._names.called_api(expr)
        if api in MESH_CONTEXT_APIS:
            assert isinstance(expr, cst.Call)
            return ContextSite(
                entry=entry,
                api=api,
                mesh=self._entered_mesh(expr, api, params),
                node=context_manager,
            )
        value = self._values.value_with(context_manager, params)
        if isinstance(value, MeshValue):  # `with mesh:` sets the concrete mesh only
            return (
                ContextSite(entry=entry, api=Api.MESH, mesh=value, node=context_manager)
                if not value.is_abstract
                else None
            )
        found = self._context_manager_function(expr)
        if found is not None and found.function not in found.owner._entering:
            bound = (
                found.owner._values.arguments(
                    found.function, expr, lambda a: self._values.value_with(a, params)
                )
                if isinstance(expr, cst.Call)
                else {}
            )
            inside = found.owner._at_yield(
                found.function, bound if not isinstance(bound, Unknown) else _UNBOUND
            )
            if inside is not None:
                return (
                    None
                    if not inside
                    else ContextSite(
                        entry=entry,
                        api=inside[-1].api,
                        mesh=inside[-1].mesh,
                        node=context_manager,
                    )
                )
        why = self._may_enter_mesh(expr)
        return (
            None
            if why is None
            else ContextSite(
                entry=entry, api=None, mesh=Unknown(why), node=context_manager
            )
        )

    def _context_manager_function(self, expr: cst.BaseExpression) -> _Seen | None:
        """For `helper(...)`, the function `helper` names when `@contextmanager` makes it a
        context manager."""
        found = self._function(expr.func) if isinstance(expr, cst.Call) else None
        if found is None or found.function.asynchronous:
            return None
        names = found.owner._names
        for decorator in found.function.decorators:
            if any(
                q.name == "contextlib.contextmanager"
                for q in names.qualified_names(decorator.decorator)
            ):
                return found
        return None

    def _at_yield(
        self, helper: cst.FunctionDef, params: Params = _UNBOUND
    ) -> list[ContextSite] | None:
        """The sites in force at the one `yield` of a `@contextmanager` function (where the
        `with` block runs), with its parameters bound to `params`; those that set the context
        mesh if any, outermost first; None when it yields more than once or never."""
        yields = [
            node for node in own_nodes(helper.body) if isinstance(node, cst.Yield)
        ]
        if len(yields) != 1:
            return None
        self._entering.add(helper)
        try:
            around, _ = self._local(yields[0], params)
        finally:
            self._entering.discard(helper)
        setting = [site for site in around if site.sets_context_mesh]
        return setting or around

    def _entered_mesh(
        self, call: cst.Call, api: Api, params: Params
    ) -> MeshValue | Unknown:
        args = bind(call, SIGNATURES[api])
        argument = args.get("mesh") if args else None
        if argument is None:
            return Unknown("the mesh argument is not visible")
        if (
            api is not Api.USE_ABSTRACT_MESH
            and isinstance(argument, cst.Name)
            and argument.value == "None"
        ):
            return MeshValue(
                kind=MeshKind.ABSTRACT,
                axis_names=(),
                axis_sizes=(),
                axis_types=(),
                has_abstract_device=False,
                node=argument,
            )
        value = self._values.value_with(argument, params)
        return (
            value if isinstance(value, (MeshValue, Unknown)) else Unknown("not a mesh")
        )

    def _may_enter_mesh(self, expr: cst.BaseExpression) -> str | None:
        """Why entering `expr` (not a mesh API, not a mesh) may enter a mesh context; None when
        it surely does not."""
        callee = expr.func if isinstance(expr, cst.Call) else expr
        found = self._function(callee)
        if found is not None:
            return (
                f"`{found.function.name.value}` enters a mesh context in its body"
                if found.owner.enters_mesh(found.function)
                else None
            )
        qualified = self._names.qualified_names(callee)
        if qualified and all(_cannot_enter_mesh(q.name, q.source) for q in qualified):
            return None
        if self._inherited_test_case_method(callee):
            return None
        return f"jaxfix cannot see what `{short(callee, 40)}` enters"

    def _inherited_test_case_method(self, callee: cst.BaseExpression) -> bool:
        """`self.assertRaises(...)`, `self.subTest(...)`: a `unittest.TestCase` method the
        enclosing class does not define itself (so the standard library's, inherited)."""
        if not (
            isinstance(callee, cst.Attribute)
            and isinstance(callee.value, cst.Name)
            and callee.value.value == "self"
        ):
            return False
        if not hasattr(unittest.TestCase, callee.attr.value):
            return False
        klass = self._parents.get(callee)
        while klass is not None and not isinstance(klass, cst.ClassDef):
            klass = self._parents.get(klass)
        if klass is None or not klass.bases:
            return False
        return not any(
            isinstance(statement, cst.FunctionDef)
            and statement.name.value == callee.attr.value
            for statement in klass.body.body
        )

    def enters_mesh(self, function: cst.FunctionDef) -> bool:
        """Whether the body of `function` (nested functions included) enters or sets a mesh
        context: calls a mesh context API, enters a mesh by `with`, or calls another function of
        this module that does."""
        if function not in self._enters:
            self._enters[function] = self._enters_mesh(function, frozenset())
        return self._enters[function]

    def _enters_mesh(
        self, function: cst.FunctionDef, seen: frozenset[cst.FunctionDef]
    ) -> bool:
        seen = seen | {function}
        for node in _descendants(function.body):
            if isinstance(node, cst.Call):
                if self._names.called_api(node) in MESH_CONTEXT_APIS:
                    return True
                helper = (
                    self._bindings.function(node.func)
                    if isinstance(node.func, cst.Name)
                    else None
                )
                if (
                    helper is not None
                    and helper not in seen
                    and self._enters_mesh(helper, seen)
                ):
                    return True
            elif isinstance(node, cst.WithItem) and isinstance(
                self._values.value_of(node.item), MeshValue
            ):
                return True
        return False

    # -- outside the node's own function ------------------------------------------------------

    def _outside(self, scope: cst.CSTNode | None) -> list[ContextSite]:
        """The sites around every run of `scope` (the same for every node in it: computed once)."""
        if scope not in self._outside_of:
            self._outside_of[scope] = self._find_outside(scope)
        return self._outside_of[scope]

    def _find_outside(self, scope: cst.CSTNode | None) -> list[ContextSite]:
        if not isinstance(scope, cst.FunctionDef):
            if scope is not None and self._scope_reached(
                scope, frozenset()
            ):  # a class body or a lambda
                return [self._use_site(scope, "it is used")]
            return []
        sites: list[ContextSite] = []
        for call in self.calls_running(scope):
            around, caller = self._local(call)
            if isinstance(caller, cst.FunctionDef):
                sites += [_with_call(s, call) for s in self._setup_sites(caller)]
            sites += [_with_call(s, call) for s in around]
            if caller is not None and self._scope_reached(caller, frozenset({scope})):
                sites.append(
                    _with_call(self._use_site(call, "its caller is itself used"), call)
                )
        sites += [
            self._use_site(use, "it is used")
            for use in self._uses(scope)
            if self._reached(use, frozenset({scope}))
        ]
        return [*sites, *self._setup_sites(scope), *self._decorator_sites(scope)]

    def _use_site(self, use: cst.CSTNode, what: str) -> ContextSite:
        return ContextSite(
            entry=Entry.USE,
            api=None,
            mesh=self._at_line(what, use, "where a mesh may be current"),
            node=use,
        )

    def _setup_sites(self, method: cst.FunctionDef) -> list[ContextSite]:
        """For a TestCase `test*` method, what its class's setUpClass and setUp enter."""
        klass = self._grandparent(method)
        if not isinstance(klass, cst.ClassDef) or not method.name.value.startswith(
            "test"
        ):
            return []
        sites: list[ContextSite] = []
        for name in _SETUP_METHODS:
            for statement in klass.body.body:
                if (
                    isinstance(statement, cst.FunctionDef)
                    and statement.name.value == name
                ):
                    body = (
                        statement.body.body
                        if isinstance(statement.body, cst.IndentedBlock)
                        else ()
                    )
                    for site in self._entered_by_statements(body):
                        sites.append(
                            ContextSite(
                                entry=Entry.SETUP,
                                api=site.api,
                                mesh=site.mesh,
                                node=site.node,
                                setup=statement,
                            )
                        )
        return sites

    def _decorator_sites(self, function: cst.FunctionDef) -> list[ContextSite]:
        """What the decorators of `function` whose body enters a mesh context put around it: the
        sites around the one call of the function in the wrapper they return (`def deco(fn):
        def wrapper(*a): with set_mesh(m): return fn(*a)`, or a factory `deco(args)` returning
        such a decorator, its meshes evaluated with the factory's parameters bound to `args`);
        one unknown site when the wrapper is not that simple. A decorator defined in another
        module gives its sites at the decorator (`@tu.with_mesh(...)`), a node of this module."""
        sites = []
        for decorator in function.decorators:
            expr = decorator.decorator
            callee = expr.func if isinstance(expr, cst.Call) else expr
            found = self._function(callee)
            if found is None or not found.owner.enters_mesh(found.function):
                continue
            helper, owner = found.function, found.owner
            wrapped = owner._wrapped_call(helper, factory=isinstance(expr, cst.Call))
            if wrapped is None:
                why = f"the decorator `{helper.name.value}` enters a mesh context in its body"
                sites.append(
                    ContextSite(
                        entry=Entry.DECORATOR, api=None, mesh=Unknown(why), node=expr
                    )
                )
                continue
            params = (
                owner._values.arguments(helper, expr, self._values.value_of)
                if isinstance(expr, cst.Call)
                else _UNBOUND
            )
            around, _ = owner._local(
                wrapped, params if not isinstance(params, Unknown) else _UNBOUND
            )
            sites += [
                ContextSite(
                    entry=Entry.DECORATOR,
                    api=s.api,
                    mesh=s.mesh,
                    node=s.node if owner is self else expr,
                )
                for s in around
            ]
        return sites

    def _function(self, callee: cst.BaseExpression) -> _Seen | None:
        """The function `callee` names: a `def` of this module bound once, or one defined at
        module level in another module of the tree (`from .testing import with_mesh`,
        `tu.with_mesh`, through the project index); that module's model answers about it."""
        function = (
            self._bindings.function(callee) if isinstance(callee, cst.Name) else None
        )
        if function is not None:
            return _Seen(function, self)
        if not isinstance(callee, (cst.Name, cst.Attribute)):
            return None
        qualified = self._names.qualified_names(callee)
        if qualified and all(_cannot_enter_mesh(q.name, q.source) for q in qualified):
            return None  # not worth reading another module for (`jax.jit`, `functools.wraps`)
        found = self._analysis.external_definition(callee)
        if found is None or not isinstance(found.node, cst.FunctionDef):
            return None
        self._analysis.depends_on(found.path, found.analysis)
        return _Seen(found.node, found.analysis.contexts)

    def _wrapped_call(
        self, helper: cst.FunctionDef, *, factory: bool
    ) -> cst.Call | None:
        """The one call of the decorated function in the wrapper the decorator returns; None
        when the decorator (or, for a factory, the decorator it returns) is not that shape."""
        decorator = self._returned_function(helper) if factory else helper
        if decorator is None or not decorator.params.params:
            return None
        wrapper = self._returned_function(decorator)
        if wrapper is None:
            return None
        wrapped = decorator.params.params[0]
        calls = [
            node
            for node in own_nodes(wrapper.body)
            if isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and self._bindings.definition(node.func) is wrapped
        ]
        return calls[0] if len(calls) == 1 else None

    def _returned_function(self, function: cst.FunctionDef) -> cst.FunctionDef | None:
        """The function defined inside `function` that its only `return` statement returns."""
        returns = [
            node for node in own_nodes(function.body) if isinstance(node, cst.Return)
        ]
        if len(returns) != 1 or not isinstance(returns[0].value, cst.Name):
            return None
        returned = self._bindings.function(returns[0].value)
        return (
            returned
            if returned is not None and self._grandparent(returned) is function
            else None
        )

    def calls_running(self, function: cst.FunctionDef) -> list[cst.Call]:
        """The calls that run `function`'s body, in source order: `f(...)`, `jax.jit(f)(...)`,
        and `g(...)` after `g = jax.jit(f)`, for a function bound only by its `def`; none for
        generators, async functions, methods, and functions with a decorator other than
        `jax.jit`, `partial(jax.jit, ...)` or `functools.wraps(...)` (it may run them elsewhere)."""
        if (
            function.asynchronous
            or is_generator(function)
            or isinstance(self._grandparent(function), cst.ClassDef)
        ):
            return []
        if not all(self._runs_when_called(d.decorator) for d in function.decorators):
            return []
        calls = self._calls_through(function.name, function)
        return sorted(
            calls, key=self._analysis.source_order.__getitem__
        )  # no positions: they cost a code generation

    def _runs_when_called(self, decorator: cst.BaseExpression) -> bool:
        jitted = jit_application(decorator, self._names)
        if jitted is not None:
            return jitted.function is None
        return (
            isinstance(decorator, cst.Call)
            and self._names.called_api(decorator) is Api.WRAPS
        )

    def _calls_through(
        self, name: cst.Name, binder: cst.CSTNode, *, follow_jit: bool = True
    ) -> list[cst.Call]:
        calls: list[cst.Call] = []
        for access in self._bindings.references(name, binder):
            parent = self._parents.get(access.node)
            if isinstance(parent, cst.Call) and parent.func is access.node:
                calls.append(parent)
                continue
            jitted = (
                self._parents.get(parent)
                if isinstance(parent, cst.Arg) and follow_jit
                else None
            )
            if (
                not isinstance(jitted, cst.Call)
                or _jit_argument(jitted) is not access.node
                or self._names.called_api(jitted) is not Api.JIT
            ):
                continue
            user = self._parents.get(jitted)
            if isinstance(user, cst.Call) and user.func is jitted:
                calls.append(user)
            elif (
                isinstance(user, cst.Assign)
                and len(user.targets) == 1
                and isinstance(user.targets[0].target, cst.Name)
            ):
                target = user.targets[0].target
                calls.extend(self._calls_through(target, target, follow_jit=False))
        return calls

    # -- where a function is used under a mesh (any level) ------------------------------------

    def _reached(self, node: cst.CSTNode, seen: frozenset[cst.CSTNode]) -> bool:
        """Whether any mesh context (known or not) may be in force around `node` in its scope
        or around a use of that scope, at any depth (`seen`: scopes already being asked about)."""
        own, scope = self._local(node)
        return bool(own) or (scope is not None and self._scope_reached(scope, seen))

    def _scope_reached(self, scope: cst.CSTNode, seen: frozenset[cst.CSTNode]) -> bool:
        if scope in seen:
            return False
        seen = seen | {scope}
        if isinstance(
            scope, cst.ClassDef
        ):  # the class body runs where the class is defined
            return self._reached(scope, seen)
        if isinstance(scope, cst.FunctionDef) and (
            self._setup_sites(scope) or self._decorator_sites(scope)
        ):
            return True
        if isinstance(scope, (cst.FunctionDef, cst.Lambda)):
            return any(self._reached(use, seen) for use in self._uses(scope))
        return False

    def _uses(self, scope: cst.FunctionDef | cst.Lambda) -> list[cst.CSTNode]:
        """Where a function or lambda is used: the lambda itself, a decorated def where it is
        defined, every read of its name, a method's attribute reads by name, and the same for
        the names and attributes it is then assigned to."""
        if isinstance(scope, cst.Lambda):
            uses: list[cst.CSTNode] = [scope]
        else:
            uses = (
                [scope] if scope.decorators else []
            )  # a decorator may call it where it is defined
            uses += self._bindings.all_references(scope.name.value, scope)
            if isinstance(self._grandparent(scope), cst.ClassDef):
                uses += self._attributes.get(scope.name.value, [])
        found: dict[cst.CSTNode, None] = {}
        while uses:
            use = uses.pop()
            if use in found:
                continue
            found[use] = None
            parent = self._parents.get(use)
            if (
                isinstance(parent, (cst.Assign, cst.AnnAssign, cst.NamedExpr))
                and parent.value is use
            ):
                for target in _bound_targets(parent):
                    if isinstance(target, cst.Name):
                        uses += self._bindings.all_references(target.value, target)
                    elif isinstance(target, cst.Attribute):
                        uses += self._attributes.get(target.attr.value, [])
        return list(found)

    @cached_property
    def _attributes(self) -> dict[str, list[cst.Attribute]]:
        """Every `x.name` in the module, by name (how methods are reached)."""
        by_name: dict[str, list[cst.Attribute]] = {}
        for node in self._analysis.nodes(cst.Attribute):
            by_name.setdefault(node.attr.value, []).append(node)
        return by_name

    # -- helpers ------------------------------------------------------------------------------

    def _grandparent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """A def's grandparent: the ClassDef when it is a method (its parent is the class body)."""
        parent = self._parents.get(node)
        return None if parent is None else self._parents.get(parent)

    def _at_line(self, what: str, node: cst.CSTNode, then: str = "") -> Unknown:
        """Unknown(f"{what} at line N {then}"), N worked out only if the reason is shown."""
        return Unknown(
            lambda: (
                f"{what} at line {self._analysis.line(node)}{' ' if then else ''}{then}"
            )
        )

    def _code(self, node: cst.CSTNode) -> str:
        return self._analysis.wrapper.module.code_for_node(node)


def entered_expression(call: cst.Call) -> cst.BaseExpression | None:
    """The context manager `x.enter_context(cm)` enters, or None for any other call."""
    func = call.func
    if (
        isinstance(func, cst.Attribute)
        and func.attr.value in ENTER_METHODS
        and len(call.args) == 1
        and not call.args[0].star
    ):
        return call.args[0].value
    return None


def _with_call(site: ContextSite, call: cst.Call) -> ContextSite:
    return ContextSite(
        entry=site.entry,
        api=site.api,
        mesh=site.mesh,
        node=site.node,
        call=call,
        setup=site.setup,
    )


def _jit_argument(call: cst.Call) -> cst.BaseExpression | None:
    first = call.args[0] if call.args else None
    return (
        first.value
        if first is not None and first.keyword is None and not first.star
        else None
    )


def _cannot_enter_mesh(name: str, source: QualifiedNameSource) -> bool:
    """Builtins, the standard library and JAX's public non-mesh APIs enter no mesh context."""
    if source is QualifiedNameSource.BUILTIN:
        return True
    return source is QualifiedNameSource.IMPORT and imported_name_enters_no_mesh(name)


def _items_entered_before(
    statement: cst.With, child: cst.CSTNode
) -> Sequence[cst.WithItem]:
    """The items of `statement` already entered where `child` runs: the earlier items when
    `child` is an item itself, else all of them (`child` is the body)."""
    return (
        statement.items[: statement.items.index(child)]
        if child in statement.items
        else statement.items
    )


def _bound_targets(
    statement: cst.Assign | cst.AnnAssign | cst.NamedExpr,
) -> list[cst.BaseExpression]:
    return (
        [t.target for t in statement.targets]
        if isinstance(statement, cst.Assign)
        else [statement.target]
    )


def _descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)
