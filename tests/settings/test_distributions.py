"""The installed-version lookup gives importlib.metadata's answer, in the plain case read
directly and otherwise by asking importlib.metadata."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import zipfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import pytest

from jaxfix.settings import distributions
from jaxfix.settings.distributions import installed_version


@pytest.fixture(autouse=True)
def _only_the_interpreters_own_finders(monkeypatch):
    """What another test in this process left on sys.meta_path (a finder with
    `find_distributions` of its own, PathFinder taken off) would decide these lookups: they run
    with the interpreter's own finders, PathFinder among them, and fresh caches."""
    from importlib.machinery import PathFinder

    own = [
        finder
        for finder in sys.meta_path
        if not hasattr(finder, "find_distributions") and finder is not PathFinder
    ]
    monkeypatch.setattr(sys, "meta_path", [*own, PathFinder])
    importlib.invalidate_caches()


def _metadata_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


_NAMES = [
    "jax",
    "JAX",
    "libcst",
    "LibCST",
    "typing-extensions",
    "typing_extensions",
    "no-such-distribution",
]


@lru_cache(maxsize=1)
def _metadata_versions() -> dict[str, str | None]:
    """What importlib.metadata says of each name, asked by a fresh interpreter of this one's
    path (what a test before may have left in this process is no part of it)."""
    asked = subprocess.run(
        [sys.executable, "-c", _ASK_METADATA, json.dumps(_NAMES)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
    )
    return json.loads(asked.stdout)


_ASK_METADATA = """
import json, sys
from importlib import metadata
found = {}
for name in json.loads(sys.argv[1]):
    try:
        found[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        found[name] = None
print(json.dumps(found))
"""


@pytest.mark.parametrize("name", _NAMES)
def test_installed_distributions_as_importlib_metadata_sees_them(name):
    assert installed_version(name) == _metadata_versions()[name]


def _dist_info(
    directory: Path,
    name: str,
    version: str,
    *,
    suffix: str = ".dist-info",
    file: str = "METADATA",
) -> None:
    info = directory / f"{name}-{version}{suffix}"
    info.mkdir(parents=True)
    (info / file).write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nVersion: not a header\n"
    )


def test_the_first_path_entry_holding_the_distribution_wins(tmp_path, monkeypatch):
    _dist_info(tmp_path / "first", "Some_Dist", "1.2.3")
    _dist_info(tmp_path / "second", "some-dist", "9.9")
    monkeypatch.setattr(
        sys,
        "path",
        [str(tmp_path / "missing"), str(tmp_path / "first"), str(tmp_path / "second")],
    )
    monkeypatch.setattr(
        distributions,
        "_from_metadata",
        lambda name: pytest.fail("the plain case reads the directory"),
    )
    assert installed_version("some.dist") == "1.2.3"


@pytest.mark.parametrize(
    "layout", ["two versions", "egg-info", "no version header", "zip"]
)
def test_anything_but_the_plain_case_is_asked_of_importlib_metadata(
    tmp_path, monkeypatch, layout
):
    site = tmp_path / "site"
    site.mkdir()
    if layout == "two versions":
        _dist_info(site, "some_dist", "1.0")
        _dist_info(site, "some_dist", "2.0")
    elif layout == "egg-info":
        _dist_info(site, "some_dist", "1.0", suffix=".egg-info", file="PKG-INFO")
    elif layout == "no version header":
        (site / "some_dist-1.0.dist-info").mkdir()
        (site / "some_dist-1.0.dist-info" / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: some_dist\n"
        )
    else:
        site = tmp_path / "site.zip"
        with zipfile.ZipFile(site, "w") as archive:
            archive.writestr(
                "some_dist-3.0.dist-info/METADATA",
                "Metadata-Version: 2.1\nName: some_dist\nVersion: 3.0\n",
            )
    monkeypatch.setattr(sys, "path", [str(site)])
    asked = []
    monkeypatch.setattr(
        distributions,
        "_from_metadata",
        lambda name: asked.append(name) or _metadata_version(name),
    )
    assert installed_version("some_dist") == _metadata_version("some_dist")
    assert asked == ["some_dist"]


def test_a_finder_of_its_own_on_the_meta_path_is_asked_of_importlib_metadata(
    tmp_path, monkeypatch
):
    _dist_info(tmp_path, "some_dist", "1.0")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])

    class OwnFinder:
        def find_spec(self, *args):
            return None

        def find_distributions(self, *args):
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [OwnFinder(), *sys.meta_path])
    monkeypatch.setattr(distributions, "_from_metadata", lambda name: "from metadata")
    assert installed_version("some_dist") == "from metadata"
