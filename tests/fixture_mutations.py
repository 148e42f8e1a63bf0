"""Benign mutations of fixture sources: same behavior under JAX, different spelling or layout.

Each mutation is a function `str -> str` built on LibCST scope analysis, and returns its input
unchanged when it finds nothing it can change safely. A rule that still fires (and whose fix
still runs) on every mutation matches code by meaning, not by the fixtures' exact text.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    Assignment,
    FunctionScope,
    GlobalScope,
    ImportAssignment,
    MetadataWrapper,
    ParentNodeProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

Mutation = Callable[[str], str]
MUTATION_COMMENT = "# mutated: a comment the fixture did not have"


def _wrap(source: str) -> MetadataWrapper:
    """A freshly parsed module is no other code's: the wrapper need not deep-copy it."""
    return MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)


def _scopes(wrapper: MetadataWrapper) -> set:
    return {s for s in wrapper.resolve(ScopeProvider).values() if s is not None}


def _bound_names(wrapper: MetadataWrapper) -> set[str]:
    return {a.name for scope in _scopes(wrapper) for a in scope.assignments}


def _all_names(module: cst.Module) -> set[str]:
    """Every name spelled in the module, except attribute names (`x` in `a.x`)."""
    found: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

    module.visit(Names())
    return found


def _declared_global_or_nonlocal(module: cst.Module) -> set[str]:
    found: set[str] = set()

    class Declarations(cst.CSTVisitor):
        def visit_Global(self, node: cst.Global) -> None:
            found.update(item.name.value for item in node.names)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            found.update(item.name.value for item in node.names)

    module.visit(Declarations())
    return found


class _ReplaceNodes(cst.CSTTransformer):
    """Replace nodes by identity (the nodes of the module the metadata was computed on)."""

    def __init__(self, replacements: dict[cst.CSTNode, cst.CSTNode]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):  # noqa: ANN001 - LibCST's signature
        return self.replacements.get(original_node, updated_node)


def _replace(
    wrapper: MetadataWrapper, replacements: dict[cst.CSTNode, cst.CSTNode]
) -> str:
    return (
        wrapper.module.visit(_ReplaceNodes(replacements)).code
        if replacements
        else wrapper.module.code
    )


# ---- rename local variables -------------------------------------------------------------------


def rename_variables(source: str) -> str:
    """Give every plainly assigned module or function variable a new name, with all its uses.

    Parameters, functions, classes, imports and class attributes keep their names (callers,
    `static_argnames` and attribute access spell those elsewhere)."""
    wrapper = _wrap(source)
    taken = _all_names(wrapper.module)
    declared = _declared_global_or_nonlocal(wrapper.module)
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    for scope in _scopes(wrapper):
        if not isinstance(scope, (GlobalScope, FunctionScope)):
            continue
        for name in {a.name for a in scope.assignments}:
            assignments = list(scope.assignments[name])
            if (
                name.startswith("__")
                or name in declared
                or any(
                    type(a) is not Assignment or not isinstance(a.node, cst.Name)
                    for a in assignments
                )
            ):
                continue
            uses = [access.node for a in assignments for access in a.references]
            if not all(isinstance(node, cst.Name) for node in uses):
                continue
            new = f"{name}_renamed"
            if new in taken:
                continue
            for node in [a.node for a in assignments] + uses:
                replacements[node] = node.with_changes(value=new)
    return _replace(wrapper, replacements)


# ---- comments and blank lines -----------------------------------------------------------------

_BROKEN_LINE = cst.ParenthesizedWhitespace(
    first_line=cst.TrailingWhitespace(
        whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(MUTATION_COMMENT)
    ),
    empty_lines=[cst.EmptyLine(indent=False)],
    indent=True,
    last_line=cst.SimpleWhitespace("    "),
)


class _CommentsInsideCalls(cst.CSTTransformer):
    def __init__(self) -> None:
        super().__init__()
        self.f_strings = 0  # a line break inside an f-string's braces needs Python 3.12

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self.f_strings += 1

    def leave_FormattedString(
        self, original_node: cst.FormattedString, updated_node: cst.FormattedString
    ) -> cst.FormattedString:
        self.f_strings -= 1
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not updated_node.args or self.f_strings:
            return updated_node
        args = list(updated_node.args)
        if len(args) > 1 and isinstance(args[0].comma, cst.Comma):
            args[0] = args[0].with_changes(
                comma=args[0].comma.with_changes(whitespace_after=_BROKEN_LINE)
            )
        return updated_node.with_changes(whitespace_before_args=_BROKEN_LINE, args=args)


def comments_inside_calls(source: str) -> str:
    """Break every call's argument list with a comment and a blank line after `(` and after
    its first comma."""
    return cst.parse_module(source).visit(_CommentsInsideCalls()).code


class _CommentsBetweenStatements(cst.CSTTransformer):
    def on_leave(self, original_node, updated_node):  # noqa: ANN001 - LibCST's signature
        if isinstance(
            updated_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        ):
            extra = [
                cst.EmptyLine(),
                cst.EmptyLine(comment=cst.Comment(MUTATION_COMMENT)),
            ]
            return updated_node.with_changes(
                leading_lines=[*updated_node.leading_lines, *extra]
            )
        return updated_node


def comments_between_statements(source: str) -> str:
    """A blank line and a comment line before every statement (after its own leading lines)."""
    return cst.parse_module(source).visit(_CommentsBetweenStatements()).code


# ---- reorder unrelated statements -------------------------------------------------------------

# Calls that build values without touching global state, so their order does not matter.
_PURE_CALLS = frozenset(
    {
        "AbstractMesh",
        "Mesh",
        "make_mesh",
        "NamedSharding",
        "PartitionSpec",
        "P",
        "ShapeDtypeStruct",
        "arange",
        "ones",
        "zeros",
        "array",
        "reshape",
        "float32",
        "jit",
        "partial",
        "tuple",
        "range",
        "list",
        "dict",
    }
)


def _swappable(statement: cst.CSTNode) -> tuple[set[str], set[str]] | None:
    """(names bound, names read) of a top-level import or single-name assignment whose calls are
    all pure; None for anything else."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    names: set[str] = set()
    calls: list[cst.Call] = []

    class Reads(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

        def visit_Call(self, node: cst.Call) -> None:
            calls.append(node)

    if isinstance(small, cst.Import):
        return {
            (
                a.asname.name.value
                if a.asname
                else get_full_name_for_node(a.name).split(".")[0]
            )
            for a in small.names
        }, set()
    if isinstance(small, cst.ImportFrom):
        if (
            isinstance(small.names, cst.ImportStar)
            or small.relative
            or get_full_name_for_node(small.module) == "__future__"
        ):
            return None
        return {
            (a.asname.name.value if a.asname else a.name.value) for a in small.names
        }, set()
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return None
    small.value.visit(Reads())
    if any(
        (get_full_name_for_node(c.func) or "").rpartition(".")[2] not in _PURE_CALLS
        for c in calls
    ):
        return None
    return {small.targets[0].target.value}, names


def reorder_statements(source: str) -> str:
    """Swap adjacent top-level imports / pure assignments that neither read nor bind each other's
    names; each statement keeps the comments and blank lines above its position."""
    module = cst.parse_module(source)
    body = list(module.body)
    i = 0
    while i + 1 < len(body):
        first, second = _swappable(body[i]), _swappable(body[i + 1])
        if (
            first
            and second
            and not (first[0] & (second[0] | second[1]))
            and not (second[0] & first[1])
        ):
            a, b = body[i], body[i + 1]
            body[i], body[i + 1] = (
                b.with_changes(leading_lines=a.leading_lines),
                a.with_changes(leading_lines=b.leading_lines),
            )
            i += 2
        else:
            i += 1
    return module.with_changes(body=body).code


# ---- import styles ----------------------------------------------------------------------------


def _bindings(wrapper: MetadataWrapper, name: str) -> list:
    return [
        a for scope in _scopes(wrapper) for a in scope.assignments if a.name == name
    ]


def alias_jax_import(source: str) -> str:
    """`import jax` -> `import jax as jx`, every use of the name updated."""
    wrapper = _wrap(source)
    bindings = _bindings(wrapper, "jax")
    if (
        len(bindings) != 1
        or not isinstance(bindings[0], ImportAssignment)
        or "jx" in _all_names(wrapper.module)
    ):
        return source
    statement = bindings[0].node
    if (
        not isinstance(statement, cst.Import)
        or len(statement.names) != 1
        or statement.names[0].asname
        or get_full_name_for_node(statement.names[0].name) != "jax"
    ):
        return source
    uses = [access.node for access in bindings[0].references]
    if not all(isinstance(node, cst.Name) for node in uses):
        return source
    replacements: dict[cst.CSTNode, cst.CSTNode] = {
        node: node.with_changes(value="jx") for node in uses
    }
    replacements[statement] = cst.parse_statement("import jax as jx").body[0]
    return _replace(wrapper, replacements)


_JAX_SPEC = importlib.util.find_spec("jax")
_JAX_ROOT = (
    Path(_JAX_SPEC.submodule_search_locations[0])
    if _JAX_SPEC and _JAX_SPEC.submodule_search_locations
    else None
)


def _is_submodule(module: str, name: str) -> bool:
    """Whether `module.name` is a module (import it) rather than an attribute, from the files of
    the installed jax; without jax, lowercase names are taken as modules (the static view is
    the same either way)."""
    if _JAX_ROOT is None:
        return name.islower()
    base = _JAX_ROOT.joinpath(*module.split(".")[1:])
    return (base / name).is_dir() or (base / f"{name}.py").exists()


def from_imports_to_attributes(source: str) -> str:
    """`from jax.sharding import NamedSharding as NS` -> `import jax.sharding`, NS -> `jax.sharding.NamedSharding`."""
    wrapper = _wrap(source)
    jax_bindings = _bindings(wrapper, "jax")
    if any(
        not isinstance(a, ImportAssignment)
        or not isinstance(a.node, cst.Import)
        or not isinstance(a.scope, GlobalScope)
        for a in jax_bindings
    ):
        return source
    if any(
        isinstance(a.node, cst.Import)
        and any(
            alias.asname and alias.evaluated_alias == "jax" for alias in a.node.names
        )
        for a in jax_bindings
    ):
        return source  # `import numpy as jax` and such: `jax.` would not mean jax
    global_scope = next(s for s in _scopes(wrapper) if isinstance(s, GlobalScope))
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    for statement in wrapper.module.body:
        if not isinstance(statement, cst.SimpleStatementLine) or not isinstance(
            statement.body[0], cst.ImportFrom
        ):
            continue
        node = statement.body[0]
        module = get_full_name_for_node(node.module) if node.module else None
        if (
            node.relative
            or module is None
            or not (module == "jax" or module.startswith("jax."))
            or isinstance(node.names, cst.ImportStar)
            or len(statement.body) != 1
        ):
            continue
        plan: list[tuple[str, list[cst.Name]]] = []
        for alias in node.names:
            bound = alias.evaluated_alias or alias.evaluated_name
            bindings = _bindings(wrapper, bound)
            if len(bindings) != 1 or bindings[0].scope is not global_scope:
                break
            uses = [access.node for access in bindings[0].references]
            if not all(isinstance(use, cst.Name) for use in uses):
                break
            plan.append((alias.evaluated_name, uses))
        else:
            modules = sorted(
                {
                    f"{module}.{name}" if _is_submodule(module, name) else module
                    for name, _ in plan
                }
            )
            imports = cst.parse_module("".join(f"import {m}\n" for m in modules)).body
            replacements[statement] = cst.FlattenSentinel(
                [
                    imports[0].with_changes(leading_lines=statement.leading_lines),
                    *imports[1:],
                ]
            )
            for name, uses in plan:
                for use in uses:
                    replacements[use] = cst.parse_expression(f"{module}.{name}")
    return _replace(wrapper, replacements)


_SPELLED_OUT_MODULES = ("jax", "jax.sharding")


def _qualified_names(qualified, node: cst.CSTNode) -> set[str]:  # noqa: ANN001 - metadata mapping
    names = qualified.get(node, set())
    return {
        q.name for q in (names() if callable(names) else names)
    }  # LibCST computes these lazily


def attributes_to_from_imports(source: str) -> str:
    """`jax.sharding.NamedSharding(...)` -> `NamedSharding(...)` plus `from jax.sharding import NamedSharding`
    (also `jax.jit` -> `jit`), where the short name is free everywhere in the file."""
    wrapper = _wrap(source)
    qualified = wrapper.resolve(QualifiedNameProvider)
    parents = wrapper.resolve(ParentNodeProvider)
    taken = _all_names(wrapper.module) | _bound_names(wrapper)
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    imports: set[tuple[str, str]] = set()

    class Attributes(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            name = node.attr.value
            modules, full = (
                _qualified_names(qualified, node.value),
                _qualified_names(qualified, node),
            )
            if len(modules) != 1 or len(full) != 1:
                return
            (module,) = modules
            if (
                module not in _SPELLED_OUT_MODULES
                or full != {f"{module}.{name}"}
                or _is_submodule(module, name)
            ):
                return
            if name in taken or isinstance(
                parents.get(node), (cst.AssignTarget, cst.AugAssign, cst.Del)
            ):
                return
            replacements[node] = cst.Name(name)
            imports.add((module, name))

    wrapper.module.visit(Attributes())
    if not replacements:
        return source
    module = wrapper.module.visit(_ReplaceNodes(replacements))
    context = CodemodContext()
    for module_name, name in sorted(imports):
        AddImportsVisitor.add_needed_import(context, module_name, name)
    return AddImportsVisitor(context).transform_module(module).code


MUTATIONS: dict[str, Mutation] = {
    "rename_variables": rename_variables,
    "comments_inside_calls": comments_inside_calls,
    "comments_between_statements": comments_between_statements,
    "reorder_statements": reorder_statements,
    "alias_jax_import": alias_jax_import,
    "from_imports_to_attributes": from_imports_to_attributes,
    "attributes_to_from_imports": attributes_to_from_imports,
}
