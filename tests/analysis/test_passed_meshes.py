"""The argument that carried the out_sharding's mesh down the run's calls
(jaxfix/analysis/ast_engine/passed_meshes.py), from frames a record would hold: the walk
takes a frame only where the code there is what the walk needs, so a forged frame (a line
that assigns something else, another file, a line that enters nothing) finds no argument."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.passed_meshes import (
    context_named,
    entered_as_built,
    mesh_read_in_block,
    out_mesh_passed_by,
)
from jaxfix.analysis.ast_engine.values import Unknown

HELPERS = """\
import jax
from jax._src.shard_map import top_level_all_gather
from jax.sharding import NamedSharding, PartitionSpec as P


def gather(params, mesh):
    outs = NamedSharding(mesh, P(reduced={"data"}))
    return jax.jit(lambda p: top_level_all_gather(p, outs))(params)


def gather_then_place(params, mesh):
    outs = NamedSharding(mesh, P(reduced={"data"}))
    gathered = jax.jit(lambda p: top_level_all_gather(p, outs))(params)
    return jax.device_put(gathered, NamedSharding(mesh, P()))
"""
MAIN = """\
import jax

from helpers import gather, gather_then_place


def run(make):
    train = make("train")
    decode = make("decode")
    with jax.set_mesh(train):
        params = make("params")
        return {name}(params, decode)


def forward(train, decode):
    with jax.set_mesh(train):
        return gather(train, decode)


def main(make):
    decode = make("decode")
    return forward(make("train"), decode)
"""


def _walk(tmp_path: Path, built: int, called: str = "gather", entered: int = 9):
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "main.py").write_text(MAIN.format(name=called))
    engine = Engine((tmp_path,), (), None)
    main, helpers = tmp_path / "main.py", tmp_path / "helpers.py"
    inner = 8 if called == "gather" else 13
    return out_mesh_passed_by(
        engine.evaluator,
        ((main, 11), (helpers, inner), (helpers, inner)),
        ((main, built),),
        ((main, entered),),
    )


def test_the_argument_built_where_the_run_built_the_out_mesh(tmp_path):
    passed = _walk(tmp_path, built=8)
    assert not isinstance(passed, Unknown), passed
    assert (passed.function, passed.parameter) == ("gather", "mesh")
    assert (passed.node.lineno, passed.node.col_offset) == (11, 30)  # `decode`


@pytest.mark.parametrize(
    ("built", "entered"),
    [
        (
            10,
            9,
        ),  # a forged creation frame: `params` is assigned there (read as the input)
        (7, 9),  # `train`, which the call does not pass
        (8, 8),  # a forged entry frame: line 8 enters no `with`
    ],
)
def test_a_frame_the_code_does_not_bear_out_finds_no_argument(tmp_path, built, entered):
    assert isinstance(_walk(tmp_path, built=built, entered=entered), Unknown)


def test_a_mesh_the_helper_reads_after_the_gather_is_not_taken(tmp_path):
    passed = _walk(tmp_path, built=8, called="gather_then_place")
    assert isinstance(passed, Unknown)
    assert "reads `mesh` other than as the mesh of an out_sharding" in passed.why


def test_a_parameter_is_followed_to_the_caller_that_built_it(tmp_path):
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "main.py").write_text(MAIN.format(name="gather"))
    engine = Engine((tmp_path,), (), None)
    main, helpers = tmp_path / "main.py", tmp_path / "helpers.py"
    raised = ((main, 21), (main, 16), (helpers, 8), (helpers, 8))
    entered = ((main, 21), (main, 15))
    passed = out_mesh_passed_by(engine.evaluator, raised, ((main, 20),), entered)
    assert not isinstance(passed, Unknown), passed
    assert (passed.node.lineno, passed.node.col_offset) == (16, 29)  # `decode`
    # built on another line of `main`: not the mesh this call passes
    forged = out_mesh_passed_by(engine.evaluator, raised, ((main, 21),), entered)
    assert isinstance(forged, Unknown)


SERVER = """\
import jax

from helpers import gather


class Server:
    def __init__(self, make):
        self.train = make("train")
        self.decode = make("decode")

    def refresh(self, params):
        with jax.set_mesh(self.train):
            return gather(params, self.decode)
"""
RESIZED = """
    def resize(self, make):
        self.decode = make("small")
"""


@pytest.mark.parametrize(
    ("text", "built", "found"),
    [
        (SERVER, 9, True),  # `self.decode`, stored once by the line the run built it on
        (SERVER, 8, False),  # a forged creation frame: `self.train` is stored there
        (SERVER + RESIZED, 9, False),  # stored twice: not surely that mesh
    ],
)
def test_an_attribute_stored_once_where_the_run_built_it(tmp_path, text, built, found):
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "server.py").write_text(text)
    engine = Engine((tmp_path,), (), None)
    server, helpers = tmp_path / "server.py", tmp_path / "helpers.py"
    passed = out_mesh_passed_by(
        engine.evaluator,
        ((server, 13), (helpers, 8), (helpers, 8)),
        ((server, built),),
        ((server, 12),),
    )
    if found:
        assert not isinstance(passed, Unknown), passed
        assert ast.unparse(passed.node) == "self.decode"
    else:
        assert isinstance(passed, Unknown)


SWITCHED = """\
from helpers import gather
from compat import set_mesh


def run(make):
    train = make("train")
    decode = make("decode")
    with set_mesh(train):
        params = make("params")
        return gather(params, decode)
"""


@pytest.mark.parametrize(("built", "named"), [(6, "train"), (7, None), (9, None)])
def test_the_context_mesh_is_named_where_the_run_built_it(tmp_path, built, named):
    """`set_mesh` of a version switch jaxfix does not follow: its argument names the context
    mesh where the run built that mesh where the name holds it (a forged frame on another
    assignment names none)."""
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "compat.py").write_text(
        "import jax\nset_mesh = getattr(jax, 'set_mesh')\n"
    )
    (tmp_path / "main.py").write_text(SWITCHED)
    engine = Engine((tmp_path,), (), None)
    main, helpers = tmp_path / "main.py", tmp_path / "helpers.py"
    found = context_named(
        engine.evaluator,
        ((main, 10), (helpers, 8), (helpers, 8)),
        ((main, 8),),
        ((main, built),),
    )
    assert (ast.unparse(found) if found is not None else None) == named


WRONG_CONTEXT = """\
import jax
from jax.sharding import NamedSharding, PartitionSpec as P

from helpers import gather


class Pair:
    def __init__(self, make):
        self.prefill = make("prefill")
        self.decode = make("decode")

    def send(self, pages):
        with jax.set_mesh(self.decode):
            out = NamedSharding(self.prefill, P(reduced={"data"}))
            return gather(pages, self.prefill)


def send(make, pages):
    prefill = make("prefill")
    decode = make("decode")
    with jax.set_mesh(decode):
        return gather(pages, prefill)
"""


@pytest.mark.parametrize(
    ("entered", "called", "built", "found"),
    [
        (13, 15, 9, "self.prefill"),  # stored once where the run built it
        (13, 15, 10, None),  # a forged frame: `self.decode` is read in no argument
        (21, 22, 19, "prefill"),
        (21, 22, 20, None),  # `decode` is not read in the block
        (13, 22, 9, None),  # the run called the gather from no line of the block
    ],
)
def test_the_mesh_the_block_reads_where_the_run_built_it(
    tmp_path, entered, called, built, found
):
    """A context-mesh error whose input and out_sharding agree: the mesh the block of the
    `with` the run entered reads, proved by where the run built it."""
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "main.py").write_text(WRONG_CONTEXT)
    engine = Engine((tmp_path,), (), None)
    main, helpers = tmp_path / "main.py", tmp_path / "helpers.py"
    read = mesh_read_in_block(
        engine.evaluator,
        ((main, called), (helpers, 8), (helpers, 8)),
        ((main, entered),),
        ((main, built),),
    )
    assert (ast.unparse(read) if read is not None else None) == found


@pytest.mark.parametrize(
    ("entered", "built", "found"),
    [
        (13, 10, "self.decode"),
        (13, 9, None),
        (21, 20, "decode"),
        (21, 19, None),
        (9, 9, None),
    ],
)
def test_the_mesh_a_with_enters_as_the_run_built_it(tmp_path, entered, built, found):
    """A forged built frame (another assignment) or entered frame (a line that enters no
    `with`) names nothing."""
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "main.py").write_text(WRONG_CONTEXT)
    engine = Engine((tmp_path,), (), None)
    main = tmp_path / "main.py"
    named = entered_as_built(engine.evaluator, ((main, entered),), ((main, built),))
    assert (ast.unparse(named[2]) if named is not None else None) == found
