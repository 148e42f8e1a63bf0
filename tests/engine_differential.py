"""The old engine (LibCST, jaxfix/analysis/module.py) and the new one (`ast`,
jaxfix/analysis/ast_engine) asked the same questions on every fixture, answers compared.

The questions are the ones the rules ask: the value of every mesh-building call
(`AbstractMesh`, `make_mesh`, `Mesh`, `.update(...)`, `get_abstract_mesh()`), of the mesh given
to every mesh context and `NamedSharding`, and the mesh current (the innermost context that sets
it, on every way the code runs) at every `use_abstract_mesh`, `.lower(...)` and
`top_level_all_gather` call. Each answer is normalised to plain data (a mesh to its kind, names,
sizes, types and abstract device; `UNKNOWN` for Unknown) and classed:
`same`, `better` (old Unknown, new known), `worse` (old known, new Unknown), `conflict` (both
known, different: one of them is wrong). A notebook is compared as the engines see it: its
code cells as one module (jaxfix/notebook.py). Each module is asked about as a run asks
(`Engine.begin`: no answer kept from an earlier module). Run as a script for the full listing:
`python -m tests.engine_differential`.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jaxfix.analysis import values as old_values
from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine import values as new_values
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.contexts import Entry as OldEntry
from jaxfix.analysis.contexts import context_mesh_sites as innermost
from jaxfix.analysis.module import ModuleAnalysis, new_project_index
from jaxfix.analysis.project import ProjectIndex
from jaxfix.jax_version import parse_version
from jaxfix.notebook import parse as parse_notebook
from jaxfix.notebook import to_module
from jaxfix.paths import is_notebook
from tests.fixture_cases import ENGINE, Case, all_cases, read_header

UNKNOWN = "UNKNOWN"
NOT_ASKED = "(the old engine has no such answer: rule-local code)"
_LOWERING_CALLS = frozenset({"lower", "trace"})
_VALUE_CALLS = frozenset(
    {"AbstractMesh", "make_mesh", "Mesh", "update", "get_abstract_mesh"}
)
_MESH_ARGUMENT_CALLS = frozenset(
    {"use_abstract_mesh", "set_mesh", "use_mesh", "NamedSharding"}
)
_CONTEXT_CALLS = frozenset({"use_abstract_mesh", "lower", "top_level_all_gather"})


@dataclass(frozen=True)
class Answer:
    case: str
    line: int
    question: str  # "value of <code>", "mesh of <code>", "current mesh at <code>"
    old: object
    new: object
    new_why: str

    @property
    def verdict(self) -> str:
        if self.old == NOT_ASKED:
            return "new-only"
        if self.old == self.new:
            return "same"
        if _refines(self.new, self.old):
            return "better"
        if _refines(self.old, self.new):
            return "worse"
        return "conflict"


def _refines(a: object, b: object) -> bool:
    """`a` says all `b` says and more: `b` is UNKNOWN, or a mesh whose unknown fields (None)
    `a` knows."""
    if b == UNKNOWN:
        return a != UNKNOWN
    if not (
        isinstance(a, tuple) and isinstance(b, tuple) and a[:1] == b[:1] == ("mesh",)
    ):
        return False
    return all(_field_refines(x, y) for x, y in zip(a[1:], b[1:]))


def _field_refines(a: object, b: object) -> bool:
    if a == b or b is None:
        return True
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return all(x == y or y is None for x, y in zip(a, b))
    return False


def old_plain(value: object) -> object:
    if isinstance(value, old_values.Unknown):
        return UNKNOWN
    if isinstance(value, old_values.MeshValue):
        return _mesh_plain(
            value.kind.value,
            value.axis_names,
            value.axis_sizes,
            value.axis_types,
            value.has_abstract_device,
        )
    if isinstance(value, tuple):
        return tuple(old_plain(v) for v in value)
    if isinstance(value, old_values.AxisType):
        return value.value
    if isinstance(value, old_values.Devices):
        return ("devices", value.shape, value.is_array)
    return value


def new_plain(value: object) -> object:
    if isinstance(value, new_values.Unknown):
        return UNKNOWN
    if isinstance(value, new_values.Mesh):
        return _mesh_plain(
            value.kind.value,
            value.axis_names,
            value.axis_sizes,
            value.axis_types,
            value.has_abstract_device,
        )
    if isinstance(value, (tuple, new_values.ListValue)):
        items = value.items if isinstance(value, new_values.ListValue) else value
        return tuple(new_plain(v) for v in items)
    if isinstance(value, new_values.AxisType):
        return value.value
    if isinstance(value, new_values.Devices):
        return ("devices", value.shape, value.is_array)
    if isinstance(
        value, (int, str, float, type(None))
    ):  # bools too: the old engine has them
        return value
    return ("new-only", type(value).__name__)


def _leaf_meshes(value: object) -> object:
    """The mesh of each leaf of a lowering argument: a ShapeDtypeStruct's or array's sharding,
    eval_shape's structs; UNKNOWN for a leaf whose mesh the engine does not know."""
    if isinstance(value, (tuple, new_values.ListValue)):
        items = value.items if isinstance(value, new_values.ListValue) else value
        return tuple(_leaf_meshes(v) for v in items)
    if isinstance(value, new_values.DictValue):
        return tuple(_leaf_meshes(v) for _, v in value.items)
    if isinstance(value, new_values.ShapeStruct):
        if value.sharding is None:
            return None
        value = value.sharding
    if isinstance(value, new_values.Array):
        value = value.sharding
    if isinstance(value, new_values.Sharding):
        return new_plain(value.mesh)
    if isinstance(value, new_values.Structs):
        return new_plain(value.mesh)
    return UNKNOWN


def _mesh_plain(
    kind: str,
    names: object,
    sizes: object,
    types: tuple[old_values.AxisType, ...] | None,
    device: bool,
) -> object:
    return (
        "mesh",
        kind,
        names,
        sizes,
        None if types is None else tuple(t.value for t in types),
        device,
    )


def _why(value: object) -> str:
    return value.why if isinstance(value, new_values.Unknown) else ""


def _last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _mesh_argument(call: ast.Call) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == "mesh":
            return keyword.value
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return None


class _CstIndex:
    """LibCST nodes by their start (line, character column)."""

    def __init__(self, wrapper: MetadataWrapper) -> None:
        positions = wrapper.resolve(PositionProvider)
        self.by_span: dict[
            tuple[int, int, int, int, type[cst.CSTNode]], cst.CSTNode
        ] = {}
        for node, where in positions.items():
            start, end = where.start, where.end
            key = (start.line, start.column, end.line, end.column, type(node))
            self.by_span.setdefault(key, node)

    def find(
        self, node: ast.AST, lines: list[bytes], kind: type[cst.CSTNode]
    ) -> cst.CSTNode | None:
        line, end_line = getattr(node, "lineno", 0), getattr(node, "end_lineno", 0)
        start = _characters(lines, line, getattr(node, "col_offset", 0))
        end = _characters(lines, end_line, getattr(node, "end_col_offset", 0))
        return self.by_span.get((line, start, end_line, end, kind))


def _characters(lines: list[bytes], line: int, column: int) -> int:
    """`ast` columns are UTF-8 byte offsets, LibCST's are characters."""
    text = lines[line - 1] if 0 < line <= len(lines) else b""
    return len(text[:column].decode("utf-8", "replace"))


def _old_current(analysis: ModuleAnalysis, node: cst.CSTNode) -> object:
    sites = analysis.contexts_at(node)
    chosen = innermost(sites)
    if not chosen:
        if any(s.entry in (OldEntry.USE, OldEntry.ELSEWHERE) for s in sites):
            return UNKNOWN
        return None
    meshes = [s.mesh for s in chosen]
    if not all(isinstance(m, old_values.MeshValue) for m in meshes):
        return UNKNOWN
    plain = [
        old_plain(
            m
            if m.is_abstract
            else old_values.MeshValue(
                kind=old_values.MeshKind.ABSTRACT,
                axis_names=m.axis_names,
                axis_sizes=m.axis_sizes,
                axis_types=m.axis_types,
                has_abstract_device=True,
                node=m.node,
            )
        )
        for m in meshes
        if isinstance(m, old_values.MeshValue)
    ]
    return plain[0] if all(p == plain[0] for p in plain) else UNKNOWN


def compare_case(case: Case, every_module: bool = False) -> list[Answer]:
    """Every question asked of both engines on one fixture case (in each module of its tree
    with `every_module`: an engine case's fix may belong in a helper module)."""
    version = parse_version(case.header["target-jax"])
    root = case.project or case.before.parent
    index = new_project_index((root,))
    files = tuple(
        p for p in sorted(root.rglob("*.py")) if not p.name.endswith(".fixed.py")
    )
    new = Engine(
        roots=(root,),
        files=files if case.project else (case.before,),
        jax_version=version,
    )
    answers: list[Answer] = []
    for path in files if every_module else (case.before,):
        answers.extend(_compare_module(case, path, version, index, new))
    return answers


def _compare_module(
    case: Case,
    path: Path,
    version: tuple[int, ...],
    index: ProjectIndex[ModuleAnalysis],
    new: Engine,
) -> list[Answer]:
    source = path.read_bytes()
    if is_notebook(
        path
    ):  # its code cells as one module, the same bytes for both engines
        source = to_module(parse_notebook(source)).code
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    old = ModuleAnalysis(wrapper, version, path=path, project=index)
    cst_index = _CstIndex(wrapper)
    module = new.begin(path, source if is_notebook(path) else None)
    assert isinstance(module, Module), module
    lines = source.splitlines()
    answers: list[Answer] = []
    where = case.id if path == case.before else f"{case.id}/{path.name}"

    def ask(
        question: str, node: ast.AST, old_answer: object, new_answer: object
    ) -> None:
        answers.append(
            Answer(
                where,
                getattr(node, "lineno", 0),
                question,
                old_answer,
                new_plain(new_answer),
                _why(new_answer),
            )
        )

    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Call):
            continue
        name = _last_name(node.func)
        if name is None:
            continue
        old_call = cst_index.find(node, lines, cst.Call)
        if old_call is None:
            continue
        assert isinstance(old_call, cst.Call)
        code = ast.unparse(node)[:60]
        if name in _VALUE_CALLS:
            ask(
                f"value of {code}",
                node,
                old_plain(old.value_of(old_call)),
                new.value_of(module, node),
            )
        if name in _MESH_ARGUMENT_CALLS:
            argument = _mesh_argument(node)
            kind = _CST_OF_AST.get(type(argument)) if argument is not None else None
            old_argument = (
                cst_index.find(argument, lines, kind)
                if argument is not None and kind is not None
                else None
            )
            if argument is not None and isinstance(old_argument, cst.BaseExpression):
                ask(
                    f"mesh of {code}",
                    argument,
                    old_plain(old.value_of(old_argument)),
                    new.value_of(module, argument),
                )
        if name in _LOWERING_CALLS and isinstance(node.func, ast.Attribute):
            leaves = [
                _leaf_meshes(
                    new.value_of(module, a.value if isinstance(a, ast.Starred) else a)
                )
                for a in node.args
            ]
            answers.append(
                Answer(
                    where,
                    node.lineno,
                    f"argument meshes of {code}",
                    NOT_ASKED,
                    tuple(leaves),
                    "",
                )
            )
        if name in _CONTEXT_CALLS:
            ask(
                f"current mesh at {code}",
                node,
                _old_current(old, old_call),
                new.current_mesh(module, node),
            )
    return answers


_CST_OF_AST: dict[type[ast.AST], type[cst.CSTNode]] = {
    ast.Name: cst.Name,
    ast.Attribute: cst.Attribute,
    ast.Call: cst.Call,
    ast.Subscript: cst.Subscript,
    ast.Tuple: cst.Tuple,
    ast.List: cst.List,
}


def engine_cases() -> list[Case]:
    """fixtures/engine/: one tree per capability (tests/engine_cases.py), as project cases."""
    cases = []
    for tree in sorted(p for p in ENGINE.iterdir() if p.is_dir()):
        entries = [
            p
            for p in sorted(tree.rglob("*.py"))
            if not p.name.endswith(".fixed.py") and "case" in read_header(p)
        ]
        if len(entries) == 1:
            cases.append(
                Case(
                    "engine", tree.name, entries[0], None, read_header(entries[0]), tree
                )
            )
    return cases


def compare_all() -> tuple[list[Answer], list[str]]:
    """Answers on every fixture case (scripts and notebooks) and engine case, and the cases
    that could not be compared, with why."""
    answers: list[Answer] = []
    skipped: list[str] = []
    for case in engine_cases():
        answers.extend(compare_case(case, every_module=True))
    for case in all_cases():
        try:
            answers.extend(compare_case(case))
        except (SyntaxError, cst.ParserSyntaxError, AssertionError) as error:
            skipped.append(f"{case.id}: {type(error).__name__} {error}")
    return answers, skipped


def report(answers: list[Answer], skipped: list[str]) -> str:
    counts = Counter(a.verdict for a in answers)
    lines = [
        f"{len(answers)} answers: "
        + ", ".join(
            f"{counts[v]} {v}"
            for v in ("same", "better", "worse", "conflict", "new-only")
        )
    ]
    for verdict in ("conflict", "worse", "better", "new-only"):
        for a in answers:
            if a.verdict == verdict:
                lines.append(
                    f"{verdict:8} {a.case}:{a.line} {a.question}\n"
                    f"         old {a.old}\n         new {a.new} {a.new_why}"
                )
    lines.extend(f"skipped  {s}" for s in skipped)
    return "\n".join(lines)


if __name__ == "__main__":
    found, not_compared = compare_all()
    print(report(found, not_compared))
