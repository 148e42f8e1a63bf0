"""A re-run with the same --out redoes what its options or a moved base make stale, and
report.json says which options and when."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from workflows.test_migrate import (  # noqa: F401 - isolated_git is autouse
    BEFORE,
    BRANCH,
    CLEAN_CODE,
    FIXED,
    UNFIXABLE,
    branch_file,
    git,
    isolated_git,
    make_repo,
    run,
)


def commits_on_branch(repo: Path) -> int:
    return int(git(repo, "rev-list", "--count", f"main..{BRANCH}"))


def test_report_json_carries_the_run_s_options_and_times(tmp_path):
    repo = make_repo(tmp_path / "alpha", {"model.py": BEFORE})
    code, report, stderr = run("--out", "out", "--select", "JAX001", str(repo))
    assert code == 0, stderr
    document = json.loads(Path("out/report.json").read_text())
    assert document["run"]["options"] == {
        "--branch": BRANCH,
        "--select": ["JAX001"],
    }
    assert document["run"]["started"] <= document["run"]["finished"]
    assert report["alpha"]["options"] == document["run"]["options"]
    assert report["alpha"]["finished"].endswith("+00:00")


def test_different_options_redo_a_done_repository_and_rebuild_its_own_branch(tmp_path):
    unsafe = make_repo(tmp_path / "unsafe", {"model.py": UNFIXABLE})
    plain = make_repo(tmp_path / "plain", {"model.py": BEFORE})
    code, report, stderr = run("--out", "out", str(unsafe), str(plain))
    assert report["unsafe"]["status"] == "left" and report["unsafe"]["left"], stderr
    assert report["plain"]["status"] == "changed"

    code, report, stderr = run(
        "--out", "out", "--unsafe-fixes", str(unsafe), str(plain)
    )
    assert "unsafe: done before, runs again: options differ (--unsafe-fixes)" in stderr
    assert report["unsafe"]["status"] == "changed", stderr
    assert branch_file(unsafe, "model.py") != UNFIXABLE
    # plain's branch was jaxfix's own and untouched: rebuilt, still one commit
    assert report["plain"]["status"] == "changed", stderr
    assert commits_on_branch(plain) == 1
    assert branch_file(plain, "model.py") == FIXED

    code, report, stderr = run(
        "--out", "out", "--unsafe-fixes", str(unsafe), str(plain)
    )
    assert code == 0 and "2 of 2 repositories already done" in stderr, stderr


def test_a_moved_base_redoes_the_repository_unless_someone_built_on_its_branch(
    tmp_path,
):
    moved = make_repo(tmp_path / "moved", {"model.py": BEFORE})
    built_on = make_repo(tmp_path / "built_on", {"model.py": BEFORE})
    code, report, stderr = run("--out", "out", str(moved), str(built_on))
    assert code == 0, stderr
    for repo in (moved, built_on):
        (repo / "README").write_text("upstream moved\n")
        git(repo, "add", "README")
        git(repo, "commit", "-q", "-m", "upstream")
    git(built_on, "checkout", "-q", BRANCH)
    (built_on / "NOTES").write_text("mine\n")
    git(built_on, "add", "NOTES")
    git(built_on, "commit", "-q", "-m", "a reviewer's commit")
    git(built_on, "checkout", "-q", "main")
    reviewed = git(built_on, "rev-parse", BRANCH)

    code, report, stderr = run("--out", "out", str(moved), str(built_on))
    assert "moved: done before, runs again: its base moved" in stderr
    assert report["moved"]["status"] == "changed", stderr
    head = git(moved, "rev-parse", "main").strip()
    assert report["moved"]["base"] == head
    assert git(moved, "rev-parse", f"{BRANCH}^").strip() == head
    assert branch_file(moved, "model.py") == FIXED
    # someone's commit on the branch: never replaced, the repository is refused instead
    assert report["built_on"]["status"] == "skipped", stderr
    assert "already exists" in report["built_on"]["reason"]
    assert git(built_on, "rev-parse", BRANCH) == reviewed
    assert code == 1


def test_statuses_say_what_is_left_and_what_went_unchecked(tmp_path):
    clean = make_repo(tmp_path / "clean", {"model.py": CLEAN_CODE})
    unsafe = make_repo(tmp_path / "unsafe", {"model.py": UNFIXABLE})
    # Not even a file jaxfix can read as Python source text.
    broken = make_repo(tmp_path / "broken", {"model.py": b"\xff\xfe\x00bad = (\n"})
    code, report, stderr = run("--out", "out", str(clean), str(unsafe), str(broken))
    assert code == 1, stderr
    assert report["clean"]["status"] == "clean"
    assert report["unsafe"]["status"] == "left"
    assert report["unsafe"]["reason"] == "--unsafe-fixes would fix 1 of them"
    assert report["broken"]["status"] == "errors", report["broken"]
    assert report["broken"]["reason"].startswith("1 file not checked: model.py")
    markdown = Path("out/report.md").read_text()
    assert "| broken | errors | 0 | - | 0 | 1 | - |" in markdown
    # `left` counts as done for a re-run with the same options; `errors` is retried.
    code, report, stderr = run("--out", "out", str(clean), str(unsafe), str(broken))
    assert "2 of 3 repositories already done" in stderr


def test_dry_run_predicts_the_refusal_of_an_existing_branch(tmp_path):
    repo = make_repo(tmp_path / "taken", {"model.py": BEFORE})
    git(repo, "branch", BRANCH)  # someone else's branch of that name
    code, report, stderr = run("--out", "out", "--dry-run", str(repo))
    assert report["taken"]["status"] == "skipped", stderr
    assert "already exists" in report["taken"]["reason"]
    code, real, stderr = run("--out", "real", str(repo))
    assert real["taken"]["reason"] == report["taken"]["reason"]


def test_relative_paths_in_a_repos_file_are_the_list_file_s(tmp_path):
    fleet = tmp_path / "fleet"
    repo = make_repo(fleet / "services" / "alpha", {"model.py": BEFORE})
    (fleet / "repos.txt").write_text("services/alpha  # ours\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)  # the working directory has no services/alpha
    code, report, stderr = run("--out", "out", "--repos", str(fleet / "repos.txt"))
    assert code == 0, stderr
    assert report["alpha"]["repo"] == str(repo)
    assert branch_file(repo, "model.py") == FIXED


def test_filter_runs_only_the_matching_repositories(tmp_path):
    repos = [
        make_repo(tmp_path / team / "svc", {"model.py": BEFORE})
        for team in ("ml-a", "ml-b", "web")
    ]
    code, report, stderr = run("--out", "out", "--filter", "ml-*/svc", *map(str, repos))
    assert code == 0, stderr
    assert sorted(report) == ["ml-a/svc", "ml-b/svc"]
    assert (
        not subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", BRANCH], cwd=repos[2]
        ).returncode
        == 0
    )  # web was not touched
    code, _, stderr = run("--out", "out", "--filter", "nothing*", *map(str, repos))
    assert code == 2 and "no repository matches --filter 'nothing*'" in stderr


def test_a_deleted_or_reset_branch_redoes_the_repository_one_built_on_stays_done(
    tmp_path,
):
    deleted = make_repo(tmp_path / "deleted", {"model.py": BEFORE})
    reset = make_repo(tmp_path / "reset", {"model.py": BEFORE})
    built_on = make_repo(tmp_path / "built_on", {"model.py": BEFORE})
    repos = [str(deleted), str(reset), str(built_on)]
    code, report, stderr = run("--out", "out", *repos)
    assert code == 0, stderr
    git(deleted, "branch", "-D", BRANCH)
    git(reset, "branch", "-f", BRANCH, "main")  # the migration's commit dropped
    git(built_on, "checkout", "-q", BRANCH)
    (built_on / "NOTES").write_text("mine\n")
    git(built_on, "add", "NOTES")
    git(built_on, "commit", "-q", "-m", "a reviewer's commit")
    git(built_on, "checkout", "-q", "main")
    reviewed = git(built_on, "rev-parse", BRANCH)

    code, report, stderr = run("--out", "out", *repos)
    stderr = " ".join(stderr.split())  # the console wraps long lines
    assert f"deleted: done before, runs again: its branch '{BRANCH}' is gone" in stderr
    assert report["deleted"]["status"] == "changed", stderr
    assert branch_file(deleted, "model.py") == FIXED
    assert "reset: done before, runs again: its branch" in stderr
    assert "no longer holds the migration" in stderr
    # the branch is not jaxfix's commit any more: refused, never replaced
    assert report["reset"]["status"] == "skipped", stderr
    assert git(reset, "rev-parse", BRANCH) == git(reset, "rev-parse", "main")
    # the reviewer's commit sits on jaxfix's: still done, untouched
    assert "built_on: done before" not in stderr
    assert git(built_on, "rev-parse", BRANCH) == reviewed


def test_a_forged_commit_in_report_json_redoes_the_repository(tmp_path):
    repo = make_repo(tmp_path / "forged", {"model.py": BEFORE})
    code, report, stderr = run("--out", "out", str(repo))
    assert code == 0, stderr
    path = Path("out/report.json")
    document = json.loads(path.read_text())
    for entry in document["repos"]:
        entry["commit"] = "--output=/tmp/x"
    path.write_text(json.dumps(document))
    code, report, stderr = run("--out", "out", str(repo))
    stderr = " ".join(stderr.split())
    assert "runs again: the recorded migration commit is not a commit id" in stderr
