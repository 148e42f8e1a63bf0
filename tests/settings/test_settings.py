"""Settings are declared once (jaxfix/settings/table.py): config keys, flags of both commands, Options."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from jaxfix.cli.flags import setting_values
from jaxfix.cli.main import check, cli
from jaxfix.cli.migrate import migrate
from jaxfix.settings.config import build_options, load_config
from jaxfix.settings.table import MAIN, MIGRATE, SETTINGS
from snippets import VIOLATION

RULES_DIR = Path(__file__).resolve().parents[1] / "rules"

# One value per setting, as a config value and as command-line arguments.
VALUES = {
    "select": (["JAX001"], ["--select", "JAX001"]),
    "ignore": (["JAX002"], ["--ignore", "JAX002"]),
    "unsafe-fixes": (True, ["--unsafe-fixes"]),
    "host-devices": (8, ["--host-devices", "8"]),
    "platforms": (["cpu", "tpu"], ["--platform", "cpu", "--platform", "tpu"]),
    "fill-axis": ("data", ["--fill-axis", "data"]),
    "target-version": ("0.12.0", ["--target-version", "0.12.0"]),
    "exclude": (["generated"], ["--exclude", "generated"]),
    "strict": (True, ["--strict"]),
    "include": (["*.py"], None),
    "extend-include": (["*.pyw"], None),
    "max-file-size": (1000, None),
    "max-log-size": (1000, None),
    "max-parse-memory": (4096, None),
    "src": (["src"], None),
    "cache-dir": ("cache", ["--cache-dir", "cache"]),
}
# Flags only (a config file may not name code to import, nor where jaxfix writes): their
# flags, not config values.
VALUES["rule-modules"] = (None, ["--rule-module", str(RULES_DIR)])
VALUES["output-file"] = (None, ["--output-file", "out.txt"])
COMMANDS = {MAIN: check, MIGRATE: migrate}


def _flags(command: click.Command) -> set[str]:
    return {
        flag for p in command.params if isinstance(p, click.Option) for flag in p.opts
    }


def test_every_setting_is_a_config_key_and_exactly_the_flags_its_row_names():
    assert set(VALUES) == {s.key for s in SETTINGS}, (
        "a new setting needs a value in VALUES"
    )
    for setting in SETTINGS:
        for name, command in COMMANDS.items():
            assert (setting.flag_name in _flags(command)) == (
                name in setting.commands
            ), (setting.key, name)


@pytest.mark.parametrize(
    "setting",
    [
        s
        for s in SETTINGS
        if (s.in_options or s.rule) and s.commands and not s.not_in_config
    ],
    ids=lambda s: s.key,
)
def test_a_flag_and_its_config_key_give_the_same_options(tmp_path, setting):
    config_value, arguments = VALUES[setting.key]
    pyproject = tmp_path / "pyproject.toml"
    rendered = (
        repr(config_value).lower()
        if isinstance(config_value, bool)
        else repr(config_value).replace("'", '"')
    )
    pyproject.write_text(f"[tool.jaxfix]\n{setting.key} = {rendered}\n")
    from_config = build_options(load_config(pyproject), {})
    for name in setting.commands:
        params = COMMANDS[name].make_context(name, [*arguments, "x"]).params
        assert (
            build_options(load_config(None), setting_values(params)) == from_config
        ), name
    assert from_config != build_options(load_config(None), {})


def test_migrate_gives_each_repository_the_flags_of_the_table(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr(
        "jaxfix.cli.migrate._run",
        lambda todo, options, *rest: seen.setdefault("options", options) and None,
    )
    CliRunner().invoke(
        migrate,
        [
            "--out",
            str(tmp_path / "out"),
            "--fill-axis",
            "data",
            "--platform",
            "cpu",
            str(tmp_path),
        ],
    )
    assert dict(seen["options"].settings)["fill_axis"] == "data"
    assert dict(seen["options"].settings)["platforms"] == ("cpu",)


def test_help_lists_migrate_and_migrate_is_a_subcommand():
    main_help = CliRunner().invoke(cli, ["--help"])
    assert main_help.exit_code == 0
    assert "migrate" in main_help.output.split("Commands")[1]
    migrate_help = CliRunner().invoke(cli, ["migrate", "--help"])
    assert (
        migrate_help.exit_code == 0
        and "Usage: jaxfix migrate [OPTIONS] REPO..." in migrate_help.output
    )


def test_help_lines_name_the_rules_and_repair_shows_its_command():
    main_help = " ".join(CliRunner().invoke(cli, ["--help"]).output.split())
    assert "{rules}" not in main_help
    assert (
        "repair Run COMMAND, fix the JAX001-JAX014, JAX101, JAX103 errors its run"
        in main_help
    )
    repair_help = CliRunner().invoke(cli, ["repair", "--help"])
    assert repair_help.exit_code == 0
    assert (
        "Usage: jaxfix repair [OPTIONS] [PATH]... -- COMMAND [ARG]..."
        in repair_help.output
    )


def test_a_directory_named_migrate_is_checked(tmp_path, monkeypatch):
    (tmp_path / "migrate").mkdir()
    (tmp_path / "migrate" / "bad.py").write_text(VIOLATION)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--check", "--color", "never", "./migrate"])
    assert result.exit_code == 1 and "JAX001" in result.output
    later = CliRunner().invoke(
        cli, ["--check", "--color", "never", "migrate"]
    )  # not first: a path
    assert later.exit_code == 1 and "JAX001" in later.output


def test_the_core_and_the_formats_import_no_cli_code():
    probe = textwrap.dedent("""
        import sys
        import jaxfix.workflows.migrate, jaxfix.cli.formats
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("click", "rich") or m in ("jaxfix.cli.render", "jaxfix.cli.main", "jaxfix.cli.flags")))
    """)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def _config(tmp_path: Path, text: str) -> Path:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(text)
    return pyproject


def test_a_rule_setting_from_its_table_its_old_key_and_its_flag_are_one(tmp_path):
    from_table = build_options(
        load_config(
            _config(tmp_path, '[tool.jaxfix.rules.JAX001]\nplatforms = ["tpu"]\n')
        ),
        {},
    )
    old = load_config(_config(tmp_path, '[tool.jaxfix]\nplatforms = ["tpu"]\n'))
    assert old.notes == (
        f"{tmp_path / 'pyproject.toml'}: 'platforms' in [tool.jaxfix] is JAX001's setting:"
        " move it to [tool.jaxfix.rules.JAX001] (the old place still works)",
    )
    params = check.make_context("jaxfix", ["--platform", "tpu", "x"]).params
    from_flag = build_options(load_config(None), setting_values(params))
    assert (
        from_table
        == build_options(old, {})
        == from_flag
        != build_options(load_config(None), {})
    )
    assert from_table.rule_settings == {"JAX001": {"platforms": ("tpu",)}}


@pytest.mark.parametrize(
    "text, error",
    [
        (
            '[tool.jaxfix.rules.JAX001]\nplatform = ["tpu"]\n',
            "unknown key 'platform' in [tool.jaxfix.rules.JAX001] (did you mean 'platforms'?)",
        ),
        (
            '[tool.jaxfix.rules.JAX0001]\nplatforms = ["tpu"]\n',
            "unknown rule 'JAX0001' in [tool.jaxfix.rules] (did you mean 'JAX001'?)",
        ),
        (
            "[tool.jaxfix.rules.JAX002]\nfill-axis = 3\n",
            "'fill-axis' in [tool.jaxfix.rules.JAX002] must be an axis name, got 3",
        ),
        (
            '[tool.jaxfix.rules.JAX001]\nplatforms = ["gpu"]\n',
            "unknown platform 'gpu' (valid: cpu, cuda, rocm, tpu)",
        ),
        (
            "[tool.jaxfix]\nrules = 3\n",
            "[tool.jaxfix.rules] must hold one table per rule code ([tool.jaxfix.rules.JAX001]), got 3",
        ),
        (
            '[tool.jaxfix]\nfill-axis = "a"\n[tool.jaxfix.rules.JAX002]\nfill-axis = "b"\n',
            "'fill-axis' in [tool.jaxfix] and in [tool.jaxfix.rules.JAX002] are one setting: keep [tool.jaxfix.rules.JAX002]'s",
        ),
        (
            "[tool.jaxfix]\nrulez = 1\n",
            "unknown key 'rulez' in [tool.jaxfix] (did you mean 'rules'?)",
        ),
    ],
)
def test_a_bad_rule_setting_is_one_line_naming_it(tmp_path, text, error):
    pyproject = _config(tmp_path, text)
    (tmp_path / "code.py").write_text("x = 1\n")
    result = CliRunner().invoke(cli, ["--check", str(tmp_path / "code.py")])
    assert result.exit_code == 2
    assert result.output.strip() == f"jaxfix: error: {pyproject}: {error}"


def test_a_rule_from_elsewhere_declares_its_own_settings(tmp_path):
    """As Fixit's rules do: the rule's class says what its table takes; nothing else changes."""
    rule = tmp_path / "jax907_named_axis.py"
    rule.write_text(
        textwrap.dedent("""
            import ast

            from jaxfix.codemods.base import Rule
            from jaxfix.settings.rule_settings import RuleSetting


            class NamedAxis(Rule):
                code = "JAX907"
                name = "named-axis"
                summary = "a toy: reports the name it is configured with"
                fixes = {}
                tokens = ((b"axis",),)
                settings = (RuleSetting("axis", str, "x", "the axis", "an axis name"),)

                def visit_Name(self, node: ast.Name) -> None:
                    if node.id == "axis":
                        self.report(node, f"axis is {self.setting('axis')}")
        """)
    )
    (tmp_path / "code.py").write_text("axis = 1\n")
    args = [
        "--rule-module",
        str(rule),
        "--no-cache",
        "--check",
        str(tmp_path / "code.py"),
    ]
    default = CliRunner().invoke(cli, args)
    assert "JAX907 axis is x" in default.output
    _config(tmp_path, '[tool.jaxfix.rules.JAX907]\naxis = "data"\n')
    configured = CliRunner().invoke(cli, args)
    assert "JAX907 axis is data" in configured.output
    _config(tmp_path, '[tool.jaxfix.rules.JAX907]\naxes = "data"\n')
    wrong = CliRunner().invoke(cli, args)
    assert wrong.exit_code == 2 and "(did you mean 'axis'?)" in wrong.output
