"""`jaxfix repair` on tests/repair_projects/meshdicts, under real JAX on both tiers: JAX003
gathers whose context mesh is named another way than a name or attribute:

- an entry of a dict of meshes (`with jax.set_mesh(self._meshes["train"]):`): the input is
  moved onto that entry, bound once to a local before the `with` (the fix reads it twice);
- a mesh entered by a helper context manager (`with inference_context(runner):`, whose body
  is `with jax.set_mesh(runner.mesh): yield`), where the run noted it entered: the input is
  moved onto `runner.mesh`, the mesh as this caller names it.

The gathers whose input is on that mesh already (`train_total` in each module) are never
changed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from jaxfix.codemods.jax003_all_gather_mesh import (
    _assigned_in,
    _changes,
    _plain_reference,
)
from workflows.test_repair import (
    changed,
    copied,
    python,
    repair_with_pytest,
    snapshot,
)

PROJECT = Path(__file__).parents[1] / "repair_projects" / "meshdicts"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_dict_entry_and_a_helper_s_context_mesh_get_the_input_moved_onto_them(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "meshdicts")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 0 and report["passed"], report
    assert sorted((f["code"], f["path"], f["line"]) for f in report["fixed"]) == [
        ("JAX003", "serve/contexts.py", 19),
        ("JAX003", "serve/runner.py", 30),
    ]
    assert changed(before, tree) == {"serve/runner.py", "serve/contexts.py"}
    after = {k: v.decode() for k, v in snapshot(tree).items()}
    old = {k: v.decode() for k, v in before.items()}
    contexts = after["serve/contexts.py"]
    assert "NamedSharding(runner.mesh, jax.typeof(x).sharding.spec)" in contexts
    # the gather whose input is on the context's mesh already is as it was
    train = old["serve/contexts.py"].split("def train_total")[1]
    assert contexts.endswith(train)
    runner = after["serve/runner.py"]
    assert runner.count('\n        mesh = self._meshes["train"]\n') == 1
    assert "with jax.set_mesh(mesh):" in runner
    assert runner.endswith(old["serve/runner.py"].split("def train_total")[1])


def _block(source: str) -> ast.With:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.With)
    return node


class _Text:
    """What `_assigned_in` reads of an Analysis: the text of a node."""

    def text(self, node: ast.AST) -> str:
        return ast.unparse(node)


@pytest.mark.parametrize(
    ("body", "assigned"),
    [
        ("y = f(x)", False),
        ('self._meshes["train"] = other', True),
        ("self._meshes = {}", True),
        ("self._meshes[name] = other", True),
        ("self._meshes.update(other)", True),
    ],
)
def test_a_mesh_read_from_a_dict_is_the_same_mesh_unless_the_block_changes_the_dict(
    body, assigned
):
    block = _block(f'with jax.set_mesh(self._meshes["train"]):\n    {body}\n')
    reference = block.items[0].context_expr.args[0]
    assert _plain_reference(reference)
    assert (
        _assigned_in(block, ast.unparse(reference), _Text()) is assigned  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("expr", "plain"),
    [
        ('self._meshes["train"]', True),
        ("meshes[0].mesh", True),
        ("self._meshes[name]", False),
        ("make()[0]", False),
    ],
)
def test_only_entries_read_by_a_literal_key_are_plain_references(expr, plain):
    assert _plain_reference(ast.parse(expr, mode="eval").body) is plain


@pytest.mark.parametrize(
    ("between", "changed"),
    [
        ("y = 1", False),
        ("self._meshes.clear()", True),
        ("self._meshes['train'] = m", True),
    ],
)
def test_statements_between_an_out_sharding_and_its_with_that_change_the_dict_are_seen(
    between, changed
):
    statements = ast.parse(between).body
    assert (
        _changes(statements, 'self._meshes["train"]', _Text()) is changed  # type: ignore[arg-type]
    )
