"""`jaxfix migrate` on fleets: repositories by URL (bare repositories as `file://` URLs and plain
paths), a real `distributed.LocalCluster` on loopback against the local pool, `--push`, a worker
killed mid-repository, the journal, resuming across executors, and running without Dask."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxfix.cli.migrate import migrate
from jaxfix.fleet import journal
from jaxfix.fleet.sources import RepoSource, parse_source, unique_names
from jaxfix.workflows.migrate import RepoReport, Status
from workflows.test_migrate import (  # noqa: F401 - isolated_git is autouse
    BEFORE,
    CLEAN_CODE,
    FIXED,
    ctrl_c_once_started,
    git,
    isolated_git,
    make_repo,
)

BRANCH = "jaxfix/migrate"
# Commits made anywhere (this process, pool workers, Dask workers) get the same hashes.
IDENTITY = {
    "GIT_AUTHOR_NAME": "Fleet Bot",
    "GIT_AUTHOR_EMAIL": "fleet-bot@example.com",
    "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z",
    "GIT_COMMITTER_NAME": "Fleet Bot",
    "GIT_COMMITTER_EMAIL": "fleet-bot@example.com",
    "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}
PASS = b"exit 0\n"
FAIL = b"echo tests broke >&2\nexit 3\n"


@pytest.fixture(scope="module")
def scratch_dir(tmp_path_factory):
    """TMPDIR for this process and every worker: where clones go, and must not stay."""
    return tmp_path_factory.mktemp("scratch")


@pytest.fixture(scope="module", autouse=True)
def fleet_env(scratch_dir, tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        for name, value in IDENTITY.items():
            patch.setenv(name, value)
        patch.setenv(
            "GIT_CONFIG_GLOBAL", str(tmp_path_factory.mktemp("home") / "no-gitconfig")
        )
        patch.setenv("TMPDIR", str(scratch_dir))
        patch.setattr(
            tempfile, "tempdir", str(scratch_dir)
        )  # this process has read TMPDIR already
        yield


@pytest.fixture(scope="module")
def scheduler(fleet_env, tmp_path_factory):
    """A real LocalCluster on loopback: 2 worker processes, a task retried once when its worker dies."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    import logging

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
            local_directory=str(tmp_path_factory.mktemp("dask")),
        )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def bare(
    tmp_path: Path,
    name: str,
    files: dict[str, bytes],
    branches: dict[str, dict[str, bytes]] | None = None,
) -> Path:
    """A bare repository (the "remote"), made from a throw-away work tree."""
    work = make_repo(tmp_path / "work" / name, files)
    for branch, changes in (branches or {}).items():
        git(work, "checkout", "-q", "-b", branch)
        for path, data in changes.items():
            (work / path).write_bytes(data)
        git(work, "commit", "-qam", branch)
        git(work, "checkout", "-q", "main")
    remote = tmp_path / "remotes" / f"{name}.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(remote)], check=True)
    return remote


def killer_script(attempts: Path) -> bytes:
    """Kill the worker process running this verify: the ancestor whose parent is this test process."""
    return f"""pid=$$
while [ "$pid" -gt 1 ]; do
  parent=$(cut -d' ' -f4 /proc/$pid/stat)
  if [ "$parent" = {os.getpid()} ]; then echo attempt >> {attempts}; kill -9 "$pid"; sleep 30; fi
  pid=$parent
done
exit 1
""".encode()


def refs(remote: Path) -> str:
    return git(remote, "for-each-ref", "--format=%(refname) %(objectname)")


def run(*args: str) -> tuple[int, dict[str, dict], str]:
    result = CliRunner().invoke(
        migrate, ["--color", "never", *args], catch_exceptions=False
    )
    out = Path(args[args.index("--out") + 1])
    report = (
        json.loads((out / "report.json").read_text())
        if (out / "report.json").exists()
        else {"repos": []}
    )
    return result.exit_code, {e["name"]: e for e in report["repos"]}, result.stderr


def without_durations(report: dict[str, dict]) -> dict[str, dict]:
    return {
        name: {k: v for k, v in entry.items() if k not in ("duration", "finished")}
        for name, entry in report.items()
    }


def bundle_tree(tmp_path: Path, remote: Path, bundle: Path) -> bytes:
    """model.py on the branch after fetching the bundle into a fresh clone of the remote."""
    clone, bundle = tmp_path / f"check-{remote.stem}", bundle.resolve()
    subprocess.run(["git", "clone", "-q", str(remote), str(clone)], check=True)
    git(clone, "bundle", "verify", str(bundle))
    git(clone, "fetch", "-q", str(bundle), f"{BRANCH}:{BRANCH}")
    return subprocess.run(
        ["git", "show", f"{BRANCH}:model.py"],
        cwd=clone,
        check=True,
        capture_output=True,
    ).stdout


def test_dask_cluster_matches_the_local_pool_and_retries_a_killed_worker_once(
    tmp_path, scheduler, scratch_dir
):
    attempts = tmp_path / "attempts"
    remotes = {
        "fixme": bare(tmp_path, "fixme", {"model.py": BEFORE, "verify.sh": PASS}),
        "clean": bare(tmp_path, "clean", {"model.py": CLEAN_CODE, "verify.sh": PASS}),
        "branchy": bare(
            tmp_path,
            "branchy",
            {"model.py": CLEAN_CODE, "verify.sh": PASS},
            {"dev": {"model.py": BEFORE}},
        ),
        "broken": bare(tmp_path, "broken", {"model.py": BEFORE, "verify.sh": FAIL}),
        "killer": bare(
            tmp_path,
            "killer",
            {"model.py": BEFORE, "verify.sh": killer_script(attempts)},
        ),
    }
    listing = tmp_path / "fleet.txt"
    listing.write_text(
        "\n".join(
            [
                remotes["fixme"].as_uri(),
                str(remotes["clean"]),
                f"{remotes['branchy'].as_uri()}@dev",
                remotes["broken"].as_uri(),
                remotes["killer"].as_uri(),
            ]
        )
        + "\n"
    )
    before = {name: refs(remote) for name, remote in remotes.items()}
    common = ("--repos", str(listing), "--verify", "sh verify.sh")

    code, pool, _ = run(*common, "-j", "2", "--out", "pool")
    assert attempts.read_text().count("attempt") == 2
    attempts.unlink()
    for leftover in (
        scratch_dir.iterdir()
    ):  # the pool's killed workers' (and their neighbours') scratch clones
        shutil.rmtree(leftover)
    code_dask, dask, stderr = run(*common, "--scheduler", scheduler, "--out", "dask")
    assert (
        attempts.read_text().count("attempt") == 2
    )  # retried once elsewhere, then given up

    assert code == code_dask == 1
    assert {name: e["status"] for name, e in dask.items()} == {
        "fixme": "changed",
        "clean": "clean",
        "branchy": "changed",
        "broken": "failed",
        "killer": "failed",
    }
    for report in (pool, dask):
        assert report["killer"]["reason"].startswith(
            "worker lost 2 times while migrating it"
        )
        report["killer"]["reason"] = "(executor's words)"
        for (
            entry
        ) in report.values():  # a pool's bystanders are lost with the killer's worker
            assert set(entry.pop("notes")) <= {
                "its worker was lost 1 time (killed, or out of memory) before this run of it"
            }
    assert without_durations(dask) == without_durations(pool)
    assert "killer: failed (worker lost 2 times" in stderr
    assert dask["broken"]["verify"]["output_tail"] == "tests broke"
    assert dask["branchy"]["repo"] == f"{remotes['branchy'].as_uri()}@dev"
    assert {
        name: refs(remote) for name, remote in remotes.items()
    } == before  # nothing pushed
    # Every scratch clone is removed, except those of the two killed workers.
    assert sorted(
        path.relative_to(scratch_dir).parts[1] for path in scratch_dir.glob("*/*")
    ) == ["killer", "killer"]

    for name in ("fixme", "branchy"):
        entry = dask[name]
        assert (entry["patch"], entry["bundle"], entry["pushed"]) == (
            f"{name}.patch",
            f"{name}.bundle",
            False,
        )
        assert (Path("dask") / entry["patch"]).read_bytes() == (
            Path("pool") / entry["patch"]
        ).read_bytes()
        assert (
            bundle_tree(tmp_path, remotes[name], Path("dask") / entry["bundle"])
            == FIXED
        )
    assert not list(Path("dask").glob("clean.*")) and not list(
        Path("dask").glob("broken.*")
    )


def test_a_pool_broken_before_its_loss_is_read_is_replaced_not_reused(tmp_path):
    """The race the dispatcher cannot order: a worker dies, then a submit comes before the lost
    future is read. The submit goes to a fresh pool, which reading the loss leaves running."""
    from concurrent.futures import wait

    from jaxfix.fleet.executors import LocalPool, Lost
    from jaxfix.workflows.migrate import MigrateOptions

    killer = bare(
        tmp_path,
        "killer",
        {"model.py": BEFORE, "verify.sh": killer_script(tmp_path / "attempts")},
    )
    fine = bare(tmp_path, "fine", {"model.py": BEFORE, "verify.sh": PASS})
    pool = LocalPool(2, MigrateOptions(verify="sh verify.sh"), push=False)
    try:
        lost = pool.submit(parse_source(killer.as_uri()))
        wait([lost])
        replacement = pool.submit(parse_source(fine.as_uri()))
        with pytest.raises(Lost):
            pool.outcome(lost)
        assert pool.outcome(replacement).entry.status is Status.CHANGED
    finally:
        pool.close()


def test_push_lands_the_branch_in_the_remote_exactly_once(tmp_path, scheduler):
    remotes = [bare(tmp_path, name, {"model.py": BEFORE}) for name in ("alpha", "beta")]
    urls = [remote.as_uri() for remote in remotes]

    code, first, _ = run("--scheduler", scheduler, "--push", "--out", "out", *urls)
    assert code == 0
    for remote in remotes:
        entry = first[remote.stem]
        assert (entry["status"], entry["pushed"]) == ("changed", True)
        assert (
            git(remote, "rev-parse", f"refs/heads/{BRANCH}").strip() == entry["commit"]
        )
        assert (
            git(remote, "rev-parse", f"{BRANCH}^").strip()
            == entry["base"]
            == git(remote, "rev-parse", "main").strip()
        )
        assert git(remote, "show", f"{BRANCH}:model.py").encode() == FIXED
    pushed = {remote: refs(remote) for remote in remotes}

    # Run again (as a retried or recomputed task would): the same migration is there, nothing is pushed.
    git(
        remotes[1], "update-ref", f"refs/heads/{BRANCH}", "main"
    )  # beta's branch now says something else
    moved = refs(remotes[1])
    code, again, _ = run(
        "--scheduler", scheduler, "--push", "--rerun", "--out", "out", *urls
    )
    assert code == 1
    assert again["alpha"] == {
        **first["alpha"],
        "duration": again["alpha"]["duration"],
        "finished": again["alpha"]["finished"],
        "reason": "the remote already had this migration on the branch; nothing pushed",
    }
    assert again["beta"]["status"] == "skipped"
    assert (
        again["beta"]["reason"]
        == f"branch '{BRANCH}' already exists on the remote (--force-branch replaces it)"
    )
    assert (refs(remotes[0]), refs(remotes[1])) == (pushed[remotes[0]], moved)


def test_push_replaces_the_remote_branch_only_with_force_branch(tmp_path, monkeypatch):
    remote = bare(
        tmp_path, "app", {"model.py": BEFORE}, {BRANCH: {"model.py": CLEAN_CODE}}
    )
    stale = git(remote, "rev-parse", BRANCH).strip()
    code, report, _ = run("-j", "1", "--push", "--out", "out", remote.as_uri())
    assert (code, report["app"]["status"], report["app"]["pushed"]) == (
        1,
        "skipped",
        False,
    )
    assert git(remote, "rev-parse", BRANCH).strip() == stale
    code, report, _ = run(
        "-j", "1", "--push", "--force-branch", "--out", "out", remote.as_uri()
    )
    assert code == 0
    assert (
        report["app"]["pushed"]
        and git(remote, "rev-parse", BRANCH).strip() == report["app"]["commit"] != stale
    )
    pushed = refs(remote)

    # Once more, a second later: a new commit, but the same migration is on the remote already.
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:06Z")
    code, again, _ = run(
        "-j", "1", "--push", "--rerun", "--out", "out", remote.as_uri()
    )
    assert code == 0
    assert (again["app"]["status"], again["app"]["commit"], again["app"]["pushed"]) == (
        "changed",
        report["app"]["commit"],
        True,
    )
    assert refs(remote) == pushed
    assert git(remote, "show", f"{BRANCH}:model.py").encode() == FIXED
    assert bundle_tree(tmp_path, remote, Path("out/app.bundle")) == FIXED


def test_dry_run_on_a_url_writes_the_diff_and_pushes_nothing(tmp_path):
    remote = bare(tmp_path, "app", {"model.py": BEFORE})
    before = refs(remote)
    code, report, _ = run(
        "-j", "1", "--dry-run", "--push", "--out", "out", remote.as_uri()
    )
    assert code == 1
    assert (
        report["app"]["status"],
        report["app"]["dry_run"],
        report["app"]["pushed"],
        report["app"]["bundle"],
    ) == ("changed", True, False, None)
    assert refs(remote) == before
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(remote), str(clone)], check=True)
    git(clone, "apply", str(Path("out", report["app"]["patch"]).resolve()))
    assert (clone / "model.py").read_bytes() == FIXED


def test_url_failures_are_reported_per_repository(tmp_path):
    remote = bare(tmp_path, "app", {"model.py": BEFORE})
    missing = (tmp_path / "nowhere.git").as_uri()
    code, _, _ = run(
        "-j",
        "1",
        "--out",
        "out",
        missing,
        f"{remote.as_uri()}@no-such-branch",
        remote.as_uri(),
    )
    assert code == 1
    entries = json.loads(Path("out/report.json").read_text())["repos"]
    assert [(e["repo"], e["status"]) for e in entries] == [
        (missing, "failed"),
        (f"{remote.as_uri()}@no-such-branch", "failed"),
        (remote.as_uri(), "changed"),
    ]
    assert entries[0]["reason"].startswith("git clone: ")
    assert "no-such-branch" in entries[1]["reason"]
    assert (
        entries[2]["patch"] != entries[1]["patch"]
    )  # same name, told apart by a hash of the URL


def test_interrupted_dask_run_resumes_with_the_local_pool(tmp_path):
    """Ctrl-C to the whole process group: the LocalCluster's workers ignore it, the client stops
    handing out, lets the running repositories finish, records them and exits 130."""
    pytest.importorskip("distributed")
    started, gate = tmp_path / "started", tmp_path / "gate"
    started.mkdir()
    verify = f"touch {started}/$(basename $PWD); while [ ! -e {gate} ]; do sleep 0.05; done".encode()
    urls = [
        bare(tmp_path, name, {"model.py": BEFORE, "verify.sh": verify}).as_uri()
        for name in ("one", "two", "three")
    ]
    command = [
        sys.executable,
        "-m",
        "jaxfix",
        "migrate",
        "--scheduler",
        "local",
        "-j",
        "2",
        "--verify",
        "sh verify.sh",
        "--out",
        "out",
        *urls,
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )

    def open_the_gate() -> None:
        subprocess.run(["sleep", "0.5"], check=True)  # the client has seen the Ctrl-C
        gate.touch()

    stderr = ctrl_c_once_started(
        process, started, 2, then=open_the_gate
    )  # both workers are inside a verify
    assert process.returncode == 130, stderr
    assert "1 repository not migrated" in stderr
    assert "dask dashboard: http://127.0.0.1:" in stderr
    report = json.loads(Path("out/report.json").read_text())["repos"]
    first = [e for e in report if e["status"] == "changed"]
    assert sorted(e["name"] for e in first) == sorted(p.name for p in started.iterdir())
    assert [(e["status"], e["reason"]) for e in report if e not in first] == [
        ("interrupted", "not started: the run was stopped first; a re-run migrates it")
    ]
    assert not Path("out", journal.JOURNAL).exists()  # absorbed into report.json

    code, resumed, stderr = run(
        "-j", "2", "--verify", "sh verify.sh", "--out", "out", *urls
    )
    assert code == 0, stderr
    assert "2 of 3 repositories already done" in stderr
    assert [resumed[e["name"]] for e in first] == first
    assert sorted(resumed) == ["one", "three", "two"] and all(
        e["status"] == "changed" for e in resumed.values()
    )


# --- the journal ---


def test_each_repository_is_appended_once_and_report_json_written_once(
    tmp_path, monkeypatch
):
    urls = [
        bare(tmp_path, name, {"model.py": BEFORE}).as_uri() for name in ("a", "b", "c")
    ]
    appended, snapshots = [], []
    real_append, real_snapshot = journal.append, journal.write_snapshot
    monkeypatch.setattr(
        journal,
        "append",
        lambda out, entry: (appended.append(entry.name), real_append(out, entry)),
    )
    monkeypatch.setattr(
        journal,
        "write_snapshot",
        lambda out, entries, **run: (
            snapshots.append(len(entries)),
            real_snapshot(out, entries, **run),
        ),
    )
    code, report, _ = run("-j", "1", "--out", "out", *urls)
    assert code == 0
    assert appended == ["a", "b", "c"] and snapshots == [3]
    assert list(report) == ["a", "b", "c"]


def test_resume_reads_the_journal_a_crash_left_behind(tmp_path):
    """A run killed outright leaves only journal.jsonl, its last line possibly cut short."""
    urls = [
        bare(tmp_path, name, {"model.py": BEFORE}).as_uri()
        for name in ("done", "torn", "todo")
    ]
    out = Path("out")
    out.mkdir()
    done = RepoReport(urls[0], "done", Status.CLEAN, False)
    journal.append(out, done)
    with open(out / journal.JOURNAL, "ab") as handle:
        handle.write(
            json.dumps(
                RepoReport(urls[1], "torn", Status.CLEAN, False).to_json()
            ).encode()[:40]
        )
    code, report, stderr = run("-j", "1", "--out", "out", *urls)
    assert "1 of 3 repositories already done" in stderr
    assert (
        report["done"] == done.to_json()
    )  # not run again (it would have been 'changed')
    assert (report["torn"]["status"], report["todo"]["status"]) == (
        "changed",
        "changed",
    )
    assert code == 0
    assert not (out / journal.JOURNAL).exists()


def test_a_damaged_journal_line_before_the_last_is_a_usage_error(tmp_path):
    out = Path("out")
    out.mkdir()
    (out / journal.JOURNAL).write_text(
        '{"not": "an entry"}\n'
        + json.dumps(RepoReport("/x", "x", Status.CLEAN, False).to_json())
        + "\n"
    )
    result = CliRunner().invoke(migrate, ["--out", "out", str(tmp_path)])
    assert result.exit_code == 2
    assert "journal.jsonl:1: cannot resume from it" in result.stderr


# --- what a line names ---


@pytest.mark.parametrize(
    ("text", "url", "ref", "name"),
    [
        (
            "https://github.com/org/service.git",
            "https://github.com/org/service.git",
            None,
            "service",
        ),
        (
            "https://bot@github.com/org/service.git@release/1.0",
            "https://bot@github.com/org/service.git",
            "release/1.0",
            "service",
        ),
        (
            "git@github.com:org/service.git",
            "git@github.com:org/service.git",
            None,
            "service",
        ),
        (
            "git@github.com:org/service@dev",
            "git@github.com:org/service",
            "dev",
            "service",
        ),
        (
            "ssh://git@host:2222/srv/repos/tool/",
            "ssh://git@host:2222/srv/repos/tool/",
            None,
            "tool",
        ),
        (
            "file:///srv/mirrors/lib.git@main",
            "file:///srv/mirrors/lib.git",
            "main",
            "lib",
        ),
    ],
)
def test_urls_and_branches(text, url, ref, name):
    assert parse_source(text) == RepoSource(key=text, name=name, url=url, ref=ref)


def test_paths_to_bare_repositories_are_cloned_and_work_trees_are_not(tmp_path):
    remote = bare(tmp_path, "lib", {"model.py": BEFORE})
    work = tmp_path / "work" / "lib"
    assert parse_source(str(remote)) == RepoSource(
        key=str(remote), name="lib", url=remote.as_uri()
    )
    assert parse_source(f"{remote}@dev") == RepoSource(
        key=f"{remote}@dev", name="lib", url=remote.as_uri(), ref="dev"
    )
    assert parse_source(str(work)) == RepoSource(key=str(work), name="lib")
    assert parse_source(str(tmp_path / "me@home")) == RepoSource(
        key=str(tmp_path / "me@home"), name="me@home"
    )


# --- without Dask ---

NO_DASK = "import sys; sys.modules['distributed'] = sys.modules['dask'] = None; from jaxfix.cli.main import main; main()"


def test_the_local_default_needs_no_dask_and_scheduler_names_the_extra(tmp_path):
    urls = [bare(tmp_path, name, {"model.py": BEFORE}).as_uri() for name in ("a", "b")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    local = subprocess.run(
        [sys.executable, "-c", NO_DASK, "migrate", "-j", "2", "--out", "out", *urls],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert local.returncode == 0, local.stderr
    assert "2 changed" in local.stderr

    dask = subprocess.run(
        [
            sys.executable,
            "-c",
            NO_DASK,
            "migrate",
            "--scheduler",
            "local",
            "--out",
            "out2",
            *urls,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert dask.returncode == 2
    assert dask.stderr.count("pip install 'jaxfix[dask]'") == 1
    assert "Traceback" not in dask.stderr
    assert not Path("out2").exists()


def test_progress_counts_done_failed_and_running(tmp_path):
    remote = bare(tmp_path, "app", {"model.py": BEFORE})
    missing = (tmp_path / "gone.git").as_uri()
    result = CliRunner().invoke(
        migrate,
        ["--color", "always", "-j", "1", "--out", "out", missing, remote.as_uri()],
    )
    assert result.exit_code == 1
    assert "0 done, 0 failed, running 1: gone" in result.stderr
    assert "0 done, 1 failed, running 1: app" in result.stderr
    assert "1 done, 1 failed" in result.stderr


# -- --repair: the loop of `jaxfix repair` in each repository -------------------------------------

_MESHES = b"""from jax.sharding import AbstractMesh


def make_mesh(data, model):
    return AbstractMesh((data, model), ("data", "model"))
"""
_FACTORY_STAGE = b"""import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from meshes import make_mesh


def eval_sizes():
    with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
        with use_abstract_mesh(make_mesh(data=4, model=4)):
            return jax.sharding.get_abstract_mesh().axis_sizes
"""
_ENV_STAGE = b"""import os

import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

DATA = int(os.environ.get("JAXFIX_FLEET_EVAL_DATA", "4"))


def env_sizes():
    with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
        with use_abstract_mesh(AbstractMesh((DATA, 4), ("data", "model"))):
            return jax.sharding.get_abstract_mesh().axis_sizes
"""
_FACTORY_TEST = b"from stages import eval_sizes\n\n\ndef test_eval_sizes():\n    assert eval_sizes() == (2, 4)\n"
_ENV_TEST = b"from env_stage import env_sizes\n\n\ndef test_env_sizes():\n    assert env_sizes() == (2, 4)\n"
_BROKEN_TEST = b"import jax\n\n\ndef test_device_count():\n    assert jax.numpy.ones(3).sum() == 4\n"


def test_repair_on_dask_green_improved_untouched(tmp_path, scheduler):
    """One verify run first (the baseline), then the loop: the repository that goes green is
    committed; the one that improves (its second error lives in an environment variable) keeps
    its patch in --out, nothing committed; the one already failing otherwise is left untouched."""
    repos = {
        "green": make_repo(
            tmp_path / "green",
            {
                "meshes.py": _MESHES,
                "stages.py": _FACTORY_STAGE,
                "test_stages.py": _FACTORY_TEST,
            },
        ),
        "improved": make_repo(
            tmp_path / "improved",
            {
                "meshes.py": _MESHES,
                "stages.py": _FACTORY_STAGE,
                "test_stages.py": _FACTORY_TEST,
                "env_stage.py": _ENV_STAGE,
                "test_env_stage.py": _ENV_TEST,
            },
        ),
        "untouched": make_repo(
            tmp_path / "untouched", {"test_broken.py": _BROKEN_TEST}
        ),
    }
    heads = {name: git(repo, "rev-parse", "HEAD") for name, repo in repos.items()}
    verify = f"JAX_PLATFORMS=cpu {sys.executable} -m pytest -q -p no:cacheprovider"
    out = tmp_path / "out"
    code, report, stderr = run(
        "--verify",
        verify,
        "--repair",
        "--unsafe-fixes",
        "--scheduler",
        scheduler,
        "--out",
        str(out),
        *map(str, repos.values()),
    )
    assert code == 1, stderr

    green = report["green"]
    assert green["status"] == "changed", green
    assert (
        green["baseline"].startswith("failing with JAX001-JAX014, JAX101, JAX103")
        and green["verify"]["passed"]
    )
    assert green["errors"] == ["JAX002 stages.py:9"] and green["errors_fixed"] == 1
    assert (
        git(repos["green"], "show", f"{BRANCH}:stages.py").count(
            "make_mesh(data=2, model=4)"
        )
        == 1
    )
    assert (out / green["patch"]).read_text().count(
        "+        with use_abstract_mesh(make_mesh(data=2, model=4)):"
    ) == 1

    improved = report["improved"]
    assert improved["status"] == "improved", improved
    assert (
        improved["errors"] == ["JAX002 env_stage.py:11", "JAX002 stages.py:9"]
        and improved["errors_fixed"] == 1
    )
    assert improved["reason"].startswith(
        "1 of 2 errors fixed, still failing: JAX002 env_stage.py:11"
    )
    assert any(
        "environment variable JAXFIX_FLEET_EVAL_DATA: set it to 2" in left
        for left in improved["left"]
    ), improved["left"]
    assert improved["commit"] is None and not improved["verify"]["passed"]
    patch = out / improved["patch"]
    assert git(repos["improved"], "branch", "--list", BRANCH) == ""
    assert (
        repos["improved"] / "stages.py"
    ).read_bytes() == _FACTORY_STAGE  # the work tree is put back
    subprocess.run(
        ["git", "apply", str(patch)], cwd=repos["improved"], check=True
    )  # the kept patch is the fix
    assert (
        b"make_mesh(data=2, model=4)" in (repos["improved"] / "stages.py").read_bytes()
    )
    subprocess.run(
        ["git", "checkout", "--", "stages.py"], cwd=repos["improved"], check=True
    )

    untouched = report["untouched"]
    assert (
        untouched["status"] == "failed"
        and untouched["patch"] is None
        and untouched["errors"] == []
    )
    assert untouched["baseline"].startswith(
        "already failing before any fix, not with JAX001-JAX014, JAX101, JAX103: AssertionError"
    )
    assert git(repos["untouched"], "branch", "--list", BRANCH) == ""

    for name, repo in repos.items():
        assert git(repo, "rev-parse", "HEAD") == heads[name]
        assert git(repo, "status", "--porcelain", "--untracked-files=no") == "", name
    markdown = (out / "report.md").read_text()
    assert (
        "1 of 2 errors fixed, still failing" in markdown
        and "already failing before any fix" in markdown
    )


def test_repair_needs_verify_and_is_no_dry_run(tmp_path):
    repo = make_repo(tmp_path / "repo", {"model.py": BEFORE})
    for extra in ((), ("--verify", "true", "--dry-run")):
        result = CliRunner().invoke(
            migrate, ["--repair", *extra, "--out", str(tmp_path / "out"), str(repo)]
        )
        assert result.exit_code == 2 and "--repair" in result.output


def test_repair_that_fails_inside_leaves_the_repository_as_it_was(
    tmp_path, monkeypatch
):
    """An internal error in the loop after it wrote a fix: the repository is put back."""
    import jaxfix.workflows.migrate as migrate_module

    repo = make_repo(
        tmp_path / "repo", {"meshes.py": _MESHES, "stages.py": _FACTORY_STAGE}
    )

    def broken_repair(files, *args, **kwargs):
        (repo / "stages.py").write_bytes(_FACTORY_STAGE.replace(b"data=4", b"data=2"))
        raise RuntimeError("the loop broke")

    monkeypatch.setattr(migrate_module, "repair", broken_repair)
    code, report, _ = run(
        "--verify",
        "true",
        "--repair",
        "-j",
        "1",
        "--out",
        str(tmp_path / "out"),
        str(repo),
    )
    assert (
        code == 1
        and report["repo"]["status"] == "failed"
        and "the loop broke" in report["repo"]["reason"]
    )
    assert (repo / "stages.py").read_bytes() == _FACTORY_STAGE
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""


@pytest.mark.parametrize(
    "address, cause",
    [
        ("not a url", "not a scheduler address"),
        ("foo://bar", "unknown address scheme 'foo'"),
    ],
)
def test_a_scheduler_that_is_no_address_is_one_line_at_once(tmp_path, address, cause):
    """`distributed.Client` retried 'not a url' for 60 s, then raised a traceback."""
    started = time.monotonic()
    result = CliRunner().invoke(migrate, ["--scheduler", address, str(tmp_path)])
    assert (
        result.exit_code == 2
        and cause in result.output
        and "Traceback" not in result.output
    ), result.output
    assert time.monotonic() - started < 10


def test_a_push_refused_by_a_pre_receive_hook_keeps_the_hook_s_reason(tmp_path):
    remote = bare(tmp_path, "app", {"model.py": BEFORE})
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\necho 'push refused: migrations need a review first' >&2\nexit 1\n"
    )
    hook.chmod(0o755)
    _, report, _ = run("-j", "1", "--push", "--out", "out", remote.as_uri())
    assert report["app"]["status"] == "failed" and not report["app"]["pushed"], report[
        "app"
    ]
    assert "push refused: migrations need a review first" in report["app"]["reason"], (
        report["app"]["reason"]
    )
    assert "\n" not in report["app"]["reason"]


@pytest.mark.skipif(shutil.which("ssh") is None, reason="no ssh client")
def test_an_unreachable_clone_url_says_why(tmp_path):
    """ssh's own line says why; git's last one is its advice ("and the repository exists.")."""
    _, report, _ = run(
        "-j", "1", "--out", "out", "ssh://git@nonexistent.invalid/app.git"
    )
    (entry,) = report.values()
    assert (
        entry["status"] == "failed"
        and "nonexistent.invalid" in entry["reason"]
        and "and the repository exists" not in entry["reason"]
    ), entry


class _StuckExecutor:
    """Two repositories whose workers never answer a stop: what the grace period is for."""

    dashboard = None

    def __init__(self, stop) -> None:
        self.abandoned, self.stop = False, stop

    def slots(self) -> int:
        return 2

    def submit(self, source: RepoSource) -> RepoSource:
        return source

    def finished(self, handles: list, timeout: float) -> list:
        self.stop(15, None)  # SIGTERM, once both are running
        time.sleep(timeout)
        return []

    def interrupt(self) -> None:
        pass

    def abandon(self) -> None:
        self.abandoned = True

    def close(self) -> None:
        pass


class _NoDisplay:
    def start(self) -> None: ...

    def running(self, names: list[str], stopping: bool) -> None: ...

    def stop(self) -> None: ...


def test_a_stop_gives_running_repositories_a_bounded_time(monkeypatch):
    import jaxfix.fleet.dispatch as dispatch_module

    monkeypatch.setattr(dispatch_module, "GRACE_SECONDS", 0.3)
    sources = [parse_source(f"/fleet/{name}") for name in ("alpha", "beta", "gamma")]
    forwarded: list[bool] = []
    stop = dispatch_module.StopRequest(lambda: forwarded.append(True))
    executor = _StuckExecutor(stop)
    recorded: list[RepoReport] = []
    started = time.monotonic()
    previous = signal.signal(signal.SIGINT, stop)  # as the command installs it
    try:
        dispatch_module.dispatch(
            sources,
            executor,
            lambda source, outcome: recorded.append(outcome.entry),
            stop,
            False,
            _NoDisplay(),
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 5
    assert forwarded and executor.abandoned and stop.signum == 15
    assert [(e.name, e.status) for e in recorded] == [
        ("alpha", Status.INTERRUPTED),
        ("beta", Status.INTERRUPTED),
    ]
    assert all("worker was ended" in e.reason for e in recorded)


@pytest.mark.parametrize(
    "given, names",
    [
        (["/w/a/repo", "/w/b/repo", "/w/c/other"], ["a/repo", "b/repo", "other"]),
        (["/x/a/repo", "/y/a/repo", "/y/b/repo"], ["x/a/repo", "y/a/repo", "b/repo"]),
        (
            ["https://h.example/t/lib.git", "git@g.example:u/lib.git"],
            ["t/lib", "u/lib"],
        ),
        (
            ["https://h.example/t/lib@main", "https://h.example/t/lib@dev"],
            ["lib@main", "lib@dev"],
        ),
    ],
)
def test_names_are_the_shortest_path_suffix_that_tells_repositories_apart(given, names):
    named = unique_names([parse_source(text) for text in given])
    assert [s.name for s in named] == names[: len(named)]
    assert len({s.name for s in named}) == len(named)


_UNREACHED = b"""import jax
from jax.sharding import PartitionSpec as P


def total(f, mesh, x):
    return jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P(), check_rep=False)(x)
"""


def test_repair_also_commits_what_static_reading_fixes(tmp_path):
    """The verify runs never reach `unreached.py`'s check_rep= (JAX005): migrate --repair fixes
    it too, as migrate without --repair would, checks the command still passes with it, and
    commits both fixes on one branch."""
    repo = make_repo(
        tmp_path / "green",
        {
            "meshes.py": _MESHES,
            "stages.py": _FACTORY_STAGE,
            "test_stages.py": _FACTORY_TEST,
            "unreached.py": _UNREACHED,
        },
    )
    verify = f"JAX_PLATFORMS=cpu {sys.executable} -m pytest -q -p no:cacheprovider"
    out = tmp_path / "out"
    code, report, stderr = run(
        "--verify", verify, "--repair", "--unsafe-fixes", "--out", str(out), str(repo)
    )
    green = report["green"]
    assert green["status"] == "changed" and green["verify"]["passed"], (green, stderr)
    assert green["errors"] == ["JAX002 stages.py:9"] and green["errors_fixed"] == 1
    assert green["fixes"] == {"JAX002": 1, "JAX005": 1}
    assert "check_vma=False" in git(repo, "show", f"{BRANCH}:unreached.py")
    assert "make_mesh(data=2, model=4)" in git(repo, "show", f"{BRANCH}:stages.py")


def test_a_task_dask_re_ran_after_its_worker_died_says_so(tmp_path, scheduler):
    marks = tmp_path / "marks"
    marks.mkdir()
    kill_once = (
        f'm={marks}/$(basename "$PWD"); [ -e "$m" ] && exit 0; touch "$m"\n'.encode()
        + killer_script(tmp_path / "attempts")
    )
    remote = bare(tmp_path, "once", {"model.py": BEFORE, "verify.sh": kill_once})
    code, report, stderr = run(
        "--scheduler",
        scheduler,
        "--verify",
        "sh verify.sh",
        "--out",
        "out",
        remote.as_uri(),
    )
    assert code == 0, stderr
    assert report["once"]["status"] == "changed"
    assert report["once"]["notes"] == [
        "its worker was lost 1 time (killed, or out of memory) before this run of it"
    ]
