"""`jaxfix repair` on projects whose raising lines are reached along several paths (a test per
config, each with its own sizes), under real JAX on both tiers. Each path is walked with its
own meshes to where its value is written:

- fieldconfigs/: a config changed field by field in a derived config module
  (`config.probe.model = 1`, the ConfigDict idiom, chosen through a table of builders) and a
  preset of an enum whose property matches over its members (`case Preset.NARROW: return
  dict(..., probe_shape=(2, 2))`) read into a NamedTuple by `cls(**preset.settings)`: each
  is changed where it is written; the base config's sizes and the working preset, read by
  stages that work, are never changed; sizes computed from the host (`min(8,
  jax.local_device_count() // 4)`, `(jax.local_device_count() // 4, 2)`) are reported with
  their file, line and the size that would match.
- overrides/: a TOML experiment file read into a dataclass made by `__init_subclass__`, then
  "key=value" override strings: the TOML entry and the override string are each changed;
  the base file, and an override a working launch uses, are never changed; an f-string
  override computed from the process count is reported at its line.
- jitwrappers/: gathers behind a jit wrapper object (`Compiled.__call__(*args)`) and in a
  `@jax.jit` function defined in the method that calls it under `jax.set_mesh(self.mesh)`:
  the input is moved at the wrapper's caller, the out_sharding local put on `self.mesh`
  where it is assigned; the working gathers, and a jitted function called twice, are never
  changed."""

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

PROJECTS = Path(__file__).parents[1] / "repair_projects"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_config_fields_and_enum_presets_are_changed_where_each_path_writes_them(
    tmp_path, version
):
    tree = copied(PROJECTS / "fieldconfigs", tmp_path / "fieldconfigs")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report  # the two sizes computed from the host are left
    assert changed(before, tree) == {"stages/configs/small.py", "stages/presets.py"}
    after = snapshot(tree)
    assert after["stages/configs/small.py"] == before[
        "stages/configs/small.py"
    ].replace(b"config.probe.model = 1", b"config.probe.model = 2")
    assert after["stages/presets.py"] == before["stages/presets.py"].replace(
        b"probe_shape=(2, 2)", b"probe_shape=(4, 2)"
    )
    left = {s["line"]: s["detail"] for s in report["left"]}
    assert set(left) == {14, 24}
    assert (
        "the inner mesh's size comes from `min(8, jax.local_device_count() // 4)`, "
        "written at stages/configs/host.py:10 and computed from "
        "`jax.local_device_count()` when it runs (axis 'data' is 2 in the run; 4 would "
        "make the enclosing size 8)"
    ) in left[14]
    assert (
        "the inner mesh's size comes from `jax.local_device_count() // 4`, written at "
        "stages/presets.py:22 and computed from `jax.local_device_count()` when it runs "
        "(axis 'data' is 2 in the run; 4 would make the enclosing size 8)"
    ) in left[24]


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_toml_entry_and_an_override_string_are_changed_along_their_own_paths(
    tmp_path, version
):
    tree = copied(PROJECTS / "overrides", tmp_path / "overrides")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report  # the f-string computed from the process count is left
    assert changed(before, tree) == {"runs/experiments/small.toml", "runs/launch.py"}
    after = snapshot(tree)
    assert after["runs/experiments/small.toml"] == before[
        "runs/experiments/small.toml"
    ].replace(b"[probe]\nshape = [4, 1]", b"[probe]\nshape = [4, 2]")
    assert after["runs/launch.py"] == before["runs/launch.py"].replace(
        b'"probe.shape=2,2"', b'"probe.shape=4,2"'
    )
    (left,) = report["left"]
    assert left["line"] == 19
    assert (
        'the inner mesh\'s size comes from `f"probe.shape={4 * jax.process_count()},1"`, '
        "written at runs/launch.py:11 and computed from `jax.process_count()` when it runs"
    ) in left["detail"]


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_gathers_behind_a_jit_wrapper_or_a_local_jitted_function_are_fixed(
    tmp_path, version
):
    tree = copied(PROJECTS / "jitwrappers", tmp_path / "jitwrappers")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report  # the function jitted and called twice is left
    assert changed(before, tree) == {"serve/steps.py"}
    after = snapshot(tree)["serve/steps.py"].decode()
    old = before["serve/steps.py"].decode()
    moved = (
        "        mesh = self.mesh\n"
        "        with jax.set_mesh(mesh):\n"
        "            return _mean_all(\n"
        "                jax.device_put(\n"
        "                    values,\n"
        "                    NamedSharding(mesh, jax.typeof(values).sharding.spec),\n"
        "                ),\n"
        "            )\n"
    )
    side = 'out = NamedSharding(self.side_mesh, PartitionSpec(reduced={"data"}))'
    assert old.count(side) == 2
    expected = old.replace(
        "        with jax.set_mesh(self.mesh):\n            return _mean_all(values)\n",
        moved,
        1,
    ).replace(
        side, 'out = NamedSharding(self.mesh, PartitionSpec(reduced={"data"}))', 1
    )
    assert after == expected
    assert after.count(side) == 1  # total_twice's
    (left,) = report["left"]
    assert left["line"] == 73 and "not fixed" in left["detail"]  # 67, moved by the fix


@pytest.mark.jax
def test_values_changed_since_the_run_are_not_written(tmp_path):
    """Evidence recorded by `pytest -p jaxfix.record`, then the override string and the TOML
    entry edited by hand before `jaxfix --evidence`: neither holds the run's sizes any more
    (changed since the run), so neither is written; nothing else changes either."""
    tree = copied(PROJECTS / "overrides", tmp_path / "overrides")
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
    launch, toml = tree / "runs/launch.py", tree / "runs/experiments/small.toml"
    launch.write_text(
        launch.read_text().replace('"probe.shape=2,2"', '"probe.shape=2,1"')
    )
    toml.write_text(toml.read_text().replace("shape = [4, 1]", "shape = [2, 1]"))
    before = snapshot(tree)
    done = subprocess.run(
        [sys.executable, "-m", "jaxfix", "--evidence", str(evidence)]
        + ["--unsafe-fixes", "."],
        cwd=tree,
        env=command_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert changed(before, tree) == set(), done.stdout + done.stderr
    assert "now holds [2, 1], not the run's [4, 1] (changed since the run)" in (
        done.stdout + done.stderr
    )
