"""Run two jaxfix checkouts on every fixture input and say, input by input, what changed.

    python scripts/compare_runs.py [--base REV|DIR] [--current REV|DIR] [--fixtures REV|DIR]
                                   [--only TEXT]... [--all] [--details] [--no-from-log]
                                   [--tree PATH]... [--jobs N] [--keep DIR]

A checkout is a directory holding `jaxfix/` (run as it is) or a git revision of this
repository (exported with `git archive` into a temporary directory). The base defaults to
`main`, the current one to this script's own working tree. The inputs are the fixtures of
`--fixtures` (default: the current checkout), copied outside the repository (no `.fixed`
files, no config above them): each case of `fixtures/<CODE>/` and `tests/rules/fixtures/<CODE>/`
(with `--rule-module`, each checkout its own copy of the rule), notebooks among them; each
project fixture and each `fixtures/engine/` tree as a whole; the `--from-log` projects
(`tests/from_log_projects/`, with a log made once by running them under real JAX).

Each checkout runs jaxfix's command line, `--format json --diff --unsafe-fixes --no-cache` and
the case's own options, once per batch (a directory's cases that share their options, or one
tree), every batch in one process per checkout (a rule module's in one of their own). An input
is `same` when every file's diagnostics (code, location, message, fix title and safety, related
places) and diff are. A changed one is `better` when it now gives what its fixture (or
fixtures/engine/EXPECT's target) says and did not, or only gains reports or fixes on a case
that raises; `worse` when it no longer gives what its fixture says, loses or changes a report
or a fix, gains an error, or changes at all on a must-not-change case; `reworded` when its
reports keep their code, place and fix in other words. Exit code 1 on any worse.
"""

from __future__ import annotations

import argparse
import difflib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = ("--format", "json", "--diff", "--unsafe-fixes", "--no-cache", "--jobs", "1")
TIMEOUT = 3600  # for one checkout's runs
DIFF_LINES = 14  # of a changed fix shown with --details

# -- what a run gave ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Diagnostic:
    code: str
    start: str  # `line:column`, `cell N:line:column` in a notebook
    end: str
    message: str
    fix: str  # `title (safety)`, "" without a fix
    related: str

    def __str__(self) -> str:
        fix = f" [{self.fix}]" if self.fix else ""
        return f"{self.code} {self.start} {self.message}{fix}"


@dataclass(frozen=True)
class FileOutcome:
    """One file of a run: its diagnostics in order, its diff (None: unchanged), its error."""

    diagnostics: tuple[Diagnostic, ...] = ()
    diff: str | None = None
    error: str | None = None


NOTHING = FileOutcome()


@dataclass(frozen=True)
class Outcome:
    """What one checkout gave on one input: its files (relative to the input) that have a
    diagnostic, a diff or an error; `failed` when the whole run gave no document."""

    files: Mapping[str, FileOutcome]
    failed: str | None = None
    scanned: int | None = None  # files the run checked, when the input is the whole run

    def file(self, path: str) -> FileOutcome:
        return self.files.get(path, NOTHING)

    def codes(self, path: str) -> list[str]:
        return [d.code for d in self.file(path).diagnostics]

    def changed(self) -> set[str]:
        return {p for p, f in self.files.items() if f.diff is not None}


def _place(position: Mapping[str, int]) -> str:
    cell = f"cell {position['cell']}:" if "cell" in position else ""
    return f"{cell}{position['line']}:{position['column']}"


def _diagnostic(found: Mapping) -> Diagnostic:
    fix = found.get("fix")
    return Diagnostic(
        found["code"],
        _place(found["start"]),
        _place(found["end"]),
        found["message"],
        f"{fix['title']} ({fix['safety']})" if fix else "",
        json.dumps(found.get("related", []), sort_keys=True),
    )


def read_document(document: Mapping) -> dict[str, FileOutcome]:
    """The files of a `--format json` document, by path as printed (relative to the cwd)."""
    files = {}
    for found in document["files"]:
        error = found.get("error")
        files[found["path"]] = FileOutcome(
            tuple(_diagnostic(d) for d in found["diagnostics"]),
            found.get("diff"),
            error and error["message"],
        )
    return files


# -- what the fixtures say ----------------------------------------------------------------------


def _text(source: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return source.decode(encoding, "replace")


_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+$", text)  # as git splits them: \n only


def patched(original: bytes, diff: str) -> str | None:
    """The text `diff` (a unified diff of jaxfix's) makes of `original`; None when it does
    not apply."""
    old, out, at = _lines(_text(original)), [], 0
    old_left = new_left = 0  # of the hunk being read
    kind = ""  # of the hunk's line read last
    for line in _lines(diff):
        if line.startswith("\\"):  # "\ No newline at end of file" for the line before
            if kind == "+":
                out[-1] = out[-1].removesuffix("\n")
            continue
        if not old_left and not new_left:
            hunk = _HUNK.match(line)
            if hunk:  # else a file's header
                start = int(hunk[1]) - (hunk[2] != "0")
                if start < at:
                    return None
                out, at = out + old[at:start], start
                old_left, new_left = int(hunk[2] or 1), int(hunk[3] or 1)
            continue
        kind, text = line[:1], line[1:]
        if kind in (" ", "-"):
            if at >= len(old) or old[at].rstrip("\n") != text.rstrip("\n"):
                return None
            if kind == " ":
                out.append(old[at])
                new_left -= 1
            at, old_left = at + 1, old_left - 1
        elif kind == "+":
            out.append(text)
            new_left -= 1
        else:
            return None
    return None if old_left or new_left else "".join(out + old[at:])


@dataclass(frozen=True)
class Spec:
    """What the input's fixture says jaxfix gives on it.

    `fixed`: the files the fix changes and their expected text (every other file stays);
    `codes`: exact codes by file where the fixture lists them; `reported`: (file or "", code)
    pairs that must be reported ("": in any file) and `quiet` codes that must not be;
    `raises`: the code raises, so a new report or fix is a gain."""

    fixed: Mapping[str, bytes] = field(default_factory=dict)
    codes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    reported: frozenset[tuple[str, str]] = frozenset()
    quiet: frozenset[str] = frozenset()
    raises: bool = False
    originals: Mapping[str, bytes] = field(default_factory=dict)

    def fixed_as_said(self, path: str, diff: str | None) -> bool:
        """Whether `diff` makes of `path` what the fixture says (a notebook's diff is per
        cell: only that it changes is checked)."""
        if path not in self.fixed or diff is None:
            return False
        if path.endswith(".ipynb"):
            return True
        return patched(self.originals[path], diff) == _text(self.fixed[path])

    def matches(self, outcome: Outcome) -> bool:
        if outcome.failed or any(f.error for f in outcome.files.values()):
            return False
        if outcome.changed() != set(self.fixed):
            return False
        if not all(self.fixed_as_said(p, outcome.file(p).diff) for p in self.fixed):
            return False
        if any(tuple(outcome.codes(p)) != codes for p, codes in self.codes.items()):
            return False
        every = {d.code for f in outcome.files.values() for d in f.diagnostics}
        for path, code in self.reported:
            if code not in (outcome.codes(path) if path else every):
                return False
        return not (self.quiet & every)


@dataclass(frozen=True)
class Input:
    """One thing compared: its name, its files' directory (relative to the inputs' copy; a
    single case's is its directory, `entry` set), and what its fixture says."""

    name: str
    where: str
    spec: Spec
    entry: str | None = None  # a single case file: the only file of the input


@dataclass(frozen=True)
class Batch:
    """One jaxfix run per checkout: the options, the paths given (relative to the inputs'
    copy), the inputs it answers for, and a rule module (relative to a checkout) if any."""

    options: tuple[str, ...]
    paths: tuple[str, ...]
    inputs: tuple[Input, ...]
    rule_module: str | None = None
    log: str | None = None  # --from-log: the log's path in the inputs' copy
    cwd: str | None = None  # a tree of elsewhere (--tree), run from its own directory


def _raises(header: Mapping[str, str], fixed: object) -> bool:
    return fixed is not None or header.get("raises", "none") != "none"


def _options(args: Iterable[str]) -> tuple[str, ...]:
    """A case's command-line options, without `--rule-module` (each checkout has its own) and
    with `--unsafe-fixes` once."""
    args, kept = list(args), []
    while args:
        arg = args.pop(0)
        if arg == "--rule-module":
            args.pop(0)
        elif arg != "--unsafe-fixes":
            kept.append(arg)
    return tuple(kept)


def _ignore_fixed(directory: str, names: list[str]) -> list[str]:
    return [
        n
        for n in names
        if n.endswith((".fixed.py", ".fixed.ipynb"))
        or n.startswith(".")
        or n in ("__pycache__", "README.md", "EXPECT")
    ]


def _cases(current: Path) -> tuple[list, list, Callable[[Path], dict[str, str]]]:
    """The fixture cases and engine trees of checkout `current`, read by its own tests'
    readers (fixtures/README.md and fixtures/engine/README.md say what they hold)."""
    sys.path[:0] = [str(current), str(current / "tests")]
    try:
        from engine_cases import all_engine_cases
        from fixture_cases import all_cases, read_header

        return all_cases(), all_engine_cases(), read_header
    finally:
        del sys.path[:2]


def collect(current: Path, inputs: Path, from_log: bool) -> list[Batch]:
    """Copy the fixtures of checkout `current` into `inputs`, grouped into batches."""
    cases, trees, read_header = _cases(current)
    batches: list[Batch] = []
    copied: set[Path] = set()
    singles: dict[tuple[tuple[str, ...], str | None, str], list[Input]] = {}
    for case in cases:
        module = case.rule_module and str(case.rule_module.relative_to(current))
        directory = (case.project or case.before).parent.relative_to(current)
        if directory not in copied:
            shutil.copytree(
                current / directory, inputs / directory, ignore=_ignore_fixed
            )
            copied.add(directory)
        entry = case.before.relative_to(case.project or case.before.parent).as_posix()
        original = case.before.read_bytes()
        spec = Spec(
            fixed={entry: case.fixed.read_bytes()} if case.fixed else {},
            codes={entry: tuple(case.expected_codes)},
            raises=_raises(case.header, case.fixed),
            originals={entry: original},
        )
        if case.project:
            where = case.project.relative_to(current).as_posix()
            batches.append(
                Batch(
                    _options(case.cli_args),
                    (where,),
                    (Input(case.id, where, spec),),
                    module,
                )
            )
        else:
            key = (_options(case.cli_args), module, directory.as_posix())
            singles.setdefault(key, []).append(
                Input(case.id, directory.as_posix(), spec, entry)
            )
    for (options, module, directory), found in singles.items():
        paths = tuple(f"{directory}/{i.entry}" for i in found)
        batches.append(Batch(options, paths, tuple(found), module))
    for tree in trees:
        where = tree.tree.relative_to(current).as_posix()
        shutil.copytree(tree.tree, inputs / where, ignore=_ignore_fixed)
        fixed = {
            m.relative_to(tree.tree).as_posix(): f.read_bytes()
            for m, f in tree.fixed.items()
        }
        spec = Spec(
            fixed=fixed,
            reported=frozenset({("", tree.rule)})
            if tree.target != "unchanged"
            else frozenset(),
            quiet=frozenset({tree.rule}) if tree.target == "unchanged" else frozenset(),
            raises=tree.target != "unchanged",
            originals={p: (tree.tree / p).read_bytes() for p in fixed},
        )
        batches.append(
            Batch(
                _options(tree.cli_args),
                (where,),
                (Input(f"engine/{tree.name}", where, spec),),
            )
        )
    if from_log:
        batches.append(_from_log_batch(current, inputs, read_header))
    return batches


FROM_LOG = Path("tests") / "from_log_projects"


def _from_log_batch(
    current: Path, inputs: Path, read_header: Callable[[Path], dict[str, str]]
) -> Batch:
    """The --from-log projects: one input each, one run over all of them, as the suite runs."""
    shutil.copytree(current / FROM_LOG, inputs / FROM_LOG, ignore=_ignore_fixed)
    found = []
    for project in sorted(p for p in (current / FROM_LOG).iterdir() if p.is_dir()):
        if project.name.startswith((".", "__")):
            continue
        fixed = {
            f.with_name(f.name.replace(".fixed.py", ".py"))
            .relative_to(project)
            .as_posix(): f.read_bytes()
            for f in sorted(project.rglob("*.fixed.py"))
        }
        headers = {
            entry.relative_to(project).as_posix(): read_header(entry)
            for entry in project.glob("run_*.py")
            if not entry.name.endswith(".fixed.py")
        }
        reported = {(p, h["code"]) for p, h in headers.items() if "report" in h}
        spec = Spec(
            fixed=fixed,
            reported=frozenset(reported),
            raises=True,
            originals={p: (project / p).read_bytes() for p in fixed},
        )
        where = (FROM_LOG / project.name).as_posix()
        found.append(Input(f"from-log/{project.name}", where, spec))
    return Batch((), (FROM_LOG.as_posix(),), tuple(found), log="from-log.txt")


def make_log(current: Path, inputs: Path, python: str) -> None:
    """Run the --from-log programs under real JAX (the suite's runner); their tracebacks are
    the log both checkouts read."""
    programs = sorted(
        str(p.relative_to(inputs))
        for p in (inputs / FROM_LOG).glob("*/run_*.py")
        if not p.name.endswith(".fixed.py")
    )
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
        "JAX_PLATFORMS": "cpu",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    done = subprocess.run(
        [python, str(current / "tests" / "from_log_runner.py"), *programs],
        cwd=inputs,
        capture_output=True,
        env=env,
        timeout=TIMEOUT,
    )
    results = json.loads(done.stdout or b"{}").get("results", {})
    if len(results) != len(programs) or not all(r["error"] for r in results.values()):
        raise SystemExit(
            "the --from-log programs did not all raise under real JAX:\n"
            + done.stderr[-2000:].decode(errors="replace")
        )
    (inputs / "from-log.txt").write_bytes(done.stderr)


# -- running the checkouts ----------------------------------------------------------------------


def checkout(spec: str, where: Path) -> Path:
    """A directory holding jaxfix: `spec` itself, or revision `spec` of this repository."""
    if (Path(spec) / "jaxfix" / "__init__.py").is_file():
        return Path(spec).resolve()
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{spec}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if commit.returncode:
        raise SystemExit(f"{spec}: neither a jaxfix checkout nor a revision of {ROOT}")
    where.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit.stdout.strip()],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive.stdout, check=True)
    return where.resolve()


def _arguments(tree: Path, batch: Batch) -> list[str]:
    args = [*RUN, *batch.options]
    if batch.rule_module:
        args += ["--rule-module", str(tree / batch.rule_module)]
    if batch.log:
        args += ["--from-log", batch.log]
    return [*args, "--", *batch.paths]


def run_batches(
    python: str, tree: Path, inputs: Path, batches: list[Batch]
) -> tuple[dict[str, Outcome], float]:
    """One process of checkout `tree` runs jaxfix's command line on each batch in turn (as
    the suite's tests do, in process: a process per batch would spend most of its time
    importing): each input's outcome, and the time the runs took."""
    jobs = json.dumps([[b.cwd or str(inputs), _arguments(tree, b)] for b in batches])
    done = subprocess.run(
        [python, str(Path(__file__).resolve()), "--worker"],
        input=jobs.encode(),
        cwd=inputs,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(tree)},
        timeout=TIMEOUT,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    outcomes, spent = {}, 0.0
    for position, batch in enumerate(batches):
        if position < len(answers):
            answer = answers[position]
            spent += answer["seconds"]
            if answer["jaxfix"] != str(tree / "jaxfix" / "__init__.py"):
                raise SystemExit(f"{tree}: the worker ran {answer['jaxfix']}")
        else:
            tail = done.stderr[-600:].decode(errors="replace")
            answer = {"stdout": "", "stderr": f"the worker ended: {tail}"}
        outcomes.update(_outcomes(batch, answer))
    return outcomes, spent


def _outcomes(batch: Batch, answer: Mapping[str, str]) -> dict[str, Outcome]:
    """Each input's part of one run's document (or the run's failure)."""
    try:
        document = json.loads(answer["stdout"])
        files, failed = read_document(document), None
        scanned = document["summary"]["files_scanned"]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        files = {}
        stderr = answer["stderr"][-600:].strip().replace("\n", " | ")
        failed = f"no report ({type(error).__name__}): {stderr}"
        scanned = None
    outcomes = {}
    for found in batch.inputs:
        if found.entry is not None:
            path = f"{found.where}/{found.entry}"
            mine = {found.entry: files[path]} if path in files else {}
        else:
            prefix = found.where + "/" if found.where else ""
            mine = {
                p.removeprefix(prefix): f
                for p, f in files.items()
                if p.startswith(prefix)
            }
        whole = len(batch.inputs) == 1 and found.entry is None
        outcomes[found.name] = Outcome(mine, failed, scanned if whole else None)
    return outcomes


def worker() -> None:
    """Run jaxfix's command line (the checkout on PYTHONPATH) on each argument list read
    from stdin, in this process; one JSON line of output per run."""
    from click.testing import CliRunner

    import jaxfix
    from jaxfix.cli.main import cli

    for cwd, args in json.load(sys.stdin):
        started = time.monotonic()
        os.chdir(cwd)
        result = CliRunner().invoke(cli, args)
        stderr = result.stderr
        if result.exception and not isinstance(result.exception, SystemExit):
            stderr += f"{type(result.exception).__name__}: {result.exception}"
        answer = {
            "stdout": result.stdout,
            "stderr": stderr,
            "seconds": time.monotonic() - started,
            "jaxfix": jaxfix.__file__,
        }
        print(json.dumps(answer), flush=True)


# -- comparing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    verdict: str  # same, better, reworded, worse
    why: str
    details: tuple[str, ...] = ()


def _lost(
    before: Iterable[Diagnostic], after: Iterable[Diagnostic]
) -> list[Diagnostic]:
    left = Counter(after)
    lost = []
    for diagnostic in before:
        if left[diagnostic]:
            left[diagnostic] -= 1
        else:
            lost.append(diagnostic)
    return lost


@dataclass(frozen=True)
class Changes:
    """What differs, file by file (`-` lost, `+` gained, `~` reworded or a diff, `!` an
    error); whether anything of the base's was lost or changed, anything gained, and
    whether a report kept its code, place and fix but not its words (message, related)."""

    details: tuple[str, ...]
    lost: bool
    gained: bool
    reworded: bool


def _place_and_fix(diagnostic: Diagnostic) -> tuple[str, str, str, str]:
    return diagnostic.code, diagnostic.start, diagnostic.end, diagnostic.fix


def _changes(base: Outcome, current: Outcome) -> Changes:
    details: list[str] = []
    lost = gained = reworded = False
    for path in sorted(set(base.files) | set(current.files)):
        old, new = base.file(path), current.file(path)
        went = _lost(old.diagnostics, new.diagnostics)
        came = _lost(new.diagnostics, old.diagnostics)
        for before in list(went):
            after = next(
                (d for d in came if _place_and_fix(d) == _place_and_fix(before)), None
            )
            if after is not None:
                went.remove(before)
                came.remove(after)
                details += [f"~ {path}: {before}", f"  {'':>{len(path)}}  {after}"]
                reworded = True
        details += [f"- {path}: {diagnostic}" for diagnostic in went]
        details += [f"+ {path}: {diagnostic}" for diagnostic in came]
        lost, gained = lost or bool(went), gained or bool(came)
        if old.diff != new.diff:
            lost = lost or old.diff is not None
            gained = gained or new.diff is not None
            if old.diff is None or new.diff is None:
                details.append(
                    f"~ {path}: {'new fix' if old.diff is None else 'fix lost'}"
                )
            else:
                details.append(
                    f"~ {path}: the fixed output differs (diff of the diffs):"
                )
                lines = difflib.unified_diff(
                    old.diff.splitlines(), new.diff.splitlines(), lineterm="", n=0
                )
                details += [f"    {line}" for line in list(lines)[2:DIFF_LINES]]
        if old.error != new.error:
            lost = lost or new.error is not None
            details.append(f"! {path}: error {old.error!r} -> {new.error!r}")
    if base.scanned != current.scanned:
        lost = lost or (current.scanned or 0) < (base.scanned or 0)
        details.append(f"! files checked: {base.scanned} -> {current.scanned}")
    if base.failed != current.failed:
        details.append(f"! the run: {base.failed!r} -> {current.failed!r}")
    return Changes(tuple(details), lost, gained, reworded)


def compare(found: Input, base: Outcome, current: Outcome) -> Row:
    if base == current:
        return Row(found.name, "same", "")
    changes = _changes(base, current)
    spec = found.spec
    was, now = spec.matches(base), spec.matches(current)
    wrong = [  # new fixes of a case whose fixture says what its fixes are
        path
        for path, outcome in current.files.items()
        if outcome.diff not in (None, base.file(path).diff)
        and spec.fixed
        and not spec.fixed_as_said(path, outcome.diff)
    ]
    if current.failed and not base.failed:
        verdict, why = "worse", "the run failed"
    elif now and not was:
        verdict, why = "better", "now as its fixture says"
    elif changes.lost:
        verdict = "worse"
        why = (
            "no longer as its fixture says"
            if was and not now
            else "a report or fix lost"
        )
    elif not changes.gained and changes.reworded:
        verdict, why = (
            "reworded",
            "the same reports and fixes in other words: read them",
        )
    elif not changes.gained:
        verdict, why = "better", "an error went"
    elif not spec.raises:
        verdict, why = "worse", "a change on a must-not-change case"
    elif wrong:
        verdict, why = "worse", f"a fix other than its fixture's: {', '.join(wrong)}"
    else:
        verdict, why = "better", "new reports or fixes on a case that raises"
        if was:
            why += " (its fixture says otherwise: update it)"
    if changes.reworded and verdict == "better":
        why += "; some reported in other words"
    return Row(found.name, verdict, why, changes.details)


ORDER = {"worse": 0, "reworded": 1, "better": 2, "same": 3}


def table(rows: list[Row], every: bool, details: bool) -> str:
    shown = sorted(
        (r for r in rows if every or r.verdict != "same"),
        key=lambda r: (ORDER[r.verdict], r.name),
    )
    width = max((len(r.name) for r in shown), default=5)
    lines = [f"{'input':<{width}}  verdict   why", f"{'-' * width}  --------  ---"]
    for row in shown:
        lines.append(f"{row.name:<{width}}  {row.verdict:<8}  {row.why}")
        if details:
            lines += [f"{'':<{width}}    {line}" for line in row.details]
    counts = Counter(r.verdict for r in rows)
    lines.append(
        f"{len(rows)} inputs: {counts['same']} same, {counts['better']} better,"
        f" {counts['reworded']} reworded, {counts['worse']} worse"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="revision or directory (main)")
    parser.add_argument(
        "--current", default=str(ROOT), help="revision or directory (this tree)"
    )
    parser.add_argument(
        "--fixtures", help="revision or directory whose fixtures are run (--current)"
    )
    parser.add_argument("--python", default=sys.executable, help="runs jaxfix")
    parser.add_argument(
        "--jax-python", default=sys.executable, help="runs the --from-log programs"
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes at a time")
    parser.add_argument(
        "--only", action="append", default=[], help="inputs whose name contains this"
    )
    parser.add_argument("--all", action="store_true", help="list the same ones too")
    parser.add_argument(
        "--details", action="store_true", help="what changed in each changed input"
    )
    parser.add_argument("--no-from-log", action="store_true")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        type=Path,
        help="also a tree of elsewhere (no fixture: any change is worse)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--keep", type=Path, help="make the copies here and keep them")
    args = parser.parse_args(argv)
    if args.worker:
        worker()
        return 0
    with tempfile.TemporaryDirectory(prefix="compare-runs-") as scratch:
        work = args.keep.resolve() if args.keep else Path(scratch)
        trees = {
            "base": checkout(args.base, work / "base"),
            "current": checkout(args.current, work / "current"),
        }
        inputs = work / "inputs"
        fixtures = (
            checkout(args.fixtures, work / "fixtures")
            if args.fixtures
            else trees["current"]
        )
        batches = collect(fixtures, inputs, not args.no_from_log)
        batches += [  # nothing written there: --diff, --no-cache
            Batch(
                (), (".",), (Input(f"tree/{t.name}", "", Spec()),), cwd=str(t.resolve())
            )
            for t in args.tree
        ]
        if args.only:
            batches = [b for b in map(partial(_narrowed, args.only), batches) if b]
        if any(b.log for b in batches):
            make_log(fixtures, inputs, args.jax_python)
        started = time.monotonic()
        groups: dict[str | None, list[Batch]] = {}
        for batch in batches:  # a rule module's runs in a process of their own
            groups.setdefault(batch.rule_module, []).append(batch)
        jobs = [(name, group) for group in groups.values() for name in trees]
        with ThreadPoolExecutor(args.jobs) as pool:
            done = list(
                pool.map(
                    lambda job: run_batches(args.python, trees[job[0]], inputs, job[1]),
                    jobs,
                )
            )
        outcomes: dict[str, dict[str, Outcome]] = {name: {} for name in trees}
        spent = Counter[str]()
        for (name, _), (found, elapsed) in zip(jobs, done):
            outcomes[name].update(found)
            spent[name] += elapsed
        every = [i for b in batches for i in b.inputs]
        rows = [
            compare(i, outcomes["base"][i.name], outcomes["current"][i.name])
            for i in every
        ]
        rows = [  # a fixture the current tree changed: say so beside its verdict
            replace(r, why=f"{r.why}; its fixture differs from the base's")
            if r.verdict != "same"
            and i.where
            and _fixture(fixtures, i) != _fixture(trees["base"], i)
            else r
            for r, i in zip(rows, every, strict=True)
        ]
        unlike = {  # the inputs not as their fixtures say, by checkout
            name: sorted(i.name for i in every if not i.spec.matches(found[i.name]))
            for name, found in outcomes.items()
        }
    sys.stdout.write(table(rows, args.all, args.details))
    for name, found in outcomes.items():
        files = [f for o in found.values() for f in o.files.values()]
        print(
            f"{name}: {sum(len(f.diagnostics) for f in files)} diagnostics,"
            f" {sum(f.diff is not None for f in files)} diffs,"
            f" {sum(f.error is not None for f in files)} files in error,"
            f" {sum(o.failed is not None for o in found.values())} inputs without a report,"
            f" {len(every) - len(unlike[name])} as their fixtures say;"
            f" {spent[name]:.0f} s in its processes",
            file=sys.stderr,
        )
    if args.details:  # what neither gives as its fixture says: EXPECT's misses, mostly
        for name, other in (("base", "current"), ("current", "base")):
            only = sorted(set(unlike[name]) - set(unlike[other]))
            print(f"not as their fixtures say, {name} only: {only}", file=sys.stderr)
    print(
        f"{len(batches)} batches, wall {time.monotonic() - started:.0f} s",
        file=sys.stderr,
    )
    return 1 if any(r.verdict == "worse" for r in rows) else 0


def _fixture(tree: Path, found: Input) -> dict[str, bytes]:
    """The files that make the input's fixture in checkout `tree`, by path."""
    where = tree / found.where
    if found.entry is not None:
        entry = Path(found.entry)
        paths = [where / entry, where / f"{entry.stem}.fixed{entry.suffix}"]
    else:
        paths = [p for p in where.rglob("*") if "__pycache__" not in p.parts]
    return {
        str(p.relative_to(tree)): p.read_bytes() for p in sorted(paths) if p.is_file()
    }


def _narrowed(only: list[str], batch: Batch) -> Batch | None:
    """The batch's inputs whose name holds one of `only` (single cases: only their paths)."""
    kept = tuple(i for i in batch.inputs if any(o in i.name for o in only))
    if not kept:
        return None
    if all(i.entry is not None for i in kept):
        return replace(
            batch, inputs=kept, paths=tuple(f"{i.where}/{i.entry}" for i in kept)
        )
    return replace(batch, inputs=kept)


if __name__ == "__main__":
    sys.exit(main())
