"""A run: what every way in (the command line, stdin, repair, migrate, the language server,
from-log; the review bot runs the command line) checks files with, built in one place.

`build_run(paths, flags)` reads the config, builds the settings-only `Options`, the target JAX
version, the project (where imports and callers are looked for) and, when asked, the result
cache; `Run.scoped(files)` gives the run its files. `jaxfix.check.engine.check_file(run, path,
source, lines, evidence)` checks one file with it: the facts of one file (changed lines,
evidence from a log) are arguments, never options. The engine is the run's: shared by the files
checked inside `Run.checking()` (a worker process rebuilds it from the run's plain data), fresh
for each file outside it. tests/check/test_run.py keeps the options, the cache and the engine
from being built anywhere else.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jaxfix.settings.options import Options

if (
    TYPE_CHECKING
):  # the config's modules read the rule registry: only a built run needs them
    from jaxfix.analysis.ast_engine import Engine
    from jaxfix.cache.store import Cache
    from jaxfix.check.registry import RuleEntry
    from jaxfix.check.summaries import Summaries
    from jaxfix.settings.target_version import TargetVersion
    from jaxfix.settings.values import Config

# The cyclic collector's generation-0 threshold while the engine works, for a file
# (jaxfix/check/engine.py) and for a whole run (`Run.checking`). The engine's trees and answers
# are millions of small objects that live until the file is done, and Python's default (700)
# runs the collector over them thousands of times; lowering it between two files of a run set
# off full collections, about a tenth of a cold run's CPU. The older generations keep their
# thresholds, so cycles are still collected and memory does not grow with the files.
GC_GENERATION_0 = 100_000


class _Engines:
    """The engines of a run while it checks (`Run.checking`), one a JAX version (a log's
    files are checked for the version that raised there, their unsafe fixes' preview for the
    run's), each made on first use. Pickled empty: a worker process makes its own from the
    run's roots and files."""

    def __init__(self) -> None:
        self.checking = False
        self.engines: dict[tuple[int, ...] | None, Engine] = {}
        # what each module parsed in the run reads, shared by its processes (summaries.py)
        self.summaries: Summaries | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"checking": self.checking, "summaries": self.summaries}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.checking, self.engines = state["checking"], {}
        self.summaries = state.get("summaries")


@dataclass(frozen=True)
class Run:
    """What a run checks with: settings-only options, the config and target they came from,
    the project's import roots, the project root the callers of a function are looked for under (`scope_root`; None: only
    the run's files), the run's files (`scope`, set by `scoped`), the result cache (None: not
    used) and the engine (`engine`)."""

    options: Options
    config: Config | None = None
    target: TargetVersion | None = None
    roots: tuple[
        Path, ...
    ] = ()  # where `import a.b` is looked for among the project's files
    scope_root: Path | None = None
    scope: tuple[Path, ...] = ()
    cache: Cache | None = None
    # Where the cache is, or would be (--show-settings); whether to use it; --cache-dir, the
    # user's own (it may point anywhere); no cache outside `cache_within` (a workspace folder).
    cache_dir: Path | None = None
    use_cache: bool = False
    cache_dir_given: bool = False
    cache_within: Path | None = None
    project: tuple[Path, ...] = ()  # the paths the project was found from
    # Whether the run writes fixes or shows fixed code (a diff, a suggestion); False: a file
    # that would change may be answered by the cache, its fix summarized (jaxfix/cache/store.py).
    needs_fixed_code: bool = True
    # Whether the run shows each file's unsafe fixes as a preview (`--dry-run` printing text
    # without --unsafe-fixes): derived where the file is checked (jaxfix/check/unsafe_preview.py).
    previews_unsafe: bool = False
    _engines: _Engines = field(
        default_factory=_Engines, compare=False, repr=False, hash=False
    )

    @property
    def rules(self) -> tuple[RuleEntry, ...]:
        """The selected rules, as the registry reads them (nothing imported)."""
        from jaxfix.check.registry import selected_rules

        return selected_rules(self.options)

    def write_roots(self) -> tuple[str, ...]:
        """Where a fix's edit of another file than the one checked is written: the project is
        the scope, so a module outside the paths given (the constant another module's error
        reads) is written within the project's root (`real_roots`, taken now)."""
        from jaxfix.write.safe_write import real_roots

        return real_roots(
            (*self.project, *([self.scope_root] if self.scope_root else []))
        )

    def with_options(self, **changes: Any) -> Run:
        """The same run with some options changed (`unsafe_fixes`, `select`): the same
        project, files, cache and engine."""
        return replace(self, options=replace(self.options, **changes))

    def scoped(
        self,
        files: Sequence[Path],
        warn: Callable[[str], None] | None = None,
        walked: Path | None = None,
    ) -> Run:
        """The run over `files`: its scope (the project's files and these, or these alone
        without a project root) and its cache (refused with one `warn` line when its
        directory may not be used). `walked`: the directory `files` are all that discovery
        found under; when it is the project's root, they are the project's files (the tree
        is not walked twice)."""
        from jaxfix.sources.discovery import project_files

        if self.scope_root is None:
            scope = tuple(files)
        elif walked is not None and os.path.abspath(walked) == os.path.abspath(
            self.scope_root
        ):
            scope = tuple(dict.fromkeys(Path(os.path.abspath(p)) for p in files))
        else:
            scope = project_files(
                self.scope_root,
                list(files),
                self.options.exclude,
                self.options.all_includes,
            )
        cache = self._cache(scope, warn) if self.use_cache else self.cache
        if (
            cache is not None
        ):  # one given as it is (a program's own) learns the files too
            cache.scope = scope
        return replace(self, scope=scope, cache=cache, _engines=_Engines())

    def _cache(
        self, scope: tuple[Path, ...], warn: Callable[[str], None] | None
    ) -> Cache | None:
        if not self.use_cache or self.config is None:
            return None
        from jaxfix.cache.store import Cache, CacheDirError, cache_location

        flag = self.cache_dir if self.cache_dir_given else None
        try:
            location = cache_location(flag, self.config, list(self.project))
        except CacheDirError as error:
            if warn is not None:
                warn(f"{error}; running without the cache")
            return None
        if self.cache_within is not None and not Path(
            os.path.realpath(location)
        ).is_relative_to(os.path.realpath(self.cache_within)):
            return None
        return Cache(location, self.options, scope, self.roots)

    def engine(self, jax_version: tuple[int, ...] | None) -> Engine:
        """The run's engine for that JAX version while it checks; outside `checking`, a fresh
        one for each file (files may change between two calls, and a kept engine would not
        see it)."""
        from jaxfix.analysis.ast_engine import Engine

        engines = self._engines
        if not engines.checking:
            return Engine(self.roots, self.scope, jax_version)
        engine = engines.engines.get(jax_version)
        if engine is None:
            engine = Engine(self.roots, self.scope, jax_version, for_run=True)
            engine.project.summaries = engines.summaries
            engines.engines[jax_version] = engine
        return engine

    def share_summaries(self) -> None:
        """Before worker processes start: the directory where the run's processes leave
        what each module they parsed reads (jaxfix/check/summaries.py), made now so that
        every worker shares it."""
        if self._engines.summaries is not None:
            self._engines.summaries.prepare()

    @contextmanager
    def checking(self) -> Iterator[Run]:
        """Share one engine between the files checked in this block (worker processes
        started in it make their own), the collector's threshold raised for it."""
        engines = self._engines
        if engines.checking:
            yield self
            return
        from jaxfix.check.summaries import Summaries

        engines.checking = True
        engines.summaries = Summaries()
        thresholds = gc.get_threshold()
        if (
            thresholds[0] < GC_GENERATION_0
        ):  # for the run: workers forked in it inherit it
            gc.set_threshold(GC_GENERATION_0, *thresholds[1:])
        try:
            yield self
        finally:
            engines.checking, engines.engines = False, {}
            if engines.summaries is not None:
                engines.summaries.close()
                engines.summaries = None
            gc.set_threshold(*thresholds)
            gc.unfreeze()  # what the run's engine froze (its trees) is collected as usual


def build_run(
    paths: Sequence[Path],
    flags: Mapping[str, Any],
    *,
    config_file: Path | None = None,
    project: Sequence[Path] | None = None,
    whole_project: bool = True,
    cache: bool = False,
    cache_within: Path | None = None,
    warn: Callable[[str], None] | None = None,
) -> Run:
    """The run for `paths` (whose config, the first's, and whose project's jax pin are read;
    none: the working directory's config and no pin) with the command-line `flags` (setting
    name -> value; missing names are not given). `project`: where the project is found from
    (its import roots, the root its callers are looked for under, the cache; default:
    `paths`); `whole_project` False looks for callers among the run's files alone; `cache`
    keeps results in the cache directory (`flags["cache_dir"]`, else the config's or the
    project's), `cache_within` only when that is inside this folder. The config's notes go
    to `warn`. SettingError for a bad config or flag."""
    from jaxfix.cache.store import cache_dir
    from jaxfix.settings.config import build_options, load, project_roots, scope_root
    from jaxfix.settings.host_devices import pinned_by_environment
    from jaxfix.settings.target_version import target_version

    paths = list(paths)
    found_from = list(project) if project is not None else paths
    config = load(config_file, paths)
    for note in config.notes:
        if warn is not None:
            warn(note)
    options = build_options(config, flags, paths)
    if options.host_devices is None:
        pinned = pinned_by_environment(os.environ)
        if pinned is not None:
            options = replace(
                options, host_devices=pinned.devices, host_devices_by=pinned.by
            )
    target = target_version(config, flags.get("target_version"), paths)
    given = flags.get("cache_dir")
    return Run(
        options,
        config,
        target,
        roots=project_roots(config, found_from),
        scope_root=scope_root(config, found_from) if whole_project else None,
        cache_dir=cache_dir(given and Path(given), config, found_from),
        use_cache=cache,
        cache_within=cache_within,
        cache_dir_given=bool(given),
        project=tuple(found_from),
    )


def check_flags(flags: Mapping[str, Any]) -> None:
    """SettingError when the command-line `flags` are wrong whatever a config says (`jaxfix
    migrate` checks them once, before it reads each repository's config)."""
    from jaxfix.settings.config import build_options
    from jaxfix.settings.values import Config

    build_options(Config(None, {}), flags)
