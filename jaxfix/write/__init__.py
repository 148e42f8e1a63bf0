"""Fixes made into files: LibCST edits, added imports, line length, atomic writes, `--add-noqa`."""
