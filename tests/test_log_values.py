"""What a log says is read in linear time, quoted briefly, and bounded: a hostile or garbled log is
one line per traceback, never a hang, a crash or a slice like `jax.devices()[:0]` in the code."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxfix.cli.main import cli
from jaxfix.fromlog.errors import MessageError, read_facts
from jaxfix.fromlog.meshes import MeshReprError, parse_mesh

PROJECT = Path(__file__).parent / "from_log_projects" / "lower_under_decorator_mesh"
JAX001 = (
    "ValueError: Passing lowering_platforms via jax.export or jit(f).trace(*args).lower(lowering_platforms=...) "
    "is required when only AbstractMesh exists in a jitted computation."
)
JAX002 = (
    "ValueError: use_abstract_mesh cannot change the size of the mesh. Got new mesh:"
)


def _jax001_log(mesh: str) -> bytes:
    """The traceback jax 0.10.2 prints for the project's `.lower().compile()`, its context mesh `mesh`."""
    return f"""Traceback (most recent call last):
  File "/ci/proj/run_compile.py", line 16, in <module>
    compiled = compile_step(jax.ShapeDtypeStruct((8, 8), jnp.float32))
  File "/ci/proj/serving_meshes.py", line 14, in wrapper
    return fn(*args)
  File "/ci/proj/run_compile.py", line 13, in compile_step
    return jax.jit(lambda a: a.sum(axis=0)).trace(x).lower().compile()
  File "/venv/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py", line 2000, in lower_sharding_computation
    raise ValueError(
{JAX001} Got context mesh: {mesh}
""".encode()


def _from_log(tmp_path: Path, log: bytes):
    tree = Path(
        shutil.copytree(
            PROJECT, tmp_path / "proj", ignore=shutil.ignore_patterns("*.fixed.py")
        )
    )
    (tmp_path / "ci.log").write_bytes(log)
    result = CliRunner().invoke(
        cli,
        [
            "--no-cache",
            "--color",
            "never",
            "--from-log",
            str(tmp_path / "ci.log"),
            "--unsafe-fixes",
            str(tree),
        ],
        catch_exceptions=False,
    )
    return result, tree


def test_a_sane_log_is_still_used(tmp_path):
    result, tree = _from_log(
        tmp_path,
        _jax001_log("AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))"),
    )
    assert result.exit_code == 0, result.output
    assert "jax.devices()[:8]" in (tree / "run_compile.py").read_text()


@pytest.mark.parametrize(
    "sizes, cause",
    [
        ("0, 4", "axis size 0 in"),
        (
            "9" * 2000 + ", 4",
            "an axis size of 2000 digits",
        ),  # int() of it is fine; the mesh size's str() was not
        ("12345678, 1", "an axis size of 8 digits"),
    ],
)
def test_absurd_sizes_from_a_log_refuse_the_traceback_with_one_line(
    tmp_path, sizes, cause
):
    x, y = sizes.split(", ")
    result, tree = _from_log(
        tmp_path,
        _jax001_log(
            f"AbstractMesh('x': {x}, 'y': {y}, axis_types=(Explicit, Explicit))"
        ),
    )
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert result.exit_code == 2 and len(errors) == 1 and cause in errors[0], (
        result.output
    )
    assert len(errors[0]) < 400 and "Traceback" not in result.output
    assert (tree / "run_compile.py").read_bytes() == (
        PROJECT / "run_compile.py"
    ).read_bytes()


def test_mesh_sizes_are_between_1_and_seven_digits():
    assert parse_mesh(
        "AbstractMesh('x': 9999999, 'y': 1, axis_types=(Auto, Auto))"
    ).axis_sizes == (9999999, 1)
    assert parse_mesh(
        "AbstractMesh('a'b': 2, 'c': 4, axis_types=(Auto, Auto))"
    ).axis_names == ("a'b", "c")
    for bad in (
        "AbstractMesh('x': 0, axis_types=(Auto,))",
        "AbstractMesh('x': 10000000, axis_types=(Auto,))",
        "Mesh(axis_sizes=("
        + "9" * 5000
        + ", 4), axis_names=('x', 'y'), axis_types=(Explicit, Explicit))",
        "AbstractMesh('': 2)",
        "AbstractMesh('x': 2, , 'y': 4)",
    ):
        with pytest.raises(MeshReprError):
            parse_mesh(bad)


def test_a_mesh_repr_is_read_in_linear_time_and_quoted_briefly():
    """80,000 quotes took 30 s (a lazy regex retried from every quote); a 1 MB line, hours."""
    started = time.perf_counter()
    with pytest.raises(MeshReprError) as quotes:
        parse_mesh("AbstractMesh(" + "'" * 80_000 + ")")
    line = f"{JAX002} AbstractMesh(" + "'a': 1, '" * 110_000 + ")"  # 1 MB
    with pytest.raises(MessageError) as long_line:
        read_facts("JAX002", line)
    assert time.perf_counter() - started < 1.0
    assert len(str(quotes.value)) < 200 and len(str(long_line.value)) < 300


def test_a_1_mb_log_line_is_one_short_error(tmp_path):
    mesh = "AbstractMesh(" + "'a': 1, '" * 110_000 + "'b': 2, axis_types=(Explicit,))"
    result, tree = _from_log(tmp_path, _jax001_log(mesh))
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert result.exit_code == 2 and len(errors) == 1 and len(errors[0]) < 400, (
        result.output[:1000]
    )
    assert (tree / "run_compile.py").read_bytes() == (
        PROJECT / "run_compile.py"
    ).read_bytes()


FORGED_SITE = """\
import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
        print("ran")
"""
FORGED_LOG = (
    b"""Traceback (most recent call last):
  File "/ci/proj/stages.py", line 5, in <module>
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
  File "/venv/lib/python3.11/site-packages/jax/_src/mesh.py", line 600, in use_abstract_mesh
    raise ValueError(
"""
    + JAX002.encode()
    + b""" AbstractMesh('data': 8, 'model': 4, axis_types=(Explicit, Explicit)) with size=32 \
and prev mesh: AbstractMesh('data': 16, 'model': 4, axis_types=(Explicit, Explicit)) with size=64
"""
)


@pytest.mark.parametrize("unsafe", [False, True])
def test_a_log_contradicting_the_mesh_the_code_shows_is_no_fact(tmp_path, unsafe):
    """The outer mesh is written in the code (8, 4), so a log claiming (16, 4) is about other code:
    the site is "changed since the log", never a resize (applied, real JAX raised; with
    --unsafe-fixes the fix did not even settle, exit 2)."""
    tree = tmp_path / "proj"
    tree.mkdir()
    (tree / "stages.py").write_text(FORGED_SITE)
    (tmp_path / "ci.log").write_bytes(FORGED_LOG)
    result = CliRunner().invoke(
        cli,
        [
            "--no-cache",
            "--color",
            "never",
            "--from-log",
            str(tmp_path / "ci.log"),
            *(["--unsafe-fixes"] * unsafe),
            str(tree),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 1, result.output
    assert "not the one of size 64 in the log (changed since the log?)" in result.output
    assert "[no fix]" in result.output and "did not settle" not in result.output
    assert (tree / "stages.py").read_text() == FORGED_SITE


def test_the_forged_log_s_site_runs_fine_under_real_jax(tmp_path):
    from test_real_jax import interpreters

    script = tmp_path / "stages.py"
    script.write_text(FORGED_SITE)
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
        "JAX_PLATFORMS": "cpu",
    }
    for version, python in sorted(interpreters().items()):
        done = subprocess.run(
            [python, str(script)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0 and done.stdout == "ran\n", (
            version,
            done.stderr[-2000:],
        )
