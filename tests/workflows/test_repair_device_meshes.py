"""`jaxfix repair` on tests/repair_projects/devicemeshes, under real JAX on both tiers: inner
meshes whose sizes are the shape of a device array (`Mesh(mesh_utils.create_device_mesh(shape),
...)`, `Mesh(np.asarray(devices).reshape(shape), ...)`, entered as `.abstract_mesh`), a config
made by a function named in a table (`CONFIGS[name]()`), and a size read through a property
(`layout.shape` returning `self._shape`). Each is resized where the run's path leads; the mesh
that works beside them and the constant another working mesh reads are left alone. A lowering
of an abstract argument is fixed and named with where the run built its mesh; the lowering
of a device array beside it is not changed; a `jax.make_mesh` mesh without axis types under
`with_sharding_constraint` (JAX013) gets Auto axes though its module declares another mesh's
Explicit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.test_repair import (
    changed,
    command_env,
    copied,
    python,
    repair_with_pytest,
    snapshot,
)

PROJECT = Path(__file__).parents[1] / "repair_projects" / "devicemeshes"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_sizes_of_device_arrays_tables_and_properties_are_changed_where_written(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "devicemeshes")
    before = snapshot(tree)
    code, report, rounds = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes"
    )
    assert code == 0 and report["passed"], report
    details = {f["line"]: f["detail"] for f in report["fixed"] if f["code"] == "JAX002"}
    assert details == {
        17: "resize the inner mesh to (2, 4) where its sizes are written "
        "(RunConfig(eval_shape=...), presets/configs.py:17)",
        22: "resize the inner mesh to (2, 4) where its sizes are written "
        "(RunConfig(decode_shape=...), presets/configs.py:21)",
        27: "resize the inner mesh to (2, 4) where its sizes are written "
        "(LAYOUTS['wide'].shape, presets/meshes.py:36)",
        33: "resize the inner mesh to (2, 4) where its sizes are written "
        "(meshes.HOST_SHAPE, presets/stages.py:31)",
    }
    assert changed(before, tree) == {
        "presets/configs.py",
        "presets/data.py",
        "presets/export.py",
        "presets/meshes.py",
        "presets/stages.py",
    }
    # JAX013: the module declares another mesh's axes Explicit through a helper, which
    # relies on nothing: the data mesh gets Auto axes; the model mesh is not touched
    data = snapshot(tree)["presets/data.py"].decode()
    assert (
        'jax.make_mesh((hosts,), ("batch",), axis_types=(AxisType.Auto,) * 1)' in data
    )
    assert 'jax.make_mesh((2, 4), ("data", "model"), axis_types=explicit(2))' in data
    # JAX001: the lowering's argument sharding is named with where the run built its mesh
    assert [
        (f["path"], f["line"]) for f in report["fixed"] if f["code"] == "JAX001"
    ] == [("presets/export.py", 18)]
    assert (
        "the run built an argument sharding's abstract mesh at presets/export.py:9, "
        "called from presets/export.py:17, called from tests/test_export.py:5"
    ) in rounds
    after_export = snapshot(tree)["presets/export.py"].decode()
    assert after_export.count("lowering_platforms") == 1
    assert "return jax.jit(lambda x: x * 2).lower(x)\n" in after_export
    after = snapshot(tree)
    configs = after["presets/configs.py"].decode()
    # the working config is not touched; the two failing ones are changed at their keyword
    assert "RunConfig(eval_shape=(4, 2), decode_shape=(2, 4))" in configs
    assert "RunConfig(eval_shape=(2, 4))" in configs
    assert "RunConfig(decode_shape=(2, 4))" in configs
    meshes = after["presets/meshes.py"].decode()
    assert '{"wide": Layout(shape=(2, 4)), "narrow": Layout(shape=(2, 4))}' in meshes
    # HOST_SHAPE stays (2, 2) for host_only_sizes, which runs with it: only the failing read
    assert "HOST_SHAPE = (2, 2)" in meshes
    stages = after["presets/stages.py"].decode()
    assert "meshes.host_mesh((2, 4))" in stages
    assert "meshes.host_mesh(meshes.HOST_SHAPE)" in stages


@pytest.mark.jax
def test_a_factory_the_project_calls_elsewhere_is_not_changed(tmp_path):
    """`large` is named by the table and also called by another function: its body is what
    every call gets, so the run's path through the table does not change it (reported)."""
    tree = copied(PROJECT, tmp_path / "devicemeshes")
    configs = tree / "presets" / "configs.py"
    configs.write_text(
        configs.read_text() + "\n\ndef large_probe():\n    return large().mesh_shape\n"
    )
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(JAX_VERSIONS[0]), "--unsafe-fixes", "-q"
    )
    assert code == 1, report
    assert 17 not in {f["line"] for f in report["fixed"]}
    after = snapshot(tree)
    assert after["presets/configs.py"] == before["presets/configs.py"].replace(
        b"RunConfig(decode_shape=(2, 2))", b"RunConfig(decode_shape=(2, 4))"
    )
    assert any(
        "the project names it elsewhere too" in left["detail"]
        for left in report["left"]
    ), report["left"]


@pytest.mark.jax
def test_evidence_recorded_in_ci_walks_values_as_repair_does(tmp_path):
    """`pytest -p jaxfix.record` in CI, `jaxfix --evidence FILE` later: the walk counts the
    project's callers and reads as repair does (it counted none, and refused the table's
    config function as called elsewhere)."""
    tree = copied(PROJECT, tmp_path / "devicemeshes")
    evidence = tmp_path / "evidence.jsonl"
    env = {
        **command_env(tmp_path),
        "JAXFIX_RECORD": str(evidence),
        "PYTHONPATH": str(Path(__file__).parents[2]),
    }
    recorded = subprocess.run(
        [python(JAX_VERSIONS[0]), "-m", "pytest", "-q", "-p", "jaxfix.record"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert evidence.exists(), recorded.stdout + recorded.stderr
    done = subprocess.run(
        [sys.executable, "-m", "jaxfix", "--evidence", str(evidence)]
        + ["--unsafe-fixes", "--diff", "."],
        cwd=tree,
        env=command_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "-    return RunConfig(eval_shape=(4, 4))" in done.stdout, (
        done.stdout + done.stderr
    )
    assert "+    return RunConfig(eval_shape=(2, 4))" in done.stdout
    assert '+LAYOUTS = {"wide": Layout(shape=(2, 4))' in done.stdout


POD_CONFIG = """def pod():
    return RunConfig(eval_shape=(jax.device_count() // 2, 4))


CONFIGS = {"small": small, "large": large, "serving": serving, "pod": pod}
"""
POD_TEST = """
from presets.stages import runner


def test_pod_eval():
    assert runner("pod").eval_sizes() in ((2, 4), (4, 2))
"""


@pytest.mark.jax
def test_a_path_to_the_same_line_whose_sizes_are_computed_is_named(tmp_path):
    """Two configs reach one raising line: `large`'s literal is changed; `pod`'s sizes are
    computed from the device count (report-only): the raising line names that expression and
    its line, not only the fix made for the other path."""
    tree = copied(PROJECT, tmp_path / "devicemeshes")
    configs = tree / "presets" / "configs.py"
    configs.write_text(
        "import jax\n"
        + configs.read_text().replace(
            'CONFIGS = {"small": small, "large": large, "serving": serving}\n',
            POD_CONFIG,
        )
    )
    (tree / "tests" / "test_pod.py").write_text(POD_TEST)
    code, report, rounds = repair_with_pytest(
        tree, tmp_path, python(JAX_VERSIONS[0]), "--unsafe-fixes"
    )
    assert code == 1, report
    assert "RunConfig(eval_shape=(2, 4))" in configs.read_text()
    assert "RunConfig(eval_shape=(jax.device_count() // 2, 4))" in configs.read_text()
    computed = (
        "another path the run took to this line: the inner mesh's size comes from "
        "`jax.device_count() // 2`, written at presets/configs.py:26 and computed from "
        "`jax.device_count()` when it runs"
    )
    assert computed in " ".join(rounds.split()), rounds
    [left] = [x for x in report["left"] if x["line"] == 17]
    assert left["detail"].startswith(f"raised again after its fix; {computed}"), left
