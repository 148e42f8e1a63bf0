"""A small JSON-over-HTTPS client for the code hosts' REST APIs (urllib only).

It follows pagination (GitHub's `Link: <...>; rel="next"`, GitLab's `X-Next-Page`) up to a
bound, waits out rate limits the host announces (`Retry-After`, or an exhausted
`X-RateLimit-Remaining` with its reset time) up to a bound, and turns every other failure into
one `ApiError` line. The token goes only to the API's origin (scheme, host and port): a redirect
or a next page anywhere else is refused, not followed. What the host answers is checked against
the shape the bot reads before the bot reads it, and what it says is printed escaped, the token
redacted.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jaxfix.ground.bounded_data import load_json
from jaxfix.ground.escaping import printable

_NEXT = re.compile(
    r'<([^<>]+)>\s*;\s*rel="next"'
)  # no `<` inside: linear on any header
MAX_WAIT = 60.0  # seconds a single rate-limit pause may last before the bot gives up
ATTEMPTS = 4
MAX_BODY = 32 * 1024 * 1024  # bytes of one answer
MAX_PAGES = 1000  # pages of one list (100 items each; GitHub lists at most 3,000 files)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def shown(text: str, secrets: Iterable[str] = ()) -> str:
    """Text from the host (or about it) as the bot prints it: each secret replaced by `***`,
    then printable (no control character, OSC sequence or line break reaches the CI log)."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return printable(text)


class ApiError(Exception):
    """A request the host refused or could not answer: status (0 when none) and one line."""

    def __init__(
        self,
        method: str,
        url: str,
        status: int,
        message: str,
        secrets: Iterable[str] = (),
    ) -> None:
        self.status = status
        path = shown(urllib.parse.urlsplit(url).path, secrets)[:200]
        message = shown(message, secrets)  # redacted before it is cut
        if len(message) > 300:
            message = message[:300] + "..."
        super().__init__(
            f"{method} {path}: {f'HTTP {status}: ' if status else ''}{message}"
        )


def origin(url: str) -> str:
    """`scheme://host:port` of a URL, the port said even where it is the default."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        port = None
    return f"{scheme}://{(parts.hostname or '').lower()}:{port}"


class _OffOrigin(Exception):
    def __init__(self, url: str) -> None:
        self.url = url


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect of a GET only within the API's origin: urllib would re-send the
    token's header to wherever the host points (another host, or plain http)."""

    def __init__(self, api_origin: str) -> None:
        self.api_origin = api_origin

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        target = urllib.parse.urljoin(req.full_url, newurl)
        if origin(target) != self.api_origin or req.get_method() not in ("GET", "HEAD"):
            raise _OffOrigin(target)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


# A shape the bot reads: a type; a tuple of alternatives (None: null); a dict, an object whose
# listed keys (absent: null) have those shapes; a one-item list, a list of items of that shape.
Shape = Any
_JSON_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


def _expected(shape: Shape) -> str:
    if shape is None:
        return "null"
    if isinstance(shape, tuple):
        return " or ".join(map(_expected, shape))
    if isinstance(shape, dict):
        return "an object"
    if isinstance(shape, list):
        return "a list"
    return _JSON_NAMES.get(shape, shape.__name__)


def _wrong(value: Any, shape: Shape, where: str) -> str:
    return f"{where} is {_JSON_NAMES.get(type(value), 'a value')}, expected {_expected(shape)}"


def mismatch(value: Any, shape: Shape, where: str) -> str | None:
    """Where `value` (parsed JSON) is not of `shape`, in one line; None when it is."""
    if isinstance(shape, tuple):
        problems = [mismatch(value, alternative, where) for alternative in shape]
        if None in problems:
            return None
        inside = [  # an object or list of the right kind: what is wrong inside it
            problem
            for alternative, problem in zip(shape, problems)
            if isinstance(alternative, (dict, list))
            and isinstance(value, type(alternative))
        ]
        return inside[0] if inside else _wrong(value, shape, where)
    if isinstance(shape, dict) and isinstance(value, dict):
        problems = (mismatch(value.get(k), s, f"{where}.{k}") for k, s in shape.items())
        return next((p for p in problems if p), None)
    if isinstance(shape, list) and isinstance(value, list):
        problems = (mismatch(v, shape[0], f"{where}[{i}]") for i, v in enumerate(value))
        return next((p for p in problems if p), None)
    if shape is None:
        ok = value is None
    elif isinstance(shape, (dict, list)):
        ok = False
    else:  # JSON's true is no integer
        ok = isinstance(value, shape) and not (
            isinstance(value, bool) and shape in (int, float)
        )
    return None if ok else _wrong(value, shape, where)


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    data: Any


@dataclass
class Client:
    base: str  # e.g. https://api.github.com or https://gitlab.example/api/v4
    headers: dict[str, str]
    token: str = ""  # redacted from whatever the bot prints
    sleep: Callable[[float], None] = time.sleep
    max_wait: float = MAX_WAIT
    max_pages: int = MAX_PAGES
    timeout: float = 60.0  # seconds to connect, and between the answer's bytes
    calls: list[str] = field(default_factory=list)  # "METHOD path", for the log

    def error(self, method: str, url: str, status: int, message: str) -> ApiError:
        return ApiError(method, url, status, message, (self.token,))

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        query: dict[str, Any] | None = None,
        shape: Shape = object,
    ) -> Response:
        """The host's answer to one request, its JSON of `shape`; `path` is the API's (after
        `base`) or a URL of the API's own origin (a next page's)."""
        api_origin = origin(self.base)
        url = (
            path
            if path.startswith(("http://", "https://"))
            else self.base.rstrip("/") + path
        )
        if origin(url) != api_origin:
            raise self.error(
                method,
                url,
                0,
                f"the host points to {origin(url)}, not the API's {api_origin}: not followed (the token goes only to the API)",
            )
        if query:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        headers = {
            **self.headers,
            **({"Content-Type": "application/json"} if data is not None else {}),
        }
        opener = urllib.request.build_opener(_SameOriginRedirects(api_origin))
        for attempt in range(ATTEMPTS):
            self.calls.append(f"{method} {urllib.parse.urlsplit(url).path}")
            try:
                with opener.open(
                    urllib.request.Request(url, data, headers, method=method),
                    timeout=self.timeout,
                ) as answer:
                    raw = answer.read(MAX_BODY + 1)
                    response = Response(
                        answer.status,
                        {k.lower(): v for k, v in answer.headers.items()},
                        self._json(raw, method, url),
                    )
            except _OffOrigin as refused:
                raise self.error(
                    method,
                    url,
                    0,
                    f"the host redirects to {origin(refused.url)}: not followed (the token goes only to the API's {api_origin}, and a redirect is followed only for a GET)",
                ) from None
            except urllib.error.HTTPError as error:
                answer_headers = {k.lower(): v for k, v in error.headers.items()}
                wait = _rate_limit_wait(error.code, answer_headers)
                if wait is None or attempt == ATTEMPTS - 1:
                    raise self.error(method, url, error.code, _reason(error)) from None
                if wait > self.max_wait:
                    raise self.error(
                        method,
                        url,
                        error.code,
                        f"rate limited for {wait:.0f} s more (more than {self.max_wait:.0f} s): try again later",
                    ) from None
                self.sleep(max(wait, 0.0))
                continue
            except (urllib.error.URLError, OSError) as error:
                reason = getattr(error, "reason", error)
                raise self.error(
                    method, url, 0, f"cannot reach the host: {reason}"
                ) from None
            problem = mismatch(response.data, shape, "answer")
            if problem:
                raise self.error(method, url, 0, f"unexpected shape: {problem}")
            return response
        raise AssertionError("unreachable")

    def pages(
        self, path: str, query: dict[str, Any] | None = None, item: Shape = object
    ) -> Iterator[Any]:
        """Every item (of shape `item`) of a paginated list, page after page: at most
        `max_pages` pages, and a next page already read ends the list in an error."""
        first = {"per_page": 100, **(query or {})}
        response = self.request("GET", path, query=first, shape=[item])
        read: set[str] = set()
        while True:
            yield from response.data
            link = _NEXT.search(response.headers.get("link", ""))
            next_page = response.headers.get("x-next-page", "").strip()
            if not link and not next_page:
                return
            following = link[1] if link else next_page
            if following in read:
                raise self.error(
                    "GET", path, 0, "the host's next page is one already read"
                )
            if len(read) + 1 >= self.max_pages:
                raise self.error(
                    "GET",
                    path,
                    0,
                    f"more than {self.max_pages} pages: the host's next pages do not end",
                )
            read.add(following)
            response = (
                self.request("GET", following, shape=[item])
                if link
                else self.request(
                    "GET", path, query={**first, "page": next_page}, shape=[item]
                )
            )

    def _json(self, raw: bytes, method: str, url: str) -> Any:
        if len(raw) > MAX_BODY:
            raise self.error(method, url, 0, f"answer larger than {MAX_BODY} bytes")
        if not raw.strip():
            return None
        try:
            return load_json(raw)
        except ValueError:
            raise self.error(method, url, 0, "the answer is not JSON") from None


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
        return " ".join(message.split())
    return str(error.reason)
