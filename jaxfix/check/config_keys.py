"""The entry of a YAML config file an inner mesh's axis size is read from by key, when the walk
along the run's frames stops before it: maxtext's `pyconfig` idiom, where a config object
answers `config.ici_fsdp_parallelism` from the merged YAML file (plus `key=value` overrides on
the command line), and the mesh factory reads
`[config.ici_fsdp_parallelism, config.ici_tensor_parallelism]` in axis order.

From the expression the run built the mesh with (its sizes argument, followed through the
names its function assigns and the module's functions it calls), the attribute names read
whose `_`-separated words hold the differing axis's name (`fsdp` in
`inference_ici_fsdp_parallelism`) are looked up as top-level integer entries of the YAML files
the run's processes were given on their command line, else of the tree's YAML files (not in
.git or a hidden or package folder; bounded). The entry is the origin only when exactly one
such entry exists in those files and it holds the run's size of that axis, and no `key=value`
argument of the run names the key (an override the run applied: named, never changed).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from jaxfix.analysis.ast_engine.project import Module
from jaxfix.check.config_factors import read_names
from jaxfix.evidence.facts import DataEntry, Evidence, ValueSite
from jaxfix.write.json_entry import Entry

_SUFFIXES = (".yaml", ".yml")
_MAX_BYTES = 1 << 20  # a config file larger than this is not read
_MAX_FILES = 200  # YAML files of the tree looked at
_MAX_ENTRIES = 5000  # directory entries walked in the tree
_SKIPPED = frozenset({"site-packages", "node_modules", "__pycache__"})
_BUILDERS = frozenset({"AbstractMesh", "Mesh", "make_mesh", "update"})


def config_key_site(
    item: Evidence,
    raised: Path,
    module: Module,
    line: int,
    axis: int,
    axis_name: str,
    size: int,
    roots: Sequence[Path],
) -> ValueSite | str | None:
    """The YAML entry the `axis_name` axis's size (`size` in the run) is read from, where the
    mesh built on `line` of `module` reads it as a config key; a reason when the entry is
    found but not changed; None when there is no such key."""
    sizes = _sizes_argument(module, line)
    if sizes is None:
        return None
    keys = sorted(
        n
        for n in read_names(module.tree, sizes)
        if axis_name.lower() in n.lower().split("_")
    )
    if not keys:
        return None
    overridden = [
        a for a in item.arguments for k in keys if a.split("=", 1)[0] == k and "=" in a
    ]
    if overridden:
        return (
            f"the run's command line sets `{overridden[0]}`, which overrides the config "
            "file: change it there"
        )
    found = list(_entries(keys, _config_files(item, roots)))
    if len(found) != 1:
        return None
    file, key, entry, content = found[0]
    if entry.values != (size,):
        return None
    return ValueSite(
        (raised, item.line),
        file,
        (entry.line, entry.column, entry.end_line, entry.end_column),
        json.dumps(key),
        why=f"the config key `{key}` the mesh's sizes are read by",
        entry=DataEntry(entry.spans, hashlib.sha256(content).hexdigest(), entry.text),
        axis=axis,
    )


def _sizes_argument(module: Module, line: int) -> ast.expr | None:
    """The sizes the one mesh-building call on `line` is given (its first argument, or
    `axis_sizes=`)."""
    calls = [
        c
        for c in ast.walk(module.tree)
        if isinstance(c, ast.Call)
        and c.lineno == line
        and (
            c.func.attr
            if isinstance(c.func, ast.Attribute)
            else getattr(c.func, "id", "")
        )
        in _BUILDERS
    ]
    if len(calls) != 1:
        return None
    (call,) = calls
    given = [k.value for k in call.keywords if k.arg in ("axis_sizes", "axis_shapes")]
    if given:
        return given[0]
    return call.args[0] if call.args else None


def _config_files(item: Evidence, roots: Sequence[Path]) -> list[Path]:
    """The YAML files the run was given on its command line (from its one directory), in the
    tree; else the tree's YAML files."""
    given = []
    if len(item.cwds) == 1:
        for argument in dict.fromkeys(item.arguments):
            if argument.endswith(_SUFFIXES):
                file = Path(os.path.realpath(item.cwds[0] / argument))
                if _in_tree(file, roots) and file.is_file():
                    given.append(file)
    return given or list(_tree_files(roots))


def _in_tree(file: Path, roots: Sequence[Path]) -> bool:
    return ".git" not in file.parts and any(file.is_relative_to(r) for r in roots)


def _tree_files(roots: Sequence[Path]) -> Iterator[Path]:
    seen = files = 0
    for root in roots:
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = sorted(
                d for d in subfolders if not d.startswith(".") and d not in _SKIPPED
            )
            seen += len(names) + len(subfolders)
            for name in sorted(names):
                if name.endswith(_SUFFIXES) and files < _MAX_FILES:
                    files += 1
                    file = Path(os.path.realpath(Path(folder) / name))
                    if _in_tree(file, roots):  # a link out of the tree, or into .git
                        yield file
            if seen > _MAX_ENTRIES:
                return


def _entries(
    keys: list[str], files: list[Path]
) -> Iterator[tuple[Path, str, Entry, bytes]]:
    """Each (file, key, entry, content) of an integer top-level entry of `keys`."""
    from jaxfix.sources.file_io import ReadError, read_regular
    from jaxfix.write.json_entry import NotAnEntry, find_yaml_entry  # PyYAML when asked

    for file in dict.fromkeys(files):
        try:
            content = read_regular(file, _MAX_BYTES, bound="1 MiB")
        except ReadError:
            continue
        for key in keys:
            try:
                entry = find_yaml_entry(content, (key,), scalar=True)
            except NotAnEntry:
                continue
            yield file, key, entry, content
