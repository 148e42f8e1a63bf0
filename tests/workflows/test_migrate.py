"""`jaxfix migrate`: throw-away git repositories, each outcome checked in git itself (branches,
commits, work tree bytes), patches applied with `git am`, reports read back, Ctrl-C simulated."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

import jaxfix.check.runner
import jaxfix.workflows.git
import jaxfix.workflows.migrate
from jaxfix.cli.migrate import migrate
from jaxfix.workflows.migrate import MigrateOptions, Status, migrate_repo

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "JAX001"
BEFORE = (FIXTURES / "trace_lower_abstract_sharded_arg.py").read_bytes()
FIXED = (FIXTURES / "trace_lower_abstract_sharded_arg.fixed.py").read_bytes()
# Left with a diagnostic: its fix is unsafe.
UNFIXABLE = (FIXTURES / "compile_without_unsafe_fixes.py").read_bytes()
CLEAN_CODE = b"import jax\n\nprint(jax.numpy.ones(3).sum())\n"
CONFIG = b'[tool.jaxfix]\njax-version = "0.10.2"\n'  # the fixtures' target-jax
BRANCH = "jaxfix/migrate"


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch, tmp_path):
    """No user or system git config leaks in (signing, hooks); commits get the repo's own author."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(tmp_path)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def make_repo(path: Path, files: dict[str, bytes], config: bytes = CONFIG) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Fleet Bot")
    git(path, "config", "user.email", "fleet-bot@example.com")
    for name, data in {"pyproject.toml": config, **files}.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_bytes(data)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


def snapshot(repo: Path) -> tuple:
    """Everything 'untouched' promises: every file's bytes, refs, HEAD, index and status."""
    files = {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }
    if not (repo / ".git").exists():
        return (files,)
    refs = git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
    return (
        files,
        refs,
        git(repo, "rev-parse", "--symbolic-full-name", "HEAD", "HEAD"),
        git(repo, "ls-files", "--stage"),
        git(repo, "status", "--porcelain", "--untracked-files=all"),
    )


def run(*args: str) -> tuple[int, dict[str, dict], str]:
    result = CliRunner().invoke(
        migrate, ["--color", "never", *args], catch_exceptions=False
    )
    report_path = (
        Path(args[args.index("--out") + 1] if "--out" in args else "jaxfix-migrate")
        / "report.json"
    )
    report = (
        json.loads(report_path.read_text()) if report_path.exists() else {"repos": []}
    )
    return result.exit_code, {e["name"]: e for e in report["repos"]}, result.stderr


def branch_file(repo: Path, path: str, branch: str = BRANCH) -> bytes:
    return subprocess.run(
        ["git", "show", f"{branch}:{path}"], cwd=repo, check=True, capture_output=True
    ).stdout


def has_branch(repo: Path, branch: str = BRANCH) -> bool:
    return (
        subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"],
            cwd=repo,
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )


def test_fleet_each_outcome(tmp_path):
    violations = make_repo(
        tmp_path / "violations", {"pkg/model.py": BEFORE, "pkg/other.py": CLEAN_CODE}
    )
    clean = make_repo(tmp_path / "clean", {"model.py": CLEAN_CODE})
    dirty = make_repo(tmp_path / "dirty", {"model.py": BEFORE})
    (dirty / "model.py").write_bytes(BEFORE + b"# work in progress\n")
    (dirty / "staged.py").write_bytes(BEFORE)
    git(dirty, "add", "staged.py")
    not_a_repo = tmp_path / "not-a-repo"
    not_a_repo.mkdir()
    (not_a_repo / "model.py").write_bytes(BEFORE)
    untouched = {repo: snapshot(repo) for repo in (clean, dirty, not_a_repo)}
    base = git(violations, "rev-parse", "HEAD").strip()

    code, report, _ = run(
        "-j",
        "1",
        "--out",
        "out",
        str(violations),
        str(clean),
        str(dirty),
        str(not_a_repo),
    )

    assert code == 1  # two repositories were refused
    assert {name: e["status"] for name, e in report.items()} == {
        "violations": "changed",
        "clean": "clean",
        "dirty": "skipped",
        "not-a-repo": "skipped",
    }
    for repo, before in untouched.items():
        assert snapshot(repo) == before, f"{repo.name} was touched"
    assert report["dirty"]["reason"] == "has uncommitted changes (model.py, staged.py)"
    assert report["not-a-repo"]["reason"] == "not a git work tree"
    assert not has_branch(clean)

    # The changed repository: still on main with its original files; one commit on the branch.
    assert git(violations, "symbolic-ref", "--short", "HEAD").strip() == "main"
    assert (violations / "pkg/model.py").read_bytes() == BEFORE
    assert git(violations, "status", "--porcelain") == ""
    assert git(violations, "rev-parse", f"{BRANCH}^").strip() == base
    assert git(violations, "diff", "--name-only", base, BRANCH).split() == [
        "pkg/model.py"
    ]
    assert branch_file(violations, "pkg/model.py") == FIXED
    assert (
        git(violations, "log", "-1", "--format=%an <%ae>", BRANCH).strip()
        == "Fleet Bot <fleet-bot@example.com>"
    )
    message = git(violations, "log", "-1", "--format=%B", BRANCH)
    assert "JAX001 (missing-lowering-platforms): 1 fix" in message

    entry = report["violations"]
    assert entry["commit"] == git(violations, "rev-parse", BRANCH).strip()
    assert entry["files_changed"] == ["pkg/model.py"]
    assert entry["fixes"] == {"JAX001": 1}
    assert entry["diagnostics_left"] == 0
    assert entry["patch"] == "violations.patch"
    assert not (Path("out") / "clean.patch").exists()
    markdown = (Path("out") / "report.md").read_text()
    assert "| violations | changed | 1 | JAX001: 1 | 0 | 0 | - |" in markdown
    assert "| dirty | skipped | 0 | - | 0 | 0 | - |" in markdown


def test_patch_applies_with_git_am_onto_a_fresh_clone(tmp_path):
    repo = make_repo(
        tmp_path / "service", {"model.py": BEFORE, "lib/helpers.py": BEFORE}
    )
    code, report, _ = run("--out", "out", str(repo))
    assert code == 0
    assert report["service"]["fixes"] == {"JAX001": 2}

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    git(clone, "config", "user.name", "Reviewer")
    git(clone, "config", "user.email", "reviewer@example.com")
    git(clone, "am", "-q", str(Path("out/service.patch").absolute()))

    assert git(clone, "rev-parse", "HEAD^{tree}") == git(
        repo, "rev-parse", f"{BRANCH}^{{tree}}"
    )
    assert (clone / "model.py").read_bytes() == FIXED
    assert (clone / "lib/helpers.py").read_bytes() == FIXED
    assert git(clone, "log", "-1", "--format=%an", "HEAD").strip() == "Fleet Bot"


def test_verify_passing_commits_and_failing_discards(tmp_path):
    passing = make_repo(
        tmp_path / "passing",
        {"model.py": BEFORE, "verify.sh": b"grep -q lowering_platforms model.py\n"},
    )
    failing = make_repo(
        tmp_path / "failing",
        {"model.py": BEFORE, "verify.sh": b"echo tests broke >&2\nexit 3\n"},
    )
    before = snapshot(failing)

    code, report, stderr = run(
        "--out", "out", "--verify", "sh verify.sh", str(passing), str(failing)
    )

    assert code == 1
    assert report["passing"]["status"] == "changed"
    assert report["passing"]["verify"] == {
        "command": "sh verify.sh",
        "passed": True,
        "exit_code": 0,
        "output_tail": "",
    }
    assert branch_file(passing, "model.py") == FIXED
    assert report["failing"]["status"] == "failed"
    assert report["failing"]["verify"]["exit_code"] == 3
    assert report["failing"]["verify"]["output_tail"] == "tests broke"
    assert report["failing"]["patch"] is None
    assert snapshot(failing) == before
    assert not has_branch(failing)
    assert "tests broke" in (Path("out") / "report.md").read_text()
    assert "verify exited with 3" in stderr


def test_verify_timeout_counts_as_failure(tmp_path):
    repo = make_repo(tmp_path / "slow", {"model.py": BEFORE})
    before = snapshot(repo)
    entry, patch = migrate_repo(
        repo, MigrateOptions(verify="echo started; sleep 30", verify_timeout=0.3)
    )
    assert entry.status is Status.FAILED
    assert entry.verify is not None and entry.verify.exit_code is None
    assert entry.verify.output_tail.startswith("started")
    assert "timed out" in entry.reason
    assert patch is None
    assert snapshot(repo) == before


def test_verify_timeout_lets_the_command_clean_up_before_the_kill(tmp_path):
    # The runner repair uses: SIGTERM to the whole group, SIGKILL after a bounded grace.
    repo = make_repo(tmp_path / "slow", {"model.py": BEFORE})
    entry, _ = migrate_repo(
        repo,
        MigrateOptions(
            verify="trap 'echo cleaned up; exit 1' TERM; echo started; "
            "while :; do sleep 0.1; done",
            verify_timeout=0.5,
        ),
    )
    assert entry.status is Status.FAILED and entry.verify is not None
    assert "cleaned up" in entry.verify.output_tail


def _gone(pid: int) -> bool:
    """The process ended (a zombie waiting for its reaper counts as ended)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_verify_leaves_nothing_running_once_it_passed(tmp_path):
    repo = make_repo(tmp_path / "daemon", {"model.py": BEFORE})
    pid_file = tmp_path / "background.pid"
    entry, _ = migrate_repo(
        repo, MigrateOptions(verify=f"sleep 60 & echo $! > '{pid_file}'; exit 0")
    )
    assert entry.status is Status.CHANGED
    assert _gone(int(pid_file.read_text()))


def test_resume_skips_done_repositories_and_retries_the_rest(tmp_path):
    done = make_repo(tmp_path / "done", {"model.py": BEFORE})
    dirty = make_repo(tmp_path / "later", {"model.py": BEFORE})
    (dirty / "model.py").write_bytes(b"# editing\n" + BEFORE)
    code, first, _ = run("--out", "out", str(done), str(dirty))
    assert code == 1
    assert (first["done"]["status"], first["later"]["status"]) == ("changed", "skipped")

    git(
        dirty, "checkout", "--", "model.py"
    )  # the owner cleans up, then the run is repeated
    code, second, stderr = run("--out", "out", str(done), str(dirty))
    assert code == 0
    assert (
        second["done"] == first["done"]
    )  # not run again (it would now be refused: branch exists)
    assert second["later"]["status"] == "changed"
    assert "1 of 2 repositories already done" in stderr

    code, third, _ = run("--out", "out", "--rerun", str(done))
    assert (third["done"]["status"], third["done"]["commit"]) == (
        "changed",
        first["done"]["commit"],
    )  # the same migration again: the branch is kept as it is
    assert third["done"]["reason"] == (
        "the branch already had this migration (an earlier run's); left as it was"
    )
    # earlier entries stay in the report, marked as no longer listed
    assert third["later"] == {**second["later"], "listed": False}
    assert code == 0

    (done / "other.py").write_bytes(BEFORE)  # now the migration is another one
    git(done, "add", "other.py")
    git(done, "commit", "-q", "-m", "more")
    git(done, "branch", "-f", BRANCH, "HEAD~1")
    git(done, "commit", "-q", "--allow-empty", "-m", "the branch is not on HEAD")
    code, fourth, _ = run("--out", "out", "--rerun", str(done))
    assert fourth["done"]["status"] == "skipped"
    assert (
        fourth["done"]["reason"]
        == f"branch '{BRANCH}' already exists (--force-branch replaces it)"
    )
    assert code == 1


def test_dry_run_touches_nothing_and_does_not_count_as_done(tmp_path):
    repo = make_repo(tmp_path / "app", {"model.py": BEFORE, "left.py": UNFIXABLE})
    before = snapshot(repo)
    code, report, _ = run("--out", "out", "--dry-run", str(repo))
    assert code == 1
    assert snapshot(repo) == before
    entry = report["app"]
    assert (entry["status"], entry["dry_run"], entry["fixes"], entry["branch"]) == (
        "changed",
        True,
        {"JAX001": 1},
        None,
    )
    assert entry["diagnostics_left"] == 1 and entry["left"][0].startswith("left.py:")
    # The fleet can be previewed: the would-be diff, which git applies to a copy.
    assert (
        entry["patch"] == "app.patch"
        and "`app.patch`" in Path("out/report.md").read_text()
    )
    preview = tmp_path / "preview"
    shutil.copytree(repo, preview)
    git(preview, "apply", str(Path("out/app.patch").absolute()))
    assert (preview / "model.py").read_bytes() == FIXED and (
        preview / "left.py"
    ).read_bytes() == UNFIXABLE

    code, report, _ = run("--out", "out", str(repo))
    assert report["app"]["status"] == "changed" and not report["app"]["dry_run"]
    assert code == 1  # a diagnostic is left for a human
    assert branch_file(repo, "model.py") == FIXED
    assert branch_file(repo, "left.py") == UNFIXABLE


def test_each_repository_uses_its_own_pyproject(tmp_path):
    cpu = FIXTURES / "platform_option_cpu"
    configured = make_repo(
        tmp_path / "configured",
        {"model.py": cpu.with_suffix(".py").read_bytes()},
        config=CONFIG + b'platforms = ["cpu"]\n',
    )
    default = make_repo(
        tmp_path / "default", {"model.py": cpu.with_suffix(".py").read_bytes()}
    )
    broken = make_repo(
        tmp_path / "broken",
        {"model.py": BEFORE},
        config=b"[tool.jaxfix]\nbogus-key = 1\n",
    )
    before = snapshot(broken)

    code, report, _ = run("--out", "out", str(configured), str(default), str(broken))

    assert (
        branch_file(configured, "model.py") == cpu.with_suffix(".fixed.py").read_bytes()
    )
    assert branch_file(default, "model.py") not in (
        cpu.with_suffix(".fixed.py").read_bytes(),
        cpu.with_suffix(".py").read_bytes(),
    )
    assert report["broken"]["status"] == "failed"
    assert "bogus-key" in report["broken"]["reason"]
    assert snapshot(broken) == before
    assert code == 1


@pytest.mark.parametrize("operation", ["merge", "rebase"])
def test_repository_mid_operation_is_refused(tmp_path, operation):
    repo = make_repo(tmp_path / "busy", {"model.py": BEFORE, "notes.txt": b"base\n"})
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "notes.txt").write_bytes(b"other\n")
    git(repo, "commit", "-qam", "other")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_bytes(b"main\n")
    git(repo, "commit", "-qam", "main")
    assert (
        subprocess.run(
            ["git", operation, "other"], cwd=repo, capture_output=True, check=False
        ).returncode
        != 0
    )  # a conflict stops it
    before = snapshot(repo)
    entry, _ = migrate_repo(repo, MigrateOptions())
    assert entry.status is Status.SKIPPED
    assert entry.reason == f"a {operation} is in progress"
    assert snapshot(repo) == before


def test_untracked_files_are_neither_fixed_nor_committed(tmp_path):
    repo = make_repo(tmp_path / "app", {"model.py": BEFORE})
    (repo / "scratch.py").write_bytes(BEFORE)
    entry, patch = migrate_repo(repo, MigrateOptions())
    assert entry.status is Status.CHANGED
    assert entry.files_changed == ("model.py",)
    assert (repo / "scratch.py").read_bytes() == BEFORE
    assert git(repo, "status", "--porcelain") == "?? scratch.py\n"
    assert b"scratch.py" not in patch


def test_existing_branch_needs_force_branch(tmp_path):
    repo = make_repo(tmp_path / "app", {"model.py": BEFORE})
    git(repo, "branch", BRANCH)
    old = git(repo, "rev-parse", BRANCH)
    refused, _ = migrate_repo(repo, MigrateOptions())
    assert refused.status is Status.SKIPPED
    assert git(repo, "rev-parse", BRANCH) == old
    forced, _ = migrate_repo(
        repo, MigrateOptions(force_branch=True, message="Migrate JAX code\n")
    )
    assert forced.status is Status.CHANGED
    assert branch_file(repo, "model.py") == FIXED
    assert git(repo, "log", "-1", "--format=%B", BRANCH).strip() == "Migrate JAX code"


def test_checked_out_branch_is_refused_even_with_force(tmp_path):
    repo = make_repo(tmp_path / "app", {"model.py": BEFORE})
    git(repo, "checkout", "-q", "-b", BRANCH)
    entry, _ = migrate_repo(repo, MigrateOptions(force_branch=True))
    assert entry.status is Status.SKIPPED
    assert entry.reason == f"branch '{BRANCH}' is checked out"


# --- Ctrl-C: every repository ends untouched or committed, never half-written ---


def two_file_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "app", {"a.py": BEFORE, "b.py": BEFORE})


def test_exception_raised_mid_repository_leaves_it_untouched(tmp_path, monkeypatch):
    repo = two_file_repo(tmp_path)
    before = snapshot(repo)
    real = jaxfix.check.runner.process_file
    written = []

    def interrupted_after_first_write(run, path, **kwargs):
        real(run, path, **kwargs)
        written.append(path.read_bytes())
        raise KeyboardInterrupt

    monkeypatch.setattr(
        jaxfix.check.runner, "process_file", interrupted_after_first_write
    )
    with pytest.raises(KeyboardInterrupt):
        migrate_repo(repo, MigrateOptions())
    assert written == [FIXED]  # the interrupt really came after a file was rewritten
    assert snapshot(repo) == before
    assert not has_branch(repo)


def test_sigint_during_the_engine_lands_between_files(tmp_path, monkeypatch):
    repo = two_file_repo(tmp_path)
    before = snapshot(repo)
    real = jaxfix.check.runner.process_file
    processed = []

    def signal_after_first(run, path, **kwargs):
        result = real(run, path, **kwargs)
        processed.append(path.name)
        os.kill(os.getpid(), signal.SIGINT)
        return result

    monkeypatch.setattr(jaxfix.check.runner, "process_file", signal_after_first)
    with pytest.raises(KeyboardInterrupt):
        migrate_repo(repo, MigrateOptions())
    assert processed == ["a.py"]
    assert snapshot(repo) == before
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigint_during_verify_stops_it_and_restores(tmp_path):
    repo = two_file_repo(tmp_path)
    before = snapshot(repo)
    with pytest.raises(KeyboardInterrupt):
        migrate_repo(
            repo,
            MigrateOptions(
                verify=f"kill -INT {os.getpid()}; sleep 30", verify_timeout=120
            ),
        )
    assert snapshot(repo) == before
    assert not has_branch(repo)


def test_sigint_while_committing_finishes_the_commit_then_passes_it_on(
    tmp_path, monkeypatch
):
    repo = two_file_repo(tmp_path)
    real = jaxfix.workflows.git.git_bytes

    def signal_on_branch_creation(repo_path, *args, **kwargs):
        if args[0] == "branch":
            os.kill(os.getpid(), signal.SIGINT)
        return real(repo_path, *args, **kwargs)

    received = []
    monkeypatch.setattr(jaxfix.workflows.git, "git_bytes", signal_on_branch_creation)
    previous = signal.signal(
        signal.SIGINT, lambda signum, frame: received.append(signum)
    )
    try:
        entry, patch = migrate_repo(repo, MigrateOptions())
    finally:
        signal.signal(signal.SIGINT, previous)
    assert entry.status is Status.CHANGED and patch
    assert branch_file(repo, "a.py") == FIXED
    assert (repo / "a.py").read_bytes() == BEFORE
    assert git(repo, "status", "--porcelain") == ""
    assert received == [signal.SIGINT]


def test_interrupted_run_reports_what_finished_and_resumes(tmp_path, monkeypatch):
    repos = [
        make_repo(tmp_path / name, {"model.py": BEFORE})
        for name in ("one", "two", "three")
    ]
    untouched = {repo: snapshot(repo) for repo in repos[1:]}
    real = jaxfix.check.runner.process_file

    def interrupt_in_two(run, path, **kwargs):
        result = real(run, path, **kwargs)
        if path.parent.name == "two":
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(jaxfix.check.runner, "process_file", interrupt_in_two)
    code, report, stderr = run("-j", "1", "--out", "out", *map(str, repos))
    assert code == 130
    assert [(name, e["status"]) for name, e in report.items()] == [
        ("one", "changed"),
        ("two", "interrupted"),
        ("three", "interrupted"),
    ]
    assert "put back" in report["two"]["reason"]
    assert "not started" in report["three"]["reason"]
    assert "2 repositories not migrated" in stderr
    for repo, before in untouched.items():
        assert snapshot(repo) == before
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    monkeypatch.setattr(jaxfix.check.runner, "process_file", real)
    code, resumed, _ = run("-j", "1", "--out", "out", *map(str, repos))
    assert code == 0
    assert resumed["one"] == report["one"]
    assert [resumed[name]["status"] for name in ("two", "three")] == [
        "changed",
        "changed",
    ]
    assert all(branch_file(repo, "model.py") == FIXED for repo in repos)


# --- a worker killed mid-repository: its own edits are put back by the next run ---

# `migrate_repo` in a process of its own that is killed (SIGKILL: nothing runs after it) at a
# precise point: the second file's write, just before it starts or just after it is done.
_KILLED_WORKER = """
import os, signal, sys
import jaxfix.sources.file_io
import jaxfix.workflows.migrate
from jaxfix.workflows.migrate import MigrateOptions, migrate_repo

real = jaxfix.sources.file_io.replace_source
writes = []

def killed_at_the_second_write(path, data, **kwargs):
    writes.append(path)
    if len(writes) == 2 and sys.argv[2] == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    real(path, data, **kwargs)
    if len(writes) == 2 and sys.argv[2] == "after":
        os.kill(os.getpid(), signal.SIGKILL)

real_commit = jaxfix.workflows.migrate._commit_branch

def killed_after_committing(*args, **kwargs):
    real_commit(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)  # the branch is made, the work tree not put back

jaxfix.sources.file_io.replace_source = killed_at_the_second_write
jaxfix.workflows.migrate._commit_branch = killed_after_committing
migrate_repo(sys.argv[1], MigrateOptions())
"""


def killed_mid_repository(repo: Path, when: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_WORKER, str(repo), when],
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]


@pytest.mark.parametrize("when", ["before", "after", "committed"])
def test_a_run_killed_mid_repository_is_put_back_and_migrated_by_the_next(
    tmp_path, when
):
    repo = make_repo(
        tmp_path / "app", {"a.py": BEFORE, "b.py": BEFORE, "c.py": CLEAN_CODE}
    )
    killed_mid_repository(repo, when)
    left = git(repo, "status", "--porcelain", "--untracked-files=no")
    assert left == (" M a.py\n" if when == "before" else " M a.py\n M b.py\n"), left
    assert has_branch(repo) == (when == "committed")
    earlier = git(repo, "rev-parse", BRANCH).strip() if when == "committed" else None

    entry, patch = migrate_repo(repo, MigrateOptions())
    assert entry.status is Status.CHANGED, entry.reason
    if earlier:  # the killed run's commit is the migration: kept, reported
        assert entry.commit == earlier and "already had this migration" in entry.reason
    assert branch_file(repo, "a.py") == FIXED and branch_file(repo, "b.py") == FIXED
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    assert (repo / "a.py").read_bytes() == BEFORE
    committed = git(repo, "show", "--name-only", "--format=", BRANCH).split()
    assert committed == ["a.py", "b.py"]
    assert b"journal" not in patch
    assert not list((repo / ".git").glob("jaxfix*"))  # its journal went with the edits


def test_someone_s_edit_after_a_killed_run_is_never_discarded(tmp_path):
    repo = make_repo(
        tmp_path / "app", {"a.py": BEFORE, "b.py": BEFORE, "c.py": CLEAN_CODE}
    )
    killed_mid_repository(repo, "after")
    (repo / "b.py").write_bytes(
        FIXED + b"# and my own line\n"
    )  # on top of jaxfix's fix
    entry, _ = migrate_repo(repo, MigrateOptions())
    assert entry.status is Status.SKIPPED
    assert entry.reason == (
        "has uncommitted changes (b.py holds neither what the killed jaxfix run found there "
        "nor what it wrote: someone's edit, left as it is)"
    )
    assert (repo / "b.py").read_bytes() == FIXED + b"# and my own line\n"
    assert (repo / "a.py").read_bytes() == FIXED

    (repo / "b.py").write_bytes(FIXED)  # back to jaxfix's, but another file edited
    (repo / "c.py").write_bytes(CLEAN_CODE + b"# mine\n")
    entry, _ = migrate_repo(repo, MigrateOptions(dry_run=True))
    assert entry.reason == (
        "has uncommitted changes (c.py is not a file the killed jaxfix run wrote: "
        "someone's edit, left as it is)"
    )
    (repo / "c.py").write_bytes(CLEAN_CODE)
    entry, _ = migrate_repo(repo, MigrateOptions(dry_run=True))
    assert entry.reason == (
        "has uncommitted changes: the unfinished edits of a killed jaxfix run "
        "(a run without --dry-run puts them back)"
    )
    assert (repo / "a.py").read_bytes() == FIXED  # a dry run writes nothing
    entry, _ = migrate_repo(repo, MigrateOptions())
    assert entry.status is Status.CHANGED and (repo / "a.py").read_bytes() == BEFORE


def test_a_pool_worker_killed_mid_repository_is_retried_and_migrates_it(tmp_path):
    """A real worker of the local pool killed (SIGKILL) while --verify runs, jaxfix's edits in
    the work tree: the retry puts them back and migrates the repository."""
    attempts = tmp_path / "attempts"
    kill_once = f"""[ -e {attempts} ] && exit 0
echo attempt > {attempts}
pid=$$
while [ "$pid" -gt 1 ]; do
  parent=$(cut -d' ' -f4 /proc/$pid/stat)
  if [ "$parent" = {os.getpid()} ]; then kill -9 "$pid"; sleep 5; fi
  pid=$parent
done
exit 1
"""
    repo = make_repo(
        tmp_path / "app", {"model.py": BEFORE, "verify.sh": kill_once.encode()}
    )
    # Beside it in the pool, a repository with nothing to fix (the pool's other workers go down
    # too; one killed after committing its branch would be refused for the branch on retry).
    other = make_repo(tmp_path / "other", {"model.py": CLEAN_CODE})
    code, report, stderr = run(
        "-j", "2", "--verify", "sh verify.sh", "--out", "out", str(repo), str(other)
    )
    assert attempts.exists(), stderr  # the worker was killed
    assert code == 0, stderr
    assert {name: e["status"] for name, e in report.items()} == {
        "app": "changed",
        "other": "clean",
    }, report
    assert branch_file(repo, "model.py") == FIXED
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


# --- the command line ---


def test_repos_file_with_comments_and_shared_names(tmp_path):
    first = make_repo(tmp_path / "team-a" / "service", {"model.py": BEFORE})
    second = make_repo(tmp_path / "team-b" / "service", {"model.py": CLEAN_CODE})
    listing = tmp_path / "repos.txt"
    listing.write_text(f"# fleet\n{first}  # team a\n\n{second}\n{first}\n")
    code, _, _ = run("--out", "out", "--repos", str(listing))
    report = json.loads(Path("out/report.json").read_text())["repos"]
    assert [(e["repo"], e["status"]) for e in report] == [
        (str(first), "changed"),
        (str(second), "clean"),
    ]
    assert [e["name"] for e in report] == ["team-a/service", "team-b/service"]
    assert report[0]["patch"] == "team-a-service.patch"
    assert (Path("out") / report[0]["patch"]).exists()
    assert code == 0


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--select", "NOPE", "repo"],
        ["--branch", "bad..name", "repo"],
        ["--platform", "gpu", "repo"],
    ],
    ids=["no-repos", "unknown-rule", "bad-branch", "unknown-platform"],
)
def test_usage_errors_exit_2(args):
    result = CliRunner().invoke(migrate, args)
    assert result.exit_code == 2, result.output
    assert not Path("jaxfix-migrate").exists()


def test_unreadable_report_is_a_usage_error(tmp_path):
    repo = make_repo(tmp_path / "app", {"model.py": BEFORE})
    Path("out").mkdir()
    Path("out/report.json").write_text("{not json")
    result = CliRunner().invoke(migrate, ["--out", "out", str(repo)])
    assert result.exit_code == 2
    assert not has_branch(repo)


@pytest.mark.parametrize(
    "command",
    [["jaxfix"], [sys.executable, "-m", "jaxfix"]],
    ids=["console-script", "python-m"],
)
def test_installed_command_runs_repositories_in_parallel(tmp_path, command):
    if command == ["jaxfix"]:
        script = shutil.which("jaxfix", path=str(Path(sys.executable).parent))
        assert script, "the jaxfix console script is not installed next to this Python"
        command = [script]
    repos = [
        make_repo(tmp_path / name, {"model.py": BEFORE})
        for name in ("alpha", "beta", "gamma")
    ]
    done = subprocess.run(
        [*command, "migrate", "-j", "2", "--out", "out", *map(str, repos)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "3 changed" in done.stderr
    report = json.loads(Path("out/report.json").read_text())["repos"]
    assert [(e["name"], e["status"]) for e in report] == [
        ("alpha", "changed"),
        ("beta", "changed"),
        ("gamma", "changed"),
    ]
    for repo in repos:
        assert branch_file(repo, "model.py") == FIXED
        assert (repo / "model.py").read_bytes() == BEFORE


def ctrl_c_once_started(
    process: subprocess.Popen[str],
    started: Path,
    count: int,
    then: Callable[[], None] = lambda: None,
) -> str:
    """Ctrl-C the command's process group once `count` verify commands have made their file in
    `started`; `then` runs before waiting for the command to exit. Its stderr."""
    try:
        while len(list(started.iterdir())) < count:
            assert process.poll() is None, process.communicate()
            subprocess.run(["sleep", "0.05"], check=True)
        os.killpg(process.pid, signal.SIGINT)
        then()
        return process.communicate(timeout=60)[1]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)


def test_ctrl_c_on_a_parallel_run_puts_running_repositories_back(tmp_path):
    """A terminal Ctrl-C signals the whole process group: the command and its workers."""
    repos = [
        make_repo(tmp_path / name, {"model.py": BEFORE})
        for name in ("alpha", "beta", "gamma")
    ]
    untouched = {repo: snapshot(repo) for repo in repos}
    started = tmp_path / "started"
    started.mkdir()
    verify = f"touch {started}/$(basename $PWD); sleep 60"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "migrate",
            "-j",
            "2",
            "--out",
            "out",
            "--verify",
            verify,
            *map(str, repos),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    stderr = ctrl_c_once_started(process, started, 2)
    assert process.returncode == 130, stderr
    assert "interrupted by SIGINT: 3 repositories not migrated" in stderr
    assert sorted(p.name for p in started.iterdir()) == [
        "alpha",
        "beta",
    ]  # gamma was never started
    for repo, before in untouched.items():
        assert snapshot(repo) == before
    assert interrupted_states() == {
        "alpha": "put back",
        "beta": "put back",
        "gamma": "not started",
    }


def interrupted_states() -> dict[str, str]:
    """Each repository of out/report.json that is `interrupted`: put back or not started."""
    states = {}
    for entry in json.loads(Path("out/report.json").read_text())["repos"]:
        assert entry["status"] == "interrupted", entry
        states[entry["name"]] = (
            "put back" if "put back" in entry["reason"] else "not started"
        )
        assert "not started" in entry["reason"] or "put back" in entry["reason"]
    return states


@pytest.mark.parametrize(
    "signum, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["TERM", "HUP"]
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigterm_or_sighup_to_the_command_alone_stops_the_fleet_like_ctrl_c(
    tmp_path, signum, code, jobs
):
    """CI cancellation, `timeout` and a closed terminal signal only the command: it passes the
    stop on to its workers, puts running repositories back, records every repository's state and
    says how to resume; the re-run then migrates each exactly once."""
    repos = [
        make_repo(tmp_path / name, {"model.py": BEFORE})
        for name in ("alpha", "beta", "gamma")
    ]
    untouched = {repo: snapshot(repo) for repo in repos}
    started = tmp_path / "started"
    started.mkdir()
    verify = f"touch {started}/$(basename $PWD); sleep 60"
    args = ["migrate", "-j", jobs, "--out", "out", *map(str, repos)]
    process = subprocess.Popen(
        [sys.executable, "-m", "jaxfix", *args[:-3], "--verify", verify, *args[-3:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        while len(list(started.iterdir())) < int(jobs):
            assert process.poll() is None, process.communicate()
            subprocess.run(["sleep", "0.05"], check=True)
        process.send_signal(signum)  # the command only, not its process group
        stderr = process.communicate(timeout=60)[1]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == code, stderr
    assert f"interrupted by {signal.Signals(signum).name}: 3 repositories" in stderr
    assert "--out out to resume" in stderr
    for repo, before in untouched.items():
        assert snapshot(repo) == before
    states = interrupted_states()
    assert sorted(states.values()).count("put back") == int(jobs)
    assert sorted(states) == ["alpha", "beta", "gamma"]
    code, report, stderr = run("--out", "out", *map(str, repos))
    assert code == 0, stderr
    assert {name: e["status"] for name, e in report.items()} == dict.fromkeys(
        ("alpha", "beta", "gamma"), "changed"
    )
    for repo in repos:
        assert git(repo, "rev-list", "--count", f"main..{BRANCH}").strip() == "1"


def test_fix_through_a_tracked_symlink_commits_the_target(tmp_path):
    repo = make_repo(tmp_path / "app", {"real.py": BEFORE})
    os.symlink("real.py", repo / "alias.py")
    git(repo, "add", "alias.py")
    git(repo, "commit", "-qm", "alias")
    entry, _ = migrate_repo(repo, MigrateOptions())
    assert entry.files_changed == ("real.py",)
    assert branch_file(repo, "real.py") == FIXED
    assert git(repo, "ls-tree", BRANCH, "alias.py").startswith(
        "120000"
    )  # still a symlink
    assert (repo / "real.py").read_bytes() == BEFORE


@pytest.mark.parametrize("mark", ["--assume-unchanged", "--skip-worktree"])
def test_a_hidden_local_edit_is_refused_and_kept(tmp_path, mark):
    repo = make_repo(tmp_path / "hidden", {"model.py": BEFORE})
    git(repo, "update-index", mark, "model.py")
    (repo / "model.py").write_bytes(BEFORE + b"# local edit git status does not show\n")
    before = snapshot(repo)
    entry, patch = migrate_repo(repo, MigrateOptions())
    assert (
        entry.status is Status.SKIPPED
        and "assume-unchanged or skip-worktree" in entry.reason
        and "model.py" in entry.reason
    )
    assert patch is None and not has_branch(repo)
    assert snapshot(repo) == before


def test_edits_made_while_verify_runs_are_kept_and_nothing_is_committed(tmp_path):
    verify = b"echo '# theirs' >> model.py\necho '# theirs' >> other.py\n"
    repo = make_repo(
        tmp_path / "busy",
        {"model.py": BEFORE, "other.py": CLEAN_CODE, "verify.sh": verify},
    )
    entry, patch = migrate_repo(repo, MigrateOptions(verify="sh verify.sh"))
    assert (
        entry.status is Status.FAILED
        and entry.reason
        == "changed while --verify ran: model.py; left as they are, nothing committed"
    )
    assert patch is None and not has_branch(repo)
    assert (repo / "model.py").read_bytes() == FIXED + b"# theirs\n"
    assert (repo / "other.py").read_bytes() == CLEAN_CODE + b"# theirs\n"


def test_an_edit_to_another_file_during_verify_survives_the_restore(tmp_path):
    repo = make_repo(
        tmp_path / "busy",
        {
            "model.py": BEFORE,
            "other.py": CLEAN_CODE,
            "verify.sh": b"echo '# theirs' >> other.py\n",
        },
    )
    entry, _ = migrate_repo(repo, MigrateOptions(verify="sh verify.sh"))
    assert entry.status is Status.CHANGED and branch_file(repo, "model.py") == FIXED
    assert (repo / "model.py").read_bytes() == BEFORE
    assert (repo / "other.py").read_bytes() == CLEAN_CODE + b"# theirs\n"


def test_file_names_are_literal_pathspecs(tmp_path):
    repo = make_repo(tmp_path / "magic", {":x.py": BEFORE, "*.py": BEFORE})
    entry, patch = migrate_repo(repo, MigrateOptions())
    assert entry.status is Status.CHANGED, entry.reason
    assert branch_file(repo, ":x.py") == FIXED and branch_file(repo, "*.py") == FIXED
    assert (repo / ":x.py").read_bytes() == BEFORE and patch


def test_repos_file_keeps_a_hash_inside_a_path(tmp_path):
    repo = make_repo(tmp_path / "team #1", {"model.py": BEFORE})
    listing = tmp_path / "repos.txt"
    listing.write_text(f"# the fleet\n{repo}\n  # indented comment\n")
    code, report, stderr = run("--out", "out", "--repos", str(listing))
    assert report["team #1"]["status"] == "changed", stderr
    assert code == 0


def test_each_repository_gets_its_own_project_roots(tmp_path):
    meshes = b'from jax.sharding import AbstractMesh\n\nINNER = AbstractMesh((16, 4), ("data", "model"))\n'
    train = (
        b"from jax.sharding import AbstractMesh, use_abstract_mesh\n\nfrom pkg.meshes import INNER\n\n"
        b'with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):\n    with use_abstract_mesh(INNER):\n        pass\n'
    )
    files = {"lib/pkg/meshes.py": meshes, "app/train.py": train}
    rooted = make_repo(tmp_path / "rooted", files, config=CONFIG + b'src = ["lib"]\n')
    unrooted = make_repo(tmp_path / "unrooted", files)
    _, report, _ = run("--out", "out", "--dry-run", str(rooted), str(unrooted))
    assert [line.split(": ")[1][:6] for line in report["rooted"]["left"]] == ["JAX002"]
    assert report["rooted"]["left"][0].startswith("app/train.py:")
    assert (
        report["unrooted"]["diagnostics_left"] == 0
    )  # `pkg` is found only through the root `lib`


def test_each_repository_is_checked_against_its_own_jax_pin(tmp_path):
    """The 0.12-only case: fixed in the repository pinned to jax>=0.12, left alone in the one on 0.10."""
    new_only = (FIXTURES / "use_abstract_mesh_default_axes_on_new_jax.py").read_bytes()
    new = make_repo(
        tmp_path / "new",
        {"export.py": new_only},
        config=b'[project]\nname = "new"\ndependencies = ["jax>=0.12"]\n',
    )
    old = make_repo(
        tmp_path / "old",
        {"export.py": new_only},
        config=b'[project]\nname = "old"\ndependencies = ["jax==0.10.2"]\n',
    )
    code, report, stderr = run("--out", str(tmp_path / "out"), str(new), str(old))
    assert code == 0, stderr
    assert report["new"]["status"] == "changed" and report["old"]["status"] == "clean"
    assert (
        report["new"]["target_jax"]
        == "0.12 (pyproject.toml [project] dependencies: jax>=0.12)"
    )
    assert (
        report["old"]["target_jax"]
        == "0.10.2 (pyproject.toml [project] dependencies: jax==0.10.2)"
    )
    assert (
        "Checked against JAX 0.12 (pyproject.toml [project] dependencies: jax>=0.12)."
        in git(new, "log", "-1", "--format=%B", BRANCH)
    )
    assert "target JAX 0.12 (pyproject.toml" in stderr
