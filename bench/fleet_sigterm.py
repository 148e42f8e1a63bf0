"""A fleet stopped by SIGTERM mid-run and resumed: every changed repository committed once,
every repository listed once.

Makes REPOS local work trees (15 names in four teams, so the names collide and are told apart
by their team; a JAX001 fixture planted in every fourth, the others clean), runs
`jaxfix migrate --repos fleet.txt -j JOBS --verify "sleep VERIFY"`, sends SIGTERM to the command
alone (as CI cancellation does) once STOP_AFTER repositories are recorded, then runs the same
command again with the same --out and checks the result. Prints the times and what it found;
exits 1 if a check fails.

    python bench/fleet_sigterm.py                 # 60 repositories, -j 2
    python bench/fleet_sigterm.py --repos 12 --stop-after 4
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = (ROOT / "fixtures/JAX001/trace_lower_abstract_sharded_arg.py").read_bytes()
CLEAN = b"import jax\n\nprint(jax.numpy.ones(3).sum())\n"
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PYTHONPATH": str(ROOT),
}
BRANCH = "jaxfix/migrate"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True
    ).stdout


def make_fleet(root: Path, count: int) -> tuple[Path, list[Path], set[Path]]:
    repos, planted = [], set()
    for index in range(count):
        repo = root / f"team_{'abcd'[index % 4]}" / f"service_{index // 4:02d}"
        repo.mkdir(parents=True)
        (repo / "pyproject.toml").write_text('[tool.jaxfix]\njax-version = "0.10.2"\n')
        (repo / "util.py").write_bytes(CLEAN)
        if index % 4 == 0:
            (repo / "model.py").write_bytes(BEFORE)
            planted.add(repo)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "initial")
        repos.append(repo)
    listing = root / "fleet.txt"
    listing.write_text("".join(f"{r.relative_to(root)}\n" for r in repos))
    return listing, repos, planted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verify", type=float, default=0.5)
    parser.add_argument("--stop-after", type=int, default=20)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="jaxfix-fleet-sigterm-"))
    listing, repos, planted = make_fleet(root, args.repos)
    out = root / "out"
    command = [sys.executable, "-m", "jaxfix", "migrate", "--repos", str(listing)]
    command += ["-j", str(args.jobs), "--verify", f"sleep {args.verify}"]
    command += ["--out", str(out)]

    started = time.monotonic()
    process = subprocess.Popen(
        command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    journal = out / "journal.jsonl"
    while process.poll() is None:
        if journal.exists() and journal.read_bytes().count(b"\n") >= args.stop_after:
            break
        time.sleep(0.05)
    stopped = time.monotonic()
    process.send_signal(signal.SIGTERM)
    first_err = process.communicate()[1]
    exited = time.monotonic()
    first = json.loads((out / "report.json").read_text())["repos"]

    second = subprocess.run(command, env=ENV, capture_output=True, text=True)
    ended = time.monotonic()
    report = json.loads((out / "report.json").read_text())["repos"]

    keys = [e["repo"] for e in report]
    commits = {
        r: int(git(r, "rev-list", "--count", f"main..{BRANCH}") or 0)
        if git(r, "branch", "--list", BRANCH)
        else 0
        for r in repos
    }
    statuses = {e["status"] for e in report}
    problems = [
        *(["a repository listed twice"] if len(keys) != len(set(keys)) else []),
        *([f"{len(keys)} listed, not {len(repos)}"] if len(keys) != len(repos) else []),
        *(f"{r}: {n} commits" for r, n in commits.items() if n != (r in planted)),
        *(
            f"{r}: work tree not clean"
            for r in repos
            if git(r, "status", "--porcelain")
        ),
        *([f"statuses {statuses}"] if statuses != {"changed", "clean"} else []),
        *(
            [f"first run exited {process.returncode}"]
            if process.returncode != 143
            else []
        ),
        *([f"resume exited {second.returncode}"] if second.returncode != 0 else []),
    ]
    recorded = sum(e["status"] != "interrupted" for e in first)
    print(
        f"fleet: {len(repos)} repositories, {len(planted)} with JAX001, -j {args.jobs}"
    )
    print(
        f"first run: SIGTERM after {stopped - started:.1f} s with {recorded} recorded; "
        f"exited {process.returncode} {exited - stopped:.1f} s later"
    )
    print(f"resume: {ended - exited:.1f} s, exit {second.returncode}")
    print("resume line:", "to resume" in " ".join(first_err.split()))
    print("problems:", problems or "none")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
