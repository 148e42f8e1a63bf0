"""The integers an entry of a config file beside the code holds now: what a walk reads to
decide a test on the value (`x if x != -1 else default`, `x` an entry of `stages.yaml`)."""

from __future__ import annotations

from pathlib import Path

_MAX_DATA_BYTES = 1 << 20  # a config file larger than this is not read


def entry_values(
    module_path: Path,
    name: str,
    up_from_module: int,
    keys: tuple[str | int, ...],
    kind: str,
    scalar: bool,
) -> tuple[int, ...] | None:
    """The integers of the entry `keys` of the file `name`, named `up_from_module` folders
    up from the module at `module_path` (1: its folder); None when it cannot be read there
    (or is no integer entry, or lies in .git)."""
    from jaxfix.sources.file_io import ReadError, read_regular
    from jaxfix.write.json_entry import (
        NotAnEntry,
        find_entry,
        find_toml_entry,
        find_yaml_entry,
    )

    parents = module_path.resolve().parents
    if not 0 < up_from_module <= len(parents):
        return None
    file = (parents[up_from_module - 1] / name).resolve()
    if ".git" in file.parts:
        return None
    try:
        content = read_regular(file, _MAX_DATA_BYTES, bound="1 MiB")
        finder = {"yaml": find_yaml_entry, "toml": find_toml_entry}.get(
            kind, find_entry
        )
        return finder(content, keys, scalar=scalar).values
    except (ReadError, NotAnEntry):
        return None
