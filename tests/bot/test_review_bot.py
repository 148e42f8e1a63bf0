"""The review bot (`python -m jaxfix.bot`, the action in action.yml) against a local host that
checks every request against GitHub's and GitLab's documented shapes (tests/fake_code_host.py)."""

from __future__ import annotations

import json
import os
import re
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml

from fake_code_host import Answer, Host, Server, reset_in, suggestion_blocks

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "JAX001" / "bare_jit_decorator_lower.py"
# The same site with its call over three lines: several suggestions on neighbouring lines.
MULTILINE = FIXTURE.read_text().replace(
    "lowered = shift.lower(x)", "lowered = shift.lower(\n    x\n)"
)


def _git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def pull(tmp_path):
    """A repository whose pull request adds a file jaxfix fixes; the base holds an unfixed file
    the pull request does not touch (it must get no comment)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    base = _commit(repo, {"old.py": FIXTURE.read_text(), "README.md": "x\n"}, "base")
    _git(repo, "checkout", "-q", "-b", "feature")
    head = _commit(
        repo,
        {"lower.py": FIXTURE.read_text(), "multi.py": MULTILINE},
        "add two lowering sites",
    )
    return repo, base, head


def _patches(repo: Path, base: str) -> dict[str, str]:
    """Each file's patch as GitHub's `files` endpoint gives it: the hunks, no headers."""
    names = _git(repo, "diff", "--name-only", base, "HEAD").splitlines()
    patches = {}
    for name in names:
        diff = _git(repo, "diff", base, "HEAD", "--", name)
        patches[name] = diff[diff.index("@@") :]
    return patches


def _event(tmp_path: Path, base: str, head: str) -> Path:
    path = tmp_path / "event.json"
    path.write_text(
        json.dumps(
            {
                "pull_request": {
                    "number": 7,
                    "head": {"sha": head},
                    "base": {"sha": base},
                }
            }
        )
    )
    return path


def _github_env(url: str, repo: Path, event: Path, host: Host) -> dict[str, str]:
    return {
        **os.environ,
        "GITHUB_API_URL": url,
        "GITHUB_REPOSITORY": "owner/repo",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_TOKEN": host.token,
        "GITHUB_WORKSPACE": str(repo),
        "PYTHONPATH": str(ROOT),
    }


def _bot(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jaxfix.bot", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _apply(text: str, comments: list[dict], gitlab: bool = False) -> str:
    """The file after a reviewer commits every suggestion (GitHub: lines start_line..line;
    GitLab: `suggestion:-N+M` around the commented line)."""
    lines = text.split("\n")
    edits = []
    for comment in comments:
        for info, new in suggestion_blocks(comment["body"]):
            line = comment["position"]["new_line"] if gitlab else comment["line"]
            if gitlab:
                above, below = map(
                    int, re.fullmatch(r"suggestion:-(\d+)\+(\d+)", info).groups()
                )
                first, last = line - above, line + below
            else:
                first, last = comment.get("start_line") or line, line
            edits.append((first, last, new))
    for first, last, new in sorted(edits, reverse=True):
        lines[first - 1 : last] = new
    return "\n".join(lines)


def _jaxfix_fixed(text: str, tmp_path: Path) -> str:
    target = tmp_path / "expected" / "f.py"
    target.parent.mkdir(exist_ok=True)
    target.write_text(text)
    subprocess.run(
        [sys.executable, "-m", "jaxfix", "-q", "--no-cache", str(target)],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return target.read_text()


def _posted_reviews(host: Host) -> list[dict]:
    return [
        body for method, path, body in host.writes("POST") if path.endswith("/reviews")
    ]


def test_one_review_whose_suggestions_give_jaxfix_fix(pull, tmp_path):
    repo, base, head = pull
    host = Host(patches=_patches(repo, base), head_sha=head)
    host.reviews = [
        {"id": i, "user": {"login": "someone"}, "body": "LGTM", "state": "COMMENTED"}
        for i in range(1, 4)
    ]
    with Server(host) as url:
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head), host),
            "github",
            cwd=repo,
        )
    assert done.returncode == 1, done.stderr  # fail-on findings (the default)
    assert host.violations == []
    (review,) = _posted_reviews(host)
    assert review["event"] == "COMMENT" and "<!-- jaxfix-review -->" in review["body"]
    by_file = {}
    for comment in review["comments"]:
        by_file.setdefault(comment["path"], []).append(comment)
    assert set(by_file) == {"lower.py", "multi.py"}  # old.py is not the pull request's
    assert (
        _apply((repo / "lower.py").read_text(), by_file["lower.py"])
        == FIXTURE.with_suffix(".fixed.py").read_text()
    )
    assert _apply(MULTILINE, by_file["multi.py"]) == _jaxfix_fixed(MULTILINE, tmp_path)


def test_rerun_keeps_its_review_and_posts_only_what_is_new(pull, tmp_path):
    repo, base, head = pull
    host = Host(patches=_patches(repo, base), head_sha=head)
    host.reviews = [
        {"id": i, "user": {"login": "someone"}, "body": "nit", "state": "COMMENTED"}
        for i in range(1, 6)
    ]
    # A human's review that copies the bot's marker: never edited, its comments never deleted.
    host.reviews.append(
        {
            "id": 9,
            "user": {"login": "mallory"},
            "body": "<!-- jaxfix-review -->",
            "state": "COMMENTED",
        }
    )
    host.review_comments[9] = [
        {
            "id": 90,
            "path": "lower.py",
            "line": 3,
            "side": "RIGHT",
            "body": "x\n\n<!-- jaxfix -->",
        }
    ]
    with Server(host) as url:
        env = _github_env(url, repo, _event(tmp_path, base, head), host)
        assert _bot(env, "github", cwd=repo).returncode == 1
        first = len(host.requests)
        again = _bot(
            env, "github", cwd=repo
        )  # the same head: nothing to post, nothing to edit
        assert again.returncode == 1, again.stderr
        assert (
            host.writes()[len(_posted_reviews(host)) - 1 :] == host.writes()[-1:]
            and len(_posted_reviews(host)) == 1
        )
        assert [r for r in host.requests[first:] if r[0] != "GET"] == []
        # A push that adds a third site: one new review with only the new comment.
        head2 = _commit(repo, {"third.py": FIXTURE.read_text()}, "third")
        host.head_sha, host.patches = head2, _patches(repo, base)
        assert (
            _bot(
                _github_env(url, repo, _event(tmp_path, base, head2), host),
                "github",
                cwd=repo,
            ).returncode
            == 1
        )
    assert host.violations == []
    reviews = _posted_reviews(host)
    assert len(reviews) == 2 and [c["path"] for c in reviews[1]["comments"]] == [
        "third.py"
    ]
    superseded = [body for method, path, body in host.writes("PUT")]
    assert superseded and all("Superseded" in b["body"] for b in superseded)
    assert (
        host.review_comments[9][0]["id"] == 90
        and host.reviews[5]["body"] == "<!-- jaxfix-review -->"
    )
    assert "pages" not in str(
        host.requests
    )  # (sanity: the paths are the documented ones)
    assert (
        sum(1 for m, p, _ in host.requests if m == "GET" and p.endswith("/reviews"))
        >= 3
    )  # paginated lists read


def test_fixed_findings_lose_their_comments(pull, tmp_path):
    repo, base, head = pull
    host = Host(patches=_patches(repo, base), head_sha=head)
    with Server(host) as url:
        assert (
            _bot(
                _github_env(url, repo, _event(tmp_path, base, head), host),
                "github",
                cwd=repo,
            ).returncode
            == 1
        )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "jaxfix",
                "-q",
                "--no-cache",
                "lower.py",
                "multi.py",
            ],
            cwd=repo,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=True,
        )
        head2 = _commit(repo, {}, "apply jaxfix")
        host.head_sha, host.patches = head2, _patches(repo, base)
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head2), host),
            "github",
            cwd=repo,
        )
    assert done.returncode == 0, done.stderr
    assert host.violations == []
    assert (
        len(host.writes("DELETE")) == 3
        and host.review_comments[host.reviews[-1]["id"]] == []
    )
    (update,) = [b for m, p, b in host.writes("PUT")]
    assert "nothing left to fix" in update["body"]
    assert len(_posted_reviews(host)) == 1


def test_comments_github_will_not_attach_go_into_the_summary(pull, tmp_path):
    repo, base, head = pull
    patches = _patches(repo, base)
    host = Host(patches=patches, head_sha=head)
    host.refuse_lines = {
        ("lower.py", 21)
    }  # the patch shows it, GitHub still answers 422
    host.patches["multi.py"] = (
        "@@ -0,0 +1,3 @@\n+# case\n+# target-jax\n+# expect\n"  # the site is not shown
    )
    with Server(host) as url:
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head), host),
            "github",
            cwd=repo,
        )
    assert done.returncode == 1, done.stderr
    assert host.violations == []
    attempts = _posted_reviews(host)
    assert (
        len(attempts) == 2 and "comments" not in attempts[1]
    )  # 422, then the summary alone
    body = attempts[1]["body"]
    assert (
        "Outside the diff" in body
        and "lower.py:21" in body
        and "multi.py:21" in body
        and "multi.py:23" in body
    )
    assert (
        body.count("```suggestion") == 3
    )  # nothing lost: both suggestions are in the summary


def test_rate_limits_are_waited_out_or_reported(pull, tmp_path):
    repo, base, head = pull
    host = Host(patches=_patches(repo, base), head_sha=head)
    host.rate_limit = [
        {"status": "429", "Retry-After": "1"},
        {
            "status": "403",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": reset_in(1),
        },
    ]
    with Server(host) as url:
        env = _github_env(url, repo, _event(tmp_path, base, head), host)
        assert _bot(env, "github", cwd=repo).returncode == 1
        assert len(_posted_reviews(host)) == 1 and host.violations == []
        host.rate_limit = [
            {
                "status": "403",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": reset_in(3600),
            }
        ]
        done = _bot(env, "github", cwd=repo)
    assert done.returncode == 2
    assert "rate limited" in done.stderr and done.stderr.count("\n") <= 3


@pytest.mark.parametrize(
    ("fail_on", "code"), [("findings", 1), ("errors", 0), ("never", 0)]
)
def test_fail_on(pull, tmp_path, fail_on, code):
    repo, base, head = pull
    host = Host(patches=_patches(repo, base), head_sha=head)
    with Server(host) as url:
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head), host),
            "github",
            "--fail-on",
            fail_on,
            cwd=repo,
        )
    assert done.returncode == code, done.stderr


def test_a_checkout_that_is_not_the_head_is_refused(pull, tmp_path):
    repo, base, head = pull
    host = Host(patches=_patches(repo, base), head_sha=head)
    _git(repo, "checkout", "-q", base)
    with Server(host) as url:
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head), host),
            "github",
            cwd=repo,
        )
    assert done.returncode == 2 and "not the pull request's head" in done.stderr
    assert host.requests == []


def test_gitlab_discussions_with_suggestion_ranges(pull, tmp_path):
    repo, base, head = pull
    host = Host(patches=_patches(repo, base), head_sha=head)
    with Server(host) as url:
        env = {
            **os.environ,
            "CI_API_V4_URL": f"{url}/api/v4",
            "CI_PROJECT_ID": "42",
            "CI_MERGE_REQUEST_IID": "3",
            "CI_MERGE_REQUEST_DIFF_BASE_SHA": base,
            "JAXFIX_GITLAB_TOKEN": host.token,
            "CI_PROJECT_DIR": str(repo),
            "PYTHONPATH": str(ROOT),
        }
        assert _bot(env, "gitlab", cwd=repo).returncode == 1
        posted = [b for m, p, b in host.writes("POST") if p.endswith("/discussions")]
        again = _bot(
            env, "gitlab", cwd=repo
        )  # nothing new: no second discussion, no second summary
        assert again.returncode == 1, again.stderr
    assert host.violations == []
    assert (
        len([b for m, p, b in host.writes("POST") if p.endswith("/discussions")])
        == len(posted)
        == 3
    )
    assert len(host.notes) == 1 and "<!-- jaxfix-review -->" in host.notes[0]["body"]
    multi = [b for b in posted if b["position"]["new_path"] == "multi.py"]
    assert _apply(MULTILINE, multi, gitlab=True) == _jaxfix_fixed(MULTILINE, tmp_path)
    lower = [b for b in posted if b["position"]["new_path"] == "lower.py"]
    assert (
        _apply(FIXTURE.read_text(), lower, gitlab=True)
        == FIXTURE.with_suffix(".fixed.py").read_text()
    )


def _expand(text: str, inputs: dict[str, str], token: str) -> str:
    """GitHub's `${{ ... }}` for the expressions action.yml uses."""

    def value(match: re.Match) -> str:
        expression = match[1].strip()
        if expression == "github.token":
            return token
        assert expression.startswith("inputs."), expression
        return inputs[expression.removeprefix("inputs.")]

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def test_the_action_runs_end_to_end(pull, tmp_path):
    """action.yml's steps as a runner runs them: setup-python is the runner's (here: a venv
    that sees the test environment's packages, not its jaxfix), then the action's own shell steps, verbatim."""
    repo, base, head = pull
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = {
        name: str(spec.get("default", "")) for name, spec in action["inputs"].items()
    }
    inputs.update(
        {"unsafe-fixes": "true", "fail-on": "never", "paths": "lower.py multi.py"}
    )
    inputs = {
        name: _expand(value, {}, "secret-token") for name, value in inputs.items()
    }  # defaults are expressions too
    home = tmp_path / "runner"
    venv.create(home, with_pip=True)
    runner_site = next((home / "lib").glob("python3*/site-packages"))
    (runner_site / "test-environment.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )  # jaxfix's dependencies
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    env.update(
        PATH=f"{home / 'bin'}{os.pathsep}{env['PATH']}",
        GITHUB_ACTION_PATH=str(ROOT),
        PIP_NO_INDEX="1",
        PIP_NO_DEPS="1",
        PIP_NO_BUILD_ISOLATION="0",
    )
    host = Host(patches=_patches(repo, base), head_sha=head)
    with Server(host) as url:
        github = _github_env(url, repo, _event(tmp_path, base, head), host)
        env.update(
            {
                k: github[k]
                for k in (
                    "GITHUB_API_URL",
                    "GITHUB_REPOSITORY",
                    "GITHUB_EVENT_PATH",
                    "GITHUB_WORKSPACE",
                )
            }
        )
        for step in action["runs"]["steps"]:
            if "uses" in step:
                assert step["uses"].startswith("actions/setup-python@")
                continue
            assert step["shell"] == "bash"
            step_env = {
                **env,
                **{
                    k: _expand(str(v), inputs, host.token)
                    for k, v in step.get("env", {}).items()
                },
            }
            done = subprocess.run(
                ["bash", "-e", "-c", _expand(step["run"], inputs, host.token)],
                cwd=repo,
                env=step_env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, done.stdout + done.stderr
    installed = subprocess.run(
        [str(home / "bin" / "python"), "-c", "import jaxfix; print(jaxfix.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert (
        str(home) in installed.stdout
    )  # the action's own copy ran, not the test checkout
    assert host.violations == []
    (review,) = _posted_reviews(host)
    assert {c["path"] for c in review["comments"]} == {"lower.py", "multi.py"}


def test_a_range_becomes_gitlab_suggestion_lines_above():
    from jaxfix.bot.gitlab import gitlab_body

    comment = {
        "path": "f.py",
        "start_line": 4,
        "line": 6,
        "side": "RIGHT",
        "body": "**JAX001**: m\n\n````suggestion\nnew\n````",
    }
    assert gitlab_body(comment) == "**JAX001**: m\n\n````suggestion:-2+0\nnew\n````"
    assert gitlab_body({**comment, "start_line": None, "line": 6}).endswith(
        "````suggestion:-0+0\nnew\n````"
    )


def test_evidence_input_is_read_as_a_recording_or_as_a_log(tmp_path):
    from jaxfix.bot.findings import jaxfix_command

    recording = tmp_path / "evidence.jsonl"
    recording.write_text('{"schema": "jaxfix-evidence"}\n')
    log = tmp_path / "ci.log"
    log.write_text("Traceback (most recent call last):\n")
    assert jaxfix_command(
        [], base=None, unsafe_fixes=False, target_version=None, evidence=recording
    )[-2:] == ["--evidence", str(recording)]
    assert jaxfix_command(
        ["src"], base="abc", unsafe_fixes=True, target_version="0.12.0.1", evidence=log
    )[-7:] == [
        "--unsafe-fixes",
        "--target-version",
        "0.12.0.1",
        "--from-log",
        str(log),
        "--",
        "src",
    ]
    done = subprocess.run(
        [
            *jaxfix_command(
                [],
                base=None,
                unsafe_fixes=False,
                target_version="0.12.0.1",
                evidence=log,
            ),
            "--help",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr  # every flag the bot passes exists


def test_a_base_git_would_read_as_an_option_is_refused(tmp_path):
    """The base commit comes from the code host's API; it is never passed to git as an option."""
    from jaxfix.bot.__main__ import BotError, _merge_base

    with pytest.raises(BotError, match="not a git revision"):
        _merge_base("--output=WRITTEN", tmp_path)
    assert not (tmp_path / "WRITTEN").exists()


def test_the_checked_trees_config_cannot_redirect_the_suggestions(pull, tmp_path):
    """A pull request's `output-file` sent the bot's suggestions JSON into the tree: `0
    posted`, exit 0 with `--fail-on errors`. Now the config is refused: an error, the job fails."""
    repo, base, _ = pull
    head = _commit(
        repo,
        {"pyproject.toml": '[tool.jaxfix]\noutput-file = "suggestions.json"\n'},
        "send the suggestions elsewhere",
    )
    host = Host(patches=_patches(repo, base), head_sha=head)
    with Server(host) as url:
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head), host),
            "github",
            "--fail-on",
            "errors",
            cwd=repo,
        )
    assert done.returncode == 1, done.stderr
    assert "'output-file' in [tool.jaxfix]" in done.stderr
    assert not (repo / "suggestions.json").exists()
    (review,) = _posted_reviews(host)
    assert "output-file" in review["body"]


def test_findings_with_nothing_on_stdout_are_an_error(tmp_path):
    """Exit 0 or 1 and nothing printed: the suggestions went somewhere else, never `0 posted`."""
    from jaxfix.bot.findings import run_jaxfix

    with pytest.raises(RuntimeError, match="printed no suggestions"):
        run_jaxfix([sys.executable, "-c", "raise SystemExit(1)"], tmp_path)
    errored = run_jaxfix([sys.executable, "-c", "raise SystemExit(2)"], tmp_path)
    assert (errored.comments, errored.exit_code) == ((), 2)


# -- The host is a stranger too: the token, what it says, what it answers ----------------------

FILES = "/repos/owner/repo/pulls/7/files"


def _one_error_line(done: subprocess.CompletedProcess) -> str:
    """The bot's failure: exit 2 and one line on stderr, no traceback."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    return done.stderr


def test_a_redirect_to_another_origin_does_not_get_the_token(pull, tmp_path):
    """F14: urllib re-sends `Authorization` to wherever a 302 points."""
    repo, base, head = pull
    host, elsewhere = Host(patches=_patches(repo, base), head_sha=head), Host()
    with Server(elsewhere) as other, Server(host) as url:
        host.answers[FILES] = Answer(302, headers={"Location": f"{other}{FILES}"})
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head), host),
            "github",
            cwd=repo,
        )
    line = _one_error_line(done)
    assert f"redirects to {other}: not followed" in line
    assert elsewhere.requests == [] and host.writes() == []


def test_a_redirect_within_the_api_is_followed_for_a_get_only():
    """GitHub answers 301 for a renamed repository: the same origin, followed for a GET; a
    write is never redirected (urllib would re-send a POST as a GET without its body)."""
    from jaxfix.bot import github
    from jaxfix.bot.rest import ApiError

    host = Host(patches={"a.py": "@@ -0,0 +1 @@\n+x\n"})
    moved = "/repos/old/repo/pulls/7/files"
    with Server(host) as url:
        host.answers[moved] = Answer(
            301, headers={"Location": f"{url}{FILES}?per_page=100"}
        )
        host.answers["/repos/old/repo/pulls/7/reviews"] = Answer(
            307, headers={"Location": f"{url}/repos/owner/repo/pulls/7/reviews"}
        )
        api = github.client(url, host.token)
        assert [f["filename"] for f in api.pages(moved)] == ["a.py"]
        with pytest.raises(ApiError, match="not followed"):
            api.request("POST", "/repos/old/repo/pulls/7/reviews", {"body": "x"})
    assert [p for m, p, _ in host.requests] == [moved, FILES, moved[:-5] + "reviews"]
    assert host.violations == []


def test_a_next_page_at_another_origin_or_over_plain_http_is_refused():
    """F15: a `Link: <...>; rel="next"` is followed only within the API's origin, so the token
    goes neither to another host nor, from an https API, over plain http."""
    from jaxfix.bot import github, gitlab
    from jaxfix.bot.rest import ApiError, origin

    host, elsewhere = Host(), Host()
    with Server(elsewhere) as other, Server(host) as url:
        host.answers[FILES] = Answer(
            200, [], {"Link": f'<{other}{FILES}?page=2>; rel="next"'}
        )
        with pytest.raises(
            ApiError, match=f"points to {other}, not the API's {url}: not followed"
        ):
            list(github.client(url, host.token).pages(FILES))
        assert elsewhere.requests == [] and len(host.requests) == 1
        # An https API whose next link says http: (the same host and port) is refused unsent.
        https = url.replace("http://", "https://")
        for api in (
            github.client(https, host.token),
            gitlab.client(https + "/api/v4", host.token),
        ):
            with pytest.raises(ApiError, match="not followed"):
                api.request("GET", f"{url}{FILES}?page=2")
        assert len(host.requests) == 1
    assert origin("https://h.example/a") == origin("https://H.example:443/b")
    assert origin("https://h.example/a") != origin("http://h.example:443/a")


def test_next_pages_are_bounded_and_a_loop_is_one_line():
    """F16: a next link that points to itself (16,114 requests in 20 s before) or never ends."""
    from jaxfix.bot import github, gitlab
    from jaxfix.bot.rest import ApiError

    host = Host(request_limit=50)
    with Server(host) as url:
        host.answers[FILES] = Answer(200, [], {"Link": f'<{url}{FILES}>; rel="next"'})
        with pytest.raises(ApiError, match="next page is one already read"):
            list(github.client(url, host.token).pages(FILES))
        assert len(host.requests) == 2
        host.answers[FILES] = Answer(
            200, [], {"Link": f'<{url}{FILES}?page={{next}}>; rel="next"'}
        )
        api = github.client(url, host.token)
        api.max_pages = 5
        with pytest.raises(ApiError) as error:
            list(api.pages(FILES))
        assert str(error.value) == (
            f"GET {FILES}: more than 5 pages: the host's next pages do not end"
        )
        assert len(host.requests) == 2 + 5
        diffs = "/api/v4/projects/42/merge_requests/3/diffs"
        host.answers[diffs] = Answer(200, [], {"X-Next-Page": "2"})
        with pytest.raises(ApiError, match="already read"):
            list(gitlab.client(url + "/api/v4", host.token).pages(diffs[7:]))
        assert len(host.requests) == 2 + 5 + 2
    assert host.violations == []


def test_a_link_header_of_many_angle_brackets_is_read_in_linear_time():
    """A 60,000-character `Link` of `<`s took the next-link pattern half a minute a page."""
    import time

    from jaxfix.bot import github

    host = Host()
    with Server(host) as url:
        host.answers[FILES] = Answer(200, [], {"Link": "<" * 60_000 + 'a; rel="next"'})
        started = time.monotonic()
        assert list(github.client(url, host.token).pages(FILES)) == []
        assert time.monotonic() - started < 5


HOSTILE_TEXT = (
    "\x1b]8;;https://attacker.example/\x07click\x1b]8;;\x07 \x9b2J\r\nforged line"
)


def test_the_host_s_text_is_printed_escaped():
    """F17: an OSC sequence in the host's message or status line reached the CI log raw."""
    from jaxfix.bot import github, gitlab
    from jaxfix.bot.rest import ApiError

    host = Host()
    with Server(host) as url:
        host.answers[FILES] = Answer(500, {"message": HOSTILE_TEXT})
        with pytest.raises(ApiError) as from_json:
            list(github.client(url, host.token).pages(FILES))
        mr = "/api/v4/projects/42/merge_requests/3"
        host.answers[mr] = Answer(502, reason="Bad \x1b]0;title\x07 Gateway")
        with pytest.raises(ApiError) as from_status:
            gitlab.client(url + "/api/v4", host.token).request("GET", mr[7:])
    for error in (from_json.value, from_status.value):
        text = str(error)
        assert text.isprintable() and "\x1b" not in text, repr(text)
    assert "\\x1b]8;;https://attacker.example/\\x07click" in str(from_json.value)
    assert "Bad \\x1b]0;title\\x07 Gateway" in str(from_status.value)


@pytest.mark.parametrize("which", ["github", "gitlab"])
def test_a_host_that_echoes_the_token_does_not_get_it_printed(which):
    """F18: the token in the host's error message (or its status line) is redacted."""
    from jaxfix.bot import github, gitlab
    from jaxfix.bot.rest import ApiError

    host = Host()
    path = FILES if which == "github" else "/api/v4/projects/42/merge_requests/3"
    with Server(host) as url:
        host.answers[path] = Answer(
            401, {"message": f"Bad credentials: {host.token}"}, reason=host.token
        )
        api = (
            github.client(url, host.token)
            if which == "github"
            else gitlab.client(url + "/api/v4", host.token)
        )
        with pytest.raises(ApiError) as error:
            api.request("GET", path if which == "github" else path[7:])
        assert str(error.value).endswith("HTTP 401: Bad credentials: ***")
        host.answers[path] = Answer(401, reason=f"no {host.token} here")
        with pytest.raises(ApiError) as error:
            api.request("GET", path if which == "github" else path[7:])
        assert str(error.value).endswith("HTTP 401: no *** here")


def test_the_bot_prints_the_host_s_error_as_one_escaped_line_without_the_token(
    pull, tmp_path
):
    """F17, F18 through the bot's own output."""
    repo, base, head = pull
    host = Host(patches=_patches(repo, base), head_sha=head)
    with Server(host) as url:
        host.answers[FILES] = Answer(
            403, {"message": f"{HOSTILE_TEXT} token={host.token}"}
        )
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head), host),
            "github",
            cwd=repo,
        )
    line = _one_error_line(done)
    assert host.token not in line and "token=***" in line
    assert "\x1b" not in line and "\x9b" not in line and "\\x1b]8;;" in line


def test_wrongly_typed_answers_are_one_line_exit_2(pull, tmp_path):
    """F19: a list of files that are not files was a traceback in patches.py, exit 1."""
    repo, base, head = pull
    host = Host(patches=_patches(repo, base), head_sha=head)
    with Server(host) as url:
        host.answers[FILES] = Answer(
            200, [{"filename": 5, "patch": ["x"]}, "str", None]
        )
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head), host),
            "github",
            cwd=repo,
        )
    line = _one_error_line(done)
    assert (
        f"GET {FILES}: unexpected shape: answer[0].filename is an integer, expected a string"
        in line
    )
    assert host.writes() == []


@pytest.mark.parametrize(
    ("path", "data", "problem"),
    [
        (
            "/reviews",
            [{"id": "1; DROP", "body": "x"}],
            "answer[0].id is a string, expected an integer",
        ),
        (
            "/reviews",
            [{"id": 1, "user": "mallory"}],
            "answer[0].user is a string, expected an object or null",
        ),
        ("/reviews", {"id": 1}, "answer is an object, expected a list"),
        (
            "/files",
            [{"filename": "a.py", "patch": True}],
            "answer[0].patch is true or false, expected a string or null",
        ),
    ],
)
def test_github_answers_of_the_wrong_shape(path, data, problem):
    from jaxfix.bot import github
    from jaxfix.bot.rest import ApiError

    host = Host()
    pr = github.PullRequest("owner", "repo", 7, "0" * 40)
    with Server(host) as url:
        host.answers[pr.path + path] = Answer(200, data)
        with pytest.raises(ApiError, match=re.escape(problem)):
            github.post_review(github.client(url, host.token), pr, [])


@pytest.mark.parametrize(
    ("path", "data", "problem"),
    [
        ("", {"diff_refs": ["x"]}, "answer.diff_refs is a list, expected an object"),
        (
            "/diffs",
            [{"new_path": None}],
            "answer[0].new_path is null, expected a string",
        ),
        (
            "/discussions",
            [{"id": "d1", "notes": [{"id": 1, "position": {"new_line": "3"}}]}],
            "answer[0].notes[0].position.new_line is a string, expected an integer or null",
        ),
    ],
)
def test_gitlab_answers_of_the_wrong_shape(path, data, problem):
    from jaxfix.bot import gitlab
    from jaxfix.bot.rest import ApiError

    host = Host()
    mr = gitlab.MergeRequest("42", 3)
    with Server(host) as url:
        host.answers["/api/v4" + mr.path + path] = Answer(200, data)
        with pytest.raises(ApiError, match=re.escape(problem)):
            gitlab.post_discussions(gitlab.client(url + "/api/v4", host.token), mr, [])


def test_an_event_or_suggestions_of_the_wrong_shape_are_one_line(tmp_path):
    """F19 for the bot's own inputs: the pull request's event and jaxfix's suggestions."""
    from jaxfix.bot.findings import run_jaxfix

    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "head": "abc"}}))
    env = {
        **os.environ,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "owner/repo",
        "GITHUB_TOKEN": Host.token,
        "PYTHONPATH": str(ROOT),
    }
    line = _one_error_line(_bot(env, "github", cwd=tmp_path))
    assert "event.pull_request.head is a string, expected an object" in line
    printed = json.dumps([{"path": "a.py", "line": 3, "body": ["x"]}])
    with pytest.raises(RuntimeError, match=r"suggestions\[0\]\.body is a list"):
        run_jaxfix([sys.executable, "-c", f"print({printed!r})"], tmp_path)


def test_a_host_that_does_not_answer_is_one_line():
    """A timeout (the host accepts the connection and says nothing) is one line."""
    import socket

    from jaxfix.bot.rest import ApiError, Client

    with socket.create_server(("127.0.0.1", 0)) as silent:
        api = Client(f"http://127.0.0.1:{silent.getsockname()[1]}", {}, timeout=0.5)
        with pytest.raises(ApiError, match="GET /x: cannot reach the host: timed out"):
            api.request("GET", "/x")


def test_mentions_from_the_pull_request_notify_nobody(tmp_path):
    """F20: an axis named `@octocat` (in a message's text, outside its code spans) and a file
    named `@here.py` (in the summary's `<summary>`) reached the comment unchanged."""
    from markdown_it import MarkdownIt

    from jaxfix.bot.github import summary

    source = (
        "from jax.sharding import AbstractMesh, use_abstract_mesh\n\n"
        'with use_abstract_mesh(AbstractMesh((8, 4), ("a", "b"))):\n'
        '    with use_abstract_mesh(AbstractMesh((16, 4), ("@octocat", "@org/team"))):\n'
        "        pass\n"
    )
    (tmp_path / "@here.py").write_text(source)
    done = subprocess.run(
        [sys.executable, "-m", "jaxfix", "--check", "--no-cache"]
        + ["--unsafe-fixes", "--format", "github-suggestions", "@here.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    (item,) = json.loads(done.stdout)
    body = summary([item], [item], (), "0" * 40)
    mention = re.compile(r"@[\w./-]")
    for text in (item["body"], body):
        tokens = MarkdownIt("commonmark").parse(text)
        outside_code = [
            piece
            for t in tokens
            for piece in (
                [c.content for c in t.children or () if c.type != "code_inline"]
                if t.type == "inline"
                else [t.content]
                if t.type == "html_block"
                else []
            )
        ]
        assert outside_code and not [p for p in outside_code if mention.search(p)]
        (fence,) = [t for t in tokens if t.type == "fence"]
        assert (
            '("@octocat", "@org/team")' in fence.content
        )  # the suggestion is verbatim
    assert "'@\u200boctocat', '@\u200borg/team'" in "".join(
        c.content for t in MarkdownIt().parse(item["body"]) for c in t.children or ()
    )
    assert "<summary>@&#8203;here.py:4</summary>" in body


JSON_CONFIG = ROOT / "tests" / "repair_projects" / "jsonconfig"


def _json_pull(tmp_path: Path, change: str) -> tuple[Path, str, str, Path]:
    """The jsonconfig project; its pull request either breaks the eval stage's entry of
    stages.json ("entry") or edits run.py's eval stage while the entry was already wrong
    ("code"); the evidence of one recorded pytest run of the head, under real JAX."""
    from codemods.test_real_jax import JAX_VERSIONS
    from workflows.test_repair import python

    repo = tmp_path / "repo"
    files = {
        p.relative_to(JSON_CONFIG).as_posix(): p.read_text()
        for p in sorted(JSON_CONFIG.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    working = files["stages.json"].replace(
        '"mesh_shape": [4, 4]\n', '"mesh_shape": [2, 4]\n'
    )
    base = _commit(
        repo,
        {
            **files,
            "stages.json": working if change == "entry" else files["stages.json"],
        },
        "base",
    )
    _git(repo, "checkout", "-q", "-b", "feature")
    if change == "entry":
        head = _commit(
            repo, {"stages.json": files["stages.json"]}, "a bigger eval mesh"
        )
    else:
        run = files["stages/run.py"].replace(
            'from_stage(config.STAGES["eval"])):',
            'from_stage(config.STAGES["eval"])):  # eval',
        )
        assert run != files["stages/run.py"]
        head = _commit(repo, {"stages/run.py": run}, "reword")
    evidence = tmp_path / "evidence.jsonl"
    subprocess.run(
        [
            python(JAX_VERSIONS[0]),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "jaxfix.record",
        ],
        cwd=repo,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
            "PYTHONPATH": str(ROOT),
            "JAX_PLATFORMS": "cpu",
            "JAXFIX_RECORD": str(evidence),
        },
        capture_output=True,
        timeout=300,
    )
    assert evidence.exists()
    return repo, base, head, evidence


def _github_review_of_json_pull(tmp_path: Path, change: str) -> tuple[Path, str, dict]:
    """The one review the bot posts on GitHub for `_json_pull(tmp_path, change)` with the
    recorded run's evidence and --unsafe-fixes (it exits 1: findings left)."""
    repo, base, head, evidence = _json_pull(tmp_path, change)
    host = Host(patches=_patches(repo, base), head_sha=head)
    with Server(host) as url:
        done = _bot(
            _github_env(url, repo, _event(tmp_path, base, head), host),
            "github",
            "--unsafe-fixes",
            "--evidence",
            str(evidence),
            cwd=repo,
        )
    assert done.returncode == 1, done.stderr
    assert host.violations == []
    (review,) = _posted_reviews(host)
    return repo, base, review


@pytest.mark.jax
def test_a_json_entry_the_pull_request_changed_gets_the_suggestion(tmp_path):
    """The pull request made the eval stage's entry [4, 4]: the recorded run's JAX002 is
    raised at stages/run.py:13, a line the pull request does not touch, and the review
    suggests the entry's line as it was (committing it gives the base's stages.json back)."""
    repo, base, review = _github_review_of_json_pull(tmp_path, "entry")
    (comment,) = review["comments"]
    assert (comment["path"], comment["line"]) == ("stages.json", 5)
    assert "the error is raised at stages/run.py:13" in comment["body"]
    assert "origin" not in comment  # jaxfix's own mark, not sent to GitHub
    assert (
        _apply((repo / "stages.json").read_text(), [comment])
        == _git(repo, "show", f"{base}:stages.json") + "\n"
    )


@pytest.mark.jax
def test_an_origin_line_outside_the_diff_gets_no_comment(tmp_path):
    """The entry was wrong before the pull request, which edits the eval stage's line: the
    raising line's comment names the entry and what to set it to; no comment goes to
    stages.json, which the pull request does not show, nor to the summary's list."""
    _, _, review = _github_review_of_json_pull(tmp_path, "code")
    assert [(c["path"], c["line"]) for c in review["comments"]] == [
        ("stages/run.py", 13)
    ]
    assert (
        'stages.json:5: "mesh\\_shape" is \\[4, 4\\]; the enclosing mesh has size 8'
        in review["comments"][0]["body"]
    )
    # the narrow stage's line (27) is outside the diff: listed; the origin is not
    assert "<summary>stages/run.py:27</summary>" in review["body"]
    assert "<summary>stages.json" not in review["body"]
    assert "2 suggestions or findings" in review["body"]


@pytest.mark.jax
@pytest.mark.parametrize("change", ["entry", "code"])
def test_gitlab_posts_an_origin_only_where_the_diff_shows_it(tmp_path, change):
    """GitLab as GitHub: the entry's suggestion is a discussion at stages.json:5 when the
    merge request changed it; when it did not, nothing goes there, nor to the summary note."""
    repo, base, head, evidence = _json_pull(tmp_path, change)
    host = Host(patches=_patches(repo, base), head_sha=head)
    with Server(host) as url:
        env = {
            **os.environ,
            "CI_API_V4_URL": f"{url}/api/v4",
            "CI_PROJECT_ID": "42",
            "CI_MERGE_REQUEST_IID": "3",
            "CI_MERGE_REQUEST_DIFF_BASE_SHA": base,
            "JAXFIX_GITLAB_TOKEN": host.token,
            "CI_PROJECT_DIR": str(repo),
            "PYTHONPATH": str(ROOT),
        }
        done = _bot(
            env, "gitlab", "--unsafe-fixes", "--evidence", str(evidence), cwd=repo
        )
    assert done.returncode == 1, done.stderr
    assert host.violations == []
    posted = [b for m, p, b in host.writes("POST") if p.endswith("/discussions")]
    at_entry = [b for b in posted if b["position"]["new_path"] == "stages.json"]
    (note,) = host.notes
    if change == "entry":
        (discussion,) = at_entry
        assert discussion["position"]["new_line"] == 5
        assert _apply((repo / "stages.json").read_text(), at_entry, gitlab=True) == (
            _git(repo, "show", f"{base}:stages.json") + "\n"
        )
    else:
        assert at_entry == [] and "stages.json" not in note["body"]
        assert [b["position"]["new_line"] for b in posted] == [13]
