"""JAX003 cases beyond the fixtures: import spellings in the fix, pytree pairing, bindings, callers."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import run_engine
from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.codemods.bindings import local_for

MESHES = """\
E = (AxisType.Explicit, AxisType.Explicit)
mesh_a = jax.make_mesh((2, 4), ("x", "y"), axis_types=E)
mesh_b = jax.make_mesh((4, 2), ("x", "y"), axis_types=E)
"""
HEADER = (
    """\
import jax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
from jax._src.shard_map import top_level_all_gather
"""
    + MESHES
)
X_A = 'x = jax.device_put(arr, NamedSharding(mesh_a, P("x")))\n'
UNSAFE = ["--unsafe-fixes"]


def jax003(source: str, args=UNSAFE):
    result = run_engine(source, args)
    assert result.error is None, result.error
    return [d for d in result.diagnostics if d.code == "JAX003"], (
        result.fixed or b""
    ).decode()


def test_the_fix_uses_the_modules_alias_for_named_sharding():
    source = HEADER.replace("NamedSharding,", "NamedSharding as NS,").replace(
        "NamedSharding(", "NS("
    ) + (
        'x = jax.device_put(arr, NS(mesh_a, P("x")))\nwith jax.set_mesh(mesh_b):\n    y = top_level_all_gather(x, P())\n'
    )
    found, fixed = jax003(source)
    assert len(found) == 1
    assert (
        "top_level_all_gather(\n        jax.device_put(x, NS(mesh_b, jax.typeof(x).sharding.spec)),\n        P(),\n    )"
        in fixed
    )
    assert "import NamedSharding" not in fixed


def test_the_fix_imports_named_sharding_when_the_module_spells_it_through_jax():
    source = (
        "import jax\nfrom jax.sharding import AxisType, PartitionSpec as P\n"
        "from jax._src.shard_map import top_level_all_gather\n"
        + MESHES
        + 'x = jax.device_put(arr, jax.sharding.NamedSharding(mesh_a, P("x")))\n'
        + "with jax.set_mesh(mesh_b):\n    y = top_level_all_gather(x, P())\n"
    )
    found, fixed = jax003(source)
    assert len(found) == 1
    assert (
        "from jax.sharding import AxisType, NamedSharding, PartitionSpec as P" in fixed
    )


def test_device_keyword_of_device_put_is_followed():
    source = (
        HEADER
        + 'x = jax.device_put(arr, device=NamedSharding(mesh_a, P("x")))\n'
        + ("with jax.set_mesh(mesh_b):\n    y = top_level_all_gather(x, P())\n")
    )
    found, _ = jax003(source)
    assert len(found) == 1


def test_a_tuple_of_inputs_with_a_list_of_shardings_is_not_paired():
    source = (
        HEADER
        + X_A
        + "with jax.set_mesh(mesh_b):\n    y = top_level_all_gather((x, x), [P(), P()])\n"
    )
    assert jax003(source)[0] == []


def test_a_dict_of_shardings_is_paired_by_key():
    source = (
        HEADER
        + X_A
        + 'u = jax.device_put(arr, NamedSharding(mesh_b, P("x")))\n'
        + (
            'with jax.set_mesh(mesh_b):\n    y = top_level_all_gather({"a": u, "b": x}, {"b": P(), "a": P()})\n'
        )
    )
    found, fixed = jax003(source)
    assert len(found) == 1
    assert '"a": u, "b": jax.device_put(x,' in fixed


def test_an_input_rebound_is_the_binding_that_reaches_the_gather():
    gather = "with jax.set_mesh(mesh_b):\n    y = top_level_all_gather(x, P())\n"
    x_b = X_A.replace("mesh_a", "mesh_b")
    assert len(jax003(HEADER + x_b + X_A + gather)[0]) == 1
    assert jax003(HEADER + X_A + x_b + gather)[0] == []


def test_an_input_bound_differently_on_two_branches_is_unknown():
    source = (
        HEADER
        + "if flag:\n    "
        + X_A
        + "else:\n    "
        + X_A.replace("mesh_a", "mesh_b")
        + "with jax.set_mesh(mesh_b):\n    y = top_level_all_gather(x, P())\n"
    )
    assert jax003(source)[0] == []


def test_a_named_sharding_bound_to_a_name_is_reported_without_a_fix():
    source = (
        HEADER
        + X_A
        + 'out = NamedSharding(mesh_b, P(reduced={"x"}))\n'
        + ("with jax.set_mesh(mesh_a):\n    y = top_level_all_gather(x, out)\n")
    )
    found, fixed = jax003(source)
    assert len(found) == 1 and found[0].fix_title is None
    assert "not written in this call" in found[0].message
    assert fixed == ""


def test_a_spec_with_axes_the_context_lacks_gets_no_fix():
    source = (
        HEADER
        + X_A
        + (
            'with jax.set_mesh(mesh_a):\n    y = top_level_all_gather(x, NamedSharding(mesh_b, P(reduced={"z"})))\n'
        )
    )
    found, _ = jax003(source)
    assert len(found) == 1 and found[0].fix_title is None


def test_one_sharding_for_two_foreign_leaves_is_reported_once():
    source = (
        HEADER
        + X_A
        + (
            'with jax.set_mesh(mesh_a):\n    y = top_level_all_gather((x, x), NamedSharding(mesh_b, P(reduced={"x"})))\n'
        )
    )
    found, fixed = jax003(source, [])
    assert len(found) == 1
    assert 'NamedSharding(mesh_a, P(reduced={"x"}))' in fixed


def test_an_unrelated_context_manager_does_not_hide_the_mesh():
    source = (
        HEADER
        + X_A
        + (
            "with jax.set_mesh(mesh_b):\n    with open('log') as f:\n        y = top_level_all_gather(x, P())\n"
        )
    )
    assert len(jax003(source)[0]) == 1


def test_a_helper_that_may_set_a_mesh_makes_the_context_unknown():
    source = (
        HEADER
        + X_A
        + (
            "with jax.set_mesh(mesh_b):\n    with enter_my_mesh():\n        y = top_level_all_gather(x, P())\n"
        )
    )
    assert jax003(source)[0] == []


def test_a_with_around_a_def_is_not_the_context_of_its_body():
    source = (
        HEADER
        + X_A
        + (
            "with jax.set_mesh(mesh_b):\n    def later():\n        return top_level_all_gather(x, P())\n"
        )
    )
    assert jax003(source)[0] == []


def test_callers_on_both_meshes_get_one_diagnostic_and_one_fix():
    source = HEADER + (
        "def gather(v):\n    with jax.set_mesh(mesh_b):\n        return top_level_all_gather(v, P())\n\n"
        + X_A
        + 'u = jax.device_put(arr, NamedSharding(mesh_b, P("x")))\ngather(u)\ngather(x)\n'
    )
    found, fixed = jax003(source)
    assert len(found) == 1
    assert "passed at line" in found[0].message
    assert (
        "jax.device_put(v, NamedSharding(mesh_b, jax.typeof(v).sharding.spec)),\n            P(),\n        )"
        in fixed
    )


def test_a_caller_without_a_mesh_context_is_not_a_site():
    source = (
        HEADER
        + "def gather(v):\n    return top_level_all_gather(v, P())\n\n"
        + X_A
        + "gather(x)\n"
    )
    assert jax003(source)[0] == []


def test_set_mesh_none_clears_the_context():
    source = (
        HEADER
        + X_A
        + (
            "with jax.set_mesh(mesh_b):\n    with jax.set_mesh(None):\n        y = top_level_all_gather(x, P())\n"
        )
    )
    assert jax003(source)[0] == []


def test_suppression_comment():
    source = (
        HEADER
        + X_A
        + (
            "with jax.set_mesh(mesh_b):\n    y = top_level_all_gather(x, P())  # jaxfix: ignore[JAX003]\n"
        )
    )
    assert jax003(source)[0] == []


def test_a_caller_in_another_folder_is_named_with_its_path(tmp_path):
    """`passed at line 11 of tests/test_gather.py`, not `of test_gather.py`: a project may
    have several files of that name."""
    project = Path(__file__).parents[1] / "repair_projects" / "callers"
    done = subprocess.run(
        [sys.executable, "-m", "jaxfix", "--no-cache", "."],
        cwd=shutil.copytree(project, tmp_path / "callers"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (
        "the input is `x`, passed at line 11 of tests/test_gather.py"
        in done.stderr + done.stdout
    ), done.stderr


def test_a_mesh_entered_in_another_function_is_not_bound_there():
    """The binding of an attribute mesh goes before the statement that entered it only when
    that statement is in the gather's own function: a local bound in setUp would not exist
    where the move reads it (the bindings' scope check, asked directly)."""
    source = (
        "import jax\n"
        "class T:\n"
        "    def setUp(self):\n"
        "        jax.set_mesh(self.mesh)\n"
        "    def test(self):\n"
        "        return f(self.w)\n"
    )
    engine = Engine(jax_version=(0, 10, 2))
    module = engine.module(Path("example.py").absolute(), source.encode())
    analysis = Analysis(engine, module)
    tree = module.tree
    entered = next(
        n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "mesh"
    )
    read = next(
        n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "w"
    )
    assert local_for(analysis, entered, "mesh") is not None  # in setUp itself
    assert local_for(analysis, entered, "mesh", read_at=read) is None
    assert local_for(analysis, read, "w", read_at=read).name == "w"
    # the fix's other local (an input `a.w` bound as `w`) is never taken again
    assert local_for(analysis, read, "w", avoid=frozenset({"w"})).name == "w_2"
