"""A result cache like ruff's: a file unchanged since a run with the same jaxfix, rules and
options is not parsed again.

One entry per file path, valid for one content hash and one settings fingerprint (jaxfix's
version and source, libcst's and Python's versions, the selected rules, every option that
changes results, the project roots), and for the content of the other files its analysis used
(the modules it imports, see jaxfix/check/dependencies.py): an entry whose dependency changed, was
deleted or cannot be read is a miss. Entries without dependencies cost no more than before.
An entry of the new engine also lists the searches of the run's files its answers made (the
callers of a function are looked for in every file naming it) with the files each found, and
names the run's files as they were then (a `RunFiles` record written beside the entries, by
its digest): it is a miss when a file now holds the words of one of its searches that did not,
or the other way round. Only the files whose signature changed since, or that are new or gone
from the run, are read for that, once per run.
An error that follows from the file's bytes alone (a notebook that does not validate, a syntax
error) is cached too, so a warm run does not read that file again.
Entries are checked, never trusted: a corrupt, truncated or foreign entry is a miss. Writes
are atomic and best effort: a cache that cannot be written only costs speed.

Nothing shown or written comes from the cache: anyone who can write the cache directory (a
pull request that commits one, a CI cache restored from another branch) can forge an entry, and
a checksum is no signature. So an entry holds no fixed code: a result that changes its file is
stored with its fix summarized (its diagnostics, and that the file would change), and only a
run that writes nothing and shows no fixed code (`--check` with text, `github` or `gitlab`
output) takes it (`FileResult.fix_pending`); a run that writes a fix or shows one (a diff, a
suggestion, JSON's edits) derives it again, on every run. A forged entry can at worst hide a
diagnostic or invent one, never put code into a fix, a diff or a suggestion. A summarized fix's
description is shown as it is, so such an entry is trusted as the record of a whole run is
(jaxfix/cache/warm_path.py): only while the file's size, mtime, ctime and inode (in ns) are those
the entry names, which a checkout sets and an entry from another one cannot predict. The directory must
be a real one (no symlink on the way from the project's top into it), and `cache-dir` from a
config may not lead out of the project (see `cache_location`); entries are read only as regular
files, without following a symlink, and at most `_MAX_ENTRY_BYTES` of them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import fields
from functools import cached_property
from pathlib import Path

import jaxfix
from jaxfix.cache.settled_files import SettledFiles
from jaxfix.check.dependencies import (
    RunFiles,
    decode_run_files,
    known_run_files,
    signature,
    unchanged,
)
from jaxfix.check.registry import selected_rules
from jaxfix.ground.bounded_data import load_json
from jaxfix.ground.diagnostics import (
    DataEdit,
    Dependency,
    Diagnostic,
    FileResult,
    Location,
    Related,
    Safety,
    WordLookup,
)
from jaxfix.settings.config import Config, project_root
from jaxfix.settings.distributions import installed_version
from jaxfix.settings.options import Options
from jaxfix.sources.file_io import ReadError, read_regular
from jaxfix.sources.paths import PATH_STATES, outside_the_project, symlink_on_the_way
from jaxfix.sources.words import file_words
from jaxfix.write.safe_write import write_file

CACHE_DIR_NAME = ".jaxfix_cache"
_PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
# 2: entries list their dependencies; 3: and hold no fixed code; 4: and their word searches;
# 5: and the calls the rules left, with where a value's trail ended (`-v`); 6: and whether the
# file would change (a result with a fix is kept, summarized, with the file's signature)
_MAGIC = b"jaxfix-cache 6\n"
_RUN_FILES_MAGIC = b"jaxfix-run-files 1\n"
_RUN_FILES_PREFIX = "files-"
_MAX_RUN_FILES = (
    8  # records of the run's files kept (the oldest go): one per tree and state
)
_KEYS = frozenset(
    {
        "settings",
        "path",
        "source",
        "lines",
        "diagnostics",
        "trails",
        "dependencies",
        "error",
        "lookups",
        "files",
        "changes",
    }
)
_MAX_ENTRY_BYTES = 4 * 1024 * 1024  # diagnostics only: far more than a file's ever take
_MAX_RUN_FILES_BYTES = 64 * 1024 * 1024  # about 100 bytes per file of the run
_MAX_SOURCE_BYTES = 4 * 1024 * 1024  # as the engine's word index reads a file
# Options that cannot change one file's result: select/ignore enter as the selected codes, and
# exclude, include and max-file-size decide whether a file is read at all, before the cache is asked;
# max-parse-memory only turns a result into an error, and such errors are not cached; max-log-size
# bounds --from-log's log, and such runs do not use the cache.
_OPTIONS_NOT_IN_KEY = frozenset(
    {
        "select",
        "ignore",
        "exclude",
        "include",
        "extend_include",
        "max_file_size",
        "max_log_size",
        "max_parse_memory",
    }
)
_GITIGNORE = b"# Created by jaxfix: the cache never belongs in version control.\n*\n"
_CACHEDIR_TAG = b"Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by jaxfix.\n"


def cache_dir(flag: Path | None, config: Config, paths: list[Path]) -> Path:
    """--cache-dir; else `cache-dir` from the config (relative to its file); else .jaxfix_cache/
    in the project root, as ruff puts .ruff_cache, so that `jaxfix src/trainer` and `jaxfix .`
    share one: the config file's directory, else the nearest directory upward from the first
    path that holds a pyproject.toml, setup.cfg, setup.py or .git, else the paths' common one."""
    if flag is not None:
        return flag
    if config.path is None and paths:
        first = paths[0].absolute()
        for directory in (first, *first.parents) if first.is_dir() else first.parents:
            if any((directory / marker).exists() for marker in _PROJECT_MARKERS):
                return directory / CACHE_DIR_NAME
    return project_root(config, paths) / config.values.get("cache-dir", CACHE_DIR_NAME)


class CacheDirError(ValueError):
    """The cache directory is refused; the message says why (the run goes on without a cache)."""


def cache_location(flag: Path | None, config: Config, paths: list[Path]) -> Path:
    """`cache_dir`, checked: the tree under the project may come from a stranger's pull request,
    which must not lead jaxfix's writes out of it. So `cache-dir` from a config may not be
    absolute or climb out of the project with `..` (`--cache-dir`, the user's own, may point
    anywhere), and no part of the path from the top of the tree (the enclosing git work tree,
    else the project root) down to the directory may be a symlink or something other than a
    directory. CacheDirError otherwise."""
    directory = Path(os.path.abspath(cache_dir(flag, config, paths)))
    root = Path(os.path.abspath(project_root(config, paths)))
    if flag is None and "cache-dir" in config.values:
        value = config.values["cache-dir"]
        if outside_the_project(value, directory, root):
            raise CacheDirError(
                f"{config.path}: cache-dir {value!r} points outside the project ({root})"
            )
    reason = symlink_on_the_way(directory, root, include_target=True)
    if reason is not None:
        raise CacheDirError(f"cache directory {directory}: {reason}")
    return directory


def _source_digest() -> str:
    """Hash of jaxfix's own source, so editing a rule (or the engine) invalidates entries."""
    digest = hashlib.sha256()
    root = Path(jaxfix.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(
            path.relative_to(root).as_posix().encode()
            + b"\0"
            + path.read_bytes()
            + b"\0"
        )
    return digest.hexdigest()


def settings_fingerprint(
    options: Options, codes: tuple[str, ...], roots: tuple[Path, ...] = ()
) -> str:
    parts = [
        f"jaxfix={jaxfix.__version__}",
        f"source={_source_digest()}",
        f"libcst={installed_version('libcst')}",
        f"python={sys.version_info[0]}.{sys.version_info[1]}",
        f"rules={','.join(codes)}",
    ]
    if options.rule_modules:  # their source as jaxfix's own
        from jaxfix.codemods import rule_sources

        digest = hashlib.sha256()
        for path in rule_sources(options.rule_modules):
            digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
        parts.append(f"rule-sources={digest.hexdigest()}")
    parts += [
        f"{f.name}={getattr(options, f.name)!r}"
        for f in fields(options)
        if f.name not in _OPTIONS_NOT_IN_KEY
    ]
    parts.append(
        f"roots={roots!r}"
    )  # where imports are looked for: what an answer reads
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _encode_lines(lines: frozenset[int] | None) -> list[int] | None:
    """The lines a result was checked on (--diff-base), as an entry keeps them."""
    return None if lines is None else sorted(lines)


def _encode_location(location: Location) -> list[int]:
    return [location.line, location.column] + (
        [] if location.cell is None else [location.cell]
    )


def _encode(diagnostic: Diagnostic) -> dict:
    return {
        "code": diagnostic.code,
        "message": diagnostic.message,
        "start": _encode_location(diagnostic.start),
        "end": _encode_location(diagnostic.end),
        "fix_title": diagnostic.fix_title,
        "fix_safety": diagnostic.fix_safety.value if diagnostic.fix_safety else None,
        "applied": diagnostic.applied,
        "related": [
            {
                "message": r.message,
                "start": _encode_location(r.start),
                "path": None if r.path is None else str(r.path),
            }
            for r in diagnostic.related
        ],
        "fix_lines": None
        if diagnostic.fix_lines is None
        else list(diagnostic.fix_lines),
        "fix_cell": diagnostic.fix_cell,
        # A fix's edits of another file (a config's entry, another module's constant): an
        # entry whose fix is applied while its own file is unchanged is a miss (`get`), so
        # what is written or shown is derived again, never read from here.
        "data_edits": [
            {
                "path": str(e.path),
                "span": list(e.span),
                "text": e.text.decode("utf-8"),
                "digest": e.digest,
            }
            for e in diagnostic.data_edits
        ],
        "withheld": diagnostic.withheld,
    }


def _expect(value: object, expected: type | tuple[type, ...]) -> object:
    if not isinstance(value, expected):
        raise ValueError(
            f"cache entry: expected {expected}, got {type(value).__name__}"
        )
    return value


def _decode_location(value: object) -> Location:
    line, column, *cell = _expect(value, list)
    if not (
        all(type(n) is int and n >= 1 for n in (line, column, *cell)) and len(cell) <= 1
    ):
        raise ValueError("cache entry: bad location")
    return Location(line, column, *cell)


def _decode_lines(value: object) -> tuple[int, int] | None:
    if value is None:
        return None
    first, last = _expect(value, list)
    if not (type(first) is int and type(last) is int and 1 <= first <= last):
        raise ValueError("cache entry: bad line range")
    return first, last


def _decode(value: object, codes: tuple[str, ...]) -> Diagnostic:
    item = _expect(value, dict)
    code = _expect(item["code"], str)
    if code not in codes:
        raise ValueError(f"cache entry: {code} is not a selected rule")
    safety = item["fix_safety"]
    return Diagnostic(
        code=code,
        message=_expect(item["message"], str),
        start=_decode_location(item["start"]),
        end=_decode_location(item["end"]),
        fix_title=_expect(item["fix_title"], (str, type(None))),
        fix_safety=None if safety is None else Safety(_expect(safety, str)),
        applied=_expect(item["applied"], bool),
        related=tuple(
            Related(
                _expect(_expect(r, dict)["message"], str),
                _decode_location(r["start"]),
                None
                if _expect(r.get("path"), (str, type(None))) is None
                else Path(r["path"]),
            )
            for r in _expect(item["related"], list)
        ),
        fix_lines=_decode_lines(item["fix_lines"]),
        fix_cell=_expect(item["fix_cell"], (int, type(None))),
        data_edits=tuple(
            _decode_data_edit(e) for e in _expect(item.get("data_edits", []), list)
        ),
        withheld=_expect(item.get("withheld", False), bool),
    )


def _decode_data_edit(value: object) -> DataEdit:
    item = _expect(value, dict)
    start, end = _expect(item["span"], list)
    if not (type(start) is int and type(end) is int and 0 <= start <= end):
        raise ValueError("cache entry: bad span")
    return DataEdit(
        Path(_expect(item["path"], str)),
        (start, end),
        str(_expect(item["text"], str)).encode("utf-8"),
        str(_expect(item["digest"], str)),
    )


def _decode_error(value: object) -> tuple[str, Location | None] | None:
    if value is None:
        return None
    message, location = _expect(value, list)
    return _expect(message, str), None if location is None else _decode_location(
        location
    )


def _encode_dependency(dependency: Dependency) -> list:
    return [
        os.fspath(dependency.path),
        dependency.digest,
        list(dependency.signature or ()),
    ]


def _decode_dependency(value: object) -> Dependency:
    path, digest, signature = _expect(value, list)
    if not (
        isinstance(path, str)
        and os.path.isabs(path)
        and isinstance(digest, str)
        and (len(digest) == 64 or digest in PATH_STATES)
    ):
        raise ValueError("cache entry: bad dependency")
    if not (
        isinstance(signature, list)
        and len(signature) in (0, 4)
        and all(type(n) is int for n in signature)
    ):
        raise ValueError("cache entry: bad dependency signature")
    if not signature:
        return Dependency(Path(path), digest)
    size, mtime_ns, ctime_ns, inode = signature
    return Dependency(Path(path), digest, (size, mtime_ns, ctime_ns, inode))


class Cache:
    """Results of earlier runs in `directory`, for the settings of this run (its options and
    import `roots`); `scope`: the run's files, against which an entry's searches of them are checked (jaxfix/check/run.py
    builds it)."""

    def __init__(
        self,
        directory: Path,
        options: Options,
        scope: tuple[Path, ...] | None = None,
        roots: tuple[Path, ...] = (),
    ) -> None:
        self.directory = directory
        self.options = options
        self.scope = scope
        self.roots = roots
        # A module many files import is decoded and checked once a run, keyed by its raw record.
        self._checked: dict[tuple[object, ...], Dependency | None] = {}
        # The run's files against each `RunFiles` entries name: which changed (read once a run).
        self._changed: dict[str, tuple[RunFiles, frozenset[Path]] | None] = {}
        self._run_now: frozenset[str] | None = None
        self._words: dict[Path, set[bytes]] = {}
        self._written_run_files: set[str] = set()

    def _unchanged_dependency(self, value: object) -> Dependency | None:
        """The dependency an entry records, or None when its file no longer holds those bytes."""
        path, digest, signature = _expect(value, list)
        key = (path, digest, *_expect(signature, list))
        if key not in self._checked:
            dependency = _decode_dependency(value)
            self._checked[key] = dependency if unchanged(dependency) else None
        return self._checked[key]

    @cached_property
    def settled(self) -> SettledFiles:
        """The files the prefilter settled in earlier runs of these settings
        (jaxfix/cache/settled_files.py)."""
        return SettledFiles(self.directory, self.settings)

    def save_settled(self) -> None:
        """Write what this run learned about settled files (at the end of a run)."""
        if "settled" in self.__dict__ and self.settled.changed:
            try:
                self._prepare_directory()
            except OSError:
                return
            self.settled.save()

    @cached_property
    def codes(self) -> tuple[str, ...]:
        return tuple(rule.code for rule in selected_rules(self.options))

    @cached_property
    def settings(self) -> str:
        """Computed on first use: a run whose files all fail the prefilter never reads jaxfix's source."""
        return settings_fingerprint(self.options, self.codes, self.roots)

    def _entry(self, path: Path) -> Path:
        """Named by path only: a run with other settings replaces the entry, so the cache holds at
        most one entry per file that ever passed the prefilter."""
        return (
            self.directory
            / hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()[:40]
        )

    def get(
        self,
        path: Path,
        source: bytes,
        lines: frozenset[int] | None = None,
        *,
        summarized: bool = False,
    ) -> FileResult | None:
        """The cached result for `path` holding `source`, checked on `lines` (None: every
        line), or None (miss, or an entry not to trust). `summarized`: the run writes nothing
        and shows no fixed code, so a result whose file would change may come with its fix
        summarized (`fix_pending`); otherwise such a result is a miss, its fix derived again."""
        try:  # a FIFO would block, a symlink lead anywhere, /dev/zero never end
            data = read_regular(
                self._entry(path), _MAX_ENTRY_BYTES, follow_symlinks=False
            )
        except ReadError:
            return None
        try:
            if not data.startswith(_MAGIC):
                return None
            checksum, _, body = data[len(_MAGIC) :].partition(b"\n")
            if hashlib.sha256(body).hexdigest().encode() != checksum:
                return None
            entry = _expect(load_json(body), dict)
            if (
                entry.keys() != _KEYS
                or entry["settings"] != self.settings
                or entry["path"] != os.path.abspath(path)
                or entry["source"] != hashlib.sha256(source).hexdigest()
                or entry["lines"] != _encode_lines(lines)
            ):
                return None
            diagnostics = tuple(
                _decode(d, self.codes) for d in _expect(entry["diagnostics"], list)
            )
            trails = tuple(
                _decode(d, self.codes) for d in _expect(entry["trails"], list)
            )
            changes = _expect(entry["changes"], (list, type(None)))
            if any(t.applied or t.fix_title is not None for t in trails):
                return None  # a left call with a fix: not ours
            if changes is None:
                if any(d.applied for d in diagnostics):
                    return None  # a fix applied, yet the file unchanged: not ours
            elif not summarized or changes != list(
                _signature(os.fspath(path)) or ["-"]
            ):
                return None  # its fix is derived again; or the entry is of another checkout
            dependencies = [
                self._unchanged_dependency(d)
                for d in _expect(entry["dependencies"], list)
            ]
            error = _decode_error(entry["error"])
            if any(d is None for d in dependencies):  # one of them changed
                return None
            lookups = self._holding_lookups(entry["files"], entry["lookups"])
        except (ValueError, TypeError, KeyError, IndexError, RecursionError):
            return None
        if lookups is None:
            return None
        known = tuple(d for d in dependencies if d is not None)
        if error is not None:
            if diagnostics or changes is not None:
                return None
            return FileResult(
                path,
                source,
                error=error[0],
                error_location=error[1],
                dependencies=known,
                lasting_error=True,
                lookups=lookups,
            )
        return FileResult(
            path,
            source,
            None,
            diagnostics,
            dependencies=known,
            lookups=lookups,
            trails=trails,
            fix_pending=changes is not None,
        )

    # -- searches of the run's files --------------------------------------------------------

    def _holding_lookups(
        self, digest: object, value: object
    ) -> tuple[WordLookup, ...] | None:
        """An entry's word searches, or None when one of them would now find other files."""
        items = _expect(value, list)
        if not items:
            return ()
        changed = self._changed_since(_expect(digest, str))
        if changed is None:
            return None
        run, paths = changed
        names = [path for path, _ in run.entries]
        lookups = []
        for item in items:
            words_value, holders_value = _expect(item, list)
            words = tuple(_expect(w, str) for w in _expect(words_value, list))
            indices = _expect(holders_value, list)
            if not all(type(i) is int and 0 <= i < len(names) for i in indices):
                raise ValueError("cache entry: bad holder")
            holders = frozenset(map(names.__getitem__, indices))
            if paths:
                wanted = {w.encode("utf-8", "surrogateescape") for w in words}
                for path in paths:
                    if (path in holders) != self._holds(path, wanted):
                        return None
            lookups.append(WordLookup(words, holders, run.digest))
        return tuple(lookups)

    def _holds(self, path: Path, wanted: set[bytes]) -> bool:
        """Whether the run's file at `path` holds every one of the words now."""
        assert self._run_now is not None
        if os.fspath(path) not in self._run_now:
            return False
        found = self._words.get(path)
        if found is None:
            try:
                raw = read_regular(path, _MAX_SOURCE_BYTES)
            except ReadError:
                found = set()
            else:
                found = file_words(path, raw)
            self._words[path] = found
        return wanted <= found

    def _changed_since(self, digest: str) -> tuple[RunFiles, frozenset[Path]] | None:
        """The run's files as recorded under `digest`, and those of them and of this run's
        that changed since, are new or are gone; None without such a record or outside a run."""
        if digest not in self._changed:
            self._changed[digest] = None
            run = self._read_run_files(digest)
            current = self.scope
            if run is None or current is None:
                return None
            if self._run_now is None:
                self._run_now = frozenset(os.path.abspath(p) for p in current)
            then = {os.fspath(path): was for path, was in run.entries}
            changed = set(self._run_now.symmetric_difference(then))
            for path, was in then.items():
                if path in self._run_now and (was is None or _signature(path) != was):
                    changed.add(path)
            self._changed[digest] = (run, frozenset(map(Path, changed)))
        return self._changed[digest]

    def _run_files_path(self, digest: str) -> Path:
        return self.directory / f"{_RUN_FILES_PREFIX}{digest}"

    def _read_run_files(self, digest: str) -> RunFiles | None:
        if not (len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
            return None
        try:
            data = read_regular(
                self._run_files_path(digest),
                _MAX_RUN_FILES_BYTES,
                follow_symlinks=False,
            )
        except ReadError:
            return None
        if not data.startswith(_RUN_FILES_MAGIC):
            return None
        try:
            run = decode_run_files(data[len(_RUN_FILES_MAGIC) :])
        except (ValueError, TypeError, RecursionError):
            return None
        return run if run.digest == digest else None

    def _write_run_files(self, digest: str) -> bool:
        """The record of the run's files an entry names, written once; False if this process
        does not know it (the entry is then not written)."""
        if digest in self._written_run_files:
            return True
        run = known_run_files(digest)
        if run is None:
            return False
        target = self._run_files_path(digest)
        if self._read_run_files(digest) is None:
            self._prepare_directory()
            # named by its digest, checked when read: a crash's leftover is a miss, and is
            # written again here
            write_file(target, _RUN_FILES_MAGIC + run.encode(), durable=False)
            records = sorted(
                self.directory.glob(f"{_RUN_FILES_PREFIX}*"),
                key=lambda p: p.stat().st_mtime_ns,
            )
            for old in records[: max(0, len(records) - _MAX_RUN_FILES)]:
                if old != target:
                    old.unlink(missing_ok=True)
        self._written_run_files.add(digest)
        return True

    def put(self, result: FileResult, lines: frozenset[int] | None = None) -> None:
        """Remember a result: a successful one, or an error of the file's bytes (other errors may be
        transient or a jaxfix bug, and are retried); not a result that used a file jaxfix cannot
        vouch for, see jaxfix/check/dependencies.py. One that changes its file is kept with its fix
        summarized and the file's signature now, never its fixed code (see `get`)."""
        if result.fix_pending or (
            result.error is not None and not result.lasting_error
        ):
            return
        if result.source is None or any(d.digest is None for d in result.dependencies):
            return
        changes = None
        if result.fixed is not None:
            changes = _signature(os.fspath(result.path))
            if changes is None:
                return
        digests = {lookup.files for lookup in result.lookups}
        if len(digests) > 1:
            return
        run = known_run_files(next(iter(digests))) if digests else None
        if digests and run is None:
            return
        positions = {path: n for n, (path, _) in enumerate(run.entries)} if run else {}
        if any(p not in positions for lookup in result.lookups for p in lookup.holders):
            return
        body = json.dumps(
            {
                "settings": self.settings,
                "path": os.path.abspath(result.path),
                "source": hashlib.sha256(result.source).hexdigest(),
                "lines": _encode_lines(lines),
                "diagnostics": [_encode(d) for d in result.diagnostics],
                "trails": [_encode(d) for d in result.trails],
                "dependencies": [_encode_dependency(d) for d in result.dependencies],
                "error": None
                if result.error is None
                else [
                    result.error,
                    None
                    if result.error_location is None
                    else _encode_location(result.error_location),
                ],
                "lookups": [
                    [list(lookup.words), sorted(positions[p] for p in lookup.holders)]
                    for lookup in result.lookups
                ],
                "files": run.digest if run else None,
                "changes": None if changes is None else list(changes),
            }
        ).encode()
        data = _MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
        if len(data) > _MAX_ENTRY_BYTES:
            return
        try:
            if run is not None and not self._write_run_files(run.digest):
                return
            self._prepare_directory()
            # its checksum is checked when read: a crash's leftover is a miss
            write_file(self._entry(result.path), data, durable=False)
        except OSError:
            pass

    def prepare_directory(self) -> None:
        """Create the directory, for a record kept beside the entries (a run with nothing to
        cache still records its output, jaxfix/cache/warm_path.py). OSError if it cannot."""
        self._prepare_directory()

    def _prepare_directory(self) -> None:
        """Create the directory; when jaxfix creates it, mark it as a cache for git and backup tools."""
        if self.directory.is_dir():
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, content in (
            (".gitignore", _GITIGNORE),
            ("CACHEDIR.TAG", _CACHEDIR_TAG),
        ):
            try:
                with open(self.directory / name, "xb") as handle:
                    handle.write(content)
            except FileExistsError:
                pass


def _signature(path: str) -> tuple[int, int, int, int] | None:
    try:
        return signature(os.stat(path))
    except (OSError, ValueError):
        return None
