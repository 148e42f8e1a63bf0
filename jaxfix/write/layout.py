"""Fixes respect the project's line length: an edited call that would make its line too long
gets its arguments one per line, indented like the line it is on (black's exploded layout).

The engine applies this to each pass's edits; rules never think about layout. Only the call
that holds an edit is laid out, and only when it was on one line: code the fixes did not touch
is never reformatted.
"""

from __future__ import annotations

import re

import libcst as cst

from jaxfix.sources.text import split_lines

_LEADING = re.compile(r"[ \t]*")


def _continuation(indent: str, newline: str | None) -> cst.ParenthesizedWhitespace:
    """A line break, then `indent` (absolute: the line may itself be a continuation line)."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(newline=cst.Newline(newline)),
        empty_lines=[],
        indent=False,
        last_line=cst.SimpleWhitespace(indent),
    )


def explode(
    call: cst.Call, line_indent: str, unit: str, newline: str | None = None
) -> cst.Call:
    """`f(a, b)` -> `f(\\n<indent+unit>a,\\n<indent+unit>b,\\n<indent>)`; `newline` None: the module's."""
    inner, none = _continuation(line_indent + unit, newline), cst.SimpleWhitespace("")
    args = []
    for index, arg in enumerate(call.args):
        last = index == len(call.args) - 1
        comma = cst.Comma(
            whitespace_before=none,
            whitespace_after=_continuation(line_indent, newline) if last else inner,
        )
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
    while node is not None and not isinstance(
        node, (cst.BaseSmallStatement, cst.BaseStatement)
    ):
        where = positions[node]
        if where.start.line != where.end.line:
            break
        if isinstance(node, cst.Call):
            found = node
        node = parents.get(node)
    return found


def fit_line_length(
    edits: dict[cst.CSTNode, cst.CSTNode],
    module: cst.Module,
    parents: dict,
    positions,
    limit: int,
) -> dict[cst.CSTNode, cst.CSTNode]:
    """`edits` (original node -> replacement), with each one-line call that holds edits and would
    end up longer than `limit` replaced whole by its edited, exploded self."""
    holders: dict[cst.Call, list[cst.CSTNode]] = {}
    for original in edits:
        call = _holding_call(original, parents, positions)
        if call is not None:
            holders.setdefault(call, []).append(original)
    if len(holders) > 1 and any(
        _inside(a, b, parents) for a in holders for b in holders if a is not b
    ):
        return edits  # nested holders: laying one out would hide the other's edit
    lines = split_lines(module.code)
    fitted = dict(edits)
    for call, inside in holders.items():
        where = positions[call]
        new_call = call.visit(_Replace({node: edits[node] for node in inside}))
        if not isinstance(new_call, cst.Call) or not any(
            link.args for link in _links(new_call)
        ):
            continue
        text = module.code_for_node(new_call)
        line = lines[where.start.line - 1].rstrip("\r\n")
        if (
            "\n" in text
            or len(line[: where.start.column])
            + len(text)
            + len(line[where.end.column :])
            <= limit
        ):
            continue
        for node in inside:
            del fitted[node]
        ending = lines[where.start.line - 1][
            len(line) :
        ]  # the line's own: a file may mix them
        layout = (_LEADING.match(line)[0], module.default_indent, ending or None)
        fitted[call] = _explode_chain(
            new_call, layout, len(line[: where.start.column]), limit, module
        )
    return fitted


def _links(call: cst.Call) -> list[cst.Call]:
    """The calls of a method chain, last first: `f(a).g(b).h()` gives h(), g(b), f(a)."""
    links = [call]
    while (receiver := _receiver(links[-1])) is not None:
        links.append(receiver)
    return links


def _receiver(call: cst.Call) -> cst.Call | None:
    """The call a call is made on: `f(a)` in `f(a).g(b)` and in `f(a)(b)`."""
    if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Call):
        return call.func.value
    return call.func if isinstance(call.func, cst.Call) else None


def _with_link(call: cst.Call, link: cst.Call, new: cst.Call) -> cst.Call:
    if call is link:
        return new
    if isinstance(call.func, cst.Call):
        return call.with_changes(func=_with_link(call.func, link, new))
    assert isinstance(call.func, cst.Attribute) and isinstance(
        call.func.value, cst.Call
    )
    return call.with_changes(
        func=call.func.with_changes(value=_with_link(call.func.value, link, new))
    )


def _explode_tuple(
    value: cst.Tuple,
    layout: tuple[str, str, str | None],
    limit: int,
    module: cst.Module,
) -> cst.Tuple:
    """`(a, b)` -> `(\n<indent+unit>a,\n<indent+unit>b,\n<indent>)`, its calls fitted in turn."""
    indent, unit, newline = layout
    inner = _continuation(indent + unit, newline)
    elements = []
    for index, element in enumerate(value.elements):
        last = index == len(value.elements) - 1
        comma = cst.Comma(
            whitespace_after=_continuation(indent, newline) if last else inner
        )
        item = element.value
        if isinstance(item, cst.Call):
            item = _fit(
                item, (indent + unit, unit, newline), len(indent + unit), limit, module
            )
        elements.append(element.with_changes(value=item, comma=comma))
    return value.with_changes(
        elements=elements,
        lpar=[cst.LeftParen(whitespace_after=inner)],
        rpar=[cst.RightParen()],
    )


def _fit(
    call: cst.Call,
    layout: tuple[str, str, str | None],
    before: int,
    limit: int,
    module: cst.Module,
) -> cst.Call:
    """`call`, starting `before` columns into its line, laid out to fit `limit` when it does not."""
    text = module.code_for_node(call)
    if (
        "\n" in text or before + len(text) + 1 <= limit
    ):  # + 1: the comma after an argument
        return call
    return _explode_chain(call, layout, before, limit, module)


_ENDS_IN_CALL = (
    cst.Call,
    cst.Comparison,
    cst.BinaryOperation,
    cst.BooleanOperation,
    cst.UnaryOperation,
)


def _fit_tail(
    expr: cst.BaseExpression,
    layout: tuple[str, str, str | None],
    before: int,
    limit: int,
    module: cst.Module,
) -> cst.BaseExpression:
    """An argument that is a call, or ends in one (`"hlo" in f(x).lower(y).as_text()`): that
    call laid out to fit, as `_fit` lays out a call argument (black splits the last brackets)."""
    if isinstance(expr, cst.Call):
        return _fit(expr, layout, before, limit, module)
    if isinstance(expr, cst.Comparison) and expr.comparisons:
        tail: cst.BaseExpression = expr.comparisons[-1].comparator
    elif isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation)):
        tail = expr.right
    elif isinstance(expr, cst.UnaryOperation):
        tail = expr.expression
    else:
        return expr
    text, tail_text = module.code_for_node(expr), module.code_for_node(tail)
    if expr.lpar or not text.endswith(tail_text):
        return expr
    new = _fit_tail(tail, layout, before + len(text) - len(tail_text), limit, module)
    if new is tail:
        return expr
    if isinstance(expr, cst.Comparison):
        last = expr.comparisons[-1]
        return expr.with_changes(
            comparisons=[*expr.comparisons[:-1], last.with_changes(comparator=new)]
        )
    if isinstance(expr, cst.UnaryOperation):
        return expr.with_changes(expression=new)
    return expr.with_changes(right=new)


def _fit_arguments(
    call: cst.Call, layout: tuple[str, str, str | None], limit: int, module: cst.Module
) -> cst.Call:
    """An exploded call whose argument lines are still too long: lay out the calls they hold."""
    indent = layout[0] + layout[1]
    args = []
    for arg in call.args:
        keyword = (
            len(module.code_for_node(arg.keyword)) + 1
            if arg.keyword is not None
            else len(arg.star)
        )
        too_long = (
            len(indent) + keyword + len(module.code_for_node(arg.value)) + 1 > limit
        )
        if isinstance(arg.value, _ENDS_IN_CALL):
            value = _fit_tail(
                arg.value,
                (indent, layout[1], layout[2]),
                len(indent) + keyword,
                limit,
                module,
            )
            if value is arg.value and too_long and _splittable(value):
                assert isinstance(value, cst.BooleanOperation)
                value = _split_boolean(
                    value, (indent, layout[1], layout[2]), limit, module
                )
            arg = arg.with_changes(value=value)
        elif (
            isinstance(arg.value, cst.Tuple)
            and arg.value.lpar
            and arg.value.elements
            and too_long
        ):
            arg = arg.with_changes(
                value=_explode_tuple(
                    arg.value, (indent, layout[1], layout[2]), limit, module
                )
            )
        args.append(arg)
    return call.with_changes(args=args)


def _splittable(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.BooleanOperation) and not expr.lpar


def _split_boolean(
    expr: cst.BooleanOperation,
    layout: tuple[str, str, str | None],
    limit: int,
    module: cst.Module,
) -> cst.BooleanOperation:
    """`a or b` in parentheses on lines of its own, `(\n<indent+unit>a or b\n<indent>)`, and
    where that line is still too long, split before each operator of the chain's own kind
    (black's layout)."""
    indent, unit, newline = layout
    inner = _continuation(indent + unit, newline)
    kind = type(expr.operator)
    if len(indent + unit) + len(module.code_for_node(expr)) <= limit:
        kind = type(None)  # no operator is split

    def split(node: cst.BaseExpression) -> cst.BaseExpression:
        if (
            not isinstance(node, cst.BooleanOperation)
            or node.lpar
            or not isinstance(node.operator, kind)
        ):
            return node
        return node.with_changes(
            left=split(node.left),
            operator=node.operator.with_changes(whitespace_before=inner),
        )

    split_expr = split(expr)
    assert isinstance(split_expr, cst.BooleanOperation)
    return split_expr.with_changes(
        lpar=[cst.LeftParen(whitespace_after=inner)],
        rpar=[cst.RightParen(whitespace_before=_continuation(indent, newline))],
    )


def _explode_chain(
    call: cst.Call,
    layout: tuple[str, str, str | None],
    before: int,
    limit: int,
    module: cst.Module,
) -> cst.Call:
    """As black's right-hand split: explode the last call of a method chain whose arguments,
    once on their own lines, leave a first and a last line that fit (`f(a).g(\n    b,\n).h()`);
    when none does, explode the last one and, while the first line is still too long, the
    calls before it too. Argument lines still too long get the same treatment."""
    own = None  # `call` itself exploded: the first link tried, and the fallback (made once: made
    # twice, each nested call would be laid out twice per level, exponential in the nesting)
    for link in _links(call):
        if not link.args:
            continue
        exploded_link = _fit_arguments(explode(link, *layout), layout, limit, module)
        own = exploded_link if link is call else own
        candidate = _with_link(call, link, exploded_link)
        lines = module.code_for_node(candidate).splitlines()
        if before + len(lines[0]) <= limit and len(lines[-1]) <= limit:
            return candidate
    exploded = own if own is not None else call
    inner = exploded.func.value if isinstance(exploded.func, cst.Attribute) else None
    first_line = module.code_for_node(exploded).splitlines()[0]
    if before + len(first_line) > limit and isinstance(inner, cst.Call):
        exploded = exploded.with_changes(
            func=exploded.func.with_changes(
                value=_explode_chain(inner, layout, before, limit, module)
            )
        )
    return exploded


def _inside(node: cst.CSTNode, outer: cst.CSTNode, parents: dict) -> bool:
    while node is not None:
        node = parents.get(node)
        if node is outer:
            return True
    return False
