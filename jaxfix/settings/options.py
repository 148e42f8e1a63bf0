"""The settings every part of a run reads, gathered once from config and flags; what one
run is told about its files (changed lines, evidence) is given to jaxfix/check/engine.py's
`check_file` beside them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jaxfix.settings.jax_version import parse_version
from jaxfix.sources.paths import DEFAULT_INCLUDE

DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
DEFAULT_MAX_LOG_SIZE = (
    256 * 1024 * 1024
)  # --from-log streams the log: this bounds time, not memory
DEFAULT_LINE_LENGTH = 88
DEFAULT_MAX_PARSE_MEMORY = (
    2048  # MB per file, as predicted before parsing (jaxfix/check/engine.py)
)


ALL = "ALL"  # `--select ALL`: every rule, deprecations too


def raises_on(raises_since: str | None, target: tuple[int, ...] | None) -> bool:
    """Whether old code raising since `raises_since` (None: it only warns) raises on the
    `target` JAX version (None: the newest). Raises ValueError for no version."""
    if raises_since is None:
        return False
    return target is None or target >= parse_version(raises_since)


@dataclass(frozen=True)
class ImportOrder:
    """The project's ruff isort settings that order an added import (`[tool.ruff.lint.isort]`):
    ruff's defaults unless its config says otherwise."""

    force_sort_within_sections: bool = False
    order_by_type: bool = True
    case_sensitive: bool = False
    # ruff's default keeps `from m import a as b` on a line of its own.
    combine_as_imports: bool = False


@dataclass(frozen=True)
class Options:
    # Rule modules registered besides jaxfix's own (`--rule-module`), paths made absolute: a
    # worker started by spawn registers them again from here.
    rule_modules: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    # Each rule's own settings (`Rule.settings`) given by config or flag: code -> key -> value.
    rule_settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    jax_version: tuple[int, ...] | None = None
    exclude: tuple[str, ...] = ()
    include: tuple[str, ...] = DEFAULT_INCLUDE
    extend_include: tuple[str, ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    max_log_size: int = DEFAULT_MAX_LOG_SIZE
    line_length: int = DEFAULT_LINE_LENGTH  # the project's formatter's (ruff, black): fixes stay within it
    max_parse_memory: int = DEFAULT_MAX_PARSE_MEMORY
    import_order: ImportOrder = (
        ImportOrder()
    )  # ruff's isort settings: added imports stay sorted
    # `jax.device_count()` where the checked program runs, when `--host-devices` gives it
    host_devices: int | None = None

    @property
    def all_includes(self) -> tuple[str, ...]:
        """The globs a directory walk takes files by: `include` plus `extend-include`."""
        return self.include + self.extend_include

    def is_selected(self, code: str, raises_since: str | None) -> bool:
        """As ruff selects: `select` takes codes and prefixes (`JAX00` a group, `ALL` every
        rule); without it, the rules whose old code raises on the target JAX version
        (`Rule.raises_since`); ignore wins."""
        if self.select:
            selected = any(p == ALL or code.startswith(p) for p in self.select)
        else:
            selected = raises_on(raises_since, self.jax_version)
        return selected and not any(code.startswith(p) for p in self.ignore)
