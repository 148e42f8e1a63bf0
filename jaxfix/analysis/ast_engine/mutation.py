"""Which names may denote a container (list, dict, SimpleNamespace) that something changes.

A list or dict is known only while every use of its name is a read that cannot change it:
an item or slice read, an attribute a list or dict does not have (`f(s.shape)`; not one
stored into, `c.eval.mesh_axes = v`), iteration,
`*xs` or `**d` in a call or `{**d}` in a dict display (a copy), `len`/`tuple`/`sorted`/...
`copy.deepcopy` of it, a lambda's body (what it returns), a non-mutating method (`.get`, `.keys`, `.values`, `.items`, `.copy`, `.index`,
`.count`), a JAX constructor's argument, an argument of `jax.jit`, of a jitted function's
`.lower`/`.trace`, of `jax.eval_shape` or of `jax.tree.map`, of what `jax.grad(f)` or
`jax.value_and_grad(f)` returns, a comparison, `return`.
Anything else (`d["a"] = 3`, `xs.append(...)`, passing it to a function jaxfix does not
know, binding it to another name or attribute) makes the name "escaped", and its value
Unknown, never the stale literal. Names are matched by spelling over the whole module (nested
functions and other functions included): cautious, never stale. The evaluator then lets an
escaped name through when each such use is an argument of a function, lambda or class (its
own `__init__`) of the tree whose parameter is only read there or bound anew
(`mesh_shape = [...]`; not `+=`, which extends a list in place), a few calls deep
(`log_meshes(MESHES)`), and asks of a
SimpleNamespace's name every module that may reach it (`config.probe.data = 4` elsewhere).
"""

from __future__ import annotations

import ast

_READING_METHODS = frozenset(
    {"get", "keys", "values", "items", "copy", "index", "count"}
)
# What a list's or dict's attributes are: its methods (a bound one may change it later).
_CONTAINER_METHODS = (
    frozenset(dir(list))
    | frozenset(dir(dict))
    | {"__dict__"}  # `ns.__dict__.update(...)`
)
_READING_FUNCTIONS = frozenset(
    {
        "len",
        "tuple",
        "list",
        "dict",
        "sorted",
        "sum",
        "min",
        "max",
        "enumerate",
        "zip",
        "iter",
        "reversed",
        "isinstance",
        "print",
        "prod",
        "set",
        "frozenset",
        "str",
        "repr",
        "any",
        "all",
        "bool",
        "int",
        "float",
        "hash",
        "id",
        "type",
        "range",
        "map",
        "filter",
        "deepcopy",  # copy.deepcopy: a new object, the original only read
        # JAX constructors read their arguments
        "AbstractMesh",
        "Mesh",
        "make_mesh",
        "NamedSharding",
        "PartitionSpec",
        "P",
        "ShapeDtypeStruct",
        "device_put",
        "use_abstract_mesh",
        "set_mesh",
        "use_mesh",
        "array",
        "asarray",
        "reshape",
        "create_device_mesh",
        "create_hybrid_device_mesh",
        # JAX's tree functions and a jitted function's stages (`_STAGES`) trace or read a
        # pytree, never change it (the traced function is given a tree rebuilt from its leaves)
        "eval_shape",
        "tree_map",
        "map_with_path",
        "tree_map_with_path",
        "tree_leaves",
        "leaves",  # jax.tree.leaves
        "top_level_all_gather",  # gathers the tree's leaves into new arrays
        # jax.jit keeps its shardings' trees as given, never changes them
        "jit",
    }
)


# A jitted function's stages, read-only as methods only (`f.lower(d)`; a function of the
# tree called `trace(d)` may change `d`).
_STAGES = frozenset({"lower", "trace"})
# `jax.grad(f)(d)`: `f` is traced with a tree rebuilt from `d`'s leaves, never `d`.
_DIFFERENTIATIONS = frozenset({"grad", "value_and_grad"})


def escaped_names(
    loads: dict[str, list[ast.AST]], parents: dict[ast.AST, ast.AST]
) -> frozenset[str]:
    """Names with a use (among a module's reads, by name) that may change or alias what they
    denote. An alias `tree = sharding` (a plain assignment to one name) escapes only when
    that name does: what is done through `tree` is then done to what `sharding` denotes."""
    escaped: set[str] = set()
    aliases: dict[
        str, set[str]
    ] = {}  # name -> the names it is bound to by `alias = name`
    for name, reads in loads.items():
        for n in reads:
            if not isinstance(n, ast.Name) or reads_only(n, parents):
                continue
            alias = alias_target(n, parents)
            if alias is None:
                escaped.add(name)
                break
            aliases.setdefault(name, set()).add(alias)
    changed = True
    while changed:
        changed = False
        for name, targets in aliases.items():
            if name not in escaped and targets & escaped:
                escaped.add(name)
                changed = True
    return frozenset(escaped)


def alias_target(
    node: ast.Name, parents: dict[ast.AST, ast.AST], in_display: bool = False
) -> str | None:
    """The name `node` is bound to by a plain `alias = node`, else None; with `in_display`,
    also the name a tuple or list display holding it is bound to (`args = (batch, rng)`:
    what is done to `args[0]` is done to `batch`)."""
    holder: ast.AST = node
    parent = parents.get(node)
    while (
        in_display
        and isinstance(parent, (ast.Tuple, ast.List))
        and holder in parent.elts
    ):
        holder, parent = parent, parents.get(parent)
    if (
        isinstance(parent, ast.Assign)
        and parent.value is holder
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
    ):
        return parent.targets[0].id
    return None


def reads_only(node: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether this use of a name only reads what it denotes."""
    parent = parents.get(node)
    if isinstance(parent, ast.Starred):
        node_or_star: ast.AST = parent
        parent = parents.get(parent)
    else:
        node_or_star = node
    if parent is None:
        return True
    if isinstance(parent, ast.Subscript):
        return (
            parent.value is node
            and isinstance(parent.ctx, ast.Load)
            and not _item_changed(parent, parents)
        )
    if isinstance(parent, ast.Attribute):
        if not isinstance(parent.ctx, ast.Load):
            return False
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent:
            return parent.attr in _READING_METHODS
        if _stored_into(parent, parents):
            return False  # `c.eval.mesh_axes = v`: the object `c.eval` reads is changed
        # `f(s.shape)` reads; `f(xs.append)`, `add = xs.append` may change `xs` later
        return parent.attr in _READING_METHODS or parent.attr not in _CONTAINER_METHODS
    if isinstance(parent, ast.Call):
        if parent.func is node or node_or_star is not node:
            return True  # `f(*xs)`: f is given a tuple of the items, never the list
        return _reading_call(parent)
    if isinstance(parent, ast.keyword):
        if parent.arg is None:
            return True  # `f(**d)`: f is given a new dict, never `d`
        call = parents.get(parent)
        return isinstance(call, ast.Call) and _reading_call(call)
    if isinstance(parent, ast.Dict):  # `{**d, "k": v}` copies `d`'s items
        return any(
            key is None and value is node
            for key, value in zip(parent.keys, parent.values)
        )
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
        return parent.iter is node
    if isinstance(
        parent, ast.Lambda
    ):  # `lambda x: sharding` returns it, as `return` does
        return parent.body is node
    if isinstance(
        parent,
        (
            ast.Compare,
            ast.BoolOp,
            ast.UnaryOp,
            ast.If,
            ast.While,
            ast.IfExp,
            ast.Return,
            ast.Assert,
            ast.FormattedValue,
            ast.withitem,
            ast.Expr,
            ast.BinOp,
        ),
    ):
        return True
    if isinstance(parent, (ast.Tuple, ast.List)) and node_or_star in parent.elts:
        return _reads_only_container(parent, parents)
    return False


def _item_changed(item: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """An item read out of the container is itself changed in place, which changes the
    container: `d["eval"]["mesh"] = v`, `d["eval"].update(mesh=v)`, `xs[0].append(v)`,
    `d["a"].x = v` (the item a dict or an object); any other use of the item reads it."""
    parent = parents.get(item)
    if isinstance(parent, ast.Subscript) and parent.value is item:
        return not isinstance(parent.ctx, ast.Load) or _item_changed(parent, parents)
    if isinstance(parent, ast.Attribute) and parent.value is item:
        if not isinstance(parent.ctx, ast.Load):
            return True
        return parent.attr in _CONTAINER_METHODS and parent.attr not in _READING_METHODS
    return False


def _stored_into(read: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """An attribute read whose object is then stored into, through attributes and items:
    `c.eval.mesh_axes = v`, `c.eval["axes"] = v`, `del c.a.b`, `c.a.b += 1` (a nested config's
    entry set through the name that holds the whole config)."""
    parent = parents.get(read)
    while isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is read:
        if not isinstance(parent.ctx, ast.Load):
            return True
        read, parent = parent, parents.get(parent)
    return False


def _reads_only_container(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """A tuple display holding the name: read-only when the display itself only is read."""
    parent = parents.get(node)
    if isinstance(parent, ast.Call):
        return _reading_call(parent)
    if isinstance(parent, (ast.Tuple, ast.List)) and node in parent.elts:
        # `return (state, batch), {}`: a display inside one that only is read
        return _reads_only_container(parent, parents)
    return isinstance(parent, (ast.Return, ast.Compare, ast.For, ast.comprehension))


def _reading_call(call: ast.Call) -> bool:
    """A call that only reads its arguments."""
    name = _callee_name(call.func)
    if isinstance(call.func, ast.Call):
        return _callee_name(call.func.func) in _DIFFERENTIATIONS
    return name in _READING_FUNCTIONS or (
        name in _STAGES and isinstance(call.func, ast.Attribute)
    )


def _callee_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
