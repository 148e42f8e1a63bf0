"""What fleet tools offer: per-repository logs and verify commands, JSON on stdout, branch
name templates; and the one-liners: a dirty repository's files named, a missing git identity
found before any fix."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from jaxfix.cli.migrate import migrate
from workflows.test_migrate import (  # noqa: F401 - isolated_git is autouse
    BEFORE,
    BRANCH,
    FIXED,
    branch_file,
    git,
    has_branch,
    isolated_git,
    make_repo,
    run,
    snapshot,
)


def test_a_passing_verify_s_output_is_kept_in_the_repository_s_log(tmp_path):
    repo = make_repo(tmp_path / "alpha", {"model.py": BEFORE})
    code, report, stderr = run(
        "--out", "out", "--verify", "echo all 3 tests passed", str(repo)
    )
    assert code == 0, stderr
    entry = report["alpha"]
    assert entry["verify"]["passed"] and entry["verify"]["output_tail"] == ""
    assert entry["log"] == "logs/alpha.log"
    log = Path("out", entry["log"]).read_text()
    assert "all 3 tests passed" in log
    assert f"commit: {entry['commit']}" in log and "changed: model.py" in log
    assert "logs/alpha.log" in Path("out/report.md").read_text()


def test_a_repos_line_s_own_verify_command_replaces_verify_there(tmp_path):
    passing = make_repo(tmp_path / "passing", {"model.py": BEFORE})
    failing = make_repo(tmp_path / "failing", {"model.py": BEFORE})
    default = make_repo(tmp_path / "default", {"model.py": BEFORE})
    (tmp_path / "fleet.txt").write_text(
        "passing   verify: echo own command ran\n"
        "failing  verify: echo broke; exit 4  # the shell's comment\n"
        "default\n"
    )
    code, report, stderr = run(
        "--out", "out", "--repos", "fleet.txt", "--verify", "echo default ran"
    )
    assert code == 1, stderr
    assert report["passing"]["verify"]["command"] == "echo own command ran"
    assert report["passing"]["status"] == "changed"
    assert report["failing"]["status"] == "failed"
    assert report["failing"]["verify"]["exit_code"] == 4
    assert report["default"]["verify"]["command"] == "echo default ran"
    assert not has_branch(failing) and has_branch(passing) and has_branch(default)
    # recorded with its own command: the same list again redoes nothing done
    code, report, stderr = run(
        "--out", "out", "--repos", "fleet.txt", "--verify", "echo default ran"
    )
    assert "2 of 3 repositories already done" in stderr, stderr


def test_a_branch_template_names_each_repository_s_branch(tmp_path):
    repos = [
        make_repo(tmp_path / team / "service", {"model.py": BEFORE})
        for team in ("team-a", "team-b")
    ]
    code, report, stderr = run(
        "--out", "out", "--branch", "jax/{name}-fix", *map(str, repos)
    )
    assert code == 0, stderr
    assert report["team-a/service"]["branch"] == "jax/team-a/service-fix"
    assert branch_file(repos[1], "model.py", "jax/team-b/service-fix") == FIXED
    code, report, stderr = run(
        "--out", "out2", "--branch", "x/{name}.lock", str(repos[0])
    )
    assert code == 2 and "not a valid git branch name" in stderr


def test_json_on_stdout_is_report_json_s_document(tmp_path):
    repo = make_repo(tmp_path / "alpha", {"model.py": BEFORE})
    result = CliRunner().invoke(
        migrate,
        ["--color", "never", "--out", "out", "--output-format", "json", str(repo)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(Path("out/report.json").read_text())
    assert json.loads(result.stdout)["repos"][0]["status"] == "changed"


def test_a_missing_git_identity_is_found_before_any_fix(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "alpha", {"model.py": BEFORE})
    git(repo, "config", "--unset", "user.name")
    git(repo, "config", "--unset", "user.email")
    git(repo, "config", "user.useConfigOnly", "true")
    for name in ("AUTHOR", "COMMITTER"):
        for part in ("NAME", "EMAIL"):
            monkeypatch.delenv(f"GIT_{name}_{part}", raising=False)
    before = snapshot(repo)
    for dry in ((), ("--dry-run",)):
        code, report, stderr = run("--out", "out", *dry, str(repo))
        assert code == 1, stderr
        assert report["alpha"]["status"] == "skipped"
        assert report["alpha"]["reason"].startswith("no git identity to commit with")
        assert report["alpha"]["fixes"] == {}  # found before the fix work
    assert snapshot(repo) == before
