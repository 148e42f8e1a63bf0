"""The value model: what an expression evaluates to, when the module shows it.

Names: one binding (`x = v`, `x: T = v`, `(x := v)`), unpacking (`a, b = 8, 4`,
`a, *rest = sizes`), chained assignment (`a = b = 8`), several bindings that all give the same
value (both branches of an `if`), and a straight run of assignments in one block up to the
use (`n = 8` then `n *= 2`). `self.x` / `cls.x` assigned once in the enclosing class or,
failing that, in a base class defined in the module; `Cls.X` assigned once in the class body
(or a base's). Calls of a function of the module: its return value with the arguments bound
(defaults included), one level deep: the returns its body may reach, where an `if <param>:`,
`if not <param>:`, `if <param> is (not) None:` the arguments decide runs one branch and a
path that raises (`if ...: raise ...`) ends; recursion, `*args`, decorators and functions that
may fall off their end stay unknown. `True`/`False` are bools. Integer arithmetic (`+ - * //
% **`, unary minus), `len()`, tuples and lists (starred elements spliced, `+` concatenation,
`* n` repetition), strings, `AxisType.X`, and the meshes built by `AbstractMesh`,
`jax.make_mesh`, `Mesh` (one axis name may be a string there), `.update(...)`,
`.abstract_mesh` and `jax.sharding.get_abstract_mesh()` (the context mesh where it is called,
when `contexts_at` knows it). `Mesh(devices, names)` takes its sizes from the shape of
`devices` (`jax.devices()[:8]`, `np.array(...)`, `.reshape(...)`, `create_device_mesh(...)`,
`mesh.devices`; see `jaxfix.analysis.devices`); a known mesh's `.size`, `.axis_sizes`,
`.axis_names` and `.shape[name]`, and tuple items and slices, are values too. Across modules
(with a project index, jaxfix/analysis/project.py): names and `module.NAME` attributes bound by
imports of other modules of the tree, evaluated by that module's own model, and calls of
functions defined there (one level, arguments bound by value). Anything else is `Unknown(why)`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import libcst as cst
from libcst.metadata import Assignment, ImportAssignment

from jaxfix.analysis import devices
from jaxfix.analysis.bindings import Bindings
from jaxfix.analysis.bodies import block, is_generator, own_nodes
from jaxfix.analysis.cst_names import ApiResolver, bind, signature_of
from jaxfix.analysis.names import CONCRETE_MESH_UPDATE, MESH_UPDATE, SIGNATURES, Api
from jaxfix.analysis.project import (
    Analysed,
    Definition,
    External,
    ModuleRef,
    ProjectIndex,
    Recorded,
    Resolved,
    materialize,
)
from jaxfix.analysis.syntax import is_none
from jaxfix.analysis.values import (
    AxisType,
    Devices,
    MeshKind,
    MeshValue,
    Unknown,
    Value,
)
from jaxfix.jax_version import axes_explicit_by_default

if TYPE_CHECKING:
    from jaxfix.analysis.contexts import ContextSite

_MAX_DEPTH = 24
_SCOPES = (
    cst.FunctionDef,
    cst.ClassDef,
    cst.Lambda,
    cst.GeneratorExp,
)  # a read in them runs later
_MAX_POWER = 64  # `2 ** n` beyond this is no mesh size
_AXIS_TYPES = {t.value: t for t in AxisType}
_VALUE_ATTRIBUTES = frozenset(
    {"axis_names", "axis_sizes", "size", "devices", "shape"}
)  # see devices.attribute
_DEVICE_APIS = frozenset(
    {
        Api.DEVICES,
        Api.LOCAL_DEVICES,
        Api.NUMPY_ARRAY,
        Api.NUMPY_RESHAPE,
        Api.CREATE_DEVICE_MESH,
    }
)
_ARRAY_METHODS = frozenset({"reshape", "flatten", "ravel"})


@dataclass(frozen=True)
class _Frame:
    """Where an expression is evaluated: the parameters bound by the one followed call (if any)."""

    depth: int = 0
    params: Mapping[cst.Param, Value] = field(default_factory=dict)
    in_call: bool = False  # inside a followed call: calls are not followed further

    def deeper(self) -> _Frame:
        return replace(self, depth=self.depth + 1)


class ValueQuestions(Analysed, Recorded, Protocol):
    """What `ValueModel` asks of a module's analysis to follow imports (this module's, or
    another's whose names it evaluates)."""

    @property
    def project(self) -> ProjectIndex[ValueQuestions] | None: ...

    @property
    def jax_version(self) -> tuple[int, ...] | None: ...

    @property
    def values(self) -> ValueModel: ...

    def imported(self, expr: cst.BaseExpression) -> Resolved | None: ...

    def depends_on(self, path: Path, other: Recorded | None = None) -> None: ...


class ValueModel:
    def __init__(
        self,
        resolver: ApiResolver,
        bindings: Bindings,
        parents: Mapping[cst.CSTNode, cst.CSTNode],
        jax_version: tuple[int, ...] | None,
        current_contexts: Callable[[cst.CSTNode], list[ContextSite]],
        module: ValueQuestions | None = None,
    ) -> None:
        self._resolver = resolver
        self._bindings = bindings
        self._parents = parents
        self._default_abstract_axis = (
            AxisType.EXPLICIT
            if axes_explicit_by_default(jax_version)
            else AxisType.AUTO
        )
        self._current_contexts = current_contexts  # context_mesh_sites(contexts_at(node)), for get_abstract_mesh()
        self._asking: set[cst.Call] = set()
        self._module = module  # follows imports into other modules of the tree, when it has a project index

    # -- where a name leads -----------------------------------------------------------------

    def resolve(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """Follow names and self-attributes to the expression they are bound to, as far as known
        (single bindings only: the expression itself, not a value)."""
        for _ in range(_MAX_DEPTH):
            if isinstance(node, cst.Name):
                value = self._bindings.value(node)
            elif isinstance(node, cst.Attribute):
                value = self._attribute_value(node)
            else:
                value = None
            if value is None:
                return node
            node = value
        return node

    def _attribute_value(self, node: cst.Attribute) -> cst.BaseExpression | None:
        """`self.x` / `cls.x`: the one value assigned to that attribute in the enclosing class, or
        in its nearest base class (defined in this module) that assigns it; `Cls.X`: the one value
        assigned to X in the class body of Cls (or a base's)."""
        if not isinstance(node.value, cst.Name):
            return None
        if node.value.value in ("self", "cls"):
            klass = self._parents.get(node)
            while klass is not None and not isinstance(klass, cst.ClassDef):
                klass = self._parents.get(klass)
            instance = True
        else:
            klass = self._bindings.definition(node.value)
            instance = False
        seen: set[cst.ClassDef] = set()
        while isinstance(klass, cst.ClassDef) and klass not in seen:
            seen.add(klass)
            values = _class_attribute_assignments(
                klass, node.attr.value, instance=instance
            )
            if values:
                return values[0] if len(values) == 1 else None
            klass = self._single_local_base(klass)
        return None

    def _single_local_base(self, klass: cst.ClassDef) -> cst.ClassDef | None:
        """The one base class, when it is a class defined in this module."""
        bases = [b for b in klass.bases if b.keyword is None]
        if len(bases) != 1 or not isinstance(bases[0].value, cst.Name):
            return None
        base = self._bindings.definition(bases[0].value)
        return base if isinstance(base, cst.ClassDef) else None

    # -- values -----------------------------------------------------------------------------

    def value_of(self, node: cst.BaseExpression) -> Value:
        return self._value(node, _Frame())

    def _value(self, node: cst.BaseExpression, frame: _Frame) -> Value:
        if frame.depth > _MAX_DEPTH:
            return Unknown("too deeply nested")
        target = self.resolve(node)
        value = self._evaluate(target, frame)
        name = _reference_text(node)
        if isinstance(value, MeshValue) and name is not None and value.name is None:
            value = replace(value, name=name)
        return value

    def _evaluate(self, node: cst.BaseExpression, frame: _Frame) -> Value:
        inner = frame.deeper()
        if isinstance(node, cst.Integer):
            return int(node.evaluated_value)
        if isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            return text if isinstance(text, str) else Unknown("a bytes literal")
        if isinstance(node, cst.Name):
            if node.value == "None":
                return None
            if node.value in ("True", "False"):
                return node.value == "True"
            return self._name(node, frame)
        if isinstance(node, cst.UnaryOperation) and isinstance(
            node.operator, cst.Minus
        ):
            operand = self._value(node.expression, inner)
            return -operand if isinstance(operand, int) else Unknown("not an integer")
        if isinstance(node, cst.BinaryOperation):
            return _binary(
                node.operator,
                self._value(node.left, inner),
                self._value(node.right, inner),
            )
        if isinstance(node, (cst.Tuple, cst.List)):
            return self._elements(node.elements, inner)
        if isinstance(node, cst.Attribute):
            if (
                node.attr.value in _AXIS_TYPES
                and self._resolver.api(node.value) is Api.AXIS_TYPE
            ):
                return _AXIS_TYPES[node.attr.value]
            if node.attr.value == "abstract_mesh":
                return self._abstract_view(node, inner)
            imported = self._imported_value(node, frame)
            if node.attr.value in _VALUE_ATTRIBUTES and not _is_known(imported):
                own = devices.attribute(
                    self._value(node.value, inner), node.attr.value
                )  # `TRAIN_MESH.size`
                if imported is None or _is_known(own):
                    return own
            if imported is not None:
                return imported
        if isinstance(node, cst.Subscript):
            return self._subscript(node, inner)
        if isinstance(node, cst.Call):
            return self._call(node, frame)
        return Unknown("an expression jaxfix does not evaluate")

    def _elements(self, elements: Sequence[cst.BaseElement], frame: _Frame) -> Value:
        values: list[Value] = []
        for element in elements:
            value = self._value(element.value, frame)
            if isinstance(element, cst.StarredElement):
                if not isinstance(value, tuple):
                    return Unknown("a starred element jaxfix cannot spell out")
                values.extend(value)
            else:
                values.append(value)
        return tuple(values)

    def _abstract_view(self, node: cst.Attribute, frame: _Frame) -> Value:
        base = self._value(node.value, frame)
        if not isinstance(base, MeshValue):
            return Unknown("`.abstract_mesh` of something that is not a known mesh")
        return _abstract_view_of(base, node)

    # -- names with more than one binding, or bound by unpacking ------------------------------

    def _name(self, name: cst.Name, frame: _Frame) -> Value:
        """A name `resolve` could not follow to one expression."""
        definition = self._bindings.definition(name)
        if isinstance(definition, cst.Param):
            return frame.params.get(
                definition, Unknown(f"`{name.value}` is a parameter")
            )
        assignments = self._bindings.all(name.value, name)
        if not assignments:
            return Unknown(f"`{name.value}` is not bound in this module")
        if all(isinstance(a, ImportAssignment) for a in assignments):
            imported = self._imported_value(name, frame)
            return (
                imported
                if imported is not None
                else Unknown(f"`{name.value}` is an import")
            )
        run = self._straight_run(name, assignments, frame)
        if run is not None:
            return run
        latest = self._latest_binding(name, assignments)
        if latest is not None:
            return self._target_value(latest, frame)
        values = [self._target_value(a.node, frame) for a in assignments]
        first = values[0]
        if all(_same_value(first, v) for v in values[1:]):
            return first
        return Unknown(f"`{name.value}` is bound to different values")

    def _straight_run(
        self, name: cst.Name, assignments: Sequence[Assignment], frame: _Frame
    ) -> Value | None:
        """The value after `n = v` then `n += w`, ... when every binding is such a statement of
        the same block and `name` is read in that block after the first of them (the bindings
        before the read; a later one counts too, so the value is not known, when the read runs
        later, in a function, lambda or generator, or again, in a loop); None otherwise."""
        statements = [self._statement_of(a.node) for a in assignments]
        block = self._parents.get(statements[0]) if statements[0] is not None else None
        if not isinstance(block, (cst.Module, cst.IndentedBlock)) or any(
            s is None or self._parents.get(s) is not block for s in statements
        ):
            return None
        use = self._statement_in(name, block)
        position: dict[cst.CSTNode, int] = {
            statement: index for index, statement in enumerate(block.body)
        }
        ordered = sorted({position[s]: s for s in statements if s is not None}.items())
        if use is None:
            return None
        before = [statement for index, statement in ordered if index < position[use]]
        if not before or (
            len(before) < len(ordered) and self._may_read_later(name, block)
        ):
            return None
        value: Value = Unknown("not bound yet")
        for statement in before:
            small = (
                statement.body[0]
                if isinstance(statement, cst.SimpleStatementLine)
                and len(statement.body) == 1
                else None
            )
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and _is_name(small.targets[0].target, name)
            ):
                value = self._value(small.value, frame.deeper())
            elif isinstance(small, cst.AugAssign) and _is_name(small.target, name):
                value = _binary(
                    _OPERATORS.get(type(small.operator)),
                    value,
                    self._value(small.value, frame.deeper()),
                )
            else:
                return None
        return value

    def _may_read_later(self, name: cst.Name, block: cst.CSTNode) -> bool:
        """Whether the read `name` in `block` may run after bindings that follow it there."""
        current = self._parents.get(name)
        while current is not None and current is not block:
            if isinstance(current, (cst.FunctionDef, cst.Lambda, cst.GeneratorExp)):
                return True
            current = self._parents.get(current)
        while current is not None and not isinstance(
            current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)
        ):
            if isinstance(current, (cst.For, cst.While)):
                return True
            current = self._parents.get(current)
        return False

    def _latest_binding(
        self, name: cst.Name, assignments: Sequence[Assignment]
    ) -> cst.CSTNode | None:
        """The binding `name` = ... that every run reaching `name` has just made: the last one
        of the nearest block around `name` (not past its function) that binds it in a simple
        `=` statement before the statement holding `name`, when no statement in between and
        not that statement itself (a loop, a `with ... as`) binds it; None otherwise."""
        bound = {a.node for a in assignments}
        child: cst.CSTNode = name
        block = self._parents.get(name)
        while block is not None and not isinstance(block, _SCOPES):
            if (
                isinstance(block, (cst.IndentedBlock, cst.Module))
                and child in block.body
            ):
                index = block.body.index(child)
                for earlier in reversed(range(index + 1)):
                    binds = [n for n in own_nodes(block.body[earlier]) if n in bound]
                    if not binds:
                        continue
                    statement = block.body[earlier]
                    if (
                        earlier == index
                        or len(binds) != 1
                        or not isinstance(statement, cst.SimpleStatementLine)
                    ):
                        return None
                    plain = len(statement.body) == 1 and isinstance(
                        statement.body[0], (cst.Assign, cst.AnnAssign)
                    )
                    return binds[0] if plain else None
            child, block = block, self._parents.get(block)
        return None

    def _statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The simple statement line that binds `node`."""
        current = self._parents.get(node)
        while current is not None and not isinstance(current, cst.SimpleStatementLine):
            if isinstance(current, cst.BaseCompoundStatement):
                return None
            current = self._parents.get(current)
        return current

    def _statement_in(
        self, node: cst.CSTNode, block: cst.CSTNode
    ) -> cst.CSTNode | None:
        current: cst.CSTNode | None = node
        while current is not None and self._parents.get(current) is not block:
            current = self._parents.get(current)
        return current

    def _target_value(self, target: cst.CSTNode, frame: _Frame) -> Value:
        """The value a binding gives its name: `x = v`, `a = x = v`, `a, (x, *y) = v`, `x: T = v`."""
        path: list[cst.CSTNode] = []
        child, parent = target, self._parents.get(target)
        while isinstance(
            parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)
        ):
            path.append(child)
            child, parent = parent, self._parents.get(parent)
        if isinstance(parent, cst.AssignTarget):
            statement = self._parents.get(parent)
            if not isinstance(statement, cst.Assign):
                return Unknown("an assignment jaxfix does not follow")
            value = self._value(statement.value, frame.deeper())
        elif (
            isinstance(parent, (cst.AnnAssign, cst.NamedExpr))
            and parent.value is not None
            and not path
        ):
            value = self._value(parent.value, frame.deeper())
        else:
            return Unknown(
                "bound by a statement jaxfix does not evaluate (a loop, `with ... as`, an import)"
            )
        for node in reversed(path):  # outermost container first
            container = self._parents.get(node)
            if isinstance(node, (cst.Element, cst.StarredElement)) and isinstance(
                container, (cst.Tuple, cst.List)
            ):
                value = _unpacked(value, container.elements, node)
        return value

    # -- calls ------------------------------------------------------------------------------

    def _call(self, call: cst.Call, frame: _Frame) -> Value:
        api = self._resolver.called_api(call)
        if api is Api.ABSTRACT_MESH:
            return self._abstract_mesh(call, frame)
        if api in (Api.MAKE_MESH, Api.MESH):
            return self._concrete_mesh(call, api, frame)
        if api in _DEVICE_APIS:
            return self._devices(call, api, frame)
        if (
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value in _ARRAY_METHODS
        ):
            array = self._array_method(call, call.func, frame)
            if array is not None:
                return array
        if api is Api.GET_ABSTRACT_MESH and not call.args:
            return self._context_mesh(call)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "update":
            return self._updated(call, call.func, frame)
        if isinstance(call.func, cst.Name):
            if (
                any(
                    q.name == "builtins.len"
                    for q in self._resolver.qualified_names(call.func)
                )
                and len(call.args) == 1
            ):
                sized = self._value(call.args[0].value, frame.deeper())
                return (
                    len(sized)
                    if isinstance(sized, (tuple, str)) and not call.args[0].star
                    else Unknown("len() of an unknown value")
                )
            function = self._bindings.function(call.func)
            if function is not None:
                return self._returned(function, call, frame)
        found = (
            self._imported(call.func) if api is None else None
        )  # a JAX API is no project's function
        if isinstance(found, Unknown):
            return found
        if found is not None:
            if not found.is_plain_function:
                return Unknown(
                    f"`{found.name}` of {found.path.name} is not a function, or is decorated or async"
                )
            project = self._module.project if self._module is not None else None
            external = (
                materialize(project, self._module.jax_version, found)
                if self._module is not None and project is not None
                else None
            )
            if isinstance(external, Unknown):
                return external
            if external is not None and isinstance(external.node, cst.FunctionDef):
                return self._returned(external.node, call, frame, external)
        return Unknown("a call jaxfix does not evaluate")

    def _returned(
        self,
        function: cst.FunctionDef,
        call: cst.Call,
        frame: _Frame,
        external: External[ValueQuestions] | None = None,
    ) -> Value:
        """What a call of a function of this module (or the `external` one) returns, its
        arguments bound, one level deep."""
        if frame.in_call:
            return Unknown("a call inside a followed call (one level only)")
        if function.decorators or function.asynchronous:
            return Unknown(f"`{function.name.value}` is decorated or async")
        given = _given(function, call, lambda arg: self._value(arg, frame.deeper()))
        if isinstance(given, Unknown):
            return given
        if external is None:
            value = self._returns(function, given, frame.depth + 1)
            # A name the function reached it through is the function's own (fixes spell `value.name`).
            return replace(value, name=None) if isinstance(value, MeshValue) else value
        return self._in_module(
            external, lambda values: values._returns(function, given, frame.depth + 1)
        )

    def _returns(
        self, function: cst.FunctionDef, given: Mapping[str, Value], depth: int
    ) -> Value:
        """The value `function` (of this module) returns with its parameters bound to `given`
        (the arguments' values by parameter name) or their defaults."""
        params = self._bound(function, given, depth)
        if isinstance(params, Unknown):
            return params
        if is_generator(function):
            return Unknown(f"`{function.name.value}` is a generator")
        inside = _Frame(depth=depth, params=params, in_call=True)
        returns, falls_through = self._reachable_returns(block(function.body), inside)
        if falls_through or not returns:
            return Unknown(f"`{function.name.value}` may return without a value")
        values = [
            self._value(r.value, inside) if r.value is not None else None
            for r in returns
        ]
        first = values[0]
        return (
            first
            if all(_same_value(first, v) for v in values[1:])
            else Unknown("its returns differ")
        )

    def arguments(
        self,
        function: cst.FunctionDef,
        call: cst.Call,
        evaluate: Callable[[cst.BaseExpression], Value],
    ) -> dict[cst.Param, Value] | Unknown:
        """The values `call` passes to the parameters of `function` (a function of this module),
        defaults included; `evaluate` gives an argument's value where the call is (in its module)."""
        given = _given(function, call, evaluate)
        return given if isinstance(given, Unknown) else self._bound(function, given, 0)

    def _bound(
        self, function: cst.FunctionDef, given: Mapping[str, Value], depth: int
    ) -> dict[cst.Param, Value] | Unknown:
        """Each parameter's value: the one `given` for it, else its default (evaluated here,
        where the function is defined)."""
        params: dict[cst.Param, Value] = {}
        every = (
            *function.params.posonly_params,
            *function.params.params,
            *function.params.kwonly_params,
        )
        for param in every:
            if param.name.value in given:
                params[param] = given[param.name.value]
            elif param.default is not None:
                params[param] = self._value(param.default, _Frame(depth=depth))
            else:
                return Unknown(f"`{param.name.value}` is not passed")
        return params

    def value_with(
        self, node: cst.BaseExpression, params: Mapping[cst.Param, Value]
    ) -> Value:
        """What `node` evaluates to in a run where `params` (of an enclosing function) have these
        values: a decorator factory's or `@contextmanager` function's, from the call that made it."""
        return self._value(node, _Frame(params=params))

    def _reachable_returns(
        self, statements: Sequence[cst.BaseStatement], frame: _Frame
    ) -> tuple[list[cst.Return], bool]:
        """The `return` statements a run of `statements` may reach, and whether it may run past
        their end. An `if` on a parameter whose truth the bound arguments show runs one branch;
        a path that raises ends there; loops and `try` may run any return in them, or none."""
        returns: list[cst.Return] = []
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                last = statement.body[-1]
                if isinstance(last, cst.Return):
                    return [*returns, last], False
                if isinstance(last, cst.Raise):
                    return returns, False
                continue
            if isinstance(statement, cst.If):
                found, falls_through = self._branches(statement, frame)
            elif isinstance(statement, cst.With):
                found, falls_through = self._reachable_returns(
                    block(statement.body), frame
                )
            else:
                found, falls_through = (
                    [n for n in own_nodes(statement) if isinstance(n, cst.Return)],
                    True,
                )
            returns += found
            if not falls_through:
                return returns, False
        return returns, True

    def _branches(
        self, statement: cst.If, frame: _Frame
    ) -> tuple[list[cst.Return], bool]:
        truth = self._truth(statement.test, frame)
        orelse = statement.orelse
        otherwise: Sequence[cst.BaseStatement] = (
            ()
            if orelse is None
            else (orelse,)
            if isinstance(orelse, cst.If)
            else block(orelse.body)
        )
        if truth is True:
            return self._reachable_returns(block(statement.body), frame)
        if truth is False:
            return self._reachable_returns(otherwise, frame)
        taken, falls = self._reachable_returns(block(statement.body), frame)
        other, other_falls = self._reachable_returns(otherwise, frame)
        return [*taken, *other], falls or other_falls

    def _truth(self, test: cst.BaseExpression, frame: _Frame) -> bool | None:
        """Whether `<param>`, `not <param>`, `<param> is None` or `<param> is not None` holds,
        for a parameter bound once whose value the followed call gives; None when unknown."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._truth(test.expression, frame)
            return None if inner is None else not inner
        if (
            isinstance(test, cst.Comparison)
            and len(test.comparisons) == 1
            and is_none(test.comparisons[0].comparator)
        ):
            operator = test.comparisons[0].operator
            if isinstance(operator, (cst.Is, cst.IsNot)):
                value = self._parameter(test.left, frame)
                if isinstance(value, Unknown):
                    return None
                return (value is None) == isinstance(operator, cst.Is)
            return None
        value = self._parameter(test, frame)
        if isinstance(value, (bool, int, str, tuple)) or value is None:
            return bool(value)
        return None

    def _parameter(self, node: cst.BaseExpression, frame: _Frame) -> Value:
        definition = (
            self._bindings.definition(node) if isinstance(node, cst.Name) else None
        )
        if not isinstance(definition, cst.Param) or definition not in frame.params:
            return Unknown("not a bound parameter")
        return frame.params[definition]

    # -- other modules of the tree ----------------------------------------------------------

    def _imported(self, expr: cst.BaseExpression) -> Definition | Unknown | None:
        """What a Name or attribute chain bound by an import denotes in another module of the
        tree (see jaxfix/analysis/project.py); None when it is not reached through an import."""
        if self._module is None or not isinstance(expr, (cst.Name, cst.Attribute)):
            return None
        found = self._module.imported(expr)
        if isinstance(found, ModuleRef):
            return Unknown(f"`{_reference_text(expr) or 'this'}` is a module")
        return found

    def _imported_value(self, expr: cst.BaseExpression, frame: _Frame) -> Value | None:
        if (
            self._resolver.api(expr) is not None
        ):  # a JAX API, known by what it is (in the JAX tree too)
            return Unknown(
                f"`{_reference_text(expr) or 'this'}` is a JAX API, not a value"
            )
        found = self._imported(expr)
        if found is None or isinstance(found, Unknown):
            return found
        if not found.is_value:
            return Unknown(
                f"`{found.name}` is a function or class of {found.path.name}"
            )
        assert (
            self._module is not None and self._module.project is not None
        )  # `imported` followed the index
        external = materialize(self._module.project, self._module.jax_version, found)
        if isinstance(external, Unknown):
            return external
        node = external.node
        assert isinstance(
            node, cst.BaseExpression
        )  # a value's node is the expression or the bound Name
        return self._in_module(
            external, lambda values: values._value(node, _Frame(depth=frame.depth + 1))
        )

    def _in_module(
        self,
        external: External[ValueQuestions],
        question: Callable[[ValueModel], Value],
    ) -> Value:
        """Ask `external`'s module `question`, unless that is part of an import cycle; the
        answer's files become this module's dependencies."""
        other = external.analysis
        project = other.project
        assert (
            project is not None and self._module is not None
        )  # the index made `other`
        with project.entering(external.path, external.name) as allowed:
            value = (
                question(other.values)
                if allowed
                else Unknown(
                    f"`{external.name}` of {external.path.name} is part of an import cycle"
                )
            )
        self._module.depends_on(external.path, other)
        # A name that module reached it through means nothing here (fixes spell `value.name`).
        return replace(value, name=None) if isinstance(value, MeshValue) else value

    def _context_mesh(self, call: cst.Call) -> Value:
        """`get_abstract_mesh()`: the abstract mesh of the one context mesh in force here."""
        if call in self._asking:
            return Unknown("the context mesh depends on itself")
        self._asking.add(call)
        try:
            sites = self._current_contexts(call)
        finally:
            self._asking.discard(call)
        meshes = [s.mesh for s in sites]
        if not meshes or not all(isinstance(m, MeshValue) for m in meshes):
            return Unknown("the context mesh is not known here")
        views = [_abstract_view_of(m, call) for m in meshes if isinstance(m, MeshValue)]
        first = views[0]
        return (
            first
            if all(first.equals(v) for v in views[1:])
            else Unknown("the context mesh differs by caller")
        )

    # -- meshes -----------------------------------------------------------------------------

    def _abstract_mesh(self, call: cst.Call, frame: _Frame) -> Value:
        args = bind(call, SIGNATURES[Api.ABSTRACT_MESH])
        if args is None:
            return Unknown("AbstractMesh(...) with arguments jaxfix cannot bind")
        sizes = self._sizes(args.get("axis_sizes"), frame)
        names = self._names(args.get("axis_names"), frame)
        types = self._types_or_default(
            args.get("axis_types"), names, sizes, self._default_abstract_axis, frame
        )
        device = args.get("abstract_device")
        return MeshValue(
            kind=MeshKind.ABSTRACT,
            axis_names=names,
            axis_sizes=sizes,
            axis_types=types,
            has_abstract_device=device is not None and not is_none(device),
            node=call,
        )

    def _concrete_mesh(self, call: cst.Call, api: Api, frame: _Frame) -> Value:
        """`jax.make_mesh(sizes, names, ...)` (axes Explicit by default), or `Mesh(devices, names)`
        whose sizes are the shape of `devices` (axes Auto by default; both checked on jax 0.10.2
        and 0.12.0.1)."""
        args = bind(call, SIGNATURES[api])
        if args is None:
            return Unknown(f"{api.value}(...) with arguments jaxfix cannot bind")
        if api is Api.MAKE_MESH:
            sizes = self._sizes(args.get("axis_shapes", args.get("axis_sizes")), frame)
        else:
            sizes = self._device_shape(args.get("devices"), frame)
        names = self._names(args.get("axis_names"), frame, one_name=True)
        if (
            api is Api.MESH
            and sizes is not None
            and names is not None
            and len(sizes) != len(names)
        ):
            return Unknown(
                "Mesh(...) with as many axis names as device dimensions (JAX raises)"
            )
        default = AxisType.EXPLICIT if api is Api.MAKE_MESH else AxisType.AUTO
        types = self._types_or_default(
            args.get("axis_types"), names, sizes, default, frame
        )
        return MeshValue(
            kind=MeshKind.CONCRETE,
            axis_names=names,
            axis_sizes=sizes,
            axis_types=types,
            has_abstract_device=True,
            node=call,
        )

    def _updated(self, call: cst.Call, func: cst.Attribute, frame: _Frame) -> Value:
        """`abstract.update(axis_sizes, axis_names, axis_types)`, `concrete.update(devices, ...)`."""
        base = self._value(func.value, frame.deeper())
        if not isinstance(base, MeshValue):
            return Unknown("`.update(...)` of something that is not a known mesh")
        args = bind(call, MESH_UPDATE if base.is_abstract else CONCRETE_MESH_UPDATE)
        if args is None:
            return Unknown("`.update(...)` with arguments jaxfix cannot bind")
        if base.is_abstract:
            sizes = (
                self._sizes(args["axis_sizes"], frame)
                if "axis_sizes" in args
                else base.axis_sizes
            )
        else:
            sizes = (
                self._device_shape(args["devices"], frame)
                if "devices" in args
                else base.axis_sizes
            )
        names = (
            self._names(args["axis_names"], frame)
            if "axis_names" in args
            else base.axis_names
        )
        types = (
            self._types(args["axis_types"], frame)
            if "axis_types" in args
            else base.axis_types
        )
        return replace(
            base,
            axis_names=names,
            axis_sizes=sizes,
            axis_types=types,
            node=call,
            name=None,
        )

    # -- devices ----------------------------------------------------------------------------

    def _devices(self, call: cst.Call, api: Api, frame: _Frame) -> Value:
        """`jax.devices()`, `np.array(devices)`, `np.reshape(devices, shape)`,
        `mesh_utils.create_device_mesh(shape, devices)`: see `jaxfix.analysis.devices`."""
        if api in (Api.DEVICES, Api.LOCAL_DEVICES):
            return Devices((None,), is_array=False)
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keywords = {
            a.keyword.value: a.value for a in call.args if a.keyword is not None
        }
        if api is Api.CREATE_DEVICE_MESH:
            args = bind(call, SIGNATURES[api])
            shape = self._sizes(args.get("mesh_shape"), frame) if args else None
            if shape is None or args is None:
                return Unknown(
                    "create_device_mesh(...) of a shape jaxfix cannot spell out"
                )
            given = (
                self._value(args["devices"], frame.deeper())
                if "devices" in args
                else None
            )
            return (
                devices.reshaped(given, shape)
                if isinstance(given, Devices)
                else Devices(shape, is_array=True)
            )
        if any(a.star for a in call.args) or not positional:
            return Unknown(f"{api.value}(...) with arguments jaxfix does not follow")
        given = self._value(positional[0], frame.deeper())
        if not isinstance(given, Devices):
            return Unknown(f"{api.value}(...) of something that is not known devices")
        if api is Api.NUMPY_ARRAY:
            if len(positional) > 1 or set(keywords) - {"dtype", "copy", "order"}:
                return Unknown("np.array(...) with arguments that may change its shape")
            return replace(given, is_array=True)
        new_shape = (
            positional[1]
            if len(positional) == 2
            else keywords.get("shape", keywords.get("newshape"))
        )
        if (
            new_shape is None
            or len(positional) > 2
            or set(keywords) - {"shape", "newshape", "order"}
        ):
            return Unknown("np.reshape(...) with arguments jaxfix does not follow")
        return devices.reshaped(given, self._value(new_shape, frame.deeper()))

    def _array_method(
        self, call: cst.Call, func: cst.Attribute, frame: _Frame
    ) -> Value | None:
        """`.reshape(2, 4)`, `.reshape((2, 4))`, `.reshape(*dims)`, `.flatten()`, `.ravel()` of
        a device array; None when the receiver is not one (a NumPy array's methods only)."""
        receiver = self._value(func.value, frame.deeper())
        if not isinstance(receiver, Devices) or not receiver.is_array:
            return None
        if any(a.keyword is not None and a.keyword.value != "order" for a in call.args):
            return Unknown(
                f"`.{func.attr.value}(...)` with arguments jaxfix does not follow"
            )
        args = [a for a in call.args if a.keyword is None]
        if func.attr.value != "reshape":
            return (
                devices.flattened(receiver)
                if not args
                else Unknown("`.flatten(...)` with an argument")
            )
        if len(args) == 1 and not args[0].star:
            return devices.reshaped(
                receiver, self._value(args[0].value, frame.deeper())
            )
        dims: list[Value] = []
        for arg in args:
            value = self._value(arg.value, frame.deeper())
            if arg.star == "*" and isinstance(value, tuple):
                dims.extend(value)
            elif not arg.star:
                dims.append(value)
            else:
                return Unknown(
                    "`.reshape(*dims)` of dimensions jaxfix cannot spell out"
                )
        return devices.reshaped(receiver, tuple(dims))

    def _device_shape(
        self, node: cst.BaseExpression | None, frame: _Frame
    ) -> tuple[int | None, ...] | None:
        """The shape of the devices `Mesh(devices, ...)` is given, or None when they are not known."""
        value = self._value(node, frame.deeper()) if node is not None else None
        return value.shape if isinstance(value, Devices) else None

    def _subscript(self, node: cst.Subscript, frame: _Frame) -> Value:
        """`mesh.shape["x"]`, `sizes[0]`, `sizes[1:]`, `jax.devices()[:8]` (one index or slice)."""
        if len(node.slice) != 1:
            return Unknown("a subscript with several indices")
        index = node.slice[0].slice
        if isinstance(index, cst.Slice):
            if index.step is not None:
                return Unknown("a slice with a step")
            bounds = [
                self._value(b, frame) if b is not None else None
                for b in (index.lower, index.upper)
            ]
            return devices.sliced(self._value(node.value, frame), bounds[0], bounds[1])
        if not isinstance(index, cst.Index) or index.star is not None:
            return Unknown("a subscript jaxfix does not evaluate")
        key = self._value(index.value, frame)
        if (
            isinstance(node.value, cst.Attribute)
            and node.value.attr.value == "shape"
            and isinstance(key, str)
        ):
            return devices.axis_size(self._value(node.value.value, frame), key)
        return devices.item(self._value(node.value, frame), key)

    def _sizes(
        self, node: cst.BaseExpression | None, frame: _Frame
    ) -> tuple[int | None, ...] | None:
        value = self._value(node, frame.deeper()) if node is not None else None
        if not isinstance(value, tuple):
            return None
        return tuple(v if isinstance(v, int) else None for v in value)

    def _names(
        self, node: cst.BaseExpression | None, frame: _Frame, *, one_name: bool = False
    ) -> tuple[str, ...] | None:
        """Axis names; with `one_name`, a string is one axis (`make_mesh((2,), 'x')` and
        `Mesh(devices, 'x')` have axis_names ('x',) on jax 0.10.2 and 0.12.0.1)."""
        value = self._value(node, frame.deeper()) if node is not None else None
        if one_name and isinstance(value, str):
            return (value,)
        if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
            return None
        return tuple(str(v) for v in value)

    def _types(
        self, node: cst.BaseExpression, frame: _Frame
    ) -> tuple[AxisType, ...] | None:
        value = self._value(node, frame.deeper())
        if not isinstance(value, tuple) or not all(
            isinstance(v, AxisType) for v in value
        ):
            return None
        return tuple(v for v in value if isinstance(v, AxisType))

    def _types_or_default(
        self,
        node: cst.BaseExpression | None,
        names: tuple[str, ...] | None,
        sizes: tuple[int | None, ...] | None,
        default: AxisType,
        frame: _Frame,
    ) -> tuple[AxisType, ...] | None:
        if node is not None and not is_none(node):
            return self._types(node, frame)
        count = (
            len(names)
            if names is not None
            else (len(sizes) if sizes is not None else None)
        )
        return None if count is None else (default,) * count


_OPERATORS: dict[type[cst.BaseAugOp], cst.BaseBinaryOp] = {
    cst.AddAssign: cst.Add(),
    cst.SubtractAssign: cst.Subtract(),
    cst.MultiplyAssign: cst.Multiply(),
    cst.FloorDivideAssign: cst.FloorDivide(),
    cst.ModuloAssign: cst.Modulo(),
    cst.PowerAssign: cst.Power(),
}


def _binary(op: cst.BaseBinaryOp | None, left: Value, right: Value) -> Value:
    if isinstance(left, int) and isinstance(right, int):
        if isinstance(op, cst.Add):
            return left + right
        if isinstance(op, cst.Subtract):
            return left - right
        if isinstance(op, cst.Multiply):
            return left * right
        if isinstance(op, cst.FloorDivide) and right:
            return left // right
        if isinstance(op, cst.Modulo) and right:
            return left % right
        if isinstance(op, cst.Power) and 0 <= right <= _MAX_POWER:
            return int(left**right)
    if isinstance(op, cst.Add) and isinstance(left, tuple) and isinstance(right, tuple):
        return left + right
    if isinstance(op, cst.Multiply):
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, tuple) and isinstance(times, int):
                return seq * times
    return Unknown("an operation jaxfix does not evaluate")


def _unpacked(
    value: Value, targets: Sequence[cst.BaseElement], target: cst.CSTNode
) -> Value:
    """The part of `value` that `target` (one of `targets`, maybe starred) receives."""
    if not isinstance(value, tuple):
        return Unknown("unpacks a value jaxfix cannot spell out")
    index = list(targets).index(target)  # type: ignore[arg-type]  # target is one of the elements
    stars = [i for i, t in enumerate(targets) if isinstance(t, cst.StarredElement)]
    if not stars:
        return (
            value[index]
            if len(value) == len(targets)
            else Unknown("unpacks a value of another length")
        )
    star = stars[0]
    after = len(targets) - star - 1
    if len(value) < len(targets) - 1:
        return Unknown("unpacks a value of another length")
    if index < star:
        return value[index]
    if index == star:
        return value[star : len(value) - after]
    return value[len(value) - (len(targets) - index)]


def _same_value(a: Value, b: Value) -> bool:
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    if isinstance(a, MeshValue) or isinstance(b, MeshValue):
        return (
            isinstance(a, MeshValue)
            and isinstance(b, MeshValue)
            and a.equals(b) is True
        )
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, Devices) and a.count is None:
        return False  # `jax.devices()` and `jax.local_devices()` may differ
    return type(a) is type(b) and a == b


def _abstract_view_of(mesh: MeshValue, node: cst.CSTNode) -> MeshValue:
    """What `mesh.abstract_mesh` is: the mesh itself when abstract, else an abstract mesh of the
    same shape carrying the concrete mesh's abstract device."""
    if mesh.is_abstract:
        return mesh
    return replace(
        mesh, kind=MeshKind.ABSTRACT, has_abstract_device=True, node=node, name=None
    )


def _given(
    function: cst.FunctionDef,
    call: cst.Call,
    evaluate: Callable[[cst.BaseExpression], Value],
) -> dict[str, Value] | Unknown:
    """The values of the arguments `call` passes to `function`, by parameter name."""
    signature = signature_of(function)
    args = bind(call, signature) if signature is not None else None
    if args is None:
        return Unknown(f"the arguments of `{function.name.value}(...)` cannot be bound")
    return {name: evaluate(arg) for name, arg in args.items()}


def _is_known(value: Value | None) -> bool:
    return value is not None and not isinstance(value, Unknown)


def _is_name(node: cst.BaseExpression, name: cst.Name) -> bool:
    return isinstance(node, cst.Name) and node.value == name.value


def _reference_text(node: cst.BaseExpression) -> str | None:
    """'mesh' for a Name, 'self.mesh' for a simple attribute chain; None otherwise."""
    if isinstance(node, cst.Name):
        return node.value
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.attr.value != "abstract_mesh"
    ):
        return f"{node.value.value}.{node.attr.value}"
    return None


def _class_attribute_assignments(
    klass: cst.ClassDef, attr: str, *, instance: bool
) -> list[cst.BaseExpression]:
    """Values assigned to `<attr>` in the class body and, for `instance`, to `self.<attr>` /
    `cls.<attr>` in its methods."""
    found: list[cst.BaseExpression] = []

    def is_target(target: cst.BaseExpression) -> bool:
        return (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value in ("self", "cls")
            and target.attr.value == attr
        )

    class Collector(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return node is klass

        def visit_Assign(self, node: cst.Assign) -> None:
            found.extend(
                node.value for target in node.targets if is_target(target.target)
            )

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None and is_target(node.target):
                found.append(node.value)

    if instance:
        klass.visit(Collector())
    for statement in klass.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and target.value == attr:
                        found.append(small.value)
    return found
