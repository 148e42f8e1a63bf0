"""A local stand-in for GitHub's and GitLab's REST APIs, on 127.0.0.1, for the review bot.

It checks each request against the hosts' documented shapes (paths, methods, required headers,
fields, the line/side/start_line rules of review comments, suggestion block syntax) and answers
as they do: 422 for a review comment outside the diff (GitHub), 400 for a discussion position
outside it (GitLab), pagination by `Link` / `X-Next-Page`, and rate-limit answers on request.
Every request is recorded; a request that breaks the documented shape fails the test.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from jaxfix.bot.patches import commentable_lines

PAGE = (
    2  # items per page whatever per_page asks: small, so that every list is paginated
)
_SHA = re.compile(r"^[0-9a-f]{40}$")
_OPEN = re.compile(r"^(`{3,})suggestion(:-(\d+)\+(\d+))?$")


def suggestion_blocks(body: str) -> list[tuple[str, list[str]]]:
    """(info string, lines) of each suggestion block; an unclosed fence is a broken body."""
    lines, blocks, i = body.split("\n"), [], 0
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if opened:
            fence = opened[1]
            end = next((j for j in range(i + 1, len(lines)) if lines[j] == fence), None)
            assert end is not None, (
                f"suggestion fence {fence!r} is never closed:\n{body}"
            )
            blocks.append((lines[i][len(fence) :], lines[i + 1 : end]))
            i = end
        i += 1
    return blocks


@dataclass
class Answer:
    """A hostile or odd answer to one path: `{next}` in a header value is the next page's number
    (the request's `page` + 1), `reason` the status line's phrase, `data` JSON (None: no body)."""

    status: int = 200
    data: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    reason: str | None = None


@dataclass
class Host:
    """What the fake host holds and what it was asked."""

    patches: dict[str, str] = field(
        default_factory=dict
    )  # path -> unified diff of the PR
    reviews: list[dict] = field(default_factory=list)
    review_comments: dict[int, list[dict]] = field(default_factory=dict)
    discussions: list[dict] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    violations: list[str] = field(
        default_factory=list
    )  # requests that break the documented shape
    rate_limit: list[dict[str, str]] = field(
        default_factory=list
    )  # headers of the next rate-limited answers
    refuse_lines: set[tuple[str, int]] = field(
        default_factory=set
    )  # lines GitHub 422s though the patch shows them
    answers: dict[str, Answer] = field(
        default_factory=dict
    )  # path -> what the host answers there instead
    tokens_seen: list[str | None] = field(
        default_factory=list
    )  # each request's Authorization or PRIVATE-TOKEN header
    request_limit: int = 10_000  # more requests than this: 500 and a violation
    pulls: list[dict] = field(
        default_factory=list
    )  # pull and merge requests opened (jaxfix migrate --open-pr)
    default_branch: str = "main"
    login: str = "github-actions[bot]"
    token: str = "secret-token"
    head_sha: str = "0" * 40
    next_id: int = 100

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def writes(self, method: str | None = None) -> list[tuple[str, str, Any]]:
        return [
            r
            for r in self.requests
            if r[0] != "GET" and (method is None or r[0] == method)
        ]


class _Handler(BaseHTTPRequestHandler):
    host: Host
    server_version = "fake"

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _send(
        self,
        status: int,
        data: Any = None,
        headers: dict[str, str] | None = None,
        reason: str | None = None,
    ) -> None:
        raw = b"" if data is None else json.dumps(data).encode()
        self.send_response(status, reason)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)

    def _page(self, items: list[dict], style: str) -> None:
        query = parse_qs(urlsplit(self.path).query)
        assert query.get("per_page") == ["100"] or "page" in query, (
            f"no per_page on a list request: {self.path}"
        )
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * PAGE : page * PAGE]
        headers = {}
        if page * PAGE < len(items):
            if style == "github":
                base = f"http://{self.headers['Host']}{urlsplit(self.path).path}"
                headers["Link"] = (
                    f'<{base}?per_page=100&page={page + 1}>; rel="next", <{base}?page=1>; rel="first"'
                )
            else:
                headers["X-Next-Page"] = str(page + 1)
        else:
            headers["X-Next-Page"] = "" if style == "gitlab" else None  # type: ignore[assignment]
        self._send(200, chunk, {k: v for k, v in headers.items() if v is not None})

    def _handle(self, method: str) -> None:
        try:
            self._answer(method)
        except (AssertionError, KeyError, TypeError, ValueError) as error:
            self.host.violations.append(
                f"{method} {self.path}: {type(error).__name__}: {error}"
            )
            self._send(
                400,
                {"message": f"fake host: request breaks the documented shape: {error}"},
            )

    def _answer(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        path = urlsplit(self.path).path
        self.host.requests.append((method, path, body))
        self.host.tokens_seen.append(
            self.headers.get("Authorization") or self.headers.get("PRIVATE-TOKEN")
        )
        if len(self.host.requests) > self.host.request_limit:
            self.host.violations.append(f"more than {self.host.request_limit} requests")
            return self._send(500, {"message": "fake host: too many requests"})
        if path in self.host.answers:
            answer = self.host.answers[path]
            page = int(parse_qs(urlsplit(self.path).query).get("page", ["1"])[0])
            return self._send(
                answer.status,
                answer.data,
                {
                    k: v.replace("{next}", str(page + 1))
                    for k, v in answer.headers.items()
                },
                answer.reason,
            )
        if self.host.rate_limit:
            headers = self.host.rate_limit.pop(0)
            return self._send(
                int(headers.pop("status", "403")),
                {"message": "API rate limit exceeded"},
                headers,
            )
        if path.startswith("/repos/"):
            return self._github(method, path, body)
        if path.startswith("/api/v4/"):
            return self._gitlab(method, path.removeprefix("/api/v4"), body)
        self._send(404, {"message": "Not Found"})

    do_GET = lambda self: self._handle("GET")  # noqa: E731
    do_POST = lambda self: self._handle("POST")  # noqa: E731
    do_PUT = lambda self: self._handle("PUT")  # noqa: E731
    do_DELETE = lambda self: self._handle("DELETE")  # noqa: E731

    # GitHub -----------------------------------------------------------------------------------
    def _github(self, method: str, path: str, body: Any) -> None:
        host = self.host
        assert self.headers.get("Authorization") == f"Bearer {host.token}", (
            "missing or wrong Authorization"
        )
        assert self.headers.get("Accept") == "application/vnd.github+json"
        assert self.headers.get("X-GitHub-Api-Version") == "2022-11-28"
        assert self.headers.get("User-Agent"), (
            "GitHub refuses requests without a User-Agent"
        )
        opened = re.fullmatch(r"/repos/([^/]+)/([^/]+)/pulls", path)
        if opened:
            return self._github_pulls(method, opened[1], opened[2], body)
        project = re.fullmatch(r"/repos/([^/]+)/([^/]+)", path)
        if project and method == "GET":
            return self._send(200, {"default_branch": host.default_branch})
        pull = re.fullmatch(r"/repos/owner/repo/pulls/7(/.*)?", path)
        comment = re.fullmatch(r"/repos/owner/repo/pulls/comments/(\d+)", path)
        if comment and method == "DELETE":
            for review_id, comments in host.review_comments.items():
                for item in comments:
                    if item["id"] == int(comment[1]):
                        review = next(r for r in host.reviews if r["id"] == review_id)
                        if review["user"]["login"] != host.login:
                            return self._send(
                                403, {"message": "Must have admin rights"}
                            )
                        comments.remove(item)
                        return self._send(204)
            return self._send(404, {"message": "Not Found"})
        assert pull, f"unexpected path {path}"
        rest = pull[1] or ""
        if method == "GET" and rest == "/files":
            return self._page(
                [
                    {"filename": p, "status": "modified", "patch": patch}
                    for p, patch in host.patches.items()
                ],
                "github",
            )
        if method == "GET" and rest == "/reviews":
            return self._page(host.reviews, "github")
        listed = re.fullmatch(r"/reviews/(\d+)/comments", rest)
        if method == "GET" and listed:
            return self._page(host.review_comments.get(int(listed[1]), []), "github")
        updated = re.fullmatch(r"/reviews/(\d+)", rest)
        if method == "PUT" and updated:
            assert set(body) == {"body"} and isinstance(body["body"], str)
            review = next(r for r in host.reviews if r["id"] == int(updated[1]))
            if review["user"]["login"] != host.login:
                return self._send(
                    403, {"message": "Resource not accessible by integration"}
                )
            review["body"] = body["body"]
            return self._send(200, review)
        if method == "POST" and rest == "/reviews":
            return self._create_review(body)
        self._send(404, {"message": "Not Found"})

    def _github_pulls(self, method: str, owner: str, repo: str, body: Any) -> None:
        """List (`head=owner:branch`, `state`) and create pull requests; a second open one for
        the same head is refused with 422, as GitHub does."""
        host = self.host
        mine = [p for p in host.pulls if p["repo"] == f"{owner}/{repo}"]
        if method == "GET":
            query = parse_qs(urlsplit(self.path).query)
            assert query["state"] == ["open"] and query["head"][0].count(":") == 1
            head = query["head"][0].split(":", 1)[1]
            return self._page(
                [p for p in mine if p["head"] == head and p["state"] == "open"],
                "github",
            )
        assert method == "POST", method
        assert (
            {"title", "head", "base"}
            <= set(body)
            <= {
                "title",
                "head",
                "base",
                "body",
                "draft",
                "maintainer_can_modify",
            }
        ), body
        assert all(
            isinstance(body[k], str) and body[k] for k in ("title", "head", "base")
        )
        if any(p["head"] == body["head"] and p["state"] == "open" for p in mine):
            return self._send(
                422,
                {
                    "message": "Validation Failed",
                    "errors": [
                        {
                            "message": f"A pull request already exists for {owner}:{body['head']}."
                        }
                    ],
                },
            )
        number = host.new_id()
        pull = {
            **body,
            "repo": f"{owner}/{repo}",
            "state": "open",
            "number": number,
            "html_url": f"https://github.example/{owner}/{repo}/pull/{number}",
        }
        host.pulls.append(pull)
        self._send(201, pull)

    def _create_review(self, body: dict) -> None:
        host = self.host
        assert set(body) <= {"commit_id", "body", "event", "comments"}, body.keys()
        assert _SHA.match(body["commit_id"]) and body["commit_id"] == host.head_sha
        assert body["event"] in ("APPROVE", "REQUEST_CHANGES", "COMMENT")
        assert body["event"] == "APPROVE" or body.get("body"), (
            "COMMENT and REQUEST_CHANGES need a body"
        )
        for item in body.get("comments", []):
            assert {"path", "body", "line"} <= set(item) and set(item) <= {
                "path",
                "body",
                "line",
                "side",
                "start_line",
                "start_side",
            }, item
            assert item.get("side", "RIGHT") in ("LEFT", "RIGHT")
            if "start_line" in item:
                assert item["start_line"] < item["line"], "start_line must precede line"
                assert item.get("start_side", item.get("side")) in ("LEFT", "RIGHT")
            for info, lines in suggestion_blocks(item["body"]):
                assert info == "suggestion", (
                    f"GitHub's suggestion block has no range: {info!r}"
                )
            shown = commentable_lines(host.patches.get(item["path"], ""))
            span = range(item.get("start_line", item["line"]), item["line"] + 1)
            if not all(n in shown for n in span) or any(
                (item["path"], n) in host.refuse_lines for n in span
            ):
                return self._send(
                    422,
                    {
                        "message": "Unprocessable Entity",
                        "errors": [
                            "Pull request review thread line must be part of the diff"
                        ],
                        "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request",
                    },
                )
        review = {
            "id": host.new_id(),
            "user": {"login": host.login, "type": "Bot"},
            "body": body.get("body", ""),
            "state": "COMMENTED",
            "commit_id": body["commit_id"],
        }
        host.reviews.append(review)
        host.review_comments[review["id"]] = [
            {
                "id": host.new_id(),
                "pull_request_review_id": review["id"],
                "path": c["path"],
                "line": c["line"],
                "start_line": c.get("start_line"),
                "side": c.get("side", "RIGHT"),
                "body": c["body"],
                "original_line": c["line"],
                "commit_id": body["commit_id"],
            }
            for c in body.get("comments", [])
        ]
        self._send(200, review)

    # GitLab -----------------------------------------------------------------------------------
    def _gitlab(self, method: str, path: str, body: Any) -> None:
        host = self.host
        assert self.headers.get("PRIVATE-TOKEN") == host.token, (
            "missing or wrong PRIVATE-TOKEN"
        )
        merges = re.fullmatch(r"/projects/([^/]+)/merge_requests", path)
        if merges:
            return self._gitlab_merges(method, merges[1], body)
        project = re.fullmatch(r"/projects/([^/]+)", path)
        if project and method == "GET":
            assert "/" not in project[1]
            return self._send(200, {"default_branch": host.default_branch})
        match = re.fullmatch(r"/projects/42/merge_requests/3(/.*)?", path)
        assert match, f"unexpected path {path}"
        rest = match[1] or ""
        refs = {"base_sha": "b" * 40, "start_sha": "s" * 40, "head_sha": host.head_sha}
        if method == "GET" and rest == "":
            return self._send(200, {"iid": 3, "diff_refs": refs})
        if method == "GET" and rest == "/diffs":
            return self._page(
                [
                    {"old_path": p, "new_path": p, "diff": d}
                    for p, d in host.patches.items()
                ],
                "gitlab",
            )
        if method == "GET" and rest == "/discussions":
            return self._page(host.discussions, "gitlab")
        if method == "POST" and rest == "/discussions":
            position = body["position"]
            assert set(body) == {"body", "position"}
            assert (
                position["position_type"] == "text"
                and {k: position[k] for k in refs} == refs
            )
            assert {"new_path", "old_path", "new_line"} <= set(position)
            for info, lines in suggestion_blocks(body["body"]):
                assert re.fullmatch(r"suggestion:-\d+\+\d+", info), (
                    f"GitLab suggestion range missing: {info!r}"
                )
                above = int(re.search(r"-(\d+)", info)[1])
                assert all(
                    n in commentable_lines(host.patches[position["new_path"]])
                    for n in range(
                        position["new_line"] - above, position["new_line"] + 1
                    )
                )
            if position["new_line"] not in commentable_lines(
                host.patches.get(position["new_path"], "")
            ):
                return self._send(
                    400, {"message": {"base": ["line_code can't be blank"]}}
                )
            note = {
                "id": host.new_id(),
                "body": body["body"],
                "author": {"username": "jaxfix-bot"},
                "position": position,
                "system": False,
                "resolved": False,
            }
            discussion = {"id": f"d{host.new_id()}", "notes": [note]}
            host.discussions.append(discussion)
            return self._send(201, discussion)
        note = re.fullmatch(r"/discussions/(d\d+)/notes/(\d+)", rest)
        if method == "DELETE" and note:
            for discussion in host.discussions:
                if discussion["id"] == note[1]:
                    discussion["notes"] = [
                        n for n in discussion["notes"] if n["id"] != int(note[2])
                    ]
            host.discussions = [d for d in host.discussions if d["notes"]]
            return self._send(204)
        if method == "POST" and rest == "/notes":
            assert set(body) == {"body"}
            note = {
                "id": host.new_id(),
                "body": body["body"],
                "author": {"username": "jaxfix-bot"},
                "system": False,
            }
            host.notes.append(note)
            host.discussions.append(
                {"id": f"d{host.new_id()}", "individual_note": True, "notes": [note]}
            )
            return self._send(201, note)
        edited = re.fullmatch(r"/notes/(\d+)", rest)
        if method == "PUT" and edited:
            for discussion in host.discussions:
                for item in discussion["notes"]:
                    if item["id"] == int(edited[1]):
                        item["body"] = body["body"]
                        return self._send(200, item)
            return self._send(404, {"message": "404 Not found"})
        self._send(404, {"message": "404 Not found"})

    def _gitlab_merges(self, method: str, project: str, body: Any) -> None:
        """List (`source_branch`, `state=opened`) and create merge requests; a second open one
        for the same branches is refused with 409, as GitLab does."""
        host = self.host
        mine = [p for p in host.pulls if p["project"] == project]
        if method == "GET":
            query = parse_qs(urlsplit(self.path).query)
            assert query["state"] == ["opened"]
            branch = query["source_branch"][0]
            return self._page(
                [
                    p
                    for p in mine
                    if p["source_branch"] == branch and p["state"] == "opened"
                ],
                "gitlab",
            )
        assert method == "POST", method
        assert (
            {"source_branch", "target_branch", "title"}
            <= set(body)
            <= {
                "source_branch",
                "target_branch",
                "title",
                "description",
                "remove_source_branch",
            }
        ), body
        if any(
            p["source_branch"] == body["source_branch"] and p["state"] == "opened"
            for p in mine
        ):
            return self._send(
                409,
                {
                    "message": [
                        "Another open merge request already exists for this source branch"
                    ]
                },
            )
        iid = host.new_id()
        merge = {
            **body,
            "project": project,
            "state": "opened",
            "iid": iid,
            "web_url": f"https://gitlab.example/{project}/-/merge_requests/{iid}",
        }
        host.pulls.append(merge)
        self._send(201, merge)


class Server:
    """`with Server(host) as url:` serves `host` on 127.0.0.1 until the block ends."""

    def __init__(self, host: Host) -> None:
        handler = type("Handler", (_Handler,), {"host": host})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self._thread.start()
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def reset_in(seconds: float) -> str:
    return str(int(time.time() + seconds))
