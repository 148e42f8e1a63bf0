"""JAX014 from a recorded run whose `with` item jaxfix cannot evaluate (`with self.mesh:`, the
mesh from a config's property): the `with` the recorder saw in force when the error was raised
is entered with `jax.set_mesh`; a record naming another line (a call's `with`, a line that
enters nothing, a `with` of a stored object whose name does not say mesh) changes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TRAINER = """\
import contextlib


class Trainer:
    def __init__(self, config):
        self.mesh = config.device_mesh
        self.lock = config.lock

    @contextlib.contextmanager
    def use_device_mesh(self):
        with self.mesh:
            yield self

    @contextlib.contextmanager
    def use_log(self, path):
        with open(path):
            yield self

    @contextlib.contextmanager
    def locked(self):
        with self.lock:
            yield self
"""
STEPS = """\
import jax


def step(f, x):
    return jax.jit(f, in_shardings=jax.sharding.PartitionSpec("x"))(x)
"""
MESSAGE = (
    "jit requires a non-empty mesh in context if you are passing `PartitionSpec`s to "
    "in_shardings. You can define a context mesh via `jax.set_mesh(mesh)`."
)


def _evidence(tmp_path: Path, entered: int) -> subprocess.CompletedProcess[str]:
    trainer = tmp_path / "trainer.py"
    trainer.write_text(TRAINER)
    (tmp_path / "steps.py").write_text(STEPS)
    record = {
        "schema": "jaxfix-evidence/1",
        "kind": "error",
        "code": "JAX014",
        "exception": "RuntimeError",
        "message": MESSAGE,
        "frames": [{"path": str(tmp_path / "steps.py"), "line": 5, "function": "step"}],
        "contexts": [[{"path": str(trainer), "line": entered, "function": "f"}]],
        "cwd": str(tmp_path),
    }
    (tmp_path / "e.jsonl").write_text(json.dumps(record) + "\n")
    return subprocess.run(
        [sys.executable, "-m", "jaxfix", "--evidence", "e.jsonl", "--diff"]
        + ["--unsafe-fixes", "--jax-version", "0.10.2", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_with_in_force_when_the_run_raised_enters_its_mesh(tmp_path):
    result = _evidence(tmp_path, 11)
    assert "+        with jax.set_mesh(self.mesh):" in result.stdout, result.stdout


@pytest.mark.parametrize(
    "entered",
    [
        16,  # `with open(path):`, a call
        7,  # `self.lock = config.lock`: enters nothing
        21,  # `with self.lock:`: a stored object no name calls a mesh
    ],
)
def test_a_record_naming_another_line_changes_nothing(tmp_path, entered):
    result = _evidence(tmp_path, entered)
    assert "JAX014" in result.stdout + result.stderr
    assert "set_mesh(" not in result.stdout, result.stdout
