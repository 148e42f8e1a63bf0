"""`jaxfix migrate --push --open-pr`: one pull (merge) request per pushed branch, against the
local fake code host (tests/fake_code_host.py), never a real one."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from fake_code_host import Host, Server
from workflows.test_fleet import (  # noqa: F401 - the fixtures are autouse
    BRANCH,
    bare,
    fleet_env,
    refs,
    run,
    scratch_dir,
)
from workflows.test_migrate import BEFORE, CLEAN_CODE, git, isolated_git  # noqa: F401

TOKEN = "secret-token"


@pytest.fixture
def host(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITLAB_TOKEN", TOKEN)
    fake = Host(token=TOKEN)
    with Server(fake) as url:
        yield fake, url


def fleet(tmp_path: Path) -> list[Path]:
    return [
        bare(tmp_path, "alpha", {"model.py": BEFORE}),
        bare(tmp_path, "beta", {"model.py": BEFORE}),
        bare(tmp_path, "clean", {"model.py": CLEAN_CODE}),
    ]


def test_github_one_pull_request_per_pushed_branch_and_none_twice(tmp_path, host):
    fake, url = host
    remotes = fleet(tmp_path)
    urls = [r.as_uri() for r in remotes]
    args = ["--push", "--open-pr", "github", "--api-url", url, "--out", "out", *urls]
    code, report, stderr = run(*args)
    assert code == 0, stderr
    assert not fake.violations
    assert sorted((p["repo"], p["head"], p["base"]) for p in fake.pulls) == [
        ("remotes/alpha", BRANCH, "main"),
        ("remotes/beta", BRANCH, "main"),
    ]
    pull = fake.pulls[0]
    assert pull["title"] == "Fix JAX sharding code that recent JAX releases reject"
    assert "JAX001" in pull["body"] and "`model.py`" in pull["body"]
    assert report["alpha"]["pull_request"].startswith("https://github.example/")
    assert report["clean"]["pull_request"] is None
    assert BRANCH in refs(remotes[0])  # pushed before it was opened
    assert TOKEN not in stderr and TOKEN not in Path("out/report.json").read_text()

    # A re-run with the same --out: done, nothing asked of the host.
    asked = len(fake.requests)
    code, report, stderr = run(*args)
    assert code == 0, stderr
    assert len(fake.requests) == asked and len(fake.pulls) == 2

    # The report lost: the pushed branches are found as they are, the open requests kept.
    shutil.rmtree("out")
    code, report, stderr = run(*args)
    assert code == 0, stderr
    assert len(fake.pulls) == 2 and not fake.writes("POST")[2:]
    assert (
        report["alpha"]["pull_request"] == pull["html_url"]
        or report["beta"]["pull_request"] == pull["html_url"]
    )
    assert not fake.violations


def test_gitlab_merge_requests_name_the_project_by_its_path(tmp_path, host):
    fake, url = host
    remote = bare(tmp_path, "alpha", {"model.py": BEFORE})
    args = ["--push", "--open-pr", "gitlab", "--api-url", f"{url}/api/v4"]
    code, report, stderr = run(*args, "--out", "out", f"{remote.as_uri()}")
    assert code == 0, stderr
    assert not fake.violations
    project = quote(str(remote).strip("/").removesuffix(".git"), safe="")
    assert [
        (p["project"], p["source_branch"], p["target_branch"]) for p in fake.pulls
    ] == [(project, BRANCH, "main")]
    assert report["alpha"]["pull_request"] == fake.pulls[0]["web_url"]
    assert fake.tokens_seen and set(fake.tokens_seen) == {TOKEN}


def test_a_refused_request_is_one_line_the_token_hidden_and_retried_next_run(
    tmp_path, host
):
    from fake_code_host import Answer

    fake, url = host
    remote = bare(tmp_path, "alpha", {"model.py": BEFORE})
    fake.answers["/repos/remotes/alpha/pulls"] = Answer(
        403, {"message": f"token {TOKEN} lacks the pull_requests scope"}
    )
    args = ["--push", "--open-pr", "github", "--api-url", url, "--out", "out"]
    code, report, stderr = run(*args, remote.as_uri())
    assert code == 1, stderr
    assert "alpha: no pull request: GET /repos/remotes/alpha/pulls: HTTP 403" in stderr
    assert TOKEN not in stderr and TOKEN not in Path("out/report.json").read_text()
    assert report["alpha"]["status"] == "changed" and report["alpha"]["pushed"]
    assert "***" in report["alpha"]["pull_request_error"]

    del fake.answers["/repos/remotes/alpha/pulls"]
    code, report, stderr = run(*args, remote.as_uri())
    assert code == 0, stderr
    assert len(fake.pulls) == 1 and report["alpha"]["pull_request_error"] is None


@pytest.mark.parametrize(
    "args, env, says",
    [
        (["--open-pr", "github"], {}, "--open-pr needs --push"),
        (["--push", "--open-pr", "github"], {"GITHUB_TOKEN": ""}, "$GITHUB_TOKEN"),
        (["--push", "--open-pr", "gitlab"], {"GITLAB_TOKEN": ""}, "$GITLAB_TOKEN"),
        (["--api-url", "https://h"], {}, "--api-url is for --open-pr"),
    ],
)
def test_open_pr_usage_errors_come_before_any_work(
    tmp_path, monkeypatch, args, env, says
):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    remote = bare(tmp_path, "alpha", {"model.py": BEFORE})
    code, report, stderr = run(*args, "--out", "out", remote.as_uri())
    assert code == 2 and says in stderr and not report


@pytest.mark.parametrize(
    "executor", [(), ("--scheduler", "local")], ids=["pool", "dask"]
)
def test_max_clones_bounds_the_clones_and_pushes_running_at_once(
    tmp_path, monkeypatch, executor
):
    """A `git` first on PATH logs when each clone and push starts and ends (and takes a while):
    with --max-clones 1 and three jobs, no two overlap."""
    log, real = tmp_path / "network.log", shutil.which("git")
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        'case "$1" in clone|push)\n'
        f'  echo "start $(date +%s.%N)" >> {log}; sleep 0.3\n'
        f'  {real} "$@"; rc=$?\n'
        f'  echo "end $(date +%s.%N)" >> {log}; exit $rc;;\n'
        "esac\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    remotes = [bare(tmp_path, n, {"model.py": BEFORE}) for n in ("a", "b", "c")]
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    if executor:
        pytest.importorskip("distributed")
    args = [*executor, "--push", "-j", "3", "--max-clones", "1", "--out", "out"]
    code, report, stderr = run(*args, *(r.as_uri() for r in remotes))
    assert code == 0, stderr
    assert all(e["pushed"] for e in report.values())
    events = sorted(
        (float(at), kind)
        for kind, at in (l.split() for l in log.read_text().split("\n") if l)
    )
    assert len(events) == 12  # three clones, three pushes
    running = 0
    for _, kind in events:
        running += 1 if kind == "start" else -1
        assert running <= 1, events


def test_push_and_open_pr_for_a_work_tree_use_its_origin(tmp_path, host):
    fake, url = host
    remote = bare(tmp_path, "alpha", {"model.py": BEFORE})
    work = tmp_path / "checkout" / "alpha"
    subprocess.run(["git", "clone", "-q", str(remote), str(work)], check=True)
    args = ["--push", "--open-pr", "github", "--api-url", url, "--out", "out"]
    code, report, stderr = run(*args, str(work))
    assert code == 0, stderr
    entry = report["alpha"]
    assert entry["pushed"] and f"refs/heads/{BRANCH} {entry['commit']}" in refs(remote)
    assert [(p["repo"], p["head"], p["base"]) for p in fake.pulls] == [
        ("remotes/alpha", BRANCH, "main")
    ]
    # again, the report lost: the same commit is on origin, nothing pushed, no second request
    shutil.rmtree("out")
    code, report, stderr = run(*args, str(work))
    assert code == 0, stderr
    assert report["alpha"]["pushed"] and len(fake.pulls) == 1

    # someone else's branch of that name on origin is left alone
    other = bare(
        tmp_path, "beta", {"model.py": BEFORE}, {BRANCH: {"model.py": b"# theirs\n"}}
    )
    work = tmp_path / "checkout" / "beta"
    subprocess.run(["git", "clone", "-q", str(other), str(work)], check=True)
    before = refs(other)
    for dry in (("--dry-run",), ()):  # predicted, then refused before any work
        code, report, stderr = run("--push", *dry, "--out", "out2", str(work))
        assert code == 1 and report["beta"]["status"] == "skipped", stderr
        assert report["beta"]["reason"] == (
            f"branch '{BRANCH}' already exists on origin (--force-branch replaces it)"
        )
    assert refs(other) == before
    assert git(work, "branch", "--list", BRANCH) == ""


def test_the_body_escapes_what_repositories_wrote_and_mentions_nobody():
    from jaxfix.fleet.pulls import body
    from jaxfix.workflows.migrate_report import RepoReport, Status

    entry = RepoReport(
        "r",
        "r",
        Status.CHANGED,
        False,
        commit="c" * 40,
        files_changed=("@org/team.py", "a`b.py", *(f"f{i}.py" for i in range(30))),
        fixes=(("JAX001", 2),),
        target_jax="0.10.2 (pyproject.toml @all ![x](http://evil/))",
        left=("m.py:1:1: JAX002 [link](http://evil)",),
    )
    text = body(entry)
    assert "`@org/team.py`" in text and "``a`b.py``" in text  # code: as written
    assert "and 12 more" in text
    assert "@&#8203;all" in text and "\\!\\[x\\]" in text  # text: no mention, no image
    assert "`m.py:1:1: JAX002 [link](http://evil)`" in text


def test_dry_run_with_push_predicts_the_refusal_of_a_remote_branch(tmp_path):
    remote = bare(
        tmp_path, "beta", {"model.py": BEFORE}, {BRANCH: {"model.py": b"# theirs\n"}}
    )
    work = tmp_path / "work" / "beta"  # two commits on the branch: no earlier migration
    git(work, "checkout", "-q", BRANCH)
    (work / "model.py").write_bytes(b"# theirs, again\n")
    git(work, "commit", "-qam", "again")
    git(work, "push", "-q", str(remote), BRANCH)
    before = refs(remote)
    code, report, stderr = run("--push", "--dry-run", "--out", "out", remote.as_uri())
    assert code == 1 and report["beta"]["status"] == "skipped", stderr
    assert "already exists on the remote" in report["beta"]["reason"]
    assert refs(remote) == before


@pytest.mark.parametrize("kind, api", [("github", ""), ("gitlab", "/api/v4")])
def test_without_a_recorded_base_branch_the_host_s_default_is_asked(host, kind, api):
    """An entry recorded before base_branch was: the request goes into the host's default."""
    from jaxfix.fleet.pulls import CodeHost, open_request
    from jaxfix.workflows.migrate_report import RepoReport, Status

    fake, url = host
    fake.default_branch = "trunk"
    code_host = CodeHost(kind, url + api, TOKEN)
    entry = RepoReport("r", "r", Status.CHANGED, False, branch=BRANCH, commit="c" * 40)
    address = open_request(
        code_host, code_host.client(), entry, "https://h/org/r.git", None
    )
    assert [p.get("base") or p.get("target_branch") for p in fake.pulls] == ["trunk"]
    assert address in (fake.pulls[0].get("html_url"), fake.pulls[0].get("web_url"))
    assert not fake.violations
