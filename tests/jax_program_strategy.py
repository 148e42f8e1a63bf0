"""A hypothesis strategy for JAX-flavored programs, to fuzz the rules where they really look.

A program mixes the three rules' patterns (lowering with abstract-mesh shardings, nested mesh
contexts, `top_level_all_gather` across meshes) in every import spelling, inside arbitrary
surrounding code: functions, classes, decorators, `match`, loops, comments, blank lines, calls
that merely look alike. The program knows which lines are surrounding code, because no fix may
ever touch those.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from hypothesis import strategies as st

from jaxfix.sources.text import split_lines

MAX_DEPTH = 2  # deeper programs find nothing new and make the engine slow


@dataclass(frozen=True)
class Program:
    source: str
    surrounding: frozenset[int]  # 0-based indexes into split_lines(source)


@dataclass(frozen=True)
class _Line:
    depth: int
    text: str
    surrounding: bool


@dataclass(frozen=True)
class _Spelling:
    """How the program spells each API; `imports` are the lines that make the spellings valid."""

    imports: tuple[str, ...]
    jax: str
    sharding: dict[
        str, str
    ]  # AbstractMesh, AxisType, NamedSharding, P, use_abstract_mesh
    jit: str
    set_mesh: str
    gather: str


class _Context:
    """What one program's generators share: the spelling, fresh names, and `draw`."""

    def __init__(self, draw, spelling: _Spelling) -> None:  # noqa: ANN001 - hypothesis' draw
        self.draw = draw
        self.spelling = spelling
        self._numbers = itertools.count()

    def fresh(self, stem: str) -> str:
        return f"{stem}_{next(self._numbers)}"


_SHARDING_NAMES = (
    "AbstractMesh",
    "AxisType",
    "NamedSharding",
    "PartitionSpec",
    "use_abstract_mesh",
    "set_mesh",
)


def _spelling(draw) -> _Spelling:  # noqa: ANN001
    jax = draw(st.sampled_from(["jax", "jx"]))
    imports = [
        "import jax" if jax == "jax" else "import jax as jx",
        "import jax.numpy as jnp",
    ]
    style = draw(st.sampled_from(["from", "module", "qualified"]))
    if style == "from":
        imports.append(
            "from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P, use_abstract_mesh"
        )
        sharding = {name: name for name in _SHARDING_NAMES} | {
            "PartitionSpec": "P",
            "set_mesh": f"{jax}.set_mesh",
        }
    else:
        prefix = "shd" if style == "module" else f"{jax}.sharding"
        if style == "module":
            imports.append("import jax.sharding as shd")
        sharding = {name: f"{prefix}.{name}" for name in _SHARDING_NAMES}
    jit = draw(st.sampled_from([f"{jax}.jit", "jit", "J"]))
    if jit == "jit":
        imports.append("from jax import jit")
    elif jit == "J":
        imports.append("from jax import jit as J")
    if draw(st.booleans()):
        imports.append("from jax._src.shard_map import top_level_all_gather")
        gather = "top_level_all_gather"
    else:
        imports.append("from jax._src import shard_map")
        gather = "shard_map.top_level_all_gather"
    imports.append("import functools")
    ordered = draw(st.permutations(imports))
    set_mesh = draw(st.sampled_from([f"{jax}.set_mesh", sharding["set_mesh"]]))
    return _Spelling(tuple(ordered), jax, sharding, jit, set_mesh, gather)


# ---- surrounding code -------------------------------------------------------------------------

_COMMENTS = (
    "# a comment",
    "#: sphinx-style",
    "# TODO(someone): jit this later  ",
    "#",
    "# noqa",
    "# mesh = AbstractMesh(...)",
)


def _simple_statement(ctx: _Context) -> list[str]:
    n = ctx.fresh("v")
    return [
        ctx.draw(
            st.sampled_from(
                [
                    f"{n} = {ctx.draw(st.integers(-3, 99))}",
                    f"{n}: list[int] = [1, 2, 3]",
                    f'print("{n}", {ctx.draw(st.integers(0, 9))}, sep="")',
                    f"{n} = sum(range(10))",
                    f'{n} = "Lower".lower()  # str.lower, not a JAX lowering',
                    f"{n} = compiler.lower(program).compile()",
                    f"{n} = tracer.trace(data).lower()",
                    f'{n} = {{"mesh": None, "axis": ("x", "y")}}',
                    f"{n} = [item * 2 for item in range(3) if item]",
                    f"{n} = lambda a, *rest: (a, rest)",
                    f'{n} = f"{{{n[0]}!r:>10}}" if False else None',
                    f"assert {n} is not None if False else True",
                    f"({n} := 3)",
                    f"{n}, *_ = (1, 2, 3)",
                    "pass",
                    "...",
                    "logging.getLogger(__name__).debug('with use_abstract_mesh(...):')",
                ]
            )
        )
    ]


def _clauses(ctx: _Context, kind: str) -> list[tuple[list[tuple[int, str]], int]]:
    """A compound statement as (header lines at relative depths, its body's relative depth) pairs."""
    n = ctx.fresh("x")
    if kind == "def":
        heads: list[tuple[int, str]] = []
        for decorator in ctx.draw(
            st.lists(st.sampled_from(["lru", "static", "exploded"]), max_size=2)
        ):
            heads += {
                "lru": [(0, "@functools.lru_cache(maxsize=None)")],
                "static": [(0, "@staticmethod")],
                "exploded": [(0, "@decorate("), (1, "1,  # why"), (0, ")")],
            }[decorator]
        heads.append(
            (
                0,
                ctx.draw(
                    st.sampled_from(
                        [
                            f"def {n}(a, b=2, *args, c, **kwargs):",
                            f"async def {n}(a) -> None:",
                            f"def {n}():",
                        ]
                    )
                ),
            )
        )
        return [(heads, 1)]
    if kind == "class":
        decorators = [(0, "@dataclasses.dataclass")] if ctx.draw(st.booleans()) else []
        return [
            (
                [
                    *decorators,
                    (
                        0,
                        ctx.draw(
                            st.sampled_from(
                                [f"class {n}:", f"class {n}(Base, metaclass=Meta):"]
                            )
                        ),
                    ),
                ],
                1,
            )
        ]
    if kind == "if":
        return [([(0, f"if {n}:")], 1)] + (
            [([(0, "else:")], 1)] if ctx.draw(st.booleans()) else []
        )
    if kind == "loop":
        return [
            (
                [
                    (
                        0,
                        ctx.draw(
                            st.sampled_from([f"for {n} in range(3):", "while False:"])
                        ),
                    )
                ],
                1,
            )
        ]
    if kind == "try":
        return [
            ([(0, "try:")], 1),
            ([(0, f"except (ValueError, KeyError) as {n}:")], 1),
            ([(0, "finally:")], 1),
        ]
    if kind == "with":
        return [
            (
                [
                    (
                        0,
                        ctx.draw(
                            st.sampled_from(
                                [
                                    f"with open(__file__) as {n}:",
                                    "with contextlib.suppress(Exception), lock:",
                                    f"with mesh_like({n}):",
                                ]
                            )
                        ),
                    )
                ],
                1,
            )
        ]
    return [
        ([(0, f"match {n}:"), (1, "case [first, *rest]:")], 2),
        ([(1, 'case {"mesh": m} | Point(x=0):')], 2),
        ([(1, "case _:")], 2),
    ]


def _compound(ctx: _Context, depth: int) -> list[_Line]:
    kind = ctx.draw(
        st.sampled_from(["def", "class", "if", "loop", "try", "with", "match"])
    )
    lines: list[_Line] = []
    for heads, body_depth in _clauses(ctx, kind):
        lines += [_Line(depth + relative, text, True) for relative, text in heads]
        lines += _block(ctx, depth + body_depth)
    return lines


# ---- the three rules' patterns ----------------------------------------------------------------


def _sizes(ctx: _Context) -> tuple[int, int]:
    return ctx.draw(
        st.sampled_from(
            [(2, 4), (4, 2), (8, 1), (1, 8), (2, 2), (8, 4), (16, 4), (4, 4)]
        )
    )


def _abstract_mesh(ctx: _Context) -> str:
    s = ctx.spelling
    a, b = _sizes(ctx)
    types = ctx.draw(st.sampled_from(["", "Explicit", "Auto"]))
    tail = (
        f", axis_types=({s.sharding['AxisType']}.{types}, {s.sharding['AxisType']}.{types})"
        if types
        else ""
    )
    return f'{s.sharding["AbstractMesh"]}(({a}, {b}), ("x", "y"){tail})'


def _concrete_mesh(ctx: _Context, explicit: bool) -> str:
    s = ctx.spelling
    a, b = ctx.draw(st.sampled_from([(2, 4), (4, 2), (8, 1), (2, 2), (1, 1)]))
    tail = f", axis_types=({s.sharding['AxisType']}.Explicit,) * 2" if explicit else ""
    return f'{s.jax}.make_mesh(({a}, {b}), ("x", "y"){tail})'


def _call(ctx: _Context, head: str, args: list[str], depth: int) -> list[_Line]:
    """`head(args)` on one line, or exploded with comments and blank lines inside the parentheses."""
    if not args or not ctx.draw(st.booleans()):
        return [_Line(depth, f"{head}({', '.join(args)})", False)]
    lines = [
        _Line(
            depth,
            f"{head}(  # {ctx.draw(st.sampled_from(['why', 'see b/123']))}",
            False,
        )
    ]
    for arg in args:
        if ctx.draw(st.booleans()):
            lines.append(_Line(0, "", False))
        lines.append(
            _Line(
                depth + 1,
                f"{arg},  # {arg[:3]}" if ctx.draw(st.booleans()) else f"{arg},",
                False,
            )
        )
    lines.append(_Line(depth, ")", False))
    return lines


def _lowering(ctx: _Context, depth: int) -> list[_Line]:
    """JAX001's pattern: lowering with shardings on an AbstractMesh, possibly inside a context."""
    s = ctx.spelling
    mesh, spec, out = ctx.fresh("mesh"), ctx.fresh("spec"), ctx.fresh("lowered")
    sharding = (
        f'{s.sharding["NamedSharding"]}({mesh}, {s.sharding["PartitionSpec"]}("x"))'
    )
    lines = [
        _Line(depth, f"{mesh} = {_abstract_mesh(ctx)}", False),
        *_call(
            ctx,
            f"{spec} = {s.jax}.ShapeDtypeStruct",
            ["(8, 8)", "jnp.float32", f"sharding={sharding}"],
            depth,
        ),
    ]
    inner = depth
    if ctx.draw(st.booleans()):
        lines.append(
            _Line(depth, f"with {s.sharding['use_abstract_mesh']}({mesh}):", False)
        )
        inner = depth + 1
    form = ctx.draw(
        st.sampled_from(
            [
                "lower",
                "trace",
                "in_shardings",
                "compile",
                "decorated",
                "partial",
                "has_platforms",
            ]
        )
    )
    if form in ("decorated", "partial"):
        function = ctx.fresh("step")
        decorator = (
            f"@{s.jit}"
            if form == "decorated"
            else f"@functools.partial({s.jit}, static_argnums=1)"
        )
        lines += [
            _Line(inner, decorator, False),
            _Line(inner, f"def {function}(a, n=2):", False),
            _Line(inner + 1, "return a * n", False),
        ]
        lines += _call(ctx, f"{out} = {function}.lower", [spec], inner)
    elif form == "lower":
        lines += _call(ctx, f"{out} = {s.jit}(jnp.sin).lower", [spec], inner)
    elif form == "trace":
        lines += _call(ctx, f"{out} = {s.jit}(jnp.sin).trace({spec}).lower", [], inner)
    elif form == "in_shardings":
        lines += _call(
            ctx,
            f"{out} = {s.jit}(jnp.cos, in_shardings={sharding}).lower",
            [f"{s.jax}.ShapeDtypeStruct((8, 8), jnp.float32)"],
            inner,
        )
    elif form == "compile":
        lines.append(
            _Line(inner, f"{out} = {s.jit}(jnp.sin).lower({spec}).compile()", False)
        )
    else:
        lines += _call(
            ctx,
            f"{out} = {s.jit}(jnp.sin).trace({spec}).lower",
            ['lowering_platforms=("cpu",)'],
            inner,
        )
    return lines


def _context_entry(ctx: _Context, outer: bool) -> tuple[list[_Line], str]:
    """A mesh context manager call, with its mesh inline or bound to a name first."""
    s = ctx.spelling
    if outer and ctx.draw(st.booleans()):
        mesh, manager = (
            _concrete_mesh(ctx, explicit=ctx.draw(st.booleans())),
            s.set_mesh,
        )
    else:
        mesh, manager = _abstract_mesh(ctx), s.sharding["use_abstract_mesh"]
    if ctx.draw(st.booleans()):
        return [], f"{manager}({mesh})"
    name = ctx.fresh("outer" if outer else "inner")
    return [_Line(0, f"{name} = {mesh}", False)], f"{manager}({name})"


def _nested_contexts(ctx: _Context, depth: int) -> list[_Line]:
    """JAX002's pattern: a mesh context inside another, possibly of another size."""
    before_outer, outer = _context_entry(ctx, outer=True)
    before_inner, inner = _context_entry(ctx, outer=False)
    lines = [_Line(depth, line.text, False) for line in before_outer + before_inner]
    form = ctx.draw(st.sampled_from(["nested", "nested", "one_line", "parenthesized"]))
    if form == "one_line":
        return lines + [
            _Line(depth, f"with {outer}, {inner}:", False),
            *_block(ctx, depth + 1),
        ]
    if form == "parenthesized":
        heads = [(0, "with ("), (1, f"{outer},"), (1, f"{inner},  # inner"), (0, "):")]
        return (
            lines
            + [_Line(depth + relative, text, False) for relative, text in heads]
            + _block(ctx, depth + 1)
        )
    lines.append(
        _Line(depth, f"with {outer}{ctx.draw(st.sampled_from(['', ' as m']))}:", False)
    )
    if ctx.draw(st.booleans()):
        lines += _block(ctx, depth + 1)
    lines.append(_Line(depth + 1, f"with {inner}:", False))
    return lines + _block(ctx, depth + 2)


def _gather(ctx: _Context, depth: int) -> list[_Line]:
    """JAX003's pattern: top_level_all_gather of an input on one mesh under set_mesh of another."""
    s = ctx.spelling
    mesh_a, mesh_b, x, y = (
        ctx.fresh("mesh_a"),
        ctx.fresh("mesh_b"),
        ctx.fresh("x"),
        ctx.fresh("y"),
    )
    spec = s.sharding["PartitionSpec"]
    lines = [
        _Line(depth, f"{mesh_a} = {_concrete_mesh(ctx, explicit=True)}", False),
        _Line(depth, f"{mesh_b} = {_concrete_mesh(ctx, explicit=True)}", False),
        *_call(
            ctx,
            f"{x} = {s.jax}.device_put",
            ["jnp.arange(8)", f'{s.sharding["NamedSharding"]}({mesh_a}, {spec}("x"))'],
            depth,
        ),
        _Line(
            depth,
            f"with {s.set_mesh}({ctx.draw(st.sampled_from([mesh_b, mesh_a]))}):",
            False,
        ),
    ]
    if ctx.draw(st.booleans()):
        lines += _block(ctx, depth + 1)
    out_spec = ctx.draw(
        st.sampled_from(
            [
                f'{spec}(reduced={{"x"}})',
                f"{s.sharding['NamedSharding']}({mesh_b}, {spec}())",
                f"{spec}()",
            ]
        )
    )
    lines += _call(ctx, f"{y} = {s.gather}", [x, out_spec], depth + 1)
    return lines


# ---- blocks and programs ----------------------------------------------------------------------


def _block(ctx: _Context, depth: int) -> list[_Line]:
    """One or more statements at `depth`, with comments and blank lines between them."""
    lines: list[_Line] = []
    kinds = ["simple", "simple", "lowering", "contexts", "gather"] + (
        ["compound", "compound"] if depth < MAX_DEPTH else []
    )
    for _ in range(ctx.draw(st.integers(1, 3 if depth == 0 else 1))):
        for _ in range(ctx.draw(st.integers(0, 1))):
            text = ctx.draw(st.sampled_from(["", *_COMMENTS]))
            lines.append(_Line(depth if text else 0, text, True))
        kind = ctx.draw(st.sampled_from(kinds)) if depth <= MAX_DEPTH else "simple"
        if kind == "simple":
            lines += [_Line(depth, text, True) for text in _simple_statement(ctx)]
        elif kind == "compound":
            lines += _compound(ctx, depth)
        elif kind == "lowering":
            lines += _lowering(ctx, depth)
        elif kind == "contexts":
            lines += _nested_contexts(ctx, depth)
        else:
            lines += _gather(ctx, depth)
    return lines


@st.composite
def programs(draw) -> Program:  # noqa: ANN001
    ctx = _Context(draw, _spelling(draw))
    lines: list[_Line] = []
    if draw(st.booleans()):
        lines.append(_Line(0, '"""A module docstring."""', True))
    if draw(st.booleans()):
        lines.append(_Line(0, "from __future__ import annotations", True))
    lines += [_Line(0, text, False) for text in ctx.spelling.imports]
    lines.append(_Line(0, "", True))
    lines += _block(ctx, 0)
    indent = draw(st.sampled_from(["    ", "  ", "\t"]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = newline.join(
        indent * line.depth + line.text if line.text else "" for line in lines
    )
    if draw(st.booleans()):
        text += newline
    surrounding = frozenset(i for i, line in enumerate(lines) if line.surrounding)
    assert len(split_lines(text)) == len(lines), (
        "a generated line contains a line break"
    )
    return Program(text, surrounding)
