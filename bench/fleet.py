"""Fleet capacity of `jaxfix migrate`: repositories per minute, per executor, on this machine.

Generates REPOS bare repositories (each a synthetic JAX tree from make_corpus.py, a few
violations each) and migrates all of them, given as `file://` URLs, once per executor: one
process (`-j 1`, the baseline), the local pool, and a 2-worker Dask LocalCluster. Each run is a
fresh `jaxfix migrate` process with its own --out, timed from start to exit (so a LocalCluster's
start-up is included). Also times a shallow clone alone and Dask's per-task overhead, the two
costs that do not shrink with more workers.

    python bench/fleet.py --repos 16 --files 40
    python bench/fleet.py --verify "sleep 2"      # repositories whose tests take a while
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_corpus import write_corpus

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(*args: str, cwd: Path | None = None) -> None:
    subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
    )


def make_fleet(root: Path, repos: int, files: int, lines: int) -> list[str]:
    urls = []
    for index in range(repos):
        work = root / "work" / f"service_{index:03d}"
        write_corpus(work, files, lines, candidates=0.1, violations=0.06, seed=index)
        (work / "pyproject.toml").write_text('[tool.jaxfix]\njax-version = "0.10.2"\n')
        git("init", "-q", "-b", "main", cwd=work)
        git("add", "-A", cwd=work)
        git("commit", "-qm", "initial", cwd=work)
        bare = root / "remotes" / f"service_{index:03d}.git"
        git("clone", "-q", "--bare", str(work), str(bare))
        urls.append(bare.as_uri())
    return urls


def timed(command: list[str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds, CPU seconds of the command and every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        wall,
        (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        done,
    )


def clone_seconds(root: Path, urls: list[str]) -> float:
    start = time.perf_counter()
    for index, url in enumerate(urls):
        git(
            "clone",
            "-q",
            "--depth=1",
            "--single-branch",
            url,
            str(root / "clones" / str(index)),
        )
    return (time.perf_counter() - start) / len(urls)


def dask_task_overhead(tasks: int = 500) -> float | None:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        return None
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        client.gather(client.map(abs, range(10)))  # warm
        start = time.perf_counter()
        client.gather(client.map(abs, range(tasks), pure=False))
        return (time.perf_counter() - start) / tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=int, default=16)
    parser.add_argument(
        "--files", type=int, default=40, help="Python files per repository"
    )
    parser.add_argument("--lines", type=int, default=150, help="mean lines per file")
    parser.add_argument(
        "--verify", help="--verify command for every repository (e.g. 'sleep 2')"
    )
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[2, 4], help="local pool sizes to try"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="jaxfix-fleet-bench-") as temp:
        root = Path(temp)
        urls = make_fleet(root, args.repos, args.files, args.lines)
        listing = root / "fleet.txt"
        listing.write_text("\n".join(urls) + "\n")
        base = [
            sys.executable,
            "-m",
            "jaxfix",
            "migrate",
            "--repos",
            str(listing),
            "--color",
            "never",
        ]
        if args.verify:
            base += ["--verify", args.verify]
        runs = [("one process (-j 1, baseline)", ["-j", "1"])]
        runs += [(f"local pool -j {jobs}", ["-j", str(jobs)]) for jobs in args.jobs]
        runs += [
            (
                "Dask LocalCluster, 2 workers (--scheduler local -j 2)",
                ["--scheduler", "local", "-j", "2"],
            )
        ]

        print(
            f"{args.repos} repositories x {args.files} files (~{args.lines} lines), as file:// URLs; "
            f"{os.cpu_count()} CPUs; verify: {args.verify or 'none'}\n"
        )
        print("| executor | wall s | CPU s | repos/minute | vs baseline |")
        print("|---|---:|---:|---:|---:|")
        baseline = None
        for index, (label, extra) in enumerate(runs):
            wall, cpu, done = timed([*base, *extra, "--out", str(root / f"out{index}")])
            if done.returncode not in (0, 1):
                sys.exit(f"{label}: exit {done.returncode}\n{done.stderr[-2000:]}")
            rate = args.repos / wall * 60
            baseline = baseline or rate
            print(
                f"| {label} | {wall:.1f} | {cpu:.1f} | {rate:.1f} | {rate / baseline:.2f}x |"
            )
        print(
            f"\nshallow clone alone (file://, sequential): {clone_seconds(root, urls):.3f} s per repository"
        )
        overhead = dask_task_overhead()
        if overhead is not None:
            print(
                f"Dask per-task overhead (LocalCluster, 500 trivial tasks): {overhead * 1000:.2f} ms"
            )


if __name__ == "__main__":
    main()
