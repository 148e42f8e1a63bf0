"""One `jaxfix repair --unsafe-fixes -- PYTHON -m pytest -q` of a copy of a project of
tests/repair_projects, under the tier's interpreter: what the tests of each project read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workflows.test_repair import (
    changed,
    copied,
    python,
    repair_with_pytest,
    snapshot,
)

PROJECTS = Path(__file__).parents[1] / "repair_projects"


@dataclass(frozen=True)
class Repaired:
    """The repaired copy (`tree`), its files before the run, and the run's exit code and
    JSON report."""

    tree: Path
    before: dict[str, bytes]
    code: int
    report: dict

    @property
    def fixed(self) -> list[tuple[str, int, str]]:
        return [(f["path"], f["line"], f["detail"]) for f in self.report["fixed"]]

    @property
    def left(self) -> dict[int, str]:
        """Each site left, by its line."""
        return {s["line"]: s["detail"] for s in self.report["left"]}

    @property
    def changed(self) -> set[str]:
        return changed(self.before, self.tree)

    @property
    def still_raised(self) -> list[str]:
        """The tests that raised in the last run."""
        return sorted(t["test"] for t in self.report["rounds"][-1]["raised"])

    def now(self, name: str) -> bytes:
        return (self.tree / name).read_bytes()

    def replaced(self, name: str, *pairs: tuple[bytes, bytes]) -> bytes:
        """The file `name` as it was, with each (old, new) of `pairs` replaced."""
        text = self.before[name]
        for old, new in pairs:
            assert old in text, old
            text = text.replace(old, new)
        return text


def repaired(project: str, tmp_path: Path, version: str) -> Repaired:
    """`jaxfix repair --unsafe-fixes` of a copy of tests/repair_projects/`project` (its
    pytest suite, under JAX `version`)."""
    tree = copied(PROJECTS / project, tmp_path / project)
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    return Repaired(tree, before, code, report)
