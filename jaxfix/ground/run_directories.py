"""The private temporary directories a run makes for itself, and those runs killed before their
end left (SIGKILL: no `finally`, no `atexit`, so no removal).

A run's directory is `jaxfix-<kind>-<pid>-<random>` in the system's temporary directory, made
private (mode 0700); the run removes it at its end. Making one first removes the directories
of the same kind that no running process owns: a directory (not a link) of this user's, private
as a run makes it, named for a process that is gone, holding only what a run of that kind puts
there. Anything else is left as it is, and nothing outside the temporary directory is looked at.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from pathlib import Path


def make_run_directory(kind: str, holds: re.Pattern[str]) -> Path:
    """A new private directory of `kind` for this process's run; `holds`: what a run of that
    kind puts there, as `remove_abandoned` reads it."""
    from jaxfix.cache import warm_path

    temporary = Path(tempfile.gettempdir())
    with warm_path.unnoted():  # what else is there is no input of the run
        remove_abandoned(temporary, kind, holds)
    return Path(tempfile.mkdtemp(prefix=f"jaxfix-{kind}-{os.getpid()}-", dir=temporary))


def remove_abandoned(temporary: Path, kind: str, holds: re.Pattern[str]) -> None:
    """Remove the directories of `kind` in `temporary` whose process is gone, each when every
    item in it is one `holds` matches in full: a file by its name, a directory by its name and
    a `/` (the items of such a directory are not looked at)."""
    if os.name != "posix":
        return  # `os.kill(pid, 0)` asks whether a process runs only there
    owned = re.compile(re.escape(f"jaxfix-{kind}-") + r"([1-9][0-9]{0,9})-[a-z0-9_]+")
    try:
        names = [entry.name for entry in os.scandir(temporary)]
    except OSError:
        return
    for name in names:
        found = owned.fullmatch(name)
        if found is None or _is_running(int(found.group(1))):
            continue
        path = temporary / name
        if _holds_only(path, holds):
            shutil.rmtree(path, ignore_errors=True)  # never follows a link in it


def _is_running(pid: int) -> bool:
    """Whether a process `pid` exists (this user's or not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _holds_only(path: Path, holds: re.Pattern[str]) -> bool:
    """Whether `path` is a directory of this user's (not a link to one), private, whose every
    item `holds` matches (a link or any other kind of file in it: no)."""
    try:
        status = os.lstat(path)
        if (
            not stat.S_ISDIR(status.st_mode)
            or status.st_uid != os.getuid()
            or status.st_mode & 0o077
        ):
            return False
        with os.scandir(path) as items:
            return all(_spelled(item, holds) for item in items)
    except OSError:
        return False


def _spelled(item: os.DirEntry[str], holds: re.Pattern[str]) -> bool:
    if item.is_dir(follow_symlinks=False):
        return holds.fullmatch(f"{item.name}/") is not None
    return (
        item.is_file(follow_symlinks=False) and holds.fullmatch(item.name) is not None
    )
