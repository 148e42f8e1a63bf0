"""The recorder's provenance: where each mesh an error names was built and entered, recorded by
running real programs under both JAX tiers (jaxfix/evidence/recorder_provenance.py)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from jaxfix.evidence import recorder_provenance
from jaxfix.evidence.facts import Origin
from jaxfix.evidence.recording import RecordingDir
from jaxfix.evidence.records import read_evidence
from workflows.test_repair import command_env, python

CONFIG = """\
EVAL = {"mesh": {"shape": (4, 4), "names": ("data", "model")}}
"""
MESHES = """\
from jax.sharding import AbstractMesh


def make_abstract_mesh(cfg):
    return AbstractMesh(cfg["mesh"]["shape"], cfg["mesh"]["names"])
"""
MAIN = """\
import jax
from jax.sharding import use_abstract_mesh

from pkg import config
from pkg.meshes import make_abstract_mesh


def evaluate(mesh):
    with jax.set_mesh(mesh):
        inner = make_abstract_mesh(config.EVAL)
        with use_abstract_mesh(inner):
            pass


def legacy(mesh):
    with mesh:
        with use_abstract_mesh(mesh.abstract_mesh.update(axis_sizes=(1, 8))):
            pass


try:
    legacy(jax.make_mesh((2, 4), ("data", "model")))
except ValueError:
    pass  # caught: never recorded
evaluate(jax.make_mesh((2, 4), ("data", "model")))
"""


def _record(
    tmp_path: Path,
    version: str,
    modules: dict[str, str] | None = None,
    main: str = MAIN,
) -> dict:
    (error,) = [
        r for r in _records(tmp_path, version, modules, main) if r["kind"] == "error"
    ]
    return error


def _records(
    tmp_path: Path,
    version: str,
    modules: dict[str, str] | None = None,
    main: str = MAIN,
) -> list[dict]:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    for name, text in (modules or {"config.py": CONFIG, "meshes.py": MESHES}).items():
        (tmp_path / "pkg" / name).write_text(text)
    (tmp_path / "main.py").write_text(main)
    recording = RecordingDir()
    try:
        recording.write_patterns()
        subprocess.run(
            [python(version), "main.py"],
            cwd=tmp_path,
            env=recording.env(1, command_env(tmp_path)),
            capture_output=True,
            timeout=300,
            check=False,
        )
        records = [
            json.loads(line) for line in recording.evidence(1).read_bytes().splitlines()
        ]
    finally:
        recording.close()
    return records


def _places(frames: list[dict]) -> list[tuple[str, int, str]]:
    return [(Path(f["path"]).name, f["line"], f.get("segment") or "") for f in frames]


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_an_error_names_where_each_of_its_meshes_was_built_and_entered(
    tmp_path, version
):
    error = _record(tmp_path, version)
    assert error["code"] == "JAX002"
    new, prev = error["meshes"]["new"], error["meshes"]["prev"]
    # Outermost first: the call that ran the function, the factory's call, the constructor.
    assert _places(new["built"]) == [
        ("main.py", 25, 'evaluate(jax.make_mesh((2, 4), ("data", "model")))'),
        ("main.py", 10, "make_abstract_mesh(config.EVAL)"),
        ("meshes.py", 5, 'AbstractMesh(cfg["mesh"]["shape"], cfg["mesh"]["names"])'),
    ]
    assert "entered" not in new  # it raised on entry
    # The enclosing mesh is the abstract mesh of the one `jax.set_mesh` put in force.
    assert _places(prev["entered"])[-1] == ("main.py", 9, "jax.set_mesh(mesh)")


CONTEXT_LAYOUTS = """\
import jax
from jax.sharding import AxisType

LAYOUTS = {"cond": (2, 4)}


def layout_mesh(name):
    return jax.make_mesh(LAYOUTS[name], ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
"""
CONTEXT_OPS = """\
from jax._src import shard_map


def gather_reduced(xs, out_sharding):
    return shard_map.top_level_all_gather(xs, out_sharding)
"""
CONTEXT_MAIN = """\
import jax
import numpy as np
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

from pkg.layouts import layout_mesh
from pkg.ops import gather_reduced


def gather_conditions(mesh, cond):
    cond = jax.device_put(cond, NamedSharding(mesh, P("data")))
    layout = NamedSharding(layout_mesh("cond"), P(None, reduced={"data"}))
    with jax.set_mesh(mesh):
        return jax.jit(lambda c: gather_reduced(c, layout))(cond)


gather_conditions(
    jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2),
    np.ones((8, 4), np.float32),
)
"""


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_context_mesh_error_names_where_its_out_sharding_was_built_and_the_context_entered(
    tmp_path, version
):
    """JAX raises "Context mesh ... should match the mesh of sharding" in another frame than
    its input-mesh error, with other names for the meshes: both are recorded all the same."""
    error = _record(
        tmp_path,
        version,
        {"layouts.py": CONTEXT_LAYOUTS, "ops.py": CONTEXT_OPS},
        CONTEXT_MAIN,
    )
    assert error["code"] == "JAX003" and "Context mesh" in error["message"]
    # JAX names the program's line in its message, never the recorder's wrapper around it.
    source = error["message"].split("This error occurs at source:")[1]
    assert "ops.py:5" in source and "jaxfix" not in source
    out, context = error["meshes"]["out"], error["meshes"]["context"]
    assert (out["axis_sizes"], context["axis_sizes"]) == ([2, 4], [4, 2])
    # Outermost first: the function's call, the factory's call in it, the factory's make_mesh.
    assert [(name, line) for name, line, _ in _places(out["built"])] == [
        ("main.py", 16),
        ("main.py", 11),
        ("layouts.py", 8),
    ]
    assert _places(out["built"])[1][2] == 'layout_mesh("cond")'
    assert _places(context["entered"])[-1] == ("main.py", 12, "jax.set_mesh(mesh)")
    # The message does not print the input's mesh: the gather's caller of the raising frame
    # held it, and the recorder keeps it (behind jit too) with where the run built it.
    given = error["meshes"]["input"]
    assert given["axis_sizes"] == [4, 2]
    assert _places(given["built"])[0][:2] == ("main.py", 17)  # the make_mesh argument


SIZED = """\
import contextlib
import functools

import jax


class Plan:
    @functools.cached_property
    def batch_size(self):
        return 4 * jax.sharding.get_mesh().shape["data"]


@contextlib.contextmanager
def planned(mesh):
    with jax.sharding.use_abstract_mesh(mesh):
        yield
"""
SIZED_MAIN = """\
import jax

from pkg.sized import Plan, planned

with planned(jax.sharding.AbstractMesh((8,), ("data",))):
    Plan().batch_size
"""


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_failure_names_its_frames_and_the_contexts_it_left(tmp_path, version):
    """An error that is none of the rules' still has its frames, and the statements that
    entered the mesh contexts it left: a context manager's `with`, suspended at its `yield`,
    is in no traceback."""
    (failure,) = [
        r
        for r in _records(tmp_path, version, {"sized.py": SIZED}, SIZED_MAIN)
        if r["kind"] == "failure"
    ]
    assert failure["exception"] == "KeyError"
    places = [(n, line) for n, line, _ in _places(failure["frames"])]
    assert (places[0], places[-1]) == (("main.py", 6), ("sized.py", 10))
    ((*_, entered),) = failure["contexts"]
    assert (Path(entered["path"]).name, entered["line"]) == ("sized.py", 15)


TARGET_MESHES = """\
import os

from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P


def target_sharding():
    size = int(os.environ.get("TARGET_DEVICES", "4"))
    return NamedSharding(AbstractMesh((size,), ("x",), axis_types=(AxisType.Auto,)), P("x"))
"""
TARGET_MAIN = """\
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from pkg.meshes import target_sharding


def doubled(sharding):
    x = jax.device_put(jnp.arange(8.0), NamedSharding(jax.make_mesh((8,), ("x",)), P("x")))
    return jax.jit(lambda a: a * 2, out_shardings=sharding)(x)


doubled(target_sharding())
"""


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_mesh_jax_makes_again_while_lowering_keeps_where_the_user_built_it(
    tmp_path, version
):
    """JAX keeps one object for equal abstract meshes and makes the lowered sharding's again
    (`mesh.update(...)` on 0.12): the JAX010 record still names the user's construction, not
    the jitted call."""
    error = _record(tmp_path, version, {"meshes.py": TARGET_MESHES}, TARGET_MAIN)
    assert error["code"] == "JAX010"
    abstract = error["meshes"]["abstract"]
    assert abstract["axis_sizes"] == [4]
    assert [(name, line) for name, line, _ in _places(abstract["built"])] == [
        ("main.py", 13),
        ("meshes.py", 8),
    ]


def test_notes_are_bounded_and_go_with_their_object(monkeypatch):
    class Mesh:
        pass

    notes: dict = {}
    monkeypatch.setattr(recorder_provenance, "_MAX_OBJECTS", 3)

    def build(mesh: Mesh) -> None:
        recorder_provenance._note(notes, mesh, sys._getframe())

    meshes = [Mesh() for _ in range(5)]
    for mesh in meshes:
        build(mesh)
    assert len(notes) == 3  # the oldest two dropped
    assert recorder_provenance._looked_up(notes, meshes[0]) == ()
    (code, _, _), (caller, _, _) = recorder_provenance._looked_up(notes, meshes[4])[:2]
    assert (code.co_name, caller.co_name) == (
        "build",
        "test_notes_are_bounded_and_go_with_their_object",
    )
    del meshes[4], mesh
    gc.collect()
    assert len(notes) == 2  # a dead object's note goes with it


def _error_record(
    built: list[dict], test: str | None = None, during: str | None = None
) -> bytes:
    message = (
        "use_abstract_mesh cannot change the size of the mesh. Got new mesh: "
        "AbstractMesh('data': 4, 'model': 4, axis_types=(Auto, Auto)) with size=16 and "
        "prev mesh: AbstractMesh('data': 2, 'model': 4, axis_types=(Explicit, Explicit)) "
        "with size=8"
    )
    record = {
        "schema": "jaxfix-evidence/1",
        "kind": "error",
        "code": "JAX002",
        "exception": "ValueError",
        "message": message,
        "frames": [
            {
                "path": "/run/main.py",
                "line": 11,
                "source": "with use_abstract_mesh(inner):",
            }
        ],
        "meshes": {
            "new": {
                "kind": "abstract",
                "axis_names": ["data", "model"],
                "axis_sizes": [4, 4],
                "built": built,
                **({"built_during": during} if during is not None else {}),
            }
        },
        **({"test": test} if test is not None else {}),
    }
    return json.dumps(record).encode()


def _tree(tmp_path: Path) -> list[Path]:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "meshes.py").write_text(MESHES)
    (tmp_path / "main.py").write_text(MAIN)
    return [tmp_path / "main.py", tmp_path / "pkg" / "meshes.py"]


def _frame(path: str, line: int, segment: str | None = None) -> dict:
    return {
        "path": path,
        "line": line,
        "source": None,
        **(
            {
                "end_line": line,
                "column": 11,
                "end_column": 11 + len(segment),
                "segment": segment,
            }
            if segment
            else {}
        ),
    }


FACTORY = (
    "/run/pkg/meshes.py",
    5,
    'AbstractMesh(cfg["mesh"]["shape"], cfg["mesh"]["names"])',
)


def test_an_evidence_record_places_where_its_meshes_were_built_in_the_tree(tmp_path):
    main, meshes = _tree(tmp_path)
    built = [_frame("/run/main.py", 10), _frame(*FACTORY)]
    reading = read_evidence(_error_record(built), [main, meshes])
    (evidence,) = reading.evidence[main]
    # the factory's call keeps its columns (its text is still there); main.py's has none
    assert evidence.origins == (
        Origin(
            "new",
            "built",
            ((main, 10), (meshes, 5)),
            evidence.facts[0],
            columns=(None, (11, 11 + len(FACTORY[2]))),
        ),
    )
    # each chain keeps its record's own meshes (a line reached by several tests)
    assert evidence.origins[0].facts is not None
    assert evidence.origins[0].facts["new"].axis_sizes == (4, 4)
    assert (
        evidence.origins[0].describe(tmp_path)
        == "pkg/meshes.py:5, called from main.py:10"
    )


@pytest.mark.parametrize(
    ("during", "kind"),
    [
        ("main.py::test_other (call)", "cached"),  # another test's body built it
        ("main.py::test_run (call)", "built"),  # its own
        ("main.py::test_other (setup)", "built"),  # a fixture builds for what follows
        ("x" * 3000, "built"),  # not a test's name
    ],
)
def test_a_mesh_another_tests_body_built_is_kept_apart_with_the_records_path(
    tmp_path, during, kind
):
    """A memoized factory hands a later test the mesh an earlier test's body built: those
    creation frames are not this test's path (`cached`, with the record's own frames to the
    raising line); a fixture's setup, or the test's own body, built it for this test."""
    main, meshes = _tree(tmp_path)
    built = [_frame("/run/main.py", 10), _frame(*FACTORY)]
    reading = read_evidence(
        _error_record(built, "main.py::test_run", during), [main, meshes]
    )
    (evidence,) = reading.evidence[main]
    (origin,) = evidence.origins
    assert (origin.kind, origin.frames) == (kind, ((main, 10), (meshes, 5)))
    assert origin.reached == (((main, 11),) if kind == "cached" else ())


@pytest.mark.parametrize(
    "forged",
    [
        _frame("/etc/passwd", 1),  # a file outside the tree
        _frame("/run/pkg/meshes.py", 5, "AbstractMesh((4, 4), names)"),  # changed since
        _frame("/run/pkg/meshes.py", 99),  # no such line
        {"path": 3, "line": "five"},  # not a frame
    ],
)
def test_a_forged_creation_frame_is_never_walked(tmp_path, forged):
    main, meshes = _tree(tmp_path)
    built = [_frame("/run/main.py", 10), forged]
    reading = read_evidence(_error_record(built), [main, meshes])
    (evidence,) = reading.evidence[main]  # the error itself is still placed
    assert evidence.origins == ()  # the chain ends at its innermost frame


def _repair(tmp_path: Path, version: str) -> dict:
    env = command_env(tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "repair",
            "-q",
            "--unsafe-fixes",
            "--format",
            "json",
            ".",
            "--",
            python(version),
            "main.py",
        ],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        timeout=300,
        check=False,
    )
    return json.loads(done.stdout)


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_repair_resizes_the_config_entry_the_run_built_the_mesh_from(tmp_path, version):
    """The sizes come from a config dict through a factory's parameter, which static reading
    does not follow: the walk along the run's frames reaches the dict entry, which is resized;
    the program then runs."""
    _tree(tmp_path)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "config.py").write_text(CONFIG)
    report = _repair(tmp_path, version)
    assert report["passed"], report
    (fixed,) = report["fixed"]
    assert (fixed["code"], fixed["path"], fixed["line"]) == ("JAX002", "main.py", 11)
    assert "EVAL['mesh']['shape'], pkg/config.py:1" in fixed["detail"], fixed
    assert (tmp_path / "pkg" / "config.py").read_text() == CONFIG.replace(
        "(4, 4)", "(2, 4)"
    )


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_repair_names_where_the_run_built_a_mesh_it_cannot_follow(tmp_path, version):
    """A computed config entry ends the walk: nothing is written, and the report names the
    factory line, the callers it came through, and the step the walk stopped at."""
    _tree(tmp_path)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    computed = CONFIG.replace("(4, 4)", "(4,) * 2")
    (tmp_path / "pkg" / "config.py").write_text(computed)
    report = _repair(tmp_path, version)
    (left,) = report["left"]
    assert (left["code"], left["line"]) == ("JAX002", 11)
    assert left["detail"].endswith(
        "the run built the inner mesh at pkg/meshes.py:5, called from main.py:10, called from main.py:25; "
        "`(4,) * 2` at config.py:1 is computed, not a value jaxfix follows"
    ), left["detail"]
    assert (tmp_path / "pkg" / "config.py").read_text() == computed  # nothing written


def _recorded(tmp_path: Path, version: str) -> Path:
    """The evidence file of one recorded run of main.py (kept, for `--evidence`)."""
    recording = RecordingDir()
    try:
        recording.write_patterns()
        subprocess.run(
            [python(version), "main.py"],
            cwd=tmp_path,
            env=recording.env(1, command_env(tmp_path)),
            capture_output=True,
            timeout=300,
            check=False,
        )
        kept = tmp_path / "evidence.jsonl"
        kept.write_bytes(recording.evidence(1).read_bytes())
    finally:
        recording.close()
    return kept


ALL_FORMATS = ("text", "json", "sarif", "rdjson", "github", "gitlab")


def _formats(
    tmp_path: Path, evidence: Path, *args: str, names: tuple[str, ...] = ("json",)
) -> dict[str, str]:
    """What `jaxfix --evidence FILE --check` prints in each of these output formats."""
    out = {}
    for name in names:
        done = subprocess.run(
            [sys.executable, "-m", "jaxfix", "--evidence", str(evidence), "--check"]
            + ["--no-cache", "--output-format", name, *args, "."],
            cwd=tmp_path,
            env={
                **command_env(tmp_path),
                "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            },
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        out[name] = done.stdout
    return out


@pytest.mark.jax
def test_report_only_names_the_origin_in_every_format(tmp_path):
    """The walk stops at a computed entry: no fix, and the places the run built the inner mesh
    (pkg/meshes.py:5, then its callers) are related locations in every format, with their
    paths (before, a related location had no path: only the message named them)."""
    _tree(tmp_path)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "config.py").write_text(CONFIG.replace("(4, 4)", "(4,) * 2"))
    shown = _formats(tmp_path, _recorded(tmp_path, JAX_VERSIONS[0]), names=ALL_FORMATS)
    (result,) = [f for f in json.loads(shown["json"])["files"] if f["diagnostics"]]
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["fix"] is None
    assert [(r.get("path"), r["start"]["line"]) for r in diagnostic["related"]] == [
        (None, 9),  # the enclosing mesh, in the diagnostic's own file
        ("pkg/meshes.py", 5),
        ("main.py", 10),
        ("main.py", 25),
    ]
    (sarif,) = json.loads(shown["sarif"])["runs"][0]["results"]
    assert [
        (
            r["physicalLocation"]["artifactLocation"]["uri"],
            r["physicalLocation"]["region"]["startLine"],
        )
        for r in sarif["relatedLocations"]
    ][1] == ("pkg/meshes.py", 5)
    (rdjson,) = json.loads(shown["rdjson"])["diagnostics"]
    assert rdjson["related_locations"][1]["location"] == {
        "path": "pkg/meshes.py",
        "range": {"start": {"line": 5}},
    }
    assert "%0Apkg/meshes.py:5: the run built the inner mesh here" in shown["github"]
    assert (
        "\npkg/meshes.py:5: the run built the inner mesh here"
        in json.loads(shown["gitlab"])[0]["description"]
    )
    assert "    pkg/meshes.py:5:1: the run built the inner mesh here" in shown["text"]


LAUNCH = """\
import os

import jax
from jax.sharding import AxisType


def launched_mesh():
    shape = tuple(int(s) for s in os.environ.get("MESH_SHAPE", "4,2").split(","))
    return jax.make_mesh(shape, ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
"""
LAUNCH_MAIN = """\
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

from pkg.launch import launched_mesh


def zeros_on(mesh):
    return jnp.zeros((8, 8), out_sharding=NamedSharding(mesh, P("data", "model")))


with jax.set_mesh(jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)):
    zeros_on(launched_mesh())
"""


@pytest.mark.jax
def test_an_out_sharding_sized_by_the_environment_names_its_origin_in_every_format(
    tmp_path,
):
    """JAX011 on a mesh whose shape an environment variable gives: no fix; the report names
    where the variable is read (`pkg/launch.py:8`, from the project) and the sizes that would
    match the context mesh, and every format carries that place as a related location."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "launch.py").write_text(LAUNCH)
    (tmp_path / "main.py").write_text(LAUNCH_MAIN)
    shown = _formats(tmp_path, _recorded(tmp_path, JAX_VERSIONS[0]), names=ALL_FORMATS)
    (result,) = [f for f in json.loads(shown["json"])["files"] if f["diagnostics"]]
    (diagnostic,) = result["diagnostics"]
    assert (diagnostic["code"], diagnostic["fix"]) == ("JAX011", None)
    assert "the out mesh's sizes (data 4, model 2) come from " in diagnostic["message"]
    assert (
        "at pkg/launch.py:8, computed from the environment variable MESH_SHAPE when it "
        "runs: set them to (data 2, model 4), the context mesh's sizes"
    ) in diagnostic["message"]
    assert [(r.get("path"), r["start"]["line"]) for r in diagnostic["related"]] == [
        ("pkg/launch.py", 8)
    ]
    (sarif,) = json.loads(shown["sarif"])["runs"][0]["results"]
    (related,) = sarif["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "pkg/launch.py"
    assert "%0Apkg/launch.py:8: " in shown["github"]
    assert "\npkg/launch.py:8: " in json.loads(shown["gitlab"])[0]["description"]
    assert "    pkg/launch.py:8:" in shown["text"]


@pytest.mark.jax
def test_the_value_a_fix_resizes_points_back_to_the_line_that_raised(tmp_path):
    """The config entry gets the fix; its report's related location is the raising line in
    main.py, and the raising line's report points at the entry."""
    _tree(tmp_path)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "config.py").write_text(CONFIG)
    shown = _formats(tmp_path, _recorded(tmp_path, JAX_VERSIONS[0]), "--unsafe-fixes")
    found = {
        (f["path"], d["start"]["line"]): [
            (r.get("path"), r["start"]["line"], r["message"]) for r in d["related"]
        ]
        for f in json.loads(shown["json"])["files"]
        for d in f["diagnostics"]
    }
    assert found[("pkg/config.py", 1)] == [
        (
            "main.py",
            11,
            "the JAX002 error this value makes: use_abstract_mesh entered inside a mesh of size 8",
        )
    ]


JSON_MESHES = """\
import json
import pathlib

from jax.sharding import AbstractMesh

STAGES = json.loads(pathlib.Path(__file__).with_name("stages.json").read_text())


def eval_mesh():
    return AbstractMesh((STAGES["eval"]["data"], 4), ("data", "model"))
"""
JSON_MAIN = """\
import jax
from jax.sharding import use_abstract_mesh

from pkg.meshes import eval_mesh

with jax.set_mesh(jax.make_mesh((2, 4), ("data", "model"))):
    with use_abstract_mesh(eval_mesh()):
        pass
"""


def _json_project(tmp_path: Path, meshes: str) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "stages.json").write_text('{"eval": {"data": 16}}\n')
    (tmp_path / "pkg" / "meshes.py").write_text(meshes)
    (tmp_path / "main.py").write_text(JSON_MAIN)


@pytest.mark.jax
def test_a_size_read_from_a_json_config_is_set_in_the_file(tmp_path):
    """The inner mesh's size of 'data' alone is a JSON entry (`(STAGES["eval"]["data"], 4)`),
    read in another module: the fix sets that integer in the file (the axis JAX's message
    shows differing), and the related location names the entry and what to set it to."""
    _json_project(tmp_path, JSON_MESHES)
    shown = _formats(tmp_path, _recorded(tmp_path, JAX_VERSIONS[0]), "--unsafe-fixes")
    (result,) = [f for f in json.loads(shown["json"])["files"] if f["diagnostics"]]
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["fix"]["title"] == 'set "data" (pkg/stages.json:1) to 2'
    assert {
        "message": "pkg/stages.json:1: \"data\" is 16, the size of axis 'data' of the "
        "inner mesh (16, 4); the enclosing mesh has size 8: set it to 2",
        "start": {"line": 1, "column": 19},
        "path": "pkg/stages.json",
    } in diagnostic["related"]
    assert (tmp_path / "pkg" / "stages.json").read_text() == '{"eval": {"data": 16}}\n'


@pytest.mark.jax
def test_a_size_read_from_a_json_config_names_the_read_by_its_path(tmp_path):
    """The same entry also read by another mesh of the module (which may work): not
    changed; reported with the value to set, the read named by its path (before: "read at
    line 6", which file unsaid), and a related location there saying what to set."""
    _json_project(
        tmp_path,
        JSON_MESHES
        + '\n\ndef probe_mesh():\n    return AbstractMesh((STAGES["eval"]["data"],), ("data",))\n',
    )
    shown = _formats(tmp_path, _recorded(tmp_path, JAX_VERSIONS[0]), "--unsafe-fixes")
    (result,) = [f for f in json.loads(shown["json"])["files"] if f["diagnostics"]]
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["fix"] is None
    assert (
        "axis 'data' is read from stages.json['eval']['data'] (read at pkg/meshes.py:6): "
        "set it to 2" in diagnostic["message"]
    )
    assert {
        "message": "axis 'data' is read here from stages.json['eval']['data']: set it to 2",
        "start": {"line": 6, "column": 1},
        "path": "pkg/meshes.py",
    } in diagnostic["related"]
    assert (tmp_path / "pkg" / "stages.json").read_text() == '{"eval": {"data": 16}}\n'
