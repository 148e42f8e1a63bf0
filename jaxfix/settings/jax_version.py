"""Which JAX release the user's code targets; rules branch on it where JAX changed behavior."""

from __future__ import annotations

from jaxfix.settings.distributions import installed_version

# jax 0.10.x gives AbstractMesh axes the Auto type by default; jax 0.12.0.1 (checked) gives
# Explicit. The change landed on JAX's main branch after 0.10.2, so 0.11 is taken as Explicit.
EXPLICIT_AXES_BY_DEFAULT_SINCE = (0, 11)


def parse_version(text: str) -> tuple[int, ...]:
    """'0.10.2' -> (0, 10, 2); raises ValueError on anything else."""
    parts = text.strip().split(".")
    if not parts or not all(p.isdigit() for p in parts):
        raise ValueError(
            f"not a JAX version: {text!r} (expected digits and dots, e.g. 0.10.2)"
        )
    return tuple(int(p) for p in parts)


def installed_jax_version() -> tuple[int, ...] | None:
    """The version of the `jax` distribution next to jaxfix, read from metadata (never imported)."""
    version = installed_version("jax")
    try:
        return None if version is None else parse_version(version)
    except ValueError:
        return None


def axes_explicit_by_default(version: tuple[int, ...] | None) -> bool:
    """Unknown version means the newest behavior."""
    return version is None or version >= EXPLICIT_AXES_BY_DEFAULT_SINCE
