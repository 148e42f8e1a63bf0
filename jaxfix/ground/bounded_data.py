"""JSON and TOML that a stranger may have written (notebooks, evidence, caches, journals,
configs, what the review bot is handed), read with their numbers bounded.

Python refuses to convert an integer of more than 4,300 digits with a ValueError that is no
JSONDecodeError or TOMLDecodeError, a deep nesting raises RecursionError, and an integer any
size may reach a read or an allocation: here each is one `DataError` (a ValueError) with one
line to say, so the file it came from costs only itself.
"""

from __future__ import annotations

import json
import sys
from typing import Any

MAX_DIGITS = (
    1000  # characters of one number: far beyond any real one, far below Python's limit
)
TOML_INT = (-(2**63), 2**63 - 1)  # TOML's integers are 64-bit (toml.io, Integer)


class DataError(ValueError):
    """A document that is not the JSON or TOML it claims, or holds a number out of bounds;
    `line`, `column` (1-based): where invalid JSON went wrong, when known."""

    def __init__(
        self, message: str, line: int | None = None, column: int | None = None
    ) -> None:
        super().__init__(message)
        self.line, self.column = line, column


def _number(text: str) -> str:
    if len(text) > MAX_DIGITS:
        raise DataError(f"a number of {len(text)} characters (at most {MAX_DIGITS})")
    return text


def _int(text: str) -> int:
    return int(_number(text))


def _float(text: str) -> float:
    return float(_number(text))


def load_json(data: str | bytes) -> Any:
    """`json.loads(data)`, or DataError saying why not in one line."""
    try:
        return json.loads(data, parse_int=_int, parse_float=_float)
    except DataError:
        raise
    except json.JSONDecodeError as error:
        raise DataError(
            f"invalid JSON: {error.msg}", error.lineno, error.colno
        ) from None
    except UnicodeDecodeError as error:
        raise DataError(f"not UTF-8 (byte offset {error.start})") from None
    except RecursionError:
        raise DataError("JSON nested too deeply") from None
    except (
        ValueError
    ) as error:  # a number Python will not convert, on a path _int misses
        raise DataError(f"invalid JSON: {error}") from None


def load_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)` with every integer within TOML's 64 bits, or DataError."""
    if sys.version_info >= (3, 11):  # imported here: most runs read no TOML
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        table = tomllib.loads(text, parse_float=_float)
    except DataError:
        raise
    except tomllib.TOMLDecodeError as error:
        raise DataError(str(error)) from None
    except RecursionError:
        raise DataError("TOML nested too deeply") from None
    except ValueError:  # an integer Python will not convert
        raise DataError("an integer beyond TOML's 64 bits") from None
    _check_ints(table)
    return table


def _check_ints(value: Any) -> None:
    """Every integer of a TOML document within 64 bits (tomllib reads any size); iterative,
    so a nesting tomllib read cannot exhaust the stack here."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif (
            isinstance(item, int)
            and not isinstance(item, bool)
            and not TOML_INT[0] <= item <= TOML_INT[1]
        ):
            shown = str(item)
            shown = (
                shown if len(shown) <= 40 else f"{shown[:20]}... ({len(shown)} digits)"
            )
            raise DataError(f"integer {shown} is beyond TOML's 64 bits")
