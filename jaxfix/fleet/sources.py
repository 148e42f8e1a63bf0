"""What a line of `--repos` names: a local work tree, or a repository git can clone (`URL[@branch]`)."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# git's scp-like syntax, [user@]host:path: a colon before any slash.
_SCP = re.compile(r"^(?:[^@/:]+@)?[^@/:]+:")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class RepoSource:
    """One repository of the fleet; `key` names it in the report and is what a resume matches."""

    key: str  # the work tree's real path, or the text given for a URL
    name: str  # for the report's tables and the patch and bundle file names
    url: str | None = None  # None: migrate the work tree at `key` in place
    ref: str | None = (
        None  # the branch to clone (`URL@branch`); None: the remote's default
    )
    rebuild: str | None = (
        None  # the branch may be replaced while it is still this commit
    )
    verify: str | None = None  # its own verify command (`--repos` line's `verify:`)

    @property
    def remote(self) -> bool:
        return self.url is not None


def matches(source: RepoSource, patterns: tuple[str, ...]) -> bool:
    """`--filter`: the repository's name or its path (URL) matches one of the globs."""
    return any(
        fnmatch.fnmatchcase(source.name, p) or fnmatch.fnmatchcase(source.key, p)
        for p in patterns
    )


_VERIFY = re.compile(r"\s+verify:\s")
BRANCH_FIELD = "{name}"


def list_line(line: str) -> tuple[str, str | None]:
    """A `--repos` line's repository and its own verify command (`REPO  verify: CMD`): the
    fleet owner's list chooses commands, never a repository's own files."""
    split = _VERIFY.search(line)
    if split is None or " #" in line[: split.start()]:
        return line, None
    command = line[split.end() :].strip()
    return line[: split.start()], command or None


def branch_for(template: str, name: str) -> str:
    """`--branch` with `{name}` replaced by the repository's name in the run."""
    return template.replace(BRANCH_FIELD, name)


def from_list_file(text: str, directory: Path) -> str:
    """A `--repos` line as given on the command line: a relative path is the list file's."""
    text = text.strip()
    if _SCHEME.match(text) or _SCP.match(text) or not text:
        return text
    path = Path(os.path.expanduser(text))
    return text if path.is_absolute() else str(directory / path)


def parse_source(text: str) -> RepoSource:
    """A URL git accepts (`file://` included) or a path; a path to a bare repository is cloned like a URL."""
    text = text.strip()
    if _SCHEME.match(text) or _SCP.match(text):
        url, ref = _split_ref(text, _path_start(text))
        return RepoSource(key=text, name=_name(url), url=url, ref=ref)
    path = os.path.realpath(os.path.expanduser(text))
    if _is_bare(path):
        return RepoSource(key=path, name=_name(path), url=Path(path).as_uri())
    if "@" in text:
        head, ref = text.rsplit("@", 1)
        bare = os.path.realpath(os.path.expanduser(head))
        if ref and _is_bare(bare):
            return RepoSource(
                key=f"{bare}@{ref}", name=_name(bare), url=Path(bare).as_uri(), ref=ref
            )
    return RepoSource(key=path, name=Path(path).name)


def unique_names(sources: list[RepoSource]) -> list[RepoSource]:
    """Repositories sharing a name are each named by the shortest path suffix that tells it
    apart from the others (`team-a/repo`, `team-b/repo`), plus `@branch` where only that differs."""
    groups: dict[str, list[RepoSource]] = {}
    for source in sources:
        groups.setdefault(source.name, []).append(source)
    renamed: dict[str, str] = {}
    for group in groups.values():
        if len(group) == 1:
            continue
        parts = {source.key: _name_parts(source) for source in group}
        for source in group:
            mine = parts[source.key]
            others = [p for key, p in parts.items() if key != source.key]
            count = next(
                (
                    n
                    for n in range(1, len(mine) + 1)
                    if all(p[-n:] != mine[-n:] for p in others if p != mine)
                ),
                len(mine),
            )
            name = "/".join(mine[-count:])
            if source.ref and any(p == mine for p in others):
                name += f"@{source.ref}"
            renamed[source.key] = name
    return [
        replace(source, name=renamed[source.key]) if source.key in renamed else source
        for source in sources
    ]


def _name_parts(source: RepoSource) -> list[str]:
    """The path's components, each made safe as `_name` does, the last without `.git`."""
    where = source.url or source.key
    if source.url is not None:
        where = where[_path_start(where) :]
    components = [c for c in where.replace(":", "/").split("/") if c]
    if components:
        components[-1] = components[-1].removesuffix(".git")
    return [_UNSAFE_NAME.sub("-", c).strip("-.") or "-" for c in components] or [
        source.name
    ]


def _path_start(url: str) -> int:
    scheme = _SCHEME.match(url)
    if scheme:
        slash = url.find("/", scheme.end())
        return len(url) if slash < 0 else slash
    return url.index(":") + 1


def _split_ref(url: str, path_start: int) -> tuple[str, str | None]:
    """`URL@branch` -> (URL, branch); an `@` before the path is the user name's."""
    at = url.rfind("@", path_start)
    if at < 0 or at == len(url) - 1:
        return url, None
    return url[:at], url[at + 1 :]


def _name(url: str) -> str:
    last = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
    return _UNSAFE_NAME.sub("-", last).strip("-.") or "repository"


def _is_bare(path: str) -> bool:
    """A git directory without a work tree (what `git init --bare` and `git clone --mirror` make)."""
    root = Path(path)
    return (
        (root / "HEAD").is_file()
        and (root / "objects").is_dir()
        and (root / "refs").is_dir()
    )
