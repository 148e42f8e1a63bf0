"""The internal spellings jaxfix maps to a JAX API are that API, on every JAX tier.

`jaxfix.analysis.names` maps `jax._src.sharding_impls.make_mesh`, `jax._src.mesh.Mesh`, ... (how
JAX's own code and test helpers spell them) to the same `Api` as the public name. That is only
right while they are the very same object: checked with `is` under each real JAX.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from codemods.test_real_jax import JAX_VERSIONS, interpreters
from jaxfix.analysis.names import _QUALIFIED_NAMES

pytestmark = pytest.mark.jax

_PROBE = """
import importlib, json, sys

def lookup(qualified):
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part, None)
        return found
    return None

pairs = json.loads(sys.stdin.read())
answers = []
for public, internal in pairs:
    a, b = lookup(public), lookup(internal)
    answers.append("missing" if b is None or a is None else ("same" if a is b else "different"))
print(json.dumps(answers))
"""


def _internal_pairs() -> list[tuple[str, str]]:
    """(the API's first spelling, an internal spelling of it) for every `jax._src.` spelling."""
    return [
        (spellings[0], spelling)
        for spellings in _QUALIFIED_NAMES.values()
        for spelling in spellings
        if spelling.startswith("jax._src.")
    ]


def test_internal_spellings_are_mapped():
    internal = dict((b, a) for a, b in _internal_pairs())
    assert internal["jax._src.sharding_impls.make_mesh"] == "jax.make_mesh"
    assert internal["jax._src.sharding_impls.set_mesh"] == "jax.set_mesh"
    assert internal["jax._src.mesh.Mesh"] == "jax.sharding.Mesh"


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_internal_spellings_are_the_public_objects(version):
    python = interpreters().get(version)
    if python is None:
        pytest.skip(f"no interpreter with jax {version}")
    pairs = _internal_pairs()
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [python, "-c", _PROBE],
        input=json.dumps(pairs),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    answers = dict(zip(pairs, json.loads(done.stdout)))
    assert {pair: answer for pair, answer in answers.items() if answer != "same"} == {}
