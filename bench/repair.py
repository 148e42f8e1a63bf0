"""`jaxfix repair`'s own overhead: everything but the command's runs, against their time.

On a fresh copy of the test project (tests/repair_projects/trainer: JAX001, JAX002 and JAX003
at sites only a run can explain; one round of fixes makes its suite green), REPEAT times, for
this checkout and each baseline in turn (the order alternates from round to round):

1. the command alone on the broken tree (`PYTHON -m pytest -q`, no jaxfix, no recorder);
2. `jaxfix repair --unsafe-fixes --format json -- PYTHON -m pytest -q`, in a new jaxfix process,
   timed from start to exit (start-up, the recorder, the evidence, the fixes, the writes);
3. the command alone on the repaired tree.

The overhead is (2) minus (1) + (3): all jaxfix adds to running the command twice, measured
against runs under the same load. The report's own split (its command runs vs the rest) is
printed too, and the same comparison in CPU time (user + system of every process): what
jaxfix does beside a run costs no wall time on a free core but shows there.

jaxfix runs with bytecode caches, as an installed package does (pip compiles it): its modules
are compiled once before the rounds, since PYTHONDONTWRITEBYTECODE (set for the command, whose
tree is copied fresh each time) would otherwise make every jaxfix run compile itself again; its
rules' manifest is written then too (without it every run re-reads the rule modules).

    python bench/repair.py --python .venv-next/bin/python --repeat 7 --baseline-rev 54d917c
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "tests" / "repair_projects" / "trainer"
ENV = {
    **os.environ,
    "PYTHONPATH": str(ROOT),
    "JAX_PLATFORMS": "cpu",
    "PYTHONDONTWRITEBYTECODE": "1",
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
}


@dataclass(frozen=True)
class Sample:
    alone: float  # the command alone, broken + fixed tree
    wall: float  # the whole `jaxfix repair` process
    alone_cpu: float  # CPU (user + system) of the command alone, broken + fixed
    cpu: float  # of `jaxfix repair`, its threads and the command's runs
    inside: float  # the report's command runs
    loop: float  # the report's own time (the loop, command runs included)
    runs: int
    fixed: int

    @property
    def overhead(self) -> float:
        return self.wall - self.alone

    @property
    def share(self) -> float:
        return 100 * self.overhead / self.alone

    @property
    def cpu_share(self) -> float:
        """jaxfix's CPU against the command's: work beside a run shows here even when a free
        core hides it from the wall time (and a loaded machine cannot hide it)."""
        return 100 * (self.cpu - self.alone_cpu) / self.alone_cpu


def timed(
    command: list[str], cwd: Path, env: dict[str, str] = ENV
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds (the process and every process it waited for) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done


def one_round(python: str, scratch: Path, checkout: Path) -> Sample:
    tree = Path(
        shutil.copytree(
            PROJECT, scratch / "trainer", ignore=shutil.ignore_patterns("__pycache__")
        )
    )
    suite = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    broken, broken_cpu, done = timed(suite, tree)
    assert done.returncode == 1, done.stdout[-2000:]
    wall, cpu, done = timed(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "repair",
            "--unsafe-fixes",
            "--format",
            "json",
            "--",
            *suite,
        ],
        tree,
        {**ENV, "PYTHONPATH": str(checkout)},
    )
    report = json.loads(done.stdout)
    if not report["passed"]:
        raise SystemExit(f"the repair did not pass:\n{done.stderr[-3000:]}")
    fixed, fixed_cpu, done = timed(suite, tree)
    assert done.returncode == 0, done.stdout[-2000:]
    shutil.rmtree(tree)
    return Sample(
        broken + fixed,
        wall,
        broken_cpu + fixed_cpu,
        cpu,
        report["command_seconds"],
        report["seconds"],
        len(report["rounds"]),
        len(report["fixed"]),
    )


def export_revision(revision: str, work: Path) -> Path:
    """`git archive` of `revision` of this repository: a baseline checkout run by the same
    interpreter and dependencies, with no chance of picking up edits."""
    out = work / f"baseline-{revision.replace('/', '_')}"
    out.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def compile_jaxfix(checkout: Path) -> None:
    """Bytecode and the rules' manifest (jaxfix/check/registry.py keeps it beside the rules'
    bytecode after its first run, which re-reads every rule module with `ast`, ~0.14 s of CPU,
    when it is not there): what an installed package has after its first run."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(checkout / "jaxfix")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    env = {k: v for k, v in ENV.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from jaxfix.check.registry import all_rules; all_rules()",
        ],
        check=True,
        env={**env, "PYTHONPATH": str(checkout)},
    )


def load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--python",
        default=str(ROOT / ".venv-next" / "bin" / "python"),
        help="the command's interpreter (with jax)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--baseline",
        type=Path,
        action="append",
        default=[],
        help="another jaxfix checkout to time in the same rounds (repeatable)",
    )
    parser.add_argument(
        "--baseline-rev",
        action="append",
        default=[],
        help="a commit of this repository to time in the same rounds, exported by `git archive` (repeatable)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jaxfix-bench-repair-") as scratch:
        work = Path(scratch)
        checkouts = [("this checkout", ROOT)]
        checkouts += [(str(path), path.resolve()) for path in args.baseline]
        checkouts += [
            (f"`{rev}`", export_revision(rev, work)) for rev in args.baseline_rev
        ]
        for _, checkout in checkouts:
            compile_jaxfix(checkout)
        print(f"load average before: {load()}")
        samples: dict[str, list[Sample]] = {label: [] for label, _ in checkouts}
        for number in range(args.repeat):
            turn = checkouts if number % 2 == 0 else checkouts[::-1]
            for label, checkout in turn:
                sample = one_round(args.python, work, checkout)
                samples[label].append(sample)
                print(
                    f"round {number + 1}, {label}: the command alone, broken + fixed: {sample.alone:.2f} s; "
                    f"jaxfix repair: {sample.wall:.2f} s ({sample.runs} runs, {sample.fixed} fixed) -> "
                    f"overhead {sample.overhead:+.2f} s = {sample.share:+.1f}% (CPU {sample.alone_cpu:.2f} s -> "
                    f"{sample.cpu:.2f} s: {sample.cpu_share:+.1f}%); the report's split: command "
                    f"{sample.inside:.2f} s, jaxfix {sample.loop - sample.inside:.2f} s in the loop "
                    f"+ {sample.wall - sample.loop:.2f} s start-up and exit",
                    flush=True,
                )
        print(f"load average after: {load()}")
    for label, taken in samples.items():
        shares = sorted(s.share for s in taken)
        print(
            f"{label}: median overhead {statistics.median(shares):+.1f}% of the command's run time "
            f"(target: under 10%), rounds {shares[0]:+.1f}% .. {shares[-1]:+.1f}%; median "
            f"{statistics.median(s.overhead for s in taken):+.2f} s; in the loop "
            f"{statistics.median(s.loop - s.inside for s in taken):.2f} s, start-up and exit "
            f"{statistics.median(s.wall - s.loop for s in taken):.2f} s (medians); CPU overhead median "
            f"{statistics.median(s.cpu_share for s in taken):+.1f}%, rounds "
            f"{min(s.cpu_share for s in taken):+.1f}% .. {max(s.cpu_share for s in taken):+.1f}%"
        )


if __name__ == "__main__":
    main()
