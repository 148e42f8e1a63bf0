"""`jaxfix repair` on tests/repair_projects/factories, under real JAX on both tiers: a frozen
dataclass built by per-size classmethods through a `cls._from_param(**kwargs)` factory (the
model class holding it, built by a test helper method) is resized at the failing size's
factory keyword; a layout read from a table by an argparse flag's value and unpacked into the
mesh factory (`create_abstract_mesh(*layout)`) is changed in the one entry holding the run's
sizes. A recipe dataclass returned by a `match` on its name (its field default its own or a
base's), passed to a context manager that replaces a `None` recipe, is given its own sizes
where the one recipe holding the run's sizes is built. A gather's input on one mesh of a NamedTuple container, its out_sharding (a local
`NamedSharding`) on the other, entered around the jitted call: the input is moved there.
The working sizes (the small config's keyword, the "dp" layout) and the working gather are
never changed, and a size computed from the process count is named with its line."""

from __future__ import annotations

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

PROJECT = Path(__file__).parents[1] / "repair_projects" / "factories"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_factory_keyword_and_a_flag_chosen_table_entry_are_changed_where_written(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "factories")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report  # the size computed from the process count is left
    assert changed(before, tree) == {
        "models/config.py",
        "models/layouts.py",
        "models/gather.py",
        "models/recipes.py",
    }
    after = snapshot(tree)
    assert after["models/config.py"] == before["models/config.py"].replace(
        b"decode_mesh_shape=(2, 2)", b"decode_mesh_shape=(4, 2)"
    )
    assert after["models/layouts.py"] == before["models/layouts.py"].replace(
        b'"dp_tpsp": (2, 2)', b'"dp_tpsp": (4, 2)'
    )
    # a recipe chosen by name in a `match`, passed to a context manager that replaces a
    # `None` recipe: the one return whose (own or inherited) field default holds the
    # run's sizes gets its own sizes where it is built; the other recipes are unchanged
    assert after["models/recipes.py"] == before["models/recipes.py"].replace(
        b"return TiledScaling()", b"return TiledScaling(amax_mesh_shape=(4, 2))"
    )
    # the out_sharding's mesh is a NamedTuple's attribute, entered around the call: the
    # input is moved onto it at the call; the working gather is never changed
    gather = after["models/gather.py"].decode()
    assert "    train = meshes.train\n    with jax.set_mesh(train):\n" in gather
    assert "NamedSharding(train, jax.typeof(losses).sharding.spec)" in gather
    assert gather.count("with jax.set_mesh(meshes.train):") == 1  # the working one
    assert gather.endswith(
        before["models/gather.py"].decode().split("def gather_train_losses")[1]
    )
    (left,) = report["left"]
    assert (left["path"], left["line"]) == ("models/runner.py", 28)
    assert (
        "`2 * jax.process_count()`, written at models/config.py:32 and computed from "
        "`jax.process_count()` when it runs"
    ) in left["detail"]
