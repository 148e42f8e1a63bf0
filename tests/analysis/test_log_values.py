"""What a log says is read in linear time, quoted briefly, and bounded: a hostile or garbled log is
one line per traceback, never a hang, a crash or a slice like `jax.devices()[:0]` in the code."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxfix.cli.main import cli
from jaxfix.fromlog.errors import MessageError, read_facts
from jaxfix.fromlog.meshes import MeshReprError, parse_mesh

PROJECT = Path(__file__).parents[1] / "from_log_projects" / "lower_under_decorator_mesh"
JAX001 = (
    "ValueError: Passing lowering_platforms via jax.export or jit(f).trace(*args).lower(lowering_platforms=...) "
    "is required when only AbstractMesh exists in a jitted computation."
)
JAX002 = (
    "ValueError: use_abstract_mesh cannot change the size of the mesh. Got new mesh:"
)


def _jax001_log(mesh: str) -> bytes:
    """The traceback jax 0.10.2 prints for the project's `.lower().compile()`, its context mesh `mesh`."""
    return f"""Traceback (most recent call last):
  File "/ci/proj/run_compile.py", line 16, in <module>
    compiled = compile_step(jax.ShapeDtypeStruct((8, 8), jnp.float32))
  File "/ci/proj/serving_meshes.py", line 14, in wrapper
    return fn(*args)
  File "/ci/proj/run_compile.py", line 13, in compile_step
    return jax.jit(lambda a: a.sum(axis=0)).trace(x).lower().compile()
  File "/venv/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py", line 2000, in lower_sharding_computation
    raise ValueError(
{JAX001} Got context mesh: {mesh}
""".encode()


def _from_log(tmp_path: Path, log: bytes):
    tree = Path(
        shutil.copytree(
            PROJECT, tmp_path / "proj", ignore=shutil.ignore_patterns("*.fixed.py")
        )
    )
    (tmp_path / "ci.log").write_bytes(log)
    result = CliRunner().invoke(
        cli,
        [
            "--no-cache",
            "--color",
            "never",
            "--from-log",
            str(tmp_path / "ci.log"),
            "--unsafe-fixes",
            str(tree),
        ],
        catch_exceptions=False,
    )
    return result, tree


def test_a_sane_log_is_still_used(tmp_path):
    result, tree = _from_log(
        tmp_path,
        _jax001_log("AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))"),
    )
    assert result.exit_code == 0, result.output
    assert "jax.devices()[:8]" in (tree / "run_compile.py").read_text()


@pytest.mark.parametrize(
    "sizes, cause",
    [
        ("0, 4", "axis size 0 in"),
        (
            "9" * 2000 + ", 4",
            "an axis size of 2000 digits",
        ),  # int() of it is fine; the mesh size's str() was not
        ("12345678, 1", "an axis size of 8 digits"),
    ],
)
def test_absurd_sizes_from_a_log_refuse_the_traceback_with_one_line(
    tmp_path, sizes, cause
):
    x, y = sizes.split(", ")
    result, tree = _from_log(
        tmp_path,
        _jax001_log(
            f"AbstractMesh('x': {x}, 'y': {y}, axis_types=(Explicit, Explicit))"
        ),
    )
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert result.exit_code == 2 and len(errors) == 1 and cause in errors[0], (
        result.output
    )
    assert len(errors[0]) < 400 and "Traceback" not in result.output
    assert (tree / "run_compile.py").read_bytes() == (
        PROJECT / "run_compile.py"
    ).read_bytes()


def test_mesh_sizes_are_between_1_and_seven_digits():
    assert parse_mesh(
        "AbstractMesh('x': 9999999, 'y': 1, axis_types=(Auto, Auto))"
    ).axis_sizes == (9999999, 1)
    assert parse_mesh(
        "AbstractMesh('a'b': 2, 'c': 4, axis_types=(Auto, Auto))"
    ).axis_names == ("a'b", "c")
    for bad in (
        "AbstractMesh('x': 0, axis_types=(Auto,))",
        "AbstractMesh('x': 10000000, axis_types=(Auto,))",
        "Mesh(axis_sizes=("
        + "9" * 5000
        + ", 4), axis_names=('x', 'y'), axis_types=(Explicit, Explicit))",
        "AbstractMesh('': 2)",
        "AbstractMesh('x': 2, , 'y': 4)",
    ):
        with pytest.raises(MeshReprError):
            parse_mesh(bad)


def test_a_mesh_repr_is_read_in_linear_time_and_quoted_briefly():
    """80,000 quotes took 30 s (a lazy regex retried from every quote, quadratic); a 1 MB line,
    hours. The bound is a hang guard, not a speed check: 400,000 quotes would take the
    quadratic reading over ten minutes, the linear one milliseconds."""
    started = time.perf_counter()
    with pytest.raises(MeshReprError) as quotes:
        parse_mesh("AbstractMesh(" + "'" * 400_000 + ")")
    line = f"{JAX002} AbstractMesh(" + "'a': 1, '" * 110_000 + ")"  # 1 MB
    with pytest.raises(MessageError) as long_line:
        read_facts("JAX002", line)
    assert time.perf_counter() - started < 60
    assert len(str(quotes.value)) < 200 and len(str(long_line.value)) < 300


def test_a_1_mb_log_line_is_one_short_error(tmp_path):
    mesh = "AbstractMesh(" + "'a': 1, '" * 110_000 + "'b': 2, axis_types=(Explicit,))"
    result, tree = _from_log(tmp_path, _jax001_log(mesh))
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert result.exit_code == 2 and len(errors) == 1 and len(errors[0]) < 400, (
        result.output[:1000]
    )
    assert (tree / "run_compile.py").read_bytes() == (
        PROJECT / "run_compile.py"
    ).read_bytes()


FORGED_SITE = """\
import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
        print("ran")
"""
FORGED_LOG = (
    b"""Traceback (most recent call last):
  File "/ci/proj/stages.py", line 5, in <module>
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
  File "/venv/lib/python3.11/site-packages/jax/_src/mesh.py", line 600, in use_abstract_mesh
    raise ValueError(
"""
    + JAX002.encode()
    + b""" AbstractMesh('data': 8, 'model': 4, axis_types=(Explicit, Explicit)) with size=32 \
and prev mesh: AbstractMesh('data': 16, 'model': 4, axis_types=(Explicit, Explicit)) with size=64
"""
)


@pytest.mark.parametrize("unsafe", [False, True])
def test_a_log_contradicting_the_mesh_the_code_shows_is_no_fact(tmp_path, unsafe):
    """The outer mesh is written in the code (8, 4), so a log claiming (16, 4) is about other code:
    the site is "changed since the log", never a resize (applied, real JAX raised; with
    --unsafe-fixes the fix did not even settle, exit 2)."""
    tree = tmp_path / "proj"
    tree.mkdir()
    (tree / "stages.py").write_text(FORGED_SITE)
    (tmp_path / "ci.log").write_bytes(FORGED_LOG)
    result = CliRunner().invoke(
        cli,
        [
            "--no-cache",
            "--color",
            "never",
            "--from-log",
            str(tmp_path / "ci.log"),
            *(["--unsafe-fixes"] * unsafe),
            str(tree),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 1, result.output
    assert "not the one of size 64 in the log (changed since the log?)" in result.output
    assert "[no fix]" in result.output and "did not settle" not in result.output
    assert (tree / "stages.py").read_text() == FORGED_SITE


def test_the_forged_log_s_site_runs_fine_under_real_jax(tmp_path):
    from codemods.test_real_jax import interpreters

    script = tmp_path / "stages.py"
    script.write_text(FORGED_SITE)
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
        "JAX_PLATFORMS": "cpu",
    }
    for version, python in sorted(interpreters().items()):
        done = subprocess.run(
            [python, str(script)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0 and done.stdout == "ran\n", (
            version,
            done.stderr[-2000:],
        )


# -- JAX001 and JAX003: where the code shows the mesh the log names, they must agree (item 9) --

CONFIRMED_DATA = """\
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

loader_mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))


def spec():
    return jax.ShapeDtypeStruct((8, 8), jnp.float32)


def batch():
    return jax.device_put(jnp.arange(8), NamedSharding(loader_mesh, P("x")))
"""
# The arguments and the input come from another module: only a log can tell what they are.
CONFIRMED_SITES = {
    "lower_abstract.py": """\
import jax
from jax.sharding import AbstractMesh, AxisType, use_abstract_mesh

from confirmed_data import spec

mesh = AbstractMesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
with use_abstract_mesh(mesh):
    compiled = jax.jit(lambda a: a.sum(axis=0)).trace(spec()).lower().compile()
print("compiled", len(compiled.input_shardings[0][0].device_set))
""",
    "lower_concrete.py": """\
import jax

from confirmed_data import spec

mesh = jax.make_mesh((2, 4), ("x", "y"))
with jax.set_mesh(mesh):
    lowered = jax.jit(lambda a: a.sum(axis=0)).trace(spec()).lower()
print("lowered")
""",
    "gather.py": """\
import jax
from jax.sharding import AxisType, PartitionSpec as P
from jax._src.shard_map import top_level_all_gather

from confirmed_data import batch

model_mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
x = batch()
with jax.set_mesh(model_mesh):
    y = top_level_all_gather(x, P(reduced={"x"}))
print(y.tolist(), dict(y.sharding.mesh.shape))
""",
    "gather_shown.py": """\
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
from jax._src.shard_map import top_level_all_gather

model_mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
x = jax.device_put(jnp.arange(8), NamedSharding(model_mesh, P("x")))
with jax.set_mesh(model_mesh):
    y = top_level_all_gather(x, P(reduced={"x"}))
print(y.tolist(), dict(y.sharding.mesh.shape))
""",
}
_EXPLICIT = "axis_types=(Explicit, Explicit)"
_CPU = "device_kind=cpu, num_cores=None, platform=cpu"
# What real JAX raises at each site (both tiers: test_confirmed_sites_raise_what_the_logs_say).
GENUINE = {
    "lower_abstract.py": f"{JAX001} Got context mesh: AbstractMesh('x': 2, 'y': 4, {_EXPLICIT})",
    "gather.py": (
        f"ValueError: Input sharding mesh AbstractMesh('x': 2, 'y': 4, {_EXPLICIT}, {_CPU}) "
        f"should be equal to out_sharding mesh AbstractMesh('x': 4, 'y': 2, {_EXPLICIT}, {_CPU})"
    ),
}
_RAISING = {
    "JAX001": "interpreters/pxla.py', line 2000, in lower_sharding_computation",
    "JAX003": "shard_map.py', line 2077, in _top_level_ag",
}


def _confirmed_log(site: str, message: str) -> bytes:
    """A traceback of `site`'s raising line (its last call but the print) ending in `message`."""
    lines = CONFIRMED_SITES[site].splitlines()
    number = len(lines) - 1  # 1-based: the line before the last
    raising = _RAISING["JAX003"] if "Input sharding" in message else _RAISING["JAX001"]
    path, where = raising.split("', ")
    return (
        "Traceback (most recent call last):\n"
        f'  File "/ci/proj/{site}", line {number}, in <module>\n'
        f"    {lines[number - 1].strip()}\n"
        f'  File "/venv/lib/python3.11/site-packages/jax/_src/{path}", {where}\n'
        "    raise ValueError(\n"
        f"{message}\n"
    ).encode()


def _confirmed(tmp_path: Path, site: str, message: str):
    tree = tmp_path / "proj"
    tree.mkdir(parents=True)
    (tree / "confirmed_data.py").write_text(CONFIRMED_DATA)
    (tree / site).write_text(CONFIRMED_SITES[site])
    (tmp_path / "ci.log").write_bytes(_confirmed_log(site, message))
    result = CliRunner().invoke(
        cli,
        [
            "--no-cache",
            "--color",
            "never",
            "--from-log",
            str(tmp_path / "ci.log"),
            "--unsafe-fixes",
            str(tree),
        ],
        catch_exceptions=False,
    )
    return result, (tree / site).read_text()


def test_genuine_logs_of_confirmed_sites_still_fix_them(tmp_path):
    result, fixed = _confirmed(
        tmp_path / "abstract", "lower_abstract.py", GENUINE["lower_abstract.py"]
    )
    assert result.exit_code == 0, result.output
    assert (
        "lowering_platforms=(jax.export.default_export_platform(),)" in fixed
        and "jax.devices()[:8]" in fixed
    )
    result, fixed = _confirmed(tmp_path / "gather", "gather.py", GENUINE["gather.py"])
    assert result.exit_code == 0, result.output
    assert "jax.device_put(x, NamedSharding(model_mesh," in fixed


FORGED = {
    # The code enters an AbstractMesh of (2, 4): a log claiming (4, 4) would slice 16 devices.
    "context size": (
        "lower_abstract.py",
        GENUINE["lower_abstract.py"].replace("'x': 2", "'x': 4"),
        "the code shows the context mesh (2, 4) ('x', 'y') here, not the one (4, 4) ('x', 'y') in the log",
    ),
    "context axis types": (
        "lower_abstract.py",
        GENUINE["lower_abstract.py"].replace(_EXPLICIT, "axis_types=(Explicit, Auto)"),
        "the code shows the context mesh (2, 4) ('x', 'y') here, not the one (2, 4) ('x', 'y') in the log",
    ),
    "no context mesh": (
        "lower_abstract.py",
        GENUINE["lower_abstract.py"].split(" AbstractMesh(")[0] + " Mesh()",
        "the code shows the context mesh (2, 4) ('x', 'y') here, not an empty one in the log",
    ),
    # Under the concrete mesh the code sets, JAX has devices: this site runs (checked below).
    "concrete context": (
        "lower_concrete.py",
        GENUINE["lower_abstract.py"],
        "the code shows the concrete mesh `mesh` (2, 4) ('x', 'y') current here, not the abstract one (2, 4) ('x', 'y') in the log",
    ),
    # The code gathers onto the context mesh (4, 2): a log naming (8, 1) is about other code.
    "out_sharding mesh": (
        "gather.py",
        GENUINE["gather.py"].replace("'x': 4, 'y': 2", "'x': 8, 'y': 1"),
        "the code shows the out_sharding mesh `model_mesh` (4, 2) ('x', 'y') here, not the one (8, 1) ('x', 'y') in the log",
    ),
    # The code puts the input on the context mesh (it runs): a log saying (2, 4) is no fact.
    "input mesh": (
        "gather_shown.py",
        GENUINE["gather.py"],
        "the code shows the input's mesh `model_mesh` (4, 2) ('x', 'y') here, not the one (2, 4) ('x', 'y') in the log",
    ),
}


@pytest.mark.parametrize("case", FORGED)
def test_a_log_contradicting_the_mesh_the_code_shows_is_no_fix_jax001_jax003(
    tmp_path, case
):
    site, message, said = FORGED[case]
    result, after = _confirmed(tmp_path, site, message)
    assert result.exit_code == 1, result.output
    assert f"{said} (changed since the log?)" in " ".join(result.output.split())
    assert "[no fix]" in result.output
    assert after == CONFIRMED_SITES[site]


_SITE_RUNNER = """
import runpy, sys
sys.path.insert(0, sys.argv[1])
for site in sys.argv[2:]:
    try:
        runpy.run_path(f"{sys.argv[1]}/{site}")
    except ValueError as error:
        print(site, f"{type(error).__name__}: {error}")
"""


def test_confirmed_sites_raise_what_the_genuine_logs_say(tmp_path):
    """The genuine messages are real JAX's; the sites the forged logs name run fine."""
    from codemods.test_real_jax import interpreters

    (tmp_path / "confirmed_data.py").write_text(CONFIRMED_DATA)
    for site, text in CONFIRMED_SITES.items():
        (tmp_path / site).write_text(text)
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
        "JAX_PLATFORMS": "cpu",
    }
    for version, python in sorted(interpreters().items()):
        done = subprocess.run(
            [python, "-c", _SITE_RUNNER, str(tmp_path), *CONFIRMED_SITES],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        assert done.stdout.splitlines() == [
            f"lower_abstract.py {GENUINE['lower_abstract.py']}",
            "lowered",
            f"gather.py {GENUINE['gather.py']}",
            "[0, 1, 2, 3, 4, 5, 6, 7] {'x': 4, 'y': 2}",
        ], (version, done.stdout, done.stderr[-2000:])


def test_undecodable_bytes_in_or_before_a_mesh_are_no_fact():
    """U+DC00 + byte is what the log reader keeps of a byte it cannot decode."""
    mesh = f"AbstractMesh('x': 2, 'y': 4, {_EXPLICIT})"
    assert read_facts("JAX001", f"{JAX001} Got context mesh: {mesh} \udcff")
    for garbled in (
        f"{JAX001} Got context mesh: {mesh.replace('y', 'y' + chr(0xDCFF))}",
        f"{JAX001} Got context mesh: Abstract\udcffMesh('x': 2, 'y': 4)",
        f"{JAX001} Got cont\udcffext mesh: {mesh}",
    ):
        with pytest.raises(MessageError, match="cannot decode"):
            read_facts("JAX001", garbled)
