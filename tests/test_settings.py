"""Settings are declared once (jaxfix/settings.py): config keys, flags of both commands, Options."""

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
from jaxfix.config import build_options, load_config
from jaxfix.settings import MAIN, MIGRATE, SETTINGS
from snippets import VIOLATION

RULES_DIR = Path(__file__).resolve().parent / "rules"

# One value per setting, as a config value and as command-line arguments.
VALUES = {
    "select": (["JAX001"], ["--select", "JAX001"]),
    "ignore": (["JAX002"], ["--ignore", "JAX002"]),
    "unsafe-fixes": (True, ["--unsafe-fixes"]),
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
    "output-file": ("out.txt", ["--output-file", "out.txt"]),
    "cache-dir": ("cache", ["--cache-dir", "cache"]),
}
# A flag only (a config file may not name code to import): its flag, not a config value.
VALUES["rule-modules"] = (None, ["--rule-module", str(RULES_DIR)])
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
    [s for s in SETTINGS if s.in_options and s.commands and not s.not_in_config],
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
        lambda todo, options, *rest: seen.setdefault("options", options) and False,
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
        import jaxfix.migrate, jaxfix.cli.formats
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("click", "rich") or m in ("jaxfix.cli.render", "jaxfix.cli.main", "jaxfix.cli.flags")))
    """)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
