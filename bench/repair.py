"""`jaxfix repair`'s own overhead: everything but the command's runs, against their time.

On a fresh copy of the test project (tests/repair_projects/trainer: JAX001, JAX002 and JAX003
at sites only a run can explain; one round of fixes makes its suite green), REPEAT times:

1. the command alone on the broken tree (`PYTHON -m pytest -q`, no jaxfix, no recorder);
2. `jaxfix repair --unsafe-fixes --format json -- PYTHON -m pytest -q`, in a new jaxfix process,
   timed from start to exit (start-up, the recorder, the evidence, the fixes, the writes);
3. the command alone on the repaired tree.

The overhead is (2) minus (1) + (3): all jaxfix adds to running the command twice, measured
against runs under the same load. The report's own split (its command runs vs the rest) is
printed too.

    python bench/repair.py --python .venv-next/bin/python --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
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


def timed(
    command: list[str], cwd: Path
) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=cwd, env=ENV, capture_output=True, text=True, check=False
    )
    return time.monotonic() - started, done


def one_round(python: str, scratch: Path) -> tuple[float, float, float, dict]:
    tree = Path(
        shutil.copytree(
            PROJECT, scratch / "trainer", ignore=shutil.ignore_patterns("__pycache__")
        )
    )
    suite = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    broken, done = timed(suite, tree)
    assert done.returncode == 1, done.stdout[-2000:]
    wall, done = timed(
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
    )
    report = json.loads(done.stdout)
    if not report["passed"]:
        raise SystemExit(f"the repair did not pass:\n{done.stderr[-3000:]}")
    fixed, done = timed(suite, tree)
    assert done.returncode == 0, done.stdout[-2000:]
    shutil.rmtree(tree)
    return broken + fixed, wall, report["command_seconds"], report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--python",
        default=str(ROOT / ".venv-next" / "bin" / "python"),
        help="the command's interpreter (with jax)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")
    shares = []
    with tempfile.TemporaryDirectory(prefix="jaxfix-bench-repair-") as scratch:
        for number in range(args.repeat):
            alone, wall, inside, report = one_round(args.python, Path(scratch))
            share = 100 * (wall - alone) / alone
            shares.append(share)
            print(
                f"round {number + 1}: the command alone, broken + fixed: {alone:.2f} s; jaxfix repair: {wall:.2f} s "
                f"({len(report['rounds'])} runs, {len(report['fixed'])} fixed) -> overhead {wall - alone:+.2f} s = {share:+.1f}%; "
                f"the report's split: command {inside:.2f} s, jaxfix {report['seconds'] - inside:.2f} s in the loop "
                f"+ {wall - report['seconds']:.2f} s start-up and exit",
                flush=True,
            )
    print(
        f"median overhead: {statistics.median(shares):+.1f}% of the command's run time (target: under 10%)"
    )
    print(f"load average after: {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
