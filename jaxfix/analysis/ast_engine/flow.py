"""Reaching definitions in one scope: which bindings of a name a statement may see.

`Flow` walks a function's (or a module's) statements once, in order, keeping for every name the
set of bindings that may reach each statement: straight-line code keeps the latest; both
branches of an `if` give the union (an `if` whose test the frame decides runs one branch only);
a loop's head is the union of what enters it and what its body leaves, to a fixed point, so a
binding the body changes is seen with every value it may have; `try` handlers see whatever the
body may have bound; `return`, `raise`, `break` and `continue` end their paths. Names of `self`
attributes (`self.mesh = ...` in a method whose first parameter is `self`) are tracked as the
name `self.mesh`. The evaluator turns a set of bindings into a value (one value when they all
agree, else Unknown): a reaching definition is never a guess.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from jaxfix.analysis.ast_engine.fields import _OWN_FIELDS, own_fields

_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_STORES = frozenset({ast.Store, ast.Del})
_MAX_ROUNDS = 6  # loop fixed point: nested loops converge in a few rounds
_MAX_CHAIN = 24  # an environment is flattened after this many bindings on top of it


class Env:
    """The bindings of every name at one point: a persistent map (a binding makes a new
    environment sharing the old one), so that keeping one per statement costs one entry per
    binding, not one per name per statement."""

    __slots__ = ("_own", "_parent", "_depth", "_flat")

    def __init__(
        self,
        own: dict[str, frozenset[Binding]] | None = None,
        parent: Env | None = None,
    ) -> None:
        self._own: dict[str, frozenset[Binding]] = own or {}
        self._parent: Env | None = parent
        self._depth: int = 0 if parent is None else parent._depth + 1
        self._flat: dict[str, frozenset[Binding]] | None = None if parent else self._own

    def get(self, name: str) -> frozenset[Binding] | None:
        env: Env | None = self
        while env is not None:
            found = env._own.get(name)
            if found is not None:
                return found
            env = env._parent
        return None

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def flat(self) -> dict[str, frozenset[Binding]]:
        if self._flat is None:
            assert self._parent is not None
            self._flat = {**self._parent.flat(), **self._own}
        return self._flat

    def bind(self, name: str, bindings: frozenset[Binding]) -> Env:
        if self._depth >= _MAX_CHAIN:
            return Env({**self.flat(), name: bindings})
        return Env({name: bindings}, self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Env) and (other is self or self.flat() == other.flat())

    __hash__ = None  # type: ignore[assignment]  # mutable-looking; compared by content


@dataclass(frozen=True)
class Binding:
    """One way a name gets its value.

    kind: "assign" (`x = v`, `x: T = v`, a walrus), "aug" (`x += v`), "param", "import",
    "def", "class", "with" (`with cm as x`), "for" (a `for` loop's variable: an item of what
    it iterates), "opaque" (a variable a loop changes, an exception name, a
    match capture, `del`: no value jaxfix computes).
    `node`: the statement (or `ast.arg`, `ast.alias`, NamedExpr); `path`: for unpacking, the
    position of the target in each nested tuple: (index, length, starred index or -1).
    """

    kind: str
    node: ast.AST
    path: tuple[tuple[int, int, int], ...] = ()
    why: str = ""


@dataclass
class _Loop:
    breaks: list[Env] = field(default_factory=list)
    continues: list[Env] = field(default_factory=list)


Truth = Callable[[ast.expr, ast.stmt], "bool | None"]


class Flow:
    """The bindings reaching each statement of one scope, computed with `truth` deciding tests
    (None: both ways)."""

    def __init__(self, scope: ast.AST, walrus: bool = True) -> None:
        self.scope = scope
        self.walrus = walrus  # False: the module has no `:=`, none is looked for
        self.before: dict[ast.stmt, Env] = {}
        self.heads: dict[ast.stmt, Env] = {}  # a `while` loop's test sees its head
        self.returns: list[ast.Return] = []
        self.end: Env | None = None  # None: the end is never reached
        self.everything: dict[str, set[Binding]] = {}  # every binding made, on any path
        self.done = False
        self.self_name = _self_name(scope)
        self._loops: list[_Loop] = []
        self._tries: list[set[tuple[str, Binding]]] = []
        self._truth: Truth = _undecided

    def run(self, truth: Truth, start: Env) -> None:
        self._truth = truth
        try:
            for name, bindings in start.flat().items():
                self.everything.setdefault(name, set()).update(bindings)
            body = _body_of(self.scope)
            if isinstance(body, ast.expr):
                self.end = start
            else:
                self.end = self._block(body, start)
            self.done = True
        finally:
            # `truth` holds its evaluator: not kept past the run (no cycle through it)
            self._truth = _undecided

    # -- blocks -----------------------------------------------------------------------------

    def _block(self, body: list[ast.stmt], env: Env | None) -> Env | None:
        for statement in body:
            if env is None:
                return None
            env = self._statement(statement, env)
        return env

    def _statement(self, s: ast.stmt, env: Env) -> Env | None:
        self.before[s] = env
        if isinstance(s, (ast.Return, ast.Raise)):
            if isinstance(s, ast.Return):
                self.returns.append(s)
            return None
        if isinstance(s, ast.Break):
            if self._loops:
                self._loops[-1].breaks.append(env)
            return None
        if isinstance(s, ast.Continue):
            if self._loops:
                self._loops[-1].continues.append(env)
            return None
        if isinstance(s, ast.If):
            env = self._walrus(s.test, env)
            verdict = self._truth(s.test, s)
            if verdict is True:
                return self._block(s.body, env)
            if verdict is False:
                return self._block(s.orelse, env)
            return _union(self._block(s.body, env), self._block(s.orelse, env))
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            return self._loop(s, env)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                env = self._walrus(item.context_expr, env)
                if item.optional_vars is not None:
                    env = self._targets(item.optional_vars, "with", s, env)
            return self._block(s.body, env)
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            return self._try(s, env)
        if isinstance(s, ast.Match):
            env = self._walrus(s.subject, env)
            ends: list[Env | None] = [env]
            for case in s.cases:
                inner = env
                for node in ast.walk(case.pattern):
                    name = getattr(node, "name", None)
                    if isinstance(name, str):
                        inner = self._bind(
                            name, Binding("opaque", s, why="a match capture"), inner
                        )
                ends.append(self._block(case.body, inner))
            return _union(*ends)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self._bind(s.name, Binding("def", s), env)
        if isinstance(s, ast.ClassDef):
            return self._bind(s.name, Binding("class", s), env)
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            for alias in s.names:
                if alias.name == "*":
                    star = Binding("opaque", s, why="a star import")
                    for name, found in env.flat().items():  # it may rebind any of them
                        self.everything.setdefault(name, set()).add(star)
                        env = env.bind(name, found | {star})
                    env = self._bind("*", star, env)
                    continue
                bound = alias.asname or alias.name.partition(".")[0]
                env = self._bind(bound, Binding("import", alias), env)
            return env
        if isinstance(s, ast.Assign):
            env = self._walrus(s.value, env)
            for target in s.targets:
                env = self._targets(target, "assign", s, env)
            return env
        if isinstance(s, ast.AnnAssign):
            if s.value is None:
                return env
            env = self._walrus(s.value, env)
            return self._targets(s.target, "assign", s, env)
        if isinstance(s, ast.AugAssign):
            env = self._walrus(s.value, env)
            return self._targets(s.target, "aug", s, env)
        if isinstance(s, ast.Delete):
            for target in s.targets:
                for name in _target_names(target):
                    env = self._bind(name, Binding("opaque", s, why="deleted"), env)
            return env
        if isinstance(s, ast.Expr):
            return self._walrus(s.value, env)
        return env

    def _loop(self, s: ast.For | ast.AsyncFor | ast.While, env: Env) -> Env | None:
        if isinstance(s, ast.While):
            env = self._walrus(s.test, env)
        else:
            env = self._walrus(s.iter, env)
        head = env
        loop = _Loop()
        for _ in range(_MAX_ROUNDS):
            self.heads[s] = head
            loop = _Loop()
            self._loops.append(loop)
            try:
                inner: Env | None = head
                if isinstance(s, ast.While):
                    if self._truth(s.test, s) is False:
                        inner = None
                else:
                    inner = self._targets(s.target, "for", s, head)
                end = self._block(s.body, inner) if inner is not None else None
            finally:
                self._loops.pop()
            new_head = _union(head, end, *loop.continues)
            assert new_head is not None
            if new_head == head:
                break
            head = new_head
        else:
            for name in _names_bound_in(s.body):
                head = self._bind(
                    name, Binding("opaque", s, why="changed by a loop"), head
                )
        forever = isinstance(s, ast.While) and self._truth(s.test, s) is True
        normal = None if forever else self._block(s.orelse, head)
        return _union(normal, *loop.breaks)

    def _try(self, s: ast.stmt, env: Env) -> Env | None:
        made: set[tuple[str, Binding]] = set()
        self._tries.append(made)
        try:
            end = self._block(getattr(s, "body"), env)
        finally:
            self._tries.pop()
        for outer in self._tries:
            outer |= made
        grown = dict(env.flat())
        for name, binding in made:
            grown[name] = grown.get(name, frozenset()) | {binding}
        raised = Env(grown)
        ends: list[Env | None] = [self._block(getattr(s, "orelse"), end)]
        for handler in getattr(s, "handlers"):
            inner: Env = raised
            if handler.name:
                inner = self._bind(
                    handler.name, Binding("opaque", handler, why="an exception"), inner
                )
            ends.append(self._block(handler.body, inner))
        after = _union(*ends)
        final: list[ast.stmt] = getattr(s, "finalbody")
        if not final:
            return after
        self._block(final, _union(raised, after))  # the paths that leave by raising
        return self._block(final, after) if after is not None else None

    # -- bindings ---------------------------------------------------------------------------

    def _targets(
        self,
        target: ast.AST,
        kind: str,
        statement: ast.stmt,
        env: Env,
        path: tuple[tuple[int, int, int], ...] = (),
        why: str = "",
    ) -> Env:
        if isinstance(target, ast.Name):
            return self._bind(target.id, Binding(kind, statement, path, why), env)
        if isinstance(target, (ast.Tuple, ast.List)):
            star = next(
                (i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)), -1
            )
            for index, element in enumerate(target.elts):
                inner = element.value if isinstance(element, ast.Starred) else element
                step = (index, len(target.elts), star)
                env = self._targets(inner, kind, statement, env, (*path, step), why)
            return env
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == self.self_name
        ):
            name = f"{self.self_name}.{target.attr}"
            return self._bind(name, Binding(kind, statement, path, why), env)
        return env  # a subscript or another object's attribute: a mutation (see mutation.py)

    def _walrus(self, expr: ast.AST, env: Env) -> Env:
        if not self.walrus:
            return env
        for node in _walk_own(expr):
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                env = self._bind(node.target.id, Binding("assign", node), env)
        return env

    def _bind(self, name: str, binding: Binding, env: Env) -> Env:
        self.everything.setdefault(name, set()).add(binding)
        for made in self._tries:
            made.add((name, binding))
        return env.bind(name, frozenset({binding}))


def _undecided(test: ast.expr, statement: ast.stmt) -> bool | None:
    return None


def _union(*envs: Env | None) -> Env | None:
    present = [e for e in envs if e is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    if all(e is present[0] for e in present[1:]):
        return present[0]
    merged = dict(present[0].flat())
    for env in present[1:]:
        for name, bindings in env.flat().items():
            old = merged.get(name)
            merged[name] = bindings if old is None else old | bindings
    return Env(merged)


def _self_name(scope: ast.AST) -> str | None:
    """The first parameter of a method (a function defined in a class body)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    args = [*scope.args.posonlyargs, *scope.args.args]
    if not args or any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in scope.decorator_list
    ):
        return None
    return args[0].arg


def _body_of(scope: ast.AST) -> list[ast.stmt] | ast.expr:
    if isinstance(scope, ast.Lambda):
        return scope.body
    body: list[ast.stmt] = getattr(scope, "body")
    return body


def _target_names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _target_names(e)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def _names_bound_in(body: Iterable[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for statement in body:
        for node in _walk_own(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                names.add(node.name)
    return names


def _walk_own(node: ast.AST) -> Iterable[ast.AST]:
    """`node` and what it holds, not looking into nested functions, lambdas or classes (a
    comprehension's walrus binds in the enclosing scope, so comprehensions are looked into)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node
        stack: list[ast.AST] = list(node.decorator_list)
    else:
        stack = [node]
    while stack:
        current = stack.pop()
        yield current
        # ast.iter_child_nodes less contexts and operators (no caller looks at them), inlined
        for child in _children(current):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield child
                stack.extend(child.decorator_list)
                continue
            if isinstance(child, ast.Lambda):
                continue
            stack.append(child)


def _children(node: ast.AST) -> list[ast.AST]:
    """`node`'s children but contexts and operators, in `ast.iter_child_nodes`'s order."""
    found: list[ast.AST] = []
    for name in reversed(own_fields(type(node))):
        value = getattr(node, name, None)
        if type(value) is list:
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def scope_names(scope: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """The names Python makes local to `scope` (bound anywhere in it, parameters included,
    less those declared `global` or `nonlocal`; a comprehension's variables are its own), and
    those of them bound only by `def` or `class` statements without decorators (so their
    value is that function or class, whatever code runs): one walk of its own code (as
    `_walk_own` walks it, inlined: this runs for every scope a question reads)."""
    names: set[str] = set()
    declared: set[str] = set()
    plain: set[str] = set()  # bound by a def or class without decorators
    other: set[str] = set()  # bound otherwise (a match capture is only here)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
            if arg is not None:
                names.add(arg.arg)
                other.add(arg.arg)
    body = _body_of(scope)
    # a lambda is skipped where `_walk_own` skips it: a child, not a first node or a decorator
    stack: list[ast.AST] = [body] if isinstance(body, ast.expr) else list(body)
    comprehension_targets: set[int] = set()  # seen before the targets: a parent first
    fields_of, node_type, name_type, store_types = (
        _OWN_FIELDS,
        ast.AST,
        ast.Name,
        _STORES,
    )
    definitions, skipped = _DEFINITIONS, ast.Lambda
    while stack:
        node = stack.pop()
        kind = type(node)  # `ast.parse` makes no subclass
        if kind is name_type:
            if type(node.ctx) in store_types and id(node) not in comprehension_targets:  # type: ignore[attr-defined]  # the type was tested above
                names.add(node.id)  # type: ignore[attr-defined]  # the type was tested above
                other.add(node.id)  # type: ignore[attr-defined]  # the type was tested above
            continue
        if kind in definitions:
            bound = node.name  # type: ignore[attr-defined]  # the type was tested above
            names.add(bound)
            (other if node.decorator_list else plain).add(bound)  # type: ignore[attr-defined]  # the type was tested above
            stack.extend(node.decorator_list)  # type: ignore[attr-defined]  # the type was tested above
            continue
        if kind is ast.comprehension:
            comprehension_targets.update(map(id, ast.walk(node.target)))  # type: ignore[attr-defined]  # the type was tested above
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:  # type: ignore[attr-defined]  # the type was tested above
                if alias.name != "*":
                    bound = alias.asname or alias.name.partition(".")[0]
                    names.add(bound)
                    other.add(bound)
        elif kind is ast.ExceptHandler:
            if node.name:  # type: ignore[attr-defined]  # the type was tested above
                names.add(node.name)  # type: ignore[attr-defined]  # the type was tested above
                other.add(node.name)  # type: ignore[attr-defined]  # the type was tested above
        elif kind is ast.Global or kind is ast.Nonlocal:
            declared.update(node.names)  # type: ignore[attr-defined]  # the type was tested above
        elif kind is ast.MatchAs or kind is ast.MatchStar:
            if node.name:  # type: ignore[attr-defined]  # the type was tested above
                other.add(node.name)  # type: ignore[attr-defined]  # the type was tested above
        elif kind is ast.MatchMapping and node.rest:  # type: ignore[attr-defined]  # the type was tested above
            other.add(node.rest)  # type: ignore[attr-defined]  # the type was tested above
        fields = fields_of.get(kind)
        for attribute in own_fields(kind) if fields is None else fields:
            value = getattr(node, attribute, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type) and type(item) is not skipped:
                        stack.append(item)
            elif isinstance(value, node_type) and type(value) is not skipped:
                stack.append(value)
    return frozenset(names - declared), frozenset(plain - other - declared)
