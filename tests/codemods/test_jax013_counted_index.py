"""JAX013's gather check does not ask the value of an index that is a `range(...)` (or
`np.ndindex(...)`) loop's or comprehension's variable, or the count of `enumerate(...)`: an
int (a tuple of ints) whatever the iterable, never an index array. Asking it would follow the iterable (here into another module, which
would be parsed) for an answer the rule never reads. A `range` that is not Python's is
asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import project as project_module
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.settings.options import Options

HELPERS = "def width(a):\n    return a.shape[0]\n"
GATHER = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from helpers import width

mesh = jax.make_mesh((4, 2), ("data", "model"))
emb = jax.device_put(np.ones((64, 32), np.float32), NamedSharding(mesh, P("model", "data")))
tokens = jnp.asarray(np.arange(8 * 16).reshape(8, 16) % 64, dtype=jnp.int32)


def rows(x):
    first = [x[i] for i in range(width(x))]
    for j, _ in enumerate(x[: width(x)]):
        first.append(x[j])
    for k in np.ndindex(width(x), 2):
        first.append(x[k])
    for m, _ in np.ndenumerate(x[: width(x)]):
        first.append(x[m])
    return first


@jax.jit
def forward(emb, tokens):
    return jnp.einsum("btd->bt", emb[tokens])


with jax.set_mesh(mesh):
    print(forward(emb, tokens).sum(), rows(emb))
"""


def _checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, main_text: str
) -> tuple[list[tuple[str, int]], list[str]]:
    (tmp_path / "helpers.py").write_text(HELPERS)
    main = tmp_path / "main.py"
    main.write_text(main_text)
    parsed: list[str] = []
    original = project_module._parse

    def recorded(path: Path, source: bytes) -> object:
        parsed.append(path.name)
        return original(path, source)

    monkeypatch.setattr(project_module, "_parse", recorded)
    options = Options(select=("JAX013",), jax_version=(0, 10, 2))
    files = tuple(sorted(tmp_path.glob("*.py")))
    with Run(options, roots=(tmp_path,)).scoped(files).checking() as run:
        result = check_file(run, main, main.read_bytes())
    return [(d.code, d.start.line) for d in result.diagnostics], parsed


def test_a_counted_index_is_not_asked(tmp_path, monkeypatch):
    found, parsed = _checked(tmp_path, monkeypatch, GATHER)
    assert found == [("JAX013", 27)]  # the embedding's gather, still found
    assert parsed == ["main.py"]  # `width(x)`, the iterables' bound, never followed


def test_a_range_of_the_tree_is_asked(tmp_path, monkeypatch):
    shadowed = GATHER.replace(
        "\n\ndef rows(x):", "\n\ndef range(n):\n    return tokens[:n]\n\n\ndef rows(x):"
    )
    found, parsed = _checked(tmp_path, monkeypatch, shadowed)
    assert found == [("JAX013", 31)]
    assert "helpers.py" in parsed
