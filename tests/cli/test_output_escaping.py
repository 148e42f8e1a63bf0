"""A stranger's file names, code and logs reach jaxfix's output only as text: a name holding a
newline and a fake patch header names only its own file in `--diff` (read back by real
`git apply`), a name holding `::warning::` or ESC sequences starts no workflow command and
reaches no terminal, and each machine format still parses with its consumer's reader."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest
from click.testing import CliRunner

from cli.test_formats import SARIF_SCHEMA
from jaxfix.cli.main import cli
from jaxfix.ground.escaping import git_path, printable
from snippets import FIXED, VIOLATION

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "JAX001" / "bare_jit_decorator_lower.py"


def cli_run(*args: str):
    return CliRunner().invoke(
        cli, ["--color", "never", "--no-cache", *args], catch_exceptions=False
    )


def git(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], check=True, capture_output=True, **kwargs)


def git_repo(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(path / ".no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(path)
    git("init", "-q")


def _unsafe_characters(text: str) -> list[str]:
    """Characters a terminal or a line reader acts on, other than the line breaks between lines."""
    return sorted({c for c in text.replace("\n", "") if not c.isprintable()})


# -- item 1: --diff quotes names as git does -------------------------------------------------------

NAMES = [
    b"a\nb.py",
    b"sp ace.py",
    b"tab\tx.py",
    b'q"uote.py',
    b"back\\slash.py",
    b"bad\xff.py",
    b"caf\xc3\xa9.py",
    b"esc\x1b[1m.py",
    b"del\x7f.py",
    b"bel\x07.py",
    b"c1\xc2\x9b.py",
    b"nl at end\n.py",
    b"cr\r.py",
]


def test_diff_headers_are_what_git_diff_prints(tmp_path, monkeypatch):
    git_repo(monkeypatch, tmp_path)
    for name in NAMES:
        Path(os.fsdecode(name)).write_text(VIOLATION)
    git("add", "-A")
    result = cli_run("--diff", ".")
    assert result.exit_code == 1
    ours = [
        line
        for line in result.stdout_bytes.split(b"\n")
        if line.startswith((b"--- ", b"+++ "))
    ]
    git("apply", "-", input=result.stdout_bytes)
    assert all(Path(os.fsdecode(name)).read_text() == FIXED for name in NAMES)
    theirs = [
        line
        for line in git("diff").stdout.split(b"\n")
        if line.startswith((b"--- ", b"+++ "))
    ]
    assert sorted(ours) == sorted(theirs) and len(ours) == 2 * len(NAMES)


def test_git_path_quotes_every_byte_git_quotes():
    assert git_path(b"plain/name.py") == b"plain/name.py"
    assert git_path(b"a/x\n--- a/v.py") == b'"a/x\\n--- a/v.py"'
    assert (
        git_path(b'\x01\x07\x08\t\n\x0b\x0c\r\x1b"\\\x7f\x80\xff')
        == b'"\\001\\a\\b\\t\\n\\v\\f\\r\\033\\"\\\\\\177\\200\\377"'
    )


# The issue's recipe: directories whose names hold a whole fake patch for victim.py.
ISSUE_RECIPE = (
    "x\n--- a",
    "victim.py\n+++ b",
    'victim.py\n@@ -2,3 +2,3 @@\n A\n-import jax\n+import os; os.system("touch PWNED")\n B\n--- a',
    "clean.py\n+++ b",
    "clean.py",
)
ISSUE_VICTIM = "Z\nA\nimport jax\nB\n"
# The same idea where the fake hunk applies twice (the name is in both `---` and `+++` lines)
# and the real hunk lands on an ignored copy of the flagged file: on main, git apply accepted
# it all and patched victim.py.
APPLYING_RECIPE = (
    "x\n--- a",
    "victim.py\n+++ b",
    'victim.py\n@@ -2,2 +2,3 @@\n A\n+import os; os.system("touch PWNED")\n B\n--- a',
    "t",
    "m.py\n+++ b",
    "t",
    "m.py",
)
APPLYING_VICTIM = "Z\nA\nB\nQ\nA\nB\nQ\n"


@pytest.mark.parametrize(
    "parts, victim",
    [(ISSUE_RECIPE, ISSUE_VICTIM), (APPLYING_RECIPE, APPLYING_VICTIM)],
    ids=["issue", "applying"],
)
def test_diff_piped_to_git_apply_patches_only_the_flagged_file(
    tmp_path, monkeypatch, parts, victim
):
    git_repo(monkeypatch, tmp_path)
    flagged = Path(*parts)
    flagged.parent.mkdir(parents=True)
    flagged.write_bytes(FIXTURE.read_bytes())
    Path("victim.py").write_text(victim)
    Path("t").mkdir()
    Path("t/m.py").write_bytes(FIXTURE.read_bytes())
    Path(".gitignore").write_text("/t/\n")
    result = cli_run("--diff", ".")
    assert result.exit_code == 1
    applied = subprocess.run(
        ["git", "apply", "-v", "-"],
        input=result.stdout_bytes,
        capture_output=True,
        check=False,
    )
    assert Path("victim.py").read_text() == victim
    assert not Path("PWNED").exists()
    assert applied.returncode == 0, applied.stderr
    assert (
        flagged.read_bytes()
        == FIXTURE.with_name("bare_jit_decorator_lower.fixed.py").read_bytes()
    )
    assert Path("t/m.py").read_bytes() == FIXTURE.read_bytes()


def test_dry_run_and_json_diffs_quote_the_name_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("v\n+++ b\x1b[2J.py").write_text(VIOLATION)
    shown = cli_run("--dry-run", ".").stdout
    assert '--- "a/v\\n+++ b\\033[2J.py"\n+++ "b/v\\n+++ b\\033[2J.py"\n' in shown
    assert not _unsafe_characters(shown)
    (entry,) = json.loads(cli_run("--check", "--format", "json", ".").stdout)["files"]
    assert entry["diff"].startswith(
        '--- "a/v\\n+++ b\\033[2J.py"\t\n+++ "b/v\\n+++ b\\033[2J.py"\t\n@@ '
    )


def test_a_notebook_cell_diff_quotes_the_name(tmp_path, monkeypatch):
    import nbformat

    monkeypatch.chdir(tmp_path)
    name = "n\n--- a victim.py.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(VIOLATION)])
    Path(name).write_text(nbformat.writes(notebook))
    diff = cli_run("--diff", ".").stdout
    headers = [line for line in diff.splitlines() if line.startswith(("--- ", "+++ "))]
    assert headers == [
        '--- "a/n\\n--- a victim.py.ipynb:cell 1"',
        '+++ "b/n\\n--- a victim.py.ipynb:cell 1"',
    ]


# -- item 2: every sink gets its own escaping ---------------------------------------------------------

# Names from the issue: a newline and a workflow command; ESC c (reset the terminal), ESC 7 (save
# the cursor), an OSC title, a C1 CSI, a line separator, an undecodable byte.
HOSTILE = [
    "u\n::warning::x\n.py",
    "v\n::error file=a::b\x1bc\x1b7.py",
    "w\x1b]0;pwned\x07\u009b2J\u2028.py",
    os.fsdecode(b"bad\xff\n::add-mask::s.py"),
]


def hostile_tree(path: Path) -> list[str]:
    """Each hostile name twice: undecodable content (an error line) and a fixable violation."""
    names = []
    for index, name in enumerate(HOSTILE):
        Path(f"e{index}{name}").write_bytes(b"\xff\xfe\x00\x00 not python")
        Path(f"f{index}{name}").write_text(VIOLATION)
        names += [f"e{index}{name}", f"f{index}{name}"]
    return names


def test_text_output_shows_hostile_names_escaped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = hostile_tree(tmp_path)
    for args in (("--check",), ("--dry-run",), ("--diff",), ()):
        result = cli_run(
            *args, "."
        )  # diagnostics go to stdout, errors to stderr; --diff's stdout is the patch
        stderr = result.stderr if args == ("--diff",) else result.output
        assert not _unsafe_characters(stderr), args
        assert not [
            line
            for line in stderr.splitlines()
            if line.startswith(("::", "\x1b", ".py"))
        ], args
        for name in names:
            if args != ("--diff",) or name.startswith(
                "e"
            ):  # --diff prints its fixes on stdout
                assert printable(name) in stderr, (args, name)
    assert "e0u\\n::warning::x\\n.py: error:" in stderr
    assert (
        "f3bad\\xff\\n::add-mask::s.py" in stderr
        and "w\\x1b]0;pwned\\x07\\x9b2J\\u2028.py" in stderr
    )


_COMMAND = re.compile(
    r"^::(?P<command>[a-z-]+)(?: (?P<properties>[^:]*))?::(?P<data>.*)$"
)


def workflow_commands(stdout: str) -> list[tuple[str, dict[str, str], str]]:
    """What the Actions runner reads from stdout: lines split at \\n and \\r only (its
    StreamReader.ReadLine), leading white space trimmed, every `::` line a command."""

    def unescape(value: str) -> str:
        return (
            value.replace("%0D", "\r")
            .replace("%0A", "\n")
            .replace("%3A", ":")
            .replace("%2C", ",")
            .replace("%25", "%")
        )

    commands = []
    for line in re.split(r"\r\n|\r|\n", stdout.removesuffix("\n")):
        match = _COMMAND.match(line.lstrip())
        assert match, line
        properties = dict(
            p.split("=", 1) for p in (match["properties"] or "").split(",") if p
        )
        commands.append(
            (
                match["command"],
                {k: unescape(v) for k, v in properties.items()},
                unescape(match["data"]),
            )
        )
    return commands


_PATHS = {  # the file each record names, as its consumer reads it
    "gitlab": lambda document: {i["location"]["path"] for i in document},
    "sarif": lambda document: {
        os.fsdecode(
            unquote(
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                errors="surrogateescape",
            )
        )
        for r in document["runs"][0]["results"]
    },
    "rdjson": lambda document: {d["location"]["path"] for d in document["diagnostics"]},
    "json": lambda document: {f["path"] for f in document["files"]},
    "github-suggestions": lambda document: {i["path"] for i in document},
}


_SCHEMAS = {"sarif": SARIF_SCHEMA}


def test_machine_formats_keep_hostile_names_inside_their_records(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = set(hostile_tree(tmp_path))
    fixable = {n for n in names if n.startswith("f")}
    for name in ("github", "gitlab", "sarif", "rdjson", "json", "github-suggestions"):
        result = cli_run("--check", "--format", name, ".")
        assert result.exit_code == 2, name
        assert not _unsafe_characters(result.stderr), name
        if name == "github":
            commands = workflow_commands(
                result.stdout
            )  # every line is one workflow command
            assert {command for command, _, _ in commands} == {"error"} and len(
                commands
            ) == len(names)
            as_read = {
                n.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                for n in names
            }  # stdout is UTF-8
            assert {p["file"] for _, p, _ in commands} == as_read
            continue
        assert result.stdout.isascii() and not _unsafe_characters(result.stdout), name
        document = json.loads(result.stdout)
        assert _PATHS[name](document) == (names if name == "json" else fixable), name
        if name in _SCHEMAS:
            jsonschema.Draft4Validator(_SCHEMAS[name]).validate(document)
            artifacts = re.findall(r'"uri": "([^"]*)",\s*"uriBaseId"', result.stdout)
            assert artifacts and all(
                re.fullmatch(r"[A-Za-z0-9\-._~/%]+", uri) for uri in artifacts
            )  # URI references


def test_from_log_errors_escape_the_paths_the_log_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("src").mkdir()
    Path("src/stage.py").write_text(VIOLATION)
    frame = "/ci/\x1bc\x1b7\u009b2J\u2028\x7f.py"  # an OSC or CSI sequence is taken out of a log's lines
    Path("ci.log").write_text(
        "Traceback (most recent call last):\n"
        f'  File "{frame}", line 7, in <module>\n'
        "    lowered = jax.jit(jnp.sin).lower(x)\n"
        "ValueError: Passing lowering_platforms via jax.export or jit(f).trace(*args).lower(lowering_platforms=...) "
        "is required when only AbstractMesh exists in a jitted computation\n"
    )
    result = cli_run("--from-log", "ci.log", "--check", "src")
    assert result.exit_code == 2
    (error,) = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert printable(frame) in error and not _unsafe_characters(result.stderr)


def test_a_stranger_s_config_key_is_shown_escaped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("pyproject.toml").write_text(
        '[tool.jaxfix]\n"x\\n::error::forged\\u001b[2J" = 1\n'
    )
    Path("a.py").write_text(VIOLATION)
    result = cli_run("--check", "a.py")
    assert result.exit_code == 2
    assert (
        "unknown key 'x\\n::error::forged\\x1b[2J'" in result.stderr
        and not _unsafe_characters(result.stderr)
    )


def test_source_lines_in_a_preview_are_escaped_but_the_patch_is_exact(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    title = 'TITLE = "\x1b]0;pwned\x07\x1bc"  # \u202e\tend\n'
    Path("m.py").write_text(VIOLATION.replace("lowered =", title + "lowered ="))
    shown = cli_run("--dry-run", "m.py").stdout
    assert (
        ' TITLE = "\\x1b]0;pwned\\x07\\x1bc"  # \\u202e' in shown
        and not _unsafe_characters(shown)
    )
    patch = cli_run("--diff", "m.py").stdout_bytes
    assert b" " + title.encode() in patch  # context lines are the file's own bytes
    git("apply", "-", input=patch)
    assert Path("m.py").read_text() == FIXED.replace("lowered =", title + "lowered =")


def test_printable_shows_what_repr_shows():
    assert printable("plain text: ok") == "plain text: ok"
    assert (
        printable("a\nb\r\x1b[2J\x9b\u2028\u202e\t")
        == "a\\nb\\r\\x1b[2J\\x9b\\u2028\\u202e\\t"
    )
    assert printable("x\ty", tabs=True) == "x\ty"
    assert printable(os.fsdecode(b"bad\xff.py")) == "bad\\xff.py"
    assert printable("café — 漢字") == "café — 漢字"
    assert printable("".join(map(chr, range(0x3000)))).isprintable()


# -- item 12: line 0 is not a line ------------------------------------------------------------------

STAGE = """import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

OUTER = jax.sharding.get_abstract_mesh()
with use_abstract_mesh(OUTER):
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        print(jax.sharding.get_abstract_mesh())
"""


def jax002_traceback(line: int, prev_data: int = 8) -> str:
    """What CPython prints for JAX002 raised at `line` of stage.py (jax 0.10.2's message)."""
    return (
        "Traceback (most recent call last):\n"
        f'  File "/ci/src/stage.py", line {line}, in <module>\n'
        '    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):\n'
        "ValueError: use_abstract_mesh cannot change the size of the mesh. Got new mesh: "
        "AbstractMesh('data': 16, 'model': 4, axis_types=(Explicit, Explicit)) with size=64 and prev mesh: "
        f"AbstractMesh('data': {prev_data}, 'model': 4, axis_types=(Explicit, Explicit)) with size={prev_data * 4}\n"
    )


def test_a_log_frame_at_line_0_is_refused_with_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("src").mkdir()
    Path("src/stage.py").write_text(STAGE)
    Path("ci.log").write_text(jax002_traceback(0))
    for name in ("text", "sarif", "github"):
        result = cli_run("--from-log", "ci.log", "--check", "--format", name, "src")
        assert result.exit_code == 2
        errors = [line for line in result.stderr.splitlines() if ": error: " in line]
        assert errors == [
            "ci.log: error: log line 4: JAX002 traceback not used: line 0 is not a line of src/stage.py"
        ]
        assert (
            ":0:" not in result.stderr
            and "line=0" not in result.stdout
            and '"startLine": 0' not in result.stdout
        )


def test_formats_never_print_line_0(tmp_path, monkeypatch):
    from jaxfix.cli.formats import FORMATS, RunInfo
    from jaxfix.codemods import RULES
    from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location

    monkeypatch.chdir(tmp_path)
    Path("m.py").write_text("x = 1\n")
    nowhere = Diagnostic(
        "JAX002", "somewhere in this file", Location(0, 1), Location(0, 1)
    )
    results = [
        FileResult(Path("m.py"), b"x = 1\n", diagnostics=(nowhere,)),
        FileResult(
            Path("m.py"), b"x = 1\n", error="broken", error_location=Location(0, 0)
        ),
    ]
    info = RunInfo(tuple(RULES.values()), write=False)
    sarif = json.loads(FORMATS["sarif"](results, info))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    (result,) = sarif["runs"][0]["results"]
    assert "region" not in result["locations"][0]["physicalLocation"]
    github = FORMATS["github"](results, info)
    assert (
        "line=" not in github
        and "col=" not in github
        and github.count("::error file=m.py,title=") == 2
    )


# -- item 14: 20,000 tracebacks that disagree make a line a reader can take in ------------------------


def test_contradicting_tracebacks_give_a_bounded_message(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("src").mkdir()
    Path("src/stage.py").write_text(STAGE)
    Path("ci.log").write_text(
        "".join(jax002_traceback(6, prev) for prev in range(1, 20_001))
    )
    result = cli_run("--from-log", "ci.log", "--check", "--unsafe-fixes", "src")
    assert result.exit_code == 1
    (line,) = [line for line in result.stdout.splitlines() if "JAX002" in line]
    assert len(line) < 1000, len(line)
    assert "log lines 4, 8, 12, ... (20,000 in all)" in line
    assert (
        "size 4 (1, 4) ('data', 'model') or size 8 (2, 4) ('data', 'model') or size 12 (3, 4) ('data', 'model') or ... (20,000 in all)"
        in line
    )


# -- item 15: migrate's report.md ------------------------------------------------------------------

INJECTED = "```\n# Injected heading\n![tracker](https://attacker.example/pixel.png)\n<img src=x onerror=alert(1)>\n| a | b |"


def test_migrate_report_md_keeps_verify_output_and_file_names_inert(
    tmp_path, monkeypatch
):
    from markdown_it import MarkdownIt

    from jaxfix.cli.migrate import migrate

    git_repo(monkeypatch, tmp_path)
    hostile = "bad\n# Heading ![i](https://attacker.example/i.png) | x `y`\x1b[2J.py"
    hidden = "h\x1b]0;title\x07\n# Hidden <img src=x>.py"
    for name, files in (
        ("repo", {hostile: b"\xff\xfe\x00\x00"}),
        ("hidden", {hidden: FIXTURE.read_bytes()}),
    ):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        git("init", "-q", "-b", "main")
        git("config", "user.name", "Bot")
        git("config", "user.email", "bot@example.com")
        Path("pyproject.toml").write_text('[tool.jaxfix]\njax-version = "0.10.2"\n')
        Path("model.py").write_bytes(FIXTURE.read_bytes())
        for path, data in files.items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(data)
        Path("verify.sh").write_text(
            f"printf '%s\\n' '{INJECTED}' '````' 'done'\nexit 1\n"
        )
        git("add", "-A")
        git("commit", "-q", "-m", "initial")
    git(
        "update-index", "--assume-unchanged", "--", hidden
    )  # migrate refuses it, naming the file
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        migrate,
        [
            "--color",
            "never",
            "--out",
            "out",
            "--verify",
            "sh verify.sh",
            "repo",
            "hidden",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 1
    assert printable(hidden) in result.stderr and not _unsafe_characters(result.stderr)
    text = (tmp_path / "out" / "report.md").read_text()
    assert not _unsafe_characters(text)
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    inline = [child for token in tokens for child in token.children or ()]
    headings = [
        tokens[i + 1].content
        for i, token in enumerate(tokens)
        if token.type == "heading_open"
    ]
    assert headings == ["jaxfix migrate report", "repo", "hidden"]
    assert not [
        t
        for t in [*tokens, *inline]
        if t.type in ("image", "link_open", "html_inline", "html_block")
    ]
    assert (
        sum(1 for t in tokens if t.type == "table_open") == 1
        and sum(1 for t in tokens if t.type == "tr_open") == 3
    )
    (fence,) = [t for t in tokens if t.type == "fence"]
    assert fence.content == INJECTED + "\n````\ndone\n"
    shown = [
        "".join(c.content for c in t.children or ())
        for t in tokens
        if t.type == "inline"
    ]
    (error,) = [line for line in shown if line.startswith("error: ")]
    assert error.startswith(
        f"error: {printable(Path(hostile).as_posix())}: "
    )  # as the text shows it, every character literal


def test_review_bot_summary_keeps_file_names_and_errors_inert():
    from markdown_it import MarkdownIt

    from jaxfix.bot.github import summary

    path = "x</summary><img src=https://attacker.example/p.png>\n# h.py"
    outside = [{"path": path, "line": 3, "body": "**JAX001**: message"}]
    error = (
        "e`x`.py: error: not a Python source file ![i](https://attacker.example/i.png)"
    )
    text = summary([], outside, (error,), "0" * 40)
    assert (
        "<img" not in text
        and "&lt;img src=https://attacker.example/p.png&gt;\\n# h.py:3</summary>"
        in text
    )
    tokens = MarkdownIt("commonmark").parse(text)
    assert not [
        c
        for t in tokens
        for c in t.children or ()
        if c.type in ("image", "html_inline")
    ]
    assert any(
        c.type == "code_inline" and c.content == error
        for t in tokens
        for c in t.children or ()
    )


def test_a_review_comment_shows_the_user_s_code_as_text(tmp_path, monkeypatch):
    from markdown_it import MarkdownIt

    from jaxfix.ground.escaping import markdown_message

    monkeypatch.chdir(tmp_path)
    Path("m.py").write_text(
        "from jax.sharding import AbstractMesh, use_abstract_mesh\n\n"
        'with use_abstract_mesh(AbstractMesh((8, 4), ("a", "b"))):\n'
        '    with use_abstract_mesh(AbstractMesh((16, 4), ("`![i](//a.co/p)`<img src=x>", "b"))):\n'
        "        pass\n"
    )
    (item,) = json.loads(
        cli_run(
            "--check", "--unsafe-fixes", "--format", "github-suggestions", "m.py"
        ).stdout
    )
    tokens = MarkdownIt("commonmark").parse(item["body"])
    assert not [
        c
        for t in tokens
        for c in t.children or ()
        if c.type in ("image", "link_open", "html_inline")
    ]
    assert not [t for t in tokens if t.type == "html_block"]
    (message,) = [
        d["message"]
        for d in json.loads(cli_run("--check", "--format", "json", "m.py").stdout)[
            "files"
        ][0]["diagnostics"]
    ]
    assert "![i](//" in message and "<img" in message
    shown = "".join(
        f"`{c.content}`" if c.type == "code_inline" else c.content
        for t in tokens
        for c in t.children or ()
    )
    assert (
        shown == f"JAX002: {message}"
    )  # every character of it shown, none of it Markdown
    assert (
        markdown_message("`a` and `b`") == "`a` and `b`"
        and markdown_message("one ` only") == "one \\` only"
    )
    assert (
        markdown_message("`x`y`") == "`x`y\\`"
        and markdown_message("`a``b`") == "`a` `b`"
    )
    for crafted in (
        "`a``![i](u)`",
        "`a``b``c`",
        "x\\`![i](u)`",
        "`a```![i](u)``",
        "``![i](u)``",
    ):
        parsed = MarkdownIt("commonmark").parse(markdown_message(crafted))
        assert not [
            c
            for t in parsed
            for c in t.children or ()
            if c.type in ("image", "link_open", "html_inline")
        ], crafted


def test_progress_shows_the_files_being_parsed_escaped_and_never_as_markup():
    import io

    from rich.console import Console

    from jaxfix.cli.progress import MIN_BYTES, ParseProgress

    out = io.StringIO()
    name = Path(
        "[/x]\n\x1b]0;title\x07.py"
    )  # a closing tag opening nothing made rich raise MarkupError
    with ParseProgress(
        Console(file=out, force_terminal=True, width=200), workers=2
    ) as progress:
        progress.plan([(name, MIN_BYTES * 2)])
        assert progress.line().endswith("now: [/x]\\n\\x1b]0;title\\x07.py")
    assert (
        "[/x]\\n\\x1b]0;title\\x07.py" in out.getvalue()
        and "\x1b]0;" not in out.getvalue()
    )
