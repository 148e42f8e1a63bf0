"""The review bot (`python -m jaxfix.bot`, the action in action.yml) against a local host that
checks every request against GitHub's and GitLab's documented shapes (tests/fake_code_host.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml

from fake_code_host import Host, Server, reset_in, suggestion_blocks

ROOT = Path(__file__).resolve().parent.parent
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
