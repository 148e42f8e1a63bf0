"""One jaxfix review per pull request on GitHub, kept current.

Endpoints (GitHub REST, "Pull request reviews" and "Pull request review comments"):
list reviews and a review's comments, create a review with `comments` (line/side, start_line/
start_side for ranges), update a review's body, delete a review comment, list the pull
request's files (their patches say which lines take comments).

On each run: comments jaxfix still makes stay as they are; comments it no longer makes are
deleted; new ones are posted in one new review. With nothing new, the previous review's
summary is updated instead of posting another. A comment on a line outside the diff cannot be
attached (GitHub answers 422): it is listed in the review's summary instead, never dropped;
but a comment at a finding's origin (`"origin": true`, a config file's line holding the value
the error is about) is posted only where the pull request shows that line: the comment at the
line that raises names it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from jaxfix.bot.findings import MARKER
from jaxfix.bot.patches import commentable_lines
from jaxfix.bot.rest import ApiError, Client
from jaxfix.ground.escaping import markdown_code, no_mentions, printable

REVIEW_MARKER = "<!-- jaxfix-review -->"
API_VERSION = "2022-11-28"
# What the bot reads of GitHub's answers (jaxfix/bot/rest.py checks them before it does).
_FILE = {"filename": str, "patch": (str, None)}
_REVIEW = {"id": int, "body": (str, None), "user": ({"login": (str, None)}, None)}
_COMMENT = {
    "id": int,
    "path": (str, None),
    "line": (int, None),
    "start_line": (int, None),
    "side": (str, None),
    "body": (str, None),
}
_CREATED = {"id": int}


@dataclass(frozen=True)
class PullRequest:
    owner: str
    repo: str
    number: int
    head_sha: str

    @property
    def path(self) -> str:
        return f"/repos/{self.owner}/{self.repo}/pulls/{self.number}"


@dataclass
class Outcome:
    posted: int = 0
    kept: int = 0
    deleted: int = 0
    outside: list[dict] = field(
        default_factory=list
    )  # comments GitHub would not attach
    review_id: int | None = None
    updated_review: bool = False


def client(api_url: str, token: str) -> Client:
    return Client(
        api_url,
        {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {token}",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": "jaxfix-review-bot",
        },
        token,
    )


def _key(comment: dict) -> tuple:
    start = comment.get("start_line")
    line = comment.get("line")
    return (
        comment.get("path"),
        start if start != line else None,
        line,
        comment.get("side") or "RIGHT",
        (comment.get("body") or "").strip(),
    )


def _ours(review: dict, login: str | None) -> bool:
    user = (review.get("user") or {}).get("login")
    return REVIEW_MARKER in (review.get("body") or "") and (
        login is None or user == login
    )


def _line_text(comment: dict) -> str:
    start, line = comment.get("start_line"), comment["line"]
    return (
        f"{comment['path']}:{start}-{line}"
        if start and start != line
        else f"{comment['path']}:{line}"
    )


def summary(
    comments: list[dict], outside: list[dict], errors: tuple[str, ...], head_sha: str
) -> str:
    """The review's body: counts, what could not be attached (with its text), jaxfix's errors."""
    parts = [
        f"**jaxfix** at {head_sha[:12]}: {len(comments)} suggestion{'s' if len(comments) != 1 else ''} or finding{'s' if len(comments) != 1 else ''} on this pull request's lines."
    ]
    if not comments and not errors:
        parts = [
            f"**jaxfix** at {head_sha[:12]}: nothing left to fix on this pull request's lines."
        ]
    if outside:
        parts.append(
            "Outside the diff (GitHub attaches comments only to lines the pull request shows):"
        )
        for comment in outside:
            body = comment["body"].replace(MARKER, "").strip()
            where = no_mentions(
                html.escape(printable(_line_text(comment)))
            )  # a file name in raw HTML: no tag and no @-mention may come out of it
            parts.append(f"<details><summary>{where}</summary>\n\n{body}\n\n</details>")
    if errors:
        parts.append(
            "jaxfix could not check some files:\n\n"
            + "\n".join(f"- {markdown_code(line)}" for line in errors[:20])
        )
    return "\n\n".join([*parts, REVIEW_MARKER])


def post_review(
    api: Client,
    pr: PullRequest,
    comments: list[dict],
    errors: tuple[str, ...] = (),
    login: str | None = None,
) -> Outcome:
    outcome = Outcome()
    shown: dict[str, set[int]] = {}
    for item in api.pages(f"{pr.path}/files", item=_FILE):
        shown[item["filename"]] = commentable_lines(item.get("patch") or "")
    attachable, outside = [], []
    for comment in comments:
        lines = shown.get(comment["path"], set())
        first = comment.get("start_line") or comment["line"]
        if all(n in lines for n in range(first, comment["line"] + 1)):
            attachable.append(comment)
        elif not comment.get(
            "origin"
        ):  # an origin off the diff: its error's comment names it
            outside.append(comment)
    comments = [c for c in comments if c in attachable or c in outside]

    previous = [
        r for r in api.pages(f"{pr.path}/reviews", item=_REVIEW) if _ours(r, login)
    ]
    existing: dict[tuple, dict] = {}
    for review in previous:
        for old in list(
            api.pages(f"{pr.path}/reviews/{review['id']}/comments", item=_COMMENT)
        ):  # whole, before deleting
            if (
                old.get("line") is None
            ):  # outdated: GitHub no longer shows it on the diff
                _delete(api, pr, old, outcome)
            elif _key(old) in existing or _key(old) not in {
                _key(c) for c in attachable
            }:
                _delete(api, pr, old, outcome)
            else:
                existing[_key(old)] = old
    new = [c for c in attachable if _key(c) not in existing]
    outcome.kept = len(existing)
    outcome.outside = outside
    body = summary(comments, outside, errors, pr.head_sha)
    if new:
        payload = {
            "commit_id": pr.head_sha,
            "event": "COMMENT",
            "body": body,
            "comments": [_clean(c) for c in new],
        }
        try:
            created = api.request(
                "POST", f"{pr.path}/reviews", payload, shape=_CREATED
            ).data
        except ApiError as error:
            if error.status != 422:
                raise
            outcome.outside = (
                outside + new
            )  # GitHub would not attach them: keep them in the summary
            body = summary(comments, outcome.outside, errors, pr.head_sha)
            created = api.request(
                "POST",
                f"{pr.path}/reviews",
                {"commit_id": pr.head_sha, "event": "COMMENT", "body": body},
                shape=_CREATED,
            ).data
        else:
            outcome.posted = len(new)
        outcome.review_id = created["id"]
        for review in previous:  # the newest review carries the summary
            _update(
                api,
                pr,
                review["id"],
                f"Superseded by jaxfix's newer review.\n\n{REVIEW_MARKER}",
            )
    elif previous:
        latest = previous[-1]
        if (latest.get("body") or "").strip() != body.strip():
            _update(api, pr, latest["id"], body)
            outcome.updated_review = True
        outcome.review_id = latest["id"]
    elif comments or errors:  # nothing attachable, nothing before: the summary alone
        outcome.review_id = api.request(
            "POST",
            f"{pr.path}/reviews",
            {"commit_id": pr.head_sha, "event": "COMMENT", "body": body},
            shape=_CREATED,
        ).data["id"]
    return outcome


def _clean(comment: dict) -> dict:
    fields = ("path", "line", "side", "start_line", "start_side", "body")
    return {k: comment[k] for k in fields if k in comment}


def _delete(api: Client, pr: PullRequest, comment: dict, outcome: Outcome) -> None:
    try:
        api.request(
            "DELETE", f"/repos/{pr.owner}/{pr.repo}/pulls/comments/{comment['id']}"
        )
    except ApiError as error:
        if error.status not in (403, 404):  # not the bot's to delete, or gone already
            raise
        return
    outcome.deleted += 1


def _update(api: Client, pr: PullRequest, review_id: int, body: str) -> None:
    api.request("PUT", f"{pr.path}/reviews/{review_id}", {"body": body})
