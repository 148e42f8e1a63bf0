"""scripts/tree_tests.py: a tree migrated with `--select ALL --unsafe-fixes`, its own tests of the
changed files run before and after under real JAX, compared test by test."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from fixture_cases import ROOT

pytestmark = pytest.mark.jax

SHARDED = """\
import jax
import numpy as np
from jax.experimental.shard_map import shard_map
from jax.sharding import NamedSharding, PartitionSpec as P


def total(values):
    mesh = jax.make_mesh((8,), ("x",))
    x = jax.device_put(np.asarray(values), NamedSharding(mesh, P("x")))
    summed = shard_map(lambda b: jax.lax.psum(b.sum(), "x"), mesh, P("x"), P(), check_rep=False)
    return float(summed(x))
"""
LEGACY = """\
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def doubled():
    mesh = jax.make_mesh((8,), ("x",))
    x = jnp.arange(8.0)
    with mesh:
        return jax.jit(lambda a: a * 2, in_shardings=P("x"))(x)
"""
TEST_SHARDED = """\
import os

from pkg.sharded import total


def test_total():
    assert total(range(8)) == 28.0


def test_a_fixed_name_in_its_own_temporary_folder():
    with open(os.path.join(os.environ["TEST_TMPDIR"], "once"), "x"):
        pass
"""
# One test the migration makes pass, one that asserted the old error and so fails after it.
TEST_LEGACY = """\
import pytest

from pkg.legacy import doubled


def test_doubled():
    assert float(doubled().sum()) == 56.0


def test_the_old_error():
    with pytest.raises(RuntimeError, match="non-empty mesh"):
        doubled()
"""
TEST_OTHER = """\
def test_unrelated():
    assert True
"""


def _script():
    spec = importlib.util.spec_from_file_location(
        "tree_tests", ROOT / "scripts" / "tree_tests.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


def test_a_migrated_tree_is_tested_before_and_after(tmp_path: Path, capsys):
    tree = tmp_path / "tree"
    for name, text in {
        "pkg/__init__.py": "",
        "pkg/sharded.py": SHARDED,
        "pkg/legacy.py": LEGACY,
        "tests/test_sharded.py": TEST_SHARDED,
        "tests/test_legacy.py": TEST_LEGACY,
        "tests/test_other.py": TEST_OTHER,
    }.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    results = tmp_path / "results.json"

    code = _script().main(
        [str(tree), "--python", sys.executable, "--work", str(tmp_path / "work")]
        + ["--json", str(results)]
    )

    out = capsys.readouterr().out
    assert code == 1, out  # test_the_old_error passed before, not after
    found = json.loads(results.read_text())
    assert found["fixes"] == {
        "pkg/legacy.py": {"JAX014": 1},
        "pkg/sharded.py": {"JAX101": 1},
    }
    assert found["tests"] == {
        "tests/test_legacy.py": ["pkg/legacy.py"],
        "tests/test_sharded.py": ["pkg/sharded.py"],
    }  # test_other.py imports nothing changed
    legacy = "tests/test_legacy.py::tests.test_legacy::"
    assert found["worse"] == [f"{legacy}test_the_old_error"]
    assert found["better"] == [f"{legacy}test_doubled"]
    assert (
        found["before"]["tests/test_sharded.py::tests.test_sharded::test_total"]
        == "passed"
    )
    assert (
        found["after"]["tests/test_sharded.py::tests.test_sharded::test_total"]
        == "passed"
    )
    assert "- tests/test_legacy.py: 1/1/0/0 -> 1/1/0/0" in out
    assert "- tests/test_sharded.py: 2/0/0/0 -> 2/0/0/0" in out  # a TEST_TMPDIR each
    assert (
        tree / "pkg/legacy.py"
    ).read_text() == LEGACY  # the tree itself is untouched
    assert (
        "with jax.set_mesh(mesh):"
        in (tmp_path / "work/after/pkg/legacy.py").read_text()
    )
