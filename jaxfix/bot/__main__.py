"""`python -m jaxfix.bot github|gitlab`: check the checkout and post the review.

GitHub reads the Actions environment (GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH,
GITHUB_TOKEN); GitLab its CI variables (CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID,
CI_MERGE_REQUEST_DIFF_BASE_SHA) and a token with the `api` scope in JAXFIX_GITLAB_TOKEN.
Exit codes: 0, or 1 when `--fail-on` says the findings fail the job; 2 when the review could
not be posted or the environment is not a pull/merge request's.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from jaxfix.bot.findings import Findings, failed, jaxfix_command, run_jaxfix
from jaxfix.bot.rest import ApiError, mismatch, shown
from jaxfix.ground.bounded_data import load_json
from jaxfix.ground.escaping import printable
from jaxfix.workflows.git import GitError, git

# What the bot reads of the pull request's event (GITHUB_EVENT_PATH).
_EVENT = {
    "pull_request": (
        {"number": int, "head": {"sha": str}, "base": {"sha": str}},
        None,
    )
}


class BotError(click.ClickException):
    exit_code = 2


def _env(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise BotError(
            f"{name} is not set: run this in the CI job of a pull (merge) request"
        )
    return value


def _merge_base(base: str, cwd: Path) -> str:
    if base.startswith("-"):  # git would read it as an option
        raise BotError(f"the base commit {printable(base[:40])} is not a git revision")
    try:
        return git(cwd, "merge-base", base, "HEAD").strip()
    except GitError:
        raise BotError(
            f"the base commit {printable(base[:12])} is not in this checkout: check out with full history "
            "(actions/checkout with fetch-depth: 0; GitLab: GIT_DEPTH: 0)"
        ) from None


def _head(cwd: Path) -> str:
    try:
        return git(cwd, "rev-parse", "HEAD").strip()
    except GitError:
        raise BotError("not a git checkout") from None


def _shown(text: str) -> str:
    """An error line as the bot prints it: escaped, the tokens it was given redacted (the host's
    answers can hold anything, the token it was sent included)."""
    tokens = (
        os.environ.get(name, "") for name in ("GITHUB_TOKEN", "JAXFIX_GITLAB_TOKEN")
    )
    return shown(text, [t.strip() for t in tokens])


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("host", type=click.Choice(["github", "gitlab"]))
@click.argument("paths", nargs=-1)
@click.option("--unsafe-fixes", is_flag=True, help="Suggest unsafe fixes too.")
@click.option(
    "--target-version",
    metavar="VERSION",
    help="The JAX version the code is checked against.",
)
@click.option(
    "--evidence",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="An evidence file or a log from a failing test job (the fixes static analysis cannot see).",
)
@click.option(
    "--fail-on",
    type=click.Choice(["findings", "errors", "never"]),
    default="findings",
    show_default=True,
)
def main(
    host: str,
    paths: tuple[str, ...],
    unsafe_fixes: bool,
    target_version: str | None,
    evidence: Path | None,
    fail_on: str,
) -> None:
    """Post jaxfix's suggestions on the pull request (GitHub) or merge request (GitLab)."""
    cwd = Path(
        os.environ.get("GITHUB_WORKSPACE") or os.environ.get("CI_PROJECT_DIR") or "."
    )
    try:

        def findings_since(base: str) -> Findings:
            command = jaxfix_command(
                list(paths),
                base=base,
                unsafe_fixes=unsafe_fixes,
                target_version=target_version,
                evidence=evidence,
            )
            return run_jaxfix(command, cwd)

        if host == "github":
            from jaxfix.bot import github

            event = load_json(
                Path(_env("GITHUB_EVENT_PATH")).read_text(encoding="utf-8")
            )
            problem = mismatch(event, _EVENT, "event")
            if problem:
                raise BotError(f"jaxfix review: unexpected shape: {problem}")
            pull = event.get("pull_request")
            if not pull:
                raise BotError(
                    "the event is not a pull request's (run the action on pull_request or pull_request_target)"
                )
            owner, _, repo = _env("GITHUB_REPOSITORY").partition("/")
            pr = github.PullRequest(
                owner, repo, int(pull["number"]), pull["head"]["sha"]
            )
            if _head(cwd) != pr.head_sha:
                raise BotError(
                    f"the checkout is at {_head(cwd)[:12]}, not the pull request's head {pr.head_sha[:12]}: "
                    "check out `github.event.pull_request.head.sha` so suggestions match its lines"
                )
            base = _merge_base(pull["base"]["sha"], cwd)
            findings = findings_since(base)
            api = github.client(
                os.environ.get("GITHUB_API_URL", "https://api.github.com"),
                _env("GITHUB_TOKEN"),
            )
            outcome = github.post_review(
                api,
                pr,
                list(findings.comments),
                findings.errors,
                login=os.environ.get("JAXFIX_BOT_LOGIN", "github-actions[bot]") or None,
            )
        else:
            from jaxfix.bot import gitlab

            mr = gitlab.MergeRequest(
                _env("CI_PROJECT_ID"), int(_env("CI_MERGE_REQUEST_IID"))
            )
            base = _merge_base(_env("CI_MERGE_REQUEST_DIFF_BASE_SHA"), cwd)
            findings = findings_since(base)
            api = gitlab.client(_env("CI_API_V4_URL"), _env("JAXFIX_GITLAB_TOKEN"))
            outcome = gitlab.post_discussions(
                api, mr, list(findings.comments), findings.errors
            )
    except BotError as error:
        raise BotError(_shown(error.message)) from None
    except (ApiError, RuntimeError, OSError, ValueError, KeyError) as error:
        raise BotError(_shown(f"jaxfix review: {error}")) from None
    except Exception as error:  # a bug, still one line and exit 2 (1 says "findings")
        raise BotError(
            _shown(f"jaxfix review: internal error: {type(error).__name__}: {error}")
        ) from None
    for line in findings.errors:
        click.echo(line, err=True)
    click.echo(
        f"jaxfix review: {outcome.posted} posted, {outcome.kept} kept, {outcome.deleted} deleted, "
        f"{len(outcome.outside)} outside the diff (listed in the summary)",
        err=True,
    )
    sys.exit(1 if failed(findings, fail_on) else 0)


if __name__ == "__main__":
    main()
