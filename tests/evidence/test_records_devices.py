"""jaxfix/evidence/records.py: the devices a recorded run shows the program holds (`DevicesSeen`),
which decide whether JAX008's `jax.make_mesh` fix fits. The evidence file may be forged: a
process's largest concrete mesh counts only from a line of the tree that builds a mesh and reads
as the run saw it, and jax.make_mesh's message only from a line of the tree calling it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxfix.evidence.facts import DevicesSeen
from jaxfix.evidence.records import read_evidence

MESHES = """\
import jax


def probe():
    return jax.make_mesh((4,), ("data",))


def pod():
    return jax.make_mesh((16,), ("data",))


SIZE = 4
"""
MAIN = """\
from jax.sharding import use_abstract_mesh


def evaluate(inner):
    with use_abstract_mesh(inner):
        pass
"""
_MESSAGE = (
    "use_abstract_mesh cannot change the size of the mesh. Got new mesh: "
    "AbstractMesh('data': 4, 'model': 4, axis_types=(Auto, Auto)) with size=16 and "
    "prev mesh: AbstractMesh('data': 2, 'model': 4, axis_types=(Explicit, Explicit)) "
    "with size=8"
)


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "meshes.py").write_text(MESHES)
    (tmp_path / "main.py").write_text(MAIN)
    return tmp_path / "main.py", tmp_path / "pkg" / "meshes.py"


def _records(*records: dict) -> bytes:
    error = {
        "kind": "error",
        "code": "JAX002",
        "exception": "ValueError",
        "message": _MESSAGE,
        "frames": [{"path": "/run/main.py", "line": 5}],
    }
    return "\n".join(
        json.dumps({"schema": "jaxfix-evidence/1", **r}) for r in (error, *records)
    ).encode()


def _process(count: object, *frames: dict) -> dict:
    return {
        "kind": "process",
        "jax_version": "0.10.2",
        "largest_mesh": {"device_count": count, "built": list(frames)},
    }


def _failure(message: str, line: int) -> dict:
    return {
        "kind": "failure",
        "exception": "ValueError",
        "message": message,
        "frames": [{"path": "/run/pkg/meshes.py", "line": line}],
    }


def _devices(tmp_path: Path, *records: dict) -> DevicesSeen | None:
    main, meshes = _tree(tmp_path)
    (evidence,) = read_evidence(_records(*records), [main, meshes]).evidence[main]
    return evidence.devices


def test_the_largest_concrete_mesh_a_process_built_shows_at_least_its_devices(
    tmp_path,
):
    seen = _devices(
        tmp_path,
        _process(
            4,
            {"path": "/run/main.py", "line": 1},
            {"path": "/run/pkg/meshes.py", "line": 5},
        ),
    )
    assert seen == DevicesSeen(
        4, False, "a concrete mesh the run built", 2, (tmp_path / "pkg/meshes.py", 5)
    )


@pytest.mark.parametrize(
    "forged",
    [
        _process(1024, {"path": "/run/pkg/meshes.py", "line": 12}),  # builds no mesh
        _process(1024, {"path": "/etc/passwd", "line": 1}),  # outside the tree
        _process(1024, {"path": "/run/pkg/meshes.py", "line": 99}),  # no such line
        _process(1024, {"path": "/run/pkg/meshes.py", "line": 5, "source": "x = 1"}),
        _process("1024", {"path": "/run/pkg/meshes.py", "line": 5}),  # not a count
        _process(0, {"path": "/run/pkg/meshes.py", "line": 5}),
        _failure("Number of devices 1 must be >= the product of mesh_shape (16,)", 12),
    ],
)
def test_a_forged_device_count_shows_nothing(tmp_path, forged):
    assert _devices(tmp_path, forged) is None


def test_make_meshs_message_shows_exactly_the_devices_over_any_mesh_built(tmp_path):
    seen = _devices(
        tmp_path,
        _process(4, {"path": "/run/pkg/meshes.py", "line": 5}),
        _failure("Number of devices 8 must be >= the product of mesh_shape (16,)", 9),
    )
    assert seen == DevicesSeen(
        8, True, "jax.make_mesh's message raised", 3, (tmp_path / "pkg/meshes.py", 9)
    )
