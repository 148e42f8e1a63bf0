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

import _collections_abc
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

# the environment variables the program's own code read: (variable, file, line, value or None
# when unset or not a size, the pytest test reading it) -> the reading frame's code,
# instruction and line; the first ones
_MAX_READS = 64
_READS = {}
# the files between `os.environ` and the program's read (`os.getenv`, `Mapping.get`), frozen
# into the interpreter or not
_ENVIRON_FILES = frozenset(
    {os.__file__, _collections_abc.__file__, "<frozen os>", "<frozen _collections_abc>"}
)
_NOT_USERS = (
    os.path.dirname(os.__file__),
    os.path.dirname(os.path.abspath(__file__)),
    "<",
)
_SIZE_CHARACTERS = frozenset(
    "0123456789 ,x()[]*+-"
)  # a value kept: sizes and shapes only

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
    _watch_environment()
    patches = {
        "threading": _patch_threading,
        "unittest.result": _patch_unittest,
        "jax._src.mesh": _provenance("patch_mesh"),
        "jax._src.sharding_impls": _provenance("patch_sharding"),
        "jax._src.shard_map": _provenance("patch_shard_map"),
        "jax._src.interpreters.pxla": _provenance("patch_pxla"),
        "jax._src.core": _provenance("patch_core"),
        "jax._src.pjit": _provenance("patch_pjit"),
        "jax._src.lax.utils": _provenance("patch_lax_utils"),
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


def _watch_environment():
    """Note each read of `os.environ` (`os.environ[...]`, `.get`, `os.getenv`) made by the
    program's own code (not the standard library's, a package's or the recorder's): the
    variable, its value when it reads as a size (digits and separators; any other value, a
    token, is never kept) and the line, bounded. The read itself is the original's."""
    cls = type(os.environ)
    original = cls.__getitem__
    if getattr(original, "_jaxfix_recorder", False):
        return

    def __getitem__(self, key):
        try:
            value = original(self, key)
        except KeyError:
            _note_read(self, key, None, original)
            raise
        _note_read(self, key, value, original)
        return value

    __getitem__.__wrapped__ = original
    __getitem__._jaxfix_recorder = True
    cls.__getitem__ = __getitem__


def _note_read(environ, key, value, read):
    """Note the program's read of `key` (`value`), with the test running it (pytest's
    PYTEST_CURRENT_TEST, read with `read`, the original `__getitem__`)."""
    try:
        if environ is not os.environ or len(_READS) >= _MAX_READS:
            return
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename in _ENVIRON_FILES:
            frame = frame.f_back
        if frame is None:
            return
        code = frame.f_code
        path = code.co_filename
        if (
            path.startswith(_NOT_USERS)
            or "site-packages" in path
            or "dist-packages" in path
        ):
            return
        size = (
            value
            if value and len(value) <= 32 and _SIZE_CHARACTERS.issuperset(value)
            else None
        )
        try:
            test = (
                read(environ, "PYTEST_CURRENT_TEST").rpartition(" (")[0][:300] or None
            )
        except KeyError:
            test = None
        place = (str(key)[:100], path, frame.f_lineno, size, test)
        if place not in _READS:
            _READS[place] = (code, frame.f_lasti, frame.f_lineno)
    except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
        pass


def environment_reads():
    """The environment variables the program's code read so far: (variable, value or None,
    test or None, code, instruction, line)."""
    return [
        (variable, value, test, *noted)
        for (variable, _, _, value, test), noted in list(_READS.items())
    ]


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
