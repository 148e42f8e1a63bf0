"""The analysis core and the rules type-check strictly (mypy, configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_analysis_and_codemods_pass_mypy_strict():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--cache-dir",
            "/dev/null",
            "--config-file",
            str(ROOT / "pyproject.toml"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_type_ignore_names_its_code_and_reason():
    for path in [
        *ROOT.glob("jaxfix/analysis/**/*.py"),  # the ast engine's package too
        *ROOT.glob("jaxfix/codemods/**/*.py"),
    ]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            _, found, rest = line.partition("# type: ignore")
            if found:
                assert rest.startswith("[") and "#" in rest, (
                    f"{path.name}:{number}: a type: ignore needs [code]  # reason"
                )
