"""A recorded context-mesh error whose out_sharding is made where the context is entered
(jaxfix/check/value_sites.py): the `NamedSharding(mesh, spec)` made on the recorded line gets
evidence of its own, whatever name the code calls JAX's class by; a call of something else
named so gets none (no JAX run: the frames and facts are what a record would hold)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxfix.check.run import Run
from jaxfix.check.value_sites import with_value_sites
from jaxfix.evidence.facts import Evidence, Facts, MeshFacts, Origin
from jaxfix.settings.options import Options

LAYOUTS = """\
import jax


def layout_mesh():
    return jax.make_mesh((2, 4), ("data", "model"))
"""
OPS = """\
import jax


def gather(x, layout):
    return jax.lax.all_gather(x, "data", out_sharding=layout)
"""
STAGE = """\
import jax
{imports}

from layouts import layout_mesh
from ops import gather


def stage(mesh, x):
    layout = {callee}(layout_mesh(), P())
    with jax.set_mesh(mesh):
        return gather(x, layout)
"""
P_IMPORT = "from jax.sharding import PartitionSpec as P"
JAX_S = {
    "an alias": ("NS", f"from jax.sharding import NamedSharding as NS\n{P_IMPORT}"),
    "the module path": ("jax.sharding.NamedSharding", P_IMPORT),
    "the plain name": (
        "NamedSharding",
        f"from jax.sharding import NamedSharding\n{P_IMPORT}",
    ),
}
LOCAL = f"""{P_IMPORT}


def NamedSharding(mesh, spec):
    return (mesh, spec)
"""


def _evidence(tree: Path, built: int) -> tuple[Path, Evidence]:
    """The record of the gather in ops.py raising, its out_sharding made at line `built` of
    stage.py and its context mesh entered on the next."""
    out = MeshFacts("concrete", ("data", "model"), (2, 4), None, False)
    context = MeshFacts("concrete", ("data", "model"), (4, 2), None, False)
    stage, ops = (tree / "stage.py").resolve(), (tree / "ops.py").resolve()
    item = Evidence(
        "JAX003",
        5,
        (1,),
        (Facts.of({"out": out, "context": context}),),
        origin="evidence record",
        origins=(
            Origin("out", "built", ((stage, built), (tree / "layouts.py", 5))),
            Origin("context", "entered", ((stage, built + 1),)),
        ),
    )
    return ops, item


def _placed(
    tmp_path: Path, callee: str, imports: str
) -> tuple[int, dict[Path, tuple[Evidence, ...]]]:
    """The line of stage.py making the out_sharding, and the evidence by file once placed."""
    stage = STAGE.format(callee=callee, imports=imports)
    files = {"layouts.py": LAYOUTS, "ops.py": OPS, "stage.py": stage}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    built = 1 + next(
        n for n, line in enumerate(stage.splitlines()) if "layout =" in line
    )
    ops, item = _evidence(tmp_path, built)
    paths = [(tmp_path / name).resolve() for name in files]
    run = Run(Options(unsafe_fixes=True))
    return built, with_value_sites({ops: (item,)}, run, paths)


@pytest.mark.parametrize("spelled", sorted(JAX_S))
def test_jax_s_named_sharding_however_spelled_gets_the_evidence(tmp_path, spelled):
    callee, imports = JAX_S[spelled]
    built, found = _placed(tmp_path, callee, imports)
    stage = (tmp_path / "stage.py").resolve()
    (raised,) = found[(tmp_path / "ops.py").resolve()]
    assert raised.value_site is not None and raised.value_site.path == stage
    (placed,) = found[stage]
    assert placed.at_value and placed.line == built
    assert placed.value_site is not None and placed.value_site.name == "layout_mesh()"


def test_a_local_function_named_named_sharding_gets_none(tmp_path):
    _, found = _placed(tmp_path, "NamedSharding", LOCAL)
    (raised,) = found[(tmp_path / "ops.py").resolve()]
    assert raised.value_site is None
    assert (tmp_path / "stage.py").resolve() not in found
