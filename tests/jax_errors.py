"""The JAX error each fixture key stands for: the exact start of the message JAX raises.

A rule's own errors come from its `raises` (the one table of them); the others are the JAX
errors its fixtures document next to it."""

from fixture_cases import rule_fixtures
from jaxfix.codemods import RULES
from jaxfix.fromlog.errors import message_start

JAX_ERRORS = {
    **{
        found.rule.code: message_start(found.rule.raises[0])
        for found in rule_fixtures()  # the suite's rules too
        if found.rule.raises
    },
    "JAX001-devices": message_start(RULES["JAX001"].raises[1]),
    # `from jax.sharding import use_mesh`: the import fails before the call (JAX006's fix).
    "JAX006-import": "cannot import name 'use_mesh' from 'jax.sharding'",
    # What runs inside `with mesh:` raises, by the API that needs the context mesh.
    "JAX014-device-put": message_start(RULES["JAX014"].raises[1]),
    "JAX014-shard-map": message_start(RULES["JAX014"].raises[2]),
    # pjit with PartitionSpecs and no `with mesh:`, which JAX103 reports without a fix.
    "JAX103-partition-spec": "pjit requires a non-empty mesh in context",
    # auto_axes given an out_sharding on another mesh than the context's (JAX011's second).
    "JAX011-auto-axes": message_start(RULES["JAX011"].raises[1]),
    # An operation on an array of another mesh than the context's (JAX011's third).
    "JAX011-aval": message_start(RULES["JAX011"].raises[2]),
    # jax.export of a function calling buffer_callback (JAX012's second).
    "JAX012-export": message_start(RULES["JAX012"].raises[1]),
    # shard_map's in_specs naming an Explicit axis of an input not so sharded (JAX013's second).
    "JAX013-shard-map": message_start(RULES["JAX013"].raises[1]),
    # A dot_general of operands sharded on Explicit axes (JAX013's third and fourth), raised
    # as jax's ShardingTypeError: the key names the message, not the exception's module.
    "JAX013-contracting": message_start(RULES["JAX013"].raises[2]),
    "JAX013-conflicting": message_start(RULES["JAX013"].raises[3]),
    # A with_sharding_constraint under jax.set_mesh of Explicit axes is an assertion on the
    # array's sharding (JAX013's fifth, an AssertionError).
    "JAX013-asserted": message_start(RULES["JAX013"].raises[4]),
    # An array whose first dimension is sharded on an Explicit axis, indexed by an array.
    "JAX013-gather": message_start(RULES["JAX013"].raises[5]),
    # A committed array next to an AbstractMesh sharding: its device decides, and is too few.
    "JAX001-committed": "does not match the device assignment size",
    # Arguments sharded on AbstractMeshes of different sizes: JAX fails before JAX001.
    "JAX001-sizes": "AbstractMesh should be of the same size across all shardings",
    # Arguments on different AbstractMeshes with Explicit axes, combined by an operation.
    "JAX001-mesh-mismatch": "Mesh for all inputs should be equal",
    # top_level_all_gather's other mesh failures, which JAX003 fixtures document.
    "JAX003-context": "Context mesh AbstractMesh(",
    "JAX003-not-explicit": (
        "top_level_all_gather works when all mesh axes of context mesh are explicit"
    ),
    "JAX003-devices": "Received incompatible devices for jitted computation",
    # An internal assert whose message is the input's Auto-typed mesh; the runner reports
    # errors as "Type: message", and the type is what tells this one apart.
    "JAX003-input-auto": "AssertionError: AbstractMesh(",
}
