"""The config entries a computed mesh size is made from (jaxfix/check/config_factors.py): only
integer entries the computation reads, of files the run was given that lie in the tree."""

from __future__ import annotations

import ast
from pathlib import Path

from jaxfix.check.config_factors import as_run, config_factors, read_names

TOPOLOGY = """\
def _parallelism(settings):
    dcn = [settings.dcn_data, settings.dcn_model]
    ici = [settings.ici_data, settings.ici_model]
    return dcn, ici


def sizes(settings):
    dcn, ici = _parallelism(settings)
    return tuple(d * i for d, i in zip(dcn, ici))
"""
CONFIG = "name: run\nseed: 3\ndcn_data: 2\ndcn_model: 1\nici_data: 8\nici_model: 1\n"


def _product() -> tuple[ast.Module, ast.expr]:
    tree = ast.parse(TOPOLOGY)
    (node,) = [n for n in ast.walk(tree) if isinstance(n, ast.GeneratorExp)]
    return tree, node


def test_the_names_are_followed_through_assignments_and_returns():
    assert read_names(*_product()) == {"dcn_data", "dcn_model", "ici_data", "ici_model"}


def _factors(tmp_path: Path, arguments: list[str], roots: list[Path]) -> list:
    return config_factors(
        read_names(*_product()),
        arguments,
        [tmp_path],
        roots,
        {"data": 16, "model": 1},
    )


def test_entries_of_the_sized_axes_are_named_with_their_lines(tmp_path):
    (tmp_path / "run.yml").write_text(CONFIG)
    found = _factors(tmp_path, ["run.yml", "--seed=3"], [tmp_path])
    assert [(f.line, f.key, f.value) for f in found] == [
        (3, "dcn_data", 2),
        (5, "ici_data", 8),
    ]
    assert as_run(found, {"data": 16, "model": 1})
    assert not as_run(found, {"data": 8, "model": 1})  # an override changed one


def test_a_file_outside_the_tree_or_not_read_as_an_integer_is_not_named(tmp_path):
    inside = tmp_path / "tree"
    inside.mkdir()
    (tmp_path / "run.yml").write_text(CONFIG)
    assert _factors(tmp_path, ["run.yml"], [inside]) == []
    (inside / "run.json").write_text('{"dcn_data": "2", "ici_data": [8], "seed": 3}')
    assert _factors(inside, ["run.json", "../run.yml"], [inside]) == []


def test_an_attribute_of_an_imported_module_is_not_a_config_name():
    tree = ast.parse(
        "import numpy as np\n"
        "def sizes(config):\n"
        "    return (config.ici_data * np.size,)\n"
    )
    (node,) = [n for n in ast.walk(tree) if isinstance(n, ast.Tuple)]
    assert read_names(tree, node) == {"ici_data"}
