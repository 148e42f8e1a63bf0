"""JAX operations that run eagerly and compile: outside any jitted function, a call of one of
these lowers a small computation on the context mesh (checked on jax 0.10.2 and 0.12.0.1:
under `use_abstract_mesh(M)` with M's axes Explicit, each raises "Passing lowering_platforms
... is required when only AbstractMesh exists"; `numpy`, `jax.eval_shape` and
`jax.device_put` do not). Only calls whose arguments bring no devices count (device_free.py):
a committed array or `device=` may give JAX the devices."""

from __future__ import annotations

import ast
from typing import Protocol

from jaxfix.analysis.ast_engine.device_free import (
    CONVERTERS,
    SHAPE_CONSTRUCTORS,
    jax_numpy_function,
)
from jaxfix.analysis.ast_engine.values import External, Spec, Value

_RANDOM = frozenset({"jax.random.key", "jax.random.PRNGKey"})
_KEYWORDS = frozenset({"dtype"})


class EagerQuestions(Protocol):
    """What `eager_op` asks of the module's analysis."""

    def value_of(self, expr: ast.expr) -> Value: ...

    def brings_no_devices(self, expr: ast.expr) -> bool: ...


def eager_op(call: ast.Call, analysis: EagerQuestions) -> str | None:
    """The qualified name of the JAX op `call` runs, when it computes (and so lowers) and its
    arguments bring no devices; None otherwise."""
    callee = analysis.value_of(call.func)
    if not isinstance(callee, External):
        return None
    name = callee.name
    if name not in _RANDOM and jax_numpy_function(name) not in (
        SHAPE_CONSTRUCTORS | CONVERTERS
    ):
        return None
    if any(
        k.arg not in _KEYWORDS
        and not (
            k.arg == "out_sharding" and isinstance(analysis.value_of(k.value), Spec)
        )
        for k in call.keywords
    ):
        return None  # a bare spec's out_sharding is on the context mesh: no devices
    if not all(
        not isinstance(a, ast.Starred) and analysis.brings_no_devices(a)
        for a in call.args
    ):
        return None
    return name
