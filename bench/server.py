"""Time `jaxfix server`'s start-up against the CLI's cold run on the same file, side by side.

    python bench/server.py                           # the JAX clone at /work/clones/jax if there is one
    python bench/server.py --workspace ~/src/jax --repeat 5

Each round, in turn (round-robin, a fresh process each time):
- `jaxfix --check --no-cache FILE` (wall time, launch to exit);
- `jaxfix server` started by pygls' LanguageClient with the workspace folder as its root: the
  time from launch to the `initialize` response, and to the first `publishDiagnostics` of FILE
  (opened right after `initialized`), its cache directory emptied before each round.

FILE is 2,000 lines: a JAX001 fixture's body, then ordinary JAX code (bench/make_corpus.py's
filler), in a temporary directory, so both commands parse and analyse all of it.
Prints a Markdown report.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from make_corpus import filler
from run import Sample, machine, run_once, timing_env, tool

FIXTURE = ROOT / "fixtures" / "JAX001" / "bare_jit_decorator_lower.py"
DEFAULT_WORKSPACE = Path("/work/clones/jax")


def write_file(directory: Path, lines: int) -> Path:
    """`lines` lines exactly: the fixture's body, the filler's whole blocks, comment lines to pad."""
    body = "".join(
        line
        for line in FIXTURE.read_text().splitlines(keepends=True)
        if not line.startswith("#")
    )
    target = lines - body.count("\n") - 2
    while (text := body + "\n\n" + filler(random.Random(0), target)).count(
        "\n"
    ) > lines:
        target -= 10
    text += "# padding\n" * (lines - text.count("\n"))
    path = directory / f"module_{lines}.py"
    path.write_text(text, encoding="utf-8")
    return path


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User + system CPU time a running process has used so far, and that of its children (the
    analysis process), read from /proc since none of them has exited yet."""
    tick = os.sysconf("SC_CLK_TCK")
    own = children = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used = (int(fields[11]) + int(fields[12])) / tick
        if int(stat.parent.name) == pid:
            own += used
        elif int(fields[1]) == pid:  # fields[1]: the parent's pid
            children += used
    return own, children


@dataclass(frozen=True)
class Round:
    initialized: float  # seconds from launch to the `initialize` response
    initialized_cpu: (
        float  # CPU seconds the server had used by then (not its analysis process)
    )
    diagnosed: float  # seconds from launch to the first diagnostics
    diagnosed_cpu: float  # CPU seconds of the server and its analysis process by then
    analysis_cpu: (
        float  # of those, the analysis process's: the part the CLI's run compares to
    )


async def server_round(
    command: list[str], workspace: Path, path: Path, env: dict[str, str]
) -> Round:
    from lsprotocol import types as t
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    arrived: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    @client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: t.PublishDiagnosticsParams) -> None:
        if params.diagnostics and not arrived.done():
            arrived.set_result(time.perf_counter())

    start = time.perf_counter()
    await client.start_io(*command, env=env, cwd=str(workspace))
    assert client._server is not None
    pid = client._server.pid
    await client.initialize_async(
        t.InitializeParams(
            capabilities=t.ClientCapabilities(),
            root_uri=workspace.as_uri(),
            workspace_folders=[t.WorkspaceFolder(workspace.as_uri(), workspace.name)],
        )
    )
    initialized, initialized_cpu = time.perf_counter() - start, cpu_seconds(pid)[0]
    client.initialized(t.InitializedParams())
    client.text_document_did_open(
        t.DidOpenTextDocumentParams(
            t.TextDocumentItem(path.as_uri(), "python", 1, path.read_text())
        )
    )
    first = await asyncio.wait_for(arrived, 300) - start
    own, analysis = cpu_seconds(pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return Round(initialized, initialized_cpu, first, own + analysis, analysis)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--workspace",
        type=Path,
        default=DEFAULT_WORKSPACE if DEFAULT_WORKSPACE.is_dir() else None,
        help="the workspace folder the server is started in (default: the JAX clone, else a temp dir)",
    )
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    jaxfix = tool("jaxfix")
    if jaxfix is None:
        sys.exit("jaxfix is not installed beside this Python")
    env = timing_env()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        path = write_file(directory, args.lines)
        workspace = args.workspace or directory
        cli: list[Sample] = []
        rounds: list[Round] = []
        for _ in range(args.repeat):
            cli.append(
                run_once([jaxfix, "--check", "--no-cache", "-q", str(path)], env)
            )
            shutil.rmtree(directory / ".jaxfix_cache", ignore_errors=True)
            rounds.append(
                asyncio.run(server_round([jaxfix, "server"], workspace, path, env))
            )
        lines = path.read_text().count("\n")
    median = statistics.median
    cold, cold_cpu = median(s.wall for s in cli), median(s.cpu for s in cli)
    rows = [
        (
            "`jaxfix --check --no-cache FILE` (cold CLI, launch to exit)",
            [s.wall for s in cli],
            [s.cpu for s in cli],
        ),
        (
            "`jaxfix server`: launch to the `initialize` response (CPU: the server's own)",
            [r.initialized for r in rounds],
            [r.initialized_cpu for r in rounds],
        ),
        (
            "`jaxfix server`: launch to FILE's first diagnostics (CPU: with its analysis process)",
            [r.diagnosed for r in rounds],
            [r.diagnosed_cpu for r in rounds],
        ),
        (
            "&nbsp;&nbsp;of which the analysis process alone (it runs beside the server, not after it)",
            None,
            [r.analysis_cpu for r in rounds],
        ),
    ]
    print(f"jaxfix server start-up: {machine()}")
    print(
        f"workspace {workspace} ({'the JAX clone' if workspace == DEFAULT_WORKSPACE else 'scratch'}); FILE: {lines:,} lines; "
        f"{args.repeat} rounds, round-robin\n"
    )
    print(
        "| what | median wall (s) | fastest (s) | slowest (s) | wall / cold CLI | median CPU (s) | CPU / cold CLI |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, walls, cpus in rows:
        wall = (
            "| | | |"
            if walls is None
            else (
                f"| {median(walls):.3f} | {min(walls):.3f} | {max(walls):.3f} | {median(walls) / cold:.2f}x |"
            )
        )
        print(f"| {name} {wall} {median(cpus):.3f} | {median(cpus) / cold_cpu:.2f}x |")
    print()
    init = median(r.initialized for r in rounds)
    first = median(r.diagnosed for r in rounds)
    print(
        f"- `initialize` within 1 s: {'met' if init < 1 else 'NOT met'} (median {init:.3f} s)"
    )
    print(
        f"- first diagnostics within the cold CLI + 10% ({cold * 1.1:.3f} s): {'met' if first <= cold * 1.1 else 'NOT met'} "
        f"(median {first:.3f} s)"
    )


if __name__ == "__main__":
    main()
