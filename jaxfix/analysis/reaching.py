"""Which bindings of a name reach a read of it, within one function or the module's top level.

`mesh = a` ... `mesh = b` ... `use(mesh)`: only `mesh = b` reaches. An `if` whose branches bind
the name reaches with each branch's binding (and with the binding before it when a branch, or a
missing `else`, leaves the name alone). A loop, `try` or `match` that binds the name, a binding
other than a plain `name = value`, and a read in another function than its bindings make the
answer unknown: a fix that rewrites "the" binding must then not guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst
from libcst.metadata import Scope

from jaxfix.analysis.bindings import Bindings
from jaxfix.analysis.bodies import block, own_nodes

_Found = tuple[
    frozenset[cst.Name], bool
]  # the bindings that reach, and whether nothing earlier does
_NOTHING: _Found = (frozenset(), False)


class Reaching:
    def __init__(
        self,
        scopes: Mapping[cst.CSTNode, Scope | None],
        bindings: Bindings,
        parents: Mapping[cst.CSTNode, cst.CSTNode],
    ) -> None:
        self._scopes = scopes
        self._bindings = bindings
        self._parents = parents

    def bindings(self, name: cst.Name) -> frozenset[cst.Name] | None:
        """The targets of the plain `name = value` statements whose value this read may see;
        None when jaxfix cannot tell (see the module docstring)."""
        assignments = self._bindings.all(name.value, name)
        if not assignments:
            return None
        targets = frozenset(a.node for a in assignments if isinstance(a.node, cst.Name))
        if len(targets) != len(assignments):
            return None  # a def, class, import, parameter...
        if len(targets) == 1:
            (target,) = targets
            return targets if self.assigned(target) is not None else None
        if any(a.scope is not self._scopes.get(name) for a in assignments):
            return None  # read in a nested function: when it runs is not known
        statement = self._statement_holding(name)
        if statement is None or _binds(statement, targets):
            return None  # `mesh = f(mesh)`, or a loop header that its body rebinds
        found: set[cst.Name] = set()
        current: cst.CSTNode = statement
        while True:
            body = self._parents.get(current)
            if not isinstance(body, (cst.IndentedBlock, cst.Module)):
                return None
            earlier = self._before(body.body[: body.body.index(current)], targets)
            if earlier is None:
                return None
            found |= earlier[0]
            if earlier[1]:
                return frozenset(found)
            compound = self._compound_of(body)
            if compound is None:
                return None  # the start of the function or module: a binding may be missing
            if not isinstance(compound, (cst.If, cst.With)) and _binds(
                compound, targets
            ):
                return None  # a loop (or try, match) that binds it may have run its binding first
            if isinstance(compound, cst.With) and _binds_in(compound.items, targets):
                return None
            current = compound

    def reads(self, targets: frozenset[cst.Name]) -> list[cst.Name]:
        """Every read of the name the `targets` bind that one of them may reach (a read whose
        bindings are unknown counts)."""
        if not targets:
            return []
        first = next(iter(targets))
        found = []
        for node in self._bindings.all_references(first.value, first):
            if isinstance(node, cst.Name):
                reaching = self.bindings(node)
                if reaching is None or reaching & targets:
                    found.append(node)
        return found

    def assigned(self, target: cst.Name) -> cst.BaseExpression | None:
        """The value of the plain `target = value` (or `target: T = value`) statement binding it."""
        parent = self._parents.get(target)
        if isinstance(parent, cst.AssignTarget):
            statement = self._parents.get(parent)
            if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
                return statement.value
        if isinstance(parent, cst.AnnAssign) and parent.target is target:
            return parent.value
        return None

    def _before(
        self, statements: Sequence[cst.CSTNode], targets: frozenset[cst.Name]
    ) -> _Found | None:
        """What running `statements` leaves bound, walking back from their end."""
        found: set[cst.Name] = set()
        for statement in reversed(statements):
            leaves = self._leaves(statement, targets)
            if leaves is None:
                return None
            found |= leaves[0]
            if leaves[1]:
                return frozenset(found), True
        return frozenset(found), False

    def _leaves(
        self, statement: cst.CSTNode, targets: frozenset[cst.Name]
    ) -> _Found | None:
        if not _binds(statement, targets):
            return _NOTHING
        if isinstance(statement, cst.SimpleStatementLine):
            if len(statement.body) != 1:
                return None
            small = statement.body[0]
            target = (
                small.targets[0].target
                if isinstance(small, cst.Assign) and len(small.targets) == 1
                else (
                    small.target
                    if isinstance(small, cst.AnnAssign) and small.value is not None
                    else None
                )
            )
            return (
                (frozenset({target}), True)
                if isinstance(target, cst.Name) and target in targets
                else None
            )
        if isinstance(statement, cst.With):
            return (
                None
                if _binds_in(statement.items, targets)
                else self._before(block(statement.body), targets)
            )
        if isinstance(statement, cst.If):
            if _binds_in(statement.test, targets):
                return None
            taken = self._before(block(statement.body), targets)
            orelse = statement.orelse
            other = (
                _NOTHING
                if orelse is None
                else (
                    self._leaves(orelse, targets)
                    if isinstance(orelse, cst.If)
                    else self._before(block(orelse.body), targets)
                )
            )
            if taken is None or other is None:
                return None
            return taken[0] | other[0], taken[1] and other[1]
        return None

    def _statement_holding(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The statement of a block (the module or an indented block) that holds `node`."""
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(
            self._parents.get(current), (cst.IndentedBlock, cst.Module)
        ):
            current = self._parents.get(current)
        return current

    def _compound_of(self, body: cst.CSTNode) -> cst.CSTNode | None:
        """The compound statement whose part `body` is; None at a function's or the module's top."""
        current = self._parents.get(body)
        while current is not None and not isinstance(
            current, cst.BaseCompoundStatement
        ):
            current = self._parents.get(current)
        if current is None or isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            return None
        # An `else`/`elif` part belongs to the `if` chain's first statement, the one in a block.
        while not isinstance(
            self._parents.get(current), (cst.IndentedBlock, cst.Module)
        ):
            parent = self._parents.get(current)
            if parent is None or isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
                return None
            current = parent
        return current


def _binds(node: cst.CSTNode, targets: frozenset[cst.Name]) -> bool:
    return any(n in targets for n in own_nodes(node))


def _binds_in(
    nodes: cst.CSTNode | Sequence[cst.CSTNode], targets: frozenset[cst.Name]
) -> bool:
    return any(
        _binds(n, targets) for n in (nodes if isinstance(nodes, Sequence) else (nodes,))
    )
