"""Run fixture scripts under real JAX, many in one process (JAX is imported once).

Usage: python jax_runner.py LIST_FILE   (LIST_FILE holds one script or notebook path a line; a
project fixture's entry is followed by a tab and the project's directory)
Prints one JSON object: {path: {"ok": bool, "error": "Type: message" | None, "last_line": str,
"traceback": the traceback Python would print | None}}.
Each script runs as __main__ with its stdout captured, inside `with jax.set_mesh(None):`, so a
mesh it sets globally (`jax.set_mesh(mesh)` as a statement) ends with it; it must not change other
global JAX state.
Started with jaxfix's recorder on (the environment of a recorded run, `RecordingDir.env`), an
error a script ends with is recorded as the recorder records one that ends a program.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import sys
import traceback
import warnings


def notebook_script(path: str) -> str:
    """A notebook's code cells as one script, as IPython runs them minus its own syntax (written
    apart from jaxfix, for the fixtures): a `%%` cell is skipped, and a line starting with `%`,
    `!` or `?`, or ending in `?`, becomes `pass` (a no-op here: magics and shell escapes)."""
    with open(path, encoding="utf-8") as handle:
        cells = json.load(handle)["cells"]
    lines = []
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or source.startswith("%%"):
            continue
        for line in source.splitlines():
            code = line.strip()
            if code.startswith(("%", "!", "?")) or code.endswith("?"):
                line = line[: len(line) - len(line.lstrip())] + "pass"
            lines.append(line)
    return "\n".join(lines) + "\n"


def _run(path: str, project: str | None) -> None:
    if path.endswith(".ipynb"):
        exec(compile(notebook_script(path), path, "exec"), {"__name__": "__main__"})
    elif project is None:
        runpy.run_path(path, run_name="__main__")
    else:
        _run_in_project(path, project)


def _run_in_project(path: str, project: str) -> None:
    """A project fixture's entry, as `python -m pkg.entry` run from `project` would run it: its
    modules import each other absolutely from `project` and relatively within their package.
    They are forgotten afterwards (another project's modules may have the same names)."""
    relative = os.path.relpath(os.path.dirname(path), project)
    package = "" if relative == os.curdir else relative.replace(os.sep, ".")
    sys.path.insert(0, project)
    try:
        with open(path, "rb") as handle:
            code = compile(handle.read(), path, "exec")
        exec(
            code,
            {"__name__": "__main__", "__package__": package or None, "__file__": path},
        )
    finally:
        sys.path.remove(project)
        inside = os.path.join(os.path.abspath(project), "")
        for name, module in list(sys.modules.items()):
            if os.path.abspath(getattr(module, "__file__", None) or os.sep).startswith(
                inside
            ):
                del sys.modules[name]


def _fresh_deprecations() -> None:
    """JAX warns of a deprecated name once per process (its modules' `__getattr__` is a
    `functools.cache`): forget which were warned of, so that each program meets the warning
    as it would alone (one that makes warnings errors raises it)."""
    for name, module in list(sys.modules.items()):
        getter = (
            getattr(module, "__getattr__", None) if name.startswith("jax") else None
        )
        clear = getattr(getter, "cache_clear", None)
        if clear is not None:
            clear()


def _mesh_restored() -> contextlib.AbstractContextManager[object]:
    """No mesh in force while a program runs, and the one before it in force again after it,
    whatever mesh the program set globally."""
    import jax

    return jax.set_mesh(None)


def run_one(path: str, project: str | None = None) -> dict:
    _fresh_deprecations()
    out = io.StringIO()
    error = printed = None
    try:
        # each program's warning filters its own (one makes DeprecationWarnings errors)
        with (
            contextlib.redirect_stdout(out),
            warnings.catch_warnings(),
            _mesh_restored(),
        ):
            _run(path, project)
    except SystemExit as exit_:
        if exit_.code not in (None, 0):
            error = f"SystemExit: {exit_.code}"
    except BaseException as exc:  # noqa: BLE001 - report whatever the script raised
        recorder = sys.modules.get("jaxfix_record")
        if recorder is not None:
            recorder._ended(exc, "program")
        error = f"{type(exc).__name__}: {exc}"
        printed = (
            traceback.format_exc()
        )  # as Python prints it when the program ends with it
        if not isinstance(exc, (ValueError, RuntimeError, TypeError)):
            error += "\n" + traceback.format_exc(limit=5)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    return {
        "ok": error is None,
        "error": error,
        "last_line": lines[-1] if lines else "",
        "traceback": printed,
    }


def main() -> None:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    with open(sys.argv[1], encoding="utf-8") as handle:
        lines = [line.strip().split("\t") for line in handle if line.strip()]
    import jax  # noqa: F401 - import once, before the scripts

    results = {
        line[0]: run_one(line[0], line[1] if len(line) > 1 else None) for line in lines
    }
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    main()
