"""The YAML entry an axis's size is read from by config key (jaxfix/check/config_keys.py):
taken only when one file holds one such entry with the run's size, and no override of the
run's command line names the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.check.config_keys import config_key_site
from jaxfix.evidence.facts import Evidence, ValueSite

MESHES = """\
from jax.sharding import AbstractMesh


def decode_mesh(config):
    shape = [config.decode_ici_fsdp_parallelism, config.decode_ici_tensor_parallelism]
    return AbstractMesh(tuple(shape), ("fsdp", "tensor"))
"""
BASE = b"decode_ici_fsdp_parallelism: 2\ndecode_ici_tensor_parallelism: 2\n"


def _site(tmp_path: Path, arguments: tuple[str, ...] = (), size: int = 2):
    (tmp_path / "meshes.py").write_text(MESHES)
    module = Engine((tmp_path,), (), None).evaluator.module(tmp_path / "meshes.py")
    item = Evidence("JAX002", 6, (1,), (), arguments=arguments, cwds=(tmp_path,))
    return config_key_site(
        item, tmp_path / "meshes.py", module, 6, 0, "fsdp", size, [tmp_path]
    )


def test_the_one_entry_holding_the_run_s_size_is_the_origin(tmp_path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "base.yml").write_bytes(BASE)
    site = _site(tmp_path)
    assert isinstance(site, ValueSite)
    assert (site.path.name, site.span[0], site.axis) == ("base.yml", 1, 0)


def test_an_entry_in_two_files_is_not_taken(tmp_path):
    (tmp_path / "base.yml").write_bytes(BASE)
    (tmp_path / "other.yaml").write_bytes(BASE)
    assert _site(tmp_path) is None


def test_an_entry_without_the_run_s_size_is_not_taken(tmp_path):
    (tmp_path / "base.yml").write_bytes(BASE)
    assert _site(tmp_path, size=4) is None


def test_files_in_git_and_hidden_folders_are_not_read(tmp_path):
    (tmp_path / "base.yml").write_bytes(BASE)
    for hidden in (".git", ".venv"):
        (tmp_path / hidden).mkdir()
        (tmp_path / hidden / "base.yml").write_bytes(BASE)
    assert isinstance(_site(tmp_path), ValueSite)


@pytest.mark.parametrize("target", ["elsewhere/base.yml", "tree/.git/config.yml"])
def test_a_link_out_of_the_tree_or_into_git_is_not_read(tmp_path, target):
    tree = tmp_path / "tree"
    (tree / ".git").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / target).write_bytes(BASE)
    (tree / "base.yml").symlink_to(tmp_path / target)
    assert _site(tree) is None


def test_a_key_the_command_line_overrides_is_named_not_taken(tmp_path):
    (tmp_path / "base.yml").write_bytes(BASE)
    why = _site(tmp_path, ("base.yml", "decode_ici_fsdp_parallelism=2"))
    assert why == (
        "the run's command line sets `decode_ici_fsdp_parallelism=2`, which overrides "
        "the config file: change it there"
    )
