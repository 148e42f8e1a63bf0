"""JAX013 from a run's log: a dot_general's ShardingTypeError names the line of `a @ b`, whose
operands the code does not show surely clash (x is reshaped to (-1, 8)); the fix goes to the module's one `jax.make_mesh(...)`
without axis types, and is refused where the module makes several."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from jaxfix.cli.main import cli

PROGRAM = """\
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
{other}x = jax.device_put(jnp.ones(64).reshape(-1, 8), NamedSharding(mesh, P("data", "model")))
w = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("model", None)))


@jax.jit
def project(a, b):
    return a @ b


print(project(x, w).sum())
"""

# The traceback jax 0.12.0.1 prints for PROGRAM (its frames filtered, as JAX does).
LOG = """\
Traceback (most recent call last):
  File "{path}", line {call}, in <module>
    print(project(x, w).sum())
          ^^^^^^^^^^^^^
  File "{path}", line {dot}, in project
    return a @ b
           ~~^~~
jax._src.core.ShardingTypeError: Contracting dimensions are sharded and it is ambiguous how \
the output should be sharded. Please specify the output sharding via the `out_sharding` \
parameter. Got lhs_contracting_spec=('model',) and rhs_contracting_spec=('model',)
"""


def _run(tmp_path: Path, other: str, *args: str) -> tuple[str, str]:
    program = tmp_path / "main.py"
    program.write_text(PROGRAM.format(other=other))
    shift = other.count("\n")
    log = LOG.format(path=program, call=16 + shift, dot=13 + shift)
    result = CliRunner().invoke(
        cli,
        ["--from-log", "-", "--no-cache", "--target-version", "0.12.0.1", *args],
        input=log,
        catch_exceptions=False,
    )
    return result.output, program.read_text()


def test_the_modules_one_mesh_is_given_auto_axes(tmp_path):
    output, fixed = _run(tmp_path, "", "--unsafe-fixes", str(tmp_path))
    assert "JAX013" in output, output
    assert (
        'mesh = jax.make_mesh(\n    (4, 2),\n    ("data", "model"),\n'
        "    axis_types=(jax.sharding.AxisType.Auto,) * 2,\n)\n"
    ) in fixed


def test_a_module_of_several_meshes_is_reported_not_fixed(tmp_path):
    other = 'other = jax.make_mesh((8,), ("x",))\n'
    output, fixed = _run(tmp_path, other, "--unsafe-fixes", str(tmp_path))
    assert f"{tmp_path / 'main.py'}:14:" in output, output
    assert "not fixed: this module makes several meshes" in output, output
    assert fixed == PROGRAM.format(other=other)


def test_without_the_log_nothing_is_reported(tmp_path):
    program = tmp_path / "main.py"
    program.write_text(PROGRAM.format(other=""))
    result = CliRunner().invoke(
        cli,
        ["--check", "--no-cache", "--select", "JAX013", str(program)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
