"""Find the fixtures under fixtures/<CODE>/ and read their headers (see fixtures/README.md).

A notebook fixture (`<case>.ipynb`, fixed `<case>.fixed.ipynb`) keeps its header in its first code cell.
A project fixture is a directory `fixtures/<CODE>/<case>/`: a small tree of modules of which one
file (its entry, with the header) is the case, fixed as `<entry>.fixed.py` next to it.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
ENGINE = FIXTURES / "engine"  # the engine's capability cases: tests/engine_cases.py
_HEADER = re.compile(r"#\s*(?P<key>[a-z-]+):\s*(?P<value>.*?)\s*$")
KEYS = {"case", "target-jax", "options", "expect", "run-under", "raises", "result"}
REQUIRED = {"case", "target-jax", "expect", "run-under"}


@dataclass(frozen=True)
class Case:
    code: str
    name: str
    before: Path
    fixed: Path | None
    header: dict[str, str]
    project: Path | None = (
        None  # a project fixture's directory: the tree the entry imports from
    )

    @property
    def id(self) -> str:
        return f"{self.code}/{self.name}"

    @property
    def cli_args(self) -> list[str]:
        return [
            "--jax-version",
            self.header["target-jax"],
            *shlex.split(self.header.get("options", "")),
        ]

    @property
    def expected_codes(self) -> list[str]:
        value = self.header["expect"]
        return [] if value == "none" else [c.strip() for c in value.split(",")]

    @property
    def run_under(self) -> list[str]:
        value = self.header["run-under"]
        return [] if value.startswith("none") else value.split()


def _header_text(path: Path) -> str:
    """A script's text (in its own encoding); for a notebook, its first code cell (where its header lives)."""
    if path.suffix != ".ipynb":
        with tokenize.open(path) as handle:
            return handle.read()
    text = path.read_text(encoding="utf-8")
    cell = next(c for c in json.loads(text)["cells"] if c["cell_type"] == "code")
    return "".join(cell["source"])


def read_header(path: Path) -> dict[str, str]:
    header: dict[str, str] = {}
    for line in _header_text(path).splitlines():
        if not line.startswith("#"):
            break
        match = _HEADER.match(line)
        if match:
            header[match["key"]] = match["value"]
    return header


def all_cases() -> list[Case]:
    cases = []
    for before in sorted([*FIXTURES.glob("*/*.py"), *FIXTURES.glob("*/*.ipynb")]):
        if before.name.endswith((".fixed.py", ".fixed.ipynb")):
            continue
        fixed = before.with_name(f"{before.stem}.fixed{before.suffix}")
        cases.append(
            Case(
                before.parent.name,
                before.stem,
                before,
                fixed if fixed.exists() else None,
                read_header(before),
            )
        )
    # Hidden directories are not cases: `jaxfix fixtures/JAX002` leaves its .jaxfix_cache/ there.
    # fixtures/engine/ holds the engine's capability cases (tests/engine_cases.py): their
    # expected result today is a table of their own.
    for project in sorted(
        p
        for p in FIXTURES.glob("*/*")
        if p.is_dir()
        and p.parent != ENGINE
        and not p.name.startswith((".", "__pycache__"))
    ):
        entries = [
            p
            for p in sorted(project.rglob("*.py"))
            if not p.name.endswith(".fixed.py") and "case" in read_header(p)
        ]
        if len(entries) != 1:
            raise ValueError(
                f"{project}: a project fixture needs exactly one file with a `# case:` header, found {len(entries)}"
            )
        (before,) = entries
        fixed = before.with_name(f"{before.stem}.fixed.py")
        cases.append(
            Case(
                project.parent.name,
                project.name,
                before,
                fixed if fixed.exists() else None,
                read_header(before),
                project,
            )
        )
    return cases


def python_sources() -> list[Path]:
    """Every fixture script Python parses: cases, fixed files and project modules, but not a
    project's module that does not parse on purpose (what jaxfix does when an import leads there).
    Not the engine cases (fixtures/engine/): tests/test_engine_cases.py runs jaxfix on each."""
    found = []
    for path in sorted(FIXTURES.rglob("*.py")):
        if ENGINE in path.parents:
            continue
        try:
            ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        found.append(path)
    return found
