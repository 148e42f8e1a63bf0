"""Fixes respect the project's line length: an edited call that would make its line too long
gets its arguments one per line, indented like the line it is on (black's exploded layout).

The engine applies this to each pass's edits; rules never think about layout. Only the call
that holds an edit is laid out, and only when it was on one line: code the fixes did not touch
is never reformatted.
"""

from __future__ import annotations

import re

import libcst as cst

from jaxfix.diffs import split_lines

_LEADING = re.compile(r"[ \t]*")


def _continuation(indent: str, newline: str | None) -> cst.ParenthesizedWhitespace:
    """A line break, then `indent` (absolute: the line may itself be a continuation line)."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(newline=cst.Newline(newline)), empty_lines=[], indent=False,
        last_line=cst.SimpleWhitespace(indent),
    )


def explode(call: cst.Call, line_indent: str, unit: str, newline: str | None = None) -> cst.Call:
    """`f(a, b)` -> `f(\\n<indent+unit>a,\\n<indent+unit>b,\\n<indent>)`; `newline` None: the module's."""
    inner, none = _continuation(line_indent + unit, newline), cst.SimpleWhitespace("")
    args = []
    for index, arg in enumerate(call.args):
        last = index == len(call.args) - 1
        comma = cst.Comma(whitespace_before=none, whitespace_after=_continuation(line_indent, newline) if last else inner)
        args.append(arg.with_changes(comma=comma, whitespace_after_arg=none))
    return call.with_changes(whitespace_before_args=inner, args=args)


class _Replace(cst.CSTTransformer):
    def __init__(self, edits: dict[cst.CSTNode, cst.CSTNode]) -> None:
        super().__init__()
        self.edits = edits

    def on_leave(self, original_node, updated_node):  # noqa: ANN001 - LibCST's signature
        return self.edits.get(original_node, updated_node)


def _holding_call(node: cst.CSTNode, parents: dict, positions) -> cst.Call | None:
    """The outermost call on the edited node's line that holds it (black lays out the outer
    brackets first); None when no call does."""
    found = None
    while node is not None and not isinstance(node, (cst.BaseSmallStatement, cst.BaseStatement)):
        where = positions[node]
        if where.start.line != where.end.line:
            break
        if isinstance(node, cst.Call):
            found = node
        node = parents.get(node)
    return found


def fit_line_length(
    edits: dict[cst.CSTNode, cst.CSTNode], module: cst.Module, parents: dict, positions, limit: int
) -> dict[cst.CSTNode, cst.CSTNode]:
    """`edits` (original node -> replacement), with each one-line call that holds edits and would
    end up longer than `limit` replaced whole by its edited, exploded self."""
    holders: dict[cst.Call, list[cst.CSTNode]] = {}
    for original in edits:
        call = _holding_call(original, parents, positions)
        if call is not None:
            holders.setdefault(call, []).append(original)
    if len(holders) > 1 and any(_inside(a, b, parents) for a in holders for b in holders if a is not b):
        return edits  # nested holders: laying one out would hide the other's edit
    lines = split_lines(module.code)
    fitted = dict(edits)
    for call, inside in holders.items():
        where = positions[call]
        new_call = call.visit(_Replace({node: edits[node] for node in inside}))
        if not isinstance(new_call, cst.Call) or not new_call.args:
            continue
        text = module.code_for_node(new_call)
        line = lines[where.start.line - 1].rstrip("\r\n")
        if "\n" in text or len(line[: where.start.column]) + len(text) + len(line[where.end.column:]) <= limit:
            continue
        for node in inside:
            del fitted[node]
        ending = lines[where.start.line - 1][len(line):]  # the line's own: a file may mix them
        layout = (_LEADING.match(line)[0], module.default_indent, ending or None)
        fitted[call] = _explode_chain(new_call, layout, len(line[: where.start.column]), limit, module)
    return fitted


def _explode_chain(call: cst.Call, layout: tuple[str, str, str | None], before: int, limit: int, module: cst.Module) -> cst.Call:
    """Explode `call`; while its first line is still too long and it is a method called on
    another call (`f(a).g(b)`), explode that one too, as black does with a method chain."""
    exploded = explode(call, *layout)
    inner = exploded.func.value if isinstance(exploded.func, cst.Attribute) else None
    first_line = module.code_for_node(exploded).splitlines()[0]
    if before + len(first_line) > limit and isinstance(inner, cst.Call) and inner.args:
        exploded = exploded.with_changes(func=exploded.func.with_changes(value=_explode_chain(inner, layout, before, limit, module)))
    return exploded


def _inside(node: cst.CSTNode, outer: cst.CSTNode, parents: dict) -> bool:
    while node is not None:
        node = parents.get(node)
        if node is outer:
            return True
    return False
