"""JAX013 asks the value of a callee spelled as a bare imported name only where its import
spells one of the APIs the rule looks for (`from jax.lax import with_sharding_constraint as
wsc`): a function imported from the project under another name (`from helpers import
prepare`) is never one of them, and asking its value parses the module it comes from."""

from __future__ import annotations

from pathlib import Path

from jaxfix.analysis.ast_engine import project as project_module
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.settings.options import Options

HELPERS = "def prepare(a):\n    return a * 2\n"
MAIN = """\
import jax.numpy as jnp
from jax import jit, make_mesh
from jax.lax import with_sharding_constraint as wsc
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from helpers import prepare

mesh = make_mesh((4, 2), ("data", "model"))
columns = NamedSharding(mesh, P(None, "model"))


@jit
def double(a):
    return wsc(a * 2, columns)


print(prepare(3), double(jnp.ones((4, 2))).sum())
"""


def test_a_project_function_called_by_a_bare_name_is_not_asked(tmp_path, monkeypatch):
    (tmp_path / "helpers.py").write_text(HELPERS)
    main = tmp_path / "main.py"
    main.write_text(MAIN)
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
    assert [(d.code, d.start.line) for d in result.diagnostics] == [("JAX013", 15)]
    assert parsed == ["main.py"]
