"""Pull and merge requests for the branches a fleet run pushed (`jaxfix migrate --open-pr`).

Opened from the `jaxfix` process, never from a worker: the token (from the environment) stays
there, and goes only to the API's origin (jaxfix/bot/rest.py, the review bot's client). One
request per repository and branch: an open one for the branch is looked up first and kept, so a
re-run, or a run whose report was lost, opens no second one. Title and body come from the
report; everything in them that a repository wrote (file names, messages) is escaped for
Markdown and can mention nobody.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

from jaxfix import __version__
from jaxfix.bot import github, gitlab
from jaxfix.bot.rest import ApiError, Client
from jaxfix.ground.escaping import markdown_code, markdown_text, no_mentions
from jaxfix.workflows.migrate_report import RepoReport

HOSTS = ("github", "gitlab")
TOKEN_VARIABLES = {"github": "GITHUB_TOKEN", "gitlab": "GITLAB_TOKEN"}
DEFAULT_API = {
    "github": "https://api.github.com",
    "gitlab": "https://gitlab.com/api/v4",
}
TITLE = "Fix JAX sharding code that recent JAX releases reject"
_LISTED = 20  # diagnostics left, in the body
_PULL = {"html_url": str, "number": int}
_MERGE = {"web_url": str, "iid": int}
_PROJECT = {"default_branch": (str, None)}


@dataclass(frozen=True)
class CodeHost:
    kind: str  # "github" or "gitlab"
    api_url: str
    token: str = ""

    def client(self) -> Client:
        make = github.client if self.kind == "github" else gitlab.client
        return make(self.api_url, self.token)


def project_path(url: str) -> str:
    """The repository's path on its host, without `.git`: `owner/repo`, `group/sub/repo`."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path if parts.scheme else url.split(":", 1)[-1]  # git@host:org/repo
    return path.strip("/").removesuffix(".git").strip("/")


def title(message: str | None) -> str:
    """The commit's subject: `--message`'s first line, else the default commit message's."""
    first = (message or "").strip().splitlines()
    return first[0][:250] if first else TITLE


def _text(text: str) -> str:
    """Text from the report outside code: escaped, and no `@` in it mentions anyone (inside a
    code span the hosts look for no mention)."""
    return no_mentions(markdown_text(text))


def body(entry: RepoReport) -> str:
    """What the report says of the repository, in Markdown."""
    files = len(entry.files_changed)
    shown = ", ".join(markdown_code(name) for name in entry.files_changed[:_LISTED])
    lines = [
        f"`jaxfix migrate` (jaxfix {_text(__version__)}) changed {files} "
        f"file{'s' if files != 1 else ''} in commit {markdown_code(entry.commit or '')}.",
        "",
        "| rule | fixes |",
        "|---|---:|",
        *(f"| {_text(code)} | {count} |" for code, count in entry.fixes),
        "",
        f"Files: {shown}" + (f" and {files - _LISTED} more" if files > _LISTED else ""),
    ]
    if entry.target_jax:
        lines.append(f"Checked against JAX {_text(entry.target_jax)}.")
    if entry.verify is not None:
        lines.append(
            f"Verified with {markdown_code(entry.verify.command)}: "
            + ("passed." if entry.verify.passed else "failed.")
        )
    if entry.left:
        lines += ["", f"{len(entry.left)} finding(s) left for a person:", ""]
        lines += [f"- {markdown_code(item)}" for item in entry.left[:_LISTED]]
        if len(entry.left) > _LISTED:
            lines.append(f"- and {len(entry.left) - _LISTED} more")
    return "\n".join(lines) + "\n"


def open_request(
    host: CodeHost, api: Client, entry: RepoReport, url: str, message: str | None
) -> str:
    """The web address of the open pull (merge) request of the entry's branch: the one already
    open, else a new one. Raises ApiError."""
    assert entry.branch is not None
    path = project_path(url)
    if host.kind == "github":
        return _github(api, path, entry, message)
    return _gitlab(api, path, entry, message)


def _github(api: Client, path: str, entry: RepoReport, message: str | None) -> str:
    owner, _, name = path.rpartition("/")
    owner = owner.rpartition("/")[2]
    if not owner or not name:
        raise ApiError("GET", path, 0, "no owner/repository in the URL's path")
    repo = f"/repos/{_segment(owner)}/{_segment(name)}"
    head = f"{owner}:{entry.branch}"
    for pull in api.pages(f"{repo}/pulls", {"head": head, "state": "open"}, _PULL):
        return str(pull["html_url"])
    base = entry.base_branch or _default_branch(api, repo)
    request = {"title": title(message), "head": entry.branch, "base": base}
    data = api.request(
        "POST", f"{repo}/pulls", {**request, "body": body(entry)}, shape=_PULL
    ).data
    return str(data["html_url"])


def _gitlab(api: Client, path: str, entry: RepoReport, message: str | None) -> str:
    project = f"/projects/{_segment(path)}"
    query = {"source_branch": entry.branch, "state": "opened"}
    for merge in api.pages(f"{project}/merge_requests", query, _MERGE):
        return str(merge["web_url"])
    target = entry.base_branch or _default_branch(api, project)
    request: dict[str, Any] = {
        "source_branch": entry.branch,
        "target_branch": target,
        "title": title(message),
        "description": body(entry),
    }
    data = api.request("POST", f"{project}/merge_requests", request, shape=_MERGE).data
    return str(data["web_url"])


def _default_branch(api: Client, path: str) -> str:
    branch = api.request("GET", path, shape=_PROJECT).data.get("default_branch")
    if not branch:
        raise ApiError("GET", path, 0, "the host names no default branch to merge into")
    return str(branch)


def _segment(text: str) -> str:
    """One path segment of the API's URL, whatever the repository's path holds."""
    return urllib.parse.quote(text, safe="")
