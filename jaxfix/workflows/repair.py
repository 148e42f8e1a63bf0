"""`jaxfix repair`: run the user's command with the recorder, fix the sites its run shows raising
JAX001-JAX003 (confirmed mode, the rules' own fixes, the safe writes), run it again; until it
passes, a round brings nothing new to fix, or the rounds run out.

`repair(paths, command, run, settings)` is the loop, for the CLI and for `migrate`: it
prints nothing (`on_round` hears of each round) and returns a `RepairReport`. jaxfix never
runs anything but the command it was given; the command's output goes to a file in the
recording directory (its tail is kept for failures jaxfix cannot explain).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jaxfix.check.registry import codes_range
from jaxfix.check.run import Run
from jaxfix.evidence.facts import Evidence
from jaxfix.evidence.recording import RecordingDir
from jaxfix.ground.diagnostics import Diagnostic, FileResult
from jaxfix.ground.interrupts import start_without_signals
from jaxfix.settings.options import ALL, Options
from jaxfix.sources.discovery import discover
from jaxfix.sources.file_io import ReadError, read_regular, undo_written, write_fix
from jaxfix.sources.paths import display_path
from jaxfix.workflows.process import CommandRun, run_command
from jaxfix.workflows.repair_guard import (
    WrittenFix,
    undo,
    written_data,
    written_fixes,
)
from jaxfix.write.data_edits import DataDiff, data_diffs, refuse_outside
from jaxfix.write.safe_write import LateCheck, confirm_writes, real_roots

if (
    TYPE_CHECKING
):  # jaxfix.evidence.records is imported by the follower, while the first run goes on
    from jaxfix.evidence.records import EvidenceReading, Failure, Raised


class Stop(Enum):
    """Why the loop ended."""

    PASSED = "passed"
    NOT_STARTED = "not-started"  # the command could not be run at all
    BEFORE_JAX = "before-jax"  # it failed, and no process of it had imported JAX
    NOT_OURS = "not-ours"  # it failed, with none of the three errors
    NOTHING_NEW = (
        "nothing-new"  # only errors already worked on, or none that can be used
    )
    NOTHING_FIXED = "nothing-fixed"  # new errors, but no fix could be made
    MAX_ROUNDS = "max-rounds"
    DRY_RUN = "dry-run"


@dataclass(frozen=True)
class RepairSettings:
    max_rounds: int = 5
    timeout: float | None = None  # seconds per run of the command
    dry_run: bool = False
    jobs: int = 1
    cwd: Path | None = None  # where the command runs (default: the current directory)
    env: Mapping[str, str] | None = (
        None  # the command's environment (default: jaxfix's)
    )


@dataclass(frozen=True)
class SiteOutcome:
    """One error site of the run: fixed in `round`, or left with the reason."""

    code: str
    path: Path | None
    line: int
    round: int
    fixed: bool
    detail: str  # the fix made, or why none was
    tests: tuple[str, ...] = ()
    message: str = ""
    needs_unsafe: bool = (
        False  # not fixed: an unsafe fix exists, --unsafe-fixes was not given
    )
    fixed_in: Path | None = None  # the file its fix was written to
    # its fix of an earlier round was undone (the next run raised a new error in it)
    undone: bool = False


@dataclass(frozen=True)
class Round:
    number: int
    run: CommandRun
    raised: tuple[Raised, ...] = ()
    failures: tuple[Failure, ...] = ()  # not the three errors
    outcomes: tuple[SiteOutcome, ...] = ()  # the sites worked on this round
    results: tuple[
        FileResult, ...
    ] = ()  # the files fixed (or, with dry_run, that would be)
    problems: tuple[str, ...] = ()  # records that are not records
    # the data files (JSON/YAML entries) the fixes changed, or with dry_run would change
    data_diffs: tuple[DataDiff, ...] = ()


@dataclass(frozen=True)
class RepairReport:
    command: tuple[str, ...]
    rounds: tuple[Round, ...]
    stop: Stop
    reason: str  # one line: why the loop stopped
    seconds: float

    @property
    def passed(self) -> bool:
        return self.stop is Stop.PASSED

    @property
    def command_seconds(self) -> float:
        return sum(r.run.seconds for r in self.rounds)

    @property
    def overhead_seconds(self) -> float:
        return max(0.0, self.seconds - self.command_seconds)

    @property
    def fixed(self) -> tuple[SiteOutcome, ...]:
        """The sites whose fix was written (none in a dry run: see `would_fix`)."""
        return () if self.dry_run else self.would_fix

    @property
    def would_fix(self) -> tuple[SiteOutcome, ...]:
        """The sites whose fix was made, and not undone since."""
        undone = {_key(o) for r in self.rounds for o in r.outcomes if o.undone}
        return tuple(
            o
            for r in self.rounds
            for o in r.outcomes
            if o.fixed and _key(o) not in undone
        )

    @property
    def left(self) -> tuple[SiteOutcome, ...]:
        """The errors the last run still raised, each with why it was not fixed: a run that
        passed may have raised one too (in a thread: it fails no command)."""
        if not self.rounds:
            return ()
        last = self.rounds[-1]
        fixed_sites = {(o.code, o.path, o.line) for o in self.would_fix}
        reasons = {
            (o.code, o.path, o.line): o.detail
            for r in self.rounds
            for o in r.outcomes
            if not o.fixed
        }
        left: dict[tuple[str, Path | None, int, str], SiteOutcome] = {}
        for raised in last.raised:
            key = (raised.code, raised.path, raised.line)
            if raised.problem is not None:
                detail = raised.problem
            elif key in reasons:
                detail = reasons[key]
            elif self.dry_run and key in fixed_sites:
                detail = "dry run: its fix was shown, not written"
            elif key in fixed_sites:
                detail = "raised again after its fix" + next(
                    (
                        f"; {o.detail[o.detail.index(ANOTHER_PATH) :]}"
                        for o in self.would_fix
                        if (o.code, o.path, o.line) == key and ANOTHER_PATH in o.detail
                    ),
                    "",
                )
            elif self.passed:
                detail = (
                    "not worked on: raised in a run that passed (it failed nothing)"
                )
            else:
                detail = f"not worked on: {self.reason}"
            where = (
                raised.code,
                raised.path,
                raised.line,
                detail if raised.path is None else "",
            )
            seen = left.get(where)
            tests = (
                *(seen.tests if seen else ()),
                *((raised.test,) if raised.test else ()),
            )
            left[where] = SiteOutcome(
                raised.code,
                raised.path,
                raised.line,
                last.number,
                False,
                detail,
                tests,
                raised.message,
            )
        return tuple(left.values())

    @property
    def dry_run(self) -> bool:
        return self.stop is Stop.DRY_RUN

    @property
    def failures(self) -> tuple[Failure, ...]:
        """The last run's failures that are not the three errors (a run that passed may have
        had some: a thread's, a test run whose exit status a script ignored)."""
        return self.rounds[-1].failures if self.rounds else ()


def _key(outcome: SiteOutcome) -> tuple[str, str, int]:
    return (outcome.code, (outcome.path or Path()).as_posix(), outcome.line)


def _read(path: Path, files: list[Path], options: Options) -> EvidenceReading:
    """Imports the reader when first needed: that happens in the follower, during the first run."""
    from jaxfix.evidence.records import (
        MAX_EVIDENCE_BYTES,
        EvidenceReading,
        read_evidence,
    )

    if not path.exists():
        return (
            EvidenceReading()
        )  # no Python process of the command started the recorder
    try:
        data = read_regular(
            path,
            MAX_EVIDENCE_BYTES,
            bound="the evidence file limit",
            follow_symlinks=False,
        )
    except ReadError as error:
        return EvidenceReading(errors=[f"the evidence file: {error}"])
    return read_evidence(data, files, options.max_file_size)


def _site_outcomes(
    number: int,
    raised: list[Raised],
    results: list[FileResult],
    dry_run: bool,
    evidence: Mapping[Path, tuple[Evidence, ...]] | None = None,
    selected: Collection[str] | None = None,
) -> list[SiteOutcome]:
    """Each new site, fixed (its diagnostic's fix applied, there or where its value is
    written) or not (the diagnostic says why; a rule the options leave out says so)."""
    outcomes = []
    by_path = {r.path.resolve(): r for r in results}
    for site in _unique_sites(raised):
        result = by_path.get(site.path.resolve()) if site.path else None
        tests = tuple(r.test for r in raised if r.site == site.site and r.test)
        if selected is not None and site.code not in selected:
            fixed, needs_unsafe = False, False
            detail = f"{site.code} is not selected (--select {site.code}, or ALL)"
        else:
            fixed, detail, needs_unsafe = _site_outcome(site, result, dry_run)
        fixed_in = site.path
        if fixed and (
            _value_site(site, evidence or {}, "value_origins")
            or _value_site(site, evidence or {}, "value_unknown")
        ):
            # fixed here (a data file's entry), yet another path computes its size from
            # the host, or reaches no place: named, as it will raise again
            unknown = _value_site(site, evidence or {}, "origin_note")
            if unknown and ANOTHER_PATH not in detail:
                detail += f"; {ANOTHER_PATH}{unknown}"
        value = _value_site(site, evidence or {})
        if fixed and value is not None and value.entry is not None:
            fixed_in = value.path  # the data file its entry's fix was written to
        if not fixed and value is not None and value.path in by_path:
            at_value = replace(site, line=value.span[0])
            fixed_there, there, unsafe_there = _site_outcome(
                at_value, by_path[value.path], dry_run, (site.path, site.line)
            )
            if fixed_there or unsafe_there:  # made there, or the hint
                needs_unsafe, fixed_in = unsafe_there, value.path
                fixed, detail = (
                    fixed_there,
                    f"{there} ({value.name}, {value.where(Path.cwd())})",
                )
                unknown = _value_site(site, evidence or {}, "origin_note")
                if unknown:  # the run reached this line along a path the fix is not on
                    detail += f"; {ANOTHER_PATH}{unknown}"
            elif _NOT_FIXED in there:  # the value's own place says why it is left
                refused = there.rsplit(_NOT_FIXED, 1)[1]
                detail += f"; at {value.where(Path.cwd())}, {refused}"
        outcomes.append(
            SiteOutcome(
                site.code,
                site.path,
                site.line,
                number,
                fixed,
                detail,
                tests,
                site.message,
                needs_unsafe,
                fixed_in if fixed else None,
            )
        )
    return outcomes


def _site_outcome(
    site: Raised,
    result: FileResult | None,
    dry_run: bool,
    raised_at: tuple[Path, int] | None = None,
) -> tuple[bool, str, bool]:
    """Whether the site was fixed, the fix made or why none was, and whether an unsafe fix
    was left for want of --unsafe-fixes. With `raised_at` (the line that raised, when `site`
    is where its value is written), that error's own report there comes first: two errors'
    reports may sit on one value's line."""
    from jaxfix.codemods.text import (  # after the spawn: the rules' package
        RAISED_BY_THE_CALL,
        RAISED_IN_CALLED_CODE,
        WARNED_WHERE_THE_FIX_EDITS,
    )

    if result is not None and result.error:
        return False, result.error, False
    diagnostics = [
        d
        for d in (result.diagnostics if result else ())
        if d.code == site.code
        and (
            d.start.line <= site.line <= d.end.line
            or any(  # a `with mesh:` block whose call ran the code that raised, a
                # deprecation's fix rewriting the import that warned, or part of a call
                # that raised on another of its lines
                r.path is None
                and r.start.line == site.line
                and r.message.startswith(
                    (
                        RAISED_IN_CALLED_CODE,
                        WARNED_WHERE_THE_FIX_EDITS,
                        RAISED_BY_THE_CALL,
                    )
                )
                for r in d.related
            )
        )
    ]
    if raised_at is not None:
        diagnostics.sort(key=lambda d: not _points_back(d, raised_at))
    applied = [d for d in diagnostics if d.applied and d.fix_title]
    if (
        applied
        and result is not None
        and (result.written or dry_run or applied[0].data_edits)
    ):  # a data file's edit not written is no longer applied (write/data_edits.py)
        return True, applied[0].fix_title or "", False
    if not diagnostics:
        return (
            False,
            "no rule reported this site (jaxfix cannot tell why from this code)",
            False,
        )
    d = diagnostics[0]
    if d.fix_title and not d.applied and not d.withheld:  # not refused by the write
        return (
            False,
            f"{d.message} (its unsafe fix needs --unsafe-fixes: {d.fix_title})",
            True,
        )
    return False, d.message, False


def _points_back(diagnostic: Diagnostic, raised_at: tuple[Path, int]) -> bool:
    """Whether a report at a value's line names `raised_at` (the line whose error the value
    makes) among its related locations."""
    path, line = raised_at
    return any(
        r.path is not None
        and r.start.line == line
        and r.path.resolve() == path.resolve()
        for r in diagnostic.related
    )


def _raised_again(again: Sites, changed: Sites, unsafe: Sites, undone: Sites) -> str:
    """Why the sites worked on before raised again: a fix written there did not help, or none
    was written, or it was undone (the reasons were said in their round)."""
    parts = []
    if n := len(again & changed):
        parts.append(f"{n} site(s) raised again after jaxfix fixed them")
    if n := len(again & undone):
        parts.append(f"{n} site(s) whose fix was undone raised again")
    if n := len(again & unsafe):
        parts.append(f"{n} site(s) whose unsafe fix needs --unsafe-fixes raised again")
    if n := len(again - changed - unsafe - undone):
        parts.append(f"{n} site(s) jaxfix could not fix raised again")
    return "; ".join(parts)


def _value_site(
    site: Raised,
    evidence: Mapping[Path, tuple[Evidence, ...]],
    field: str = "value_site",
) -> Any:
    """Where the value the error at `site` was about is written, when another place (or,
    `field="origin_note"`, why a path the run took there reaches no such place, naming
    where its value is computed from the host, from the current directory)."""
    if site.path is None:
        return None
    for item in evidence.get(site.path.resolve(), ()):
        if item.line == site.line and item.code == site.code and not item.at_value:
            if field == "origin_note":
                return item.origin_note(Path.cwd())
            return getattr(item, field)
    return None


ANOTHER_PATH = "another path the run took to this line: "
_NOT_FIXED = "not fixed: "  # jaxfix/codemods/text.py's not_fixed


@dataclass(frozen=True)
class _Hit:
    """A new error of a run, raised inside a statement a fix of the round before wrote."""

    record: int
    text: str  # its first line
    at: tuple[Path, int] | None  # where it raised in the tree
    site: tuple[str, str, int] | None  # one of the rules' errors' site; None: a failure


_Implicated = list[tuple[WrittenFix, list[_Hit]]]


def _implicated(
    reading: EvidenceReading,
    fixes: Sequence[WrittenFix],
    known: tuple[Sites, set[tuple[str, str]]],
) -> _Implicated:
    """The fixes the round before wrote that the run then raised a new error inside
    (jaxfix/workflows/repair_guard.py), each with those errors. `known`: the sites worked on
    and the failures seen before, which are not new."""
    worked_on, failures_before = known
    errors = [
        (
            _Hit(
                r.record,
                _first_line(r.message),
                (r.path, r.line) if r.path else None,
                r.site,
            ),
            r.inside,
        )
        for r in reading.raised
        if r.site not in worked_on
    ] + [
        (
            _Hit(f.record, _first_line(f"{f.exception}: {f.message}"), f.at, None),
            f.inside,
        )
        for f in reading.failures
        if (f.exception, f.message) not in failures_before
    ]
    found = [
        (fix, [hit for hit, inside in errors if fix.holds(inside)]) for fix in fixes
    ]
    return [(fix, hits) for fix, hits in found if hits]


def _first_line(message: str) -> str:
    """A message's first sentence (of its first line), at most 200 characters."""
    line = message.strip().split("\n", 1)[0]
    sentence = line.split(". ", 1)[0].rstrip(".")
    return sentence if len(sentence) <= 200 else sentence[:199] + "…"


def _broken(implicated: _Implicated, would: Sequence[SiteOutcome]) -> _Implicated:
    """The fixes whose new errors are not all fixed this round (`would`: the round's
    outcomes before anything is written): a failure, or one of the rules' errors left."""
    fixed = {_key(o) for o in would if o.fixed}
    return [
        (fix, hits)
        for fix, hits in implicated
        if any(hit.site is None or hit.site not in fixed for hit in hits)
    ]


def _undone(
    number: int,
    broken: _Implicated,
    earlier: Sequence[SiteOutcome],
    within: tuple[str, ...],
) -> tuple[list[SiteOutcome], set[int]]:
    """`broken`'s fixes undone (for the sites of `earlier`, the round before's outcomes): each
    site's outcome, one line, and the records of the errors they brought (not worked on)."""
    outcomes: list[SiteOutcome] = []
    brought: set[int] = set()
    for fix, hits in broken:
        why = undo(fix, within)
        if why is None:
            brought.update(hit.record for hit in hits)
        first = hits[0]
        where = f" at {display_path(first.at[0])}:{first.at[1]}" if first.at else ""
        outcomes += [
            replace(
                o,
                round=number,
                fixed=False,
                detail=f"fixed {o.detail}, but then {first.text}{where}; {why or 'undone'}",
                fixed_in=None,
                undone=True,
            )
            for o in earlier
            if o.fixed and o.fixed_in and o.fixed_in.resolve() == fix.path.resolve()
        ]
    return outcomes, brought


def _unique_sites(raised: list[Raised]) -> list[Raised]:
    return list({r.site: r for r in raised if r.site is not None}.values())


def _prepare(recording: RecordingDir) -> None:
    """jaxfix's start-up work, done while the first run starts: the rules' messages for the
    recorder, and the engine the fixes need (importing libcst is most of both)."""
    recording.write_patterns()
    import jaxfix.check.engine  # noqa: F401


Sites = set[tuple[str, str, int]]


def _new_evidence(
    reading: EvidenceReading, worked_on: Sites, run: Run, files: list[Path]
) -> dict[Path, tuple[Evidence, ...]]:
    """The evidence of the sites not worked on in an earlier round, by resolved path, with the
    places their values are written (jaxfix/check/value_sites.py)."""
    from jaxfix.check.value_sites import with_value_sites

    new_sites = {
        (r.path.resolve(), r.line, r.code)
        for r in reading.raised
        if r.site is not None and r.site not in worked_on and r.path
    }
    found = {}
    for path, items in reading.evidence.items():
        kept = tuple(e for e in items if (path.resolve(), e.line, e.code) in new_sites)
        if kept:
            found[path.resolve()] = kept
    return with_value_sites(found, run, files)


class _Follower:
    """While a run goes on, in a thread: reads the evidence as the recorder writes it and works
    out the fixes of the sites so far (writing nothing), so that little is left to do when the
    run ends; on the first run it also does jaxfix's start-up work. Only one thread uses the
    engine at a time: the loop asks for results after `stop()`."""

    def __init__(
        self,
        evidence: Path,
        files: list[Path],
        run: Run,
        worked_on: Sites,
        recording: RecordingDir | None,
    ) -> None:
        self.evidence, self.files, self.worked_on = evidence, files, worked_on
        # Scoped: the engine looks for callers over the project, as static does.
        self.run = run
        self.recording = recording
        self.cache: dict[Path, tuple[tuple[Evidence, ...], FileResult]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._follow, name="jaxfix-repair-follower", daemon=True
        )

    def start(self) -> None:
        """Once the command runs: started before, the thread would hold up its start. Signals
        stay the main thread's (jaxfix/ground/interrupts.py), which waits for the command."""
        start_without_signals(self._thread)

    def _follow(self) -> None:
        try:
            if self.recording is not None:
                _prepare(self.recording)
            seen = -1
            while not self._stop.wait(0.1):
                size = self.evidence.stat().st_size if self.evidence.exists() else -1
                if size != seen:
                    seen = size
                    self._compute(
                        _new_evidence(
                            _read(self.evidence, self.files, self.run.options),
                            self.worked_on,
                            self.run,
                            self.files,
                        ),
                        jobs=1,
                    )
        except Exception:  # noqa: BLE001 - a head start only: the loop works out what is missing itself
            return

    def _compute(self, evidence: dict[Path, tuple[Evidence, ...]], jobs: int) -> None:
        stale = [
            path
            for path, items in sorted(evidence.items())
            if self.cache.get(path, ((),))[0] != items
        ]
        if stale:
            from jaxfix.check.runner import run_files

            for result in run_files(
                self.run, stale, write=False, jobs=jobs, evidence=evidence
            ):
                self.cache[result.path] = (evidence[result.path], result)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join()

    def results(
        self, evidence: dict[Path, tuple[Evidence, ...]], jobs: int
    ) -> list[FileResult]:
        """The results for exactly this evidence (after `stop()`), fixes not written."""
        self._compute(evidence, jobs)
        return [self.cache[path][1] for path in sorted(evidence)]


def _holds(path: Path, data: bytes) -> bool:
    """Whether the data file now holds `data` (its fixes were written)."""
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _write(results: list[FileResult], within: tuple[str, ...]) -> list[FileResult]:
    """The fixes written with the safe writes, each confirmed (jaxfix/write/safe_write.py), each
    still inside the PATHs as they were before the command ran (the command may have made a
    file a symlink to elsewhere)."""
    from jaxfix.write.data_edits import write_data_edits

    late_checks: list[LateCheck] = []
    written = []
    try:
        for result in results:
            written.append(write_fix(result, late_checks, within))
    finally:
        undone = confirm_writes(late_checks)
    return write_data_edits(undo_written(written, undone), within)


def repair(
    paths: Sequence[Path],
    command: Sequence[str],
    run: Run,
    settings: RepairSettings = RepairSettings(),
    on_round: Callable[[Round], None] | None = None,
    on_run_started: Callable[[int], None] | None = None,
) -> RepairReport:
    """Run, fix, run again with `run` (jaxfix/check/run.py: the fix options, `--unsafe-fixes`,
    ..., and the project whose callers the fixes look at; each round scopes it to the files
    found under `paths` then). `on_round`
    hears of each round once it is done, before the next run; `on_run_started` of each run's
    number once it has started (or failed to start): the time to print what need not be
    printed before it."""
    started = time.monotonic()
    rounds: list[Round] = []
    worked_on: Sites = set()
    changed_sites: Sites = set()  # worked on, and a fix was written for them
    unsafe_sites: Sites = set()  # worked on, their fix needs --unsafe-fixes
    undone_sites: Sites = (
        set()
    )  # fixed, and undone: the next run raised a new error in it
    fixes: list[WrittenFix] = []  # what the round before wrote
    failures_seen: set[tuple[str, str]] = set()
    within = real_roots(paths)
    recording = RecordingDir()
    if not run.options.select:
        # The default selection is the rules whose old code raises on the target JAX; the
        # run shows what raised, and only a site it raised at is fixed: a rule's
        # error the run raised that its target leaves out (JAX014 before JAX 0.10.1) too.
        run = run.with_options(select=(ALL,))
    options = run.options

    def finish(stop: Stop, reason: str) -> RepairReport:
        return RepairReport(
            tuple(command), tuple(rounds), stop, reason, time.monotonic() - started
        )

    def done(current: Round) -> None:
        rounds.append(current)
        if on_round:
            on_round(current)

    try:
        number = 0
        while True:
            number += 1
            found = discover(list(paths), options.exclude, options.all_includes)
            scoped = run.scoped(found.files)
            follower = _Follower(
                recording.evidence(number),
                found.files,
                scoped,
                worked_on,
                recording if number == 1 else None,
            )

            def running(number: int = number, follower: _Follower = follower) -> None:
                follower.start()
                if on_run_started:
                    on_run_started(number)

            try:
                ran = run_command(
                    command,
                    recording.env(number, settings.env),
                    settings.cwd,
                    settings.timeout,
                    recording.output(number),
                    running,
                )
            finally:
                follower.stop()
            if ran.returncode is None and on_run_started:
                on_run_started(number)
            if ran.returncode is None:
                done(Round(number, ran))
                return finish(
                    Stop.NOT_STARTED, ran.problem or "the command did not start"
                )
            reading = _read(recording.evidence(number), found.files, options)
            base = Round(
                number,
                ran,
                tuple(reading.raised),
                tuple(reading.failures),
                problems=tuple(reading.errors),
            )
            if ran.returncode == 0 and not ran.timed_out:
                done(base)
                return finish(
                    Stop.PASSED,
                    f"the command passed{' after the fixes' if number > 1 else ''}",
                )
            implicated = _implicated(reading, fixes, (worked_on, failures_seen))
            earlier = rounds[-1].outcomes if rounds else ()
            fixes = []
            failures_seen.update((f.exception, f.message) for f in reading.failures)

            def undo_broken(broken: _Implicated) -> tuple[list[SiteOutcome], set[int]]:
                undone, brought = _undone(number, broken, earlier, within)
                for outcome in undone:
                    changed_sites.discard(_key(outcome))
                    undone_sites.add(_key(outcome))
                return undone, brought

            how = (
                f"timed out after {settings.timeout:g} s"
                if ran.timed_out
                else f"exited with {ran.returncode}"
            )
            undone: list[SiteOutcome] = []
            if not reading.raised or number > settings.max_rounds:
                undone, _ = undo_broken(implicated)
                if undone:
                    base = replace(base, outcomes=tuple(undone))
                if undone and number <= settings.max_rounds:
                    done(base)  # the files as they were: the next run says what is left
                    continue
            if not reading.raised:
                done(base)
                if not reading.jax_versions and not reading.failures:
                    return finish(
                        Stop.BEFORE_JAX,
                        f"the command {how} before any of its processes imported JAX: nothing for jaxfix to fix",
                    )
                return finish(
                    Stop.NOT_OURS,
                    f"the command {how} with failures that are not {codes_range()}: not jaxfix's to fix",
                )
            if number > settings.max_rounds:
                done(base)
                return finish(
                    Stop.MAX_ROUNDS,
                    f"stopped after --max-rounds {settings.max_rounds}; the command still {how}",
                )
            new = [
                r
                for r in reading.raised
                if r.site is not None and r.site not in worked_on
            ]
            if not new:
                undone, _ = undo_broken(implicated)
                if undone:
                    done(replace(base, outcomes=tuple(undone)))
                    continue
                done(base)
                again = {r.site for r in reading.raised if r.site is not None}
                why = (
                    _raised_again(again, changed_sites, unsafe_sites, undone_sites)
                    if again
                    else "none of its errors can be placed in the tree"
                )
                return finish(
                    Stop.NOTHING_NEW,
                    f"round {number} brought no new fixable evidence: {why}",
                )
            evidence = _new_evidence(reading, worked_on, scoped, found.files)
            results = follower.results(evidence, settings.jobs)
            if implicated:  # kept when what it brought is fixed now, else undone
                selected = {entry.code for entry in run.rules}
                would = _site_outcomes(number, new, results, True, evidence, selected)
                undone, brought = undo_broken(_broken(implicated, would))
                if brought:
                    new = [r for r in new if r.record not in brought]
                    left_alone = {r.site for r in reading.raised if r.record in brought}
                    evidence = _new_evidence(
                        reading, worked_on | left_alone, scoped, found.files
                    )
                    results = follower.results(evidence, settings.jobs)
            worked_on.update(r.site for r in new if r.site is not None)
            # a fix of a file outside the PATHs is refused before the preview, as the write
            # refuses it: a dry run shows what a run writes
            results = refuse_outside(results, within)
            diffs = data_diffs(results)  # as the files are before anything is written
            if not settings.dry_run:
                results = _write(results, within)
                diffs = [d for d in diffs if _holds(d.path, d.new)]
            outcomes = undone + _site_outcomes(
                number,
                new,
                results,
                settings.dry_run,
                evidence,
                {entry.code for entry in run.rules},
            )
            changed = tuple(
                r
                for r in results
                if r.fixed is not None and (r.written or settings.dry_run)
            )
            done(
                replace(
                    base,
                    outcomes=tuple(outcomes),
                    results=changed,
                    data_diffs=tuple(diffs),
                )
            )
            if settings.dry_run:
                return finish(
                    Stop.DRY_RUN, "dry run: the fixes were shown, nothing was written"
                )
            fixes = written_fixes(results) + written_data(results, diffs)
            for outcome in outcomes:
                key = _key(outcome)
                if outcome.fixed:
                    changed_sites.add(key)
                elif outcome.needs_unsafe:
                    unsafe_sites.add(key)
            if not any(o.fixed or o.undone for o in outcomes):
                unsafe = sum(1 for o in outcomes if o.needs_unsafe)
                return finish(
                    Stop.NOTHING_FIXED,
                    f"round {number} fixed nothing: "
                    + (
                        f"{unsafe} of its new errors have an unsafe fix: run again with --unsafe-fixes"
                        if unsafe
                        else "no fix can be made for its new errors"
                    ),
                )
    finally:
        recording.close()
