"""A notebook the editor holds as cells (LSP 3.17 notebook documents) as the `.ipynb` text the
engine reads, and back: each cell's source one string per line, so that each line of a cell is
one line of the document (a fix's lines, as `--diff-base` would name them, are known here)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from jaxfix.sources.text import split_lines


@dataclass(frozen=True)
class Cell:
    uri: str
    code: bool  # a code cell (else markdown, kept for the numbering)
    text: str


@dataclass(frozen=True)
class Built:
    source: bytes
    # (1-based cell number among all cells, 1-based line in the cell) -> 1-based document line
    lines: dict[tuple[int, int], int]


def build(cells: list[Cell]) -> Built:
    out = ["{", ' "cells": [']
    lines: dict[tuple[int, int], int] = {}
    for number, cell in enumerate(cells, start=1):
        out.append("  {")
        if cell.code:
            out += [
                '   "cell_type": "code",',
                '   "execution_count": null,',
                '   "metadata": {},',
                '   "outputs": [],',
            ]
        else:
            out += ['   "cell_type": "markdown",', '   "metadata": {},']
        parts = split_lines(cell.text)
        if not parts:
            out.append('   "source": []')
        else:
            out.append('   "source": [')
            for line_number, part in enumerate(parts, start=1):
                lines[(number, line_number)] = len(out) + 1
                out.append(
                    "    "
                    + json.dumps(part)
                    + ("," if line_number < len(parts) else "")
                )
            out.append("   ]")
        out.append("  }" + ("," if number < len(cells) else ""))
    out += [
        " ],",
        ' "metadata": {},',
        ' "nbformat": 4,',
        ' "nbformat_minor": 4',
        "}",
        "",
    ]
    return Built("\n".join(out).encode("utf-8"), lines)


def cell_texts(source: bytes) -> list[str]:
    """Each cell's text in a notebook the engine wrote (a fixed version of `build`'s)."""
    found = []
    for cell in json.loads(source)["cells"]:
        text = cell.get("source", "")
        found.append("".join(text) if isinstance(text, list) else text)
    return found
