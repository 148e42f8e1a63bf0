"""The run-time recorder's hooks: they see each exception that ends a test (pytest's
`pytest_exception_interact`, unittest's `TestResult.addError`/`addFailure`/`addSubTest`), a
thread (`threading.excepthook`) or the program (`sys.excepthook`), and hand it to
jaxfix/evidence/recorder_writer.py, which writes the evidence file (schema in docs/repair.md).

Standard library only: `jaxfix repair` copies both modules into a private temporary directory
(as `jaxfix_record.py` and `jaxfix_record_writer.py`) and runs the user's command with that
directory first on PYTHONPATH, so they run under any interpreter and any JAX, with no jaxfix
installed there. This module starts in every Python process of the command (shell helpers,
pip, ...): it imports only modules Python has loaded before `sitecustomize` runs, sets the hooks
and nothing else; the writer (and json, re) is imported at the first exception that ends
something, threading and unittest are patched when the program imports them. It never changes
what the program does: every hook calls the one it replaced, and a failure of the recorder
itself is dropped. An error caught by the program (`pytest.raises`, `assertRaises`, `try`) ends
nothing and is never seen.
"""

import _thread
import atexit
import os
import sys

SCHEMA = "jaxfix-evidence/1"  # of each record (docs/repair.md)
FILE_ENV = "JAXFIX_RECORD"  # the evidence file; recording is on when it is set
PATTERNS_ENV = "JAXFIX_RECORD_PATTERNS"  # JSON: {"messages": {code: [regex, ...]}, "meshes": {code: {role: path}}}
# jaxfix.evidence.recorder_writer, or jaxfix_record_writer in a recorded run's directory
_WRITER = __name__ + "_writer"
# where meshes are built and entered (jaxfix/evidence/recorder_provenance.py), imported with JAX's mesh
_PROVENANCE = __name__ + "_provenance"

_settings = None  # (evidence file, patterns or None, patterns file) once installed
_writer = None  # the writer's Recorder, made when first needed
_lock = _thread.allocate_lock()


def _recorder():
    global _writer
    with _lock:
        if _writer is None:
            __import__(_WRITER)
            _writer = sys.modules[_WRITER].Recorder(*_settings)
    return _writer


def _ended(error, ended, test=None):
    """One exception that ended a test, a thread or the program, written; never raises."""
    try:
        _recorder().ended(error, ended, test)
    except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
        pass


def install(path=None, patterns=None):
    """Start recording to `path` (default: $JAXFIX_RECORD) with the rules' message patterns
    (default: the JSON file $JAXFIX_RECORD_PATTERNS names, read at the first error). Once per
    process; False when there is nowhere to record or nothing to match with."""
    global _settings
    if _settings is not None:
        return True
    path = path or os.environ.get(FILE_ENV)
    if not path or (patterns is None and not os.environ.get(PATTERNS_ENV)):
        return False
    _settings = (path, patterns, os.environ.get(PATTERNS_ENV))

    previous_excepthook = sys.excepthook

    def excepthook(kind, error, tb):
        _ended(error, "program")
        previous_excepthook(kind, error, tb)

    sys.excepthook = excepthook
    patches = {
        "threading": _patch_threading,
        "unittest.result": _patch_unittest,
        "jax._src.mesh": _provenance("patch_mesh"),
        "jax._src.sharding_impls": _provenance("patch_sharding"),
        "jax._src.shard_map": _provenance("patch_shard_map"),
        "jax._src.interpreters.pxla": _provenance("patch_pxla"),
    }
    for name, patch in patches.items():
        if name in sys.modules:
            patch(sys.modules[name])
    waiting = {
        name: patch for name, patch in patches.items() if name not in sys.modules
    }
    if waiting:
        sys.meta_path.insert(0, _PatchOnImport(waiting))
    atexit.register(_process_ended)
    return True


def _process_ended():
    """At exit, for a process that imported JAX: which JAX it ran (no such record at all: the
    command failed, or passed, before importing JAX)."""
    if "jax" in sys.modules:
        try:
            _recorder().process_ended()
        except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
            pass


class _PatchOnImport:
    """A meta path finder that patches a module once the program imports it."""

    def __init__(self, patches):
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

        def exec_module(module):
            original(module)
            try:
                patch(module)
            except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
                pass

        loader.exec_module = exec_module
        return spec


def _provenance(name):
    """The patch that has the provenance module wrap what builds and enters meshes in a module
    of JAX's (loaded with that module: a process without JAX never compiles it)."""

    def patch(module):
        try:
            __import__(_PROVENANCE)
            getattr(sys.modules[_PROVENANCE], name)(module)
        except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
            pass

    return patch


def _patch_threading(threading):
    previous = threading.excepthook

    def threadhook(args):
        if args.exc_value is not None and not isinstance(args.exc_value, SystemExit):
            _ended(args.exc_value, "thread", getattr(args.thread, "name", None))
        previous(args)

    threading.excepthook = threadhook


def _patch_unittest(module):
    """`addError` / `addFailure` (a test's exception) and `addSubTest` (a failed `subTest`)."""
    result_class = module.TestResult
    if getattr(result_class.addError, "_jaxfix_recorder", False):
        return

    def recording(original, split):
        def method(self, *args):
            test, err = split(args)
            if err is not None:
                _ended(err[1], "test", _test_id(test))
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


# -- pytest: `PYTEST_PLUGINS=jaxfix_record_pytest` (repair) or `pytest -p jaxfix.record` -------


def pytest_exception_interact(node, call, report):
    """Called by pytest for an exception that fails a test or a collection (never for one that
    `pytest.raises` caught, a skip, or an expected failure)."""
    if _settings is not None and call.excinfo is not None:
        _ended(call.excinfo.value, "test", getattr(node, "nodeid", None))
