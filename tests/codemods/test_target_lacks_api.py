"""JAX101 and JAX102 on a target JAX that lacks what their fix writes (`jax.shard_map` came in
JAX 0.6.1, `jax.set_mesh` in 0.7.1): every site is reported with why it is not fixed, none is
changed; from those releases on, the fix is made (fixtures/JAX101/target_*, fixtures/JAX102/target_*)."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner

from fixture_cases import FIXTURES
from jaxfix.cli.main import cli

CASES = {
    "JAX102": (
        "target_without_set_mesh_reports_only.py",
        "0.6.2",
        "`jax.set_mesh`",
        "0.7.1",
        2,
    ),
    "JAX101": (
        "target_without_jax_shard_map_reports_only.py",
        "0.6.0",
        "`jax.shard_map`",
        "0.6.1",
        1,
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_every_site_says_the_target_lacks_the_api(tmp_path, code):
    name, target, api, since, sites = CASES[code]
    program = tmp_path / name
    shutil.copyfile(FIXTURES / code / name, program)
    before = program.read_bytes()
    result = CliRunner().invoke(
        cli,
        [
            "--select",
            code,
            "--unsafe-fixes",
            "--no-cache",
            "--target-version",
            target,
            str(program),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 1, result.output
    assert program.read_bytes() == before
    note = f"not fixed: {api} exists from JAX {since}, and the target is JAX {target}"
    lines = [line for line in result.output.splitlines() if f" {code} " in line]
    assert len(lines) == sites and all(note in line for line in lines), result.output
