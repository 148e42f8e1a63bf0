"""`jaxfix repair` on tests/repair_projects/origins, under real JAX on both tiers: each JAX002
inner mesh gets its sizes from another place (a config dict through a factory's parameter, a
dataclass field default whose instance is built in another module, a constant a working mesh
shares), and each is resized where the run's frames lead, not at the line that raised."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.test_repair import (
    changed,
    copied,
    python,
    repair_with_pytest,
    snapshot,
)

PROJECT = Path(__file__).parents[1] / "repair_projects" / "origins"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_each_value_is_resized_where_it_is_written(tmp_path, version):
    tree = copied(PROJECT, tmp_path / "origins")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 0 and report["passed"], report
    details = {f["line"]: f["detail"] for f in report["fixed"]}
    assert details == {
        15: "resize the inner mesh to (2, 4) where its sizes are written "
        "(EVAL['mesh']['shape'], stages/config.py:4)",
        21: "give `StageConfig()` shape=(2, 4) (StageConfig().shape, stages/serving.py:3)",
        34: "resize the inner mesh to (2, 4) where its sizes are written",
    }
    assert changed(before, tree) == {
        "stages/config.py",
        "stages/serving.py",
        "stages/run.py",
    }
    after = snapshot(tree)
    assert (
        b'"shape": (2, 4), "names": ("data", "model")}, "batch": 4}'
        in after["stages/config.py"]
    )
    assert after["stages/serving.py"].endswith(b"SERVING = StageConfig(shape=(2, 4))\n")
    # SHAPE stays (4, 4) for the wide stage, which runs with it: only the narrow read changes
    assert after["stages/shapes.py"] == before["stages/shapes.py"]
    run = after["stages/run.py"].decode()
    assert "of_shape(SHAPE)" in run and "of_shape((2, 4))" in run


CALLERS = Path(__file__).parents[1] / "repair_projects" / "callers"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_context_mesh_set_by_a_parameter_is_fixed_as_static_fixes_it(
    tmp_path, version
):
    """The gather's context mesh is its `mesh` parameter, given by a test in another folder:
    repair looks for callers over the whole project, as `jaxfix .` does, and moves the input
    (before, it read the gather's file alone and said it does not see where that mesh is set).
    The round names the caller by its path and says the fix was made, not that it would be."""
    tree = copied(CALLERS, tmp_path / "callers")
    before = snapshot(tree)
    code, report, rounds = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes"
    )
    assert code == 0 and report["passed"], report
    assert [(f["code"], f["path"], f["line"]) for f in report["fixed"]] == [
        ("JAX003", "serve/model.py", 8)
    ]
    assert changed(before, tree) == {"serve/model.py"}
    assert (
        "jax.device_put(w, NamedSharding(mesh, jax.typeof(w).sharding.spec))"
        in snapshot(tree)["serve/model.py"].decode()
    )
    assert "[fixed (unsafe): move `w` onto `mesh` before the gather]" in rounds
    assert "would fix" not in rounds
    assert "passed at line 11 of tests/test_gather.py" in rounds


TOTAL_TEST = """\
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def local_sum(block):
    return jax.lax.psum(block.sum(), "x")


def test_total():
    mesh = jax.make_mesh((8,), ("x",))
    x = jax.device_put(np.arange(8.0), NamedSharding(mesh, P("x")))
    total = jax.shard_map(local_sum, mesh=mesh, in_specs=P("x"), out_specs=P(), check_rep=False)(x)
    assert float(total) == 28.0
"""


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_site_left_for_want_of_unsafe_fixes_is_not_said_to_be_worked_on(
    tmp_path, version
):
    """Without --unsafe-fixes, round 1 fixes JAX005 (safe) and leaves the JAX003 move (unsafe);
    run 2 raises JAX003 again: the loop says its fix needs --unsafe-fixes, not that it raised
    again after jaxfix worked on it (nothing was changed there)."""
    tree = copied(CALLERS, tmp_path / "callers")
    (tree / "tests" / "test_total.py").write_text(TOTAL_TEST)
    code, report, rounds = repair_with_pytest(tree, tmp_path, python(version), "-q")
    assert code == 1 and report["stop"] == "nothing-new", report
    assert [(f["code"], f["path"]) for f in report["fixed"]] == [
        ("JAX005", "tests/test_total.py")
    ]
    assert report["reason"] == (
        "round 2 brought no new fixable evidence: "
        "1 site(s) whose unsafe fix needs --unsafe-fixes raised again"
    ), report["reason"]
    assert "after jaxfix" not in rounds


@pytest.mark.jax
def test_a_round_whose_only_fix_is_unsafe_says_to_give_unsafe_fixes(tmp_path):
    tree = copied(CALLERS, tmp_path / "callers")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(tree, tmp_path, python(JAX_VERSIONS[0]), "-q")
    assert code == 1 and report["reason"] == (
        "round 1 fixed nothing: 1 of its new errors have an unsafe fix: "
        "run again with --unsafe-fixes"
    ), report
    assert changed(before, tree) == set()


SERVER = """\
import jax
from jax.sharding import PartitionSpec as P
from jax._src.shard_map import top_level_all_gather


class Server:
    def __init__(self, training_mesh, serving_mesh):
        self.training_mesh = training_mesh
        self.serving_mesh = serving_mesh

    def gather(self, w):
        with jax.set_mesh(self.serving_mesh):
            return top_level_all_gather(w, P(reduced={"x"}))

    def gather_swapped(self, w):
        with jax.set_mesh(self.serving_mesh):
            self.serving_mesh = self.training_mesh
            return top_level_all_gather(w, P(reduced={"x"}))
"""
SERVER_TEST = """\
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from server import Server


def server():
    return Server(jax.make_mesh((2, 4), ("x", "y")), jax.make_mesh((4, 2), ("x", "y")))


def test_gather():
    s = server()
    x = jax.device_put(jnp.arange(8), NamedSharding(s.training_mesh, P("x")))
    assert s.gather(x).tolist() == list(range(8))


def test_gather_swapped():
    s = server()
    x = jax.device_put(jnp.arange(8), NamedSharding(s.training_mesh, P("x")))
    assert s.gather_swapped(x).tolist() == list(range(8))
"""


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_context_mesh_named_by_an_attribute_is_the_one_the_input_moves_to(
    tmp_path, version
):
    """`with jax.set_mesh(self.serving_mesh):` around the gather: the run shows the meshes, the
    code the expression that entered the context; the input is moved onto it. Where the block
    assigns that attribute before the gather, it would name another mesh: reported, unchanged."""
    tree = tmp_path / "server"
    tree.mkdir()
    (tree / "server.py").write_text(SERVER)
    (tree / "test_server.py").write_text(SERVER_TEST)
    (tree / "conftest.py").write_text((CALLERS / "conftest.py").read_text())
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert [(f["code"], f["line"]) for f in report["fixed"]] == [("JAX003", 13)], report
    assert [(f["code"], f["path"], f["line"]) for f in report["left"]] == [
        (
            "JAX003",
            "server.py",
            26,
        )  # line 18 before the fix above grew by eight lines (the
        # import of NamedSharding is a line of its own beside `PartitionSpec as P`)
    ], report["left"]
    fixed = (tree / "server.py").read_text()
    # the attribute that entered the context is read once, into a local the move reads too
    assert (
        "        serving_mesh = self.serving_mesh\n"
        "        with jax.set_mesh(serving_mesh):\n"
    ) in fixed
    assert "NamedSharding(serving_mesh, jax.typeof(w).sharding.spec)" in fixed
    assert fixed.count("jax.device_put") == 1


WEIGHTS = """\
import jax
from jax.sharding import PartitionSpec as P
from jax._src.shard_map import top_level_all_gather


class Weights:
    def __init__(self, w, compute_mesh):
        self.w = w
        self.compute_mesh = compute_mesh

    def label(self):
        return "all"

    def gather(self):
        with jax.set_mesh(self.compute_mesh):
            return top_level_all_gather(self.w, P(reduced={"x"}))

    def gather_labelled(self):
        with jax.set_mesh(self.compute_mesh):
            return self.label(), top_level_all_gather(self.w, P(reduced={"x"}))
"""
WEIGHTS_TEST = """\
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from weights import Weights


def weights():
    x = jax.device_put(jnp.arange(8), NamedSharding(jax.make_mesh((2, 4), ("x", "y")), P("x")))
    return Weights(x, jax.make_mesh((4, 2), ("x", "y")))


def test_gather():
    assert weights().gather().tolist() == list(range(8))


def test_gather_labelled():
    assert weights().gather_labelled()[1].tolist() == list(range(8))
"""


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_an_input_read_from_an_attribute_is_bound_once(tmp_path, version):
    """`top_level_all_gather(self.w, ...)` under `jax.set_mesh(self.compute_mesh)`, both meshes
    known only from the run: the input and the mesh are each bound to a local one statement
    before the statement that read them, and the fix reads the locals (before, it refused
    the input as "an expression the fix would have to evaluate twice"). Where the statement
    calls `self.label()` before reading `self.w`, binding it first would change the order:
    `self.w`, a plain attribute, is read again inside the one expression that moves it (both
    reads after the call), the mesh still bound before the `with`."""
    tree = tmp_path / "weights"
    tree.mkdir()
    (tree / "weights.py").write_text(WEIGHTS)
    (tree / "test_weights.py").write_text(WEIGHTS_TEST)
    (tree / "conftest.py").write_text((CALLERS / "conftest.py").read_text())
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert sorted((f["code"], f["line"]) for f in report["fixed"]) == [
        ("JAX003", 16),
        ("JAX003", 20),
    ], report
    assert report["left"] == [], report
    fixed = (tree / "weights.py").read_text()
    gather = fixed[fixed.index("def gather(") : fixed.index("def gather_labelled")]
    assert gather.count("self.w") == 1 and gather.count("self.compute_mesh") == 1
    assert "            w = self.w\n" in gather
    moved = " ".join(gather.split())  # laid out over several lines
    assert (
        "jax.device_put( w, NamedSharding(compute_mesh, jax.typeof(w).sharding.spec), )"
        in moved
    )
    labelled = " ".join(fixed[fixed.index("def gather_labelled") :].split())
    assert (
        "compute_mesh = self.compute_mesh with jax.set_mesh(compute_mesh):" in labelled
    )
    assert (
        "return self.label(), top_level_all_gather( jax.device_put( self.w,"
        " NamedSharding(compute_mesh, jax.typeof(self.w).sharding.spec), )"
    ) in labelled


GATHERS = """\
import jax
from jax.sharding import NamedSharding, PartitionSpec as P
from jax._src.shard_map import top_level_all_gather


def gather(x, context, out_mesh):
    with jax.set_mesh(context):
        return top_level_all_gather(x, NamedSharding(out_mesh, P(reduced={"x"})))


class Gatherer:
    def __init__(self, context, out_mesh):
        self.context, self.out_mesh = context, out_mesh

    def gather(self, x):
        with jax.set_mesh(self.context):
            return top_level_all_gather(x, NamedSharding(self.out_mesh, P(reduced={"x"})))
"""
GATHERS_TEST = """\
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from gathers import Gatherer, gather


def meshes():
    return [jax.make_mesh(tuple(int(c) for c in s), ("x", "y")) for s in ("24", "42")]


def test_gather():
    out_mesh, context = meshes()
    x = jax.device_put(jnp.arange(8), NamedSharding(context, P("x")))
    assert gather(x, context, out_mesh).tolist() == list(range(8))


def test_gatherer():
    out_mesh, context = meshes()
    x = jax.device_put(jnp.arange(8), NamedSharding(context, P("x")))
    assert Gatherer(context, out_mesh).gather(x).tolist() == list(range(8))
"""


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_recorded_context_mesh_error_puts_the_out_sharding_on_the_entered_mesh(
    tmp_path, version
):
    """JAX003's other error, "Context mesh ... should match the mesh of sharding ...", which
    static reading fixes where it sees the meshes, is recorded too (before, the recorder did
    not know the message: repair stopped at an error it could not read). Here the meshes are
    built from strings the engine does not follow: the run's meshes and the `with
    jax.set_mesh(context):` around the gather put the out_sharding on `context`, and on
    `self.context` where the mesh is entered as an attribute nothing between the `with` and the
    gather assigns (reading it again gives the same mesh)."""
    tree = tmp_path / "gathers"
    tree.mkdir()
    (tree / "gathers.py").write_text(GATHERS)
    (tree / "test_gathers.py").write_text(GATHERS_TEST)
    (tree / "conftest.py").write_text((CALLERS / "conftest.py").read_text())
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 0 and report["passed"], report
    assert [(f["code"], f["line"]) for f in report["fixed"]] == [
        ("JAX003", 8),
        ("JAX003", 17),
    ], report
    assert report["left"] == [], report
    fixed = (tree / "gathers.py").read_text()
    function, method = fixed.split("class Gatherer")
    assert function == GATHERS.split("class Gatherer")[0].replace(
        'NamedSharding(out_mesh, P(reduced={"x"})))\n',
        'NamedSharding(context, P(reduced={"x"})))\n',
    )
    # the method's line, longer now, is wrapped to the line length
    assert 'NamedSharding(self.context, P(reduced={"x"}))' in method
    assert "out_mesh, P(" not in method


JSON_CONFIG = Path(__file__).parents[1] / "repair_projects" / "jsonconfig"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_json_entry_is_changed_in_place_unless_a_working_mesh_reads_it(
    tmp_path, version
):
    """The eval stage's sizes come from stages.json, loaded by config.py and passed through a
    factory: repair changes that entry's one integer in the JSON file, every other byte kept.
    The serve entry is read by a stage that works (size 16) and one that fails (size 8): it is
    never changed, and the failing stage is left saying where else it is read."""
    tree = copied(JSON_CONFIG, tmp_path / "jsonconfig")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1 and not report["passed"], report
    assert [(f["path"], f["line"], f["detail"]) for f in report["fixed"]] == [
        ("stages/run.py", 13, 'set "mesh_shape" (stages.json:5) to [2, 4]')
    ]
    assert changed(before, tree) == {"stages.json"}
    assert snapshot(tree)["stages.json"] == before["stages.json"].replace(
        b'"mesh_shape": [4, 4]\n', b'"mesh_shape": [2, 4]\n'
    )
    (left,) = report["left"]
    assert (left["path"], left["line"]) == ("stages/run.py", 27)
    assert (
        "the entry stages.json['serve']['mesh_shape'] is also read at run.py:20"
        in left["detail"]
    )


@pytest.mark.jax
def test_a_json_entry_is_named_with_what_to_set_without_unsafe_fixes(tmp_path):
    """Without --unsafe-fixes nothing is written; the site says the entry's line, what it
    holds and what to set it to."""
    tree = copied(JSON_CONFIG, tmp_path / "jsonconfig")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(tree, tmp_path, python(JAX_VERSIONS[0]), "-q")
    assert code == 1 and report["fixed"] == [], report
    assert changed(before, tree) == set()
    detail = {(s["line"]): s["detail"] for s in report["left"]}[13]
    assert (
        'stages.json:5: "mesh_shape" is [4, 4]; the enclosing mesh has size 8: '
        "set it to [2, 4] or [4, 2]" in detail
    )
    assert "its unsafe fix needs --unsafe-fixes" in detail


def _recorded_json_config(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of jsonconfig and the evidence of one recorded pytest run of it (jaxfix's
    pytest plugin, real JAX)."""
    tree = copied(JSON_CONFIG, tmp_path / "jsonconfig")
    evidence = tmp_path / "evidence.jsonl"
    subprocess.run(
        [
            python(JAX_VERSIONS[0]),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "jaxfix.record",
        ],
        cwd=tree,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
            "PYTHONPATH": str(Path(__file__).parents[2]),
            "JAX_PLATFORMS": "cpu",
            "JAXFIX_RECORD": str(evidence),
        },
        capture_output=True,
        timeout=300,
    )
    assert evidence.exists()
    return tree, evidence


def _jaxfix_with_evidence(tree: Path, evidence: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "--no-cache",
            "--unsafe-fixes",
            "--evidence",
            str(evidence),
            ".",
        ],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.jax
def test_evidence_changes_a_json_entry_and_counts_the_file(tmp_path):
    """`jaxfix --evidence FILE --unsafe-fixes` writes the entry as repair does, and the
    summary counts stages.json among the files changed."""
    tree, evidence = _recorded_json_config(tmp_path)
    before = snapshot(tree)
    done = _jaxfix_with_evidence(tree, evidence)
    assert done.returncode == 1, done.stderr  # the serve stage is left
    assert changed(before, tree) == {"stages.json"}
    assert re.search(r"files changed\s*│\s*1\s*│", done.stderr), done.stderr


@pytest.mark.jax
def test_an_entry_changed_since_the_run_is_not_written(tmp_path):
    """The eval entry was edited after the run (now [8, 4]): the evidence is not applied
    there; one line says what the entry holds now and that nothing was written."""
    tree, evidence = _recorded_json_config(tmp_path)
    stages = tree / "stages.json"
    stages.write_text(
        stages.read_text().replace('"mesh_shape": [4, 4]\n', '"mesh_shape": [8, 4]\n')
    )
    before = snapshot(tree)
    done = _jaxfix_with_evidence(tree, evidence)
    assert changed(before, tree) == set()
    assert (
        "stages.json:5: stages.json['eval']['mesh_shape'] now holds [8, 4], not the run's [4, 4] "
        "(changed since the run): not written"
    ) in " ".join(done.stdout.split()), done.stdout


YAML_CONFIG = Path(__file__).parents[1] / "repair_projects" / "yamlconfig"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_yaml_entry_is_changed_in_place_unless_an_alias_reuses_it(tmp_path, version):
    """The same stages in stages.yaml (read with yaml.safe_load from beside the package): the
    eval entry's integer is changed, its comment and the rest kept; the serve entry is the
    wide stage's too, through an alias, and is never changed."""
    tree = copied(YAML_CONFIG, tmp_path / "yamlconfig")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1 and not report["passed"], report
    assert [(f["path"], f["line"], f["detail"]) for f in report["fixed"]] == [
        ("stages/run.py", 13, 'set "mesh_shape" (stages.yaml:6) to [2, 4]')
    ]
    assert changed(before, tree) == {"stages.yaml"}
    assert snapshot(tree)["stages.yaml"] == before["stages.yaml"].replace(
        b"  batch: 4  # per device\n  mesh_shape: [4, 4]\n",
        b"  batch: 4  # per device\n  mesh_shape: [2, 4]\n",
    )
    (left,) = report["left"]
    assert (left["path"], left["line"]) == ("stages/run.py", 27)
    assert "['serve']['mesh_shape'] is an anchor other entries reuse" in left["detail"]


MESHES = """\
import jax
from jax.sharding import AxisType


def gather_mesh():
    return jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
"""
REPLICATE = """\
import contextlib

import jax
from jax.sharding import PartitionSpec as P
from jax._src.shard_map import top_level_all_gather

from meshes import gather_mesh


def replicate(x):
    with jax.set_mesh(gather_mesh()):
        return top_level_all_gather(x, P(None, reduced={"x"}))


def replicate_quietly(x):
    with contextlib.nullcontext(), jax.set_mesh(gather_mesh()):
        return top_level_all_gather(x, P(None, reduced={"x"}))
"""
REPLICATE_TEST = """\
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

from replicate import replicate, replicate_quietly


def line():
    return jax.make_mesh((8,), ("x",), axis_types=(AxisType.Explicit,))


def test_replicate():
    x = jax.device_put(jnp.arange(8), NamedSharding(line(), P("x")))
    assert replicate(x).tolist() == list(range(8))


def test_replicate_quietly():
    x = jax.device_put(jnp.arange(8), NamedSharding(line(), P("x")))
    assert replicate_quietly(x).tolist() == list(range(8))
"""


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_context_mesh_entered_as_a_call_result_is_bound_once(tmp_path, version):
    """`with jax.set_mesh(gather_mesh()):`, the mesh built in another module: the call is bound
    to a local just before the `with` (evaluated once, where it was) and the input moved onto
    it. As the `with`'s second item, binding it would run it before the first: reported."""
    tree = tmp_path / "replicate"
    tree.mkdir()
    (tree / "meshes.py").write_text(MESHES)
    (tree / "replicate.py").write_text(REPLICATE)
    (tree / "test_replicate.py").write_text(REPLICATE_TEST)
    (tree / "conftest.py").write_text((CALLERS / "conftest.py").read_text())
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert [(f["code"], f["line"]) for f in report["fixed"]] == [("JAX003", 12)], report
    assert [(f["code"], f["path"]) for f in report["left"]] == [
        ("JAX003", "replicate.py")
    ], report["left"]
    fixed = (tree / "replicate.py").read_text()
    assert ("    mesh = gather_mesh()\n    with jax.set_mesh(mesh):\n") in fixed
    assert "NamedSharding(mesh, jax.typeof(x).sharding.spec)" in fixed
    assert fixed.count("gather_mesh()") == 2  # the second `with` is unchanged
    assert fixed.count("jax.device_put") == 1
