"""The version of an installed distribution, without importing importlib.metadata.

Every run needs two versions (jax's, the default target, and libcst's, part of the cache key),
and importing importlib.metadata (email, zipfile, csv...) costs about as much as a tenth of a
warm run. So the plain case is read directly: the first sys.path directory holding the
distribution has exactly one `<name>-<version>.dist-info` for it, whose METADATA has a
`Version:` header, the answer importlib.metadata gives. Anything else (eggs, zipped paths,
several candidates, finders of its own on sys.meta_path) is asked of importlib.metadata.
"""

from __future__ import annotations

import os
import re
import sys
from importlib.machinery import PathFinder


def _normalized(name: str) -> str:
    """As importlib.metadata compares names (PEP 503, with `_` for `-`)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def installed_version(name: str) -> str | None:
    """The distribution's version, or None when it is not installed."""
    wanted = _normalized(name)
    if any(
        finder is not PathFinder and hasattr(finder, "find_distributions")
        for finder in sys.meta_path
    ):
        return _from_metadata(name)
    for entry in sys.path:
        directory = entry or "."
        try:
            children = os.listdir(directory)
        except OSError:
            if os.path.exists(directory):  # a zip file: importlib.metadata reads those
                return _from_metadata(name)
            continue
        found = [
            child
            for child in children
            if child.lower().endswith((".dist-info", ".egg-info", ".egg"))
            and _normalized(child.rpartition(".")[0].partition("-")[0]) == wanted
        ]
        if not found:
            continue
        if len(found) == 1 and found[0].lower().endswith(".dist-info"):
            version = _version_header(os.path.join(directory, found[0], "METADATA"))
            if version is not None:
                return version
        return _from_metadata(name)
    return None


def _version_header(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    return None  # the headers end at the first blank line
                if line.startswith("Version:"):
                    return line[len("Version:") :].strip()
    except (OSError, UnicodeDecodeError):
        pass
    return None


def _from_metadata(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
