"""The one rule registry (jaxfix/check/registry.py): what it reads of the rule modules without
importing them is what the imported rules say, and discovery, the flags, the config's rule
keys, `--select` and the README's error table all come from it."""

from __future__ import annotations

import pickle
import sys
import textwrap

import pytest

from jaxfix.check import registry
from jaxfix.check.registry import check_codes
from jaxfix.cli.rule_docs import errors_table
from jaxfix.codemods import BUILTIN, RULES
from jaxfix.settings.rule_settings import RuleSetting
from jaxfix.settings.table import SETTINGS


def test_the_manifest_read_without_importing_the_rules_matches_the_imported_rules():
    static = registry._read_all_statically()
    assert static is not None, (
        "a rule's manifest attribute is not a plain literal: every run now imports libcst"
    )
    assert static == registry._from_rules({code: RULES[code] for code in BUILTIN})
    assert {entry.code for entry in static} == set(BUILTIN)


def test_a_rule_setting_with_a_flag_is_read_without_importing_the_module(tmp_path):
    path = tmp_path / "tst950_flagged.py"
    path.write_text(
        textwrap.dedent("""
            class Flagged(Rule):
                code = "TST950"
                tokens = ((b"old",),)
                settings = (
                    RuleSetting(
                        "depth", int, 3, "how deep it looks", "a number",
                        parse=_depth, flag="--depth", metavar="N",
                    ),
                )
        """),
        encoding="utf-8",
    )
    entry = registry._read_statically(path)
    assert entry is not None
    assert entry.settings == (
        RuleSetting(
            "depth",
            int,
            3,
            "how deep it looks",
            "a number",
            flag="--depth",
            metavar="N",
        ),
    )


def test_a_setting_made_at_run_time_makes_the_module_unreadable_statically(tmp_path):
    """The registry then imports the rules rather than guess."""
    path = tmp_path / "tst951_computed.py"
    path.write_text(
        'class Computed(Rule):\n    code = "TST951"\n    tokens = ((b"x",),)\n'
        "    settings = tuple(make_settings())\n",
        encoding="utf-8",
    )
    assert registry._read_statically(path) is None


def test_each_flag_a_rule_declares_is_a_row_of_the_settings_table():
    declared = {
        (code, s.key, s.flag, s.metavar, s.help)
        for code in BUILTIN
        for s in RULES[code].settings
        if s.flag
    }
    rows = {
        (s.rule, s.key, s.flag, s.metavar, s.help)
        for s in SETTINGS
        if s.rule is not None
    }
    assert declared and rows == declared


def test_select_takes_the_registered_codes_and_prefixes():
    assert check_codes(["jax001, JAX1"]) == ("JAX001", "JAX1")
    with pytest.raises(ValueError, match="unknown rule code or prefix 'JAX999'"):
        check_codes(["JAX999"])


def test_the_errors_table_lists_each_raised_error_where_jax_raises_it():
    table = errors_table(RULES)
    for code, rule in RULES.items():
        listed = f"| {code} `" in table
        assert listed == bool(
            rule.raises and rule.raised_in and rule.raises_since is not None
        ), code
    jax003 = next(row for row in table.splitlines() if row.startswith("| JAX003 "))
    assert jax003.endswith(" | `jax/_src/shard_map.py`, `jax/_src/sharding_impls.py` |")
    messages = jax003.removeprefix("| JAX003 ").split(" | ")[0].split("<br>")
    assert (
        "`Input sharding mesh ... should be equal to out_sharding mesh ...`" in messages
    )
    assert len(messages) == len(RULES["JAX003"].raises)
    assert len(table.splitlines()) == 2 + sum(f"| {code} `" in table for code in RULES)


def test_the_manifest_is_kept_beside_the_bytecode_and_read_again_when_a_rule_changes(
    tmp_path, monkeypatch
):
    """A run reads the rules' manifest from the kept copy, not by parsing every rule module;
    a copy whose modules' times or sizes differ is not used."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(registry, "_MANIFEST", tmp_path / "manifest.pickle")
    read = registry._read_all_statically.__wrapped__
    manifest = read()
    assert manifest is not None and (tmp_path / "manifest.pickle").is_file()
    key, kept = pickle.loads((tmp_path / "manifest.pickle").read_bytes())
    assert kept == manifest
    (tmp_path / "manifest.pickle").write_bytes(pickle.dumps((key, manifest[:1])))
    assert read() == manifest[:1]  # the kept copy is what is used
    stale = tuple((name, mtime - 1, size) for name, mtime, size in key)
    (tmp_path / "manifest.pickle").write_bytes(pickle.dumps((stale, manifest[:1])))
    assert read() == manifest  # a rule module changed since: read from the sources
