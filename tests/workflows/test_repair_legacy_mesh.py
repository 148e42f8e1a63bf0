"""JAX014 through a recorded run: the error is raised in a function defined outside the `with
mesh:` block, so the raising line is not in the block; the record's outer frames (the call in the
block) tie it to the block, as a log's traceback does for `--from-log`."""

from __future__ import annotations

import json
import subprocess

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from jaxfix.evidence.recorder import SCHEMA
from jaxfix.evidence.records import read_evidence
from workflows.test_repair import command_env, jaxfix_repair, python, recorded_run

pytestmark = pytest.mark.jax

# The call in the block is line 15; the jit that raises, line 9 (in `doubled`).
JIT_IN_A_FUNCTION = """import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P


def doubled(x):
    return jax.jit(lambda a: a * 2, in_shardings=P("x"))(x)


mesh = Mesh(np.array(jax.devices()), ("x",))
x = jnp.arange(8.0)
with mesh:
    y = doubled(x)
print("total", float(y.sum()))
"""
FIXED = JIT_IN_A_FUNCTION.replace("with mesh:", "with jax.set_mesh(mesh):")


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_recorded_error_raised_in_a_function_the_block_calls_is_the_blocks(
    tmp_path, version
):
    """Real JAX on each tier: the record's evidence keeps the line of the call in the block
    (its `callers`), and `jaxfix repair` fixes that block and the program then runs."""
    program = tmp_path / "run_doubled.py"
    program.write_text(JIT_IN_A_FUNCTION)
    _, data = recorded_run(python(version), program, tmp_path)
    (error,) = [r for r in map(json.loads, data.splitlines()) if r["kind"] == "error"]
    assert error["code"] == "JAX014", error
    (evidence,) = read_evidence(data, [program]).evidence[program]
    assert (evidence.code, evidence.line, evidence.callers) == ("JAX014", 9, (15,))

    code, report, stderr = jaxfix_repair(
        tmp_path,
        tmp_path,
        "--select",
        "JAX014",
        "--unsafe-fixes",
        "--",
        python(version),
        program.name,
    )
    assert code == 0 and report["passed"], (report, stderr[-3000:])
    assert [(f["code"], f["path"]) for f in report["fixed"]] == [
        ("JAX014", "run_doubled.py")
    ]
    assert program.read_text() == FIXED
    after = subprocess.run(
        [python(version), str(program)],
        cwd=tmp_path,
        env=command_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert after.stdout.splitlines()[-1] == "total 56.0", after.stderr[-2000:]


def _frame(path, line, source, function="<module>"):
    return {"path": str(path), "line": line, "function": function, "source": source}


def _record(frames):
    return {
        "schema": SCHEMA,
        "kind": "error",
        "code": "JAX014",
        "exception": "RuntimeError",
        "message": "jit requires a non-empty mesh in context if you are passing "
        "`PartitionSpec`s to in_shardings. You can define a context mesh via "
        "`jax.set_mesh(mesh)`.",
        "frames": frames,
    }


def test_a_forged_outer_frame_ties_the_error_to_no_block(tmp_path):
    """Only outer frames of the raising file whose line still reads as the run saw it count:
    a frame whose line shows other code, one past the end of the file, one of another file and
    one on the raising line itself (recursion) are no callers; the true one is."""
    program = tmp_path / "run_doubled.py"
    program.write_text(JIT_IN_A_FUNCTION)
    other = tmp_path / "other.py"
    other.write_text("with mesh:\n    y = doubled(x)\n")
    raising = _frame(
        program, 9, 'return jax.jit(lambda a: a * 2, in_shardings=P("x"))(x)', "doubled"
    )
    cases = {
        "true": ([_frame(program, 15, "y = doubled(x)"), raising], (15,)),
        "other code": ([_frame(program, 15, "y = tripled(x)"), raising], ()),
        "past the end": ([_frame(program, 99, "y = doubled(x)"), raising], ()),
        "another file": ([_frame(other, 2, "y = doubled(x)"), raising], ()),
        "the raising line": ([raising, raising], ()),
    }
    for name, (frames, callers) in cases.items():
        data = (json.dumps(_record(frames)) + "\n").encode()
        (evidence,) = read_evidence(data, [program, other]).evidence[program]
        assert (evidence.line, evidence.callers) == (9, callers), name


def test_a_record_without_the_block_in_its_frames_fixes_nothing(tmp_path):
    """Must not change: the raising frame alone (the call in the block not recorded, as with
    the frames cut to the innermost ones) ties the error to no block: `--evidence` leaves the
    file as it is."""
    from click.testing import CliRunner

    from jaxfix.cli.main import cli

    program = tmp_path / "run_doubled.py"
    program.write_text(JIT_IN_A_FUNCTION)
    raising = _frame(
        program, 9, 'return jax.jit(lambda a: a * 2, in_shardings=P("x"))(x)', "doubled"
    )
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text(json.dumps(_record([raising])) + "\n")
    result = CliRunner().invoke(
        cli,
        [
            "--evidence",
            str(evidence),
            "--select",
            "JAX014",
            "--unsafe-fixes",
            "--no-cache",
            str(program),
        ],
        catch_exceptions=False,
    )
    assert program.read_text() == JIT_IN_A_FUNCTION, result.output
    fixed = tmp_path / "with_caller.jsonl"
    fixed.write_text(
        json.dumps(_record([_frame(program, 15, "y = doubled(x)"), raising])) + "\n"
    )
    result = CliRunner().invoke(
        cli,
        [
            "--evidence",
            str(fixed),
            "--select",
            "JAX014",
            "--unsafe-fixes",
            "--no-cache",
            str(program),
        ],
        catch_exceptions=False,
    )
    assert program.read_text() == FIXED, result.output


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_default_selection_fixes_the_block_whose_error_the_run_raised(
    tmp_path, version
):
    """Without --select, repair fixes what the run raised: JAX014 is among the default rules
    (`with mesh:` alone only warns, JAX102's deprecation), and the run shows its block's jit
    raising (here given its PartitionSpec as out_shardings); `--ignore JAX014` leaves it."""
    program = tmp_path / "run_doubled.py"
    source = JIT_IN_A_FUNCTION.replace("in_shardings=", "out_shardings=")
    program.write_text(source)
    code, report, stderr = jaxfix_repair(
        tmp_path, tmp_path, "--unsafe-fixes", "--", python(version), program.name
    )
    assert code == 0 and report["passed"], (report, stderr[-3000:])
    assert [(f["code"], f["path"]) for f in report["fixed"]] == [
        ("JAX014", "run_doubled.py")
    ]
    assert program.read_text() == source.replace(
        "with mesh:", "with jax.set_mesh(mesh):"
    )
    ignored = tmp_path / "ignored"
    ignored.mkdir()
    (ignored / program.name).write_text(source)
    code, report, _ = jaxfix_repair(
        ignored, ignored, "--ignore", "JAX014", "--", python(version), program.name
    )
    assert code == 1 and not report["fixed"]
    assert [s["detail"] for s in report["left"]] == [
        "JAX014 is not selected (--select JAX014, or ALL)"
    ]
    assert (ignored / program.name).read_text() == source
