"""jaxfix/codemods/make_mesh_devices.py: JAX008's `jax.make_mesh` fix fits the devices the run
shows (`DevicesSeen`), or its shape is the device count; otherwise it is refused, naming what
shows the devices."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.codemods.make_mesh_devices import make_mesh_refusal
from jaxfix.evidence.facts import DevicesSeen, Evidence, Facts

SOURCE = """\
import jax
from jax.sharding import AbstractMesh

pod = AbstractMesh((4, 4), ("data", "model"))
host = AbstractMesh((jax.device_count(),), ("data",))
hosts = AbstractMesh((len(jax.devices()), 1), ("data", "model"))
half = AbstractMesh((jax.device_count() // 2, 2), ("data", "model"))
"""


def _shapes(tmp_path: Path) -> tuple[Analysis, dict[str, ast.expr]]:
    path = tmp_path / "configs" / "meshes.py"
    path.parent.mkdir()
    path.write_text(SOURCE)
    engine = Engine()
    module = engine.module(path)
    assert isinstance(module, Module)
    analysis = Analysis(engine, module, ())
    shapes = {
        n.targets[0].id: n.value.args[0]
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Assign)
        and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Call)
    }
    return analysis, shapes


def _seen(tmp_path: Path, count: int, exact: bool) -> Evidence:
    seen = DevicesSeen(count, exact, "what", 3, (tmp_path / "probe.py", 7))
    return Evidence("JAX008", 4, (1,), (Facts(),), devices=seen)


@pytest.mark.parametrize(("count", "exact"), [(16, False), (32, False), (16, True)])
def test_a_shape_within_the_devices_the_run_shows_fits(tmp_path, count, exact):
    analysis, shapes = _shapes(tmp_path)
    assert (
        make_mesh_refusal(analysis, shapes["pod"], _seen(tmp_path, count, exact))
        is None
    )


def test_a_shape_over_the_devices_make_meshs_message_names_is_refused(tmp_path):
    analysis, shapes = _shapes(tmp_path)
    assert make_mesh_refusal(analysis, shapes["pod"], _seen(tmp_path, 8, True)) == (
        "jax.make_mesh of size 16 raises on the 8 devices (what at probe.py:7, "
        "evidence record 3)"
    )


def test_a_shape_only_an_exact_device_count_contradicts_is_refused(tmp_path):
    """Nothing in the records, or fewer devices than the size seen as a lower bound: the fix
    is written, and repair's next run checks it; the exact count below the size refuses."""
    analysis, shapes = _shapes(tmp_path)
    nothing = Evidence("JAX008", 4, (1,), (Facts(),))
    assert make_mesh_refusal(analysis, shapes["pod"], nothing) is None
    assert make_mesh_refusal(analysis, shapes["pod"], _seen(tmp_path, 8, False)) is None
    assert make_mesh_refusal(analysis, shapes["pod"], _seen(tmp_path, 8, True)) == (
        "jax.make_mesh of size 16 raises on the 8 devices "
        "(what at probe.py:7, evidence record 3)"
    )


def test_a_shape_of_the_device_count_fits_whatever_the_records_say(tmp_path):
    analysis, shapes = _shapes(tmp_path)
    nothing = Evidence("JAX008", 4, (1,), (Facts(),))
    for name in ("host", "hosts"):
        assert make_mesh_refusal(analysis, shapes[name], nothing) is None
        assert (
            make_mesh_refusal(analysis, shapes[name], _seen(tmp_path, 2, True)) is None
        )
    # half the devices by two: no size to compare, left to the next run
    assert make_mesh_refusal(analysis, shapes["half"], _seen(tmp_path, 2, True)) is None
