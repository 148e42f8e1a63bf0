"""`jaxfix repair` on tests/repair_projects/enginefns, under real JAX on both tiers: each
server class lists its engines' creation functions as `functools.partial(make_engine, ...,
width=N)` in a class attribute, and `build(server, devices)` calls each in a comprehension.
The wide server's partial gives its abstract mesh 4 of the 8 devices (JAX010, raised inside
the jitted step): the walk goes from the mesh, through the call the comprehension made, to
the partial's keyword in the class the run passed, which is set to the device assignment's
size the message states. The full server's partial (width 8) runs, and is not changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import PROJECTS, repaired
from workflows.test_repair import changed, copied, python, repair_with_pytest, snapshot


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_partials_keyword_is_set_to_the_device_assignments_size(tmp_path, version):
    run = repaired("enginefns", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"serve/configs.py"}
    assert run.now("serve/configs.py") == run.replaced(
        "serve/configs.py",
        (b"scale=2.0, width=4)", b"scale=2.0, width=8)"),
    )
    [(path, line, detail)] = run.fixed
    assert (path, line) == ("serve/engines.py", 22), run.fixed
    assert "set axis 'x' to 8 where its size is written" in detail, detail
    assert "serve/configs.py:15" in detail, detail


@pytest.mark.jax
def test_without_unsafe_fixes_the_keyword_is_named_as_written(tmp_path):
    """The site left names the origin by what its line holds (`width=4`), not by the name
    the walk first followed."""
    tree = copied(PROJECTS / "enginefns", tmp_path / "enginefns")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(tree, tmp_path, python(JAX_VERSIONS[0]), "-q")
    assert code == 1, report
    assert changed(before, tree) == set()
    [left] = report["left"]
    assert (left["path"], left["line"]) == ("serve/engines.py", 22), left
    assert "(width=4, serve/configs.py:15)" in left["detail"], left["detail"]
