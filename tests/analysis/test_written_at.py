"""The walk from a recorded mesh's creation frame to where its sizes are written
(jaxfix/analysis/ast_engine/written_at.py), and the rule's report there (no JAX run: the
frames and facts are what a record would hold)."""

from __future__ import annotations

import ast
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.values import Unknown
from jaxfix.analysis.ast_engine.written_at import Computed, written_at
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.check.value_sites import with_value_sites
from jaxfix.evidence.facts import Evidence, Facts, MeshFacts, Origin
from jaxfix.settings.options import Options
from jaxfix.write.data_edits import write_data_edits

MESHES = """\
from jax.sharding import AbstractMesh


def make(cfg):
    return AbstractMesh(cfg["shape"], ("data", "model"))
"""
MAIN = """\
from jax.sharding import use_abstract_mesh

from config import EVAL
from meshes import make


def run(outer):
    with use_abstract_mesh(outer):
        with use_abstract_mesh(make(EVAL)):
            pass
"""


def _tree(tmp_path: Path, config: str) -> list[Path]:
    files = {"config.py": config, "meshes.py": MESHES, "main.py": MAIN}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return [tmp_path / name for name in files]


def _frames(tmp_path: Path) -> tuple[tuple[Path, int], ...]:
    return ((tmp_path / "main.py", 9), (tmp_path / "meshes.py", 5))


def _walk(tmp_path: Path, config: str):
    _tree(tmp_path, config)
    engine = Engine((tmp_path,), (), None)
    return written_at(engine.evaluator, _frames(tmp_path))


def test_a_dict_entry_through_a_parameter_is_reached(tmp_path):
    found = _walk(tmp_path, 'EVAL = {"shape": (4, 4)}\n')
    assert not isinstance(found, Unknown)
    assert (found.module.path.name, found.module.line(found.node)) == ("config.py", 1)
    assert found.name == "EVAL['shape']" and found.why is None


def test_a_computed_value_ends_the_walk(tmp_path):
    found = _walk(tmp_path, 'EVAL = {"shape": (4,) * 2}\n')
    assert isinstance(found, Unknown) and "is computed" in found.why


def test_a_name_bound_twice_ends_the_walk(tmp_path):
    found = _walk(tmp_path, 'EVAL = {"shape": (4, 4)}\nEVAL = {"shape": (2, 4)}\n')
    assert isinstance(found, Unknown)


def test_a_frame_on_a_line_that_builds_no_mesh_ends_the_walk(tmp_path):
    _tree(tmp_path, 'EVAL = {"shape": (4, 4)}\n')
    engine = Engine((tmp_path,), (), None)
    forged = ((tmp_path / "main.py", 9), (tmp_path / "meshes.py", 4))
    assert isinstance(written_at(engine.evaluator, forged), Unknown)


def _evidence(tmp_path: Path) -> Evidence:
    new = MeshFacts("abstract", ("data", "model"), (4, 4), None, False)
    prev = MeshFacts("abstract", ("data", "model"), (2, 4), None, False)
    return Evidence(
        "JAX002",
        9,
        (1,),
        (Facts.of({"new": new, "prev": prev}),),
        origin="evidence record",
        origins=(Origin("new", "built", _frames(tmp_path)),),
    )


def test_the_entry_is_resized_and_the_raising_line_says_where(tmp_path):
    files = [p.resolve() for p in _tree(tmp_path, 'EVAL = {"shape": (4, 4)}\n')]
    options = Options(unsafe_fixes=True)
    evidence = with_value_sites(
        {(tmp_path / "main.py").resolve(): (_evidence(tmp_path),)}, Run(options), files
    )
    config = (tmp_path / "config.py").resolve()
    result = check_file(
        Run(options), config, config.read_bytes(), evidence=evidence.get(config, ())
    )
    assert result.fixed == b'EVAL = {"shape": (2, 4)}\n'
    (diagnostic,) = result.diagnostics
    assert diagnostic.message.startswith(
        "`EVAL['shape']` is (4, 4): the run built the inner mesh of the JAX002 error at main.py:9"
    )
    main = (tmp_path / "main.py").resolve()
    (raised,) = check_file(
        Run(options), main, main.read_bytes(), evidence=evidence[main]
    ).diagnostics
    assert raised.message.endswith(
        "the run built the inner mesh from `EVAL['shape']`, written at config.py:1: its fix goes there"
    )


def test_a_value_changed_since_the_run_is_left_alone(tmp_path):
    """The config now holds other sizes than the run's mesh: no report, no fix there."""
    files = [p.resolve() for p in _tree(tmp_path, 'EVAL = {"shape": (4, 4)}\n')]
    options = Options(unsafe_fixes=True)
    evidence = with_value_sites(
        {(tmp_path / "main.py").resolve(): (_evidence(tmp_path),)}, Run(options), files
    )
    (tmp_path / "config.py").write_text('EVAL = {"shape": (8, 4)}\n')
    config = (tmp_path / "config.py").resolve()
    result = check_file(
        Run(options), config, config.read_bytes(), evidence=evidence.get(config, ())
    )
    assert result.fixed is None and result.diagnostics == ()


def test_without_unsafe_fixes_the_value_site_says_what_its_fix_would_be(tmp_path):
    files = [p.resolve() for p in _tree(tmp_path, 'EVAL = {"shape": (4, 4)}\n')]
    options = Options()
    evidence = with_value_sites(
        {(tmp_path / "main.py").resolve(): (_evidence(tmp_path),)}, Run(options), files
    )
    config = (tmp_path / "config.py").resolve()
    result = check_file(
        Run(options), config, config.read_bytes(), evidence=evidence.get(config, ())
    )
    (diagnostic,) = result.diagnostics
    assert result.fixed is None and not diagnostic.applied
    assert (
        diagnostic.fix_title
        == "resize the inner mesh to (2, 4) where its sizes are written"
    )


JSON_CONFIG = """\
import json

with open("stages.json") as f:
    EVAL = json.load(f)["eval"]
"""
STAGES = (
    '{\n  "train": {"shape": [2, 4]},\n  "eval": {"shape": [4,  4], "batch": 4}\n}\n'
)


def _json_project(tmp_path: Path, stages: str = STAGES, cwd: Path | None = None):
    """The project in tmp_path/proj, its config loading stages.json from the directory the run
    ran in (`cwd`, the project's by default); the raising line's evidence and result."""
    project = tmp_path / "proj"
    project.mkdir()
    files = [p.resolve() for p in _tree(project, JSON_CONFIG)]
    where = cwd or project
    where.mkdir(parents=True, exist_ok=True)
    (where / "stages.json").write_text(stages)
    options = Options(unsafe_fixes=True)
    run = Run(options, project=(project,))
    main = (project / "main.py").resolve()
    item = replace(_evidence(project), cwds=(where,))
    evidence = with_value_sites({main: (item,)}, run, files)
    result = check_file(run, main, main.read_bytes(), evidence=evidence[main])
    return evidence[main][0], result, where / "stages.json"


def test_a_json_entry_is_changed_at_its_integer_alone(tmp_path):
    item, result, stages = _json_project(tmp_path)
    assert item.value_site is not None and item.value_site.entry is not None
    (diagnostic,) = result.diagnostics
    assert result.fixed is None and diagnostic.applied
    assert (
        'the run read the inner mesh\'s sizes from stages.json:3: "shape" is [4,  4]; '
        "the enclosing mesh has size 8: set it to [2, 4] or [4, 2]"
    ) in diagnostic.message
    (related,) = [r for r in diagnostic.related if r.path == stages.resolve()]
    assert (related.start.line, related.start.column) == (3, 21)
    assert diagnostic.fix_title == 'set "shape" (stages.json:3) to [2, 4]'
    (written,) = write_data_edits([result])
    assert written.diagnostics[0].applied
    assert stages.read_text() == STAGES.replace("[4,  4]", "[2,  4]")


def test_a_json_file_changed_before_the_write_is_left_alone(tmp_path):
    _, result, stages = _json_project(tmp_path)
    stages.write_text(STAGES.replace('"batch": 4', '"batch": 2'))
    (written,) = write_data_edits([result])
    (diagnostic,) = written.diagnostics
    assert not diagnostic.applied
    assert diagnostic.message.endswith(
        "(stages.json changed since the run: not written)"
    )
    assert '"batch": 2' in stages.read_text() and "[4,  4]" in stages.read_text()


def test_a_json_entry_that_holds_other_sizes_now_gets_no_fix(tmp_path):
    item, result, _ = _json_project(tmp_path, STAGES.replace("[4,  4]", "[8, 4]"))
    assert item.value_site is None
    assert item.value_unknown == (
        "stages.json:3: stages.json['eval']['shape'] now holds [8, 4], not the run's [4, 4] "
        "(changed since the run): not written"
    )
    (diagnostic,) = result.diagnostics
    assert diagnostic.fix_title is None and not diagnostic.data_edits


def test_a_json_file_outside_the_project_or_in_git_gets_no_fix(tmp_path):
    for cwd, why in (
        (tmp_path / "elsewhere", "a file outside the project's tree"),
        (tmp_path / "proj" / ".git", "a file in .git"),
    ):
        item, result, stages = _json_project(tmp_path, cwd=cwd)
        assert item.value_site is None and why in (item.value_unknown or ""), cwd
        (diagnostic,) = result.diagnostics
        assert diagnostic.fix_title is None and not diagnostic.data_edits
        shutil.rmtree(tmp_path / "proj")
        if cwd.exists():
            shutil.rmtree(cwd)


def test_a_json_entry_read_off_the_run_s_path_is_not_changed(tmp_path):
    """Another read of the same entry (`STAGES["eval"]` passed elsewhere) may feed a mesh that
    works: the walk stops there, naming the read."""
    project = tmp_path / "proj"
    project.mkdir()
    _tree(project, JSON_CONFIG + 'OTHER = EVAL["shape"]\n')
    engine = Engine((project,), (), None)
    found = written_at(engine.evaluator, _frames(project))
    assert isinstance(found, Unknown)
    assert "stages.json['eval']['shape'] is also read at config.py:5" in found.why


YAML_CONFIG = """\
from pathlib import Path

import yaml

EVAL = yaml.safe_load((Path(__file__).parent / "stages.yaml").read_text())["eval"]
"""
YAML_STAGES = """\
train:
  shape: [2, 4]
eval:
  batch: 4  # per device
  shape:
    - 4
    - 4
"""


def _yaml_project(tmp_path: Path, stages: str):
    project = tmp_path / "proj"
    project.mkdir()
    files = [p.resolve() for p in _tree(project, YAML_CONFIG)]
    (project / "stages.yaml").write_text(stages)
    run = Run(Options(unsafe_fixes=True), project=(project,))
    main = (project / "main.py").resolve()
    evidence = with_value_sites({main: (_evidence(project),)}, run, files)
    result = check_file(run, main, main.read_bytes(), evidence=evidence[main])
    return evidence[main][0], result, project / "stages.yaml"


@pytest.fixture(params=["pyyaml", "subset"])
def yaml_reader(request, monkeypatch):
    """Each YAML test with PyYAML's composer, and without PyYAML (jaxfix does not depend on
    it): the plain subset jaxfix/write/yaml_subset.py reads."""
    if request.param == "subset":
        monkeypatch.setitem(
            sys.modules, "yaml", None
        )  # `import yaml` raises ImportError
    return request.param


def test_a_yaml_entry_beside_the_module_is_changed_at_its_integer_alone(
    tmp_path, yaml_reader
):
    item, result, stages = _yaml_project(tmp_path, YAML_STAGES)
    (diagnostic,) = result.diagnostics
    assert diagnostic.applied and diagnostic.fix_title == (
        'set "shape" (stages.yaml:6) to [2, 4]'
    )
    assert 'stages.yaml:6: "shape" is [4, 4]' in diagnostic.message
    write_data_edits([result])
    assert stages.read_text() == YAML_STAGES.replace(
        "    - 4\n    - 4", "    - 2\n    - 4"
    )


def test_a_yaml_entry_an_alias_reuses_is_not_changed(tmp_path, yaml_reader):
    shared = YAML_STAGES.replace(
        "  shape:\n    - 4\n    - 4\n", "  shape: *wide\n"
    ).replace("train:", "wide: &wide [4, 4]\ntrain:")
    item, result, stages = _yaml_project(tmp_path, shared)
    assert item.value_site is None
    assert "is an anchor other entries reuse" in (item.value_unknown or "")
    (diagnostic,) = result.diagnostics
    assert not diagnostic.data_edits and stages.read_text() == shared


@pytest.mark.parametrize("into", ["git", "outside"])
def test_a_json_file_made_a_symlink_after_the_check_is_not_written(tmp_path, into):
    """Checked inside the tree, then made a link into .git or out of the tree before the
    write: the write resolves the file again and leaves both files as they were."""
    _, result, stages = _json_project(tmp_path)
    target = (
        tmp_path / "proj" / ".git" / "stages.json"
        if into == "git"
        else tmp_path / "elsewhere" / "stages.json"
    )
    target.parent.mkdir()
    target.write_bytes(stages.read_bytes())
    stages.unlink()
    stages.symlink_to(target)
    (written,) = write_data_edits([result], (str((tmp_path / "proj").resolve()),))
    assert not written.diagnostics[0].applied
    assert target.read_text() == STAGES


def _walk_files(tmp_path: Path, files: dict[str, str], frames):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    engine = Engine((tmp_path,), tuple(tmp_path / name for name in files), None)
    return written_at(
        engine.evaluator, tuple((tmp_path / name, line) for name, line in frames)
    )


UNPACKING = """\
from jax.sharding import AbstractMesh

LAYOUTS = {"eval": ((4, 4), ("data", "model")), "train": ((2, 4), ("data", "model"))}


def make(layout):
    shape, names = layout
    return AbstractMesh(shape, names)


def run():
    return make(LAYOUTS["eval"])
"""


def test_sizes_unpacked_from_a_layout_are_its_first_element(tmp_path):
    found = _walk_files(
        tmp_path, {"main.py": UNPACKING}, [("main.py", 12), ("main.py", 8)]
    )
    assert not isinstance(found, Unknown), found
    assert found.module.line(found.node) == 3
    assert found.name == "LAYOUTS['eval'][0]"
    assert found.node.col_offset == UNPACKING.splitlines()[2].index("(4, 4)")


def test_a_nested_unpacking_reads_the_element_at_each_level(tmp_path):
    source = UNPACKING.replace(
        "shape, names = layout", "(shape, names), extra = layout, 1"
    )
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 12), ("main.py", 8)]
    )
    assert not isinstance(found, Unknown) and found.name == "LAYOUTS['eval'][0]"


@pytest.mark.parametrize(
    ("unpack", "why"),
    [
        ("shape, *names = layout", "not a plain assignment"),  # a starred target
        ("names, shape = reversed(layout)", "is computed"),  # not read off the literal
    ],
)
def test_an_unpacking_the_walk_cannot_read_ends_it(tmp_path, unpack, why):
    source = UNPACKING.replace("shape, names = layout", unpack)
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 12), ("main.py", 8)]
    )
    assert isinstance(found, Unknown) and why in found.why, found


KEYED = """\
from jax.sharding import AbstractMesh

STAGES = {"wide": {"shape": (4, 4)}, "narrow": {"shape": (4, 4)}}


def make(name):
    return AbstractMesh(STAGES[name]["shape"], ("data", "model"))


def stage(name):
    return make(name)


def run():
    return stage({key})
"""


def test_a_key_the_callers_pass_down_is_the_literal_one_of_them_passes(tmp_path):
    found = _walk_files(
        tmp_path,
        {"main.py": KEYED.replace("{key}", '"narrow"')},
        [("main.py", 15), ("main.py", 11), ("main.py", 7)],
    )
    assert not isinstance(found, Unknown), found
    assert found.name == "STAGES['narrow']['shape']"
    assert found.module.line(found.node) == 3
    assert found.node.col_offset == KEYED.splitlines()[2].rindex("(4, 4)")


@pytest.mark.parametrize("key", ["NAME", "'nar' + 'row'"])
def test_a_key_no_caller_passes_as_a_literal_ends_the_walk(tmp_path, key):
    found = _walk_files(
        tmp_path,
        {"main.py": KEYED.replace("{key}", key) + 'NAME = "narrow"\n'},
        [("main.py", 15), ("main.py", 11), ("main.py", 7)],
    )
    assert isinstance(found, Unknown) and "literal key" in found.why


def test_a_key_with_a_forged_caller_frame_ends_the_walk(tmp_path):
    found = _walk_files(
        tmp_path,
        {"main.py": KEYED.replace("{key}", '"narrow"')},
        [("main.py", 3), ("main.py", 11), ("main.py", 7)],
    )
    assert isinstance(found, Unknown)


HELD = """\
from jax.sharding import AbstractMesh


class Holder:
    def __init__(self, shape):
        self.shape = shape
{extra}

def make():
    return Holder({sizes})


def run():
    return AbstractMesh(make().shape, ("data", "model"))
"""


def test_an_attribute_set_in_init_from_a_call_the_run_left_is_followed(tmp_path):
    source = HELD.format(extra="", sizes="(4, 4)")
    found = _walk_files(tmp_path, {"main.py": source}, [("main.py", 14)])
    assert not isinstance(found, Unknown), found
    assert found.module.line(found.node) == 10


@pytest.mark.parametrize(
    ("extra", "sizes", "why"),
    [
        (
            "\n    def grow(self):\n        self.shape = (8, 8)\n",
            "(4, 4)",
            "does not set `shape` once",
        ),
        ("", "(n, 4)", "reaches"),  # a name the call's function does not bind
    ],
)
def test_an_attribute_set_elsewhere_too_or_computed_ends_the_walk(
    tmp_path, extra, sizes, why
):
    source = HELD.format(extra=extra, sizes=sizes)
    line = (
        source.splitlines().index(
            '    return AbstractMesh(make().shape, ("data", "model"))'
        )
        + 1
    )
    found = _walk_files(tmp_path, {"main.py": source}, [("main.py", line)])
    assert isinstance(found, Unknown), found


def test_a_function_that_returns_twice_ends_the_walk(tmp_path):
    source = HELD.format(extra="", sizes="(4, 4)").replace(
        "def make():\n",
        "def make(flag=False):\n    if flag:\n        return Holder((2, 4))\n",
    )
    line = (
        source.splitlines().index(
            '    return AbstractMesh(make().shape, ("data", "model"))'
        )
        + 1
    )
    found = _walk_files(tmp_path, {"main.py": source}, [("main.py", line)])
    assert isinstance(found, Unknown) and "does not return once" in found.why


def test_sizes_a_function_returns_to_every_caller_are_not_changed(tmp_path):
    source = (
        HELD.format(extra="", sizes="(4, 4)") + "\n\ndef other():\n    return make()\n"
    )
    found = _walk_files(tmp_path, {"main.py": source}, [("main.py", 14)])
    assert isinstance(found, Unknown) and "called elsewhere too" in found.why


# -- sizes written one a place: the axis JAX's message shows differing, followed alone -----

SCALAR_MESHES = """\
from jax.sharding import AbstractMesh


def make(cfg):
    return AbstractMesh((cfg.dp, cfg.tp), ("data", "model"))
"""
SCALAR_MAIN = """\
from jax.sharding import use_abstract_mesh

from config import EVAL
from meshes import make


def run(outer):
    with use_abstract_mesh(outer):
        with use_abstract_mesh(make(EVAL)):
            pass
"""
SCALAR_CONFIG = """\
import dataclasses

WIDE = 4


@dataclasses.dataclass
class Axes:
    dp: int = 1
    tp: int = 8


EVAL = Axes(dp=4, tp=4)
"""


def _scalar_tree(tmp_path: Path, config: str) -> list[Path]:
    files = {"config.py": config, "meshes.py": SCALAR_MESHES, "main.py": SCALAR_MAIN}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return [(tmp_path / name).resolve() for name in files]


def _scalar_walk(tmp_path: Path, config: str, axis: int | None):
    _scalar_tree(tmp_path, config)
    engine = Engine((tmp_path,), tuple(tmp_path.glob("*.py")), None)
    return written_at(engine.evaluator, _frames(tmp_path), axis)


def test_one_axis_s_keyword_is_where_its_size_is_written(tmp_path):
    found = _scalar_walk(tmp_path, SCALAR_CONFIG, 0)
    assert not isinstance(found, Unknown), found
    assert found.axis == 0 and found.keyword is None
    assert (found.module.path.name, found.module.line(found.node)) == ("config.py", 12)
    assert ast.unparse(found.node) == "4" and found.node.col_offset == 15


def test_sizes_written_one_a_place_without_an_axis_to_follow_end_the_walk(tmp_path):
    """No axis (the records disagree, or no one axis differs): the walk follows only one
    literal holding every size, as before."""
    found = _scalar_walk(tmp_path, SCALAR_CONFIG, None)
    assert isinstance(found, Unknown) and "are not integer literals" in found.why


def test_one_axis_s_size_read_from_a_shared_constant_is_replaced_at_this_read(tmp_path):
    config = SCALAR_CONFIG.replace("Axes(dp=4, tp=4)", "Axes(dp=WIDE, tp=4)")
    config += "WIDE_AXES = Axes(dp=WIDE, tp=4)\n"
    found = _scalar_walk(tmp_path, config, 0)
    assert not isinstance(found, Unknown), found
    assert found.axis == 0 and ast.unparse(found.node) == "WIDE"
    assert found.module.line(found.node) == 12 and "also read" in (found.why or "")


def test_one_axis_s_computed_size_ends_the_walk_naming_it(tmp_path):
    config = SCALAR_CONFIG.replace("Axes(dp=4, tp=4)", "Axes(dp=WIDE * 1, tp=4)")
    found = _scalar_walk(tmp_path, config, 0)
    assert isinstance(found, Unknown) and "`WIDE * 1` at config.py:12" in found.why


def test_the_scalar_resize_is_made_at_the_keyword_s_integer(tmp_path):
    files = _scalar_tree(tmp_path, SCALAR_CONFIG)
    options = Options(unsafe_fixes=True)
    evidence = with_value_sites(
        {(tmp_path / "main.py").resolve(): (_evidence(tmp_path),)}, Run(options), files
    )
    config = (tmp_path / "config.py").resolve()
    result = check_file(
        Run(options), config, config.read_bytes(), evidence=evidence.get(config, ())
    )
    assert result.fixed == SCALAR_CONFIG.replace("dp=4,", "dp=2,").encode()
    (diagnostic,) = result.diagnostics
    assert diagnostic.fix_title == "set axis 'data' to 2 where its size is written"


def test_a_scalar_changed_since_the_run_is_left_alone(tmp_path):
    files = _scalar_tree(tmp_path, SCALAR_CONFIG)
    options = Options(unsafe_fixes=True)
    evidence = with_value_sites(
        {(tmp_path / "main.py").resolve(): (_evidence(tmp_path),)}, Run(options), files
    )
    (tmp_path / "config.py").write_text(SCALAR_CONFIG.replace("dp=4,", "dp=8,"))
    config = (tmp_path / "config.py").resolve()
    result = check_file(
        Run(options), config, config.read_bytes(), evidence=evidence.get(config, ())
    )
    assert result.fixed is None and result.diagnostics == ()


SCALAR_JSON_CONFIG = """\
import dataclasses
import json
import os

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs", "args.json")


@dataclasses.dataclass
class Args:
    dp: int = 1
    tp: int = 1

    @classmethod
    def from_file(cls, path=PATH):
        with open(path) as f:
            raw = json.load(f)
        return cls(**raw)


EVAL = Args.from_file()
"""
ARGS = '{\n  "dp": 4,\n  "tp": 4\n}\n'


def _scalar_json_project(
    tmp_path: Path, args: str = ARGS, config: str = SCALAR_JSON_CONFIG
):
    project = tmp_path / "proj"
    project.mkdir()
    files = _scalar_tree(project, config)
    (project / "configs").mkdir()
    (project / "configs" / "args.json").write_text(args)
    # the project's files: `.dp` is counted over them (read once, on the run's path)
    run = replace(
        Run(Options(unsafe_fixes=True), project=(project,)), scope=tuple(files)
    )
    main = (project / "main.py").resolve()
    evidence = with_value_sites({main: (_evidence(project),)}, run, files)
    result = check_file(run, main, main.read_bytes(), evidence=evidence[main])
    return evidence[main][0], result, project / "configs" / "args.json"


def test_a_json_scalar_a_classmethod_unpacks_is_set_in_the_file(tmp_path):
    item, result, args = _scalar_json_project(tmp_path)
    assert item.value_site is not None and item.value_site.axis == 0
    (diagnostic,) = result.diagnostics
    assert diagnostic.fix_title == 'set "dp" (configs/args.json:2) to 2'
    assert (
        "configs/args.json:2: \"dp\" is 4, the size of axis 'data' of the inner mesh (4, 4); "
        "the enclosing mesh has size 8: set it to 2"
    ) in diagnostic.message
    write_data_edits([result])
    assert args.read_text() == ARGS.replace('"dp": 4', '"dp": 2')


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (ARGS.replace('"dp": 4', '"dp": 3'), "now holds 3, not the run's 4"),
        (ARGS.replace('"dp": 4', '"dp": [4]'), "is not an integer"),
        (ARGS.replace('"dp": 4', '"dp": 4.0'), "is not an integer"),
        (ARGS.replace('"dp": 4', '"dp": "4"'), "is not an integer"),
    ],
)
def test_a_json_scalar_that_is_no_longer_the_run_s_integer_gets_no_fix(
    tmp_path, args, why
):
    item, result, written = _scalar_json_project(tmp_path, args)
    assert item.value_site is None and why in (item.value_unknown or ""), item
    (diagnostic,) = result.diagnostics
    assert diagnostic.fix_title is None and not diagnostic.data_edits
    assert written.read_text() == args


def test_a_json_scalar_outside_the_project_gets_no_fix(tmp_path):
    config = SCALAR_JSON_CONFIG.replace(
        '"configs", "args.json"', '"..", "configs", "args.json"'
    )
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "args.json").write_text(ARGS)
    item, result, _ = _scalar_json_project(tmp_path, config=config)
    assert item.value_site is None
    assert "a file outside the project's tree: not written" in (
        item.value_unknown or ""
    )
    (diagnostic,) = result.diagnostics
    assert diagnostic.fix_title is None and not diagnostic.data_edits
    assert (tmp_path / "configs" / "args.json").read_text() == ARGS


def test_two_unpacked_mappings_end_the_walk(tmp_path):
    """Two mappings unpacked: which one gives the field depends on both."""
    config = SCALAR_JSON_CONFIG.replace("cls(**raw)", "cls(**{'dp': 1}, **raw)")
    item, result, _ = _scalar_json_project(tmp_path, config=config)
    assert item.value_site is None and "unpacks its arguments" in (
        item.value_unknown or ""
    )


TWO_PATHS_MAIN = """\
from jax.sharding import use_abstract_mesh

from config import PRESETS
from meshes import make


def sizes(outer, name):
    with use_abstract_mesh(outer):
        with use_abstract_mesh(make(PRESETS[name])):
            pass


def evaluate(outer):
    sizes(outer, "eval")


def probe(outer):
    sizes(outer, "probe")


def train(outer):
    sizes(outer, "train")
"""
TWO_PATHS_CONFIG = """\
import dataclasses


@dataclasses.dataclass
class Axes:
    dp: int = 1
    tp: int = 8


PRESETS = {
    "train": Axes(dp=2, tp=4),
    "eval": Axes(dp=4, tp=4),
    "probe": Axes(dp=4, tp=4),
}
"""


def _two_paths(tmp_path: Path, callers: tuple[int, ...]):
    files = {
        "config.py": TWO_PATHS_CONFIG,
        "meshes.py": SCALAR_MESHES,
        "main.py": TWO_PATHS_MAIN,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    main, meshes = tmp_path / "main.py", tmp_path / "meshes.py"
    item = replace(
        _evidence(tmp_path),
        origins=tuple(
            Origin("new", "built", ((main, line), (main, 9), (meshes, 5)))
            for line in callers
        ),
    )
    options = Options(unsafe_fixes=True)
    evidence = with_value_sites(
        {main.resolve(): (item,)},
        Run(options),
        [(tmp_path / name).resolve() for name in files],
    )
    config = (tmp_path / "config.py").resolve()
    return check_file(
        Run(options), config, config.read_bytes(), evidence=evidence.get(config, ())
    )


def test_a_line_the_run_reached_along_two_paths_is_fixed_along_each(tmp_path):
    """`sizes(outer, name)` raised for "eval" and for "probe", two records with the same
    meshes: each preset the two callers pass is set where it is written."""
    result = _two_paths(tmp_path, (14, 18))
    assert result.fixed == (
        TWO_PATHS_CONFIG.replace('"eval": Axes(dp=4', '"eval": Axes(dp=2')
        .replace('"probe": Axes(dp=4', '"probe": Axes(dp=2')
        .encode()
    )
    assert len(result.diagnostics) == 2


def test_a_path_the_run_did_not_take_is_not_changed(tmp_path):
    """The twin: the run raised only for "eval": "probe", which may work elsewhere (or
    never run), is left as it is, and "train" too."""
    result = _two_paths(tmp_path, (14,))
    assert result.fixed == (
        TWO_PATHS_CONFIG.replace('"eval": Axes(dp=4', '"eval": Axes(dp=2').encode()
    )


NAMED = """\
from jax.sharding import AbstractMesh

AXES = ("data", "model")


def make(cfg):
    return AbstractMesh(tuple({read}), AXES)
"""
NAMED_MAIN = """\
from jax.sharding import use_abstract_mesh

from config import EVAL
from meshes import make


def run(outer):
    with use_abstract_mesh(outer):
        with use_abstract_mesh(make(EVAL["sizes"])):
            pass
"""


def _named_walk(tmp_path: Path, read: str, config: str, axis_name: str | None):
    files = {
        "config.py": config,
        "meshes.py": NAMED.format(read=read),
        "main.py": NAMED_MAIN,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    engine = Engine((tmp_path,), (), None)
    frames = ((tmp_path / "main.py", 9), (tmp_path / "meshes.py", 7))
    return written_at(engine.evaluator, frames, 1, axis_name)


@pytest.mark.parametrize(
    "read", ["cfg.get(n, 1) for n in AXES", "[cfg[n] for n in AXES]"]
)
def test_sizes_read_by_axis_name_reach_that_name_s_entry(tmp_path, read):
    config = 'EVAL = {"sizes": {"data": 2, "model": 2}}\n'
    found = _named_walk(tmp_path, read, config, "model")
    assert not isinstance(found, Unknown), found
    assert found.axis == 1 and found.name == "EVAL['sizes']['model']"
    assert isinstance(found.node, ast.Constant) and found.node.col_offset == 38


@pytest.mark.parametrize(
    ("read", "axis_name", "why"),
    [
        # no axis name to read by (the records disagree on which axis differs)
        ("cfg.get(n, 1) for n in AXES", None, "is computed"),
        # filtered, or reading another key than the loop's name: not one entry an axis
        ("cfg.get(n, 1) for n in AXES if n", "model", "is computed"),
        ('cfg.get("data", 1) for n in AXES', "model", "is computed"),
        # iterating the mapping itself: its keys' order is its own
        ("cfg.get(n, 1) for n in cfg", "model", "is computed"),
        ("cfg.get(n, 1) for n in cfg.keys()", "model", "is computed"),
        # the axis has no entry: the size is `.get`'s default
        ("cfg.get(n, 1) for n in AXES", "replica", "no one entry 'replica'"),
    ],
)
def test_sizes_not_read_one_entry_an_axis_end_the_walk(tmp_path, read, axis_name, why):
    config = 'EVAL = {"sizes": {"data": 2, "model": 2}}\n'
    found = _named_walk(tmp_path, read, config, axis_name)
    assert isinstance(found, Unknown) and why in found.why, found


def test_sizes_by_name_held_by_a_name_other_code_reads_end_the_walk(tmp_path):
    # `SIZES` (the comprehension's result) is read elsewhere too: its read would be replaced,
    # and one axis's integer is not what it holds
    files = {
        "config.py": 'EVAL = {"sizes": {"data": 2, "model": 2}}\n',
        "meshes.py": NAMED.format(read="cfg.get(n, 1) for n in AXES").replace(
            "    return AbstractMesh(tuple(cfg.get(n, 1) for n in AXES), AXES)\n",
            "    SIZES = tuple(cfg.get(n, 1) for n in AXES)\n"
            "    print(SIZES)\n"
            "    return AbstractMesh(SIZES, AXES)\n",
        ),
        "main.py": NAMED_MAIN,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    engine = Engine((tmp_path,), (), None)
    frames = ((tmp_path / "main.py", 9), (tmp_path / "meshes.py", 9))
    found = written_at(engine.evaluator, frames, 1, "model")
    assert isinstance(found, Unknown) and "is computed" in found.why, found


def test_a_size_computed_from_the_host_ends_the_walk_at_its_origin(tmp_path):
    """`jax.device_count() // 2` is where the size is written, but no literal there would
    hold on another host: the walk stops there and says so, naming the expression."""
    found = _walk(
        tmp_path, 'import jax\nEVAL = {"shape": (jax.device_count() // 2, 4)}\n'
    )
    assert isinstance(found, Computed)
    assert (found.path.name, found.module.line(found.node)) == ("config.py", 2)
    assert found.text == "(jax.device_count() // 2, 4)"
    assert found.reads == ("`jax.device_count()`",)


def test_a_size_computed_from_a_constant_is_not_named_as_from_the_host(tmp_path):
    found = _walk(tmp_path, 'N = 8\nEVAL = {"shape": (N // 2, 4)}\n')
    assert isinstance(found, Unknown) and not isinstance(found, Computed)
    assert "are not integer literals" in found.why


def test_a_path_to_a_size_from_the_host_is_named_beside_the_other_path_s_fix(tmp_path):
    """The run reached `sizes(outer, name)` for "eval" (a literal: fixed there) and for
    "probe", whose size is computed from the device count: the raising line names where."""
    config = TWO_PATHS_CONFIG.replace(
        '"probe": Axes(dp=4, tp=4)', '"probe": Axes(dp=jax.device_count() // 2, tp=4)'
    ).replace("import dataclasses\n", "import dataclasses\n\nimport jax\n")
    files = {"config.py": config, "meshes.py": SCALAR_MESHES, "main.py": TWO_PATHS_MAIN}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    main, meshes = (tmp_path / "main.py").resolve(), tmp_path / "meshes.py"
    item = replace(
        _evidence(tmp_path),
        origins=tuple(
            Origin("new", "built", ((main, line), (main, 9), (meshes, 5)))
            for line in (14, 18)
        ),
    )
    options = Options(unsafe_fixes=True)
    evidence = with_value_sites(
        {main: (item,)}, Run(options), [(tmp_path / n).resolve() for n in files]
    )
    (raised,) = evidence[main]
    assert raised.value_origin is not None
    assert raised.value_origin.where(tmp_path.resolve()) == "config.py:15"
    assert raised.value_origin.name == "jax.device_count() // 2"
    (diagnostic,) = check_file(
        Run(options), main, main.read_bytes(), evidence=evidence[main]
    ).diagnostics
    assert diagnostic.message.endswith(
        "another path the run took to this line: the inner mesh's size comes from "
        "`jax.device_count() // 2`, written at config.py:15 and computed from "
        "`jax.device_count()` when it runs (axis 'data' is 4 in the run; 2 would make the "
        "enclosing size 8): jaxfix writes no literal there, one would be right on this "
        "host only"
    )
    assert any(
        r.path is not None
        and r.path.name == "config.py"
        and r.start.line == 15
        and "computed from `jax.device_count()`" in r.message
        for r in diagnostic.related
    )


def test_a_size_that_may_pass_another_value_through_is_not_named_as_from_the_host(
    tmp_path,
):
    size = "jax.device_count() // 2 if WIDE else 4"  # a branch: the size may be the 4
    found = _walk(
        tmp_path, f'import jax\nWIDE = N = 4\nEVAL = {{"shape": ({size}, 4)}}\n'
    )
    assert isinstance(found, Unknown) and not isinstance(found, Computed)


def test_a_min_or_max_of_a_host_read_and_other_values_is_named_as_computed_there(
    tmp_path,
):
    """`max(jax.device_count() // 2, N)`: whichever wins on a host, the size is computed on
    that line (no literal elsewhere passes through it): named, saying other values go in."""
    found = _walk(
        tmp_path,
        'import jax\nN = 4\nEVAL = {"shape": (max(jax.device_count() // 2, N), 4)}\n',
    )
    assert isinstance(found, Computed)
    assert found.reads == ("`jax.device_count()`",)
    assert "and other values when it runs" in found.why


def test_a_size_from_the_number_of_devices_listed_is_named_as_from_the_host(tmp_path):
    found = _walk(
        tmp_path, 'import jax\nEVAL = {"shape": (max(len(jax.devices()) // 4, 1), 4)}\n'
    )
    assert isinstance(found, Computed)
    assert found.reads == ("`jax.devices()`",)


def test_paths_alike_in_their_innermost_frames_are_told_apart_by_the_outermost(
    tmp_path,
):
    """Two tests reached `evaluate` (one inner mesh, computed from the host): the three
    innermost frames of both paths are one; each is named with the test it came from."""
    config = TWO_PATHS_CONFIG.replace(
        '"eval": Axes(dp=4, tp=4)', '"eval": Axes(dp=jax.device_count() // 2, tp=4)'
    ).replace("import dataclasses\n", "import dataclasses\n\nimport jax\n")
    files = {
        "config.py": config,
        "meshes.py": SCALAR_MESHES,
        "main.py": TWO_PATHS_MAIN,
        "test_main.py": "from main import evaluate\n\nevaluate(1)\nevaluate(2)\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    main, meshes = (tmp_path / "main.py").resolve(), tmp_path / "meshes.py"
    tests = tmp_path / "test_main.py"
    item = replace(
        _evidence(tmp_path),
        origins=tuple(
            Origin("new", "built", ((tests, line), (main, 14), (main, 9), (meshes, 5)))
            for line in (3, 4)
        ),
    )
    options = Options(unsafe_fixes=True)
    evidence = with_value_sites(
        {main: (item,)}, Run(options), [(tmp_path / n).resolve() for n in files]
    )
    (diagnostic,) = check_file(
        Run(options), main, main.read_bytes(), evidence=evidence[main]
    ).diagnostics
    assert "written at config.py:14 and computed from `jax.device_count()`" in (
        diagnostic.message
    )
    assert diagnostic.message.endswith(
        "the run built the inner meshes at meshes.py:5, called from main.py:9, called "
        "from main.py:14, ..., from test_main.py:3; meshes.py:5, called from main.py:9, "
        "called from main.py:14, ..., from test_main.py:4"
    )


PROBE_MESHES = """\
from jax.sharding import AbstractMesh


def make(shape):
    return AbstractMesh(tuple(shape), ("data", "model"))
"""
PROBE_MAIN = """\
from jax.sharding import use_abstract_mesh

from config import build
from meshes import make


def run(outer):
    cfg = build()
    with use_abstract_mesh(outer):
        with use_abstract_mesh(make({read})):
            pass
"""
FIELD_BY_FIELD = """\
class Attrs(dict):
    pass


def build():
    cfg = Attrs()
    cfg.probe = Attrs()
    cfg.probe.shape = (4, 4)
{last}
    return cfg
"""


def _probe_walk(tmp_path: Path, config: str, read: str = "cfg.probe.shape"):
    return _walk_files(
        tmp_path,
        {
            "config.py": config,
            "meshes.py": PROBE_MESHES,
            "main.py": PROBE_MAIN.format(read=read),
        },
        (("main.py", 10), ("meshes.py", 5)),
    )


def test_a_config_set_field_by_field_is_reached_at_its_last_assignment(tmp_path):
    found = _probe_walk(
        tmp_path, FIELD_BY_FIELD.format(last="    cfg.probe.shape = (2, 4)")
    )
    assert not isinstance(found, Unknown)
    assert (found.module.line(found.node), ast.unparse(found.node)) == (9, "(2, 4)")


def test_a_field_set_in_a_branch_ends_the_walk(tmp_path):
    found = _probe_walk(
        tmp_path,
        FIELD_BY_FIELD.format(
            last="    if len(cfg) > 1:\n        cfg.probe.shape = (2, 4)"
        ),
    )
    assert isinstance(found, Unknown) and "set in a branch or a loop" in found.why


OVERRIDDEN = """\
import json


def _apply(raw, item):
    key, value = item.split("=", 1)
    *tables, leaf = key.split(".")
    node = raw
    for table in tables:
        node = node.setdefault(table, {{}})
    node[leaf] = [int(v) for v in value.split(",")]


def build(overrides={overrides}):
    with open("stages.json") as f:
        raw = json.load(f)
    for item in overrides:
        _apply(raw, item)
    return raw
"""


def test_an_override_string_that_names_the_entry_read_is_where_it_is_written(
    tmp_path,
):
    found = _probe_walk(
        tmp_path,
        OVERRIDDEN.format(overrides='("name=x", "probe.shape=2,2")'),
        read='cfg["probe"]["shape"]',
    )
    assert not isinstance(found, Unknown)
    assert found.override == "probe.shape" and found.data is None
    assert ast.literal_eval(found.node) == "probe.shape=2,2"


def test_overrides_that_name_other_entries_leave_the_file_s_entry(tmp_path):
    found = _probe_walk(
        tmp_path,
        OVERRIDDEN.format(overrides='("name=x", "train.shape=2,2")'),
        read='cfg["probe"]["shape"]',
    )
    assert not isinstance(found, Unknown)
    assert found.data is not None and found.data.keys == ("probe", "shape")


def test_a_mapping_passed_to_a_call_that_is_no_override_ends_the_walk(tmp_path):
    found = _probe_walk(
        tmp_path,
        OVERRIDDEN.format(overrides='("probe.shape=2,2",)').replace(
            'item.split("=", 1)', "item.partition(':')[::2]"
        ),
        read='cfg["probe"]["shape"]',
    )
    assert isinstance(found, Unknown) and "which may change it" in found.why


@pytest.mark.parametrize(
    ("toml", "why"),
    [
        ("[probe]\nshape = [\n  4,\n  4,\n]\n", "not a list on one line"),
        ("probe.shape = [4, 4]\n", "not written once"),
        ("[probe]\nshape = [4, 4.0]\n", "not a list of integers"),
        ("[probe]\nshape = [4, 4]\n[probe]\n", "it is not TOML"),
    ],
)
def test_a_toml_entry_jaxfix_cannot_write_in_place_is_refused(toml, why):
    from jaxfix.write.json_entry import NotAnEntry, find_toml_entry

    with pytest.raises(NotAnEntry, match=why):
        find_toml_entry(toml.encode(), ("probe", "shape"))


def test_a_toml_entry_s_integers_are_found_by_their_bytes():
    from jaxfix.write.json_entry import find_toml_entry

    data = b'name = "x"\n\n[probe]  # the probe\nshape = [4,  1]  # hand-set\n'
    entry = find_toml_entry(data, ("probe", "shape"))
    assert entry.values == (4, 1) and entry.line == 4
    assert [data[a:b] for a, b in entry.spans] == [b"4", b"1"]


def test_a_mapping_passed_to_a_function_that_only_reads_it_is_still_followed(tmp_path):
    found = _probe_walk(
        tmp_path,
        OVERRIDDEN.format(overrides='("probe.shape=2,2",)').replace(
            "    for item in overrides:\n        _apply(raw, item)\n",
            "    _show(raw)\n",
        )
        + "\n\ndef _show(raw):\n    print(sorted(raw))\n",
        read='cfg["probe"]["shape"]',
    )
    assert not isinstance(found, Unknown)
    assert found.data is not None and found.data.keys == ("probe", "shape")


FACTORY = """\
import dataclasses

from jax.sharding import AbstractMesh


@dataclasses.dataclass(frozen=True)
class Config:
    layers: int
    mesh_shape: tuple[int, int]

    @classmethod
    def _from_param(cls, wide: bool = False, **kwargs):
        if wide:
            kwargs["layers"] = 2 * kwargs["layers"]
        kwargs["mesh_shape"] = tuple(kwargs["mesh_shape"])
        return cls(**kwargs)

    @classmethod
    def small(cls, wide: bool = False):
        return cls._from_param(layers=2, mesh_shape=(8, 1), wide=wide)

    @classmethod
    def large(cls, wide: bool = False):
        return cls._from_param(layers=4, mesh_shape=(2, 2), wide=wide)


class Model:
    def __init__(self, config):
        self.config = config

    def eval_mesh(self):
        return AbstractMesh(self.config.mesh_shape, ("data", "model"))


class Runner:
    def build(self, config):
        return Model(config)

    def run(self):
        return self.build(Config.large(True)).eval_mesh()
"""


def test_a_keyword_passed_through_a_kwargs_factory_classmethod_is_reached(tmp_path):
    # `Config.large()` -> `cls._from_param(**kwargs)` -> `cls(**kwargs)`: the keyword
    # `mesh_shape=(2, 2)` of the factory call, through the method `self.build(...)`, the
    # `__init__` storing it and the key stored again before `cls(**kwargs)` reads it
    found = _walk_files(
        tmp_path, {"main.py": FACTORY}, [("main.py", 40), ("main.py", 32)]
    )
    assert not isinstance(found, Unknown), found
    assert found.module.line(found.node) == 24
    assert ast.unparse(found.node) == "(2, 2)"


def test_a_key_stored_from_another_value_before_the_read_is_that_value(tmp_path):
    # the factory's own literal is what every factory call gets: named, not changed
    source = FACTORY.replace(
        'kwargs["mesh_shape"] = tuple(kwargs["mesh_shape"])',
        'kwargs["mesh_shape"] = (4, 2)',
    )
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 40), ("main.py", 32)]
    )
    assert isinstance(found, Unknown), found
    assert (
        "the sizes at main.py:15 are what every call of `_from_param` gets" in found.why
    )


def test_a_key_stored_in_a_branch_before_the_read_ends_the_walk(tmp_path):
    source = FACTORY.replace(
        '            kwargs["layers"] = 2 * kwargs["layers"]',
        '            kwargs["mesh_shape"] = (4, 2)',
    )
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 40), ("main.py", 32)]
    )
    assert isinstance(found, Unknown) and "in a branch" in found.why, found


FILTERED = """\
import json

from jax.sharding import AbstractMesh

FIELDS = ("mesh_shape",)


def load_settings(path, **extra):
    with open(path) as f:
        raw = json.load(f)
    kept = {k: v for k, v in raw.items() if k in FIELDS}
    return dict({**kept, **extra})


def make(settings):
    return AbstractMesh(settings["mesh_shape"], ("data", "model"))


def run():
    return make(load_settings("eval.json", layers=2))
"""


def test_an_entry_kept_by_a_filtering_comprehension_is_the_file_s(tmp_path):
    (tmp_path / "eval.json").write_text('{"mesh_shape": [2, 2], "other": 1}\n')
    source = FILTERED.replace("dict({**kept, **extra})", "{**kept, 'layers': 2}")
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 20), ("main.py", 16)]
    )
    assert not isinstance(found, Unknown), found
    assert found.data is not None and found.data.keys == ("mesh_shape",)
    assert found.data.name == "eval.json"


def test_a_mapping_merged_from_two_spreads_ends_the_walk(tmp_path):
    (tmp_path / "eval.json").write_text('{"mesh_shape": [2, 2]}\n')
    source = FILTERED.replace("dict({**kept, **extra})", "{**kept, **extra}")
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 20), ("main.py", 16)]
    )
    assert isinstance(found, Unknown), found


STARRED = """\
from jax.sharding import AbstractMesh

LAYOUTS = {"dp": (8, 1), "dp_tp": (4, 2), "dp_tpsp": (2, 2)}


def get_layout(name):
    if name not in LAYOUTS:
        raise ValueError(name)
    return LAYOUTS[name]


def create(dp, tp):
    return AbstractMesh((dp, tp), ("data", "model"))


def run(flags):
    layout = get_layout(flags.layout)
    return create(*layout)
"""


def _walk_sized(tmp_path, source, frames, axis, sizes):
    (tmp_path / "main.py").write_text(source)
    engine = Engine((tmp_path,), (tmp_path / "main.py",), None)
    return written_at(
        engine.evaluator,
        tuple((tmp_path / "main.py", line) for line in frames),
        axis,
        None,
        sizes,
    )


def test_a_starred_argument_s_item_read_from_a_table_by_a_flag_is_the_entry_the_run_built(
    tmp_path,
):
    # `create(*layout)`: `dp` is `layout[0]`; the table is read by a flag's value, which the
    # code does not write: the one entry holding the run's sizes (2, 2) is the one
    found = _walk_sized(tmp_path, STARRED, (18, 13), 0, (2, 2))
    assert not isinstance(found, Unknown), found
    assert found.module.line(found.node) == 3
    assert found.axis == 0
    column = STARRED.splitlines()[2].index("(2, 2)") + 1
    assert (found.node.lineno, found.node.col_offset) == (3, column)


@pytest.mark.parametrize(
    ("sizes", "table"),
    [
        (None, None),  # the records do not agree on the sizes
        ((2, 2), '"dp_tpsp": (2, 2), "other": (2, 2)'),  # two entries hold them
        ((2, 2), '"dp_tpsp": (2, 2), "other": SHAPE'),  # one jaxfix cannot read may
        ((2, 4), None),  # none holds them (changed since the run)
    ],
)
def test_a_table_read_by_a_key_the_code_does_not_write_needs_one_entry_of_the_run_s_sizes(
    tmp_path, sizes, table
):
    source = STARRED
    if table is not None:
        source = source.replace('"dp_tpsp": (2, 2)', table)
    found = _walk_sized(tmp_path, source, (18, 13), 0, sizes)
    assert isinstance(found, Unknown) and "not read by a literal key" in found.why, (
        found
    )


HOST_SCALED = """\
import jax
from jax.sharding import AbstractMesh


def create(dp, tp):
    return AbstractMesh((dp, tp), ("data", "model"))


def stage(tp, stages):
    dp = {size}
    return create(dp, tp)
"""


@pytest.mark.parametrize(
    "size",
    [
        "jax.local_device_count() // tp // stages",
        "stages * jax.process_count()",
        "min(8, jax.device_count()) // stages",
    ],
)
def test_a_host_count_scaled_by_other_values_is_computed_where_written(tmp_path, size):
    source = HOST_SCALED.replace("{size}", size)
    found = _walk_sized(tmp_path, source, (11, 6), 0, (2, 2))
    assert isinstance(found, Computed), found
    assert found.module.line(found.node) == 10 and found.mixed
    assert "and other values when it runs" in found.why


@pytest.mark.parametrize("size", ["tp + jax.device_count()", "stages // tp"])
def test_a_size_not_scaled_from_the_host_is_not_computed_from_it(tmp_path, size):
    source = HOST_SCALED.replace("{size}", size)
    found = _walk_sized(tmp_path, source, (11, 6), 0, (2, 2))
    assert isinstance(found, Unknown) and not isinstance(found, Computed), found


RECIPES = """\
from dataclasses import dataclass

from jax.sharding import AbstractMesh


@dataclass
class Recipe:
    margin: int = 0
    mesh_shape: tuple[int, int] = (4, 2)


@dataclass
class Delayed(Recipe):
    history: int = 16


@dataclass
class Block(Recipe):
    mesh_shape: tuple[int, int] = (8, 1)


@dataclass
class Tiled(Recipe):
    mesh_shape: tuple[int, int] = (2, 2)


def recipe_named(name):
    match name:
        case "delayed":
            return Delayed()
        case "block":
            return Block()
        case "tiled":
            return Tiled()
        case _:
            raise ValueError(name)


def create(dp, tp):
    return AbstractMesh((dp, tp), ("data", "model"))


def quantized(recipe=None):
    if recipe is None:
        recipe = Delayed()
    return create(*recipe.mesh_shape)


def run(flags):
    return quantized(recipe_named(flags.recipe))
"""


def test_the_one_return_holding_the_run_s_sizes_is_followed_to_its_inherited_field(
    tmp_path,
):
    # `recipe` is the argument (the `None` default is replaced only when none is passed);
    # `recipe_named` returns one of three dataclasses by a flag's name: the one whose
    # field default (its own, or a base's) holds the run's sizes (2, 2) is the one; it
    # is given its own sizes where it is built (the default is every instance's)
    found = _walk_sized(tmp_path, RECIPES, (50, 46, 40), 0, (2, 2))
    assert not isinstance(found, Unknown), found
    assert found.keyword == "mesh_shape" and found.axis is None
    assert ast.unparse(found.node) == "Tiled()"


@pytest.mark.parametrize(
    ("sizes", "change"),
    [
        ((4, 2), ("raise ValueError(name)", "return Recipe()")),  # two hold (4, 2)
        ((2, 2), ("(2, 2)", "(8, 1)")),  # two hold (8, 1) now, none (2, 2)
        ((2, 2), ("return Tiled()", "return make_tiled()")),  # one jaxfix cannot read
        (
            (2, 2),
            (
                "    return quantized(recipe_named(",
                "    return quantized(None or recipe_named(",
            ),
        ),
    ],
)
def test_several_returns_with_no_one_holding_the_run_s_sizes_end_the_walk(
    tmp_path, sizes, change
):
    source = RECIPES if change is None else RECIPES.replace(*change)
    found = _walk_sized(tmp_path, source, (50, 46, 40), 0, sizes)
    assert isinstance(found, Unknown), found


def test_a_none_the_caller_passes_is_replaced_by_the_default_built_there(tmp_path):
    source = RECIPES.replace("quantized(recipe_named(flags.recipe))", "quantized(None)")
    found = _walk_sized(tmp_path, source, (50, 46, 40), 0, (4, 2))
    assert not isinstance(found, Unknown), found
    assert ast.unparse(found.node) == "Delayed()" and found.node.lineno == 45


def test_a_table_entry_read_by_its_key_elsewhere_is_not_chosen_by_its_sizes(tmp_path):
    # `LAYOUTS["dp_tpsp"]` is read by a working path too: the entry is not changed
    source = STARRED + 'WIDE = LAYOUTS["dp_tpsp"]\n'
    found = _walk_sized(tmp_path, source, (18, 13), 0, (2, 2))
    assert isinstance(found, Unknown) and "not read by a literal key" in found.why, (
        found
    )


COPIES = """\
import dataclasses
from typing import NamedTuple

from flax import struct
from jax.sharding import AbstractMesh


@dataclasses.dataclass(frozen=True)
class Config:
    shape: tuple = (8, 1)
    batch: int = 8


@struct.dataclass
class Struct:
    shape: tuple = (8, 1)


class Layout(NamedTuple):
    shape: tuple


BASE = Config()
COPY = {copy}


def make(cfg):
    return AbstractMesh(cfg.shape, ("data", "model"))


def run():
    return make(COPY)
"""


@pytest.mark.parametrize(
    ("copy", "keyword"),
    [
        ("dataclasses.replace(BASE, shape=(4, 4))", None),
        ("Struct().replace(shape=(4, 4))", None),
        ("Layout(shape=(8, 1))._replace(shape=(4, 4))", None),
        # the field is BASE's, which other code may read: the copy is given its own
        ("dataclasses.replace(BASE, batch=4)", "shape"),
    ],
)
def test_a_field_of_a_copy_with_fields_replaced_is_where_the_copy_gets_it(
    tmp_path, copy, keyword
):
    source = COPIES.format(copy=copy)
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 32), ("main.py", 28)]
    )
    assert not isinstance(found, Unknown), found
    assert found.module.line(found.node) == 24
    assert found.keyword == keyword
    if keyword is None:
        assert ast.unparse(found.node) == "(4, 4)"
    else:
        assert "this copy is given its own" in (found.why or "")


@pytest.mark.parametrize(
    ("copy", "why"),
    [
        ("dataclasses.replace(BASE, **{'shape': (4, 4)})", "unpacks its arguments"),
        (
            "dataclasses.replace(BASE, shape=SHAPES[0] if SHAPES else (4, 4))",
            "the run's values do not say which",
        ),
        ("BASE.replace('shape', (4, 4))", "is not a dataclass built there"),
    ],
)
def test_a_copy_jaxfix_cannot_read_ends_the_walk(tmp_path, copy, why):
    source = COPIES.format(copy=copy).replace(
        "BASE = Config()", "BASE = Config()\nSHAPES = [(4, 4)]"
    )
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 33), ("main.py", 29)]
    )
    assert isinstance(found, Unknown) and why in str(found), found


PARTIALS = """\
import functools

from jax.sharding import AbstractMesh


def make_mesh_for(names, shape=(8, 1)):
    return AbstractMesh(shape, names)


SMALL = functools.partial(make_mesh_for, shape=(2, 2))
NAMED = functools.partial(make_mesh_for)


def stage(factory):
    return factory(("data", "model"))


def run():
    return stage({given})
"""


@pytest.mark.parametrize(
    ("given", "found_at"),
    [
        ("SMALL", (10, "(2, 2)")),
        ("functools.partial(make_mesh_for, shape=(4, 4))", (19, "(4, 4)")),
        # a partial that holds no sizes: they are the default every call shares
        ("NAMED", None),
    ],
)
def test_sizes_a_partial_holds_are_where_the_partial_is_made(tmp_path, given, found_at):
    source = PARTIALS.format(given=given)
    found = _walk_files(
        tmp_path,
        {"main.py": source},
        [("main.py", 19), ("main.py", 15), ("main.py", 7)],
    )
    if found_at is None:
        assert isinstance(found, Unknown) and "does not pass `shape`" in str(found)
        return
    assert not isinstance(found, Unknown), found
    assert (found.module.line(found.node), ast.unparse(found.node)) == found_at


BRANCHES = """\
from jax.sharding import AbstractMesh


def mesh_shape(accel):
    if accel == "v5e-8":
        return (2, 4)
    elif accel == "v5e-4":
        return (2, 2)
    else:
        return (1, 8)


def make(accel):
    return AbstractMesh(mesh_shape(accel), ("data", "model"))


def run():
    return make("v5e-4")


def others(flag):
    return [mesh_shape("v5e-8"), mesh_shape("cpu"), {other}]
"""


@pytest.mark.parametrize(
    ("other", "fixed"),
    [
        ("None", True),
        ('mesh_shape(accel="v5e-8")', True),
        # another call may choose the same branch: what it returns is not the run's alone
        ('mesh_shape("v5e-4")', False),
        ("mesh_shape(flag)", False),
        # named as a value: it may be called where jaxfix does not count
        ("{'tpu': mesh_shape}", False),
    ],
)
def test_an_if_elif_chain_s_return_is_the_run_s_when_no_other_call_takes_its_branch(
    tmp_path, other, fixed
):
    source = BRANCHES.format(other=other)
    found = _walk_sized(tmp_path, source, (18, 14), None, (2, 2))
    if not fixed:
        assert isinstance(found, Unknown) and "called elsewhere too" in str(found)
        return
    assert not isinstance(found, Unknown), found
    assert found.module.line(found.node) == 8


@pytest.mark.parametrize(
    ("branch", "computed"),
    [
        ("(2, 2)", False),
        ("(jax.device_count() // 4, 2)", True),
    ],
)
def test_the_branch_the_call_s_literal_key_chooses_is_followed(
    tmp_path, branch, computed
):
    # `make("v5e-4")` chooses the elif's return by its key, not by the sizes it holds: a size
    # computed from the host there is named where it is written
    source = "import jax\n" + BRANCHES.format(other="None").replace(
        "return (2, 2)", f"return {branch}"
    )
    found = _walk_sized(tmp_path, source, (19, 15), 0, (2, 2))
    if computed:
        assert isinstance(found, Computed), found
        assert found.module.line(found.node) == 9
        assert "jax.device_count" in found.text
        return
    assert not isinstance(found, Unknown), found
    assert found.module.line(found.node) == 9


ITERATED_PARTIALS = """\
import functools

from jax.sharding import AbstractMesh


def make_mesh_for(names, shape=(8, 1)):
    return AbstractMesh(shape, names)


class Base:
    factories = (functools.partial(make_mesh_for, shape=(2, 2)),)


class Served(Base):
{body}


def build(server):
    return [make(("data", "model")) for make in server.factories]


def run():
    return build(Served)
"""

_PARTIAL = "functools.partial(make_mesh_for, shape={})"


@pytest.mark.parametrize(
    ("body", "found_at"),
    [
        (f"    factories = ({_PARTIAL.format('(4, 4)')}, print)", (15, "(4, 4)")),
        ("    pass", (11, "(2, 2)")),  # the base class's attribute
        # two partials of the function: which one the run called the code does not say
        (
            f"    factories = ({_PARTIAL.format('(4, 4)')}, {_PARTIAL.format('(2, 4)')})",
            None,
        ),
    ],
)
@pytest.mark.parametrize(
    "frames",
    [
        [("main.py", 23), ("main.py", 19), ("main.py", 7)],
        # before Python 3.12 the comprehension runs in a frame of its own
        [("main.py", 23), ("main.py", 19), ("main.py", 19), ("main.py", 7)],
    ],
)
def test_a_partial_a_comprehension_calls_from_a_class_attribute_is_followed(
    tmp_path, body, found_at, frames
):
    source = ITERATED_PARTIALS.format(body=body)
    found = _walk_files(tmp_path, {"main.py": source}, frames)
    if found_at is None:
        assert isinstance(found, Unknown), found
        return
    assert not isinstance(found, Unknown), found
    assert (found.module.line(found.node), ast.unparse(found.node)) == found_at


STORED_PARTIALS = """\
import functools

from jax.sharding import AbstractMesh


def make_mesh_for(names, shape=(8, 1)):
    return AbstractMesh(shape, names)


class Stage:
    def __init__(self):
        self._factory = functools.partial(make_mesh_for, shape=(2, 2))

    @functools.cached_property
    def _cached(self):
        return functools.partial(make_mesh_for, shape=(4, 4))

    def mesh(self):
        return self.{read}(("data", "model"))
"""


@pytest.mark.parametrize(
    ("read", "found_at"),
    [("_factory", (12, "(2, 2)")), ("_cached", (16, "(4, 4)"))],
)
def test_a_partial_stored_on_self_or_returned_by_a_cached_property_is_followed(
    tmp_path, read, found_at
):
    source = STORED_PARTIALS.format(read=read)
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 19), ("main.py", 7)]
    )
    assert not isinstance(found, Unknown), found
    assert (found.module.line(found.node), ast.unparse(found.node)) == found_at


def test_a_partial_stored_twice_on_self_ends_the_walk(tmp_path):
    source = STORED_PARTIALS.format(read="_factory").replace(
        "    def mesh(self):",
        "    def reset(self):\n        self._factory = None\n\n    def mesh(self):",
    )
    found = _walk_files(
        tmp_path, {"main.py": source}, [("main.py", 22), ("main.py", 7)]
    )
    assert isinstance(found, Unknown), found


CONDITIONALS = """\
import os
from pathlib import Path

import yaml
from jax.sharding import AbstractMesh

DEFAULT = 4
EP = {ep}
RAW = yaml.safe_load((Path(__file__).parent / "stages.yaml").read_text())


def eval_ep():
    return RAW["eval"]["ep"]


def build():
    return AbstractMesh(({size}, 4), ("expert", "model"))


def run():
    return build()
"""


def _walk_branch(tmp_path: Path, size: str, ep: str = "4", entry: str = "4"):
    (tmp_path / "stages.yaml").write_text(f"eval:\n  ep: {entry}\n")
    found = _walk_files(
        tmp_path,
        {"main.py": CONDITIONALS.format(size=size, ep=ep)},
        [("main.py", 21), ("main.py", 17)],
    )
    engine = Engine((tmp_path,), (tmp_path / "main.py",), None)
    return found, written_at(
        engine.evaluator,
        ((tmp_path / "main.py", 21), (tmp_path / "main.py", 17)),
        0,
        "expert",
        (4, 4),
    )


@pytest.mark.parametrize(
    ("size", "ep", "entry", "written"),
    [
        # `EP`, read by the test too, is replaced at the branch's read (line 17)
        ("EP if EP != -1 else DEFAULT", "4", "4", ("EP", 17)),
        ("EP if EP != -1 else DEFAULT", "-1", "4", ("4", 7)),
        ("DEFAULT if EP == -1 else EP", "-1", "4", ("4", 7)),
        ("DEFAULT if EP == -1 else EP", "4", "4", ("EP", 17)),
        ("EP if EP is not None else DEFAULT", "4", "4", ("EP", 17)),
        ("DEFAULT if not EP else EP", "0", "4", ("4", 7)),
        ("eval_ep() if eval_ep() > 0 else DEFAULT", "4", "4", ("stages.yaml", 0)),
        ("eval_ep() if eval_ep() > 0 else DEFAULT", "4", "-1", ("4", 7)),
        # the test reads what the launcher sets: the branch whose literal holds the run's
        # size, the other's not
        ('8 if os.environ.get("BIG") else DEFAULT', "4", "4", ("4", 7)),
    ],
)
def test_a_conditional_is_followed_into_the_branch_the_run_took(
    tmp_path, size, ep, entry, written
):
    _, found = _walk_branch(tmp_path, size, ep, entry)
    assert not isinstance(found, Unknown), found
    if found.data is not None:
        assert (found.data.name, found.data.keys) == ("stages.yaml", ("eval", "ep"))
        assert written == ("stages.yaml", 0)
    else:
        assert (ast.unparse(found.node), found.module.line(found.node)) == written


@pytest.mark.parametrize(
    "size",
    [
        'EP if os.environ.get("FROM_CONFIG") else DEFAULT',  # both hold the run's 4
        'int(os.environ.get("EP", "4")) if os.environ.get("EP") else DEFAULT',
    ],
)
def test_a_conditional_the_run_s_values_do_not_decide_names_both_branches(
    tmp_path, size
):
    _, found = _walk_branch(tmp_path, size)
    assert isinstance(found, Unknown) and not isinstance(found, Computed), found
    assert "(line 17) or `DEFAULT` (line 17)" in found.why
    assert "the run's values do not say which" in found.why


@pytest.mark.parametrize(
    ("size", "variable", "scale"),
    [
        ('int(os.environ.get("EP", "4"))', "EP", (1, 1)),
        ('int(os.getenv("EP", "4"))', "EP", (1, 1)),
        ('int(os.environ["EP"])', "EP", (1, 1)),
        ('int(os.environ.get("EP", "2")) * 2', "EP", (2, 1)),
        ('2 * int(os.environ.get("EP", "2"))', "EP", (2, 1)),
        ('int(os.environ.get("EP", "8")) // 2', "EP", (1, 2)),
        (
            'int(os.environ.get("EP", "8")) // 2 * 2',
            None,
            (1, 1),
        ),  # both ways: not said
        ('min(int(os.environ.get("EP", "4")), DEFAULT)', None, (1, 1)),
    ],
)
def test_a_size_read_from_the_environment_names_its_variable(
    tmp_path, size, variable, scale
):
    _, found = _walk_branch(tmp_path, size)
    assert isinstance(found, Computed), found
    assert found.module.line(found.node) == 17
    assert "the environment variable EP" in found.why
    assert (found.variable, found.scale) == (variable, scale)


@pytest.mark.parametrize(
    ("cwds", "written"),
    [
        # the run ran in the folder the relative name is read from: its entry decides
        (("here",), ("4", 7)),
        ((), None),  # where the run ran is not known: the test is not decided
        (("here", "there"), None),  # two places: not decided either
        # a record saying the run ran outside the project (`here` beside it): no file
        # there is read
        (("../here",), None),
    ],
)
def test_a_conditional_on_an_entry_named_from_where_the_run_ran(
    tmp_path, cwds, written
):
    source = CONDITIONALS.format(
        size="eval_ep() if eval_ep() > 0 else DEFAULT", ep="4"
    ).replace(
        '(Path(__file__).parent / "stages.yaml").read_text()', 'open("stages.yaml")'
    )
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "stages.yaml").write_text("eval:\n  ep: -1\n")
    (tmp_path / "main.py").write_text(source)
    project = tmp_path
    if cwds == ("../here",):  # the project is a folder beside `here`
        project = tmp_path / "project"
        project.mkdir()
        (tmp_path / "main.py").rename(project / "main.py")
    engine = Engine((project,), (project / "main.py",), None)
    found = written_at(
        engine.evaluator,
        ((project / "main.py", 21), (project / "main.py", 17)),
        0,
        "expert",
        (4, 4),
        tuple(project / c for c in cwds),
    )
    if written is None:
        assert isinstance(found, Unknown), found
        assert "the run's values do not say which" in found.why
    else:
        assert not isinstance(found, Unknown), found
        assert (ast.unparse(found.node), found.module.line(found.node)) == written


CONFIGURED = """\
import jax
from jax.sharding import AbstractMesh


def infer_mesh_shape(mesh_shape, *, num_devices):
    if -1 not in mesh_shape:
        return tuple(mesh_shape)
    known = 1
    for d in mesh_shape:
        known *= d if d != -1 else 1
    return tuple(num_devices // known if d == -1 else d for d in mesh_shape)


class Config:
    mesh_shape = None

    def instantiate(self):
        return self.klass(self)


class Runner:
    def __init__(self, cfg):
        self.mesh = AbstractMesh(
            infer_mesh_shape(cfg.mesh_shape, num_devices=len(jax.devices())), ("data", "model")
        )


def runner_config():
    cfg = Config()
    cfg.klass = Runner
    cfg.mesh_shape = (2, 2)
    return cfg


def main():
    return runner_config().instantiate()
"""


def _configured_frames(source: str) -> list[tuple[str, int]]:
    lines = source.splitlines()
    return [
        ("main.py", lines.index("    return runner_config().instantiate()") + 1),
        ("main.py", lines.index("        return self.klass(self)") + 1),
        ("main.py", lines.index("        self.mesh = AbstractMesh(") + 1),
    ]


def test_a_config_built_by_a_class_it_holds_and_an_inferred_shape_reach_the_literal(
    tmp_path,
):
    """`self.klass(self)`: a class the engine does not know, whose `__init__` the run's
    frames show it ran; `infer_mesh_shape` returns its argument as given or computes a
    `-1`: the one return that holds the run's sizes is the one taken."""
    frames = _configured_frames(CONFIGURED)
    for name, text in {"main.py": CONFIGURED}.items():
        (tmp_path / name).write_text(text)
    engine = Engine((tmp_path,), (tmp_path / "main.py",), None)
    found = written_at(
        engine.evaluator,
        tuple((tmp_path / name, line) for name, line in frames),
        0,
        "data",
        (2, 2),
    )
    assert not isinstance(found, Unknown), found
    assert found.name == "cfg.mesh_shape"
    assert (
        found.module.line(found.node)
        == CONFIGURED.splitlines().index("    cfg.mesh_shape = (2, 2)") + 1
    )


def test_an_inferred_shape_whose_literal_does_not_hold_the_runs_sizes_ends_the_walk(
    tmp_path,
):
    """Sizes (4, 2) the literal (-1, 2) does not hold: the computed return made them."""
    source = CONFIGURED.replace("cfg.mesh_shape = (2, 2)", "cfg.mesh_shape = (-1, 2)")
    (tmp_path / "main.py").write_text(source)
    engine = Engine((tmp_path,), (tmp_path / "main.py",), None)
    found = written_at(
        engine.evaluator,
        tuple((tmp_path / name, line) for name, line in _configured_frames(source)),
        0,
        "data",
        (4, 2),
    )
    assert isinstance(found, Unknown) and "does not return once" in found.why


PRESETS = """\
import dataclasses

from jax.sharding import AbstractMesh


@dataclasses.dataclass(frozen=True)
class Config:
    shape: tuple = (2, 4)
    batch: int = 8


TINY = Config()
SERVING = dataclasses.replace(TINY, shape=(4, 4))


def make(cfg):
    return AbstractMesh(cfg.shape, ("data", "model"))


def run():
    return make(dataclasses.replace(SERVING, batch=4))
{extra}"""


@pytest.mark.parametrize(
    ("extra", "origin"),
    [
        ("", True),
        # another read of the preset: its value may feed a mesh that works
        ("\n\ndef other():\n    return SERVING.shape\n", False),
    ],
)
def test_a_copy_of_a_preset_nothing_else_reads_is_changed_in_the_preset(
    tmp_path, extra, origin
):
    source = PRESETS.format(extra=extra)
    lines = source.splitlines()
    found = _walk_files(
        tmp_path,
        {"main.py": source},
        [
            (
                "main.py",
                lines.index("    return make(dataclasses.replace(SERVING, batch=4))")
                + 1,
            ),
            (
                "main.py",
                lines.index('    return AbstractMesh(cfg.shape, ("data", "model"))')
                + 1,
            ),
        ],
    )
    assert not isinstance(found, Unknown), found
    if origin:
        assert found.keyword is None and ast.unparse(found.node) == "(4, 4)"
        assert (
            found.module.line(found.node)
            == lines.index("SERVING = dataclasses.replace(TINY, shape=(4, 4))") + 1
        )
    else:
        assert found.keyword == "shape"
        assert "this copy is given its own" in (found.why or "")
