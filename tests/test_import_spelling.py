"""How a module already spells what a fix needs (jaxfix/codemods/import_spelling.py, over the
LibCST tree of a file that gets a fix): fixes reuse its imports instead of adding some."""

from __future__ import annotations

import libcst as cst

from jaxfix.analysis.names import Api
from jaxfix.codemods.import_spelling import api_spelling, module_spelling


def test_import_spellings() -> None:
    module = cst.parse_module(
        "import jax as jx\nfrom jax.sharding import NamedSharding as NS\n"
    )
    assert module_spelling(module, "jax") == ("jx", ())
    assert api_spelling(module, Api.NAMED_SHARDING, "jax.sharding") == ("NS", ())
    bare = cst.parse_module("import jax.numpy as jnp\n")
    assert module_spelling(bare, "jax") == ("jax", (("jax", None),))
    assert api_spelling(bare, Api.NAMED_SHARDING, "jax.sharding") == (
        "NamedSharding",
        (("jax.sharding", "NamedSharding"),),
    )
    assert module_spelling(cst.parse_module("import jax.sharding\n"), "jax") == (
        "jax",
        (),
    )
