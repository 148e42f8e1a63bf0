"""Run programs under real JAX, printing their tracebacks as the interpreter does (for logs).

Usage: python from_log_runner.py ENTRY...
Each entry runs as __main__ with its directory as the working directory and first on sys.path;
what it raises goes to stderr through sys.excepthook, exactly as an uncaught exception would.
Prints one JSON object on stdout: {"results": {entry: {"error", "last_line"}}, "meshes": [...]},
"meshes" being JAX's own reprs of a set of meshes with the facts they stand for.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import sys


def run_one(entry: str) -> dict:
    out = io.StringIO()
    error = None
    entry = os.path.abspath(entry)
    old_cwd, directory = os.getcwd(), os.path.dirname(entry)
    os.chdir(directory)
    sys.path.insert(0, directory)
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(entry, run_name="__main__")
    except Exception as exc:  # noqa: BLE001 - logged like an uncaught exception
        sys.excepthook(type(exc), exc, exc.__traceback__)
        error = f"{type(exc).__name__}: {exc}"
    finally:
        sys.path.remove(directory)
        os.chdir(old_cwd)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    return {"error": error, "last_line": lines[-1] if lines else ""}


def mesh_reprs() -> list[dict]:
    import jax
    from jax.sharding import AbstractMesh, AxisType

    explicit, auto, manual = AxisType.Explicit, AxisType.Auto, AxisType.Manual
    concrete = jax.make_mesh((2, 4), ("x", "y"), axis_types=(explicit, explicit))
    meshes = [
        AbstractMesh((2, 4), ("x", "y")),
        AbstractMesh((8,), ("it's",), axis_types=(manual,)),
        AbstractMesh(
            (2, 2, 2), ("data", "fsdp", "model"), axis_types=(explicit, auto, manual)
        ),
        AbstractMesh((), ()),
        concrete,
        concrete.abstract_mesh,
        jax.make_mesh((8,), ("batch",)),
    ]
    found = []
    for mesh in meshes:
        device = (
            not isinstance(mesh, AbstractMesh)
            or getattr(mesh, "abstract_device", None) is not None
        )
        found.append(
            {
                "text": str(mesh),
                "kind": "abstract" if isinstance(mesh, AbstractMesh) else "concrete",
                "names": list(mesh.axis_names),
                "sizes": list(mesh.axis_sizes),
                "types": [t.name for t in mesh.axis_types],
                "device": device,
            }
        )
    return found


def main() -> None:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax  # noqa: F401 - import once, before the programs

    results = {entry: run_one(entry) for entry in sys.argv[1:]}
    sys.stdout.write(json.dumps({"results": results, "meshes": mesh_reprs()}))


if __name__ == "__main__":
    main()
