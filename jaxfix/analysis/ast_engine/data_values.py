"""The integers an entry of a config file holds now: what a walk reads to decide a test on
the value (`x if x != -1 else default`, `x` an entry of `stages.yaml`)."""

from __future__ import annotations

from pathlib import Path

_MAX_DATA_BYTES = 1 << 20  # a config file larger than this is not read


def entry_values(
    base: Path,
    name: str,
    keys: tuple[str | int, ...],
    kind: str,
    scalar: bool,
) -> tuple[int, ...] | None:
    """The integers of the entry `keys` of the file `name`, named from the folder `base`
    (beside the module, or where the run ran); None when it cannot be read there (or is no
    integer entry, or lies in .git)."""
    from jaxfix.sources.file_io import ReadError, read_regular
    from jaxfix.write.json_entry import (
        NotAnEntry,
        find_entry,
        find_toml_entry,
        find_yaml_entry,
    )

    file = (base / name).resolve()
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
