"""What a fleet run says after something went wrong: a hard kill ends its verify commands, a
recovered journal and lost workers are in the report, repositories no longer listed are
marked; and a run stopped by SIGTERM mid-way, resumed, commits each repository once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from workflows.test_migrate import (  # noqa: F401 - isolated_git is autouse
    BEFORE,
    BRANCH,
    CLEAN_CODE,
    FIXED,
    branch_file,
    git,
    isolated_git,
    make_repo,
    run,
)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead: only its parent has not read its status yet
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def test_a_verify_command_does_not_outlive_a_hard_kill_of_jaxfix(tmp_path):
    repo = make_repo(tmp_path / "alpha", {"model.py": BEFORE})
    pids = tmp_path / "pids"
    verify = f"sleep 60 & echo $! >> {pids}; echo $$ >> {pids}; wait"
    process = subprocess.Popen(
        [sys.executable, "-m", "jaxfix", "migrate", "-j", "1", "--verify", verify]
        + ["--out", "out", str(repo)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    started: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(started) < 2:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
            started = (
                [int(p) for p in pids.read_text().split()] if pids.exists() else []
            )
        process.kill()  # SIGKILL to jaxfix alone: nothing of it can run
        process.wait()
        deadline = time.monotonic() + 10
        while any(map(alive, started)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(alive, started)), "the verify command outlived jaxfix"
    finally:
        for pid in started:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_retry_after_a_lost_worker_and_the_journal_it_recovered_are_in_the_report(
    tmp_path,
):
    """alpha's first verify kills its pool worker mid-repository; the retry finds the killed
    run's edits and journal, puts them back, and passes: both are said. (beta, beside it, may be
    lost with the pool; it is retried too.)"""
    from workflows.test_fleet import killer_script

    repos = [make_repo(tmp_path / n, {"model.py": BEFORE}) for n in ("alpha", "beta")]
    marks = tmp_path / "marks"
    marks.mkdir()
    script = tmp_path / "kill-once.sh"
    script.write_bytes(
        f'n=$(basename "$PWD"); [ "$n" = alpha ] || exit 0\n'
        f"[ -e {marks}/$n ] && exit 0; touch {marks}/$n\n".encode()
        + killer_script(tmp_path / "attempts")
    )
    code, report, stderr = run(
        "-j", "2", "--verify", f"sh {script}", "--out", "out", *map(str, repos)
    )
    assert code == 0, stderr
    assert report["beta"]["status"] == "changed", report["beta"]
    entry = report["alpha"]
    assert entry["status"] == "changed", entry
    assert any("worker was lost 1 time" in note for note in entry["notes"]), entry
    assert any("put back before this run" in note for note in entry["notes"]), entry
    assert "its worker was lost 1 time" in stderr
    assert "put back before this run" in Path("out/logs/alpha.log").read_text()
    for repo in repos:
        assert git(repo, "rev-list", "--count", f"main..{BRANCH}").strip() == "1"
        assert git(repo, "status", "--porcelain") == ""


def test_repositories_no_longer_listed_are_marked(tmp_path):
    alpha = make_repo(tmp_path / "alpha", {"model.py": BEFORE})
    beta = make_repo(tmp_path / "beta", {"model.py": CLEAN_CODE})
    run("--out", "out", str(alpha), str(beta))
    code, report, stderr = run("--out", "out", str(alpha))
    assert code == 0, stderr
    assert report["alpha"]["listed"] and not report["beta"]["listed"]
    assert "not in the last run's list" in Path("out/report.md").read_text()
    code, report, stderr = run(
        "--out", "out", "--filter", "alpha", str(alpha), str(beta)
    )
    assert report["beta"]["listed"]  # listed, filtered out: not stale


def test_a_fleet_stopped_by_sigterm_mid_run_and_resumed_commits_each_once(tmp_path):
    """alpha finishes before the stop; beta and gamma are inside their verify when SIGTERM
    comes (to the command alone, as CI cancellation sends it); delta and the clean epsilon never
    start. The resume migrates exactly the others: each changed repository ends with one commit
    on the branch, every repository listed once."""
    names = ("alpha", "beta", "gamma", "delta")
    repos = [make_repo(tmp_path / n, {"model.py": BEFORE}) for n in names]
    repos.append(make_repo(tmp_path / "epsilon", {"model.py": CLEAN_CODE}))
    started, gate = tmp_path / "started", tmp_path / "gate"
    started.mkdir()
    verify = (
        f'n=$(basename "$PWD"); touch {started}/$n; [ "$n" = alpha ] && exit 0; '
        f"while [ ! -e {gate} ]; do sleep 0.05; done"
    )
    args = ["-j", "2", "--verify", verify, "--out", "out", *map(str, repos)]
    process = subprocess.Popen(
        [sys.executable, "-m", "jaxfix", "migrate", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while sorted(p.name for p in started.iterdir()) != ["alpha", "beta", "gamma"]:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        stderr = process.communicate(timeout=90)[1]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 143, stderr
    assert "run again with --out out to resume" in " ".join(stderr.split())
    first = json.loads(Path("out/report.json").read_text())["repos"]
    assert [(e["name"], e["status"]) for e in first] == [
        ("alpha", "changed"),
        *((name, "interrupted") for name in ("beta", "gamma", "delta", "epsilon")),
    ]
    alpha_commit = first[0]["commit"]

    gate.touch()
    code, report, stderr = run(*args)
    assert code == 0, stderr
    assert "1 of 5 repositories already done" in stderr
    resumed = json.loads(Path("out/report.json").read_text())["repos"]
    assert [e["name"] for e in resumed] == [*names, "epsilon"]  # each listed once
    assert {e["name"]: e["status"] for e in resumed} == {
        **dict.fromkeys(names, "changed"),
        "epsilon": "clean",
    }
    assert report["alpha"]["commit"] == alpha_commit  # not redone
    for repo in repos[:4]:
        assert git(repo, "rev-list", "--count", f"main..{BRANCH}").strip() == "1"
        assert branch_file(repo, "model.py") == FIXED
        assert git(repo, "status", "--porcelain") == ""
    assert git(repos[4], "branch", "--list", BRANCH) == ""
