"""The argument that carried a mesh down the run's calls to the out_sharding of a gather.

A gather's out_sharding is often made deep in a helper, on a mesh its caller passes
(`gather_params_for_decoding(params, config, decode_mesh)`, the helper making
`NamedSharding(mesh, spec)`), while that caller runs it under `with jax.set_mesh(E):`. When
JAX raises its context-mesh error, the place to change is that argument, in the function that
entered the context: the run's frames say which argument it was (where the out_sharding's mesh
was built, followed from name to parameter along the calls the run went through), and the
code says that the helpers take it only into `NamedSharding` meshes made before the gather.
"""

from __future__ import annotations

import ast
from pathlib import Path

from jaxfix.analysis.ast_engine.evaluate import Evaluator
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import BoundMethod, Function, Unknown
from jaxfix.analysis.ast_engine.vocabulary import api_of
from jaxfix.analysis.ast_engine.written_at import PassedBy, assigns, bound_at
from jaxfix.analysis.names import Api

Frames = tuple[tuple[Path, int], ...]
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def out_mesh_passed_by(
    evaluator: Evaluator, raised: Frames, built: Frames, entered: Frames
) -> PassedBy | Unknown:
    """For a context-mesh error raised along `raised` (the run's frames, outermost first),
    whose out_sharding's mesh the run built along `built` and whose context mesh it entered
    along `entered`: the argument, in the call the run made inside that `with` (in the
    function that entered it), whose value is the mesh built there. It is a name the
    function assigns once, on the line the run built the mesh, or a parameter the run's
    callers passed down that way; the function called takes it only into the meshes of
    `NamedSharding`s made before the call the run went on through, or passes it on along the
    run's calls where the same holds."""
    if not entered or len(raised) < 2:
        return Unknown("the run noted no call from where the context was entered")
    where, line = entered[-1]
    module = evaluator.module(where)
    if isinstance(module, Unknown):
        return module
    block = _entered_block(module, line)
    if block is None:
        return Unknown(f"line {module.path.name}:{line} enters no `with` block")
    depth = _depth(block, raised, entered)
    if depth is None:
        return Unknown("the run did not call the gather from inside that `with` block")
    step = _callee(evaluator, module, raised[depth][1], raised[depth + 1])
    if isinstance(step, Unknown):
        return step
    function, bound = step
    carrying = [
        (parameter, argument)
        for parameter, argument in bound.items()
        if _enclosing(module, argument) is _enclosing(module, block)
        and (
            isinstance(argument, ast.Name)
            and _built_into(evaluator, module, argument, raised, depth, built)
            or isinstance(argument, ast.Attribute)
            and _stored_where_built(module, argument, built)
        )
    ]
    if len(carrying) != 1:
        return Unknown("no one argument of that call carries the mesh the run built")
    parameter, argument = carrying[0]
    if not _into_shardings(evaluator, function, parameter, raised[depth + 1 :]):
        return Unknown(
            f"`{function.name}` reads `{parameter}` other than as the mesh of an "
            "out_sharding made before the gather"
        )
    return PassedBy(module, argument, function.name, parameter)


def context_named(
    evaluator: Evaluator, raised: Frames, entered: Frames, built: Frames
) -> ast.expr | None:
    """The mesh the `with` the run entered the context in (on `entered[-1]`'s line, around
    the call it made along `raised`) is given, as its code names it: the one argument of
    that call, a name or `self.x` that holds the mesh the run built along `built` (as the
    argument that carried the out_sharding's mesh is proved); else None."""
    if not entered:
        return None
    where, line = entered[-1]
    module = evaluator.module(where)
    if isinstance(module, Unknown):
        return None
    block = _entered_block(module, line)
    depth = _depth(block, raised, entered) if block is not None else None
    if block is None or depth is None:
        return None
    calls = [
        item.context_expr
        for item in block.items
        if item.context_expr.lineno
        <= line
        <= (item.context_expr.end_lineno or item.context_expr.lineno)
    ]
    call = calls[0] if len(calls) == 1 else None
    if not isinstance(call, ast.Call) or len(call.args) != 1 or call.keywords:
        return None
    given = call.args[0]
    if isinstance(given, ast.Name) and _built_into(
        evaluator, module, given, raised, depth, built
    ):
        return given
    if isinstance(given, ast.Attribute) and _stored_where_built(module, given, built):
        return given
    return None


def entered_as_built(
    evaluator: Evaluator, entered: Frames, built: Frames
) -> tuple[Module, ast.With, ast.expr] | None:
    """The `with` the run entered a mesh in (on `entered[-1]`'s line) and the one argument
    of its setter, when that is a name or `self.x` holding the mesh the run built along
    `built` (proved as `context_named` proves it); else None."""
    if not entered:
        return None
    where, line = entered[-1]
    module = evaluator.module(where)
    if isinstance(module, Unknown):
        return None
    block = _entered_block(module, line)
    calls = [
        item.context_expr
        for item in (block.items if block is not None else [])
        if item.context_expr.lineno
        <= line
        <= (item.context_expr.end_lineno or item.context_expr.lineno)
    ]
    call = calls[0] if len(calls) == 1 else None
    if (
        block is None
        or not isinstance(call, ast.Call)
        or len(call.args) != 1
        or call.keywords
    ):
        return None
    given = call.args[0]
    if (
        isinstance(given, ast.Name)
        and _built_into(evaluator, module, given, entered, len(entered) - 1, built)
    ) or (
        isinstance(given, ast.Attribute) and _stored_where_built(module, given, built)
    ):
        return module, block, given
    return None


def mesh_read_in_block(
    evaluator: Evaluator, raised: Frames, entered: Frames, built: Frames
) -> ast.expr | None:
    """A reference read in the `with` the run entered the context in (on `entered[-1]`'s
    line, around the call it made along `raised`, or the gather), in its function, that
    holds the mesh the run built along `built` (a name or `self.x`, proved as
    `context_named` proves the entered one): the one spelling of such reads; None when
    there is none or several, or the block assigns it."""
    if not entered:
        return None
    where, line = entered[-1]
    module = evaluator.module(where)
    if isinstance(module, Unknown):
        return None
    block = _entered_block(module, line)
    depth = _depth(block, raised, entered, raising=True) if block is not None else None
    if block is None or depth is None:
        return None
    function = _enclosing(module, block)
    held: dict[str, ast.expr] = {}
    for statement in block.body:
        for node in ast.walk(statement):
            if not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(
                node.ctx, ast.Load
            ):
                continue
            if _enclosing(module, node) is not function:
                continue
            if (
                isinstance(node, ast.Name)
                and _built_into(evaluator, module, node, raised, depth, built)
            ) or (
                isinstance(node, ast.Attribute)
                and _stored_where_built(module, node, built)
            ):
                held.setdefault(ast.unparse(node), node)
    if len(held) != 1:
        return None
    ((text, read),) = held.items()
    stored = any(
        isinstance(node, (ast.Name, ast.Attribute))
        and not isinstance(node.ctx, ast.Load)
        and ast.unparse(node) == text
        for statement in block.body
        for node in ast.walk(statement)
    )
    return None if stored else read


def _depth(
    block: ast.With, raised: Frames, entered: Frames, *, raising: bool = False
) -> int | None:
    """The index of the frame of `raised` that is the call the run made inside `block`,
    whose outer frames are those that entered it (with `raising`, it may be the raising
    frame itself)."""
    where = entered[-1][0]
    return next(
        (
            k
            for k in range(len(raised) - (0 if raising else 1))
            if _same(raised[k][0], where)
            and block.body[0].lineno
            <= raised[k][1]
            <= (block.end_lineno or block.lineno)
            and _agree(raised[:k], entered[:-1])
        ),
        None,
    )


def _same(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


def _agree(inner: Frames, outer: Frames) -> bool:
    """Whether two runs of frames (outermost first) are the same calls as far as both go,
    counted from their innermost (the recorder keeps the innermost frames of a deep stack)."""
    return all(
        _same(a[0], b[0]) and a[1] == b[1]
        for a, b in zip(reversed(inner), reversed(outer), strict=False)
    )


def _entered_block(module: Module, line: int) -> ast.With | None:
    """The `with` whose context expression the run entered on `line`."""
    blocks = [
        block
        for block in module.withs
        if isinstance(block, ast.With)
        and any(
            item.context_expr.lineno
            <= line
            <= (item.context_expr.end_lineno or item.context_expr.lineno)
            for item in block.items
        )
    ]
    return blocks[0] if len(blocks) == 1 else None


def _enclosing(module: Module, node: ast.AST) -> ast.AST | None:
    parent = module.parents.get(node)
    while parent is not None and not isinstance(parent, (*_FUNCTIONS, ast.ClassDef)):
        parent = module.parents.get(parent)
    return parent


def _callee(
    evaluator: Evaluator, module: Module, line: int, inner: tuple[Path, int]
) -> tuple[ast.FunctionDef, dict[str, ast.expr]] | Unknown:
    """The function of the tree a call on `line` of `module` runs, whose body holds the next
    frame `inner`, and the arguments that call binds to its parameters."""
    functions = {
        callee.node
        for call in module.calls
        if call.lineno <= line <= (call.end_lineno or call.lineno)
        for callee in [_function(evaluator.value_of(module, call.func))]
        if callee is not None
        and _same(callee.path, inner[0])
        and isinstance(callee.node, ast.FunctionDef)
        and callee.node.lineno <= inner[1] <= (callee.node.end_lineno or 0)
    }
    if len(functions) != 1:
        return Unknown(
            f"line {module.path.name}:{line} calls no one function the run entered"
        )
    (function,) = functions
    assert isinstance(function, ast.FunctionDef)
    bound = bound_at(evaluator, module, line, function)
    return bound if isinstance(bound, Unknown) else (function, bound)


def _function(value: object) -> Function | None:
    if isinstance(value, BoundMethod):
        return value.function
    return value if isinstance(value, Function) else None


def _built_into(
    evaluator: Evaluator,
    module: Module,
    name: ast.Name,
    raised: Frames,
    depth: int,
    built: Frames,
) -> bool:
    """Whether `name`, read in the call the run made at `raised[depth]`, holds the mesh the
    run built along `built`: assigned once in its function by the statement the run built it
    in (the frames outside agreeing), or a parameter of its function, never assigned, that
    the call one frame out passes the same way."""
    function = _enclosing(module, name)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    stores = [
        node
        for node in ast.walk(function)
        if isinstance(node, ast.Name)
        and node.id == name.id
        and not isinstance(node.ctx, ast.Load)
    ]
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(function)):
        return False
    parameters = [
        a.arg
        for a in (
            *function.args.posonlyargs,
            *function.args.args,
            *function.args.kwonlyargs,
        )
    ]
    if len(stores) == 1 and name.id not in parameters:
        statement = module.parents.get(stores[0])
        if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or not any(
            target is stores[0]
            for target in (
                statement.targets
                if isinstance(statement, ast.Assign)
                else [statement.target]
            )
        ):
            return False
        return any(
            _same(path, module.path)
            and statement.lineno <= line <= (statement.end_lineno or statement.lineno)
            and _agree(raised[:depth], built[:index])
            for index, (path, line) in enumerate(built)
        )
    if (
        stores
        or name.id not in parameters
        or depth == 0
        or not isinstance(function, ast.FunctionDef)
    ):
        return False
    outer_path, outer_line = raised[depth - 1]
    outer = evaluator.module(outer_path)
    if isinstance(outer, Unknown):
        return False
    bound = bound_at(evaluator, outer, outer_line, function)
    passed = None if isinstance(bound, Unknown) else bound.get(name.id)
    return isinstance(passed, ast.Name) and _built_into(
        evaluator, outer, passed, raised, depth - 1, built
    )


def _stored_where_built(module: Module, read: ast.Attribute, built: Frames) -> bool:
    """Whether `read`, `self.x` in a method, holds the mesh the run built along `built`: the
    module stores `.x` once, as `self.x = value` in a method of the same class, by the
    statement the run built the mesh in."""
    method = _enclosing(module, read)
    owner = module.parents.get(method) if method is not None else None
    if (
        not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
        or not isinstance(owner, ast.ClassDef)
        or not _on_first_parameter(read, method)
    ):
        return False
    stores = module.attribute_stores(read.attr)
    if len(stores) != 1:
        return False
    store = stores[0]
    statement = module.parents.get(store)
    storing = _enclosing(module, store)
    if (
        not isinstance(statement, ast.Assign)
        or statement.targets != [store]
        or not isinstance(storing, (ast.FunctionDef, ast.AsyncFunctionDef))
        or module.parents.get(storing) is not owner
        or not _on_first_parameter(store, storing)
    ):
        return False
    return any(
        _same(path, module.path)
        and statement.lineno <= line <= (statement.end_lineno or statement.lineno)
        for path, line in built
    )


def _on_first_parameter(
    node: ast.Attribute, method: ast.FunctionDef | ast.AsyncFunctionDef
) -> bool:
    """Whether `node` is an attribute of its method's first parameter (`self.x`)."""
    first = [*method.args.posonlyargs, *method.args.args][:1]
    return (
        isinstance(node.value, ast.Name)
        and bool(first)
        and node.value.id == first[0].arg
        and not method.decorator_list
    )


def _into_shardings(
    evaluator: Evaluator, function: ast.FunctionDef, parameter: str, raised: Frames
) -> bool:
    """Whether `function` (run at `raised[0]`) never assigns `parameter` (nor shadows it in
    a nested function) and reads it only as the mesh of a `NamedSharding(...)` made before
    the line the run went on from, or as an argument of the call there that the next
    function of `raised` takes the same way."""
    module = evaluator.module(raised[0][0])
    if isinstance(module, Unknown) or assigns(function, parameter):
        return False
    line = raised[0][1]
    for node in ast.walk(function):
        if isinstance(node, _FUNCTIONS) and node is not function:
            nested = node.args
            if parameter in [
                a.arg
                for a in (
                    *nested.posonlyargs,
                    *nested.args,
                    *nested.kwonlyargs,
                    *[a for a in (nested.vararg, nested.kwarg) if a is not None],
                )
            ]:
                return False
    reads = [
        node
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and node.id == parameter
    ]
    if not reads:
        return False
    for read in reads:
        call = module.parents.get(read)
        if not isinstance(call, ast.Call):
            return False
        if (
            _meshed(evaluator, module, call, read)
            and (call.end_lineno or call.lineno) <= line
        ):
            continue
        if len(raised) < 2 or not call.lineno <= line <= (
            call.end_lineno or call.lineno
        ):
            return False
        step = _callee(evaluator, module, line, raised[1])
        if isinstance(step, Unknown):
            return False
        inner, bound = step
        taken = [p for p, argument in bound.items() if argument is read]
        if len(taken) != 1 or not _into_shardings(
            evaluator, inner, taken[0], raised[1:]
        ):
            return False
    return True


def _meshed(
    evaluator: Evaluator, module: Module, call: ast.Call, read: ast.Name
) -> bool:
    """Whether `call` is JAX's `NamedSharding` and `read` the mesh it is given."""
    name = getattr(evaluator.value_of(module, call.func), "name", None)
    if not isinstance(name, str) or api_of(name) is not Api.NAMED_SHARDING:
        return False
    given = call.args[0] if call.args else None
    for keyword in call.keywords:
        if keyword.arg == "mesh":
            given = keyword.value
    return given is read
