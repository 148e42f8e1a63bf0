"""The interpreters the real-JAX tests use, found (and the second tier built) without setup.

Order: JAXFIX_JAX_PYTHONS; the repository's `.venv-next/`; else a Python >= 3.12 on PATH or
under pyenv, with which `.venv-next/` is built once from the `jax-next` extra in pyproject.toml
(so the README's one test command runs both tiers on a machine that has such a Python).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
NEXT_VENV = ROOT / ".venv-next"
_NAMES = ("python3.12", "python3.13", "python3.14")


def _next_python_candidates() -> list[str]:
    found = [p for p in (shutil.which(name) for name in _NAMES) if p]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found += sorted(str(p) for p in pyenv.glob("3.1[2-9]*/bin/python"))
    return found


def _is_next(python: str) -> bool:
    done = subprocess.run(
        [python, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def _build_next_venv(base: str) -> str | None:
    """`.venv-next` with the `jax-next` extra's requirements; None (and a message) if it fails."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["jax-next"]
    python = NEXT_VENV / "bin" / "python"
    sys.stderr.write(
        f"\njaxfix tests: building {NEXT_VENV} with {base} for the jax-next tier (once)\n"
    )
    try:
        subprocess.run(
            [base, "-m", "venv", str(NEXT_VENV)],
            check=True,
            capture_output=True,
            timeout=300,
        )
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", *extra],
            check=True,
            capture_output=True,
            timeout=1800,
        )
    except (subprocess.SubprocessError, OSError) as error:
        output = getattr(error, "stderr", b"") or b""
        sys.stderr.write(
            f"jaxfix tests: could not build {NEXT_VENV}: {error}\n{output.decode(errors='replace')[-2000:]}\n"
        )
        shutil.rmtree(NEXT_VENV, ignore_errors=True)
        return None
    return str(python)


def jax_pythons() -> list[str]:
    """Interpreters to probe for JAX versions, besides the one running the tests."""
    given = [p for p in os.environ.get("JAXFIX_JAX_PYTHONS", "").split(os.pathsep) if p]
    if given:
        return given
    existing = NEXT_VENV / "bin" / "python"
    if existing.exists():
        return [str(existing)]
    if sys.version_info >= (3, 12):
        return []
    base = next((p for p in _next_python_candidates() if _is_next(p)), None)
    built = _build_next_venv(base) if base else None
    return [built] if built else []
