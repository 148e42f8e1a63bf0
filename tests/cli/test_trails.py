"""`-v` says where the trail ended (issue 40): for each call a rule looked at and left, the
step where the value it needed was lost (the engine's `Unknown` carries why and where), on
stderr; a clean call and a run without `-v` say nothing of it, and a warm run says the same."""

from __future__ import annotations

import json
import re
import textwrap
import time
from pathlib import Path

from click.testing import CliRunner

from jaxfix.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]

_LEFT = re.compile(
    r"^(?P<where>\S+:\d+:\d+): (?P<code>JAX\d+) not reported: (?P<why>.*)$"
)


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def _trails(project: Path, monkeypatch, *args: str) -> dict[str, tuple[str, str]]:
    """Each left call's place -> (code, why), from stderr."""
    monkeypatch.chdir(project)
    result = CliRunner().invoke(
        cli, ["--check", "-j", "1", *args, "."], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    found = {}
    for line in result.stderr.splitlines():
        match = _LEFT.match(line)
        if match:
            found[match["where"]] = (match["code"], match["why"])
    return found


STAGE = {
    "pkg/__init__.py": "",
    "pkg/model.py": """\
        from jax.sharding import AbstractMesh, use_abstract_mesh


        class Stage:
            def __init__(self, cfg):
                self.cfg = cfg

            def run(self):
                with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
                    with use_abstract_mesh(self.cfg.mesh):
                        pass


        def stage(sizes):
            with use_abstract_mesh(AbstractMesh((2, 2), ("data", "model"))):
                with use_abstract_mesh(AbstractMesh(sizes, ("data", "model"))):
                    pass


        def clean():
            with use_abstract_mesh(AbstractMesh((2, 2), ("data", "model"))):
                with use_abstract_mesh(AbstractMesh((4, 1), ("data", "model"))):
                    pass
        """,
    "main.py": """\
        import os

        from pkg.model import Stage, clean, stage

        Stage(load_config()).run()
        stage((int(os.environ["N"]), 2))
        stage((1, 4))
        clean()
        """,
}


def test_an_attribute_of_an_object_built_by_a_caller(tmp_path, monkeypatch):
    trails = _trails(_project(tmp_path, STAGE), monkeypatch, "--no-cache", "-v")
    code, why = trails["pkg/model.py:10:18"]
    assert code == "JAX002"
    assert why == (
        "the inner mesh reaches here as `self.cfg.mesh`; jaxfix lost it at main.py:5: "
        "a call of something jaxfix does not know (`load_config` is not bound)"
    )


def test_a_parameter_its_callers_pass_differently(tmp_path, monkeypatch):
    trails = _trails(_project(tmp_path, STAGE), monkeypatch, "--no-cache", "-v")
    code, why = trails["pkg/model.py:16:14"]
    assert code == "JAX002"
    assert why.startswith(
        'the inner mesh reaches here as `AbstractMesh(sizes, ("data", "model"))`, a mesh '
        "built at line 16 whose axis sizes jaxfix does not know; jaxfix lost it at line 16: "
    )
    assert "`sizes`" in why


def test_a_call_whose_values_are_known_is_not_a_trail(tmp_path, monkeypatch):
    trails = _trails(_project(tmp_path, STAGE), monkeypatch, "--no-cache", "-v")
    assert not [w for w in trails if w.startswith("pkg/model.py:21:")]
    assert len(trails) == 2


def test_without_verbose_nothing_is_said_and_a_warm_run_says_the_same(
    tmp_path, monkeypatch
):
    project = _project(tmp_path, STAGE)
    time.sleep(
        2.1
    )  # a file changed within 2 s before a run is not vouched for (not cached)
    assert _trails(project, monkeypatch) == {}
    warm = _trails(project, monkeypatch, "-v")  # the run above stored its trails
    assert len(warm) == 2
    assert (project / ".jaxfix_cache").is_dir()
    assert _trails(project, monkeypatch, "--no-cache", "-v") == warm


LOWERING = {
    "export.py": """\
        import jax
        import jax.numpy as jnp
        from jax.sharding import NamedSharding, PartitionSpec as P

        from meshes import load_mesh


        @jax.jit
        def f(x):
            return x * 2


        def export(mesh):
            x = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=NamedSharding(mesh, P("data")))
            return f.lower(x)


        def run(cm):
            with cm:
                return f.lower(jax.ShapeDtypeStruct((8,), jnp.float32))


        export(load_mesh())
        run(open("mesh.txt"))
        """,
    "meshes.py": """\
        import json

        def load_mesh():
            return json.load(open("mesh.json"))
        """,
}


def test_an_argument_made_by_another_modules_function(tmp_path, monkeypatch):
    trails = _trails(_project(tmp_path, LOWERING), monkeypatch, "--no-cache", "-v")
    code, why = trails["export.py:15:12"]
    assert code == "JAX001"
    assert why == (
        "the argument's mesh reaches here as `x`, from `mesh`, the parameter of `export` "
        "(line 13) that line 23 passes as `load_mesh()`; jaxfix lost it at meshes.py:4: "
        "a call of `json.load`"
    )


def test_a_context_manager_jaxfix_does_not_see_into(tmp_path, monkeypatch):
    trails = _trails(_project(tmp_path, LOWERING), monkeypatch, "--no-cache", "-v")
    code, why = trails["export.py:20:16"]
    assert code == "JAX001"
    assert why.startswith(
        "the context mesh may be set by `cm` (line 19), a context manager jaxfix does not "
        "see into"
    )


ENV = {
    "env/__init__.py": "from env.environment import default_env\n",
    "env/environment.py": """\
        from jax.sharding import AbstractMesh, use_abstract_mesh

        _env = None


        def default_env():
            global _env
            if _env is None:
                _env = Environment()
            return _env


        class Environment:
            def sizes(self):
                with use_abstract_mesh(AbstractMesh((4,), ("fsdp",))):
                    return 4
        """,
    "main.py": """\
        import env

        print(env.default_env().sizes())
        """,
}


def test_a_method_whose_calls_jaxfix_does_not_all_see(tmp_path, monkeypatch):
    """A method called on an object jaxfix does not know, in a module that does not import
    the method's: the context around it is unknown (not none), and -v says why."""
    trails = _trails(_project(tmp_path, ENV), monkeypatch, "--no-cache", "-v")
    code, why = trails["env/environment.py:15:14"]
    assert code == "JAX002"
    assert why.startswith(
        "the enclosing mesh is the one around each call of `sizes` (line 14), and jaxfix "
        "does not see every call: `sizes` at main.py:3 may be it"
    ), why


HOST = {
    "main.py": """\
        import jax
        from jax.sharding import AbstractMesh, use_abstract_mesh

        groups = max(1, jax.device_count() // 4)
        with jax.set_mesh(jax.make_mesh((4, 2), ("data", "model"))):
            with use_abstract_mesh(AbstractMesh((groups, 2), ("data", "model"))):
                pass
        """,
}


def test_sizes_the_host_decides_that_match_on_some_host(tmp_path, monkeypatch):
    """Sizes computed from the device count that differ on some hosts and match on others:
    left, and -v names a count of each."""
    trails = _trails(_project(tmp_path, HOST), monkeypatch, "--no-cache", "-v")
    code, why = trails["main.py:6:10"]
    assert code == "JAX002"
    assert why == (
        "the inner and the enclosing sizes are computed from the host's devices: they "
        "differ on a host of 1 device but match on one of 16 (both 8); only the host "
        "decides"
    ), why


HELD_OUT = {
    "train.py": """\
        import argparse
        import os

        import jax
        from jax.experimental import mesh_utils
        from jax.sharding import AbstractMesh, Mesh, use_abstract_mesh

        parser = argparse.ArgumentParser()
        parser.add_argument("--mesh_shape", type=int, nargs="+", default=[4, 2])
        args = parser.parse_args()
        with jax.set_mesh(Mesh(mesh_utils.create_device_mesh(tuple(args.mesh_shape)), ("a", "b"))):
            with use_abstract_mesh(AbstractMesh((2, 2), ("a", "b"))):
                pass

        dcn = load_dcn_shape()
        with jax.set_mesh(Mesh(mesh_utils.create_hybrid_device_mesh([4, 2], dcn), ("a", "b"))):
            with use_abstract_mesh(AbstractMesh((2, 2), ("a", "b"))):
                pass

        slices = jax.process_count()
        devices = mesh_utils.create_hybrid_device_mesh([4, 2], [slices, 1])
        with jax.set_mesh(Mesh(devices, ("a", "b"))):
            with use_abstract_mesh(AbstractMesh((2, 2), ("a", "b"))):
                pass
        """,
    "export.py": """\
        import os

        import jax
        import jax.numpy as jnp
        from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

        MESH = AbstractMesh((4, 2), ("data", "model"))


        class Exporter:
            def __init__(self, fn, sharded):
                self._fn = fn
                self._sharded = sharded

            def __call__(self):
                if self._sharded:
                    return jax.jit(self._fn, out_shardings=NamedSharding(MESH, P("data")))
                return jax.jit(self._fn)


        def jitted():
            return jax.jit(load_step(), out_shardings=NamedSharding(MESH, P("data")))


        x = jax.ShapeDtypeStruct((8, 4), jnp.float32)
        Exporter(jnp.tanh, os.environ.get("SHARDED") == "1")().lower(x)
        jitted().lower(x)
        """,
}


def test_held_out_idioms_say_where_their_trail_ended(tmp_path, monkeypatch):
    """A mesh shape from the command line, a hybrid mesh's unknown cross-slice shape, a
    `__call__` whose returns a flag the code does not show decides, jit of a function
    jaxfix does not know: each names the step where the value was lost."""
    trails = _trails(_project(tmp_path, HELD_OUT), monkeypatch, "--no-cache", "-v")
    assert trails["train.py:12:10"] == (
        "JAX002",
        "the enclosing mesh reaches here as the mesh entered by `jax.set_mesh(Mesh(mesh_u"
        "tils.create_device_mesh(tuple(arg...` (line 11), a mesh built at line "
        "11 whose axis sizes jaxfix does not know; jaxfix lost it at line 8: "
        "create_device_mesh(...) of a shape jaxfix cannot spell out (`tuple(...)` of "
        "`.mesh_shape` of a call of `.parse_args` of a call of `argparse.ArgumentParser`)",
    )
    code, why = trails["train.py:17:10"]
    assert code == "JAX002"
    assert why.endswith(
        "jaxfix lost it at line 15: create_hybrid_device_mesh(...) of a shape jaxfix cannot"
        " spell out (a call of something jaxfix does not know (`load_dcn_shape` is not "
        "bound))"
    ), why
    code, why = trails["train.py:23:10"]
    assert code == "JAX002"
    assert why.endswith("jaxfix lost it at line 20: a call of `jax.process_count`"), why
    code, why = trails["export.py:26:1"]
    assert code == "JAX001"
    assert why.startswith(
        'the lowered function reaches here as `Exporter(jnp.tanh, os.environ.get("SH...`'
    ), why
    assert why.endswith(
        "jaxfix lost it at line 26: `__call__` returns different values by "
        "`self._sharded`, which jaxfix does not decide: a comparison jaxfix does not decide"
    ), why
    code, why = trails["export.py:27:1"]
    assert code == "JAX001"
    assert why.endswith(
        "jaxfix lost it at line 22: jax.jit of a call of something jaxfix does not know "
        "(`load_step` is not bound)"
    ), why


GATHER = {
    "gather.py": """\
        import jax
        from jax.sharding import NamedSharding, PartitionSpec as P, reshard

        from helpers import place


        def step(mesh):
            x = place(mesh)
            with jax.set_mesh(mesh):
                return jax.experimental.shard.top_level_all_gather(
                    x, out_sharding=P(reduced={"data"})
                )


        step(jax.make_mesh((8,), ("data",)))
        """,
    "helpers.py": """\
        import jax

        def place(mesh):
            return jax.device_put(jax.numpy.ones(8), pick(mesh))
        """,
}


def test_an_input_placed_on_an_unknown_sharding(tmp_path, monkeypatch):
    trails = _trails(_project(tmp_path, GATHER), monkeypatch, "--no-cache", "-v")
    ((where, (code, why)),) = trails.items()
    assert (where, code) == ("gather.py:10:16", "JAX003")
    assert why.startswith(
        "the input's mesh reaches here as `x`; jaxfix lost it at helpers.py:4: "
    )


def test_a_report_without_a_fix_says_where_the_unknown_size_comes_from(
    tmp_path, monkeypatch
):
    """Surely raises, no fix (the size the fix needs is unknown): the report says where
    jaxfix lost the mesh's size."""
    fixture = (
        ROOT
        / "fixtures"
        / "JAX001"
        / "compile_on_an_unnamed_argument_of_unknown_size.py"
    )
    project = _project(tmp_path, {"export.py": fixture.read_text()})
    monkeypatch.chdir(project)
    result = CliRunner().invoke(
        cli, ["--check", "--no-cache", "--unsafe-fixes", "export.py"]
    )
    assert result.exit_code == 1
    assert (
        "(mesh size unknown, and neither the mesh nor its argument is a name read where "
        "it compiles: no fix; lowering_platforms alone would make the .compile() raise "
        "'device_assignment cannot be `None`'); its mesh reaches here as "
        '`AbstractMesh((n, 4), ("x", "y"))`, a mesh built at line 20 whose axis sizes '
        "jaxfix does not know; jaxfix lost it at line 13: "
        in " ".join(result.stdout.split())
    )


def _notebook(cells: list[str]) -> str:
    return json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {},
                    "outputs": [],
                    "source": textwrap.dedent(cell),
                }
                for cell in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def test_a_notebook_says_where_the_trail_ended_by_cell(tmp_path, monkeypatch):
    """A notebook's left calls are placed in its cells, as its findings are; a place in the
    notebook that the message names is named by cell too; a warm run says the same."""
    notebook = _notebook(
        [
            """\
            import json

            import jax
            import jax.numpy as jnp
            from jax.sharding import NamedSharding, PartitionSpec as P


            def load_mesh():
                return json.load(open("mesh.json"))


            @jax.jit
            def f(x):
                return x * 2
            """,
            """\
            %matplotlib inline
            mesh = load_mesh()
            x = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=NamedSharding(mesh, P("data")))
            f.lower(x)
            """,
        ]
    )
    project = _project(tmp_path, {"export.ipynb": notebook})
    time.sleep(2.1)  # a file changed within 2 s before a run is not vouched for
    monkeypatch.chdir(project)
    said = []
    for _ in range(2):  # cold, then warm from the cache
        result = CliRunner().invoke(cli, ["--check", "-j", "1", "-v", "."])
        assert result.exit_code == 0, result.output
        said.append(
            [line for line in result.stderr.splitlines() if "not reported" in line]
        )
    assert (
        said[0]
        == said[1]
        == [
            "export.ipynb:cell 2:4:1: JAX001 not reported: the argument's mesh reaches here "
            "as `x`; jaxfix lost it at cell 1, line 9: a call of `json.load`"
        ]
    )


PYTREES = {
    "export.py": """\
        import jax
        import jax.numpy as jnp
        from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

        from batches import Batch, Registered, pick


        @jax.jit
        def f(batch):
            return batch.tokens * 2


        def struct(mesh):
            return jax.ShapeDtypeStruct((8,), jnp.float32, sharding=NamedSharding(mesh, P("x")))


        f.lower(Batch(struct(AbstractMesh((8,), ("x",)))))
        f.lower(Registered(struct(AbstractMesh((8,), ("x",))), struct(pick())))
        """,
    "batches.py": """\
        import jax


        class Batch:
            def __init__(self, tokens):
                self.tokens = tokens


        @jax.tree_util.register_pytree_node_class
        class Registered:
            def __init__(self, tokens, positions):
                self.tokens = tokens
                self.positions = positions

            def tree_flatten(self):
                return (self.tokens, self.positions), None

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)


        def pick():
            return jax.sharding.get_abstract_mesh() if input() else None
        """,
}


def test_an_object_whose_pytree_children_are_not_known(tmp_path, monkeypatch):
    trails = _trails(_project(tmp_path, PYTREES), monkeypatch, "--no-cache", "-v")
    code, why = trails["export.py:17:1"]
    assert code == "JAX001"
    assert why == (
        "the argument's mesh reaches here as `Batch(struct(AbstractMesh((8,), "
        '("x",))))`, an object of `Batch` built at line 17 whose children as a pytree '
        "jaxfix does not know (it reads those of a class registered by jax.tree_util's "
        "register_* at the top of its module)"
    )


def test_a_registered_pytree_says_where_its_child_was_lost(tmp_path, monkeypatch):
    trails = _trails(_project(tmp_path, PYTREES), monkeypatch, "--no-cache", "-v")
    code, why = trails["export.py:18:1"]
    assert code == "JAX001"
    assert why.startswith(
        "the argument's mesh reaches here as `Registered(struct(AbstractMesh((8,), "
    )
    assert "jaxfix lost it at batches.py:24: " in why


STRATEGY = {
    "pkg/__init__.py": "",
    "pkg/strategy.py": """\
        import contextlib

        import jax
        import numpy as np


        class Strategy:
            @property
            def mesh(self):
                return jax.sharding.Mesh(np.array(jax.devices()), ("data",))

            @contextlib.contextmanager
            def activated(self):
                with self.mesh:
                    yield
        """,
    "train.py": """\
        import jax
        from jax.sharding import PartitionSpec as P


        def train(trainer, x):
            with trainer.strategy.activated():
                return jax.jit(lambda v: v, in_shardings=P("data"))(x)
        """,
}


def test_a_legacy_mesh_block_entered_by_an_object_jaxfix_did_not_see_built(
    tmp_path, monkeypatch
):
    """JAX014 cannot tell what runs under a block that yields to users it cannot find."""
    trails = _trails(_project(tmp_path, STRATEGY), monkeypatch, "--no-cache", "-v")
    code, why = trails["pkg/strategy.py:14:9"]
    assert code == "JAX014"
    assert why == (
        "the block yields in `activated`, and jaxfix cannot tell what runs under it "
        "(`activated` at train.py:6 may be it)"
    )


SERVER = {
    "server_args.py": """\
        import dataclasses


        @dataclasses.dataclass
        class ServerArgs:
            mesh_shape: list
            tp_size: int = 1

            @classmethod
            def from_cli_args(cls, args):
                return cls(mesh_shape=args.mesh_shape, tp_size=args.tp_size)
        """,
    "runner.py": """\
        import jax
        import numpy as np
        from jax.sharding import AbstractMesh, use_abstract_mesh


        def run(server_args):
            shape = np.array(server_args.mesh_shape)
            with jax.set_mesh(jax.make_mesh((4, 2), ("data", "model"))):
                with use_abstract_mesh(AbstractMesh(tuple(shape), ("data", "model"))):
                    pass


        def run_tp(server_args):
            tp = int(server_args.tp_size)
            with jax.set_mesh(jax.make_mesh((4, 2), ("data", "model"))):
                with use_abstract_mesh(AbstractMesh((8 // tp, tp), ("data", "model"))):
                    pass
        """,
    "main.py": """\
        import argparse

        from runner import run, run_tp
        from server_args import ServerArgs

        parser = argparse.ArgumentParser()
        parser.add_argument("--mesh-shape", type=int, nargs="+", default=[4, 2])
        parser.add_argument("--tp-size", type=int, default=1)
        server_args = ServerArgs.from_cli_args(parser.parse_args())
        run(server_args)
        run_tp(server_args)
        """,
}


def test_a_conversion_of_a_value_from_the_command_line_keeps_its_trail(
    tmp_path, monkeypatch
):
    """`np.array(server_args.mesh_shape)`, `int(server_args.tp_size)` of a config built from
    argparse's namespace: the trail ends where the namespace was made, not at the call of
    NumPy or `int`."""
    trails = _trails(_project(tmp_path, SERVER), monkeypatch, "--no-cache", "-v")
    code, why = trails["runner.py:9:14"]
    assert code == "JAX002"
    assert why.endswith(
        "jaxfix lost it at main.py:6: `tuple(...)` of `numpy.array(...)` of `.mesh_shape` "
        "of a call of `.parse_args` of a call of `argparse.ArgumentParser`"
    ), why
    code, why = trails["runner.py:16:14"]
    assert code == "JAX002"
    assert why.endswith(
        "jaxfix lost it at main.py:6: `int(...)` of `.tp_size` of a call of `.parse_args` "
        "of a call of `argparse.ArgumentParser`"
    ), why


JITTED_BODY = {
    "model.py": """\
        import jax
        from jax._src.shard_map import top_level_all_gather
        from jax.sharding import PartitionSpec as P


        @jax.jit
        def gather(x):
            y = x * 2
            return top_level_all_gather(y, P(reduced={"x"}))
        """,
    "data.py": """\
        import json
        import pickle


        def load_sharding():
            return json.load(open("sharding.json"))


        def load_other():
            return pickle.load(open("sharding.pkl", "rb"))
        """,
    "main.py": """\
        import jax
        import numpy as np
        from jax.sharding import AxisType

        from data import load_sharding
        from model import gather

        mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
        with jax.set_mesh(mesh):
            a = jax.device_put(np.zeros(8), load_sharding())
            out = gather(a)
        """,
}


def test_a_jitted_body_names_the_parameter_and_the_call_that_passed_the_value(
    tmp_path, monkeypatch
):
    """The gather's input is an operation of the jitted function's parameter; its placement
    was lost in another module, reached through the one call of `gather`: the trail names
    that step (it said only "lost it at line 8: an operation jaxfix does not evaluate")."""
    trails = _trails(_project(tmp_path, JITTED_BODY), monkeypatch, "--no-cache", "-v")
    code, why = trails["model.py:9:12"]
    assert code == "JAX003"
    assert why == (
        "the input's mesh reaches here as `y`, from `x`, the parameter of the jitted "
        "`gather` (line 7) that main.py:11 passes as `a`; jaxfix lost it at data.py:6: "
        "a call of `json.load`"
    )


def test_a_parameter_two_calls_pass_names_no_call(tmp_path, monkeypatch):
    """Two calls pass values lost at two places: the value is lost where the parameter is
    read, in the function, and no call is named (neither alone is where it was lost)."""
    files = dict(JITTED_BODY)
    files["main.py"] = JITTED_BODY["main.py"].replace(
        "from data import load_sharding", "from data import load_other, load_sharding"
    ).rstrip(" ") + textwrap.indent(
        "b = jax.device_put(np.zeros(8), load_other())\nout = gather(b)\n", " " * 12
    )
    trails = _trails(_project(tmp_path, files), monkeypatch, "--no-cache", "-v")
    code, why = trails["model.py:9:12"]
    assert code == "JAX003"
    assert why == (
        "the input's mesh reaches here as `y`; jaxfix lost it at line 8: the callers of "
        "`gather` pass different `x`"
    )
