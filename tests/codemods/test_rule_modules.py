"""Rules from elsewhere (`--rule-module`): a rule outside jaxfix is its module and nothing else,
registered by path or name, in every place that names the rules (help, --list-rules,
--explain, --select) and in a run; a config file may not name one (it would run its code)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixture_cases import read_header
from jaxfix.cli.main import cli
from jaxfix.codemods import RULES, RuleModuleError, load_rule_modules

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests" / "rules" / "tst904_spec_axis_not_in_mesh.py"
VIOLATION = (
    "import jax\nfrom jax.sharding import PartitionSpec as P\n"
    'with jax.set_mesh(jax.make_mesh((8,), ("x",))):\n    jax.device_put(1, P("y"))\n'
)


@pytest.fixture(autouse=True)
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """What a test registers is gone after it: other tests see jaxfix's own rules."""
    import jaxfix.codemods

    monkeypatch.setattr(jaxfix.codemods, "_LOADED", {})
    saved = dict(RULES)
    yield
    RULES.clear()
    RULES.update(saved)


def _jaxfix(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A fresh process: what the registry holds is only what the command line names."""
    return subprocess.run(
        [sys.executable, "-m", "jaxfix", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        check=False,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_a_rule_file_copied_anywhere_is_registered_and_runs_everywhere(tmp_path):
    """Only its module: a copy outside the repository, with no package around it."""
    rule = tmp_path / "elsewhere" / EXAMPLE.name
    rule.parent.mkdir()
    shutil.copy(EXAMPLE, rule)
    (tmp_path / "code.py").write_text(VIOLATION)
    given = ("--rule-module", str(rule))
    listed = _jaxfix(*given, "--list-rules", cwd=tmp_path)
    assert "TST904\tspec-axis-not-in-mesh" in listed.stdout, listed.stderr
    explained = _jaxfix(*given, "--explain", "tst904", cwd=tmp_path)
    assert "## What it does" in explained.stdout or "What it does" in explained.stdout
    helped = _jaxfix(*given, "--help", cwd=tmp_path)
    assert "TST904" in " ".join(helped.stdout.split()), helped.stdout
    run = _jaxfix(
        *given, "--check", "--no-cache", "--select", "TST904", "code.py", cwd=tmp_path
    )
    assert run.returncode == 1, run.stderr
    assert "code.py:4:5: TST904 axis 'y' is not in the context mesh" in run.stdout
    without = _jaxfix("--check", "--no-cache", "code.py", cwd=tmp_path)
    assert without.returncode == 0 and "TST904" not in without.stdout + without.stderr


def test_a_directory_a_module_and_a_package_name_rule_modules(monkeypatch):
    monkeypatch.setattr(sys, "path", [str(ROOT / "tests"), *sys.path])
    by_directory = load_rule_modules([str(EXAMPLE.parent)])
    by_package = load_rule_modules(["rules"])
    by_module = load_rule_modules(["rules.tst904_spec_axis_not_in_mesh"])
    assert [r.code for r in by_module] == ["TST904"]
    assert [r.code for r in by_package] == [r.code for r in by_directory]
    assert [r.code for r in by_package] == ["TST004", "TST904"]
    assert by_module[0] is RULES["TST904"]  # one class, however it was named


def test_a_module_that_cannot_be_registered_is_one_line(tmp_path, monkeypatch):
    broken = tmp_path / "jax905_broken.py"
    broken.write_text("import nothing_of_the_kind\n")
    twice = tmp_path / "jax906_twice.py"
    twice.write_text(EXAMPLE.read_text().replace("SpecAxisNotInMesh", "Other"))
    monkeypatch.setattr(sys, "path", [str(ROOT / "tests"), *sys.path])
    load_rule_modules(["rules"])
    with pytest.raises(RuleModuleError, match=r"ModuleNotFoundError: No module"):
        load_rule_modules([str(broken)])
    with pytest.raises(RuleModuleError, match="rule code TST904 is defined twice"):
        load_rule_modules([str(twice)])
    result = CliRunner().invoke(
        cli, ["--rule-module", str(tmp_path / "missing.py"), "--list-rules"]
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"jaxfix: error: --rule-module: rule module {tmp_path / 'missing.py'}: no such file or directory"
    ]


def test_a_config_file_cannot_name_a_rule_module(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.jaxfix]\nrule-modules = ["{EXAMPLE}"]\n'
    )
    (tmp_path / "code.py").write_text(VIOLATION)
    result = _jaxfix("--check", "code.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"jaxfix: error: {tmp_path / 'pyproject.toml'}: 'rule-modules' in [tool.jaxfix]: "
        "a config file cannot make jaxfix import code: give --rule-module"
    )


def test_the_registry_is_as_it_was_after_each_test():
    assert "TST904" not in RULES


TST004 = ROOT / "tests" / "rules" / "tst004_out_sharding_mesh_size.py"


def test_jax004_is_its_module_and_its_fixtures_and_passes_from_a_copy(tmp_path):
    """The suite's TST004 copied alone (its module, its fixtures) out of the repository: the
    rule is listed, explained, reports what its fixtures expect, and a real log of its error
    (the positive fixture run under real JAX) confirms its site in --from-log mode."""
    copy = tmp_path / "plugin"
    shutil.copytree(TST004.parent / "fixtures" / "TST004", copy / "fixtures" / "TST004")
    shutil.copy(TST004, copy / TST004.name)
    given = ("--rule-module", str(copy / TST004.name))
    listed = _jaxfix(*given, "--list-rules", cwd=tmp_path)
    assert "TST004\tout-sharding-mesh-size\tnone\t" in listed.stdout, listed.stderr
    explained = _jaxfix(*given, "--explain", "TST004", cwd=tmp_path)
    assert "# TST004: out-sharding-mesh-size" in explained.stdout
    assert "Received incompatible devices" in explained.stdout
    fixtures = sorted((copy / "fixtures" / "TST004").glob("*.py"))
    expected = {f.name: read_header(f)["expect"] for f in fixtures}
    assert sorted(set(expected.values())) == ["TST004", "none"]
    checked = _jaxfix(
        *given, "--check", "--no-cache", "--format", "json", ".", cwd=copy
    )
    found = {
        Path(entry["path"]).name: [d["code"] for d in entry["diagnostics"]]
        for entry in json.loads(checked.stdout)["files"]
    }
    assert {n: ",".join(found.get(n, [])) or "none" for n in expected} == expected
    # A real log of its error, then --from-log on the file it names.
    entry = copy / "fixtures" / "TST004" / "call_under_set_mesh_of_other_size.py"
    log = _log_of(entry, tmp_path / "run.log")
    assert "Got jit's context mesh with device ids" in log.read_text()
    confirmed = _jaxfix(
        *given,
        "--from-log",
        str(log),
        "--check",
        "--no-cache",
        "-q",
        str(entry),
        cwd=tmp_path,
    )
    assert confirmed.returncode == 1, confirmed.stderr
    (line,) = confirmed.stdout.splitlines()
    assert line.startswith(
        f"{entry.relative_to(tmp_path)}:12:9: TST004 out_shardings is on a mesh of size 4"
    )
    without = _jaxfix(
        "--from-log", str(log), "--check", "--no-cache", str(entry), cwd=tmp_path
    )
    assert (
        "no traceback of JAX001-JAX014, JAX101 or JAX103 in the log" in without.stderr
    )
    # The same first sentence opens JAX's error for an argument on other devices (a JAX003
    # fixture's): that log is not TST004's.
    other = ROOT / "fixtures" / "JAX003" / "meshes_differ_only_in_devices.py"
    other_log = _log_of(other, tmp_path / "other.log")
    assert "Got argument x of" in other_log.read_text()
    not_ours = _jaxfix(
        *given,
        "--from-log",
        str(other_log),
        "--check",
        "--no-cache",
        str(other),
        cwd=tmp_path,
    )
    assert not_ours.returncode == 0, not_ours.stdout
    assert (
        "no traceback of JAX001-JAX014, JAX101, JAX103 or TST004 in the log"
        in not_ours.stderr
    )


def _log_of(script: Path, log: Path) -> Path:
    """What `script` prints to stderr run under real JAX (8 CPU devices): its traceback."""
    run = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={
            "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
            "JAX_PLATFORMS": "cpu",
            "PATH": "/usr/bin:/bin",
        },
    )
    assert "ValueError: Received incompatible devices" in run.stderr, run.stderr[-2000:]
    log.write_text(run.stderr)
    return log


def test_a_worker_started_by_spawn_registers_them_from_the_options():
    """A fresh process holds jaxfix's own rules only; the options it is handed name the rest."""
    probe = (
        "import sys; from jaxfix.check.engine import selected_rules; from jaxfix.settings.options import "
        "Options; print([r.code for r in selected_rules(Options(rule_modules=(sys.argv[1],)))])"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert (
        done.stdout.strip()
        == "['JAX001', 'JAX002', 'JAX003', 'JAX004', 'JAX005', 'JAX006', 'JAX007', 'JAX008', 'JAX009', 'JAX010', 'JAX011', 'JAX012', 'JAX013', 'JAX014', 'TST904']"
    )
