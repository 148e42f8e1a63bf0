"""Every message of every rule, from real runs: whichever of a rule's `raises` JAX raised, the
repair recorder names the rule (by the message and the exception it is raised with) and
`--from-log` reads the traceback the run printed; a JAX error that only opens as a rule's
message does is neither.

Each program runs under real JAX on both tiers (8 CPU devices), as the fixture tests run them.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from jaxfix.codemods import RULES
from jaxfix.evidence.message_templates import exceptions, start
from jaxfix.evidence.recording import RecordingDir
from jaxfix.evidence.records import read_evidence
from workflows.test_repair import command_env, python

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
JAX102 = ["--select", "JAX102", "--unsafe-fixes"]

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
    ],
    "JAX012": [
        ("JAX012/lowered_for_two_platforms.py", 20, []),
        ("JAX012/exported_function.py", 20, []),
    ],
    # JAX raises in the block; the report is at the `with` item.
    "JAX102": [
        ("JAX102/with_mesh_jit_partition_spec_and_pjit.py", 19, JAX102),
        ("JAX102/with_mesh_constructor_as_name_device_put.py", 15, JAX102),
        ("JAX102/shard_map_under_make_mesh_with_pjit_decorator.py", 28, JAX102),
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


def _recorded_run(program: Path, version: str) -> tuple[list[dict], bytes, bytes]:
    """The recorder's error records of running `program`, its evidence file and its stderr."""
    recording = RecordingDir()
    try:
        recording.write_patterns()
        done = subprocess.run(
            [python(version), str(program)],
            cwd=program.parent,
            env=recording.env(1, command_env(program.parent)),
            capture_output=True,
            timeout=300,
            check=False,
        )
        evidence = recording.evidence(1)
        data = evidence.read_bytes() if evidence.exists() else b""
    finally:
        recording.close()
    errors = [r for r in map(json.loads, data.splitlines()) if r["kind"] == "error"]
    return errors, data, done.stderr


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
    tmp_path, version, code, index, fixture, line, options
):
    rule = RULES[code]
    exception = exceptions(rule.error, rule.raises)[index]
    program = tmp_path / Path(fixture).name
    program.write_text((FIXTURES / fixture).read_text())
    errors, data, log = _recorded_run(program, version)
    # The run raised this message, not another of the rule's.
    assert _exception_line(log).startswith(f"{exception}: {start(rule.raises[index])}")
    assert [(e["code"], e["exception"]) for e in errors] == [(code, exception)]
    reading = read_evidence(data, [program])
    assert [e.code for e in reading.evidence[program]] == [code]
    checked = _from_log(log, *options, str(tmp_path))
    assert checked.exit_code == 1, checked.output
    assert f"{program}:{line}:" in checked.output, checked.output
    assert f" {code} " in checked.output


@pytest.mark.parametrize("version", JAX_VERSIONS)
@pytest.mark.parametrize(
    ("name", "source", "message"),
    [
        (
            "explicit_axes_without_mesh.py",
            EXPLICIT_AXES_WITHOUT_MESH,
            "ValueError: Context mesh cannot be empty. Please use `jax.set_mesh`",
        ),
        (
            "pjit_partition_spec_without_mesh.py",  # JAX103's, beside JAX102's jit message
            (
                FIXTURES / "JAX103/partition_spec_without_mesh_reported_not_fixed.py"
            ).read_text(),
            "RuntimeError: pjit requires a non-empty mesh in context",
        ),
    ],
)
def test_an_error_that_only_opens_as_a_rules_message_is_none_of_them(
    tmp_path, version, name, source, message
):
    program = tmp_path / name
    program.write_text(source)
    errors, _data, log = _recorded_run(program, version)
    assert _exception_line(log).startswith(message)
    assert errors == []
    checked = _from_log(log, "--select", "ALL", str(tmp_path))
    assert checked.exit_code == 0, checked.output
    assert "no traceback of" in checked.output
