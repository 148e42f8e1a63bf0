"""JAX013 raised on a layer's `self.mesh`, which the code does not show: the run recorded
where it built that mesh, and the `jax.make_mesh(...)` there is given Auto axis types. An
evidence file may come from a stranger: creation frames the code does not show as a path
(a make_mesh its caller does not call, a path that did not raise), a call whose own sizes are
not the run's mesh's, or axes the run did not see Explicit, fix nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from evidence.test_recorder_provenance import _formats, _recorded

MESHES = """\
import jax


def build(shape, names):
    return jax.make_mesh(shape, names)


def other(shape):
    return jax.make_mesh(shape, ("data", "model"))
"""
LAYERS = """\
import jax
from jax.sharding import NamedSharding, PartitionSpec as P


class Dense:
    def __init__(self, mesh):
        self.mesh = mesh

    def __call__(self, x):
        return jax.lax.with_sharding_constraint(x, NamedSharding(self.mesh, P("data")))
"""
MAIN = """\
import jax.numpy as jnp

from pkg import meshes
from pkg.layers import Dense


def serve():
    return meshes.other((2, 4))


def main():
    layer = Dense(meshes.build((4, 2), ("data", "model")))
    serve()
    return layer(jnp.ones((8, 8)))


def unused():
    return meshes.build((4, 2), ("data", "model"))


main()
"""
FIX = (5, "give make_mesh Auto axis types")


def _made_frames(evidence: Path, change: Callable[[list[dict]], None]) -> None:
    """`evidence` with `change` applied to each record's `made` creation frames."""
    records = [json.loads(line) for line in evidence.read_text().splitlines() if line]
    for record in records:
        made = record.get("meshes", {}).get("made")
        if made is not None:
            change(made)
    evidence.write_text("".join(json.dumps(r) + "\n" for r in records))


def _frame(path: str, line: int, function: str) -> dict:
    text = (MESHES if path.endswith("meshes.py") else MAIN).splitlines()[line - 1]
    return {"path": path, "line": line, "function": function, "source": text.strip()}


def _other_make_mesh(made: dict) -> None:
    """The innermost frame moved to `other`'s make_mesh, which `main` does not call there."""
    made["built"][-1] = _frame(made["built"][-1]["path"], 9, "other")


def _through_serve(made: dict) -> None:
    """A path the code does show, to `other`'s make_mesh of sizes (2, 4)."""
    root = made["built"][-1]["path"].rpartition("/pkg/")[0]
    made["built"] = [
        _frame(f"{root}/main.py", 21, "<module>"),
        _frame(f"{root}/main.py", 13, "main"),
        _frame(f"{root}/main.py", 8, "serve"),
        _frame(f"{root}/pkg/meshes.py", 9, "other"),
    ]


def _elsewhere(made: dict) -> None:
    """The same make_mesh, reached from a function the raising path does not pass."""
    root = made["built"][-1]["path"].rpartition("/pkg/")[0]
    made["built"] = [
        _frame(f"{root}/main.py", 18, "unused"),
        _frame(f"{root}/pkg/meshes.py", 5, "build"),
    ]


def _auto(made: dict) -> None:
    made["axis_types"] = ["Auto", "Auto"]


@pytest.mark.jax
@pytest.mark.parametrize(
    ("forge", "fixes"),
    [
        (None, [FIX]),
        (_other_make_mesh, []),
        (_through_serve, []),
        (_elsewhere, []),
        (_auto, []),
    ],
)
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_only_the_creation_frames_the_code_shows_get_the_fix(
    tmp_path, version, forge, fixes
):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "meshes.py").write_text(MESHES)
    (tmp_path / "pkg" / "layers.py").write_text(LAYERS)
    (tmp_path / "main.py").write_text(MAIN)
    evidence = _recorded(tmp_path, version)
    assert '"made"' in evidence.read_text()
    if forge is not None:
        _made_frames(evidence, forge)
    shown = json.loads(_formats(tmp_path, evidence, "--unsafe-fixes")["json"])
    found = [
        (d["start"]["line"], d["fix"]["title"])
        for f in shown["files"]
        for d in f["diagnostics"]
        if d["fix"] is not None
    ]
    assert found == fixes, shown
