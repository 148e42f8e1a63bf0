"""What `--help` and `--help-format` say about the output formats, from the formats themselves.

The names come from the modules of jaxfix/cli/formats/ (one format each, its name the module's
with `-` for `_`), so `--help` lists them without importing the formats, which import libcst.
"""

from __future__ import annotations

import sys
from pathlib import Path

_FORMATS_DIR = Path(__file__).with_name("formats")
SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "jaxfix-report.schema.json"


def format_names() -> list[str]:
    """The machine formats, by name (tests/cli/test_new_user.py checks them against the registry)."""
    return sorted(
        p.stem.replace("_", "-")
        for p in _FORMATS_DIR.glob("*.py")
        if not p.stem.startswith("_")
    )


def format_option_help() -> str:
    return (
        f"Output format: text (default), or a machine format alone on stdout: {', '.join(format_names())}. "
        "`jaxfix --help-format` says what each is for."
    )


def format_help_text() -> str:
    """Each format and what it is for: the first line of its module's docstring."""
    from jaxfix.cli.formats import FORMATS

    rows = [
        (
            "text",
            "people: diagnostics and colored diffs on stdout, the summary and errors on stderr (the default)",
        )
    ]
    for name, formatter in sorted(FORMATS.items()):
        doc = (sys.modules[formatter.__module__].__doc__ or "").strip().splitlines()[0]
        rows.append(
            (name, doc.split(": ", 1)[1] if doc.startswith("`--format") else doc)
        )
    width = max(len(name) for name, _ in rows)
    lines = [
        "jaxfix --format NAME: the machine formats print one document on stdout and nothing else there;",
        "",
    ]
    lines += [f"  {name.ljust(width)}  {text}" for name, text in rows]
    lines += [
        "",
        f"The json format's schema is installed with jaxfix: {SCHEMA}",
        "Exit codes are the same in every format.",
    ]
    return "\n".join(lines) + "\n"
