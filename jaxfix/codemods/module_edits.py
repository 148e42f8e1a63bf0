"""A fix's edit of another module of the project: where a rule proves that the value a raising
line reads is written (a constant, a dataclass field's default, a construction's keyword), in
a module other than the one it reports in.

The edit is made as a `DataEdit` of that module's file: the bytes of the node become the text
the edit's LibCST replacement writes, kept only while the file holds the bytes the engine read
(jaxfix/write/data_edits.py writes it after the Python files, shows it in `--diff` and
`--dry-run`, and refuses two fixes that change one place differently). The diagnostic stays
where the error is raised: a file's findings are the same whichever paths the run was given.
"""

from __future__ import annotations

import ast
import hashlib
import itertools
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.contexts import MAPS_AT_ONCE, Contexts
from jaxfix.analysis.ast_engine.values import (
    BoundMethod,
    Class,
    External,
    Function,
    Instance,
    Unknown,
)
from jaxfix.analysis.ast_engine.vocabulary import api_of
from jaxfix.analysis.names import Api
from jaxfix.ground.diagnostics import DataEdit

_CALLER_LEVELS = (
    4  # callers of callers asked (as the mesh contexts are); deeper: no fix
)
_HOLDERS = 4  # objects holding objects that hold the mesh, followed; deeper: no fix
# What keeps the mesh (or the sharding, the array) it is given, and gives it on.
_KEEPS = frozenset(
    {
        Api.NAMED_SHARDING,
        Api.DEVICE_PUT,
        Api.SHAPE_DTYPE_STRUCT,
        Api.MAKE_ARRAY_FROM_CALLBACK,
        Api.MAKE_ARRAY_FROM_SINGLE_DEVICE_ARRAYS,
        Api.MAKE_ARRAY_FROM_PROCESS_LOCAL_DATA,
    }
)

if TYPE_CHECKING:
    from pathlib import Path

    from jaxfix.analysis.ast_engine.evaluate import Evaluator
    from jaxfix.analysis.ast_engine.project import Module
    from jaxfix.ground.diagnostics import Edit


def read_once(evaluator: Evaluator, built_at: tuple[tuple[Path, int], ...]) -> bool:
    """Whether the mesh built along `built_at` (`Mesh.built_at`, outermost call first) goes
    one way from its outermost call (`_goes_one_way`): that call is an argument or an item
    as written, or the value of a local name its function reads once, and so is every
    object that keeps it on the way. A mesh kept by a name read twice
    (or by an attribute, a global) may reach code that works with its size, which a
    change where its sizes are written would break. Of a line of several calls, the
    outermost call is the one whose function (or class) runs the next frame, or the read
    of a property whose getter runs it (`NamedSharding(config.mesh, spec)`, of an object a
    local name holds that its function reads there alone); a method of the object it
    builds returning that object (`Model(cfg).shard_model()`) passes it on."""
    if not built_at:
        return False
    path, line = built_at[0]
    module = evaluator.module(path)
    if isinstance(module, Unknown):
        return False
    on_line = [c for c in module.calls if c.lineno == line]
    calls: list[ast.expr] = list(on_line)
    if len(on_line) != 1 and len(built_at) > 1:
        calls = [
            *(c for c in on_line if _runs(evaluator, module, c, built_at[1])),
            *_property_reads(evaluator, module, line, built_at[1]),
        ]
    if len(calls) != 1:
        return False
    return _goes_one_way(evaluator, module, calls[0], 0)


def kept_once(evaluator: Evaluator, module: Module, literal: ast.expr) -> bool:
    """Whether the object a construction that `literal` (the sizes, or one of them) is
    given to builds goes one way (`_goes_one_way`): `cfg = Config((4, 2), (2, 2))`
    handed to the trainer and to a report, each reading `cfg.eval_shape`, is not; a
    literal given to no construction of the tree is."""
    node: ast.AST = literal
    above = module.parents.get(node)
    while isinstance(above, (ast.Tuple, ast.List, ast.keyword)):
        node, above = above, module.parents.get(above)
    if not (isinstance(above, ast.Call) and above.func is not node):
        return True
    return not _keeps(evaluator, module, above) or _goes_one_way(
        evaluator, module, above, 1
    )


def _goes_one_way(
    evaluator: Evaluator, module: Module, made: ast.expr, held: int
) -> bool:
    """Whether the value `made` gives goes one way: an argument or an item as written, or
    the value of a local name its function reads once. An object that keeps it (a
    construction of a class of the tree, a sharding, an array placed on it,
    `_KEEPS`) must go one way too: a model holding the mesh that a report is also
    handed (`trainer.model.eval_mesh` and `report(model)`) reaches code that works with
    its size today. An object kept several times is followed no further when its every
    read calls one of its methods (its own code, as one read of it is); one whose method
    is called where it is made (`Evaluator(c).evaluate(params)`) is read there alone."""
    while (passed_on := _returning_itself(evaluator, module, made)) is not None:
        made = passed_on
    above = module.parents.get(made)
    if isinstance(above, ast.Attribute) and above.value is made:
        return True  # its method called, an attribute read, at once: where it is used
    holder = module.parents.get(above) if isinstance(above, ast.keyword) else above
    if isinstance(holder, ast.Call) and holder.func is not made:
        return not _keeps(evaluator, module, holder) or (
            held < _HOLDERS and _goes_one_way(evaluator, module, holder, held + 1)
        )
    if isinstance(above, (ast.Tuple, ast.List, ast.Dict, ast.Starred)):
        return True
    if not (
        isinstance(above, ast.Assign)
        and len(above.targets) == 1
        and isinstance(target := above.targets[0], ast.Name)
    ):
        return False
    scope = module.scope_of(above)
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    uses = [
        n
        for n in ast.walk(scope)
        if isinstance(n, ast.Name) and n.id == target.id and n is not target
    ]
    if (
        held
        and len(uses) > 1
        and all(_method_called(evaluator, module, u) for u in uses)
    ):
        return True  # the object's own code, as one read of it is
    if len(uses) != 1 or not isinstance(uses[0].ctx, ast.Load):
        return False
    read = module.parents.get(uses[0])
    read = module.parents.get(read) if isinstance(read, ast.keyword) else read
    if not (isinstance(read, ast.Call) and read.func is not uses[0]):
        return True  # its method called, an attribute read: where it is used
    return _goes_one_way(evaluator, module, uses[0], held)


def _method_called(evaluator: Evaluator, module: Module, read: ast.Name) -> bool:
    """Whether `read` is the object of a call of one of its class's methods
    (`trainer.evaluate(8)`)."""
    method = module.parents.get(read)
    if not isinstance(method, ast.Attribute):
        return False
    call = module.parents.get(method)
    return (
        isinstance(read.ctx, ast.Load)
        and isinstance(call, ast.Call)
        and call.func is method
        and isinstance(evaluator.value_of(module, method), BoundMethod)
    )


def _keeps(evaluator: Evaluator, module: Module, call: ast.Call) -> bool:
    """Whether the value `call` gives may keep its arguments: an object of a class of the
    tree, what a function or method of the tree returns (`make_model(eval_mesh)`), or a
    sharding or array of JAX's on the mesh it is given (`_KEEPS`); not a value the code
    drops or enters as a context there."""
    if isinstance(module.parents.get(call), (ast.Expr, ast.withitem)):
        return False
    callee = evaluator.value_of(module, call.func)
    if isinstance(callee, (Class, Function, BoundMethod)):
        return True
    api = api_of(callee.name) if isinstance(callee, External) else None
    return api in _KEEPS


def every_caller_seen(contexts: Contexts, module: Module, node: ast.AST) -> bool:
    """Whether every call that leads to `node` is one the engine asked for the mesh contexts
    around it: from `node`'s function up its callers (a few levels), a method's calls looked
    for also where its module is not imported (`trainer._eval_shapes(8)` in a module handed
    the trainer, under its own mesh) are those of its callers through imports; a lambda a
    tree map runs at once is called where the map is; a function's runs are those the mesh
    contexts are asked at (`Contexts.calls_running`: `jax.jit(f)(x)` too). A change of
    another module's sizes could break a call the engine did not count, working today."""
    evaluator = contexts.evaluator
    seen: set[ast.AST] = set()
    waiting: list[tuple[Module, ast.AST, int]] = [(module, node, 0)]
    while waiting:
        here, at, level = waiting.pop()
        scope = here.scope_of(at)
        if scope is here.tree or scope in seen:
            continue
        mapped = _mapped_at_once(evaluator, here, scope)
        if mapped is not None:  # `jax.tree.map(lambda p: ..., tree)` runs it there
            waiting.append((here, mapped, level))
            continue
        if level >= _CALLER_LEVELS or not isinstance(
            scope, (ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            return False
        seen.add(scope)
        if isinstance(here.parents.get(scope), ast.ClassDef):
            calls = evaluator.calls_of(here, scope, through_decorators=True)
            if isinstance(calls, Unknown):
                return False
            on_objects = evaluator.calls_of(
                here, scope, through_decorators=True, on_objects=True
            )
            if isinstance(on_objects, Unknown) or {id(c) for _, c, _ in on_objects} != {
                id(c) for _, c, _ in calls
            }:
                return False
            waiting.extend((caller, call, level + 1) for caller, call, _ in calls)
            continue
        runs = contexts.calls_running(here, scope)  # `jax.jit(f)(x)` runs f there too
        if isinstance(runs, Unknown):
            return False
        waiting.extend((caller, run, level + 1) for caller, run in runs)
    return True


def _mapped_at_once(
    evaluator: Evaluator, module: Module, scope: ast.AST
) -> ast.Call | None:
    """The call `scope` (a lambda) is the function of, where that call runs it before it
    returns (`jax.tree.map(lambda p: ..., tree)`, contexts.py's `MAPS_AT_ONCE`)."""
    call = module.parents.get(scope)
    if not (
        isinstance(scope, ast.Lambda)
        and isinstance(call, ast.Call)
        and call.args
        and call.args[0] is scope
    ):
        return None
    callee = evaluator.value_of(module, call.func)
    return (
        call if isinstance(callee, External) and callee.name in MAPS_AT_ONCE else None
    )


def _runs(
    evaluator: Evaluator, module: Module, call: ast.Call, frame: tuple[Path, int]
) -> bool:
    """Whether `call` runs the code at `frame`: a function of the tree holding that line, or
    a class of the tree one of whose methods holds it."""
    callee = evaluator.value_of(module, call.func)
    if isinstance(callee, (Function, Class)) and callee.path == frame[0]:
        node = callee.node
        return node.lineno <= frame[1] <= (node.end_lineno or node.lineno)
    return False


def _property_reads(
    evaluator: Evaluator, module: Module, line: int, frame: tuple[Path, int]
) -> list[ast.expr]:
    """The reads `obj.name` on `line` of a property `name` whose getter holds `frame`, of
    an object a local name holds that its function reads only there."""
    getter = _function_at(evaluator, frame)
    if getter is None or not any(
        (d.id if isinstance(d, ast.Name) else getattr(d, "attr", None))
        in ("property", "cached_property")
        for d in getter.decorator_list
    ):
        return []
    found: list[ast.expr] = []
    for read in ast.walk(module.tree):
        if not (
            isinstance(read, ast.Attribute)
            and read.lineno == line
            and read.attr == getter.name
            and isinstance(read.ctx, ast.Load)
            and isinstance(holder := read.value, ast.Name)
        ):
            continue
        scope = module.scope_of(read)
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        reads = [
            n
            for n in ast.walk(scope)
            if isinstance(n, ast.Name)
            and n.id == holder.id
            and isinstance(n.ctx, ast.Load)
        ]
        if reads == [holder] and isinstance(
            evaluator.value_of(module, holder), Instance
        ):
            found.append(read)
    return found


def _function_at(
    evaluator: Evaluator, frame: tuple[Path, int]
) -> ast.FunctionDef | None:
    """The innermost `def` of the tree holding the frame's line."""
    module = evaluator.module(frame[0])
    if isinstance(module, Unknown):
        return None
    holding = [
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.FunctionDef)
        and n.lineno <= frame[1] <= (n.end_lineno or n.lineno)
    ]
    return max(holding, key=lambda n: n.lineno, default=None)


def _returning_itself(
    evaluator: Evaluator, module: Module, made: ast.expr
) -> ast.Call | None:
    """The call `made.method(...)` of a method of a class of the tree every `return` of
    which returns its `self` (the object `made` gives, passed on); None where the value of
    `made` goes elsewhere."""
    method = module.parents.get(made)
    call = module.parents.get(method) if isinstance(method, ast.Attribute) else None
    if not (isinstance(call, ast.Call) and call.func is method):
        return None
    bound = evaluator.value_of(module, call.func)
    if not isinstance(bound, BoundMethod) or bound.function.wrapped_by is not None:
        return None
    function = bound.function.node
    if not isinstance(function, ast.FunctionDef) or not function.args.args:
        return None
    me = function.args.args[0].arg
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    if returns and all(
        isinstance(r.value, ast.Name) and r.value.id == me for r in returns
    ):
        return call
    return None


def module_edit(module: Module, node: ast.expr, edit: Edit) -> DataEdit | None:
    """`edit` of `node` (an expression of `module`) as a change of the module's file; None
    where the node's bytes cannot be placed exactly (a notebook, code jaxfix blanked, a
    line break Python and the bytes count differently) or the edit gives no expression."""
    import libcst as cst  # a fix's edit: LibCST only once there is one

    source = module.source
    if module.blanked or module.path.suffix != ".py":
        return None
    span = _byte_span(source, node)
    if span is None:
        return None
    old = source[span[0] : span[1]]
    try:  # an expression over several lines is within brackets, which LibCST takes
        parsed = cst.parse_expression(old.decode("utf-8"))
    except (UnicodeDecodeError, cst.ParserSyntaxError):
        return None
    replaced = edit(parsed)
    if not isinstance(replaced, cst.BaseExpression):
        return None
    new = cst.Module([]).code_for_node(replaced).encode("utf-8")
    return DataEdit(module.path, span, new, hashlib.sha256(source).hexdigest())


def _byte_span(source: bytes, node: ast.expr) -> tuple[int, int] | None:
    """The bytes of `node` in `source` (`ast`'s columns are UTF-8 byte offsets of their
    line), checked against the text `ast` gives for it."""
    end_line, end_column = node.end_lineno, node.end_col_offset
    if end_line is None or end_column is None or b"\r" in source:
        return None
    starts = [0, *itertools.accumulate(len(line) + 1 for line in source.split(b"\n"))]
    if end_line > len(starts):
        return None
    span = (
        starts[node.lineno - 1] + node.col_offset,
        starts[end_line - 1] + end_column,
    )
    text = source.decode("utf-8", "replace")
    segment = ast.get_source_segment(text, node)
    if (
        segment is None
        or source[span[0] : span[1]].decode("utf-8", "replace") != segment
    ):
        return None
    return span


def field_read_once(module: Module, construction: ast.expr, field: str) -> bool:
    """Whether the object `construction` builds is a local name of a function whose every
    read is of another attribute (`config.train_shape`), but one read of `field`: a
    keyword given to it there changes that read alone."""
    above = module.parents.get(construction)
    if not (
        isinstance(construction, ast.Call)
        and isinstance(above, ast.Assign)
        and len(above.targets) == 1
        and isinstance(target := above.targets[0], ast.Name)
        and not any(k.arg == field or k.arg is None for k in construction.keywords)
    ):
        return False
    scope = module.scope_of(above)
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    reads = [
        n
        for n in ast.walk(scope)
        if isinstance(n, ast.Name) and n.id == target.id and n is not target
    ]
    fields = [module.parents.get(n) for n in reads]
    return (
        all(
            isinstance(n.ctx, ast.Load)
            and isinstance(f, ast.Attribute)
            and f.value is n
            and isinstance(f.ctx, ast.Load)
            for n, f in zip(reads, fields)
        )
        and [f.attr for f in fields if isinstance(f, ast.Attribute)].count(field) == 1
    )


def read_alone(evaluator: Evaluator, module: Module, literal: ast.expr) -> bool:
    """Whether a change of `literal` changes what one read sees: the read of its entry
    (`entry_read_once`) where it is written as one (`entry_of`), else the object it is
    given to goes one way (`kept_once`)."""
    if entry_of(module, literal) is not None:
        return entry_read_once(evaluator, module, literal)
    return kept_once(evaluator, module, literal)


def entry_of(module: Module, literal: ast.expr) -> str | None:
    """The entry `literal` is written as: the keyword `k=` of a call (`create(k=...)`), or
    the attribute a store sets (`config.k = ...`); None for any other place."""
    above = module.parents.get(literal)
    if (
        isinstance(above, ast.keyword)
        and above.arg is not None
        and isinstance(module.parents.get(above), ast.Call)
    ):
        return above.arg
    if (
        isinstance(above, ast.Assign)
        and above.value is literal
        and len(above.targets) == 1
        and isinstance(above.targets[0], ast.Attribute)
    ):
        return above.targets[0].attr
    return None


def entry_read_once(evaluator: Evaluator, module: Module, literal: ast.expr) -> bool:
    """Whether `literal`, written as an entry (`entry_of`: `create(mesh_axes=("replica",))`
    in a config read for many things, `config.eval_mesh = ...`), is the value of one read
    of that entry in the project: every `.k` or `["k"]` the project's modules holding the
    word read has a value the engine knows, and one alone holds the literal's (the others
    read other objects' entries: `c.mesh_axes` of the top-level config); a string `"k"`
    passed to a call (`getattr(c, "k")`) may read it unseen. A change of the literal then
    changes that read alone."""
    entry = entry_of(module, literal)
    if entry is None:
        return False
    wanted = evaluator.value_of(module, literal)
    paths = evaluator.project.candidate_files(entry, module.path, imported=False)
    if isinstance(wanted, Unknown) or isinstance(paths, Unknown):
        return False
    same = 0
    for path in paths:
        other = evaluator.module(path)
        if isinstance(other, Unknown):
            return False
        for node in ast.walk(other.tree):
            if (
                isinstance(node, ast.Constant)
                and node.value == entry
                and isinstance(other.parents.get(node), ast.Call)
            ):
                return False
            if not (
                isinstance(node, (ast.Attribute, ast.Subscript))
                and isinstance(node.ctx, ast.Load)
                and (
                    node.attr == entry
                    if isinstance(node, ast.Attribute)
                    else _key_of(node) == entry
                )
            ):
                continue
            value = evaluator.value_of(other, node)
            if isinstance(value, Unknown):
                return False
            same += value == wanted
    return same == 1


def _key_of(node: ast.Subscript) -> object:
    return node.slice.value if isinstance(node.slice, ast.Constant) else None
