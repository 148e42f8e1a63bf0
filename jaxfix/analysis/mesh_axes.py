"""Which axis of an inner mesh to resize so that it has the enclosing mesh's size.

Shared by JAX002's fix (jaxfix/codemods/jax002_abstract_mesh_size.py) and the walk to where
the sizes are written (jaxfix/check/value_sites.py), so both follow the same axis.
"""

from __future__ import annotations

from collections.abc import Sequence


def differing_axes(
    inner_names: Sequence[str],
    inner_sizes: Sequence[int | None],
    outer_names: Sequence[str],
    outer_sizes: Sequence[int | None],
) -> list[int]:
    """The inner axes whose size differs from the enclosing mesh's axis of the same name; when
    none does, the one inner axis the enclosing mesh has no axis of that name for (a mesh that
    relabels the devices: `update(axis_sizes=(ep, tp), axis_names=("expert", "tensor"))`
    inside a ("data", "tensor") mesh resizes "expert"), if there is exactly one."""
    outer = dict(zip(outer_names, outer_sizes))
    differing = [
        index
        for index, (name, size) in enumerate(zip(inner_names, inner_sizes))
        if name in outer and outer[name] != size
    ]
    if differing:
        return differing
    new = [index for index, name in enumerate(inner_names) if name not in outer]
    return new if len(new) == 1 else []
