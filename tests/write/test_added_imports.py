"""Imports a fix adds keep a file sorted as `ruff check --select I` sorts it, under ruff's
defaults and under the project's `[tool.ruff.lint.isort]` (issue 42): the pinned ruff judges."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxfix.cli.main import cli
from jaxfix.settings.config import import_order
from jaxfix.settings.options import ImportOrder

ROOT = Path(__file__).resolve().parents[2]
RUFF = Path(sys.executable).with_name("ruff")
# The fix adds NamedSharding to `from jax.sharding import AxisType` (the case).
MERGED = ROOT / "fixtures" / "JAX003" / "eager_input_from_bare_spec_under_set_mesh.py"
# The fix adds `import jax` beside `import jax.numpy as jnp` and `from jax import ...`.
CHAINED = """\
import jax.numpy as jnp
from jax import ShapeDtypeStruct, jit
from jax.sharding import AbstractMesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = AbstractMesh((2, 4), ("x", "y"))
x = ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))
score = jit(jnp.add)


def export_text():
    return score.lower(x, x).as_text()
"""
CONFIGS = {
    "defaults": "",
    "sections": "[tool.ruff.lint.isort]\nforce-sort-within-sections = true\n",
    "by-name": "[tool.ruff.lint.isort]\norder-by-type = false\ncase-sensitive = true\n",
    "older-table": "[tool.ruff.isort]\nforce-sort-within-sections = true\norder-by-type = false\n",
}


def _ruff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(RUFF), "check", "--no-cache", "--select", "I", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_a_file_sorted_by_ruff_stays_sorted_after_a_fix(
    tmp_path: Path, config: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\ndependencies = ["jax==0.10.2"]\n\n[tool.ruff]\n'
        + CONFIGS[config]
    )
    (tmp_path / "merged.py").write_text(MERGED.read_text())
    (tmp_path / "chained.py").write_text(CHAINED)
    assert (
        _ruff("--fix", ".", cwd=tmp_path).returncode == 0
    )  # sorted as the project sorts
    before = {p.name: p.read_text() for p in tmp_path.glob("*.py")}
    fixed = CliRunner().invoke(
        cli,
        ["--no-cache", "--unsafe-fixes", "--target-version", "0.10.2", str(tmp_path)],
    )
    assert fixed.exit_code == 0, fixed.output
    assert all(p.read_text() != before[p.name] for p in tmp_path.glob("*.py"))
    judged = _ruff(".", cwd=tmp_path)
    assert judged.returncode == 0, judged.stdout


def test_the_settings_are_read_from_ruffs_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.ruff.lint.isort]\ncase-sensitive = true\norder-by-type = 1\n"
    )
    assert import_order(tmp_path) == ImportOrder(case_sensitive=True)  # 1 is no bool
    (tmp_path / "ruff.toml").write_text(
        "[lint.isort]\nforce-sort-within-sections = true\n"
    )
    assert import_order(tmp_path) == ImportOrder(force_sort_within_sections=True)
