"""`jaxfix repair` of a script whose inner mesh takes a size from an argparse option (or an
absl flag), under real JAX on both tiers. Run with the option on its command line (`--eval-dp 2`), the size is
not the option's default: nothing changes (before, the default was set to 4, the command
still passed 2, and the site raised again), and the report names the command line. Run
without it, the default is what ran, and it is set to 4."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.test_repair import jaxfix_repair, python

RUN = """\
import argparse

import jax
from jax.sharding import AbstractMesh, AxisType

parser = argparse.ArgumentParser()
parser.add_argument("--eval-dp", type=int, default=2)
args = parser.parse_args()
explicit = (AxisType.Explicit,) * 2
with jax.set_mesh(jax.make_mesh((4, 2), ("data", "model"), axis_types=explicit)):
    inner = AbstractMesh((args.eval_dp, 2), ("data", "model"), axis_types=explicit)
    with jax.sharding.use_abstract_mesh(inner):
        pass
"""
ABSL = """\
import sys

import jax
from absl import flags
from jax.sharding import AbstractMesh, AxisType

_EVAL_DP = flags.DEFINE_integer("eval_dp", 2, "the eval mesh's data axis")
flags.FLAGS(sys.argv)
explicit = (AxisType.Explicit,) * 2
with jax.set_mesh(jax.make_mesh((4, 2), ("data", "model"), axis_types=explicit)):
    inner = AbstractMesh((_EVAL_DP.value, 2), ("data", "model"), axis_types=explicit)
    with jax.sharding.use_abstract_mesh(inner):
        pass
"""


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
@pytest.mark.parametrize(
    ("script", "option", "flags"),
    [
        (RUN, "--eval-dp", ["--eval-dp", "2"]),
        (RUN, "--eval-dp", []),
        (ABSL, "--eval_dp", ["--eval_dp=2"]),
        (ABSL, "--eval_dp", []),
    ],
)
def test_an_option_the_command_line_gives_is_not_changed_at_its_default(
    tmp_path, version, script, option, flags
):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "run.py").write_text(script)
    given = bool(flags)
    code, report, _ = jaxfix_repair(
        tree, tmp_path, "--unsafe-fixes", "--", python(version), "run.py", *flags
    )
    now = (tree / "run.py").read_text()
    if given:
        assert code == 1, report
        assert now == script
        (left,) = report["left"]
        assert (
            f"the run's command line gives {option} '2': its default is not what ran"
        ) in left["detail"], left
    else:
        assert code == 0, report
        assert now == script.replace("default=2", "default=4").replace(
            '"eval_dp", 2,', '"eval_dp", 4,'
        )
