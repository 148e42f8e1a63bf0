"""Whether a `jax.make_mesh` a run-time fix would write fits the devices the program has:
jax.make_mesh raises when its shape's size exceeds them. jaxfix never asks JAX (the recorder
must not change how the command runs): the run's records tell (jaxfix/evidence/records.py,
`DevicesSeen`), or the shape is computed from the device count itself; where nothing tells,
the next run of repair does."""

from __future__ import annotations

import ast
import math
from pathlib import Path

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.names import Api
from jaxfix.codemods.text import other_file
from jaxfix.evidence.facts import DevicesSeen, Evidence


def make_mesh_refusal(
    analysis: Analysis, shape: ast.expr, evidence: Evidence
) -> str | None:
    """Why `jax.make_mesh(shape, ...)` surely raises (its size: `shape` written as numbers, else
    the `given` mesh's of `evidence`): the run showed exactly how many devices the program has,
    and the size exceeds them. None otherwise: `shape` is `(jax.device_count(),)`,
    `(len(jax.devices()), 1)` and the like; the size fits; or nothing tells, and repair's next
    run is the check (its guard undoes a fix the program then fails on)."""
    if _sized_by_device_count(analysis, shape):
        return None
    size = _size_written(shape) or max(
        (mesh.size for mesh in evidence.meshes("given")), default=None
    )
    seen = evidence.devices
    if size is None or seen is None or not seen.exact or size <= seen.count:
        return None
    shown = _shown(seen, analysis.path)
    return f"jax.make_mesh of size {size} raises on the {seen.count} devices {shown}"


def _shown(seen: DevicesSeen, here: Path) -> str:
    """`(a concrete mesh the run built at configs/serve.py:10, evidence record 4)`."""
    at = f" at {other_file(seen.at[0], here)}:{seen.at[1]}" if seen.at else ""
    return f"({seen.what}{at}, evidence record {seen.record})"


def _size_written(shape: ast.expr) -> int | None:
    """The size of a shape written as a tuple or list of whole numbers."""
    try:
        sizes = ast.literal_eval(shape)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(sizes, (tuple, list)) or not all(
        type(n) is int and n > 0 for n in sizes
    ):
        return None
    return math.prod(sizes)


def _sized_by_device_count(analysis: Analysis, shape: ast.expr) -> bool:
    """A tuple or list of one axis computed from the device count (`jax.device_count()`,
    `len(jax.devices())`) and axes of 1: its size is the device count."""
    if not isinstance(shape, (ast.Tuple, ast.List)):
        return False
    counted = [e for e in shape.elts if _device_count(analysis, e)]
    rest = [e for e in shape.elts if e not in counted]
    return len(counted) == 1 and all(
        isinstance(e, ast.Constant) and e.value == 1 and not isinstance(e.value, bool)
        for e in rest
    )


def _device_count(analysis: Analysis, node: ast.expr) -> bool:
    jax_name, _ = analysis.module_spelling("jax")
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        return analysis.text(node.func) == f"{jax_name}.device_count"
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Call)
        and not node.args[0].args
        and analysis.called_api(node.args[0]) is Api.DEVICES
    )
