"""A new user's walk-through (issue 27): a small project, the commands the README shows, what a
ruff user expects. One test per item of the issue, in its order, each as a person would run it
(a real process where streams or terminals matter, CliRunner elsewhere)."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxfix.cli.main import cli
from jaxfix.settings.jax_version import installed_jax_version

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
# Raises only on jax 0.12 (AbstractMesh axes default to Explicit there): what an upgrade finds.
NEW_JAX_ONLY = FIXTURES / "JAX001" / "use_abstract_mesh_default_axes_on_new_jax.py"
LOWERING = FIXTURES / "JAX001" / "jit_lower_rewritten_to_trace_lower.py"
COLOR = re.compile(
    r"\x1b\[(?:\d+;)*(?:3[0-7]|9[0-7]|4[0-7]|10[0-7]|38|48)[;m]"
)  # an SGR that sets a colour


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")
    }
    return {**env, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **extra}


def jaxfix(*args: str, cwd: Path, **kwargs) -> subprocess.CompletedProcess[str]:
    """`jaxfix ARGS` in a real process, as typed in a shell."""
    return subprocess.run(
        [sys.executable, "-m", "jaxfix", "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=kwargs.pop("env", _env()),
        timeout=300,
        **kwargs,
    )


def on_a_terminal(*args: str, cwd: Path, env: dict[str, str]) -> str:
    """What `jaxfix ARGS` shows on a terminal: stdout and stderr on one pseudo-terminal."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "jaxfix", "--no-cache", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            process.kill()
            raise AssertionError("jaxfix did not finish on the terminal")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    process.wait(timeout=60)
    return b"".join(chunks).decode(errors="replace")


def invoke(*args: str, cwd: Path, stdin: str | None = None):
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(
            cli,
            ["--no-cache", "--color", "never", *args],
            input=stdin,
            catch_exceptions=False,
        )
    finally:
        os.chdir(old)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project as a user has one: a pyproject.toml, code under src/trainer/."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "trainer"\nversion = "1"\ndependencies = ["numpy"]\n'
    )
    package = tmp_path / "src" / "trainer"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "export.py").write_text(NEW_JAX_ONLY.read_text())
    return tmp_path


def _pin(project: Path, requirement: str) -> None:
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "trainer"\nversion = "1"\ndependencies = ["{requirement}"]\n'
    )


# -- 1. the target JAX version ---------------------------------------------------------------


def test_1_a_project_pinned_to_new_jax_is_checked_against_it_and_says_so(project):
    unpinned = invoke("--check", "src", cwd=project)
    installed = installed_jax_version()
    assert installed is not None and installed < (0, 11), "this tier runs jax 0.10"
    assert unpinned.exit_code == 0, unpinned.output
    assert (
        f"target JAX {'.'.join(map(str, installed))} (the installed jax)"
        in unpinned.stderr
    )

    _pin(project, "jax>=0.12")
    pinned = invoke("--check", "src/trainer", cwd=project)
    assert pinned.exit_code == 1 and "export.py:16:15: JAX001 " in pinned.stdout
    assert (
        "target JAX 0.12 (pyproject.toml [project] dependencies: jax>=0.12)"
        in pinned.stderr
    )
    verbose = invoke("--check", "-v", "src/trainer/export.py", cwd=project)
    assert verbose.stderr.startswith(
        "jaxfix: target JAX 0.12 (pyproject.toml [project] dependencies: jax>=0.12)\n"
    )

    old_flag = invoke("--check", "--jax-version", "0.10.2", "src", cwd=project)
    assert (
        old_flag.exit_code == 0
        and "target JAX 0.10.2 (--target-version)" in old_flag.stderr
    )
    (project / "pyproject.toml").write_text(
        project.joinpath("pyproject.toml").read_text()
        + '[tool.jaxfix]\ntarget-version = "0.10.2"\n'
    )
    configured = invoke("--check", "src", cwd=project)
    assert (
        configured.exit_code == 0
        and "[tool.jaxfix] target-version)" in configured.stderr
    )


# -- 3. output streams -----------------------------------------------------------------------


def test_3_the_preview_goes_to_stdout_and_the_summary_to_stderr(project):
    (project / "src" / "trainer" / "lower.py").write_text(LOWERING.read_text())
    with open(project / "preview.txt", "w") as preview:
        run = subprocess.run(
            [sys.executable, "-m", "jaxfix", "--no-cache", "--dry-run", "src/"],
            cwd=project,
            env=_env(),
            stdout=preview,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    assert run.returncode == 1
    captured = (project / "preview.txt").read_text()
    assert "--- a/src/trainer/lower.py\n+++ b/src/trainer/lower.py\n" in captured
    assert (
        "src/trainer/lower.py:13:11: JAX001 " in captured
        and "+    lowering_platforms=" in captured
    )
    assert (
        "jaxfix summary" not in captured
        and "jaxfix summary" in run.stderr
        and "JAX001 `" not in run.stderr
    )
    assert "\x1b[" not in captured, "a file gets no colours"

    diff = jaxfix("--diff", "src/", cwd=project)
    assert (
        diff.stdout.startswith("--- a/src/trainer/lower.py\n")
        and "JAX001" not in diff.stdout
    )


# -- 5. colours: NO_COLOR and FORCE_COLOR ------------------------------------------------------


def test_5_no_color_is_honoured_on_a_terminal_and_force_color_when_piped(project):
    (project / "src" / "trainer" / "lower.py").write_text(LOWERING.read_text())
    colored = on_a_terminal(
        "--dry-run", "src/", cwd=project, env=_env(TERM="xterm-256color")
    )
    assert "JAX001" in colored and COLOR.search(colored), colored[:300]
    plain = on_a_terminal(
        "--dry-run", "src/", cwd=project, env=_env(TERM="xterm-256color", NO_COLOR="1")
    )
    assert "JAX001" in plain and not COLOR.search(plain), plain[:300]
    forced = jaxfix("--dry-run", "src/", cwd=project, env=_env(FORCE_COLOR="1"))
    assert COLOR.search(forced.stdout) and "\x1b[" in forced.stderr
    never = jaxfix(
        "--dry-run", "--color", "never", "src/", cwd=project, env=_env(FORCE_COLOR="1")
    )
    assert "\x1b[" not in never.stdout + never.stderr


# -- 9. stdin without --stdin-filename -------------------------------------------------------


def test_9_stdin_without_a_file_name_is_checked_and_fixed_as_code_in_the_working_directory(
    project,
):
    """The README's `jaxfix - < file.py`: the rules need no path; the code counts as a file in
    the working directory, so even its absolute imports of the project are followed."""
    assert (
        invoke("-", cwd=project, stdin=LOWERING.read_text()).stdout
        == (
            FIXTURES / "JAX001" / "jit_lower_rewritten_to_trace_lower.fixed.py"
        ).read_text()
    )
    (project / "meshes.py").write_text(
        'from jax.sharding import AbstractMesh\n\nINNER = AbstractMesh((16, 4), ("data", "model"))\n'
    )
    code = (
        "from jax.sharding import AbstractMesh, use_abstract_mesh\n\nfrom meshes import INNER\n\n"
        'with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):\n    with use_abstract_mesh(INNER):\n        pass\n'
    )
    checked = invoke("--check", "-", cwd=project, stdin=code)
    assert checked.exit_code == 1 and checked.stdout.startswith(
        "-:6:10: JAX002 `use_abstract_mesh(INNER)` (line 6, size 64"
    ), checked.output
    named = invoke(
        "--check",
        "-",
        "--stdin-filename",
        "src/trainer/stages.py",
        cwd=project,
        stdin=code,
    )
    assert named.exit_code == 0, (
        "from src/trainer/, `meshes` is not importable: nothing is known about INNER"
    )


# -- 2. a notebook of nbformat 4.4 with cell ids (jax-ml/jax's docs/ffi.ipynb) ---------------


def test_2_a_4_4_notebook_with_cell_ids_is_checked_as_jupyter_reads_it(project):
    without = invoke("--check", ".", cwd=project)
    notebook = (
        FIXTURES / "JAX001" / "notebook_already_passes_lowering_platforms.ipynb"
    ).read_text()
    assert '"nbformat_minor": 5' in notebook and '"id": ' in notebook
    (project / "docs").mkdir()
    (project / "docs" / "ffi.ipynb").write_text(
        notebook.replace('"nbformat_minor": 5', '"nbformat_minor": 4')
    )
    with_notebook = invoke("--check", ".", cwd=project)
    assert (
        with_notebook.exit_code == without.exit_code
        and "error:" not in with_notebook.output
    ), with_notebook.output


# -- 4. fixed lines keep to the line length; the added import is where isort puts it ---------


CHAINED = """\
import jax.numpy as jnp
from jax import ShapeDtypeStruct, jit
from jax.sharding import AbstractMesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = AbstractMesh((2, 4), ("x", "y"))
x = ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))
score = jit(jnp.add)


def export_text():
    return score.lower(x, x).as_text()
"""


def test_4_a_fixed_chained_call_fits_the_line_length_and_its_import_is_sorted(project):
    module = project / "src" / "trainer" / "scoring.py"
    module.write_text(CHAINED)
    assert invoke("src/", cwd=project).exit_code == 0
    fixed = module.read_text()
    assert (
        "import jax\nimport jax.numpy as jnp\n" in fixed and ").as_text()\n" in fixed
    ), fixed
    assert max(map(len, fixed.splitlines())) <= 88, fixed
    ruff = Path(sys.executable).with_name("ruff")
    sorted_imports = subprocess.run(
        [str(ruff), "check", "--isolated", "--no-cache", "--select", "I", str(module)],
        capture_output=True,
        text=True,
    )
    assert sorted_imports.returncode == 0, sorted_imports.stdout
    module.write_text(
        CHAINED
    )  # sorted before the fix too: the finding would be jaxfix's
    assert (
        subprocess.run(
            [
                str(ruff),
                "check",
                "--isolated",
                "--no-cache",
                "--select",
                "I",
                str(module),
            ],
            capture_output=True,
        ).returncode
        == 0
    )


# -- 7. re-running --from-log after its fixes were applied ------------------------------------


def test_7_rerunning_from_log_after_the_fix_says_already_fixed_and_exits_0(project):
    script = project / "src" / "trainer" / "lower.py"
    script.write_text(LOWERING.read_text())
    run = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(
            XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu"
        ),
    )
    assert "ValueError: Passing lowering_platforms" in run.stderr, run.stderr[-2000:]
    (project / "ci.log").write_text(run.stderr)
    assert invoke("--from-log", "ci.log", ".", cwd=project).exit_code == 0
    again = invoke("--from-log", "ci.log", ".", cwd=project)
    assert again.exit_code == 0 and "is already fixed" in again.output, again.output
    assert (
        re.search(r"log sites already fixed\s*│\s*1 │", again.output)
        and "error:" not in again.output
    )


# -- 8. an IPython traceback from a notebook ----------------------------------------------------


def test_8_an_ipython_traceback_is_mapped_onto_its_cell(project):
    from codemods.test_real_jax import JAX_VERSIONS, interpreters
    from evidence.test_from_log import _ipython_log, _notebook

    version = next(v for v in JAX_VERSIONS if v in interpreters())
    (project / "notebooks").mkdir()
    (project / "notebooks" / "explore.ipynb").write_text(_notebook())
    (project / "cell.log").write_bytes(_ipython_log(version, modern=True))
    checked = invoke("--from-log", "cell.log", "--check", ".", cwd=project)
    assert (
        checked.exit_code == 1
        and "notebooks/explore.ipynb:cell 4:4:11: JAX001" in checked.output
    ), checked.output


# -- 6. unsafe fixes: the wording, and the diff --dry-run shows ---------------------------------

UNSAFE_ONLY = (
    FIXTURES / "JAX003" / "eager_bare_spec_input_on_other_mesh_without_unsafe_fixes.py"
)


def test_6_dry_run_shows_the_unsafe_diff_marked_as_not_applied(project):
    target = project / "src" / "trainer" / "gather.py"
    target.write_text(UNSAFE_ONLY.read_text())
    preview = invoke("--dry-run", "src/trainer/gather.py", cwd=project)
    assert preview.exit_code == 1 and target.read_text() == UNSAFE_ONLY.read_text()
    lines = preview.stdout.splitlines()
    finding = next(i for i, line in enumerate(lines) if ": JAX003 " in line)
    assert (
        "[unsafe fix, available with --unsafe-fixes: move `x` onto `mesh_b` before the gather]"
        in lines[finding]
    )
    assert "applied with --unsafe-fixes" not in preview.stdout
    banner = lines.index(
        "src/trainer/gather.py: the unsafe fixes above are NOT applied without --unsafe-fixes; with it they would change:"
    )
    assert finding < banner and lines[banner + 1 : banner + 3] == [
        "--- a/src/trainer/gather.py",
        "+++ b/src/trainer/gather.py",
    ]
    added = [
        line[1:]
        for line in lines[banner:]
        if line.startswith("+") and not line.startswith("+++")
    ]
    applied = invoke(
        "--dry-run", "--unsafe-fixes", "src/trainer/gather.py", cwd=project
    )
    assert "NOT applied" not in applied.stdout
    assert added == [
        line[1:]
        for line in applied.stdout.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    assert (
        "--unsafe-fixes` (always shown by `--dry-run`)"
        in (ROOT / "docs" / "rules" / "JAX002.md").read_text()
    )


# -- 10. the smaller things ------------------------------------------------------------------


def test_10_help_names_the_formats_and_help_format_describes_them(project):
    from jaxfix.cli.format_help import format_names
    from jaxfix.cli.formats import FORMATS

    assert format_names() == sorted(FORMATS)
    shown = "".join(
        invoke("--help", cwd=project).stdout.split()
    )  # without click's line breaks
    option = shown.split("--output-formatNAME")[1].split("--help-format")[0]
    assert (
        f"amachineformataloneonstdout:{','.join(sorted(FORMATS))}." in option
        and "docs/" not in option
    )
    described = invoke("--help-format", cwd=project)
    assert described.exit_code == 0
    for name in ("text", *FORMATS):
        assert re.search(
            rf"^  {re.escape(name)} +\S", described.stdout, re.MULTILINE
        ), name
    assert "jaxfix-report.schema.json" in described.stdout


def test_10_check_diff_is_the_diff_and_dry_run_diff_a_usage_error(project):
    (project / "src" / "trainer" / "lower.py").write_text(LOWERING.read_text())
    both = invoke("--check", "--diff", "src", cwd=project)
    assert (
        both.exit_code == 1
        and both.stdout == invoke("--diff", "src", cwd=project).stdout
    )
    assert both.stdout.startswith("--- a/src/trainer/lower.py")
    assert (
        invoke("--check", "--dry-run", "src", cwd=project).stdout
        == invoke("--dry-run", "src", cwd=project).stdout
    )
    refused = invoke("--dry-run", "--diff", "src", cwd=project)
    assert refused.exit_code == 2 and "--dry-run and --diff" in refused.stderr


def test_10_no_python_files_is_a_warning(project):
    (project / "empty").mkdir()
    (project / "notes").mkdir()
    (project / "notes" / "README.txt").write_text("nothing to check\n")
    for path in ("empty", "notes"):
        result = invoke("--check", path, cwd=project)
        assert (
            result.exit_code == 0
            and result.stderr
            == "warning: No Python files found under the given path(s)\n"
        ), result.stderr


def test_10_a_config_error_is_one_line_with_a_suggestion(project):
    (project / "pyproject.toml").write_text('[tool.jaxfix]\nselct = ["JAX001"]\n')
    result = jaxfix("--check", "src", cwd=project)
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr
        == f"jaxfix: error: {project / 'pyproject.toml'}: unknown key 'selct' in [tool.jaxfix] (did you mean 'select'?)\n"
    )
    (project / "pyproject.toml").write_text('[tool.jaxfix]\njax-verison = "0.12"\n')
    assert (
        "(did you mean 'target-version'?)"
        in invoke("--check", "src", cwd=project).stderr
    )


def test_10_the_cache_lands_in_the_project_root_whatever_path_is_given(project):
    for path in ("src/trainer", "src/trainer/export.py", "src", "."):
        result = CliRunner().invoke(
            cli, ["--check", "-q", str(project / path)], catch_exceptions=False
        )
        assert result.exit_code == 0
        assert [p.name for p in project.rglob(".jaxfix_cache")] == [
            ".jaxfix_cache"
        ] and (project / ".jaxfix_cache").is_dir(), path


def test_10_the_from_log_note_is_one_line(project):
    (project / "ci.log").write_text("all tests passed\n")
    result = jaxfix(
        "--from-log", "ci.log", "--check", "src", cwd=project, env=_env(COLUMNS="40")
    )
    assert (
        "ci.log: no traceback of JAX001-JAX014, JAX101 or JAX103 in the log: nothing to do\n"
        in result.stderr
    )


def test_10_the_readme_says_how_long_the_tests_take():
    readme = (ROOT / "README.md").read_text()
    assert re.search(
        r"run the tests, about \d+ minutes on a fresh clone with 2 cores", readme
    )


# -- 11. what ruff users reach for -----------------------------------------------------------


def test_11_show_settings_and_show_files(project):
    _pin(project, "jax>=0.12")
    (project / "src" / "trainer" / "notes.txt").write_text("not python\n")
    shown = invoke("--show-settings", "src", cwd=project)
    assert shown.exit_code == 0 and shown.stderr == ""
    lines = shown.stdout.splitlines()
    assert lines[0] == "config file: none (defaults)"
    assert f"project roots: {project / 'src'}" in lines
    assert (
        "target JAX version: 0.12 (pyproject.toml [project] dependencies: jax>=0.12)"
        in lines
    )
    assert (
        "rules: JAX001 (missing-lowering-platforms), JAX002 (abstract-mesh-size-change), JAX003 (all-gather-foreign-mesh), JAX004 (shard-map-positional-arguments), JAX005 (shard-map-check-rep), JAX006 (use-mesh-removed), JAX007 (abstract-mesh-context-concrete), JAX008 (set-mesh-abstract), JAX009 (aval-concrete-mesh), JAX010 (abstract-mesh-beside-other-size), JAX011 (out-sharding-other-mesh), JAX012 (buffer-callback-lowering), JAX013 (make-mesh-explicit-default), JAX014 (legacy-mesh-context-raises)"
        in lines
    )
    from jaxfix.settings.table import SETTINGS

    keys = [
        line.split(" = ")[0]
        for line in lines[lines.index("[tool.jaxfix] settings in effect:") + 1 :]
    ]
    assert keys == [s.key for s in SETTINGS]
    assert (
        'target-version = "0.12"' in lines and "cache-dir = null" in lines
    )  # --no-cache
    cached = CliRunner().invoke(
        cli,
        ["--show-settings", str(project / "src" / "trainer")],
        catch_exceptions=False,
    )
    assert f'cache-dir = "{project / ".jaxfix_cache"}"' in cached.stdout.splitlines()
    files = invoke("--show-files", ".", cwd=project)
    assert (
        files.exit_code == 0
        and files.stdout == "src/trainer/__init__.py\nsrc/trainer/export.py\n"
    )


def test_11_exit_zero_statistics_and_output_file(project):
    _pin(project, "jax>=0.12")
    (project / "src" / "trainer" / "gather.py").write_text(UNSAFE_ONLY.read_text())
    assert invoke("--check", "src", cwd=project).exit_code == 1
    assert invoke("--check", "--exit-zero", "src", cwd=project).exit_code == 0
    assert (
        invoke("--check", "-", cwd=project, stdin=LOWERING.read_text()).exit_code == 1
    )
    assert (
        invoke(
            "--check", "--exit-zero", "-", cwd=project, stdin=LOWERING.read_text()
        ).exit_code
        == 0
    )
    (project / "src" / "trainer" / "broken.py").write_text("def f(:\n")
    assert (
        invoke(
            "--check", "--exit-zero", "src", "src/trainer/broken.py", cwd=project
        ).exit_code
        == 2
    ), "errors still exit 2"
    (project / "src" / "trainer" / "broken.py").unlink()
    counts = invoke("--check", "--statistics", "src", cwd=project)
    assert (
        counts.exit_code == 1
        and counts.stdout
        == "1\tJAX001\t[*] missing-lowering-platforms\n1\tJAX003\t[ ] all-gather-foreign-mesh\n"
    )
    as_json = invoke("--check", "--statistics", "--format", "json", "src", cwd=project)
    assert [
        (r["code"], r["count"], r["fixable"])
        for r in __import__("json").loads(as_json.stdout)
    ] == [("JAX001", 1, True), ("JAX003", 1, False)]

    printed = invoke("--dry-run", "src", cwd=project)
    saved = invoke("--dry-run", "--output-file", "preview.txt", "src", cwd=project)
    assert (
        saved.exit_code == 1 and saved.stdout == "" and "jaxfix summary" in saved.stderr
    )
    assert (project / "preview.txt").read_text() == printed.stdout
    report = invoke(
        "--check",
        "--format",
        "sarif",
        "--output-file",
        "report.sarif",
        "src",
        cwd=project,
    )
    assert (
        report.stdout == ""
        and __import__("json").loads((project / "report.sarif").read_text())["version"]
        == "2.1.0"
    )
    assert not [
        p
        for p in project.iterdir()
        if p.name.startswith(".") and "jaxfix" in p.name and p.is_file()
    ], "no temp file is left"
    unwritable = invoke(
        "--check", "--output-file", "no/such/dir/out.txt", "src", cwd=project
    )
    assert (
        unwritable.exit_code == 2
        and "jaxfix: error: cannot write --output-file no/such/dir/out.txt: No such file or directory\n"
        in unwritable.stderr
    )


def test_11_add_noqa_suppresses_every_finding_and_changes_nothing_else(project):
    _pin(project, "jax>=0.12")
    package = project / "src" / "trainer"
    (package / "gather.py").write_text(UNSAFE_ONLY.read_text())
    (package / "lower.py").write_text(
        LOWERING.read_text().replace(
            "lowered = jax.jit(jnp.sin).lower(x)",
            "lowered = jax.jit(jnp.sin).lower(x)  # noqa: E501",
        )
    )
    before = {p.name: p.read_text() for p in package.glob("*.py")}
    added = invoke("--add-noqa", "src", cwd=project)
    assert (
        added.exit_code == 0
        and "Added 3 suppression comments (# jaxfix: ignore[CODE]) to 3 files."
        in added.stderr
    ), added.output
    after = {p.name: p.read_text() for p in package.glob("*.py")}
    for name, text in before.items():
        old, new = text.splitlines(), after[name].splitlines()
        assert len(old) == len(new)
        changed = [(a, b) for a, b in zip(old, new) if a != b]
        assert len(changed) == (name != "__init__.py"), name
        for a, b in changed:
            assert b.startswith(a + "  # jaxfix: ignore[JAX00") and b.endswith("]"), b
    assert (
        "lowered = jax.jit(jnp.sin).lower(x)  # noqa: E501  # jaxfix: ignore[JAX001]"
        in after["lower.py"]
    )
    clean = invoke("--check", "src", cwd=project)
    assert clean.exit_code == 0 and clean.stdout == "", clean.stdout
    again = invoke("--add-noqa", "src", cwd=project)
    assert again.exit_code == 0 and "Added 0 suppression comments" in again.stderr
    assert {p.name: p.read_text() for p in package.glob("*.py")} == after
    assert invoke("--add-noqa", "--diff", "src", cwd=project).exit_code == 2
