"""The target JAX version: flag, config, the project's own pin, the installed jax, the newest."""

from __future__ import annotations

import pytest

from jaxfix.settings import target_version as tv
from jaxfix.settings.config import Config, ConfigError, build_options, load_config
from jaxfix.settings.table import SettingError


@pytest.mark.parametrize(
    "requirement,lowest",
    [
        ("jax>=0.12", (0, 12)),
        ("jax >= 0.10.2, < 0.13", (0, 10, 2)),
        ("JAX[cuda12]>=0.12.0.1 ; python_version >= '3.12'", (0, 12, 0, 1)),
        ("jax==0.10.*", (0, 10)),
        ("jax~=0.11.0", (0, 11, 0)),
        ("jax (>=0.11)", (0, 11)),
        (
            "jax>0.10.2",
            (0, 10, 2),
        ),  # the release after it is not known: its bound stands for it
        ("jax>=0.12.0rc1", (0, 12, 0)),
        ("jax>=0.9,>=0.11", (0, 11)),  # both hold: the higher bound
        ("jax<0.13", None),
        ("jax!=0.11", None),
        ("jax", None),
        ("jax @ https://example.invalid/jax.whl", None),
        ("jaxlib>=0.12", None),
        ("jax-metal>=0.1", None),
        ("flax>=0.8", None),
    ],
)
def test_the_lowest_version_a_requirement_allows(requirement, lowest):
    assert tv.lowest_jax(requirement) == lowest


def test_the_project_pin_is_read_from_the_nearest_project_in_order(tmp_path):
    project = tmp_path / "proj"
    (project / "src" / "trainer").mkdir(parents=True)
    start = project / "src" / "trainer"
    assert tv.project_pin(start) is None
    (project / "setup.cfg").write_text(
        "[options]\ninstall_requires =\n    numpy\n    jax>=0.10.2\n"
    )
    assert tv.project_pin(start) == tv.TargetVersion(
        (0, 10, 2), tv.PIN, "setup.cfg: jax>=0.10.2"
    )
    (project / "requirements-dev.txt").write_text(
        "# tools\n-r requirements.txt\njax==0.11.1  # for the tests\n"
    )
    assert tv.project_pin(start).origin == "requirements-dev.txt: jax==0.11.1"
    (project / "pyproject.toml").write_text(
        '[project]\nname = "p"\ndependencies = ["numpy"]\n'
        '[project.optional-dependencies]\ntpu = ["jax[tpu]>=0.12"]\ncpu = ["jax>=0.11.2"]\n'
    )
    assert tv.project_pin(start) == tv.TargetVersion(
        (0, 11, 2),
        tv.PIN,
        "pyproject.toml [project.optional-dependencies]: jax>=0.11.2",
    )
    (project / "pyproject.toml").write_text(
        '[project]\nname = "p"\ndependencies = ["jax>=0.12"]\n'
    )
    assert (
        tv.project_pin(start).describe()
        == "0.12 (pyproject.toml [project] dependencies: jax>=0.12)"
    )
    (start / "pyproject.toml").write_text(
        '[project]\nname = "nested"\n'
    )  # a nearer project without a pin
    assert tv.project_pin(start) is None


def test_precedence_flag_config_pin_installed(tmp_path, monkeypatch):
    (tmp_path / "requirements.txt").write_text("jax>=0.12\n")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.jaxfix]\nselect = ['JAX']\n")
    config = load_config(pyproject)
    assert (
        tv.target_version(config, "0.10.2", [tmp_path]).describe()
        == "0.10.2 (--target-version)"
    )
    assert (
        tv.target_version(config, None, [tmp_path]).describe()
        == "0.12 (requirements.txt: jax>=0.12)"
    )
    pyproject.write_text('[tool.jaxfix]\ntarget-version = "0.11"\n')
    assert (
        tv.target_version(load_config(pyproject), None, [tmp_path]).describe()
        == f"0.11 ({pyproject} [tool.jaxfix] target-version)"
    )
    monkeypatch.setattr(tv, "installed_jax_version", lambda: (0, 10, 2))
    assert tv.target_version(Config(None, {}), None, None) == tv.TargetVersion(
        (0, 10, 2), tv.INSTALLED
    )
    assert tv.target_version(
        Config(None, {}), None, [tmp_path / "elsewhere"]
    ).version == (0, 12)
    monkeypatch.setattr(tv, "installed_jax_version", lambda: None)
    assert (
        tv.target_version(Config(None, {}), None, None).describe()
        == "newest (no pin and no jax installed: the newest behavior)"
    )
    assert build_options(Config(None, {}), {}, [tmp_path]).jax_version == (0, 12)


def test_jax_version_is_the_old_name_of_the_key(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.jaxfix]\njax-version = "0.10.2"\n')
    assert build_options(load_config(pyproject), {}).jax_version == (0, 10, 2)
    pyproject.write_text(
        '[tool.jaxfix]\njax-version = "0.10.2"\ntarget-version = "0.12"\n'
    )
    with pytest.raises(ConfigError, match="one setting"):
        load_config(pyproject)
    pyproject.write_text('[tool.jaxfix]\ntarget-version = "latest"\n')
    with pytest.raises(
        SettingError, match=r"pyproject.toml: not a JAX version: 'latest'"
    ):
        build_options(load_config(pyproject), {})
