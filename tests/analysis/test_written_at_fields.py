"""The walk of jaxfix/analysis/ast_engine/written_at.py through a field a method reads on
`self` (an `eqx.Module`'s `eqx.field(default=...)`, a dataclass's), and to a mesh's axis
names rather than its sizes (no JAX run: the frames are what a record would hold)."""

from __future__ import annotations

import ast
from pathlib import Path

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.values import Unknown
from jaxfix.analysis.ast_engine.written_at import written_at

PLAN = """\
import equinox as eqx
from jax.sharding import AbstractMesh


class Plan(eqx.Module):
    axis: str = eqx.field(static=True, default="batch")
    num_shards: int = eqx.field(static=True, default=4)

    def abstract_mesh(self):
        return AbstractMesh((self.num_shards,), (self.axis,))
"""
MAIN = """\
from plan import Plan


def run():
    return Plan({given}).abstract_mesh()
"""


def _walk(tmp_path: Path, plan: str, given: str):
    (tmp_path / "plan.py").write_text(plan)
    (tmp_path / "main.py").write_text(MAIN.format(given=given))
    engine = Engine((tmp_path,), (tmp_path / "plan.py", tmp_path / "main.py"), None)
    built = plan.splitlines().index(
        "        return AbstractMesh((self.num_shards,), (self.axis,))"
    )
    frames = ((tmp_path / "main.py", 5), (tmp_path / "plan.py", built + 1))
    return written_at(engine.evaluator, frames, axis=0, axis_name="batch", sizes=(4,))


def test_a_field_default_no_construction_gives_is_reached(tmp_path):
    found = _walk(tmp_path, PLAN, "")
    assert not isinstance(found, Unknown), found.why
    assert (found.module.path.name, found.module.line(found.node)) == ("plan.py", 7)
    assert ast.unparse(found.node) == "4"


def test_a_plain_dataclass_field_default_is_reached_too(tmp_path):
    plan = PLAN.replace("import equinox as eqx\n", "import dataclasses\n")
    plan = plan.replace("(eqx.Module)", "").replace(
        "eqx.field(static=True, ", "dataclasses.field("
    )
    plan = plan.replace("class Plan", "@dataclasses.dataclass(frozen=True)\nclass Plan")
    found = _walk(tmp_path, plan, "")
    assert not isinstance(found, Unknown), found.why
    assert (found.module.path.name, found.module.line(found.node)) == ("plan.py", 8)


def test_a_field_a_construction_gives_is_not_the_default(tmp_path):
    found = _walk(tmp_path, PLAN, "num_shards=4")
    assert isinstance(found, Unknown) or found.module.path.name != "plan.py"


def test_a_field_given_in_order_is_not_the_default(tmp_path):
    found = _walk(tmp_path, PLAN, '"batch", 4')
    assert isinstance(found, Unknown) or found.module.path.name != "plan.py"


def test_a_default_no_construction_can_be_counted_for_is_not_followed(tmp_path):
    (tmp_path / "plan.py").write_text(PLAN)
    (tmp_path / "main.py").write_text(MAIN.format(given=""))
    engine = Engine((tmp_path,), (), None)  # no files to count constructions in
    frames = ((tmp_path / "main.py", 5), (tmp_path / "plan.py", 10))
    found = written_at(engine.evaluator, frames, axis=0, axis_name="batch", sizes=(4,))
    assert isinstance(found, Unknown) or found.module.line(found.node) != 7


PARTITIONER = """\
import jax
import numpy as np
from jax.sharding import Mesh


def create_mesh(dp, fsdp, axis_names):
    return Mesh(np.asarray(jax.devices()).reshape(dp, fsdp), axis_names)


class Partitioner:
    MESH_AXES = ("data", "fsdp")
    EXPORT_AXES = ("data", "model")

    def __init__(self):
        self.mesh = create_mesh(2, 4, self.MESH_AXES)
        self.export_mesh = create_mesh(2, 4, self.EXPORT_AXES)
"""


def _names(tmp_path: Path, source: str, line: int = 16):
    (tmp_path / "partitioning.py").write_text(source)
    engine = Engine((tmp_path,), (tmp_path / "partitioning.py",), None)
    frames = ((tmp_path / "partitioning.py", line), (tmp_path / "partitioning.py", 7))
    return written_at(engine.evaluator, frames, names=True)


def test_axis_names_are_followed_to_their_class_attribute(tmp_path):
    found = _names(tmp_path, PARTITIONER)
    assert not isinstance(found, Unknown), found.why
    assert found.module.line(found.node) == 12
    assert ast.unparse(found.node) == "('data', 'model')"


def test_axis_names_computed_end_the_walk(tmp_path):
    source = PARTITIONER.replace(
        'EXPORT_AXES = ("data", "model")', 'EXPORT_AXES = ("data",) + ("model",)'
    )
    assert isinstance(_names(tmp_path, source), Unknown)


def test_sizes_are_still_what_the_walk_follows_without_names(tmp_path):
    (tmp_path / "partitioning.py").write_text(PARTITIONER)
    engine = Engine((tmp_path,), (), None)
    frames = ((tmp_path / "partitioning.py", 16), (tmp_path / "partitioning.py", 7))
    found = written_at(engine.evaluator, frames, sizes=(2, 4))
    assert isinstance(found, Unknown) or ast.unparse(found.node) != '("data", "model")'


CLUSTER = """\
import dataclasses


@dataclasses.dataclass(kw_only=True, frozen=True)
class ClusterConfig:
    outer: object = None
    sampler_shape: tuple = (2, 2)
"""
STAGE = """\
from jax.sharding import AbstractMesh


def sampler(config):
    return AbstractMesh(config.sampler_shape, ("fsdp", "tp"))
"""
LAUNCH = """\
from cluster import ClusterConfig
from stage import sampler


def default_config():
    return ClusterConfig(outer=None)


def run():
    return sampler(default_config())


def again():
    return sampler(default_config())
{more}"""


def _cluster_walk(tmp_path: Path, more: str = "", frames=None):
    (tmp_path / "cluster.py").write_text(CLUSTER)
    (tmp_path / "stage.py").write_text(STAGE)
    (tmp_path / "launch.py").write_text(LAUNCH.format(more=more))
    files = tuple(tmp_path / n for n in ("cluster.py", "stage.py", "launch.py"))
    engine = Engine((tmp_path,), files, None)
    frames = frames or ((tmp_path / "launch.py", 10), (tmp_path / "stage.py", 5))
    return written_at(engine.evaluator, frames, sizes=(2, 2))


def test_a_default_read_once_of_a_class_built_once_is_changed_where_declared(
    tmp_path,
):
    found = _cluster_walk(tmp_path)
    assert not isinstance(found, Unknown), found.why
    assert (found.module.path.name, found.module.line(found.node)) == ("cluster.py", 7)
    assert ast.unparse(found.node) == "(2, 2)"


def test_a_class_built_twice_gets_the_keyword_in_its_construction(tmp_path):
    found = _cluster_walk(
        tmp_path, "\n\ndef other():\n    return sampler(ClusterConfig(outer=1))\n"
    )
    # the default is every construction's: never changed; the factory is called twice
    assert isinstance(found, Unknown) or found.module.path.name != "cluster.py"


def test_a_default_read_twice_is_not_changed_where_declared(tmp_path):
    found = _cluster_walk(
        tmp_path, "\n\ndef shape(config):\n    return config.sampler_shape\n"
    )
    assert isinstance(found, Unknown) or found.module.path.name != "cluster.py"


def test_forged_frames_do_not_reach_the_default(tmp_path):
    # a record naming a line that calls no mesh builder, and a line past the file's end
    for line in (13, 99):
        found = _cluster_walk(
            tmp_path,
            frames=((tmp_path / "launch.py", line), (tmp_path / "stage.py", 5)),
        )
        assert isinstance(found, Unknown) or found.module.path.name != "cluster.py"
