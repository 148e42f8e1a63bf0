"""Time `jaxfix --check` (cold and warm cache, and cold for earlier versions) against `ruff check
--select F401` (cold: `--no-cache`; warm: its own cache) on the same tree, side by side, and
print a Markdown report; then the same on a JAX clone, when there is one.

    python bench/run.py                        # a generated corpus (see make_corpus.py) in a temp dir
    python bench/run.py /path/to/jax           # any directory
    python bench/run.py --files 1000 --lines 300 --candidates 0.05 --repeat 5
    python bench/run.py --baseline-rev HEAD~1 --jax-clone ~/src/jax

Each command runs --repeat times in a fresh process, the commands taking turns; the report
gives the median and the fastest wall time, the median CPU time (user + system, workers
included) and the peak resident memory of the largest process of the command (ru_maxrss from
wait4, workers included).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

BENCH = Path(__file__).resolve().parent
RUFF = "`ruff check --isolated --select F401 --no-cache`"
COLD = "`jaxfix --check`, cold (empty cache dir)"
WARM = "`jaxfix --check`, warm cache"
COLD_ALL = "`jaxfix --check --select ALL`, cold (empty cache dir)"
WARM_ALL = "`jaxfix --check --select ALL`, warm cache"
PARSE_CANDIDATES = (
    "plain `libcst.parse_module`, prefilter's candidates only, one process"
)
RUFF_WARM = "`ruff check --isolated --select F401`, warm cache"
# ruff is timed without the tree's configuration (`--isolated`): a tree's own ruff settings
# (JAX's select dozens of rules) make a slower ruff, and a ratio only means something against
# one fixed comparison.
RUFF_CHECK = ["check", "--isolated", "--select", "F401"]
sys.path.insert(0, str(BENCH))

from make_corpus import write_corpus  # noqa: E402 - a sibling script, not a package

from jaxfix import __version__  # noqa: E402
from jaxfix.check.prefilter import is_candidate  # noqa: E402
from jaxfix.check.registry import selected_rules  # noqa: E402
from jaxfix.settings.options import Options  # noqa: E402
from jaxfix.sources.discovery import discover  # noqa: E402


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    max_rss_mb: float
    exit_code: int


@dataclass(frozen=True)
class Measurement:
    name: str
    samples: tuple[Sample, ...]

    @property
    def median_wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def median_cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)


def timing_env(**extra: str) -> dict[str, str]:
    """The environment jaxfix is timed in: Python writes and uses bytecode caches, as it does for
    an installed package. Inherited, PYTHONDONTWRITEBYTECODE would make every run of a checkout
    compile jaxfix's modules again (~30 ms, a tenth of a warm run) and time the compiler."""
    return {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        **extra,
    }


def run_once(command: list[str], env: dict[str, str] | None = None) -> Sample:
    """One run in a fresh process; rusage from wait4 covers the process and its waited-for workers."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return Sample(
        wall,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024,
        process.returncode,
    )


@dataclass(frozen=True)
class Command:
    name: str
    argv: list[str]
    runs: int
    before_each: Callable[[], None] | None = None
    env: dict[str, str] | None = None  # e.g. PYTHONPATH for a baseline checkout


def measure(commands: list[Command]) -> list[Measurement]:
    """Round-robin: each round runs every command once, so a burst of load elsewhere on the
    machine spreads over all commands instead of spoiling one."""
    samples: dict[str, list[Sample]] = {c.name: [] for c in commands}
    for round_number in range(max(c.runs for c in commands)):
        for command in commands:
            if round_number < command.runs:
                if command.before_each:
                    command.before_each()
                samples[command.name].append(run_once(command.argv, command.env))
    return [Measurement(c.name, tuple(samples[c.name])) for c in commands]


def tool(name: str) -> str | None:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def tree_stats(root: Path) -> dict[str, float]:
    files = discover([root]).files
    rules = selected_rules(Options())
    sources = [path.read_bytes() for path in files]
    candidates = [
        path for path, source in zip(files, sources) if is_candidate(source, rules)
    ]
    return {
        "files": len(files),
        "lines": sum(s.count(b"\n") for s in sources),
        "megabytes": sum(len(s) for s in sources) / 1e6,
        "candidates": len(candidates),
        "candidate_lines": sum(
            s.count(b"\n") for s in sources if is_candidate(s, rules)
        ),
        "file_list": files,
        "candidate_list": candidates,
    }


def machine() -> str:
    cpu = (
        next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            platform.processor(),
        )
        if Path("/proc/cpuinfo").exists()
        else platform.processor()
    )
    memory = ""
    if Path("/proc/meminfo").exists():
        total_kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {total_kb / 1024 / 1024:.0f} GB RAM"
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{cpu}, {os.cpu_count()} cores{memory}; {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}; load average before the run {load}"
    )


def versions(ruff: str | None) -> str:
    ruff_version = (
        subprocess.run(
            [ruff, "--version"], capture_output=True, text=True
        ).stdout.strip()
        if ruff
        else "ruff: not installed"
    )
    return f"jaxfix {__version__}, libcst {metadata.version('libcst')}, {ruff_version}"


def report(
    tree: str, stats: dict, results: list[Measurement], baseline: Measurement | None
) -> str:
    lines = [
        f"Tree: `{tree}`: {stats['files']} files, {stats['lines']:,} lines, {stats['megabytes']:.1f} MB; "
        f"{stats['candidates']} files ({100 * stats['candidates'] / max(stats['files'], 1):.1f}%, "
        f"{stats['candidate_lines']:,} lines) pass jaxfix's byte prefilter.",
        "",
        "| command | median wall (s) | fastest (s) | median CPU (s) | peak RSS (MB) | wall / ruff | exit |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for m in results:
        ratio = f"{m.median_wall / baseline.median_wall:.2f}x" if baseline else "-"
        lines.append(
            f"| {m.name} | {m.median_wall:.3f} | {min(s.wall for s in m.samples):.3f} | "
            f"{statistics.median(s.cpu for s in m.samples):.3f} | {max(s.max_rss_mb for s in m.samples):.0f} | "
            f"{ratio} | {','.join(sorted({str(s.exit_code) for s in m.samples}))} |"
        )
    return "\n".join(lines)


def export_revision(revision: str, work: Path) -> Path:
    """`git archive` of `revision` of this repository into a fresh directory: a baseline checkout
    run by the same interpreter and dependencies, with no chance of picking up edits."""
    out = work / f"baseline-{revision.replace('/', '_')}"
    out.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(BENCH.parent), "archive", revision],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def json_results(argv: list[str], tree: Path, env: dict[str, str] | None = None) -> str:
    """One run's results (`--format json`, nothing cached): its files and summary, not the rule
    metadata (a rule's prefilter tokens may change without changing any result)."""
    done = subprocess.run(
        [*argv, "--no-cache", "--format", "json", str(tree)],
        capture_output=True,
        text=True,
        env=env,
    )
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return done.stdout
    return json.dumps(
        {key: report.get(key) for key in ("files", "summary")}, sort_keys=True
    )


def bench_tree(
    tree: Path,
    tree_name: str,
    args: argparse.Namespace,
    work: Path,
    baselines: list[tuple[str, Path]],
) -> str:
    stats = tree_stats(tree)
    jaxfix_cmd = [
        tool("jaxfix") or sys.executable,
        *([] if tool("jaxfix") else ["-m", "jaxfix"]),
        "--check",
        "-q",
    ]
    if args.jobs:
        jaxfix_cmd += ["-j", str(args.jobs)]
    ruff = tool("ruff")
    commands = []
    if ruff:
        commands.append(
            Command(
                RUFF,
                [ruff, *RUFF_CHECK, "--no-cache", str(tree)],
                args.repeat,
            )
        )
        ruff_cache = work / "ruff-cache"
        run_once(
            [ruff, *RUFF_CHECK, "--cache-dir", str(ruff_cache), str(tree)],
            timing_env(),
        )  # fills ruff's cache
        commands.append(
            Command(
                RUFF_WARM,
                [ruff, *RUFF_CHECK, "--cache-dir", str(ruff_cache), str(tree)],
                args.repeat,
            )
        )
    else:
        print(
            "ruff not found: `pip install ruff` (or the project's `bench` extra) to compare",
            file=sys.stderr,
        )
    warm_dirs = []
    for warm, cold, selection in (
        (WARM, COLD, []),
        (WARM_ALL, COLD_ALL, ["--select", "ALL"]),
    ):
        cold_dir = work / ("cold-cache-all" if selection else "cold-cache")
        warm_dir = work / ("warm-cache-all" if selection else "warm-cache")
        warm_dirs.append((warm_dir, selection))
        commands += [
            Command(
                warm,
                [*jaxfix_cmd, *selection, "--cache-dir", str(warm_dir), str(tree)],
                args.repeat,
                env=timing_env(),
            ),
            Command(
                cold,
                [*jaxfix_cmd, *selection, "--cache-dir", str(cold_dir), str(tree)],
                args.repeat,
                before_each=lambda d=cold_dir: shutil.rmtree(d, ignore_errors=True),
                env=timing_env(),
            ),
        ]
    # -P: `python -m` would otherwise put the current directory (this checkout, when run from
    # the repository) ahead of PYTHONPATH, and time today's jaxfix as the "before".
    baseline_cmd = [
        sys.executable,
        "-P",
        "-m",
        "jaxfix",
        *jaxfix_cmd[jaxfix_cmd.index("--check") :],
    ]
    same_results = []
    for label, checkout in baselines:
        env = timing_env(PYTHONPATH=str(checkout.resolve()))
        for cold, selection in ((COLD, []), (COLD_ALL, ["--select", "ALL"])):
            baseline_cache = work / f"cold-cache-{len(commands)}"
            commands.append(
                Command(
                    f"{cold}, before: {label}",
                    [
                        *baseline_cmd,
                        *selection,
                        "--cache-dir",
                        str(baseline_cache),
                        str(tree),
                    ],
                    args.repeat,
                    before_each=lambda cache=baseline_cache: shutil.rmtree(
                        cache, ignore_errors=True
                    ),
                    env=env,
                )
            )
            same = json_results([*jaxfix_cmd, *selection], tree) == json_results(
                [*baseline_cmd, *selection], tree, env
            )
            named = f"{label}{' (--select ALL)' if selection else ''}"
            same_results.append(f"{named}: {'identical' if same else '**different**'}")
    if stats["candidates"]:
        candidate_list = work / "candidates.txt"
        candidate_list.write_text(
            "".join(f"{p}\n" for p in stats["candidate_list"]), encoding="utf-8"
        )
        parse = [sys.executable, str(BENCH / "parse_all.py"), str(candidate_list)]
        if args.parse_repeat:
            commands += [
                Command(PARSE_CANDIDATES, parse, args.parse_repeat),
                Command(
                    f"{PARSE_CANDIDATES} + `ScopeProvider`",
                    [*parse, "--scope"],
                    args.parse_repeat,
                ),
            ]
    if args.parse_repeat:
        file_list = work / "files.txt"
        file_list.write_text(
            "".join(f"{p}\n" for p in stats["file_list"]), encoding="utf-8"
        )
        commands.append(
            Command(
                "plain `libcst.parse_module`, every file, one process",
                [sys.executable, str(BENCH / "parse_all.py"), str(file_list)],
                args.parse_repeat,
            )
        )
    for warm_dir, selection in warm_dirs:
        shutil.rmtree(warm_dir, ignore_errors=True)
        run_once(
            [*jaxfix_cmd, *selection, "--cache-dir", str(warm_dir), str(tree)],
            timing_env(),
        )  # fills the warm cache (and bytecode)
    results = {m.name: m for m in measure(commands)}
    text = report(tree_name, stats, list(results.values()), results.get(RUFF))
    text += "\n\n" + summary(results, [label for label, _ in baselines])
    if same_results:
        text += f"\n\nResults (`--format json`, nothing cached) compared with {'; '.join(same_results)}."
    if (
        results[WARM].median_wall > 0.5 * results[COLD].median_wall
        and stats["candidates"]
    ):
        print(
            "\nwarning: the warm runs were hardly faster than the cold ones; was jaxfix's source edited during the "
            "run (that rightly invalidates the cache)?",
            file=sys.stderr,
        )
    return text


def summary(results: dict[str, Measurement], baselines: list[str]) -> str:
    """The ratios the targets are stated in: CPU time where the machine's load makes wall time noisy."""
    parts = []
    for label in baselines:
        for name, selection in ((COLD, ""), (COLD_ALL, ", --select ALL")):
            cold, before = results[name], results[f"{name}, before: {label}"]
            parts.append(
                f"cold now / before ({label}{selection}): "
                f"{cold.median_cpu / before.median_cpu:.2f}x CPU, "
                f"{cold.median_wall / before.median_wall:.2f}x wall"
            )
    for label, cold_name, warm_name in (
        ("", COLD, WARM),
        (" (--select ALL)", COLD_ALL, WARM_ALL),
    ):
        if RUFF in results:
            ruff, mine = results[RUFF], results[cold_name]
            parts.append(
                f"cold{label} / ruff cold: {mine.median_wall / ruff.median_wall:.2f}x wall, "
                f"{mine.median_cpu / ruff.median_cpu:.2f}x CPU"
            )
        if RUFF_WARM in results:
            parts.append(
                f"warm{label} / ruff warm: "
                f"{results[warm_name].median_wall / results[RUFF_WARM].median_wall:.2f}x wall"
            )
    return "Ratios (medians): " + "; ".join(parts) + "."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "directory",
        nargs="?",
        type=Path,
        help="tree to check (default: generate a corpus)",
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="runs per command (median reported)"
    )
    parser.add_argument(
        "--parse-repeat",
        type=int,
        default=0,
        help="runs of the extra plain-LibCST rows (parse, parse + stock ScopeProvider, parse every file); 0 skips them",
    )
    parser.add_argument(
        "--jobs", type=int, help="jaxfix -j (default: jaxfix's default, the CPU count)"
    )
    parser.add_argument(
        "--files", type=int, default=1000, help="generated corpus: number of files"
    )
    parser.add_argument(
        "--lines", type=int, default=300, help="generated corpus: mean lines per file"
    )
    parser.add_argument(
        "--candidates",
        type=float,
        default=0.05,
        help="generated corpus: fraction with rule tokens",
    )
    parser.add_argument(
        "--violations",
        type=float,
        default=0.03,
        help="generated corpus: fraction with violations",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--baseline",
        type=Path,
        action="append",
        default=[],
        help="a jaxfix checkout (e.g. a git worktree of an older commit) whose cold run is timed "
        "in the same rounds, for a before/after comparison (repeatable)",
    )
    parser.add_argument(
        "--baseline-rev",
        action="append",
        default=[],
        help="a commit of this repository to compare with, exported by `git archive` (repeatable)",
    )
    parser.add_argument(
        "--jax-clone",
        type=Path,
        default=os.environ.get("JAXFIX_BENCH_JAX_CLONE"),
        help="a clone of the JAX repository, benchmarked after the main tree when present "
        "(default: $JAXFIX_BENCH_JAX_CLONE)",
    )
    args = parser.parse_args()

    header = f"Machine: {machine()}"
    work = Path(tempfile.mkdtemp(prefix="jaxfix-bench-"))
    try:
        baselines = [(str(path), path) for path in args.baseline]
        baselines += [
            (f"`{rev}`", export_revision(rev, work)) for rev in args.baseline_rev
        ]
        tree = args.directory
        if tree is None:
            tree = work / "corpus"
            write_corpus(
                tree,
                args.files,
                args.lines,
                args.candidates,
                args.violations,
                args.seed,
            )
            tree_name = (
                f"generated: --files {args.files} --lines {args.lines} --candidates {args.candidates} "
                f"--violations {args.violations} --seed {args.seed}"
            )
        else:
            tree_name = str(tree)
        sections = [bench_tree(tree, tree_name, args, work, baselines)]
        if args.jax_clone is not None and args.jax_clone.is_dir():
            sections.append(
                bench_tree(
                    args.jax_clone,
                    f"{args.jax_clone} (a JAX clone)",
                    args,
                    work,
                    baselines,
                )
            )
        else:
            sections.append(
                f"JAX clone: skipped (none at `{args.jax_clone}`; pass --jax-clone or set $JAXFIX_BENCH_JAX_CLONE)."
            )
        after = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"{header}, after it {after}\n\nVersions: {versions(tool('ruff'))}\n\n"
            + "\n\n".join(sections)
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
