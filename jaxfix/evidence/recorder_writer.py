"""What the recorder writes (jaxfix/evidence/recorder.py sets the hooks): each JAX001-JAX003 error that
ends a test or a program as an evidence record (JSON lines, schema in docs/repair.md), any
other such failure as a `failure`, and a `process` record at the exit of a process that
imported JAX.

Standard library only, like the hooks, and imported by them at the first error (or at the exit
of a process that imported JAX): a process that ends nothing never compiles this module, nor
imports json and re. A failure here is dropped by the hook that called it.
"""

import _thread
import os
import sys

# jaxfix.evidence.recorder, or jaxfix_record in a recorded run's directory: the hooks, which import this
_HOOKS = __name__[: -len("_writer")]
__import__(_HOOKS)
SCHEMA = sys.modules[_HOOKS].SCHEMA
# the raising frame's locals a wrapper kept (jaxfix/evidence/recorder_provenance.py RAISED_LOCALS)
_RAISED_LOCALS = "_jaxfix_raised_locals"
# ... and the locals of the frames between, by function name (RAISED_FRAMES there)
_RAISED_FRAMES = "_jaxfix_raised_frames"
# the mesh contexts an error left, each as the user frames that entered it (LEFT_CONTEXTS there)
_LEFT_CONTEXTS = "_jaxfix_left_contexts"
_MAX_FRAMES = 60  # innermost ones: pytest's own frames come first
_MAX_TEXT = 4000
_MAX_ITEMS = 8  # items of a collection of meshes recorded
_MAX_SEGMENT = 400


class Recorder:
    """Appends the records of one process to the evidence file `path`; `patterns` (the
    rules' messages, where JAX keeps the meshes) are read from `patterns_file` at the first
    error when not given."""

    def __init__(self, path, patterns, patterns_file):
        self.path = path
        self.patterns_file = patterns_file
        self._patterns = None
        if patterns is not None:
            self._use(patterns)
        self.lock = _thread.allocate_lock()

    def _use(self, patterns):
        import re

        errors = patterns.get("errors", {})
        self.messages = [
            (code, re.compile(p), _exception(errors.get(code, "ValueError"), i))
            for code, ps in patterns.get("messages", {}).items()
            for i, p in enumerate(ps)
        ]
        self.mesh_paths = patterns.get("meshes", {})
        self._patterns = patterns

    def _load(self):
        """Read when first needed: jaxfix writes the file (atomically) while the command starts."""
        import json
        import time

        deadline = time.monotonic() + 60
        while not os.path.exists(self.patterns_file) and time.monotonic() < deadline:
            time.sleep(0.05)
        with open(self.patterns_file, encoding="utf-8") as handle:
            self._use(json.load(handle))

    def write(self, record):
        import json

        record = {"schema": SCHEMA, **record, "pid": os.getpid()}
        line = (json.dumps(record, default=str) + "\n").encode("utf-8", "replace")
        with self.lock:
            fd = os.open(
                self.path,
                os.O_WRONLY
                | os.O_APPEND
                | os.O_CREAT
                | getattr(os, "O_CLOEXEC", 0)
                | getattr(os, "O_NOFOLLOW", 0),  # a symlink put there: nothing written
                0o600,
            )
            try:
                os.write(
                    fd, line
                )  # one write per record: records of several processes never interleave
            finally:
                os.close(fd)

    def code_of(self, error):
        """The rule whose error this is: its message, raised as the rule's exception."""
        if not isinstance(error, Exception):
            return None
        if self._patterns is None:
            self._load()
        names = {kind.__name__ for kind in type(error).__mro__}
        text = str(error)
        return next(
            (
                code
                for code, pattern, exception in self.messages
                if exception in names and pattern.match(text)
            ),
            None,
        )

    def ended(self, error, ended, test=None):
        """One error that ended a test or the program: the first of the three errors in its
        chain (a wrapper such as RuntimeError('...') from the JAX error counts), else a failure."""
        found, seen, current, chain = None, set(), error, []
        while current is not None and id(current) not in seen and len(seen) < 20:
            seen.add(id(current))
            chain.append(current)
            code = self.code_of(current)
            if code is not None:
                found = (code, current)
                break
            current = current.__cause__ or (
                None if current.__suppress_context__ else current.__context__
            )
        where = {
            "ended": ended,
            "test": test,
            "cwd": os.getcwd(),
            "contexts": _contexts(chain),
        }
        if found is None:
            self.write(
                {
                    "kind": "failure",
                    "exception": _type_name(error),
                    "message": _first_line(error),
                    "frames": _frames(error.__traceback__),
                    **where,
                }
            )
            return
        code, raised = found
        frames = _frames(raised.__traceback__)
        self.write(
            {
                "kind": "error",
                "code": code,
                "exception": _type_name(raised),
                "message": str(raised)[:_MAX_TEXT],
                "jax_version": _jax_version(),
                "python": ".".join(map(str, sys.version_info[:3])),
                "frames": frames,
                "meshes": self.meshes(code, raised),
                **where,
            }
        )

    def meshes(self, code, error):
        """The meshes JAX held where it raised, by role, when that frame is in the traceback,
        or its locals were kept on the error by a wrapper (JAX's traceback filtering drops it
        behind its API boundaries; without either, the message tells)."""
        paths = self.mesh_paths.get(code)
        tb = error.__traceback__
        if not paths or tb is None:
            return {}
        while tb.tb_next is not None:
            tb = tb.tb_next
        frame_locals = tb.tb_frame.f_locals
        kept = getattr(error, _RAISED_LOCALS, None)
        if isinstance(kept, dict) and any(
            alternative.split(".")[0] in kept
            for path in paths.values()
            for alternative in path.split("|")
        ):
            # the raising frame's own, which filtering may have replaced by a caller of
            # JAX's holding a local of the same name (`jnp.matmul`'s `a`)
            frame_locals = kept
        found = {}
        for role, path in paths.items():
            # `a|b`: the frames that raise a rule's messages name a role's mesh differently
            for alternative in path.split("|"):
                function, _, local = alternative.rpartition(":")
                held = _locals_of(function, error) if function else frame_locals
                meshes = _meshes_at(role, local, held)
                if meshes:
                    found.update(meshes)
                    break
        return found

    def process_ended(self):
        """At exit, for a process that imported JAX: which JAX it ran (no such record at all:
        the command failed, or passed, before importing JAX), the environment variables its
        code read, and the largest concrete mesh its code built, with the user frames that
        built it (the devices it surely has)."""
        record = {
            "kind": "process",
            "argv": [str(a)[:200] for a in sys.argv[:8]],
            "jax_version": _jax_version(),
        }
        reads = sys.modules[_HOOKS].environment_reads()
        if reads:
            record["environment"] = [
                {
                    "variable": variable,
                    "value": value,
                    "test": test,
                    **_frame(code, lasti, line),
                }
                for variable, value, test, code, lasti, line in reads
            ]
        notes = sys.modules.get(_HOOKS + "_provenance")
        size, frames = notes.largest_built() if notes is not None else (0, ())
        if size and frames:
            record["largest_mesh"] = {
                "device_count": size,
                "built": [_frame(*frame) for frame in reversed(frames)],
            }
        self.write(record)


def _exception(error, index):
    """The exception a rule's message `index` is raised with: one name for every message,
    or a list of one per message."""
    return error if isinstance(error, str) else error[index]


def _type_name(error):
    kind = type(error)
    return (
        kind.__name__
        if kind.__module__ in ("builtins", "__main__")
        else f"{kind.__module__}.{kind.__qualname__}"
    )


def _first_line(error):
    text = str(error).strip().split("\n", 1)[0]
    return text[:300]


def _jax_version():
    jax = sys.modules.get("jax")
    version = getattr(jax, "__version__", None)
    return version if isinstance(version, str) else None


def _mesh(value):
    kind = type(value).__name__
    if kind not in ("AbstractMesh", "Mesh"):
        return None
    try:
        names = [str(n) for n in value.axis_names]
        sizes = [int(s) for s in value.axis_sizes]
        types = [
            getattr(t, "name", str(t)) for t in getattr(value, "axis_types", ())
        ] or None
        abstract = kind == "AbstractMesh"
        devices = None if abstract else int(getattr(value.devices, "size", 0))
        has_device = (not abstract) or getattr(
            value, "abstract_device", None
        ) is not None
    except Exception:  # noqa: BLE001 - an unexpected object: the message tells instead
        return None
    return {
        "kind": "abstract" if abstract else "concrete",
        "axis_names": names,
        "axis_sizes": sizes,
        "axis_types": types,
        "has_abstract_device": has_device,
        "device_count": devices,
    }


def _locals_of(function, error):
    """The locals of the innermost frame of the traceback running `function` (`f:local...`
    in a rule's mesh_locals: a caller of the raising function), or of the one a wrapper kept
    for it; {} when there is none."""
    found = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == function:
            found = tb.tb_frame.f_locals
        tb = tb.tb_next
    if found is None:
        kept = getattr(error, _RAISED_FRAMES, None)
        found = kept.get(function) if isinstance(kept, dict) else None
    return found if isinstance(found, dict) else {}


def _meshes_at(role, path, frame_locals):
    """The meshes at `path` (`local.attribute...`, or `local[*].attribute...` for each item of
    a collection: role0, role1, ...) among `frame_locals`, by role, with their provenance."""
    name, *attributes = path.split(".")
    if name.endswith("[*]"):
        items = frame_locals.get(name[:-3])
        try:
            items = list(items)[:_MAX_ITEMS] if items is not None else []
        except Exception:  # noqa: BLE001 - not a collection: nothing recorded
            items = []
        values = [(f"{role}{n}", item) for n, item in enumerate(items)]
    else:
        values = [(role, frame_locals.get(name))]
    found = {}
    for named, value in values:
        for attribute in attributes:
            value = getattr(value, attribute, None)
        mesh = _mesh(value)
        if mesh is not None:
            found[named] = {**mesh, **_provenance(value)}
    return found


def _provenance(mesh):
    """`built` and `entered`: the user frames (outermost first) that last built `mesh` and put
    it in force, as jaxfix/evidence/recorder_provenance.py noted them; none when JAX's mesh module was
    loaded before the recorder started."""
    notes = sys.modules.get(_HOOKS + "_provenance")
    if notes is None:
        return {}
    found = {}
    for key, frames in (("built", notes.built(mesh)), ("entered", notes.entered(mesh))):
        if frames:
            found[key] = [_frame(*frame) for frame in reversed(frames)]
    during = notes.built_during(mesh) if "built" in found else None
    if during is not None:
        found["built_during"] = during
    return found


def _contexts(chain):
    """The mesh contexts the errors of `chain` left on their way out, and the `with mesh:`
    still in force (a fixture's, whose generator waits in no traceback), each as the user
    frames that entered it, outermost first (the statements the run was inside when it
    raised)."""
    found = []
    for error in chain:
        for frames in getattr(error, _LEFT_CONTEXTS, None) or ():
            entry = [_frame(*frame) for frame in reversed(frames)]
            if entry not in found:
                found.append(entry)
    entry = [_frame(*frame) for frame in reversed(_legacy_in_force())]
    if entry and entry not in found:
        found.append(entry)
    return found


def _legacy_in_force():
    """The user frames that entered the concrete mesh `with mesh:` holds in force now."""
    module = sys.modules.get("jax._src.mesh")
    notes = sys.modules.get(_HOOKS + "_provenance")
    try:
        mesh = module.thread_resources.env.physical_mesh
        if notes is None or mesh.empty:
            return ()
        return notes.entered(mesh)
    except Exception:  # noqa: BLE001 - another JAX: nothing recorded
        return ()


def _frames(tb):
    """Outermost first: path, line and the exact span of the call that raised."""
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    return [
        _frame(entry.tb_frame.f_code, entry.tb_lasti, entry.tb_lineno)
        for entry in entries[-_MAX_FRAMES:]
    ]


def _frame(code, lasti, line):
    """A frame's path, line and (Python >= 3.11 keeps columns; they are turned from UTF-8 byte
    offsets into characters here) the span of the call it was in."""
    import linecache

    end_line, column, end_column = None, None, None
    positions = getattr(code, "co_positions", None)
    if positions is not None and lasti >= 0:
        try:
            found = list(positions())[lasti // 2]
        except IndexError:
            found = (None,) * 4
        if found[0] is not None:
            line, end_line, column, end_column = found
    path = code.co_filename
    text = linecache.getline(path, line)
    end_text = linecache.getline(path, end_line) if end_line else ""
    frame = {
        "path": path,
        "line": line,
        "function": code.co_name,
        "source": text.strip()[:_MAX_SEGMENT] or None,
    }
    if column is not None and end_column is not None and text and end_text:
        column, end_column = _chars(text, column), _chars(end_text, end_column)
        frame.update(
            end_line=end_line,
            column=column,
            end_column=end_column,
            segment=_segment(path, line, column, end_line, end_column),
        )
    return frame


def _chars(text, byte_offset):
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "replace"))


def _segment(path, line, column, end_line, end_column):
    import linecache

    lines = [linecache.getline(path, n) for n in range(line, end_line + 1)]
    if len(lines) == 1:
        text = lines[0][column:end_column]
    else:
        text = lines[0][column:] + "".join(lines[1:-1]) + lines[-1][:end_column]
    return text if len(text) <= _MAX_SEGMENT else None
