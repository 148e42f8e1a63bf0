"""JAX102 follows a block's calls into an installed library (found as the import system finds
it, never imported): a library function that reads only the mesh of `with mesh:` stops the
fix, one that asks for jax.set_mesh's mesh first does not, and a block that runs code jaxfix
cannot name stops it where the code around imports such a library. Under real JAX on both
tiers, the library's read of `thread_resources` is empty under `jax.set_mesh`
(fixtures/JAX102/block_builds_model_whose_layer_reads_thread_resources)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

READS_OLD = """
from jax.interpreters import pxla


def current():
    return pxla.thread_resources.env.physical_mesh
"""
ASKS_NEW_FIRST = """
import jax
from jax.interpreters import pxla


def current():
    mesh = jax.sharding.get_mesh()
    return mesh if not mesh.empty else pxla.thread_resources.env.physical_mesh
"""


def _run(tmp_path: Path, library: str, program: str) -> str:
    lib = tmp_path / "site" / "meshlib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("from .core import current\n")
    (lib / "core.py").write_text(textwrap.dedent(library))
    project = tmp_path / "project"
    project.mkdir()
    (project / "prog.py").write_text(textwrap.dedent(program))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(tmp_path / "site")])
    done = subprocess.run(
        [sys.executable, "-m", "jaxfix", "--select", "JAX102", "--unsafe-fixes"]
        + ["--check", "--no-cache", "--target-version", "0.10.2", "prog.py"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "meshlib" not in sys.modules  # nothing of the library was imported here
    return done.stdout


CALLS_LIBRARY = """
import jax
from meshlib import current

mesh = jax.make_mesh((8,), ("x",))
with mesh:
    m = current()
"""

OPAQUE_BLOCK = """
import jax
import meshlib


def build():
    return meshlib.current


def run(step, x):
    mesh = jax.make_mesh((8,), ("x",))
    with mesh:
        return step(x)
"""


@pytest.mark.parametrize(
    ("library", "program", "refused"),
    [
        (READS_OLD, CALLS_LIBRARY, "`current` (line 7) reaches current (core.py:5)"),
        (ASKS_NEW_FIRST, CALLS_LIBRARY, None),
        (READS_OLD, OPAQUE_BLOCK, "`step` (line 13) runs code jaxfix cannot name"),
        (ASKS_NEW_FIRST, OPAQUE_BLOCK, None),
    ],
    ids=["reads-old", "asks-new-first", "opaque-reads-old", "opaque-asks-new-first"],
)
def test_installed_library(tmp_path, library, program, refused):
    out = _run(tmp_path, library, program)
    assert "JAX102" in out
    if refused is None:
        assert "would fix (unsafe)" in out and "not fixed" not in out
    else:
        assert refused in out and "[no fix]" in out, out
