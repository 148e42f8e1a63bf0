"""The values the analysis answers with: meshes, axis types, and `Unknown` with its reason.

`Value` is what `ModuleAnalysis.value_of(expr)` returns: a `MeshValue`, `Devices` (a list or
array of JAX devices, by its shape), an `int`, a `str`, an `AxisType`, `None` (the literal), a
tuple of values, or `Unknown(why)` when the code does not show it. Tuples keep unknown elements as `Unknown`, so `(n, 4)` is `(Unknown(...), 4)`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeAlias

import libcst as cst

# The values both engines share are the new engine's (jaxfix/analysis/ast_engine/values.py).
from jaxfix.analysis.ast_engine.values import AxisType as AxisType
from jaxfix.analysis.ast_engine.values import Devices as Devices
from jaxfix.analysis.ast_engine.values import MeshKind as MeshKind
from jaxfix.analysis.ast_engine.values import Unknown as Unknown


@dataclass(frozen=True, kw_only=True)
class MeshValue:
    """What is known about one mesh; a None field (or a None axis size) is unknown."""

    kind: MeshKind
    axis_names: tuple[str, ...] | None
    axis_sizes: tuple[int | None, ...] | None
    axis_types: tuple[AxisType, ...] | None
    has_abstract_device: bool
    node: (
        cst.CSTNode
    )  # the expression that built it (AbstractMesh(...), make_mesh(...), ...)
    name: str | None = (
        None  # the variable it was reached through ("mesh", "self.mesh"), if any
    )

    @property
    def is_abstract(self) -> bool:
        return self.kind is MeshKind.ABSTRACT

    @property
    def is_empty(self) -> bool:
        return self.axis_sizes == () or self.axis_names == ()

    @property
    def size(self) -> int | None:
        sizes = self.axis_sizes
        if sizes is None or any(s is None for s in sizes):
            return None
        return math.prod(s for s in sizes if s is not None)

    @property
    def has_explicit_axis(self) -> bool | None:
        return None if self.axis_types is None else AxisType.EXPLICIT in self.axis_types

    @property
    def all_explicit(self) -> bool:
        return self.axis_types is not None and all(
            t is AxisType.EXPLICIT for t in self.axis_types
        )

    def equals(self, other: MeshValue) -> bool | None:
        """Equal as JAX compares meshes (axis names, sizes, types, abstract device); None when
        what is known cannot tell."""
        verdicts = {
            _same(self.axis_names, other.axis_names),
            _same(self.axis_sizes, other.axis_sizes),
            _same(self.axis_types, other.axis_types),
        }
        if False in verdicts:
            return False
        if None in verdicts:
            return None
        return self.has_abstract_device == other.has_abstract_device

    def shape_text(self) -> str:
        """'(8, 4) ('data', 'model')', with '?' for what is unknown."""
        sizes = (
            "?"
            if self.axis_sizes is None
            else tuple_text(["?" if s is None else str(s) for s in self.axis_sizes])
        )
        names = (
            "?"
            if self.axis_names is None
            else tuple_text([repr(n) for n in self.axis_names])
        )
        return f"{sizes} {names}"


Value: TypeAlias = (
    MeshValue | Devices | int | str | AxisType | None | tuple["Value", ...] | Unknown
)


def _same(a: tuple[object, ...] | None, b: tuple[object, ...] | None) -> bool | None:
    """Compare two per-axis tuples whose elements may be None (unknown)."""
    if a is None or b is None:
        return None
    if len(a) != len(b) or any(
        x is not None and y is not None and x != y for x, y in zip(a, b)
    ):
        return False
    return None if None in a or None in b else True


def tuple_text(items: list[str]) -> str:
    """Python's spelling of a tuple whose elements are already spelled: '(8,)', '(8, 4)'."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
