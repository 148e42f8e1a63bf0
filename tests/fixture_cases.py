"""Find every registered rule's fixtures and read their headers (see fixtures/README.md).

jaxfix's own rules keep theirs in fixtures/<CODE>/; a rule from elsewhere (the suite's own in
tests/rules, registered as users register theirs, by `--rule-module`) beside its module, in
`<its directory>/fixtures/<CODE>/`, and its cases run with `--rule-module <its file>`.

A notebook fixture (`<case>.ipynb`, fixed `<case>.fixed.ipynb`) keeps its header in its first code cell.
A project fixture is a directory `fixtures/<CODE>/<case>/`: a small tree of modules of which one
file (its entry, with the header) is the case, fixed as `<entry>.fixed.py` next to it.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import re
import shlex
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxfix.codemods.base import Rule

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
ENGINE = FIXTURES / "engine"  # the engine's capability cases: tests/engine_cases.py
SUITE_RULES = (
    ROOT / "tests" / "rules"
)  # the suite's rules: one module each, and fixtures
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
    rule_module: Path | None = None  # a rule from elsewhere: the file that registers it

    @property
    def id(self) -> str:
        return f"{self.code}/{self.name}"

    @property
    def cli_args(self) -> list[str]:
        return [
            *(["--rule-module", str(self.rule_module)] if self.rule_module else []),
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


@dataclass(frozen=True)
class RuleFixtures:
    """A registered rule, where its fixtures are, and for a rule from elsewhere its file."""

    rule: type[Rule]
    directory: Path
    module: Path | None


@functools.cache
def rule_fixtures() -> tuple[RuleFixtures, ...]:
    """jaxfix's own rules and the suite's (registered here only to be read: the registry is
    left as it was), by code."""
    from jaxfix.codemods import BUILTIN, RULES, load_rule_modules

    saved = dict(RULES)
    try:
        load_rule_modules([str(SUITE_RULES)])
        rules = dict(RULES)
    finally:
        RULES.clear()
        RULES.update(saved)
    found = []
    for code, rule in sorted(rules.items()):
        if code in BUILTIN:
            found.append(RuleFixtures(rule, FIXTURES / code, None))
        else:
            source = Path(inspect.getfile(rule)).resolve()
            found.append(RuleFixtures(rule, source.parent / "fixtures" / code, source))
    return tuple(found)


def all_cases() -> list[Case]:
    return [
        case
        for found in rule_fixtures()
        for case in _cases_in(found.rule.code, found.directory, found.module)
    ]


def _cases_in(code: str, directory: Path, module: Path | None) -> list[Case]:
    cases = []
    for before in sorted([*directory.glob("*.py"), *directory.glob("*.ipynb")]):
        if before.name.endswith((".fixed.py", ".fixed.ipynb")):
            continue
        fixed = before.with_name(f"{before.stem}.fixed{before.suffix}")
        cases.append(
            Case(
                code,
                before.stem,
                before,
                fixed if fixed.exists() else None,
                read_header(before),
                rule_module=module,
            )
        )
    # Hidden directories are not cases: `jaxfix fixtures/JAX002` leaves its .jaxfix_cache/ there.
    for project in sorted(
        p
        for p in directory.glob("*")
        if p.is_dir() and not p.name.startswith((".", "__pycache__"))
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
                code,
                project.name,
                before,
                fixed if fixed.exists() else None,
                read_header(before),
                project,
                module,
            )
        )
    return cases


def python_sources() -> list[Path]:
    """Every fixture script Python parses: cases, fixed files and project modules, but not a
    project's module that does not parse on purpose (what jaxfix does when an import leads there).
    Not the engine cases (fixtures/engine/): tests/analysis/test_engine_cases.py runs jaxfix on each."""
    found = []
    directories = [found.directory for found in rule_fixtures()]
    for path in sorted(p for d in directories for p in d.rglob("*.py")):
        try:
            ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        found.append(path)
    return found
