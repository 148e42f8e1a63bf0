"""The run-time recorder: writes each JAX001-JAX003 error that ends a test or a program to an
evidence file (JSON lines, schema in docs/repair.md).

Standard library only and self-contained: `jaxfix repair` copies this file into a private
temporary directory as `jaxfix_record.py` and runs the user's command with that directory first
on PYTHONPATH, so it runs under any interpreter and any JAX, with no jaxfix installed there.
It never changes what the program does: every hook calls the one it replaced, and a failure of
the recorder itself is swallowed. An error caught by the program (`pytest.raises`,
`assertRaises`, `try`) ends nothing and is never recorded: the hooks see only errors that fail
a test (pytest's `pytest_exception_interact`, unittest's `TestResult.addError`) or reach
`sys.excepthook` / `threading.excepthook`.
"""

from __future__ import annotations

import _thread
import atexit
import os
import sys

# json and re are imported when first needed, threading and unittest patched when the program
# imports them: the recorder starts in every Python process of the command (shell helpers,
# pip, ...), which should not pay for them.

SCHEMA = "jaxfix-evidence/1"
FILE_ENV = "JAXFIX_RECORD"  # the evidence file; recording is on when it is set
PATTERNS_ENV = "JAXFIX_RECORD_PATTERNS"  # JSON: {"messages": {code: [regex, ...]}, "meshes": {code: {role: path}}}
_MAX_FRAMES = 60  # innermost ones: pytest's own frames come first
_MAX_TEXT = 4000
_MAX_SEGMENT = 400

_recorder = None


class _Recorder:
    def __init__(self, path, patterns, patterns_file):
        self.path = path
        self.patterns_file = patterns_file
        self._patterns = None
        if patterns is not None:
            self._use(patterns)
        self.lock = _thread.allocate_lock()

    def _use(self, patterns):
        import re

        self.messages = [
            (code, re.compile(p))
            for code, ps in patterns.get("messages", {}).items()
            for p in ps
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
                os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0),
                0o600,
            )
            try:
                os.write(
                    fd, line
                )  # one write per record: records of several processes never interleave
            finally:
                os.close(fd)

    def code_of(self, error):
        if not isinstance(error, ValueError):
            return None
        if self._patterns is None:
            self._load()
        text = str(error)
        return next(
            (code for code, pattern in self.messages if pattern.match(text)), None
        )

    def ended(self, error, ended, test=None):
        """One error that ended a test or the program: the first of the three errors in its
        chain (a wrapper such as RuntimeError('...') from the JAX error counts), else a failure."""
        found, seen, current = None, set(), error
        while current is not None and id(current) not in seen and len(seen) < 20:
            seen.add(id(current))
            code = self.code_of(current)
            if code is not None:
                found = (code, current)
                break
            current = current.__cause__ or (
                None if current.__suppress_context__ else current.__context__
            )
        where = {"ended": ended, "test": test, "cwd": os.getcwd()}
        if found is None:
            self.write(
                {
                    "kind": "failure",
                    "exception": _type_name(error),
                    "message": _first_line(error),
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
                "meshes": self.meshes(code, raised.__traceback__),
                **where,
            }
        )

    def meshes(self, code, tb):
        """The meshes JAX held where it raised, by role, when that frame is in the traceback
        (JAX's traceback filtering drops it behind its API boundaries: then the message tells)."""
        paths = self.mesh_paths.get(code)
        if not paths or tb is None:
            return {}
        while tb.tb_next is not None:
            tb = tb.tb_next
        frame_locals = tb.tb_frame.f_locals
        found = {}
        for role, path in paths.items():
            name, *attributes = path.split(".")
            value = frame_locals.get(name)
            for attribute in attributes:
                value = getattr(value, attribute, None)
            mesh = _mesh(value)
            if mesh is not None:
                found[role] = mesh
        return found


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


def _frames(tb):
    """Outermost first: path, line and the exact span of the call that raised (Python >= 3.11
    keeps columns; they are turned from UTF-8 byte offsets into characters here)."""
    import linecache

    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    frames = []
    for entry in entries[-_MAX_FRAMES:]:
        code = entry.tb_frame.f_code
        line, end_line, column, end_column = entry.tb_lineno, None, None, None
        positions = getattr(code, "co_positions", None)
        if positions is not None and entry.tb_lasti >= 0:
            try:
                found = list(positions())[entry.tb_lasti // 2]
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
        frames.append(frame)
    return frames


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


def _quietly(function):
    """A recorder hook never changes the program: its own failure is dropped."""

    def run(*args, **kwargs):
        try:
            function(*args, **kwargs)
        except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
            pass

    return run


def install(path=None, patterns=None):
    """Start recording to `path` (default: $JAXFIX_RECORD) with the rules' message patterns
    (default: the JSON file $JAXFIX_RECORD_PATTERNS names, read at the first error). Once per
    process; False when there is nowhere to record or nothing to match with."""
    global _recorder
    if _recorder is not None:
        return True
    path = path or os.environ.get(FILE_ENV)
    if not path or (patterns is None and not os.environ.get(PATTERNS_ENV)):
        return False
    _recorder = recorder = _Recorder(path, patterns, os.environ.get(PATTERNS_ENV))

    previous_excepthook = sys.excepthook

    def excepthook(kind, error, tb):
        _quietly(recorder.ended)(error, "program")
        previous_excepthook(kind, error, tb)

    sys.excepthook = excepthook
    patches = {"threading": _patch_threading, "unittest.result": _patch_unittest}
    for name, patch in patches.items():
        if name in sys.modules:
            patch(recorder, sys.modules[name])
    waiting = {
        name: patch for name, patch in patches.items() if name not in sys.modules
    }
    if waiting:
        sys.meta_path.insert(0, _PatchOnImport(recorder, waiting))
    atexit.register(_quietly(_process_record), recorder)
    return True


def _process_record(recorder):
    """At exit, for a process that imported JAX: which JAX it ran (no such record at all: the
    command failed, or passed, before importing JAX)."""
    if "jax" in sys.modules:
        recorder.write(
            {
                "kind": "process",
                "argv": [str(a)[:200] for a in sys.argv[:8]],
                "jax_version": _jax_version(),
            }
        )


class _PatchOnImport:
    """A meta path finder that patches a module once the program imports it."""

    def __init__(self, recorder, patches):
        self.recorder = recorder
        self.patches = patches

    def find_spec(self, name, path=None, target=None):
        patch = self.patches.pop(name, None)
        if patch is None:
            return None
        if not self.patches:
            sys.meta_path.remove(self)
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module
        recorder = self.recorder

        def exec_module(module):
            original(module)
            _quietly(patch)(recorder, module)

        loader.exec_module = exec_module
        return spec


def _patch_threading(recorder, threading):
    previous = threading.excepthook

    def threadhook(args):
        if args.exc_value is not None and not isinstance(args.exc_value, SystemExit):
            _quietly(recorder.ended)(
                args.exc_value, "thread", getattr(args.thread, "name", None)
            )
        previous(args)

    threading.excepthook = threadhook


def _patch_unittest(recorder, module):
    """`addError` / `addFailure` (a test's exception) and `addSubTest` (a failed `subTest`)."""
    result_class = module.TestResult
    if getattr(result_class.addError, "_jaxfix_recorder", False):
        return

    def recording(original, split):
        def method(self, *args):
            test, err = split(args)
            if err is not None:
                _quietly(recorder.ended)(err[1], "test", _test_id(test))
            return original(self, *args)

        method._jaxfix_recorder = True
        return method

    def test_then_error(args):
        return args[0], args[1]

    def subtest_then_error(
        args,
    ):  # addSubTest(test, subtest, err): err is None when it passed
        return args[1], args[2]

    result_class.addError = recording(result_class.addError, test_then_error)
    result_class.addFailure = recording(result_class.addFailure, test_then_error)
    result_class.addSubTest = recording(result_class.addSubTest, subtest_then_error)


def _test_id(test):
    try:
        return test.id()
    except Exception:  # noqa: BLE001 - an _ErrorHolder or a foreign object
        return str(test)[:300]


# -- pytest: `PYTEST_PLUGINS=jaxfix_record` (repair) or `pytest -p jaxfix.record` --------------


def pytest_exception_interact(node, call, report):
    """Called by pytest for an exception that fails a test or a collection (never for one that
    `pytest.raises` caught, a skip, or an expected failure)."""
    if _recorder is not None and call.excinfo is not None:
        _quietly(_recorder.ended)(
            call.excinfo.value, "test", getattr(node, "nodeid", None)
        )
