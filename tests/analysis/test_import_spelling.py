"""How a module already spells what a fix needs (jaxfix/analysis/ast_engine/spelling.py, over
the module's `ast`): fixes reuse its imports instead of adding some."""

from __future__ import annotations

import ast

from jaxfix.analysis.ast_engine.spelling import api_spelling, module_spelling
from jaxfix.analysis.names import Api


def test_import_spellings() -> None:
    module = ast.parse(
        "import jax as jx\nfrom jax.sharding import NamedSharding as NS\n"
    )
    assert module_spelling(module, "jax") == ("jx", ())
    assert api_spelling(module, Api.NAMED_SHARDING, "jax.sharding") == ("NS", ())
    bare = ast.parse("import jax.numpy as jnp\n")
    assert module_spelling(bare, "jax") == ("jax", (("jax", None),))
    assert api_spelling(bare, Api.NAMED_SHARDING, "jax.sharding") == (
        "NamedSharding",
        (("jax.sharding", "NamedSharding"),),
    )
    assert module_spelling(ast.parse("import jax.sharding\n"), "jax") == ("jax", ())
