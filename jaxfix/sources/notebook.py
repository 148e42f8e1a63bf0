"""Jupyter notebooks: the code cells analysed as one module, fixes spliced back byte for byte.

A notebook's code cells, in order, become one Python module: a marker comment line before each
cell, IPython syntax (`%magic`, `!shell`, `?help`) replaced by numbered placeholders, and
cells that start with a `%%cell magic` left out. The engine checks that module like a `.py`
file. Its diagnostics are mapped back to `cell N:line:col` (cells counted from 1 among all
cells, as Jupyter and ruff count them), and a fixed module is cut back into cells at the
markers with the IPython lines restored. Only the `source` values of the cells that changed are
rewritten in the document's text; every other byte (key order, indentation, escapes, outputs,
metadata, final newline) is kept, and the result is checked against the original and validated
with nbformat before anything is written.

Kept free of libcst (the engine is imported when a notebook is checked) and of nbformat
(imported when a notebook is validated).
"""

from __future__ import annotations

import codecs
import copy
import difflib
import io
import json
import os
import re
import secrets
import tokenize
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from json.decoder import scanstring  # type: ignore[attr-defined]  # public, untyped in typeshed
from pathlib import Path
from typing import Any

from jaxfix.ground.bounded_data import DataError, load_json
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location, Related
from jaxfix.sources.paths import NOTEBOOK_SUFFIX
from jaxfix.sources.source import Part, Source, SourceError
from jaxfix.sources.syntax import syntax_error

_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_NON_ASCII_ESCAPE = re.compile(r"\\u(?!00[0-7])[0-9a-fA-F]{4}")


class NotebookError(SourceError):
    """The file is not a notebook jaxfix can read or write; one line for the user."""


def split_lines(text: str) -> list[str]:
    """Lines with their `\\n` (the way nbformat splits a cell's source)."""
    return _LINE.findall(text)


@dataclass(frozen=True)
class _Token:
    """One JSON string of a cell's source: its decoded text and where its raw text sits."""

    text: str
    start: int  # offset of the opening quote in the document text
    end: int


@dataclass(frozen=True)
class Cell:
    """A code cell: its 1-based number among all cells, its source and where that lives."""

    number: int
    text: str
    tokens: tuple[_Token, ...]
    span: tuple[int, int]  # the whole `source` value in the document text
    as_list: bool  # `source` is a list of strings (nbformat's way), not one string
    cell_magic: bool  # starts with `%%`: left alone

    def line_starts(self) -> list[tuple[int, int]]:
        """For each line of the cell, the token it starts in and the offset within that token."""
        starts: list[tuple[int, int]] = []
        pending = True
        for index, token in enumerate(self.tokens):
            position = 0
            while position < len(token.text):
                if pending:
                    starts.append((index, position))
                    pending = False
                newline = token.text.find("\n", position)
                if newline == -1:
                    break
                position, pending = newline + 1, True
        return starts


@dataclass(frozen=True)
class Notebook:
    text: str  # the document, decoded (without a byte-order mark)
    bom: bytes
    data: dict[str, Any]
    cells: tuple[Cell, ...]  # code cells only

    def cell(self, number: int) -> Cell:
        return next(c for c in self.cells if c.number == number)

    def raw_line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1


def _skip(text: str, index: int) -> int:
    return _WHITESPACE.match(text, index).end()  # type: ignore[union-attr]


def _members(text: str, index: int) -> Iterator[tuple[str, int, int]]:
    """(key, value start, value end) of the JSON object at `index` (already known to be valid)."""
    index = _skip(text, index + 1)
    while text[index] != "}":
        key, index = scanstring(text, index + 1)
        index = _skip(text, _skip(text, index) + 1)
        _, end = _DECODER.raw_decode(text, index)
        yield key, index, end
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)


def _elements(text: str, index: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each element of the JSON array at `index`."""
    index = _skip(text, index + 1)
    while text[index] != "]":
        _, end = _DECODER.raw_decode(text, index)
        yield index, end
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)


def _decode(source: bytes) -> tuple[bytes, str]:
    bom = codecs.BOM_UTF8 if source.startswith(codecs.BOM_UTF8) else b""
    try:
        return bom, source[len(bom) :].decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotebookError(
            f"not a notebook: not UTF-8 (byte {error.object[error.start]:#04x} at offset {error.start})"
        ) from None


def load(source: bytes) -> tuple[bytes, str, dict[str, Any]]:
    """The document as data, or NotebookError: malformed JSON, not a notebook, not nbformat 4."""
    bom, text = _decode(source)
    try:
        data = load_json(text)
    except DataError as error:
        raise NotebookError(
            f"not a notebook: {error}",
            None if error.line is None else Location(error.line, error.column or 1),
        ) from None
    if not isinstance(data, dict) or "nbformat" not in data:
        raise NotebookError(
            "not a Jupyter notebook: the JSON document has no 'nbformat' key"
        )
    version = data["nbformat"]
    if version != 4:
        raise NotebookError(
            f"nbformat {version} notebook: jaxfix reads nbformat 4 "
            "(convert it with `jupyter nbconvert --to notebook --nbformat 4`)"
        )
    if not isinstance(data.get("cells"), list):
        raise NotebookError("not a valid nbformat 4 notebook: 'cells' is not a list")
    return bom, text, data


def validate(data: dict[str, Any], what: str = "notebook") -> None:
    """nbformat's own schema check, on a copy (nbformat may repair what it checks).

    Cell ids came with nbformat 4.5, but Jupyter and nbformat.read() accept them in notebooks
    that declare an older minor (JupyterLab and VS Code write such files): a notebook with ids
    is checked as the 4.5 notebook it is (4.5 adds only ids; nbformat fills the ids missing on
    the copy). The document itself is never changed: no id is added or dropped.
    """
    import nbformat

    checked = copy.deepcopy(data)
    minor = checked.get("nbformat_minor")
    cells = checked.get("cells")
    if (
        type(minor) is int
        and minor < 5
        and isinstance(cells, list)
        and any(isinstance(c, dict) and "id" in c for c in cells)
    ):
        checked["nbformat_minor"] = 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            nbformat.validate(checked)
        except nbformat.ValidationError as error:
            raise NotebookError(
                f"{what} does not validate against the nbformat schema: {error.message}"
            ) from None


def _is_cell_magic(text: str) -> bool:
    return text.lstrip(" \t").startswith("%%")


def parse(source: bytes) -> Notebook:
    """Read a notebook: its data and, for each code cell, where its source sits in the text."""
    bom, text, data = load(source)
    cells_value = next(
        (start for key, start, _ in _members(text, _skip(text, 0)) if key == "cells"),
        None,
    )
    assert cells_value is not None
    cells = []
    for number, ((start, _), cell_data) in enumerate(
        zip(_elements(text, cells_value), data["cells"]), start=1
    ):
        if not isinstance(cell_data, dict) or cell_data.get("cell_type") != "code":
            continue
        spans = [(s, e) for key, s, e in _members(text, start) if key == "source"]
        if not spans:
            raise NotebookError(
                f"not a valid nbformat 4 notebook: cell {number} has no 'source'"
            )
        if (
            len(spans) > 1
        ):  # JSON readers disagree on which one counts: Python's takes the last
            raise NotebookError(
                f"not a valid nbformat 4 notebook: cell {number} has {len(spans)} 'source' keys"
            )
        span = spans[0]
        value = cell_data["source"]
        tokens: tuple[_Token, ...]
        if isinstance(value, str):
            tokens = (_Token(value, *span),)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            tokens = tuple(
                _Token(v, s, e) for v, (s, e) in zip(value, _elements(text, span[0]))
            )
        else:
            raise NotebookError(
                f"not a valid nbformat 4 notebook: cell {number}'s source is not text"
            )
        joined = "".join(t.text for t in tokens)
        cells.append(
            Cell(
                number,
                joined,
                tokens,
                span,
                isinstance(value, list),
                _is_cell_magic(joined),
            )
        )
    return Notebook(text, bom, data, tuple(cells))


# ---- IPython syntax ---------------------------------------------------------------------------

_ASSIGNED_ESCAPE = re.compile(r"[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]")


# IPython's line magics (`%lsmagic` of a default kernel), which automagic (on by default) runs
# without their `%`: `pip install jax`, `timeit -n 5 f(x)`.
_LINE_MAGICS = frozenset(
    "alias alias_magic autoawait autocall automagic autosave bookmark cat cd clear colors "
    "conda config connect_info cp debug dhist dirs doctest_mode ed edit env gui hist history "
    "killbgscripts ldir less lf lk ll load load_ext loadpy logoff logon logstart logstate "
    "logstop ls lsmagic lx macro magic man matplotlib mkdir more mv notebook page pastebin "
    "pdb pdef pdoc pfile pinfo pinfo2 pip popd pprint precision prun psearch psource pushd "
    "pwd pycat pylab qtconsole quickref recall rehashx reload_ext rep rerun reset "
    "reset_selective rm rmdir run save sc set_env store sx system tb time timeit unalias "
    "unload_ext who who_ls whos xdel xmode".split()
)


def _is_ipython(line: str) -> bool:
    """A line IPython rewrites before Python sees it: `%magic`, `!shell`, `x = !cmd`, `?obj`, `obj?`."""
    code = line.strip()
    if not code or code.startswith("#"):
        return False
    return (
        code[0] in "%!?"
        or bool(_ASSIGNED_ESCAPE.match(code))
        or ("#" not in code and code.endswith("?"))
    )


def _is_automagic(line: str) -> bool:
    """An automagic line (`pip install jax`): a line magic's name, then what Python cannot
    read; `time = 5` or `cd / x` stay Python."""
    code = line.strip()
    name, _, rest = code.partition(" ")
    if name not in _LINE_MAGICS or not rest.strip():
        return False
    try:
        compile(code, "<cell>", "exec", dont_inherit=True)
    except SyntaxError:
        return True
    except ValueError:  # a null byte: not ours to judge
        return False
    return False


def _at_statement_start(lines: list[str]) -> bool:
    """Whether the text so far is complete, so the next line begins a new statement."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO("".join(lines)).readline):
            pass
    except tokenize.TokenError:
        return False
    except (SyntaxError, ValueError):  # e.g. an indentation error: not ours to judge
        return True
    return True


@dataclass
class CellsModule:
    """The Python module made of a notebook's code cells. Its marker and placeholder comments carry
    a tag drawn at random for this module and found nowhere in the notebook, so no text of the
    user's can pass for one (a cell holding `# jaxfix: cell 8` is just a comment)."""

    lines: list[str]
    origin: list[
        tuple[int, int] | None
    ]  # per module line: (cell number, line in cell), None for markers
    masked: list[str]  # original text of each placeholder, by number
    tag: str

    def marker(self, cell: int) -> str:
        return f"# {self.tag}: cell {cell}\n"

    def placeholder(self, number: int, in_block: bool) -> str:
        """A comment at the top level (so fixes that add imports still find the module's import
        block), a `pass` in a block (a block needs a statement)."""
        return f"{'pass  ' if in_block else ''}# {self.tag}: ipython {number}\n"

    @property
    def code(self) -> bytes:
        return "".join(self.lines).encode("utf-8")

    def locate(self, location: Location) -> Location:
        where = (
            self.origin[location.line - 1]
            if 0 < location.line <= len(self.origin)
            else None
        )
        if where is None:
            return location
        return Location(where[1], location.column, where[0])


def _tag(text: str) -> str:
    while True:
        tag = f"jaxfix-{secrets.token_hex(8)}"
        if tag not in text:
            return tag


def to_module(notebook: Notebook) -> CellsModule:
    return cells_module([(c.number, c.text) for c in notebook.cells], notebook.text)


def cells_module(cells: Sequence[tuple[int, str]], holder: str) -> CellsModule:
    """The module of the code cells (number among all cells, text), its tag found nowhere in
    `holder` (the text that holds them)."""
    module = CellsModule([], [], [], _tag(holder))
    for cell_number, text in cells:
        module.lines.append(module.marker(cell_number))
        module.origin.append(None)
        if _is_cell_magic(text):
            continue
        lines = split_lines(text)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        continuing_indent: str | None = None
        for number, line in enumerate(lines, start=1):
            if continuing_indent is not None:  # a line continued from a masked one
                masked, indent = True, continuing_indent
            else:
                # the line's own test first: the others tokenize the cell so far
                escape = _is_ipython(line)
                masked = (escape or _is_automagic(line)) and (
                    _at_statement_start(lines[: number - 1])
                    and (escape or _at_statement_start(lines[:number]))
                )
                indent = line[: len(line) - len(line.lstrip(" \t"))]
            if masked:
                module.lines.append(
                    indent + module.placeholder(len(module.masked), bool(indent))
                )
                module.masked.append(line)
                continuing_indent = (
                    indent if line.rstrip("\r\n").endswith("\\") else None
                )
            else:
                module.lines.append(line)
            module.origin.append((cell_number, number))
    return module


def cells_of(module: CellsModule, notebook: Notebook, code: str) -> dict[int, str]:
    return cut(module, [(c.number, c.text) for c in notebook.cells], code)


def cut(
    module: CellsModule, cells: Sequence[tuple[int, str]], code: str
) -> dict[int, str]:
    """Cut a (fixed) module of `cells` back into cell texts, IPython lines restored; raise if
    the markers or placeholders did not survive the fix unchanged and in order."""
    texts: dict[int, list[str]] = {}
    current: list[str] = []
    expected = [number for number, _ in cells]
    seen: list[int] = []
    restored = 0
    tag = re.escape(module.tag)
    marker_line = re.compile(rf"# {tag}: cell (\d+)\r?\n?\Z")
    placeholder_line = re.compile(rf"[ \t]*(?:pass  )?# {tag}: ipython (\d+)\n\Z")
    for line in split_lines(code):
        marker = marker_line.match(line)
        if marker:
            seen.append(int(marker[1]))
            current = texts.setdefault(
                int(marker[1]), current if len(seen) == 1 else []
            )
            continue
        placeholder = placeholder_line.match(line)
        if placeholder:
            if int(placeholder[1]) != restored:
                raise NotebookError(
                    "a fix disturbed the IPython lines of a cell; notebook left untouched"
                )
            line = module.masked[restored]
            restored += 1
        current.append(line)
    if seen != expected or restored != len(module.masked):
        raise NotebookError(
            "a fix disturbed the cell boundaries; notebook left untouched"
        )
    result = {}
    for number, old in cells:
        text = "".join(texts[number])
        if _is_cell_magic(old):
            if text:
                raise NotebookError(
                    "a fix wrote into a cell magic cell; notebook left untouched"
                )
            continue
        if old and not old.endswith("\n") and text.endswith("\n"):
            text = text[:-1]
        result[number] = text
    return result


# ---- writing ----------------------------------------------------------------------------------


def _list_source(
    cell: Cell, notebook: Notebook, new_text: str, ensure_ascii: bool
) -> str:
    """The new `source` array, laid out like the old one; unchanged strings keep their raw text."""
    text = notebook.text
    raw = {t.text: text[t.start : t.end] for t in reversed(cell.tokens)}
    open_space = text[cell.span[0] + 1 : cell.tokens[0].start] if cell.tokens else "\n"
    if len(cell.tokens) > 1:
        separator = text[cell.tokens[0].end : cell.tokens[1].start]
    else:
        separator = "," + open_space
    close_space = text[cell.tokens[-1].end : cell.span[1] - 1] if cell.tokens else ""
    items = [
        raw.get(line) or json.dumps(line, ensure_ascii=ensure_ascii)
        for line in split_lines(new_text)
    ]
    if not items:
        return "[]"
    return "[" + open_space + separator.join(items) + close_space + "]"


def splice(notebook: Notebook, new_texts: dict[int, str]) -> bytes:
    """The document with the `source` of each changed cell replaced, and nothing else."""
    text = notebook.text
    # Written with non-ASCII characters escaped (`\u00e9`, not `é`)? Escapes below U+0080 (`\u001b`
    # in outputs) are written by every JSON writer and say nothing.
    ensure_ascii = text.isascii() and _NON_ASCII_ESCAPE.search(text) is not None
    pieces, position = [], 0
    expected = copy.deepcopy(notebook.data)
    for cell in notebook.cells:
        new = new_texts.get(cell.number, cell.text)
        if new == cell.text:
            continue
        if cell.as_list:
            value = _list_source(cell, notebook, new, ensure_ascii)
            expected["cells"][cell.number - 1]["source"] = split_lines(new)
        else:
            value = json.dumps(new, ensure_ascii=ensure_ascii)
            expected["cells"][cell.number - 1]["source"] = new
        pieces += [text[position : cell.span[0]], value]
        position = cell.span[1]
    pieces.append(text[position:])
    fixed = "".join(pieces)
    if json.loads(fixed) != expected:
        raise NotebookError(
            "internal error: the spliced notebook does not hold the fixed cells; left untouched"
        )
    validate(expected, "the fixed notebook")
    return notebook.bom + fixed.encode("utf-8")


# ---- the engine's view: a notebook as a Source ------------------------------------------------


def shape_error(path: Path, source: bytes) -> FileResult | None:
    """The one-line error for a file that is not a readable nbformat 4 notebook (cheap: no nbformat)."""
    try:
        load(source)
    except NotebookError as error:
        return FileResult(path, source, error=str(error), error_location=error.location)
    return None


def notebook_syntax_error(source: bytes) -> tuple[str, Location] | None:
    """The first syntax error in a notebook's code cells (for `--strict`), placed in its cell."""
    try:
        module = to_module(parse(source))
    except NotebookError as error:
        return str(error), error.location or Location(1, 1)
    return _module_syntax_error(module)


def _module_syntax_error(module: CellsModule) -> tuple[str, Location] | None:
    found = syntax_error(module.code)
    return None if found is None else (found[0], module.locate(found[1]))


def _module_lines(
    notebook: Notebook, module: CellsModule, raw_lines: frozenset[int]
) -> frozenset[int]:
    """Changed lines of the document (as `git diff` counts them) as lines of the module."""
    by_cell = {cell.number: cell for cell in notebook.cells}
    starts = {number: cell.line_starts() for number, cell in by_cell.items()}
    lines = set()
    for module_line, where in enumerate(module.origin, start=1):
        if where is None:
            continue
        cell = by_cell[where[0]]
        token_index, _ = starts[where[0]][where[1] - 1]
        if notebook.raw_line(cell.tokens[token_index].start) in raw_lines:
            lines.add(module_line)
    return frozenset(lines)


_LINE_REFERENCE = re.compile(r"\bline (\d+)\b")


def _map_message(message: str, module: CellsModule) -> str:
    """Rules name other places by module line ("the call at line 12"): name them by cell."""

    def cell_line(match: re.Match[str]) -> str:
        where = module.locate(Location(int(match[1]), 1))
        return (
            match[0] if where.cell is None else f"cell {where.cell}, line {where.line}"
        )

    return _LINE_REFERENCE.sub(cell_line, message)


def _map_diagnostic(diagnostic: Diagnostic, module: CellsModule) -> Diagnostic:
    start, end = module.locate(diagnostic.start), module.locate(diagnostic.end)
    fix_lines, fix_cell = diagnostic.fix_lines, None
    if fix_lines is not None:
        first, last = (module.locate(Location(line, 1)) for line in fix_lines)
        fix_lines, fix_cell = (
            ((first.line, last.line), first.cell)
            if first.cell == last.cell
            else (None, None)
        )
    return replace(
        diagnostic,
        message=_map_message(diagnostic.message, module),
        start=start,
        end=end,
        fix_lines=fix_lines,
        fix_cell=fix_cell,
        related=tuple(
            r
            if r.path is not None  # another file's place
            else Related(_map_message(r.message, module), module.locate(r.start))
            for r in diagnostic.related
        ),
    )


class _Cells(Source):
    """What both notebook kinds share: their code cells checked as one module (`module`),
    diagnostics mapped to `cell N:line:col`; no `# noqa` is written into them, and the cache
    reads them every run."""

    settles_unread = False
    takes_comments = False
    has_cells = True
    module: CellsModule

    def place(self, location: Location) -> Location:
        return self.module.locate(location)

    def located(self, diagnostic: Diagnostic) -> Diagnostic:
        return _map_diagnostic(diagnostic, self.module)


@dataclass(frozen=True)
class NotebookSource(_Cells):
    """A `.ipynb` file's bytes (on disk, stdin, or open as text in an editor). Its code is
    validated with nbformat before it is checked; a fix is spliced into the document's text,
    which keeps every other byte."""

    path: Path
    original: bytes

    @cached_property
    def notebook(self) -> Notebook:
        return parse(self.original)

    @cached_property
    def module(self) -> CellsModule:  # type: ignore[override]  # drawn once (its random tag): never set
        return to_module(self.notebook)

    def problem(self) -> FileResult | None:
        return shape_error(self.path, self.original)

    def code(self) -> bytes:
        validate(self.notebook.data)
        return self.module.code

    def code_lines(self, lines: frozenset[int] | None) -> frozenset[int] | None:
        return (
            None if lines is None else _module_lines(self.notebook, self.module, lines)
        )

    def spliced(self, fixed: bytes) -> bytes:
        notebook = self.notebook
        return splice(notebook, cells_of(self.module, notebook, fixed.decode("utf-8")))

    def syntax_error(self) -> tuple[str, Location] | None:
        return notebook_syntax_error(self.original)

    def stored(self, result: FileResult) -> FileResult:
        """The result with positions in the notebook's own text (its JSON lines); each
        message starts with its cell position."""
        try:
            raw = self._raw
        except NotebookError:  # not a notebook: its error is already placed in its text
            return result

        def raw_line(cell: int | None, line: int) -> int:
            return raw(Location(line, 1, cell)).line

        diagnostics = []
        for d in result.diagnostics:
            fix_lines = (
                None
                if d.fix_lines is None
                else (
                    raw_line(d.fix_cell, d.fix_lines[0]),
                    raw_line(d.fix_cell, d.fix_lines[1]),
                )
            )
            diagnostics.append(
                replace(
                    d,
                    message=f"{d.start}: {d.message}",
                    start=raw(d.start),
                    end=raw(d.end),
                    fix_lines=fix_lines,
                    fix_cell=None,
                    related=tuple(
                        r
                        if r.path is not None  # another file's place
                        else Related(f"{r.start}: {r.message}", raw(r.start))
                        for r in d.related
                    ),
                )
            )
        error, where = result.error, result.error_location
        if error is not None and where is not None and where.cell is not None:
            error, where = f"{where}: {error}", raw(where)
        return replace(
            result, diagnostics=tuple(diagnostics), error=error, error_location=where
        )

    def original_lines(self, start: Location, end: Location) -> tuple[int, int]:
        raw = self._raw
        return raw(start).line, raw(end).line

    @property
    def _raw(self) -> Callable[[Location], Location]:
        """A place in a cell as a place in the document's text (other places as they are)."""
        notebook = self.notebook
        starts = {cell.number: cell.line_starts() for cell in notebook.cells}

        def raw(location: Location) -> Location:
            if location.cell is None:
                return location
            cell = notebook.cell(location.cell)
            lines = starts[cell.number]
            if not lines:  # an empty cell: its `source` value
                return Location(notebook.raw_line(cell.span[0]), 1)
            token_index, offset = lines[min(location.line, len(lines)) - 1]
            token = cell.tokens[token_index]
            line = notebook.raw_line(token.start)
            line_start = notebook.text.rfind("\n", 0, token.start) + 1
            column = (
                token.start
                - line_start
                + _raw_offset(
                    notebook.text[token.start : token.end],
                    offset + location.column - 1,
                )
            )
            return Location(line, column + 1)

        return raw

    def diff(self, display_path: str, fixed: bytes) -> str | None:
        return cell_diff(display_path, self.original, fixed)

    def parts(self, fixed: bytes) -> list[Part]:
        return [
            Part(f":cell {number}", old.encode(), new.encode(), number)
            for number, old, new in changed_cells(self.original, fixed)
        ]


@dataclass(frozen=True)
class EditorCells(_Cells):
    """A notebook document an editor holds as cells (LSP 3.17), built from them: no JSON.
    Its `original` is its code, the module of its code cells; a fixed version of it is cut
    back into cell texts (`texts`)."""

    path: Path
    # each code cell: its number among all cells, its text
    cells: tuple[tuple[int, str], ...]
    module: CellsModule = field(compare=False)  # drawn once: its random tag

    @classmethod
    def of(cls, name: str, cells: Sequence[tuple[int, str]]) -> EditorCells:
        """The document named `name` (`.ipynb` added when its name lacks it)."""
        path = Path(name if name.endswith(NOTEBOOK_SUFFIX) else name + NOTEBOOK_SUFFIX)
        held = tuple(cells)
        return cls(path, held, cells_module(held, "".join(t for _, t in held)))

    @property
    def original(self) -> bytes:  # type: ignore[override]  # its code: never set
        return self.module.code

    def spliced(self, fixed: bytes) -> bytes:
        texts = self.texts(fixed)
        unchanged = all(texts.get(n, text) == text for n, text in self.cells)
        return self.original if unchanged else fixed

    def syntax_error(self) -> tuple[str, Location] | None:
        return _module_syntax_error(self.module)

    def original_lines(self, start: Location, end: Location) -> tuple[int, int]:
        lines = {
            where: n for n, where in enumerate(self.module.origin, start=1) if where
        }
        return (
            lines.get((start.cell or 0, start.line), 0),
            lines.get((end.cell or 0, end.line), 0),
        )

    def parts(self, fixed: bytes) -> list[Part]:
        texts = self.texts(fixed)
        return [
            Part(f":cell {n}", old.encode(), str(texts[n]).encode(), n)
            for n, old in self.cells
            if texts.get(n, old) != old
        ]

    def texts(self, fixed: bytes) -> dict[int | None, str]:
        cells = cut(self.module, self.cells, fixed.decode("utf-8"))
        return {number: text for number, text in cells.items()}


# ---- output -----------------------------------------------------------------------------------


def changed_cells(old: bytes, new: bytes) -> list[tuple[int, str, str]]:
    """(cell number, old source, new source) of each code cell whose source differs."""
    before, after = parse(old), parse(new)
    pairs = [
        (cell.number, cell.text, after.cell(cell.number).text) for cell in before.cells
    ]
    return [(number, a, b) for number, a, b in pairs if a != b]


def cell_diff(display_path: str, old: bytes, new: bytes) -> str:
    """A readable diff of the code cells that changed, one `path:cell N` section per cell (its
    name quoted as git quotes names, so no header can be forged in it)."""
    from jaxfix.ground.escaping import git_path

    out = []
    for number, old_text, new_text in changed_cells(old, new):
        name = os.fsencode(f"{display_path}:cell {number}")
        names = (git_path(prefix + name).decode("ascii") for prefix in (b"a/", b"b/"))
        for line in difflib.unified_diff(
            split_lines(old_text), split_lines(new_text), *names
        ):
            out.append(line)
            if not line.endswith("\n"):
                out.append("\n\\ No newline at end of file\n")
    return "".join(out)


def _raw_offset(raw: str, characters: int) -> int:
    """How many characters of a raw JSON string (after its quote) hold its first `characters`."""
    index, count = 1, 0
    while count < characters and index < len(raw) - 1:
        if raw[index] == "\\":
            if raw[index + 1] == "u":
                high = int(raw[index + 2 : index + 6], 16)
                index += (
                    12
                    if 0xD800 <= high < 0xDC00 and raw[index + 6 : index + 8] == "\\u"
                    else 6
                )
            else:
                index += 2
        else:
            index += 1
        count += 1
    return index
