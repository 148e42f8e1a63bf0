"""Every message of every rule, from real runs: whichever of a rule's `raises` JAX raised, the
repair recorder names the rule (by the message and the exception it is raised with) and
`--from-log` reads the traceback the run printed; a JAX error that only opens as a rule's
message does is neither.

Each program runs under real JAX on both tiers (8 CPU devices), as the fixture tests run them:
all of a tier's programs in one process (tests/jax_runner.py), each ending with its error.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from jaxfix.codemods import RULES
from jaxfix.evidence.message_templates import exceptions, start
from jaxfix.evidence.recording import RecordingDir
from jaxfix.evidence.records import read_evidence
from workflows.test_repair import python

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RUNNER = Path(__file__).resolve().parents[1] / "jax_runner.py"
JAX_ENV = {
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
    "JAX_PLATFORMS": "cpu",
}

# Each rule's messages, in the order of its `raises`: a fixture that raises that message, the
# line the log's site is reported at, and the options of the fixture.
MESSAGES: dict[str, list[tuple[str, int, list[str]]]] = {
    "JAX001": [
        ("JAX001/abstract_device_mesh_outside_context.py", 16, []),
        ("JAX001/pure_callback_under_abstract_device_context.py", 20, []),
    ],
    "JAX002": [("JAX002/call_into_jitted_function.py", 17, [])],
    "JAX003": [
        ("JAX003/abstract_context_without_abstract_device.py", 18, []),
        ("JAX003/eager_named_sharding_on_input_mesh_under_other_context.py", 17, []),
    ],
    "JAX004": [("JAX004/four_positional_arguments.py", 20, [])],
    "JAX005": [("JAX005/call_with_check_rep.py", 20, [])],
    "JAX006": [("JAX006/with_use_mesh_jit_partition_spec.py", 12, [])],
    "JAX007": [("JAX007/eval_shape_under_concrete_mesh.py", 11, [])],
    "JAX008": [("JAX008/set_mesh_of_abstract_mesh.py", 11, [])],
    "JAX009": [("JAX009/shaped_array_on_make_mesh.py", 13, [])],
    "JAX010": [
        ("JAX010/committed_array_beside_hand_built_mesh.py", 16, ["--unsafe-fixes"]),
        ("JAX010/abstract_mesh_of_mesh_beside_hand_built.py", 22, ["--unsafe-fixes"]),
    ],
    "JAX011": [
        ("JAX011/zeros_out_sharding_on_other_mesh.py", 14, []),
        ("JAX011/auto_axes_out_sharding_on_other_mesh.py", 15, []),
        ("JAX011/array_on_other_mesh_under_set_mesh.py", 15, []),
    ],
    "JAX012": [
        ("JAX012/lowered_for_two_platforms.py", 22, []),
        ("JAX012/exported_function.py", 20, []),
    ],
    "JAX013": [
        ("JAX013/constraint_on_make_mesh.py", 15, ["--unsafe-fixes"]),
        ("JAX013/shard_map_of_numpy_array.py", 17, ["--unsafe-fixes"]),
        ("JAX013/contracting_dimensions_sharded_seen_in_a_log.py", 18, []),
        ("JAX013/conflicting_shardings_seen_in_a_log.py", 18, []),
        ("JAX013/bare_spec_constraint_asserted_seen_in_a_log.py", 15, []),
        (
            "JAX013/gather_of_embedding_sharded_on_first_dimension.py",
            21,
            ["--unsafe-fixes"],
        ),
    ],
    # Warnings made errors: raised at the import, reported at the call the fix rewrites.
    "JAX101": [("JAX101/warning_made_an_error.py", 27, ["--select", "ALL"])],
    "JAX103": [
        ("JAX103/warning_made_an_error.py", 21, ["--select", "ALL"]),
        ("JAX103/partition_spec_under_set_mesh_block.py", 16, ["--select", "ALL"]),
    ],
    # JAX raises in the block; the report is at the `with` item.
    "JAX014": [
        ("JAX102/with_mesh_jit_partition_spec_and_pjit.py", 19, ["--unsafe-fixes"]),
        ("JAX102/with_mesh_constructor_as_name_device_put.py", 15, ["--unsafe-fixes"]),
        (
            "JAX102/shard_map_under_make_mesh_with_pjit_decorator.py",
            28,
            ["--unsafe-fixes"],
        ),
    ],
}
CASES = [
    (code, index, *case)
    for code, cases in sorted(MESSAGES.items())
    for index, case in enumerate(cases)
]

# A JAX error whose message opens as JAX011's ("Context mesh "): explicit_axes outside any
# mesh context, on both tiers.
EXPLICIT_AXES_WITHOUT_MESH = """\
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, explicit_axes

double = explicit_axes(lambda v: v * 2, axes=("x",), in_sharding=P("x"))
print(double(jnp.arange(8.0)))
"""


def test_every_message_of_every_rule_has_a_raising_program():
    assert {code: len(rule.raises) for code, rule in RULES.items() if rule.raises} == {
        code: len(cases) for code, cases in MESSAGES.items()
    }


# The programs of both tests, each in a folder of its own: name -> (file name, source).
PROGRAMS = {
    **{
        f"{code}-{index}": (Path(fixture).name, (FIXTURES / fixture).read_text())
        for code, index, fixture, _line, _options in CASES
    },
    "explicit_axes_without_mesh": (
        "explicit_axes_without_mesh.py",
        EXPLICIT_AXES_WITHOUT_MESH,
    ),
}


@lru_cache(maxsize=None)
def _recorded_runs(version: str) -> tuple[Path, dict[str, dict], bytes]:
    """Every program run once under `version`, recorded: JAX imported once for all of them
    (tests/jax_runner.py), each ending with its error as it would end a program alone. The
    folder, each program's result (with the traceback Python would print) and the evidence."""
    folder = Path(tempfile.mkdtemp(prefix=f"jaxfix-messages-{version}-"))
    atexit.register(shutil.rmtree, folder, True)
    for name, (file_name, source) in PROGRAMS.items():
        (folder / name).mkdir()
        (folder / name / file_name).write_text(source)
    listing = folder / "programs.txt"
    listing.write_text(
        "\n".join(str(folder / name / file) for name, (file, _) in PROGRAMS.items())
    )
    recording = RecordingDir()
    try:
        recording.write_patterns()
        done = subprocess.run(
            [python(version), str(RUNNER), str(listing)],
            cwd=folder,
            env=recording.env(1, {**os.environ, **JAX_ENV}),
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        evidence = recording.evidence(1)
        data = evidence.read_bytes() if evidence.exists() else b""
    finally:
        recording.close()
    assert done.returncode == 0, done.stderr[-3000:]
    return folder, json.loads(done.stdout), data


def _recorded_run(name: str, version: str) -> tuple[Path, list[dict], bytes, bytes]:
    """One program's file, the recorder's error records of its run, the evidence and the log."""
    folder, results, data = _recorded_runs(version)
    program = folder / name / PROGRAMS[name][0]
    errors = [
        record
        for record in map(json.loads, data.splitlines())
        if record["kind"] == "error"
        and any(str(program) in json.dumps(frame) for frame in record["frames"])
    ]
    log = (results[str(program)]["traceback"] or "").encode()
    return program, errors, data, log


def _exception_line(log: bytes) -> str:
    """The last `Type: message` line the run printed (JAX may print a note after it)."""
    return [
        line
        for line in log.decode().splitlines()
        if re.match(r"[A-Za-z_][\w.]*: ", line)
    ][-1]


def _from_log(log: bytes, *args: str):
    from click.testing import CliRunner

    from jaxfix.cli.main import cli

    return CliRunner().invoke(
        cli,
        ["--from-log", "-", "--check", "--no-cache", *args],
        input=log,
        catch_exceptions=False,
    )


@pytest.mark.parametrize("version", JAX_VERSIONS)
@pytest.mark.parametrize(
    ("code", "index", "fixture", "line", "options"),
    CASES,
    ids=[f"{code}-{index}" for code, index, *_ in CASES],
)
def test_each_message_is_recorded_and_read_from_its_log(
    version, code, index, fixture, line, options
):
    rule = RULES[code]
    exception = exceptions(rule.error, rule.raises)[index]
    program, errors, data, log = _recorded_run(f"{code}-{index}", version)
    assert program.read_text() == (FIXTURES / fixture).read_text()
    # The run raised this message, not another of the rule's; an exception of JAX's own
    # (ShardingTypeError) is printed and recorded with its module.
    shown = f"{re.escape(exception)}: {re.escape(start(rule.raises[index]))}"
    assert re.match(rf"([\w]+\.)*{shown}", _exception_line(log)), log[-2000:]
    assert [(e["code"], e["exception"].rsplit(".", 1)[-1]) for e in errors] == [
        (code, exception)
    ]
    reading = read_evidence(data, [program])
    assert [e.code for e in reading.evidence[program]] == [code]
    checked = _from_log(log, *options, str(program.parent))
    assert checked.exit_code == 1, checked.output
    assert f"{program}:{line}:" in checked.output, checked.output
    assert f" {code} " in checked.output


@pytest.mark.parametrize("version", JAX_VERSIONS)
@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "explicit_axes_without_mesh",
            "ValueError: Context mesh cannot be empty. Please use `jax.set_mesh`",
        ),
    ],
)
def test_an_error_that_only_opens_as_a_rules_message_is_none_of_them(
    version, name, message
):
    program, errors, _data, log = _recorded_run(name, version)
    assert _exception_line(log).startswith(message)
    assert errors == []
    checked = _from_log(log, "--select", "ALL", str(program.parent))
    assert checked.exit_code == 0, checked.output
    assert "no traceback of" in checked.output
