"""Where a traceback raised in the local tree: the innermost frame outside libraries, mapped by
the longest matching path suffix onto the files under the given paths, its line confirmed."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import replace
from pathlib import Path, PurePosixPath

from jaxfix.fromlog.tracebacks import Frame
from jaxfix.ground.quoting import cut
from jaxfix.sources.file_io import UNDECODABLE, ReadError, read_regular, source_lines
from jaxfix.sources.kinds import kind_of

# Frames that are never the user's: installed packages, JAX itself, the standard library
# (contextlib for a decorator-entered mesh), and code without a file.
_LIBRARY = re.compile(
    r"(^|/)(site-packages|dist-packages|jaxlib)/|(^|/)jax/_src/|(^|/)lib/(pypy|python)\d[\d.]*/|^<[^>]*>$"
)

_COMMENT = re.compile(r"\s*#[^'\"]*$")


class LocateError(ValueError):
    """A traceback that cannot be placed in the local tree; the message says why."""


class UndecodableFrame(LocateError):
    """The frame a traceback would be placed by holds bytes the log could not decode where they
    matter (its location, the code it shows, a path not matchable by bytes); the message names
    which."""


class ChangedSinceLog(LocateError):
    """The traceback's line in `local` no longer holds the code the log shows (it may hold the fix)."""

    def __init__(self, message: str, local: Path, frame: Frame) -> None:
        super().__init__(message)
        self.local = local
        self.frame = frame


def _parts(path: str) -> tuple[str, ...]:
    return tuple(
        p for p in PurePosixPath(path.replace("\\", "/")).parts if p not in ("/", ".")
    )


def _bytes(parts: tuple[str, ...]) -> tuple[bytes, ...] | None:
    """The parts as the file system names them, byte for byte: a log's undecodable bytes (U+DC80
    + byte, as surrogateescape decodes them) are those bytes again; None if a part cannot be
    (a mark of bytes below 0x80, only a log in another encoding than UTF-8 has)."""
    try:
        return tuple(os.fsencode(p) for p in parts)
    except UnicodeEncodeError:
        return None


def is_library(frame: Frame) -> bool:
    return bool(_LIBRARY.search(frame.path.replace("\\", "/")))


class TreeIndex:
    """The local Python files, by file name, for suffix matching; the notebooks' code cells, for
    IPython frames."""

    def __init__(self, files: list[Path], max_file_size: int) -> None:
        self.max_file_size = max_file_size
        self.by_name: dict[bytes, list[tuple[tuple[bytes, ...], Path]]] = defaultdict(
            list
        )
        for file in files:
            parts = _bytes(_parts(file.resolve().as_posix()))
            if parts:
                self.by_name[parts[-1]].append((parts, file))
        self.notebooks = [file for file in files if kind_of(file).has_cells]
        # per notebook: (cell number, execution count, the cell's lines, module line of each)
        self._cells: (
            list[tuple[Path, int, object, list[str], dict[int, int]]] | None
        ) = None

    def _notebook_cells(
        self,
    ) -> list[tuple[Path, int, object, list[str], dict[int, int]]]:
        if self._cells is None:
            from jaxfix.sources.notebook import (
                NotebookError,
                parse,
                split_lines,
                to_module,
            )

            self._cells = []
            for path in self.notebooks:
                try:
                    notebook = parse(
                        read_regular(path, self.max_file_size, bound="max-file-size")
                    )
                except (ReadError, NotebookError):
                    continue  # said as that file's error when it is checked
                module = to_module(notebook)
                lines = {
                    where: number
                    for number, where in enumerate(module.origin, start=1)
                    if where is not None
                }
                for cell in notebook.cells:
                    count = notebook.data["cells"][cell.number - 1].get(
                        "execution_count"
                    )
                    in_module = {
                        line: lines[(cell.number, line)]
                        for (number, line) in lines
                        if number == cell.number
                    }
                    self._cells.append(
                        (path, cell.number, count, split_lines(cell.text), in_module)
                    )
        return self._cells

    def map_cell(self, frame: Frame) -> tuple[Path, int] | None:
        """The notebook and module line of an IPython cell frame: the code cell whose lines are
        the ones the traceback shows, that cell with the frame's execution count if several
        are; None when no cell matches, LocateError when the choice is not one."""
        if not frame.shown:
            return None
        matching = [
            (path, number, count, module_lines)
            for path, number, count, lines, module_lines in self._notebook_cells()
            if all(
                0 < n <= len(lines) and lines[n - 1].strip() == code.strip()
                for n, code in frame.shown
            )
        ]
        counted = [m for m in matching if m[2] == frame.cell]
        chosen = counted if counted else matching
        if len(chosen) > 1:
            names = ", ".join(
                sorted(
                    f"{path.as_posix()}:cell {number}" for path, number, _, _ in chosen
                )[:3]
            )
            raise LocateError(
                f"the cell In[{frame.cell}] it shows matches several notebook cells ({names}): not guessing"
            )
        if not chosen or frame.line not in chosen[0][3]:
            return None
        return chosen[0][0], chosen[0][3][frame.line]

    def map(self, log_path: str) -> Path | None:
        """The one local file whose path shares the longest suffix with `log_path`; None if no
        file has its name; LocateError if several share the longest suffix."""
        wanted = _bytes(_parts(log_path))
        if not wanted:
            if wanted is None:
                raise UndecodableFrame(
                    f"the path of its frame {log_path} (it cannot be had back byte for byte)"
                )
            return None
        best: list[Path] = []
        best_length = 0
        for parts, file in self.by_name.get(wanted[-1], ()):
            length = 0
            while (
                length < min(len(parts), len(wanted))
                and parts[-1 - length] == wanted[-1 - length]
            ):
                length += 1
            if length > best_length:
                best, best_length = [file], length
            elif length == best_length:
                best.append(file)
        if len(best) > 1:
            suffix = os.fsdecode(b"/".join(wanted[-best_length:]))
            names = ", ".join(sorted(p.as_posix() for p in best)[:3])
            raise LocateError(
                f"{log_path} matches several local files by its ending {suffix!r} ({names}): not guessing"
            )
        return best[0] if best else None


def locate(
    frames: tuple[Frame, ...],
    index: TreeIndex,
    read: dict[Path, list[str]],
    max_file_size: int,
    *,
    exact_paths: bool = True,
) -> tuple[Path, Frame]:
    """The local file and the frame of the innermost user frame found in the tree; its lines
    (read into `read`) as Python numbers them, as the traceback does.

    Undecodable bytes (file_io.UNDECODABLE marks) in what places it are never guessed around:
    a damaged frame met before the one placed, or marks in the code line it shows, are
    UndecodableFrame; a path holding them is matched by its bytes, when `exact_paths` (a UTF-8
    log: the marks are the bytes), else UndecodableFrame."""
    user = [f for f in frames if f.cell is not None or not is_library(f)]
    if not user:
        where = f" ({frames[-1].path}:{frames[-1].line})" if frames else ""
        raise LocateError(
            f"it shows no frame of your code, only where JAX raised{where}; "
            "a log with longer tracebacks (pytest --tb=short or long) names the line"
        )
    for frame in reversed(user):
        if frame.damaged:
            raise UndecodableFrame(
                f"the location of its frame {frame.path}:{frame.line}"
                if frame.line
                else f"a line among its frames that may locate one ({frame.path!r})"
            )
        if not exact_paths and UNDECODABLE.search(frame.path):
            raise UndecodableFrame(
                f"the path of its frame {frame.path}:{frame.line} (in this log's encoding it cannot be had back byte for byte)"
            )
        if (
            frame.cell is not None
        ):  # a notebook's cell: its lines were matched, the line is the module's
            if any(UNDECODABLE.search(code) for _, code in frame.shown):
                raise UndecodableFrame(
                    f"the code its frame {frame.path} shows, so it cannot be matched to a cell"
                )
            cell = index.map_cell(frame)
            if cell is not None:
                return cell[0], replace(frame, line=cell[1])
            continue
        local = index.map(frame.path)
        if local is None:
            continue
        if local not in read:
            try:
                read[local] = source_lines(local, max_file_size)
            except ReadError as error:
                raise LocateError(f"{local.as_posix()}: {error}") from None
        if frame.source is not None and UNDECODABLE.search(frame.source):
            raise UndecodableFrame(
                f"the code its frame {frame.path}:{frame.line} shows, so it cannot be confirmed"
            )
        _confirm(local, frame, read[local])
        return local, frame
    raise LocateError(
        f"none of its frames is in a file under the given paths (innermost: {user[-1].path}:{user[-1].line})"
    )


def _confirm(local: Path, frame: Frame, lines: list[str]) -> None:
    if frame.line < 1:  # lines[-1] would be the last line: a forged or broken frame
        raise LocateError(f"line {frame.line} is not a line of {local.as_posix()}")
    if frame.line > len(lines):
        raise ChangedSinceLog(
            f"{local.as_posix()} has changed since the log: it has no line {frame.line} any more",
            local,
            frame,
        )
    now = lines[frame.line - 1].strip()
    if (
        frame.source is not None
        and _code(now) != _code(frame.source)
        and not _as_pytest_shows(lines, frame)
    ):
        raise ChangedSinceLog(
            f"{local.as_posix()} has changed since the log: line {frame.line} is now {cut(now)!r}, "
            f"the log shows {cut(frame.source)!r}",
            local,
            frame,
        )


def _as_pytest_shows(lines: list[str], frame: Frame) -> bool:
    """Whether the log's line is one pytest would show for line N. pytest splits a file as
    `str.splitlines()` does and prints the statement it finds at N there, so after a form feed,
    a \\u2028 or a \\x1c inside a line the source under `path:N` is another piece of the file
    (the N is Python's): one of the pieces as far around N as such breaks shift them."""
    pieces = "\n".join(lines).splitlines()
    shift = len(pieces) - len(lines)
    if shift <= 0 or frame.source is None:
        return False
    wanted = _code(frame.source)
    return any(
        _code(piece.strip()) == wanted
        for piece in pieces[max(0, frame.line - 1 - shift) : frame.line + shift]
    )


def _code(line: str) -> str:
    """The line without a trailing comment (a suppression comment added since the log is fine)."""
    return _COMMENT.sub("", line)
