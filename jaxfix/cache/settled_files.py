"""The files the prefilter settled in earlier runs, by signature: a warm run skips reading them.

Like ruff's cache, a file whose size, mtime, ctime and inode are those recorded is not read
again: its bytes matched no selected rule's tokens then, so they do now. One record per settings
fingerprint (jaxfix/cache/store.py: jaxfix's source, the rules, the options that change results) in
the cache directory, checksummed; a record that is missing, truncated, forged or of other
settings is ignored, and a forged one can only name files whose signature it predicts (an
inode and a ctime set by the checkout), and then only makes jaxfix skip them, never change one.
A file changed less than `SETTLED_NS` before it was read is not recorded (a change in the same
clock tick keeps the signature); nor is a notebook (its shape is checked every run), a file in
error, or one read under `--strict` or with evidence from a log (both read every file).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from jaxfix.check.dependencies import SETTLED_NS, signature
from jaxfix.ground.bounded_data import load_json
from jaxfix.sources.file_io import ReadError, read_regular
from jaxfix.write.safe_write import write_file

_MAGIC = b"jaxfix-settled 1\n"
_PREFIX = "settled-"
_MAX_BYTES = 64 * 1024 * 1024  # about 100 bytes per file
_MAX_FILES = 500_000

Signature = tuple[int, int, int, int]


def current_signature(path: Path) -> Signature | None:
    try:
        return signature(os.stat(path))
    except (OSError, ValueError):
        return None


class SettledFiles:
    """The record of `settings` in `directory`, read on first use, written by `save`."""

    def __init__(self, directory: Path, settings: str) -> None:
        self.path = directory / f"{_PREFIX}{settings[:32]}"
        self.settings = settings
        self._files: dict[str, Signature] | None = None
        self._changed = False

    def holds(self, path: Path) -> bool:
        """Whether the file at `path` is as it was when the prefilter settled it."""
        recorded = self._read().get(os.path.abspath(path))
        return recorded is not None and current_signature(path) == recorded

    def add(self, path: Path, before: Signature | None) -> None:
        """Record the file the prefilter just settled, read between `before` and now."""
        now = current_signature(path)
        if before is None or now != before:
            return  # changed while read
        if max(now[1], now[2]) + SETTLED_NS > time.time_ns():
            return  # a change in the same clock tick would keep this signature
        files = self._read()
        key = os.path.abspath(path)
        if files.get(key) != now and len(files) < _MAX_FILES:
            files[key] = now
            self._changed = True

    def forget(self, path: Path) -> None:
        """The file is no longer settled by the prefilter (it changed, or is a candidate)."""
        if self._read().pop(os.path.abspath(path), None) is not None:
            self._changed = True

    @property
    def changed(self) -> bool:
        return self._changed

    def save(self) -> None:
        """Write the record when this run changed it, into the existing cache directory (a
        failed write only costs speed)."""
        if not self._changed or self._files is None:
            return
        body = json.dumps(
            {"settings": self.settings, "files": self._files}, separators=(",", ":")
        ).encode()
        data = _MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
        if len(data) > _MAX_BYTES:
            return
        try:
            write_file(self.path, data)
        except OSError:
            pass
        self._changed = False

    def _read(self) -> dict[str, Signature]:
        if self._files is None:
            self._files = self._load()
        return self._files

    def _load(self) -> dict[str, Signature]:
        try:
            data = read_regular(self.path, _MAX_BYTES, follow_symlinks=False)
        except ReadError:
            return {}
        if not data.startswith(_MAGIC):
            return {}
        checksum, _, body = data[len(_MAGIC) :].partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode() != checksum:
            return {}
        try:
            record = load_json(body)
        except (ValueError, RecursionError):
            return {}
        if not isinstance(record, dict) or record.get("settings") != self.settings:
            return {}
        files = record.get("files")
        if not isinstance(files, dict):
            return {}
        found: dict[str, Signature] = {}
        for key, value in files.items():
            if (
                isinstance(key, str)
                and os.path.isabs(key)
                and isinstance(value, list)
                and len(value) == 4
                and all(type(n) is int for n in value)
            ):
                found[key] = (value[0], value[1], value[2], value[3])
        return found
