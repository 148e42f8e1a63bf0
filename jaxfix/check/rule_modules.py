"""Which modules are rules: jaxfix's own in jaxfix/codemods/ and the name every rule module has.
Read by the registry (check/registry.py) and by `jaxfix.codemods`, which imports them; it
imports neither, so the registry may fall back to importing the rules."""

from __future__ import annotations

import re
from pathlib import Path

CODEMODS = Path(__file__).resolve().parents[1] / "codemods"
# A rule module's name: its code in lower case, then its name (`tst004_out_sharding_size`).
RULE_MODULE = re.compile(r"[a-z]+\d{3}_\w+$")
BUILTIN_PREFIX = "jax"  # jaxfix's own rule modules: `jaxNNN_*.py` in jaxfix/codemods/


def builtin_modules() -> list[str]:
    """The names of jaxfix's own rule modules (or packages), sorted: what `jaxfix.codemods`
    imports."""
    return sorted(
        path.stem
        for path in CODEMODS.iterdir()
        if (path.suffix == ".py" or (path / "__init__.py").is_file())
        and RULE_MODULE.match(path.stem)
        and path.stem.startswith(BUILTIN_PREFIX)
    )
