"""The proof that a fix fixes: each fixture runs under real JAX, on every version it names.

The before file must raise the rule's exact JAX error (or run cleanly when `raises: none`);
the fixed file must run and print the declared result line. Interpreters with other JAX
versions come from tests/jax_tiers.py: JAXFIX_JAX_PYTHONS (.ci/run sets it), else found or built.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from functools import lru_cache
from pathlib import Path

import pytest

from fixture_cases import all_cases
from jax_errors import JAX_ERRORS
from jax_tiers import jax_pythons
from jaxfix.evidence.recording import RecordingDir

pytestmark = pytest.mark.jax

JAX_VERSIONS = ("0.10.2", "0.12.0.1")
CASES = [c for c in all_cases() if c.run_under]
_ENV = {
    **os.environ,
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
    "JAX_PLATFORMS": "cpu",
}


def _jax_version(python: str) -> str | None:
    probe = "import importlib.metadata as m; print(m.version('jax'))"
    done = subprocess.run(
        [python, "-c", probe], capture_output=True, text=True, env=_ENV
    )
    return done.stdout.strip() if done.returncode == 0 else None


@lru_cache(maxsize=None)
def interpreters() -> dict[str, str]:
    """JAX version -> an interpreter that has it."""
    found: dict[str, str] = {}
    candidates = [sys.executable, *jax_pythons()]
    for python in candidates:
        version = _jax_version(python)
        if version:
            found.setdefault(version, python)
    return found


def results_under(version: str) -> dict[str, dict]:
    """Run every script that names `version` in one worker process."""
    return _run_under(version)[0]


def evidence_under(version: str) -> bytes:
    """What jaxfix's recorder wrote in that run: the error each before file ended with
    (tests/workflows/test_repair_never_weaker.py reads it as `jaxfix repair` would)."""
    return _run_under(version)[1]


@lru_cache(maxsize=None)
def _run_under(version: str) -> tuple[dict[str, dict], bytes]:
    scripts = [
        f"{p}\t{c.project}" if c.project else str(p)
        for c in CASES
        if version in c.run_under
        for p in (c.before, c.fixed)
        if p
    ]
    listing = (
        Path(os.environ.get("TMPDIR", "/tmp"))
        / f"jaxfix-fixtures-{version}-{os.getpid()}.txt"
    )
    listing.write_text("\n".join(scripts), encoding="utf-8")
    runner = Path(__file__).parents[1] / "jax_runner.py"
    recording = RecordingDir()
    try:
        recording.write_patterns()
        done = subprocess.run(
            [interpreters()[version], str(runner), str(listing)],
            capture_output=True,
            text=True,
            env=recording.env(1, _ENV),
            timeout=1200,
        )
        evidence = recording.evidence(1)
        recorded = evidence.read_bytes() if evidence.exists() else b""
    finally:
        recording.close()
        listing.unlink()
    assert done.returncode == 0, (
        f"the JAX runner failed under {version}:\n{done.stderr[-3000:]}"
    )
    return json.loads(done.stdout), recorded


def test_every_jax_version_is_available():
    missing = [v for v in JAX_VERSIONS if v not in interpreters()]
    if missing:
        message = f"NO INTERPRETER WITH jax {', '.join(missing)}: those real-JAX tiers are SKIPPED (install a Python >= 3.12, or set JAXFIX_JAX_PYTHONS)"
        warnings.warn(message)
        pytest.skip(message)


@pytest.mark.parametrize(
    "case,version",
    [(c, v) for c in CASES for v in c.run_under],
    ids=lambda x: x if isinstance(x, str) else x.id,
)
def test_fixture_under_real_jax(case, version):
    assert version in JAX_VERSIONS, f"unknown JAX version {version} in run-under"
    if version not in interpreters():
        pytest.skip(
            f"LOUD SKIP: no interpreter with jax {version} (set JAXFIX_JAX_PYTHONS)"
        )
    results = results_under(version)
    before = results[str(case.before)]
    raises = case.header["raises"]
    if raises == "none":
        assert before["ok"], f"expected to run cleanly, got {before['error']}"
        assert before["last_line"] == case.header["result"]
    else:
        assert not before["ok"], "the before file ran without error"
        assert JAX_ERRORS[raises] in before["error"], before["error"]
    if case.fixed is not None:
        fixed = results[str(case.fixed)]
        assert fixed["ok"], f"the fixed file failed: {fixed['error']}"
        assert fixed["last_line"] == case.header["result"]
