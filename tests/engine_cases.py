"""The engine's capability cases (fixtures/engine/, see its README.md) and what jaxfix gives on
each today, against what a correct engine must give.

Usage: python tests/engine_cases.py   (prints the recall table that docs/engine-cases.md holds)

A case is a small project tree: jaxfix runs on every module of it (the tree is the project
root), as `jaxfix <tree>` would. Its outcome is one word, compared exactly with the `today`
column of fixtures/engine/EXPECT, so that any change, better or worse, is seen and the table is
updated deliberately.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # run as a script: find the helpers and jaxfix
    sys.path[:0] = [
        str(Path(__file__).resolve().parent.parent),
        str(Path(__file__).parent),
    ]

from fixture_cases import ENGINE, read_header

EXPECT = ENGINE / "EXPECT"

# What a case's tree asks of a correct engine, from its files.
TARGETS = ("fixed", "reported", "unchanged")
# What jaxfix may give: the targets, or a positive case's miss, or a negative case's harm.
OUTCOMES = (*TARGETS, "missed", "wrong-fix", "false-report", "false-fix")


@dataclass(frozen=True)
class EngineCase:
    name: str
    tree: Path
    entry: Path  # the one module with the header, run as the program
    header: dict[str, str]
    fixed: dict[
        Path, Path
    ]  # module -> its hand-written fixed version (`<module>.fixed.py`)

    @property
    def rule(self) -> str:
        return self.header["rule"]

    @property
    def modules(self) -> list[Path]:
        return sorted(
            p for p in self.tree.rglob("*.py") if not p.name.endswith(".fixed.py")
        )

    @property
    def target(self) -> str:
        if self.fixed:
            return "fixed"
        return "unchanged" if self.header["expect"] == "none" else "reported"

    @property
    def run_under(self) -> list[str]:
        return self.header["run-under"].split()

    @property
    def needs(self) -> list[str]:
        """The libraries besides JAX its programs import (`needs: flax equinox`): run under
        real JAX only by an interpreter that has them (the `idioms` extra)."""
        return self.header.get("needs", "").split()

    @property
    def cli_args(self) -> list[str]:
        return ["--jax-version", self.header["target-jax"], *self.options]

    @property
    def options(self) -> list[str]:
        return self.header.get("options", "").split()


@dataclass(frozen=True)
class Expected:
    capability: str
    rule: str
    today: str
    why: str


def all_engine_cases() -> list[EngineCase]:
    cases = []
    for tree in sorted(p for p in ENGINE.iterdir() if p.is_dir()):
        if tree.name.startswith((".", "__pycache__")):
            continue
        modules = [
            p
            for p in sorted(tree.rglob("*.py"))
            if not p.name.endswith(".fixed.py") and "case" in read_header(p)
        ]
        if len(modules) != 1:
            raise ValueError(
                f"{tree}: an engine case needs exactly one module with a `# case:` header, found {len(modules)}"
            )
        fixed = {
            p.with_name(p.name.replace(".fixed.py", ".py")): p
            for p in sorted(tree.rglob("*.fixed.py"))
        }
        cases.append(
            EngineCase(tree.name, tree, modules[0], read_header(modules[0]), fixed)
        )
    return cases


def expected_table() -> dict[str, Expected]:
    """fixtures/engine/EXPECT, in its order: `case | rule | today[: why]` a line, under a
    `## capability` line; other lines starting with `#` are comments."""
    table, capability = {}, ""
    for line in EXPECT.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            capability = line[3:].strip()
        if not line.strip() or line.startswith("#"):
            continue
        name, rule, result = (part.strip() for part in line.split("|"))
        today, _, why = result.partition(":")
        table[name] = Expected(capability, rule, today.strip(), why.strip())
    return table


def materialize(case: EngineCase, where: Path, fixed: bool) -> Path:
    """A copy of the case's tree without the `.fixed.py` files; with `fixed`, each module
    replaced by its fixed version. Returns the entry's path in the copy."""
    shutil.rmtree(where, ignore_errors=True)
    for module in case.modules:
        source = case.fixed.get(module, module) if fixed else module
        target = where / module.relative_to(case.tree)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return where / case.entry.relative_to(case.tree)


def jaxfix_on(
    case: EngineCase, tree: Path | None = None
) -> tuple[dict[Path, bytes], list[tuple[Path, str]]]:
    """jaxfix over every module of the case's tree (or of `tree`, a copy made by
    `materialize`), the tree being the project root: the modules it changes (new bytes) and
    its diagnostics (module, code). A module jaxfix fails on fails."""
    from helpers import options_from_args
    from jaxfix.check.engine import check_file
    from jaxfix.check.run import Run
    from jaxfix.write.data_edits import data_diffs, refuse_conflicts

    root = case.tree if tree is None else tree
    modules = case.modules if tree is None else sorted(tree.rglob("*.py"))
    changed, diagnostics, results = {}, [], []
    # as `jaxfix <tree>` runs: imports found from its root, callers looked for in it
    run = Run(options_from_args(case.cli_args), roots=(root,)).scoped(modules)
    with run.checking():
        for module in modules:
            result = check_file(run, module, module.read_bytes())
            if result.error is not None:
                raise AssertionError(f"{module}: {result.error}")
            if result.fixed is not None:
                changed[module] = result.fixed
            diagnostics += [(module, d.code) for d in result.diagnostics]
            results.append(result)
    # a fix's edit of another module (where the value it reads is written)
    for diff in data_diffs(refuse_conflicts(results)):
        changed[diff.path] = diff.new
    return changed, diagnostics


def outcome(case: EngineCase) -> str:
    """One word for what jaxfix does with the case today (see OUTCOMES)."""
    changed, diagnostics = jaxfix_on(case)
    reported = any(code == case.rule for _, code in diagnostics)
    if case.target == "fixed":
        wanted = {m: f.read_bytes() for m, f in case.fixed.items()}
        if changed == wanted:
            return "fixed"
        if changed:
            return "wrong-fix"
        return "reported" if reported else "missed"
    if changed:
        return "false-fix"
    if case.target == "reported":
        return "reported" if reported else "missed"
    return "false-report" if reported else "unchanged"


def recall(found: dict[str, str]) -> str:
    """How many cases jaxfix gives as a correct engine would, from outcomes by case name."""
    cases = all_engine_cases()
    positive = [c for c in cases if c.target != "unchanged"]
    right = [c for c in positive if found.get(c.name) == c.target]
    harmless = [c for c in cases if c.target == "unchanged"]
    kept = [c for c in harmless if found.get(c.name) == "unchanged"]
    return (
        f"Recall: {len(right)} of {len(positive)} positive cases as a correct engine gives"
        f" them; {len(kept)} of {len(harmless)} must-not-change cases left alone.\n"
    )


def markdown_table() -> str:
    """The docs' table: EXPECT's lines with each case's target, in EXPECT's order, and the
    recall they make."""
    cases = {case.name: case for case in all_engine_cases()}
    table = expected_table()
    lines = [
        "| capability | case | rule | a correct engine | jaxfix today |",
        "|---|---|---|---|---|",
    ]
    shown = None  # a capability is named on the first row of its cases
    for name, line in table.items():
        today = f"{line.today}: {line.why}" if line.why else line.today
        target = cases[name].target if name in cases else "(no such case)"
        capability = "" if line.capability == shown else line.capability
        shown = line.capability
        lines.append(f"| {capability} | `{name}` | {line.rule} | {target} | {today} |")
    return "\n".join(lines) + "\n\n" + recall({n: t.today for n, t in table.items()})


def main() -> None:
    """Print each case's target and today's outcome computed afresh (marked where EXPECT
    says otherwise), and the recall they make."""
    cases = all_engine_cases()
    found = {case.name: outcome(case) for case in cases}
    table = expected_table()
    width = max(len(c.name) for c in cases)
    for case in cases:
        line = table.get(case.name)
        differs = (
            "" if line and line.today == found[case.name] else "  (EXPECT differs)"
        )
        print(
            f"{case.name:<{width}}  {case.rule}  {case.target:<9}  {found[case.name]}{differs}"
        )
    print(recall(found), end="")


if __name__ == "__main__":
    main()
