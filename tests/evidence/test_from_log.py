"""`jaxfix --from-log`, proven end to end under real JAX on both tiers.

Per JAX version, the programs in tests/from_log_projects/ run in one process (a plain log, as
the interpreter prints uncaught exceptions) and under pytest with each `--tb` style; the pytest
log is also wrapped as a CI log (timestamps, ANSI colours, `##[group]`). `jaxfix --from-log`
then fixes a copy of the tree at another absolute path, and the fixed programs run again.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemods.test_real_jax import JAX_VERSIONS, interpreters
from fixture_cases import read_header
from jaxfix.cli.main import cli
from jaxfix.fromlog.meshes import parse_mesh

pytestmark = pytest.mark.jax

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = Path(__file__).parents[1] / "from_log_projects"
RUNNER = Path(__file__).parents[1] / "from_log_runner.py"
PYTEST_LOGS = Path(__file__).parents[1] / "pytest_logs.py"
STYLES = ("long", "short", "auto", "line")
_ENV = {
    **os.environ,
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
    "JAX_PLATFORMS": "cpu",
    "PYTHONDONTWRITEBYTECODE": "1",
}
_PYTEST_PROGRAMS = """
import os, runpy, sys
import pytest

ENTRIES = {entries!r}


@pytest.mark.parametrize("entry", ENTRIES, ids=[os.path.basename(e) for e in ENTRIES])
def test_program(entry):
    directory = os.path.dirname(entry)
    old = os.getcwd()
    os.chdir(directory)
    sys.path.insert(0, directory)
    try:
        runpy.run_path(entry, run_name="__main__")
    finally:
        sys.path.remove(directory)
        os.chdir(old)
"""


def entries(root: Path) -> list[Path]:
    return sorted(
        p for p in root.glob("*/run_*.py") if not p.name.endswith(".fixed.py")
    )


def reported(root: Path) -> list[Path]:
    """The entries whose site the log shows but no fix can be written for (header `report`:
    what the diagnostic says the user must change instead)."""
    return [
        entry
        for entry in entries(root)
        if "report" in read_header(PROJECTS / entry.relative_to(root))
    ]


def fixable(root: Path) -> list[Path]:
    return [entry for entry in entries(root) if entry not in reported(root)]


def expected_files() -> dict[Path, Path]:
    """Project-relative path of each file the fix changes -> the file it must become."""
    return {
        fixed.with_name(fixed.name.replace(".fixed.py", ".py")).relative_to(
            PROJECTS
        ): fixed
        for fixed in sorted(PROJECTS.glob("*/*.fixed.py"))
    }


def copy_tree(target: Path) -> Path:
    shutil.copytree(
        PROJECTS,
        target,
        ignore=shutil.ignore_patterns("*.fixed.py", "README.md", "__pycache__"),
    )
    return target


def run_programs(version: str, programs: list[Path]) -> dict:
    done = subprocess.run(
        [interpreters()[version], str(RUNNER), *map(str, programs)],
        capture_output=True,
        env=_ENV,
        timeout=900,
    )
    assert done.stdout, (
        f"the runner failed under jax {version}:\n{done.stderr[-3000:].decode(errors='replace')}"
    )
    return {**json.loads(done.stdout), "log": done.stderr}


def ci_log(log: bytes) -> bytes:
    """`log` as a GitHub Actions job shows it: timestamps, a group, ANSI colours on errors."""
    lines = [
        b"##[group]Run python -m pytest",
        *log.splitlines(),
        b"##[endgroup]",
        b"##[error]Process completed with exit code 1.",
    ]
    out = []
    for number, line in enumerate(lines):
        if line.startswith((b"E ", b"ValueError")):
            line = b"\x1b[31m\x1b[1m" + line + b"\x1b[0m"
        out.append(
            b"2026-11-30T12:%02d:%02d.%07dZ "
            % (number // 60 % 60, number % 60, number * 7919 % 10**7)
            + line
        )
    return b"\n".join(out) + b"\n"


@pytest.fixture(scope="session")
def logs(tmp_path_factory):
    """JAX version -> {"plain", "long", "short", "auto", "line", "ci", "gh-run-view": log bytes,
    "meshes": [...]},
    made once per session from programs in a checkout at one path."""
    made: dict[str, dict] = {}

    def make(version: str) -> dict:
        if version not in interpreters():
            pytest.skip(
                f"LOUD SKIP: no interpreter with jax {version} (set JAXFIX_JAX_PYTHONS)"
            )
        if version not in made:
            checkout = copy_tree(
                tmp_path_factory.mktemp(f"ci-checkout-{version}") / "project"
            )
            plain = run_programs(version, entries(checkout))
            assert all(r["error"] for r in plain["results"].values()), plain["results"]
            found = {"plain": plain["log"], "meshes": plain["meshes"]}
            tests = checkout / "test_programs.py"
            tests.write_text(
                _PYTEST_PROGRAMS.format(entries=[str(e) for e in entries(checkout)]),
                encoding="utf-8",
            )
            # One pytest session per style, each forked from one process that imported JAX.
            out = tmp_path_factory.mktemp(f"pytest-logs-{version}")
            done = subprocess.run(
                [interpreters()[version], str(PYTEST_LOGS), str(out), tests.name]
                + list(STYLES),
                cwd=checkout,
                capture_output=True,
                env=_ENV,
                timeout=900,
            )
            assert done.returncode == 0, done.stderr[-3000:].decode(errors="replace")
            codes = json.loads(done.stdout)
            for style in STYLES:
                found[style] = (out / f"{style}.out").read_bytes()
                assert codes[style] == 1, found[style][-3000:].decode(errors="replace")
            tests.unlink()
            found["ci"] = ci_log(found["auto"])
            found["gh-run-view"] = b"".join(
                b"test\tRun pytest\t" + line
                for line in ci_log(found["short"]).splitlines(True)
            )
            made[version] = found
        return made[version]

    return make


def from_log(log: bytes, *args: str, tree: Path | None = None, cwd: Path | None = None):
    """Run `jaxfix --from-log -` on `tree`, the log on stdin."""
    old = Path.cwd()
    if cwd:
        os.chdir(cwd)
    try:
        paths = [str(tree)] if tree else []
        return CliRunner().invoke(
            cli, ["--from-log", "-", *args, *paths], input=log, catch_exceptions=False
        )
    finally:
        os.chdir(old)


def tree_state(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# -- the whole workflow, per JAX version and log style --------------------------------------------


@pytest.mark.parametrize("version", JAX_VERSIONS)
@pytest.mark.parametrize(
    "style", ["plain", "long", "short", "auto", "ci", "gh-run-view"]
)
def test_from_log_fixes_every_project(logs, tmp_path, version, style):
    tree = copy_tree(tmp_path / "elsewhere" / "local-checkout")
    result = from_log(logs(version)[style], "--unsafe-fixes", tree=tree)
    assert result.exit_code == (1 if reported(tree) else 0), result.output
    for entry in reported(tree):
        assert read_header(entry)["report"] in " ".join(result.output.split()), (
            entry.parent.name
        )
    expected = expected_files()
    for relative, content in tree_state(tree).items():
        wanted = expected.get(Path(relative))
        assert content == (
            wanted.read_bytes() if wanted else (PROJECTS / relative).read_bytes()
        ), relative


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_fixed_programs_run(logs, tmp_path, version):
    tree = copy_tree(tmp_path / "fixed")
    assert from_log(logs(version)["plain"], "--unsafe-fixes", tree=tree).exit_code == (
        1 if reported(tree) else 0
    )
    results = run_programs(version, entries(tree))["results"]
    for entry in reported(tree):
        assert "cannot change the size of the mesh" in results[str(entry)]["error"], (
            entry.parent.name
        )
    for entry in fixable(tree):
        result = results[str(entry)]
        assert result["error"] is None, f"{entry.parent.name}: {result['error']}"
        assert result["last_line"] == read_header(entry)["result"], entry.parent.name


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_pytest_line_style_names_only_filtered_user_lines(logs, tmp_path, version):
    """--tb=line shows one location: where JAX raised (an error each, nothing written), except
    where JAX filtered its own frames out (jit(f).lower(x)), which leaves the user's line, and
    for a chained exception, whose line is the last one's (not a JAX error: not in the log)."""
    tree = copy_tree(tmp_path / "tree")
    result = from_log(logs(version)["line"], "--unsafe-fixes", tree=tree)
    assert result.exit_code == 2
    assert (
        result.output.count("shows no frame of your code") == len(entries(PROJECTS)) - 2
    ), result.output
    changed = {
        p
        for p, content in tree_state(tree).items()
        if content != (PROJECTS / p).read_bytes()
    }
    assert changed == {"spec_from_other_module/run_export.py"}


def test_static_fix_is_identical_and_the_others_need_the_log(tmp_path):
    """A site jaxfix fixes without a log gets the very same fix from its traceback; the other
    projects are ones the static rules cannot fix."""
    tree = copy_tree(tmp_path / "tree")
    CliRunner().invoke(
        cli, ["--unsafe-fixes", "--no-cache", str(tree)], catch_exceptions=False
    )
    for entry in fixable(tree):
        static = read_header(PROJECTS / entry.relative_to(tree))["static"]
        fixed = expected_files()[entry.relative_to(tree)]
        assert entry.read_bytes() == (
            fixed.read_bytes()
            if static == "fixed"
            else (PROJECTS / entry.relative_to(tree)).read_bytes()
        )


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_mesh_reprs_from_real_jax(logs, version):
    for mesh in logs(version)["meshes"]:
        facts = parse_mesh(mesh["text"])
        assert (
            facts.kind,
            list(facts.axis_names),
            list(facts.axis_sizes),
            list(facts.axis_types),
            facts.has_abstract_device,
        ) == (
            mesh["kind"],
            mesh["names"],
            mesh["sizes"],
            mesh["types"],
            mesh["device"],
        ), mesh["text"]


# -- errors, one line each; the rest still processed ---------------------------------------------


def _version(logs) -> dict:
    return logs(next(v for v in JAX_VERSIONS if v in interpreters()))


def _tracebacks(log: bytes) -> list[bytes]:
    """The plain log cut into its tracebacks."""
    return [b"Traceback" + part for part in log.split(b"Traceback")[1:]]


def test_no_relevant_traceback_is_a_note_and_exit_0(tmp_path):
    tree = copy_tree(tmp_path / "tree")
    log = b'Traceback (most recent call last):\n  File "/ci/src/app.py", line 3, in <module>\n    d["k"]\nKeyError: \'k\'\n'
    result = from_log(log, tree=tree)
    assert result.exit_code == 0
    from jaxfix.check.registry import codes_listed

    # every rule that names an error, whichever are registered
    assert f"no traceback of {codes_listed()} in the log" in result.output
    assert codes_listed().startswith("JAX001")


def test_truncated_and_garbled_tracebacks_are_errors_and_the_rest_is_fixed(
    logs, tmp_path
):
    parts = _tracebacks(_version(logs)["plain"])
    garbled = parts[0].replace(b"Got new mesh", b"Got n\xffw mesh")
    cut = parts[-1][: parts[-1].index(b"raise ValueError")]
    log = garbled + b"".join(parts[1:-1]) + cut
    tree = copy_tree(tmp_path / "tree")
    result = from_log(log, "--unsafe-fixes", tree=tree)
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert len(errors) == 2, result.output
    assert "not UTF-8" in errors[0] and "cut off" in errors[1]
    changed = [
        p
        for p, content in tree_state(tree).items()
        if content != (PROJECTS / p).read_bytes()
    ]
    assert len(changed) == len(fixable(PROJECTS)) - 2


OUTER = (
    "outer_mesh_from_config/run_outer_mesh_from_config.py"  # only its log can fix it
)


def _outer_traceback(logs) -> bytes:
    """The real traceback of the JAX002 that OUTER raises, from the plain log."""
    return next(
        part for part in _tracebacks(_version(logs)["plain"]) if OUTER.encode() in part
    )


def _injected(traceback: bytes, *spots: tuple[bytes, bytes]) -> bytes:
    for old, new in spots:
        assert old in traceback, old
        traceback = traceback.replace(old, new, 1)
    return traceback


def _fixed(tree: Path, relative: str = OUTER) -> bool:
    fixed = (PROJECTS / OUTER).with_suffix(".fixed.py").read_bytes()
    assert (tree / relative).read_bytes() in (fixed, (PROJECTS / OUTER).read_bytes())
    return (tree / relative).read_bytes() == fixed


def test_undecodable_bytes_outside_what_places_a_traceback_do_not_drop_it(
    logs, tmp_path
):
    """Bad bytes in a library frame's path, function and code, the user frame's function and
    the message after its meshes: the traceback is used, its bad lines named in a note."""
    log = _injected(
        _outer_traceback(logs),
        (b"in run_path", b"in run_\xffpath"),
        (b"in <module>", b"in <mod\xe9ule>"),
        (b"jax/_src/mesh.py", b"jax/_src/me\xffsh.py"),
        (b"raise ValueError(", b"raise Value\xfe\xffError("),
        (b"with size=32", b"with size=32 \xc3("),
    )
    tree = copy_tree(tmp_path / "tree")
    result = from_log(log, "--unsafe-fixes", tree=tree)
    assert result.exit_code == 0, result.output
    assert _fixed(tree)
    notes = [line for line in result.output.splitlines() if "traceback used" in line]
    assert len(notes) == 1 and "error:" not in result.output, result.output
    named = re.search(r"log lines ([\d, -]+) hold bytes that are not UTF-8", notes[0])
    assert named and _numbers(named[1]) == _undecodable_lines(log), notes[0]


def _undecodable_lines(log: bytes) -> set[int]:
    found = set()
    for number, line in enumerate(log.split(b"\n"), start=1):
        try:
            line.decode()
        except UnicodeDecodeError:
            found.add(number)
    return found


def _numbers(listed: str) -> set[int]:
    """'4, 7, 9-11' -> {4, 7, 9, 10, 11}."""
    found = set()
    for part in listed.split(", "):
        first, _, last = part.partition("-")
        found.update(range(int(first), int(last or first) + 1))
    return found


@pytest.mark.parametrize(
    "spot",
    [
        (b"'data': 8,", b"'da\xffta': 8,"),  # an axis name of the previous mesh
        (
            b"Got new mesh: AbstractMesh(",
            b"Got new mesh: Abstract\xffMesh(",
        ),  # its kind
        (b"line 14,", b"line 1\xff4,"),  # the raising frame's line number
        (b'config.py", line 14', b"config.py\xff line 14"),  # its quote: no frame line
        (
            b"    with use_abstract_mesh(AbstractMesh((16",
            b"    with use_\xffabstract_mesh(AbstractMesh((16",
        ),
    ],
    ids=[
        "mesh axis name",
        "mesh kind",
        "frame line number",
        "frame quote",
        "frame code",
    ],
)
def test_undecodable_bytes_in_a_mesh_or_the_raising_frame_refuse_it_in_one_line(
    logs, tmp_path, spot
):
    tree = copy_tree(tmp_path / "tree")
    result = from_log(
        _injected(_outer_traceback(logs), spot), "--unsafe-fixes", tree=tree
    )
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert result.exit_code == 2 and len(errors) == 1, result.output
    assert re.search(r"log line \d+ holds bytes that are not UTF-8", errors[0]), errors
    assert not _fixed(tree)


def test_a_frame_path_with_undecodable_bytes_is_matched_by_its_bytes(logs, tmp_path):
    """A file whose name is not UTF-8 is found by the bytes the log shows, never by a name
    without them."""
    log = _injected(
        _outer_traceback(logs),
        (b"run_outer_mesh_from_config.py", b"run_outer_mesh_\xff_config.py"),
    )
    tree = copy_tree(tmp_path / "tree")
    named = "outer_mesh_from_config/" + os.fsdecode(b"run_outer_mesh_\xff_config.py")
    (tree / OUTER).rename(tree / named)
    result = from_log(log, "--unsafe-fixes", tree=tree)
    assert result.exit_code == 0, result.output
    assert _fixed(tree, named)
    # the same log against a file named without the bad byte: no frame is in the tree
    stripped = "outer_mesh_from_config/run_outer_mesh__config.py"
    (tree / named).unlink()
    (tree / stripped).write_bytes((PROJECTS / OUTER).read_bytes())
    result = from_log(log, "--unsafe-fixes", tree=tree)
    assert result.exit_code == 2, result.output
    assert "none of its frames is in a file under the given paths" in result.output
    assert not _fixed(tree, stripped)


def test_unmapped_traceback_writes_nothing(logs, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "unrelated.py").write_text("x = 1\n")
    result = from_log(_version(logs)["plain"], "--unsafe-fixes", tree=other)
    assert result.exit_code == 2
    assert result.output.count(
        "none of its frames is in a file under the given paths"
    ) == len(entries(PROJECTS))
    assert (other / "unrelated.py").read_text() == "x = 1\n"


def test_ambiguous_mapping_is_an_error_not_a_guess(logs, tmp_path):
    first, second = (
        copy_tree(tmp_path / "a" / "project"),
        copy_tree(tmp_path / "b" / "project"),
    )
    result = from_log(_version(logs)["plain"], "--unsafe-fixes", tree=tmp_path)
    assert result.exit_code == 2
    assert result.output.count("matches several local files") == len(entries(PROJECTS))
    assert (
        tree_state(first)
        == tree_state(second)
        == tree_state(copy_tree(tmp_path / "pristine"))
    )


def test_file_changed_since_the_log_is_said_and_left_alone(logs, tmp_path):
    tree = copy_tree(tmp_path / "tree")
    changed = tree / "outer_mesh_from_config" / "run_outer_mesh_from_config.py"
    changed.write_text(changed.read_text().replace("(16, 4)", "(16, 2)"))
    before = changed.read_bytes()
    result = from_log(_version(logs)["plain"], "--unsafe-fixes", tree=tree)
    assert result.exit_code == 2
    assert "has changed since the log: line 14 is now" in result.output
    assert (
        "is already fixed" not in result.output
    )  # (16, 2) is not the rule's fix, (8, 4) would be
    assert re.search(r"log tracebacks not used\s*│\s*1 │", result.output), result.output
    assert changed.read_bytes() == before
    assert (tree / "static_site_same_fix" / "run_nested_stages.py").read_bytes() == (
        PROJECTS / "static_site_same_fix" / "run_nested_stages.fixed.py"
    ).read_bytes()


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_rerun_after_some_fixes_were_applied_says_already_fixed_and_exits_0(
    logs, tmp_path, version
):
    tree = copy_tree(tmp_path / "tree")
    log = logs(version)["plain"]
    assert (
        from_log(log, tree=tree).exit_code == 1
    )  # the safe fix written, the unsafe ones left
    again = from_log(log, "--unsafe-fixes", tree=tree)
    assert again.exit_code == (1 if reported(tree) else 0), (
        again.output
    )  # a report-only site stays a diagnostic
    notes = [line for line in again.output.splitlines() if "is already fixed" in line]
    assert len(notes) == 1 and "run_export.py" in notes[0], again.output
    assert (
        re.search(r"log sites already fixed\s*│\s*1 │", again.output)
        and "error:" not in again.output
    )
    expected = expected_files()
    for relative, content in tree_state(tree).items():
        wanted = expected.get(Path(relative))
        assert content == (
            wanted.read_bytes() if wanted else (PROJECTS / relative).read_bytes()
        ), relative
    last = from_log(log, "--unsafe-fixes", "--check", tree=tree)
    assert last.exit_code == (1 if reported(tree) else 0), last.output
    # A fix made above the logged line (the assignment that reaches the `with`) leaves that line
    # as it was: the rule finds it builds the enclosing mesh's size now and says so (a diagnostic).
    above = [p for p in expected if p.parts[0] == "stage_mesh_reassigned"]
    assert (
        above
        and "size 32 here now: already fixed where its sizes are written"
        in " ".join(last.output.split())
    )
    assert len(
        [line for line in last.output.splitlines() if "is already fixed" in line]
    ) == len(expected) - len(above)
    assert re.search(
        rf"log sites already fixed\s*│\s*{len(expected) - len(above)} │", last.output
    )
    assert re.search(r"files in error\s*│\s*0 │", last.output) and re.search(
        r"log tracebacks not used\s*│\s*0 │", last.output
    )


# -- one diagnostic per site, every mode and format ----------------------------------------------


def test_repeated_tracebacks_are_one_diagnostic_and_output_is_deterministic(
    logs, tmp_path
):
    tree = copy_tree(tmp_path / "tree")
    log = _version(logs)["plain"] * 2 + _version(logs)["long"]
    first = from_log(log, "--format", "json", "--check", tree=tree, cwd=tmp_path)
    again = from_log(log, "--format", "json", "--check", tree=tree, cwd=tmp_path)
    assert first.exit_code == 1 and first.stdout == again.stdout
    report = json.loads(first.stdout)
    sites = [
        (f["path"], d["code"], d["start"]["line"])
        for f in report["files"]
        for d in f["diagnostics"]
    ]
    assert len(sites) == len(set(sites)) == len(entries(PROJECTS))
    assert sites == sorted(sites)


def test_github_suggestions_from_a_ci_log(logs, tmp_path):
    tree = copy_tree(tmp_path / "tree")
    result = from_log(
        _version(logs)["ci"],
        "--unsafe-fixes",
        "--format",
        "github-suggestions",
        "--check",
        tree=tree,
        cwd=tmp_path,
    )
    assert result.exit_code == 1
    comments = json.loads(result.stdout)
    suggested = {c["path"] for c in comments if "```suggestion" in c["body"]}
    assert suggested == {f"tree/{p.as_posix()}" for p in expected_files()}
    assert tree_state(tree) == tree_state(copy_tree(tmp_path / "pristine"))


@pytest.mark.parametrize("mode", ["--dry-run", "--diff"])
def test_preview_modes_write_nothing(logs, tmp_path, mode):
    tree = copy_tree(tmp_path / "tree")
    result = from_log(
        _version(logs)["plain"], "--unsafe-fixes", mode, tree=tree, cwd=tmp_path
    )
    assert result.exit_code == 1
    assert tree_state(tree) == tree_state(copy_tree(tmp_path / "pristine"))
    if mode == "--diff":
        assert len(re.findall(r"^\+\+\+ b/", result.stdout, re.M)) == len(
            expected_files()
        )


def test_without_unsafe_fixes_only_safe_fixes_are_written(logs, tmp_path):
    tree = copy_tree(tmp_path / "tree")
    result = from_log(_version(logs)["plain"], tree=tree)
    assert result.exit_code == 1  # the unsafe fixes remain as diagnostics
    changed = {
        p
        for p, content in tree_state(tree).items()
        if content != (PROJECTS / p).read_bytes()
    }
    assert changed == {"spec_from_other_module/run_export.py"}


def test_suppression_comment_is_honoured(logs, tmp_path):
    tree = copy_tree(tmp_path / "tree")
    site = tree / "static_site_same_fix" / "run_nested_stages.py"
    text = site.read_text().replace(
        '("data", "model"))):\n        out',
        '("data", "model"))):  # noqa: JAX002\n        out',
    )
    site.write_text(text)
    result = from_log(_version(logs)["plain"], "--unsafe-fixes", tree=tree)
    assert result.exit_code == (1 if reported(tree) else 0), result.output
    assert site.read_text() == text


def test_from_log_and_stdin_code_do_not_mix(tmp_path):
    log = tmp_path / "ci.log"
    log.write_text("")
    result = CliRunner().invoke(cli, ["--from-log", str(log), "-"], input="x = 1\n")
    assert result.exit_code == 2
    assert "--from-log" in result.output


def test_non_utf8_log_without_tracebacks_is_a_note(tmp_path):
    tree = copy_tree(tmp_path / "tree")
    result = from_log(b"\xff\xfe binary junk\n\x00\x01\n", tree=tree)
    assert result.exit_code == 0
    assert "no traceback" in result.output


# -- IPython / Jupyter tracebacks -----------------------------------------------------------------
# IPython is not installed here: the tracebacks are laid out as IPython prints them (the format
# of IPython/core/ultratb.py VerboseTB.format_record and tbtools.py, IPython >= 8: `Cell In[N],
# line L`, `File path:line, in f(...)`, numbers right-aligned in 7 columns, `---->` marking the
# raising line; IPython 7: `<ipython-input-N-hash> in <module>`, `path in f(...)`), around the
# frames and the message of a real run of the cells under real JAX.

_CELLS = [
    (
        "code",
        1,
        "import jax\nimport jax.numpy as jnp\nfrom jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P",
    ),
    ("markdown", None, "Shapes only: no devices needed."),
    (
        "code",
        2,
        'mesh = AbstractMesh((2, 4), ("x", "y"))\nx = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))',
    ),
    (
        "code",
        3,
        "%time 1\nstep = jax.jit(jnp.sin)\n# lower the step\nlowered = step.lower(x)\nprint(lowered.as_text()[:10])",
    ),
]
_CELL_RUNNER = r"""
import json, sys, traceback
cells = json.loads(sys.argv[1])
scope = {}
try:
    for count, source in cells:
        code = "\n".join("pass" if line.startswith("%") else line for line in source.split("\n"))
        exec(compile(code, f"<cell {count}>", "exec"), scope)
except ValueError as error:
    frames = [(f.filename, f.lineno, f.name, f.line) for f in traceback.extract_tb(error.__traceback__)[1:]]
    print(json.dumps({"frames": frames, "message": f"{type(error).__name__}: {error}"}))
"""


def _notebook(cells=_CELLS) -> str:
    def source(text):
        return [line + "\n" for line in text.split("\n")[:-1]] + [text.split("\n")[-1]]

    return (
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": kind,
                        "id": f"c{n}",
                        "metadata": {},
                        "source": source(text),
                        **(
                            {"execution_count": count, "outputs": []}
                            if kind == "code"
                            else {}
                        ),
                    }
                    for n, (kind, count, text) in enumerate(cells)
                ],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            },
            indent=1,
        )
        + "\n"
    )


def _ipython_log(version: str, modern: bool) -> bytes:
    """The error output of the last cell, as IPython prints it in colour (Linux theme)."""
    code_cells = [(count, text) for kind, count, text in _CELLS if kind == "code"]
    done = subprocess.run(
        [interpreters()[version], "-c", _CELL_RUNNER, json.dumps(code_cells)],
        capture_output=True,
        env=_ENV,
        timeout=300,
        text=True,
    )
    run = json.loads(done.stdout)
    red, green, cyan, reset = "\x1b[0;31m", "\x1b[0;32m", "\x1b[0;36m", "\x1b[0m"
    out = [
        f"{red}{'-' * 75}{reset}",
        f"{red}ValueError{reset}{'Traceback (most recent call last)'.rjust(75 - 10)}",
    ]
    for path, line, name, text in run["frames"]:
        cell = (
            dict(code_cells).get(int(path[6:-1])) if path.startswith("<cell ") else None
        )
        count = int(path[6:-1]) if cell is not None else None
        if modern:
            where = (
                f"Cell In[{count}], line {line}"
                if cell is not None
                else f"File {path}:{line}"
            )
            out.append(
                f"{green}{where}{reset}"
                + ("" if name == "<module>" else f", in {cyan}{name}{reset}(*args)")
            )
        else:
            where = (
                f"<ipython-input-{count}-3f2a9c1d7b6e>" if cell is not None else path
            )
            out.append(
                f"{green}{where}{reset} in {cyan}{name}{reset}"
                + ("" if name == "<module>" else "(*args)")
            )
        shown = cell.split("\n") if cell is not None else [text]
        first = max(1, line - 2) if cell is not None else line
        for number in range(
            first,
            min(len(shown), line + 2 - first) + first if cell is not None else line + 1,
        ):
            code = shown[number - first if cell is None else number - 1]
            mark = (
                f"{green}{'-' * (7 - len(str(number)) - 2)}> {number}{reset}"
                if number == line
                else "%7d" % number
            )
            out.append(f"{mark} {code}")
        out.append("")
    out.append(
        f"{red}{run['message'].split(':', 1)[0]}{reset}:{run['message'].split(':', 1)[1]}"
    )
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("modern", [True, False], ids=["ipython8", "ipython7"])
def test_an_ipython_traceback_is_mapped_onto_its_notebook_cell(tmp_path, modern):
    version = next(v for v in JAX_VERSIONS if v in interpreters())
    log = _ipython_log(version, modern)
    assert b"Cell In[3], line 4" in log if modern else b"<ipython-input-3-" in log
    tree = tmp_path / "tree"
    (tree / "notebooks").mkdir(parents=True)
    (tree / "notebooks" / "explore.ipynb").write_text(_notebook(), encoding="utf-8")
    (tree / "notebooks" / "other.ipynb").write_text(
        _notebook(_CELLS[:3]), encoding="utf-8"
    )  # no such cell
    result = from_log(log, "--check", "--format", "json", tree=tree)
    assert result.exit_code == 1, result.output
    files = json.loads(result.stdout)["files"]
    assert [
        (Path(f["path"]).name, d["code"], d["start"]["cell"], d["start"]["line"])
        for f in files
        for d in f["diagnostics"]
    ] == [("explore.ipynb", "JAX001", 4, 4)]
    written = from_log(log, tree=tree)
    assert written.exit_code == 0, written.output
    cell = json.loads((tree / "notebooks" / "explore.ipynb").read_text())["cells"][3][
        "source"
    ]
    assert cell[3:6] == [
        "lowered = step.trace(x).lower(\n",
        "    lowering_platforms=(jax.export.default_export_platform(),),\n",
        ")\n",
    ]
    assert (
        json.loads((tree / "notebooks" / "explore.ipynb").read_text())["cells"][3]["id"]
        == "c3"
    )


def test_an_ipython_cell_matching_several_notebooks_is_not_guessed(tmp_path):
    version = next(v for v in JAX_VERSIONS if v in interpreters())
    log = _ipython_log(version, modern=True)
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("a.ipynb", "b.ipynb"):
        (tree / name).write_text(_notebook(), encoding="utf-8")
    result = from_log(log, tree=tree)
    assert result.exit_code == 2
    assert "the cell In[3] it shows matches several notebook cells" in result.output
    assert (
        (tree / "a.ipynb").read_text() == (tree / "b.ipynb").read_text() == _notebook()
    )
    # the execution count decides between cells with the same lines
    recount = [(kind, 9 if count == 3 else count, text) for kind, count, text in _CELLS]
    (tree / "b.ipynb").write_text(_notebook(recount), encoding="utf-8")
    assert from_log(log, tree=tree).exit_code == 0
    assert (tree / "b.ipynb").read_text() == _notebook(recount) and (
        tree / "a.ipynb"
    ).read_text() != _notebook()


_TWO_SITES = """\
import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P, use_abstract_mesh

x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(AbstractMesh((2, 4), ("x", "y")), P("x")))


def test_lower():
    lowered = jax.jit(jnp.sin).lower(x)
    assert "stablehlo" in lowered.as_text()


def test_stages():
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass
"""


def test_a_site_moved_by_the_fix_of_another_logged_site_is_fixed_where_it_is_now(
    tmp_path,
):
    """Two failing tests in one module: the safe fix of the first adds two lines above the
    second; a re-run with --unsafe-fixes finds the first already fixed and the second moved."""
    version = next(v for v in JAX_VERSIONS if v in interpreters())
    ci = tmp_path / "ci"
    ci.mkdir()
    (ci / "test_two_sites.py").write_text(_TWO_SITES, encoding="utf-8")
    done = subprocess.run(
        [
            interpreters()[version],
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--tb=short",
            "test_two_sites.py",
        ],
        cwd=ci,
        capture_output=True,
        env=_ENV,
        timeout=600,
    )
    log = done.stdout
    assert done.returncode == 1 and log.count(b"E   ValueError: ") == 2, log.decode(
        errors="replace"
    )[-2000:]
    tree = tmp_path / "tree"
    tree.mkdir()
    site = tree / "test_two_sites.py"
    site.write_text(_TWO_SITES, encoding="utf-8")
    assert (
        from_log(log, tree=tree).exit_code == 1
    )  # the safe JAX001 fix written, JAX002's unsafe one left
    assert site.read_text().count("\n") == _TWO_SITES.count("\n") + 2
    again = from_log(log, "--unsafe-fixes", tree=tree)
    assert again.exit_code == 0, again.output
    assert "JAX001" in again.output and "is already fixed" in again.output
    assert (
        "is at line 17 now (the fixes applied since the log added lines above it)"
        in again.output
    ), again.output
    static = tmp_path / "static" / "test_two_sites.py"
    static.parent.mkdir()
    static.write_text(_TWO_SITES, encoding="utf-8")
    assert (
        CliRunner()
        .invoke(
            cli, ["--no-cache", "--unsafe-fixes", "--jax-version", version, str(static)]
        )
        .exit_code
        == 0
    )
    assert site.read_text() == static.read_text()
    # a line moved by anything else (no fix of the log explains it) is still "changed since the log"
    site.write_text("# a new first line\n" + _TWO_SITES, encoding="utf-8")
    moved_by_hand = from_log(log, "--unsafe-fixes", tree=tree)
    assert (
        moved_by_hand.exit_code == 2
        and moved_by_hand.output.count("has changed since the log") == 2
    )


# -- the log as it was written: encodings, line endings, damage, size (issue 26) -----------------


def _fixes_every_project(tree: Path) -> None:
    expected = expected_files()
    for relative, content in tree_state(tree).items():
        wanted = expected.get(Path(relative))
        assert content == (
            wanted.read_bytes() if wanted else (PROJECTS / relative).read_bytes()
        ), relative


def _nuls_before_tracebacks(log: bytes) -> bytes:
    """A log truncated in place while its writer went on (`copytruncate`): NULs up to the offset
    the writer had reached, then its text; and a NUL fill before every later traceback."""
    return b"\0" * 4096 + log.replace(b"Traceback (most", b"\0\0\0\0Traceback (most")


LOG_VARIANTS = {
    # Windows PowerShell 5.1's `>` and Out-File: UTF-16 LE with a BOM, CRLF line endings.
    "utf-16-powershell": lambda log: (
        codecs.BOM_UTF16_LE + log.decode().replace("\n", "\r\n").encode("utf-16-le")
    ),
    "utf-16-be-without-bom": lambda log: log.decode().encode("utf-16-be"),
    "utf-8-bom": lambda log: codecs.BOM_UTF8 + log,
    "cr-line-endings": lambda log: log.replace(b"\n", b"\r"),
    "nuls-before-traceback": _nuls_before_tracebacks,
}


@pytest.mark.parametrize("variant", LOG_VARIANTS)
def test_a_log_in_any_encoding_or_line_ending_is_read(logs, tmp_path, variant):
    tree = copy_tree(tmp_path / "tree")
    result = from_log(
        LOG_VARIANTS[variant](_version(logs)["plain"]), "--unsafe-fixes", tree=tree
    )
    assert result.exit_code == (1 if reported(tree) else 0), result.output
    assert "nothing to do" not in result.output
    _fixes_every_project(tree)


def test_a_log_whose_every_line_is_not_utf8_says_which_lines_it_could_not_use(
    logs, tmp_path
):
    log = b"".join(line + b" \xff\n" for line in _version(logs)["plain"].split(b"\n"))
    tree = copy_tree(tmp_path / "tree")
    result = from_log(log, "--unsafe-fixes", tree=tree)
    assert result.exit_code == 2
    assert "nothing to do" not in result.output
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert len(errors) == len(entries(PROJECTS)), result.output
    assert all(
        re.search(
            r"traceback not used: log lines \d+-\d+ hold bytes that are not UTF-8", e
        )
        for e in errors
    ), errors
    assert tree_state(tree) == tree_state(copy_tree(tmp_path / "pristine"))


def _jaxfix(
    *args: str, stdin=None, cwd: Path | None = None, memory: int | None = None
) -> subprocess.CompletedProcess:
    """jaxfix in its own process (a hang is a timeout, not a stuck test run), optionally under
    an address-space cap of `memory` bytes."""

    def cap() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "jaxfix", *args],
        stdin=stdin,
        cwd=cwd,
        capture_output=True,
        timeout=120,
        preexec_fn=cap if memory else None,
        env={**_ENV, "PYTHONPATH": str(ROOT)},
    )


def _error_lines(stderr: bytes) -> list[str]:
    return [line for line in stderr.decode().splitlines() if "error:" in line]


@pytest.mark.parametrize(
    "kind", ["fifo", "device", "sparse-gigabyte-file", "endless-stdin"]
)
def test_a_log_that_is_no_bounded_regular_file_is_one_line_under_a_memory_cap(
    tmp_path, kind
):
    """Never a hang, never a MemoryError traceback (exit 1 would read as "suggestions pending")."""
    pytest.importorskip(
        "resource", reason="no resource module: address-space caps are POSIX"
    )
    tree = copy_tree(tmp_path / "tree")
    stdin, log, message = None, tmp_path / "ci.log", ""
    if kind == "fifo":
        os.mkfifo(log)
        message = f"{log}: error: not a regular file (a FIFO); not read"
    elif kind == "device":
        log = Path("/dev/zero")
        message = "/dev/zero: error: not a regular file (a character device); not read"
    elif kind == "sparse-gigabyte-file":
        with open(log, "wb") as handle:
            handle.truncate(1 << 30)
        message = f"{log}: error: file is larger than max-log-size ({1 << 30} > {256 << 20} bytes)"
    else:
        (tree / "pyproject.toml").write_text(
            "[tool.jaxfix]\nmax-log-size = 4000000\n"
        )  # not to read 256 MB here
        log, stdin = Path("-"), open("/dev/zero", "rb")
        message = "<stdin>: error: input is larger than max-log-size (4000000 bytes); not read"
    try:
        done = _jaxfix(
            "--from-log",
            str(log),
            "--unsafe-fixes",
            str(tree),
            stdin=stdin,
            memory=768 << 20,
        )
    finally:
        if stdin:
            stdin.close()
    assert done.returncode == 2, done.stderr.decode()[-2000:]
    assert _error_lines(done.stderr) == [message]
    assert b"Traceback" not in done.stderr
    (tree / "pyproject.toml").unlink(missing_ok=True)
    assert tree_state(tree) == tree_state(copy_tree(tmp_path / "pristine"))


def _peak_rss(*args: str) -> int:
    process = subprocess.Popen(
        [sys.executable, "-m", "jaxfix", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**_ENV, "PYTHONPATH": str(ROOT)},
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 1
    return usage.ru_maxrss * 1024  # KB on Linux


@pytest.mark.skipif(
    not hasattr(os, "wait4"), reason="os.wait4 (a child's peak memory) is POSIX"
)
def test_a_log_is_streamed_its_size_costs_no_memory(logs, tmp_path):
    """Reading the whole log took about eight times its size; a 200 MB log needed 1.6 GB."""
    tree = copy_tree(tmp_path / "tree")
    noise = b"".join(
        b"2026-11-30T12:00:00.1234567Z step %d: loss 0.123, an ordinary line of training output\n"
        % i
        for i in range(1000)
    )
    small, large = tmp_path / "small.log", tmp_path / "large.log"
    small.write_bytes(noise + _version(logs)["plain"])
    large.write_bytes(noise * 100 + _version(logs)["plain"])  # 9 MB more
    args = ("--check", "--unsafe-fixes", "--no-cache", "-q", str(tree))
    grown = _peak_rss("--from-log", str(large), *args) - _peak_rss(
        "--from-log", str(small), *args
    )
    assert grown < 8 << 20, f"{grown >> 20} MB more for a log 9 MB larger"


def test_a_frame_naming_a_fifo_or_a_file_over_max_file_size_is_one_line_each(
    logs, tmp_path
):
    tree = copy_tree(tmp_path / "tree")
    fifo = tree / "outer_mesh_from_config" / "run_outer_mesh_from_config.py"
    fifo.unlink()
    os.mkfifo(fifo)
    large = tree / "static_site_same_fix" / "run_nested_stages.py"
    large.write_bytes(
        large.read_bytes() + b"# padding\n" * 20_000
    )  # after the code: its lines are unchanged
    (tree / "pyproject.toml").write_text("[tool.jaxfix]\nmax-file-size = 100000\n")
    log = tmp_path / "ci.log"
    log.write_bytes(_version(logs)["plain"])
    done = _jaxfix("--from-log", str(log), "--unsafe-fixes", str(tree))
    assert done.returncode == 2
    errors = _error_lines(done.stderr)
    assert len(errors) == 2, errors
    assert errors[0].endswith(
        f"{fifo.as_posix()}: not a regular file (a FIFO); not read"
    ), errors
    assert errors[1].endswith(
        f"{large.as_posix()}: file is larger than max-file-size ({large.stat().st_size} > 100000 bytes)"
    ), errors
    fixed = {
        p
        for p, content in tree_state(tree).items()
        if p in {e.as_posix() for e in expected_files()}
        and content == expected_files()[Path(p)].read_bytes()
    }
    assert fixed == {e.as_posix() for e in expected_files()} - {
        "static_site_same_fix/run_nested_stages.py",
        "outer_mesh_from_config/run_outer_mesh_from_config.py",
    }


_JIT_IN_A_FUNCTION = """import jax
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


@pytest.mark.parametrize("version", JAX_VERSIONS)
@pytest.mark.parametrize("keyword", ["in_shardings", "out_shardings"])
def test_a_legacy_mesh_block_is_read_from_a_traceback_raised_in_a_function_it_calls(
    tmp_path, version, keyword
):
    """JAX014: the jit raises in a function defined outside `with mesh:`; the traceback's
    outer frame is the call in the block, which ties the log's error to that block. JAX's
    message names the argument given a PartitionSpec: either is JAX014's."""
    program = tmp_path / "run_doubled.py"
    source = _JIT_IN_A_FUNCTION.replace("in_shardings=", f"{keyword}=")
    program.write_text(source)
    python = interpreters()[version]
    before = subprocess.run(
        [python, str(program)], capture_output=True, env=_ENV, cwd=tmp_path, timeout=300
    )
    assert b"jit requires a non-empty mesh in context" in before.stderr
    unselected = from_log(
        before.stderr,
        "--ignore",
        "JAX014",
        "--unsafe-fixes",
        "--no-cache",
        tree=tmp_path,
    )
    assert "JAX014 is not selected (--select JAX014, or ALL)" in unselected.output
    assert program.read_text() == source
    result = from_log(before.stderr, "--unsafe-fixes", "--no-cache", tree=tmp_path)
    assert result.exit_code == 0, result.output
    assert program.read_text() == source.replace(
        "with mesh:", "with jax.set_mesh(mesh):"
    )
    after = subprocess.run(
        [python, str(program)], capture_output=True, env=_ENV, cwd=tmp_path, timeout=300
    )
    assert after.stdout.decode().splitlines()[-1] == "total 56.0", after.stderr[-2000:]
