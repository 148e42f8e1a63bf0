"""Where each mesh of a recorded run was built and entered: the recorder's memory of provenance.

When the program imports JAX's mesh module (and its sharding module), jaxfix/evidence/recorder.py has
this module wrap the few constructors and context entries that make or install a mesh:
`AbstractMesh(...)` and `Mesh(...)` (so `jax.make_mesh`, `.abstract_mesh` and `.update(...)`,
which build theirs through them; an abstract mesh a concrete mesh's `.abstract_mesh` makes
is looked up as the concrete mesh, whose construction gave its sizes),
`use_abstract_mesh(...)` and `with mesh:` when entered, and
`jax.set_mesh(...)` when it sets its mesh. Each wrapper calls the original and then notes, for
the object, the user-code frames of that moment (code, instruction, line: no frame is kept
alive), innermost first. The notes are keyed by the object's identity through a weak reference
(an object that dies takes its note with it) and bounded (the oldest go first); a failure here
is dropped. The writer reads them when an error names the object (docs/repair.md). JAX skips
the wrappers' frames as it skips its own, so its messages still name the program's line.

JAX's traceback filtering drops its own frames from an error raised under `jax.jit`, and with
them the frame whose locals name the meshes (`_top_level_ag`'s `aval` and `out_sh`): the
gather's wrapper (`patch_shard_map`) keeps that frame's locals on the error it lets through
(`RAISED_LOCALS`), where the writer reads them as it reads an unfiltered traceback's; the
lowering's wrapper (`patch_pxla`) does the same for `.lower()`'s argument shardings.

Standard library only, like the hooks; copied beside them as `jaxfix_record_provenance.py`.
"""

import os
import sys
import weakref

_MAX_OBJECTS = 4096  # notes per kind; the oldest are dropped first
_MAX_FRAMES = 8  # user frames per note, innermost first
_MAX_WALK = 200  # frames looked at per note

RAISED_LOCALS = (
    "_jaxfix_raised_locals"  # on an error a wrapped JAX function let through
)
# ... and the locals of each of JAX's frames between the wrapper and the raising one, by the
# function's name (the innermost of that name): a mesh a caller of the raising function holds
# (`_top_level_ag`'s `aval` while `canonicalize_sharding` raises)
RAISED_FRAMES = "_jaxfix_raised_frames"
_MAX_KEPT = 16  # frames whose locals are kept per error
# on an error that left a mesh context: the user frames that entered each, innermost context first
LEFT_CONTEXTS = "_jaxfix_left_contexts"
_MAX_CONTEXTS = 8  # contexts noted per error
_built = {}  # id(object) -> (weak reference, frames)
# id(object) -> (weak reference, the pytest test and phase running when it was built)
_built_during = {}
_entered = {}
# id(abstract mesh) -> (weak reference, weak reference to the concrete mesh that made it)
_derived = {}
_hidden_from = set()  # JAX's modules that skip this module's frames (_hide_from_jax)
_internal_paths = {}  # a code object's file -> whether it is JAX's, the stdlib's or ours
# JAX's functions that build a mesh the user asked for (`jax.make_mesh`, `mesh.update(...)`);
# any other of JAX's that makes one again (lowering a sharding) leaves its note as it is.
_BUILDERS = frozenset({"make_mesh", "update"})
# the largest concrete mesh the user's code built: (its devices, its user frames); the devices
# it holds show the program has at least that many (read from the object, never asked of JAX)
_largest = [0, ()]


def _internal(path):
    known = _internal_paths.get(path)
    if known is not None:
        return known
    prefixes = [
        os.path.dirname(os.__file__) + os.sep,
        os.path.dirname(__file__) + os.sep,
    ]
    for name in ("jax", "jaxlib"):
        package = getattr(sys.modules.get(name), "__file__", None)
        if package:
            prefixes.append(os.path.dirname(package) + os.sep)
    absolute = os.path.abspath(path) if not path.startswith("<") else path
    internal = (
        path.startswith("<")
        or any(absolute.startswith(prefix) for prefix in prefixes[1:])
        or (absolute.startswith(prefixes[0]) and "-packages" + os.sep not in absolute)
    )
    if len(_internal_paths) < 10_000:
        _internal_paths[path] = internal
    return internal


def _user_frames(frame):
    """(code, last instruction, line) of the innermost user-code frames from `frame` out."""
    found, walked = [], 0
    while frame is not None and walked < _MAX_WALK and len(found) < _MAX_FRAMES:
        code = frame.f_code
        if not _internal(code.co_filename):
            found.append((code, frame.f_lasti, frame.f_lineno))
        frame, walked = frame.f_back, walked + 1
    return tuple(found)


def _note(notes, obj, frame):
    try:
        _note_frames(notes, obj, _user_frames(frame))
    except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
        pass


def _note_frames(notes, obj, frames):
    try:
        if not frames:
            return
        key = id(obj)
        notes.pop(key, None)
        while len(notes) >= _MAX_OBJECTS:
            notes.pop(next(iter(notes)), None)
        reference = weakref.ref(obj, lambda _, key=key: notes.pop(key, None))
        notes[key] = (reference, frames)
    except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
        pass


def _looked_up(notes, obj):
    found = notes.get(id(obj))
    if found is None or found[0]() is not obj:
        return ()
    return found[1]


def built(obj):
    """The user frames (code, instruction, line), innermost first, of the call that last built
    `obj`; () when none was noted. For the abstract mesh of a concrete mesh, the concrete
    mesh's: JAX keeps one object for equal meshes (and its abstract mesh once made), so the
    last call that built it is the one that counts, looked up now."""
    derived = _derived.get(id(obj))
    if derived is not None and derived[0]() is obj:
        concrete = derived[1]()
        if concrete is not None:
            return _looked_up(_built, concrete)
    return _looked_up(_built, obj)


def built_during(obj):
    """The pytest test and phase (`tests/a_test.py::test_x (call)`) that last built `obj`, or
    None (outside a test, or not noted). A memoized factory (`functools.lru_cache`) hands the
    same object to a later test: its frames are then another test's path, not that one's."""
    derived = _derived.get(id(obj))
    if derived is not None and derived[0]() is obj and derived[1]() is not None:
        obj = derived[1]()
    found = _built_during.get(id(obj))
    return found[1] if found is not None and found[0]() is obj else None


def _note_during(obj):
    """Which test (pytest's PYTEST_CURRENT_TEST, read, never set) is building `obj` now."""
    try:
        during = os.environ.get("PYTEST_CURRENT_TEST")
        key = id(obj)
        _built_during.pop(key, None)
        if during is None:
            return
        while len(_built_during) >= _MAX_OBJECTS:
            _built_during.pop(next(iter(_built_during)), None)
        _built_during[key] = (
            weakref.ref(obj, lambda _, key=key: _built_during.pop(key, None)),
            during[:300],
        )
    except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
        pass


def largest_built():
    """(devices, user frames innermost first) of the largest concrete mesh the program's code
    built, or (0, ()) when it built none."""
    return tuple(_largest)


def _note_largest(obj, frame):
    if type(obj).__name__ != "Mesh":
        return
    size = int(getattr(obj.devices, "size", 0))
    if size > _largest[0]:
        frames = _user_frames(frame)
        if frames:
            _largest[:] = [size, frames]


def entered(obj):
    """The user frames of the last context entry (or `set_mesh`) that put `obj` in force."""
    return _looked_up(_entered, obj)


def _enter_note(mesh, frame):
    """A concrete mesh entered also puts its abstract mesh in force (the one JAX's messages
    name): that one is noted too, when it has been made (never made here)."""
    _note(_entered, mesh, frame)
    cached = getattr(mesh, "__dict__", {}).get("abstract_mesh")
    if cached is not None:
        _note(_entered, cached, frame)


def _made_by_jax(frame):
    """Whether JAX's own code, not a builder the user called, made a mesh: between the
    constructor and the user's frame, a frame of JAX's other than a builder
    (`get_non_one_sized_mesh_spec` calling `mesh.update(...)` while it lowers)."""
    walked = 0
    while (
        frame is not None and walked < _MAX_WALK and _internal(frame.f_code.co_filename)
    ):
        if frame.f_code.co_name not in _BUILDERS:
            return True
        frame, walked = frame.f_back, walked + 1
    return False


def _note_built(obj, frame):
    """A mesh built: its user frames; an abstract mesh made by a concrete mesh's
    `.abstract_mesh` (JAX's property, the caller's frame) is noted with that mesh's creation
    frames, where its sizes were given (the property's read says nothing about them). JAX
    making an equal mesh again while it lowers a sharding gets the one object back: the
    user's construction of it stays noted."""
    try:
        if frame.f_code.co_name == "abstract_mesh" and _internal(
            frame.f_code.co_filename
        ):
            concrete = frame.f_locals.get("self")
            if built(concrete):
                key = id(obj)
                while len(_derived) >= _MAX_OBJECTS:
                    _derived.pop(next(iter(_derived)), None)
                _derived[key] = (
                    weakref.ref(obj, lambda _, key=key: _derived.pop(key, None)),
                    weakref.ref(concrete),
                )
                return
        if _made_by_jax(frame) and _looked_up(_built, obj):
            return  # JAX making an equal mesh again (it keeps one): the user's stands
        _note_largest(obj, frame)
    except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
        pass
    _note(_built, obj, frame)
    _note_during(obj)


def _wrap_new(cls):
    original = cls.__new__

    def __new__(klass, *args, **kwargs):
        obj = original(klass, *args, **kwargs)
        _note_built(obj, sys._getframe(1))
        return obj

    __new__.__wrapped__ = original
    __new__.__doc__ = original.__doc__
    __new__._jaxfix_recorder = True
    cls.__new__ = staticmethod(__new__)


def _wrap_enter(cls, mesh_of):
    original = cls.__enter__

    def __enter__(self):
        result = original(self)
        try:
            _enter_note(mesh_of(self), sys._getframe(1))
        except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
            pass
        return result

    __enter__.__wrapped__ = original
    __enter__._jaxfix_recorder = True
    cls.__enter__ = __enter__
    _wrap_exit(cls, mesh_of)


def _wrap_exit(cls, mesh_of):
    """`__exit__` that, when an error leaves the context, notes on the error the user frames
    that entered it (the error was raised while that statement held the mesh in force; a
    context manager's generator frame, suspended there, is in no traceback)."""
    original = cls.__exit__

    def __exit__(self, kind, error, tb):
        try:
            if error is not None:
                frames = entered(mesh_of(self))
                left = error.__dict__.setdefault(LEFT_CONTEXTS, [])
                if frames and len(left) < _MAX_CONTEXTS:
                    left.append(frames)
        except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
            pass
        return original(self, kind, error, tb)

    __exit__.__wrapped__ = original
    __exit__._jaxfix_recorder = True
    cls.__exit__ = __exit__


def patch_mesh(module):
    """jax._src.mesh: the two mesh classes, `use_abstract_mesh` and `with mesh:`."""
    if getattr(module.AbstractMesh.__new__, "_jaxfix_recorder", False):
        return
    _hide_from_jax()
    _wrap_new(module.AbstractMesh)
    _wrap_new(module.Mesh)
    _wrap_enter(module.use_abstract_mesh, lambda self: self.mesh)
    _wrap_enter(module.Mesh, lambda self: self)


def patch_sharding(module):
    """jax._src.sharding_impls: `jax.set_mesh(mesh)` sets its mesh when it is made (it is a
    global setter as well as a context manager)."""
    _hide_from_jax()
    cls = module.set_mesh
    original = cls.__init__
    if getattr(original, "_jaxfix_recorder", False):
        return

    def __init__(self, mesh, *args, **kwargs):
        original(self, mesh, *args, **kwargs)
        try:
            if mesh is not None:
                _enter_note(mesh, sys._getframe(1))
        except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
            pass

    __init__.__wrapped__ = original
    __init__._jaxfix_recorder = True
    cls.__init__ = __init__
    # it keeps no mesh: the one in force as it exits is the one it set
    _wrap_exit(cls, lambda _: sys.modules["jax._src.mesh"].get_concrete_mesh())


def _hide_from_jax():
    """Have JAX skip this module's frames, as it skips its own, where it names the user's line
    in a message ("This error occurs at source: ...") and filters a traceback: a wrapper's
    frame stands between JAX and the program's call."""
    for name in ("jax._src.source_info_util", "jax._src.traceback_util"):
        module = sys.modules.get(name)
        if module is None or name in _hidden_from:
            continue
        try:
            module.register_exclusion(__file__)
            _hidden_from.add(name)
        except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
            pass


def _keep_raised_locals(function):
    """`function` that, when it raises, keeps the innermost frame's locals (where JAX raised,
    before any filtering) on the error, and those of the frames between, by function name;
    the error itself goes on unchanged."""

    def wrapper(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841 - pytest leaves this frame out of its tracebacks
        try:
            return function(*args, **kwargs)
        except Exception as error:
            try:
                tb = error.__traceback__
                between = []
                while tb is not None and tb.tb_next is not None:
                    tb = tb.tb_next
                    between.append(tb.tb_frame)
                if tb is not None and not hasattr(error, RAISED_LOCALS):
                    setattr(error, RAISED_LOCALS, dict(tb.tb_frame.f_locals))
                    setattr(
                        error,
                        RAISED_FRAMES,
                        {
                            f.f_code.co_name: dict(f.f_locals)
                            for f in between[-_MAX_KEPT:]
                        },
                    )
            except Exception:  # noqa: BLE001, S110 - the program must run as if unrecorded
                pass
            raise

    wrapper.__wrapped__ = function
    wrapper.__name__ = getattr(function, "__name__", "wrapper")
    wrapper.__qualname__ = getattr(function, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = getattr(function, "__doc__", None)
    wrapper.__module__ = getattr(function, "__module__", None)
    wrapper._jaxfix_recorder = True
    return wrapper


def patch_shard_map(module):
    """jax._src.shard_map: `top_level_all_gather`, whose error under `jax.jit` reaches the
    program with JAX's frames (and the meshes in them) filtered out."""
    function = getattr(module, "top_level_all_gather", None)
    if function is None or getattr(function, "_jaxfix_recorder", False):
        return
    _hide_from_jax()
    module.top_level_all_gather = _keep_raised_locals(function)


def patch_pxla(module):
    """jax._src.interpreters.pxla: `lower_sharding_computation`, whose "lowering_platforms
    ... is required" error reaches the program through `.lower()` with JAX's frames (and the
    lowering's argument shardings in them) filtered out."""
    function = getattr(module, "lower_sharding_computation", None)
    if function is None or getattr(function, "_jaxfix_recorder", False):
        return
    _hide_from_jax()
    module.lower_sharding_computation = _keep_raised_locals(function)


def patch_core(module):
    """jax._src.core: `check_avals_context_mesh`, whose error (an operation on an array of
    another mesh than the context's) reaches the program from under `jax.jit` with JAX's
    frames (and the two meshes in them) filtered out."""
    function = getattr(module, "check_avals_context_mesh", None)
    if function is None or getattr(function, "_jaxfix_recorder", False):
        return
    _hide_from_jax()
    module.check_avals_context_mesh = _keep_raised_locals(function)


def _keep_locals_of(module, names):
    """`module`'s functions `names`, wrapped to keep their raising frames' locals."""
    for name in names:
        function = getattr(module, name, None)
        if function is None or getattr(function, "_jaxfix_recorder", False):
            continue
        _hide_from_jax()
        setattr(module, name, _keep_raised_locals(function))


def patch_pjit(module):
    """jax._src.pjit: `with_sharding_constraint`'s checks of its sharding against the mesh's
    axis types, whose error under `jax.jit` reaches the program without the sharding (and
    its mesh) that JAX's frames held."""
    _keep_locals_of(module, ("check_shardings_are_auto", "assert_shardings_equal"))


def patch_lax_utils(module):
    """jax._src.lax.utils: `call_sharding_rule`, under which an operation's sharding rule
    (a gather's, a dot's) raises on its operands' Explicit axes: their meshes are kept."""
    _keep_locals_of(module, ("call_sharding_rule",))
