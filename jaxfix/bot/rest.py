"""A small JSON-over-HTTPS client for the code hosts' REST APIs (urllib only).

It follows pagination (GitHub's `Link: <...>; rel="next"`, GitLab's `X-Next-Page`), waits out
rate limits the host announces (`Retry-After`, or an exhausted `X-RateLimit-Remaining` with its
reset time) up to a bound, and turns every other failure into one `ApiError` line.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jaxfix.bounded_data import load_json

_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')
MAX_WAIT = 60.0  # seconds a single rate-limit pause may last before the bot gives up
ATTEMPTS = 4
MAX_BODY = 32 * 1024 * 1024  # bytes of one answer


class ApiError(Exception):
    """A request the host refused or could not answer: status (0 when none) and one line."""

    def __init__(self, method: str, url: str, status: int, message: str) -> None:
        self.status = status
        path = urllib.parse.urlsplit(url).path
        super().__init__(
            f"{method} {path}: {f'HTTP {status}: ' if status else ''}{message}"
        )


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    data: Any


@dataclass
class Client:
    base: str  # e.g. https://api.github.com or https://gitlab.example/api/v4
    headers: dict[str, str]
    sleep: Callable[[float], None] = time.sleep
    max_wait: float = MAX_WAIT
    calls: list[str] = field(default_factory=list)  # "METHOD path", for the log

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        query: dict[str, Any] | None = None,
    ) -> Response:
        url = (
            path
            if path.startswith(("http://", "https://"))
            else self.base.rstrip("/") + path
        )
        if query:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        headers = {
            **self.headers,
            **({"Content-Type": "application/json"} if data is not None else {}),
        }
        for attempt in range(ATTEMPTS):
            self.calls.append(f"{method} {urllib.parse.urlsplit(url).path}")
            try:
                with urllib.request.urlopen(
                    urllib.request.Request(url, data, headers, method=method),
                    timeout=60,
                ) as answer:
                    raw = answer.read(MAX_BODY + 1)
                    return Response(
                        answer.status,
                        {k.lower(): v for k, v in answer.headers.items()},
                        _json(raw, method, url),
                    )
            except urllib.error.HTTPError as error:
                answer_headers = {k.lower(): v for k, v in error.headers.items()}
                wait = _rate_limit_wait(error.code, answer_headers)
                if wait is None or attempt == ATTEMPTS - 1:
                    raise ApiError(method, url, error.code, _reason(error)) from None
                if wait > self.max_wait:
                    raise ApiError(
                        method,
                        url,
                        error.code,
                        f"rate limited for {wait:.0f} s more (more than {self.max_wait:.0f} s): try again later",
                    ) from None
                self.sleep(max(wait, 0.0))
            except (urllib.error.URLError, OSError) as error:
                reason = getattr(error, "reason", error)
                raise ApiError(
                    method, url, 0, f"cannot reach the host: {reason}"
                ) from None
        raise AssertionError("unreachable")

    def pages(self, path: str, query: dict[str, Any] | None = None) -> Iterator[Any]:
        """Every item of a paginated list, page after page."""
        response = self.request("GET", path, query={"per_page": 100, **(query or {})})
        while True:
            if not isinstance(response.data, list):
                raise ApiError("GET", path, response.status, "expected a list")
            yield from response.data
            link = _NEXT.search(response.headers.get("link", ""))
            next_page = response.headers.get("x-next-page", "").strip()
            if link:
                response = self.request("GET", link[1])
            elif next_page:
                response = self.request(
                    "GET",
                    path,
                    query={"per_page": 100, **(query or {}), "page": next_page},
                )
            else:
                return


def _json(raw: bytes, method: str, url: str) -> Any:
    if len(raw) > MAX_BODY:
        raise ApiError(method, url, 0, f"answer larger than {MAX_BODY} bytes")
    if not raw.strip():
        return None
    try:
        return load_json(raw)
    except ValueError:
        raise ApiError(method, url, 0, "the answer is not JSON") from None


def _rate_limit_wait(status: int, headers: dict[str, str]) -> float | None:
    """Seconds to wait before retrying, when the host says the request was rate limited."""
    if status not in (403, 429):
        return None
    retry_after = headers.get("retry-after", "").strip()
    if retry_after.isdigit():
        return float(retry_after)
    if (
        headers.get("x-ratelimit-remaining", "").strip() == "0"
        and headers.get("x-ratelimit-reset", "").strip().isdigit()
    ):
        return float(headers["x-ratelimit-reset"]) - time.time() + 1
    return None if status == 403 else 1.0


def _reason(error: urllib.error.HTTPError) -> str:
    try:
        data = load_json(error.read(64 * 1024) or b"null")
    except (ValueError, OSError):
        data = None
    if isinstance(data, dict):
        message = str(data.get("message") or data.get("error") or error.reason)
        details = data.get("errors")
        if isinstance(details, list) and details:
            message += ": " + "; ".join(
                str(d.get("message", d) if isinstance(d, dict) else d)
                for d in details[:3]
            )
        return " ".join(message.split())[:300]
    return str(error.reason)
