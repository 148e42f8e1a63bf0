"""The environment variables a recorded run's code read (jaxfix/evidence/recorder.py): noted
for the program's own code only, a value kept only when it reads as a size, and placed in the
tree by the evidence reader only where the line still reads that variable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jaxfix.evidence.recording import RecordingDir
from jaxfix.evidence.records import read_evidence

HELPER = """\
import os


def slice_devices():
    return int(os.environ["SLICE_DEVICES"])
"""

MAIN = """\
import os
import sys
import types

sys.modules["jax"] = types.ModuleType("jax")  # a process record is written for JAX's
from helper import slice_devices

slice_devices()
token = os.environ.get("SERVICE_TOKEN")
os.getenv("UNSET_SIZE", "4")
os.path.expanduser("~")  # the standard library's read of HOME
"""


def _recorded(tmp_path: Path) -> list[dict]:
    (tmp_path / "helper.py").write_text(HELPER)
    (tmp_path / "main.py").write_text(MAIN)
    recording = RecordingDir()
    try:
        recording.write_patterns()
        env = recording.env(1)
        env.update(SLICE_DEVICES="16", SERVICE_TOKEN="abc123secret")
        env.pop("UNSET_SIZE", None)
        subprocess.run(
            [sys.executable, "main.py"], cwd=tmp_path, env=env, check=True, timeout=120
        )
        lines = recording.evidence(1).read_text().splitlines()
    finally:
        recording.close()
    return [json.loads(line) for line in lines]


def test_reads_of_the_program_s_code_are_noted_with_sizes_only(tmp_path):
    (process,) = _recorded(tmp_path)
    reads = {
        (r["variable"], r["value"], Path(r["path"]).name, r["line"])
        for r in process["environment"]
    }
    assert reads == {
        ("SLICE_DEVICES", "16", "helper.py", 5),
        ("SERVICE_TOKEN", None, "main.py", 9),  # not a size: never kept
        ("UNSET_SIZE", None, "main.py", 10),
    }


def test_a_read_the_code_does_not_bear_out_is_dropped(tmp_path):
    (process,) = _recorded(tmp_path)
    forged = [
        {**process["environment"][0], "line": 4},  # `def slice_devices():`
        {**process["environment"][0], "variable": "OTHER"},  # not the line's variable
        {**process["environment"][0], "value": ["16"]},
        {**process["environment"][0], "path": "/elsewhere/helper.py"},
    ]
    files = [tmp_path / "helper.py", tmp_path / "main.py"]
    record = {**process, "environment": [*forged, process["environment"][0]]}
    error = {
        "schema": process["schema"],
        "kind": "error",
        "code": "JAX011",
        "exception": "ValueError",
        "message": "Context mesh AbstractMesh('x': 4) should match the mesh of sharding "
        "AbstractMesh('x': 8) passed to jnp.zeros",
        "frames": [
            {"path": str(tmp_path / "main.py"), "line": 8, "function": "<module>"}
        ],
        "meshes": {},
    }
    data = "\n".join(json.dumps(r) for r in (record, error)).encode()
    reading = read_evidence(data, files)
    (evidence,) = reading.evidence[tmp_path / "main.py"]
    assert [
        (r.variable, r.value, r.path.name, r.line) for r in evidence.environment
    ] == [("SLICE_DEVICES", "16", "helper.py", 5)]
