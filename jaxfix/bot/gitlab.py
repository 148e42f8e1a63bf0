"""jaxfix's suggestions as GitLab merge-request discussions, kept current.

Endpoints (GitLab REST v4, "Discussions" and "Notes" of merge requests): the merge request's
`diff_refs` and `diffs` (which lines take a comment), its discussions (paginated by
`X-Next-Page`), a new diff discussion at `position[new_line]`, deleting a note, and one summary
note created or edited in place. A GitHub-style suggestion over lines `start..line` becomes
GitLab's ```` ```suggestion:-N+0 ```` block on `line`. A comment at a finding's origin
(`"origin": true`) is posted only where the merge request shows its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote

from jaxfix.bot.findings import MARKER
from jaxfix.bot.patches import commentable_lines
from jaxfix.bot.rest import ApiError, Client

SUMMARY_MARKER = "<!-- jaxfix-review -->"
_FENCE = re.compile(r"^(`{3,})suggestion$", re.MULTILINE)
# What the bot reads of GitLab's answers (jaxfix/bot/rest.py checks them before it does).
_MERGE_REQUEST = {
    "diff_refs": (
        {"base_sha": (str, None), "start_sha": (str, None), "head_sha": (str, None)},
        None,
    )
}
_DIFF = {"new_path": str, "old_path": (str, None), "diff": (str, None)}
_NOTE = {
    "id": int,
    "body": (str, None),
    "position": ({"new_path": (str, None), "new_line": (int, None)}, None),
    "system": (bool, None),
    "resolved": (bool, None),
}
_DISCUSSION = {"id": (str, int), "notes": ([_NOTE], None)}


@dataclass(frozen=True)
class MergeRequest:
    project: str  # CI_PROJECT_ID (numeric) or a URL-encoded path
    iid: int

    @property
    def path(self) -> str:
        return f"/projects/{self.project}/merge_requests/{self.iid}"


@dataclass
class Outcome:
    posted: int = 0
    kept: int = 0
    deleted: int = 0
    outside: list[dict] = field(default_factory=list)


def client(api_url: str, token: str) -> Client:
    return Client(
        api_url, {"PRIVATE-TOKEN": token, "User-Agent": "jaxfix-review-bot"}, token
    )


def gitlab_body(comment: dict) -> str:
    """The comment's Markdown with GitLab's suggestion syntax (lines above the commented one)."""
    above = comment["line"] - (comment.get("start_line") or comment["line"])
    return _FENCE.sub(
        lambda m: f"{m[1]}suggestion:-{above}+0", comment["body"], count=1
    )


def _summary(
    comments: list[dict], outside: list[dict], errors: tuple[str, ...], head_sha: str
) -> str:
    from jaxfix.bot.github import summary

    return (
        summary(comments, outside, errors, head_sha)
        .replace("GitHub attaches", "GitLab attaches")
        .replace("pull request", "merge request")
    )


def post_discussions(
    api: Client, mr: MergeRequest, comments: list[dict], errors: tuple[str, ...] = ()
) -> Outcome:
    outcome = Outcome()
    refs = api.request("GET", mr.path, shape=_MERGE_REQUEST).data.get("diff_refs") or {}
    if not all(refs.get(k) for k in ("base_sha", "start_sha", "head_sha")):
        raise ApiError("GET", mr.path, 0, "the merge request has no diff_refs yet")
    shown: dict[str, tuple[str, set[int]]] = {}
    for item in api.pages(f"{mr.path}/diffs", item=_DIFF):
        shown[item["new_path"]] = (
            item.get("old_path") or item["new_path"],
            commentable_lines(item.get("diff") or ""),
        )
    wanted = {}
    for comment in comments:
        old_path, lines = shown.get(comment["path"], (comment["path"], set()))
        first = comment.get("start_line") or comment["line"]
        if all(n in lines for n in range(first, comment["line"] + 1)):
            wanted[(comment["path"], comment["line"], gitlab_body(comment).strip())] = (
                comment,
                old_path,
            )
        elif not comment.get(
            "origin"
        ):  # an origin off the diff: its error's comment names it
            outcome.outside.append(comment)
    comments = [
        c
        for c in comments
        if not c.get("origin")
        or c in outcome.outside
        or any(c is w for w, _ in wanted.values())
    ]
    summary_note = None
    for discussion in list(
        api.pages(f"{mr.path}/discussions", item=_DISCUSSION)
    ):  # whole, before deleting
        for note in discussion.get("notes") or []:
            body = (note.get("body") or "").strip()
            position = note.get("position") or {}
            if SUMMARY_MARKER in body and not position:
                summary_note = note
                continue
            if not body.endswith(MARKER) or note.get("system"):
                continue
            key = (position.get("new_path"), position.get("new_line"), body)
            if key in wanted and not note.get("resolved"):
                del wanted[key]
                outcome.kept += 1
            elif _try(
                api,
                "DELETE",
                f"{mr.path}/discussions/{quote(str(discussion['id']), safe='')}/notes/{note['id']}",
            ):
                outcome.deleted += (
                    1  # another author's note that looks like ours is left alone
                )
    for (path, line, body), (_comment, old_path) in wanted.items():
        position = {
            "position_type": "text",
            "base_sha": refs["base_sha"],
            "start_sha": refs["start_sha"],
            "head_sha": refs["head_sha"],
            "new_path": path,
            "old_path": old_path,
            "new_line": line,
        }
        try:
            api.request(
                "POST", f"{mr.path}/discussions", {"body": body, "position": position}
            )
            outcome.posted += 1
        except ApiError as error:
            if (
                error.status != 400
            ):  # GitLab answers 400 for a position outside the diff
                raise
            outcome.outside.append(_comment)
    text = _summary(comments, outcome.outside, errors, refs["head_sha"])
    if summary_note is not None:
        if (summary_note.get("body") or "").strip() == text.strip() or _try(
            api, "PUT", f"{mr.path}/notes/{summary_note['id']}", {"body": text}
        ):
            return outcome
    if comments or errors or summary_note is not None:
        api.request("POST", f"{mr.path}/notes", {"body": text})
    return outcome


def _try(api: Client, method: str, path: str, body: dict | None = None) -> bool:
    """A change to a note the bot may not own: False when GitLab refuses it (403, 404)."""
    try:
        api.request(method, path, body)
    except ApiError as error:
        if error.status not in (403, 404):
            raise
        return False
    return True
