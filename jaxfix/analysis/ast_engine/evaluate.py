"""What an expression evaluates to, over `ast`, for a whole project.

`Evaluator.value_of(module, expr)` answers with a value of jaxfix/analysis/ast_engine/values.py
or `Unknown(why)`. Names take the bindings that reach their statement (flow.py) and give a value
when all of them agree; a parameter takes its value from the call being followed, else from
every call of its function in the project (all must agree, defaults included; a function used
in any other way than called keeps its parameters Unknown; `jax.jit(f)(x)`, and `g =
jax.jit(f)` in a function every read of `g` calls, are calls of `f`, as are those of a
`functools.partial(f, k=v)` called where it is made or bound to such a name, with the
partial's keywords: `eval_fn = partial(evaluate, mesh=mesh)`, then `eval_fn(batch)`). A
module's global a function stores through `global` (`def set_mesh(m): global _MESH; _MESH =
m`) is, read from a function, the one value every such plain store gives (and the module's
own binding, None left out where the read is a getter's `return _MESH` right after
`if _MESH is None: raise ...`). Calls of functions of the tree are
followed a few levels deep with their arguments bound, each (function, arguments) once: the
value is what every `return` the frame can reach gives (an `if` the arguments decide runs one
branch). Objects: calling a class of the tree gives an `Instance` with its constructor's
arguments; its attributes are the class's constants, methods, properties (the getter
evaluated with `self` bound; a memoizing getter, `if self._m is None: self._m = E` then
`return self._m`, gives `E` when nothing else stores `._m`), dataclass fields (a default, or
what a `default_factory` function of the tree returns, or an object its class of the tree
builds with no arguments; Unknown for a dataclass not frozen where
a method of its class, code outside it or a `setattr` may store the field again), and what
`__init__` assigns to `self.x` (a base's `__init__` with the arguments of the subclass's one
`super().__init__(...)`; Unknown when another method, code outside the class or a `setattr`
may assign it too: a `setattr(self, ...)` or `self.x = ...` in a method of another class, one
the object's class does not derive from, sets only that class's objects; a `setattr` loop over
a function's `**kwargs` sets only the keys its calls give, through `super().__init__(**kwargs)`
forwarding a subclass's own, less those the function's parameters take); a method returning
its object, called once (`model = Model(cfg).shard_model()`), gives the object with the
attributes its body stores (evaluated on the object as it was); an attribute one setup method
taking `self` alone stores on every way through it (`def setup_mesh(self): self.mesh = ...`,
`__init__` storing None or nothing) is what it stores, run on the object, where it runs before
any other use of every object of the class: first in `__init__`, or as the statement right
after each construction (`t = Trainer(cfg)`, `t.setup_mesh()`), called nowhere else, or first
in the method holding the read (a memoizing one's `if self.mesh is not None: return` allowed;
set_up.py);
a mesh a call of a function of
the tree returns keeps that call's place before the places it was built through
(`Mesh.built_at`: the frames written_at.py walks, as a recorded run's), as does a mesh a
property's getter builds (the read's place), a static or class method's call, and a mesh an
`__init__` builds and keeps (the construction's place); a mesh a function was given is not
built through its call; `super().name` in a method is `name` as the
classes after the method's own in the object's (single-inheritance) MRO bind it, bound to that
object (`super().task()` runs the base's `task` with the subclass's class attributes). A
method's `self` is the one object every call
of the method in the project is made on, when jaxfix saw it built (`PROVIDER =
LoraProvider(mesh_shape=(2, 2))` in a config module, `configs.PROVIDER.lora_shapes(...)`);
a method's callers are looked for in every module holding its name, imported or not. A
class's `__call__` runs at each call of a name bound to one of its objects, built there or
returned by a factory whose every `return` returns it (t5x's `partition(fn, ...)` returning
its `JittedFnWithContext`, then `p_train_step(...)`), two factories deep; the name's other
reads may be attributes (`pipeline.prepare_latents(...)`) where no method of the class hands
its object on (its first parameter read only as `self.attr`).
Attribute configs: a function that builds a config empty and fills it by attribute stores,
one statement each in its own body (`config = ConfigDict()`, `config.data = ConfigDict()`,
`config.data.batch_size = 16`: ml_collections' `ConfigDict`, a `dict` subclass whose
`__setattr__`/`__getattr__` are its items, a class keeping them as the items of a dict it
starts empty, as ml_collections' own and a project's stand-in do: field_dicts.py;
`types.SimpleNamespace`), read only after the last
store, gives that config (`.get(k)`, `[k]` and attributes of a ConfigDict); such a `dict`
subclass called as `dict` is (a mapping and keywords: nanodo's `create(**kwargs)`), and
ml_collections' `config_dict.create(**kwargs)`, hold those items. Config objects: an
object of a class of the tree that the function building it configures before it escapes
(axlearn's `cfg = Runner.default_config().set(name=...)`, `cfg.mesh_shape = (2, 4)`, then
`return cfg`: stores and method calls as statements of its own body, every other use after the
last of them; configured.py) holds what those stores and a setter of the keywords it is given
(`set(**kwargs)` looping `setattr(self, k, v)`) set, and a store or a setter's call on an object
of a class unrelated to the one read sets nothing on it. Containers: tuple, list and dict displays,
`dict(...)`, `.values()/.keys()/.items()/.get()`, items, slices, `+`, `*`, `len`,
`math.prod`, `range`, `zip`, `enumerate` and comprehensions over known values (a
`PartitionSpec` iterates its parts); a list or dict whose name is used in
any way that may change it is Unknown (mutation.py), unless, for a function's local, no such use
is reached by the binding read in the frame followed; a module's object called through a method
that only reads `self` is not changed by it, nor a container a class's `__init__` keeps as
`self.attr` when every `.attr` of the project only reads it, nor one a tuple or list display
holds under a name that is only read (`args = (batch,)`, then `lower(*args)`); a tuple holding
a list or dict is Unknown where its name may change them (`args[0]["x"] = ...`). A function's
own `**kwargs` whose only changes are pops of distinct keys: `kwargs.pop("k", default)` is
the keyword the call gave, else the default, and `kwargs` read after pops that are statements
of the body (`super().__init__(**kwargs)`) is the call's keywords less those. A dict a function builds empty
and fills in one `for` loop over known items (`out[k] = f(v)`, or a list's `out.append(f(v))`;
an `if ...: continue` first skips the items it decides), read only after the loop, is
the dict the loop makes (each iteration's stores evaluated with the loop's variables bound to
that item). `isinstance(x, C)` of Python's classes (dict, Mapping, Sequence, list, tuple, str,
int, ...) is decided for the data jaxfix spells out, and of JAX's (`AbstractMesh`, `Mesh`,
`NamedSharding`, `PartitionSpec`, `ShapeDtypeStruct`) for the JAX values it knows (so a helper
choosing `use_abstract_mesh` or `jax.set_mesh` by the mesh's class runs one branch); a
lambda's parameter is known where it is called when its body only reads it, and, for the
lambda `jax.tree.map(f, *trees)` (or `_with_path`) is given, is the one leaf its tree's every
leaf is. A class method's `cls` is its class where no class of the run derives from it; what a
TestCase's `setUpClass` stores on `cls` (the module's only store of that attribute) is what its
tests read through `self`. `min`/`max` of several arguments; an operation on a value jaxfix
does not know says where that value was lost. A variable of a comprehension's first
generator, read where the comprehension is not unrolled, is the one value every item gives.
A comprehension over values jaxfix does not spell out (data read at run time) whose element
is one value whatever the item is `Items` of it, a collection that may be empty: its items,
`.values()`/`.items()`, `next(iter(...))` and `jax.tree.map` over it keep that value. A name
of an enclosing function read by a function defined after every binding of it (no loop
repeating the definition, no `nonlocal`) is what reaches that definition (`if mesh is None:
mesh = default()`, then `def put(x): ... mesh ...`). A member of an `enum.Enum` class of the
tree is an `EnumMember`, whose `.value` and `.name` are known. `obj[key]` of an object of a
class of the tree whose class (or a base of the tree) defines `__getitem__` is that method's
return; `obj[key] = v` on one, in a module naming its class, is a call of its own
`__setitem__(key, v)`: a dict attribute `__init__` starts empty (`{}`, `dict()`,
`OrderedDict()`) that only that `__setitem__` fills (every other use of the attribute in the
project a read or a removal; no `.update`, `.setdefault` or `obj[k] op= v` of an object of
the class) is `Items` of what those stores keep: the one value they all keep, objects of one
class built with the constructor's arguments they agree on (keras' `LayoutMap` of
`TensorLayout`s). A function returning that or None (`return self._map[key]`, `return None`)
gives `OneOf` the two, which a read under `if x is not None:` (or `if x:`) that the same
bindings reach narrows to the value; returns of objects of one class are that class's object
with the arguments they agree on. An attribute `__init__` sets to None that code outside the
class stores one object on (`runner.spec_worker = Worker(...)`) is `OneOf` the two too, the
object where it is the first thing the first statement of an `if x.attr is not None:` body
reads.
A `for` loop's
variable is the one value every item of a known tuple or list gives, or, one iteration at a
time (`iterations`, `unrolled`: what a rule asks of a call inside loops, or inside a function
called from a loop), the item's; calling a generator
function of the tree gives what every `yield` of it gives (`next(gen)`, a loop over it).
A name a loop carries (`params, loss = step(params, batch)` after `params = init(mesh)`),
where what enters the loop holds placed arrays, is a fixed point (`_loop_carried`): assumed
to be what enters, widened (arrays on one mesh object, their spec unknown where it changes;
tuples and dicts item by item) with what each binding gives under the assumption, until the
assumption covers them all; what was answered under an assumption is kept only while it is
made (`_calls`, callers' arguments and flows asked meanwhile are dropped).
JAX's trees:
`jax.tree.map` over spelled-out containers, eval_shape's structs and `Leaves` (a tree
spelled out beside them gives each call one of its leaves: the one value they all are, or, for
shardings on one mesh with different specs, a sharding on that mesh), and over any
tree when the function gives one known mesh whatever the leaf (`lambda spec:
NamedSharding(mesh, spec)`), a subtree jaxfix does not know included; `jax.tree.leaves` of a
spelled-out tree; `jax.sharding.get_mesh()` is the concrete mesh of the innermost
`jax.set_mesh`/`use_mesh` around it (contexts.py); what a jitted function
returns, placed by its `out_shardings`, or given no shardings, each output array its body
shows on a mesh of Explicit axes on that sharding (its type); `jax.value_and_grad(f)(p, ...)`
and `jax.grad(f)(p, ...)`: what `f` returns and gradients of `p`'s structure, each on its
parameter's mesh where that mesh's axes are Explicit (a cotangent has its primal's type).
Strings: `.split(sep)`, `int(s)`, `sub in s`. A
conditional expression whose test jaxfix cannot decide is the value both sides give; when they
are different functions or APIs
(`set_mesh = jax.set_mesh if hasattr(jax, "set_mesh") else jax.sharding.use_mesh`, `OneOf`;
also a name `if`/`else` statements bind to one or the other, as compatibility modules do), a
call of it is evaluated once per side and is known when every side gives the same value
(`set_mesh(m)` and `use_mesh(m)` the same context when entered). JAX values: vocabulary.py.
Modules: a function body reads a module's names after every import has finished, so through an
import cycle (`from pkg import config` in pkg/__init__.py and in the modules it imports) a
submodule the package binds only by importing it is that submodule, and a function or class
defined once at a module's top is that definition; other cycles stay Unknown. A config
module's object or dict read by up to 32 modules is known when none of them changes it; a
module's number or tuple is Unknown where another module rebinds it (`config.MESH_SHAPE =
...`, `setattr(config, "MESH_SHAPE", ...)`). A class's `__init__` gets its parameters from
every call that builds an object of it: by its name, through a function of the tree it is
passed to (`build(ModelCls, cfg)`, `cls(cfg)` there), a module's registry dict read by a key
(entries of another known key left out), a registry a decorator fills (`_MODELS[key] = cls`
in `register(cls)`, or in the function a factory `register(name)` returns) read by a key
jaxfix does not know (what it decorates or is given: one class, or `OneOf` several; its
`.get(key)` is that or None, and a call of it the class's: calling None raises), `cls = A if f else B`, a function returning it, a
subclass (its constructions when it adds no `__init__`, its `super().__init__(...)` when it
adds one and may be built), a class method's `cls(...)` (inherited ones included); an
annotation, `isinstance` or an `except` builds nothing; any other use (kept in an attribute,
a base outside the tree) leaves them Unknown.
"""

from __future__ import annotations

import ast
import builtins
import enum
import operator
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TypeVar, cast

from jaxfix.analysis.ast_engine import (
    arrays,
    configured,
    device_shapes,
    field_dicts,
    item_stores,
    jax_attributes,
    set_up,
    vocabulary,
)
from jaxfix.analysis.ast_engine.flow import Binding, Env, Flow
from jaxfix.analysis.ast_engine.method_reads import read_only_when_called
from jaxfix.analysis.ast_engine.mutation import alias_target, escaped_names, reads_only
from jaxfix.analysis.ast_engine.project import (
    MAX_READER_MODULES,
    Module,
    ModuleRef,
    Project,
)
from jaxfix.analysis.ast_engine.values import (
    STAGE_METHODS,
    Alternatives,
    Array,
    AxisType,
    BoundMethod,
    Class,
    Devices,
    DictValue,
    EnumMember,
    External,
    Foreign,
    Frame,
    Function,
    Instance,
    Items,
    JaxStage,
    JitOfUnknown,
    Leaves,
    ListValue,
    LoadedFromFile,
    Mesh,
    MeshContext,
    MeshKind,
    ModuleValue,
    Namespace,
    NotDefined,
    OneOf,
    ShapeStruct,
    Sharding,
    Spec,
    StructLeaf,
    Structs,
    Unknown,
    Value,
    Yields,
    holds_tree_objects,
    join,
    known,
    lost_at,
    same,
    settles_join,
)
from jaxfix.analysis.names import API_LAST_NAMES, Api, api_of_name
from jaxfix.ground import quoting

_MAX_CALL_DEPTH = 4  # functions followed inside one another
_MAX_ITEMS = 256  # a range or comprehension longer than this is not spelled out
_MAX_ITERATIONS = 16  # the iterations of the loops around a call asked one by one
_MAX_ALTERNATIVES = 4  # the values of a call of a `OneOf` kept apart (`Alternatives`)
# Where `on_host` keeps the host's device count beside the loop variables (no loop is it).
_HOST: tuple[ast.AST, str] = (ast.Pass(), "<the host's device count>")


def _binds_at_top(tree: ast.Module, name: str) -> bool:
    """Whether the module's top-level statements define or import `name`."""
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if statement.name == name:
                return True
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            if any(
                (alias.asname or alias.name.split(".")[0]) == name
                for alias in statement.names
            ):
                return True
    return False


def _loaded_from_file(
    callee: External, positional: list[Value] | Unknown
) -> LoadedFromFile | None:
    """`importlib.util.spec_from_file_location(name, path)` and `module_from_spec` of it:
    the module loaded from that file (which file: what reads of it find); None for other
    calls."""
    if callee.name == "importlib.util.spec_from_file_location":
        return LoadedFromFile(
            "a module loaded from a file named at run time "
            "(`importlib.util.spec_from_file_location`)"
        )
    if (
        callee.name == "importlib.util.module_from_spec"
        and isinstance(positional, list)
        and len(positional) == 1
        and isinstance(positional[0], LoadedFromFile)
    ):
        return positional[0]
    return None


_MAX_POWER = 64
# Packages that are never the tree's own, even when the tree holds them (the JAX clone holds
# `jax/`): their names are matched as qualified names, as JAX's own users spell them.
_EXTERNAL_TOPS = frozenset(
    {"jax", "jaxlib", "numpy", "flax", "optax", "chex"}
) | frozenset(sys.stdlib_module_names)
_TREE_MAPS = frozenset({"jax.tree.map", "jax.tree_util.tree_map"})
_TREE_LEAVES = frozenset({"jax.tree.leaves", "jax.tree_util.tree_leaves"})
# `jax.grad(f)` / `jax.value_and_grad(f)`: whether the call also gives what `f` returns
_DIFFERENTIATE = {"jax.grad": False, "jax.value_and_grad": True}
# ... whose function is given each leaf's key path first
_TREE_MAPS_WITH_PATH = frozenset(
    {"jax.tree.map_with_path", "jax.tree_util.tree_map_with_path"}
)
_DATACLASS_DECORATORS = frozenset(
    {"dataclasses.dataclass", "flax.struct.dataclass", "chex.dataclass"}
)
# The methods of a `MutableMapping` (or a class of the tree) that call `__setitem__`.
_SETTING_METHODS = frozenset({"update", "setdefault", "__setitem__"})
# Bases that bring a dataclass no fields.
_FIELDLESS_BASES = frozenset(
    {"builtins.object", "typing.Generic", "abc.ABC", "equinox.Module"}
)
# Bases whose subclasses are (frozen) dataclasses without a decorator.
DATACLASS_BASES = frozenset({"equinox.Module"})
# `x: T = field(default=v)`: the field's default is `v` (none without `default=`).
FIELD_FUNCTIONS = frozenset({"dataclasses.field", "flax.struct.field", "equinox.field"})
# The engine's JAX values and the type `dir()` lists their attributes of (jax_attributes.py).
_JAX_KIND: dict[type, str] = {
    Array: "jax.Array",
    ShapeStruct: "jax.ShapeDtypeStruct",
    Sharding: "jax.sharding.NamedSharding",
    Spec: "jax.sharding.PartitionSpec",
}
# Decorators that return the class they are given (registered with JAX as a pytree).
_KEEPS_CLASS = frozenset(
    {
        "jax.tree_util.register_dataclass",
        "jax.tree_util.register_pytree_node_class",
        "jax.tree_util.register_pytree_with_keys_class",
        "jax.tree_util.register_static",
    }
)
_KEEPS_BODY = {
    "jax.jit": "jit",
    "jax.experimental.pjit.pjit": "jit",
    "functools.wraps": "",
    "contextlib.contextmanager": "contextmanager",
    "builtins.staticmethod": "staticmethod",
    "builtins.classmethod": "classmethod",
    "builtins.property": "property",
    # an object's own `obj.x = v` replaces what a cached_property computes
    "functools.cached_property": "settable property",
    # a memoized function returns what its body returns for the arguments it is given
    "functools.cache": "",
    "functools.lru_cache": "",
}
# `@functools.lru_cache(maxsize=None)`: a decorator made by a call of these, of options only
_MAKES_MEMO = frozenset({"functools.lru_cache"})
# A property read through its getter; one that a store `obj.x = v` may change (a setter, or
# cached_property's instance value) is read so only when no module stores `.x`.
_SETTABLE = "settable property"
# `jax.jit` keywords that leave the values its function is given as the caller's.
# Bases that make a class an enumeration whose members are objects of it ...
_ENUMS = frozenset({"enum.Enum", "enum.Flag"})
# ... or whose members are also strs or ints (equal to their values).
_DATA_ENUMS = frozenset(
    {"enum.StrEnum", "enum.IntEnum", "enum.IntFlag", "builtins.str", "builtins.int"}
)
_JIT_KEEPS_VALUES = frozenset(
    {"static_argnums", "static_argnames", "donate_argnums", "donate_argnames"}
)
_PROPERTIES = frozenset({"property", _SETTABLE})
# What a method may be wrapped by whose call (or read) runs its body as a frame of its own.
_FRAMED_WRAPPERS = frozenset({None, "staticmethod", "classmethod", *_PROPERTIES})
_BINARY: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}

_FLOAT_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
}

# Builtins that iterate a generator expression given to them at once.
_EAGER_CONSUMERS = tuple(
    External(f"builtins.{name}")
    for name in ("tuple", "list", "set", "frozenset", "dict", "sorted", "sum", "min")
    + ("max", "any", "all")
)

_NO_CUT = sys.maxsize
# How many steps (a subclass, a registry, a parameter, a name, a result) a class used as a
# value is followed to the calls that build its objects.
_MAX_CLASS_HOPS = 8
_MAX_FACTORY_DEPTH = 2  # factories returning an object followed to the object's calls
_MAX_FORWARDS = 3  # callers up a `**kwargs` is followed through `f(**kwargs)`
# The expressions evaluated to learn whether one read of a function's name in another module
# is that function (a method's name read on objects of any class): past this, the read may be
# it and the function's callers are not known. Over ten times what any read costs in the
# fixtures (most cost under 400); what it stops is a project's unrelated code (its own
# `data.decode()` for a fixture's `decode` method) followed through all of its callers.
_MAX_STEPS_PER_READ = 5_000

CurrentMesh = Callable[[Module, ast.AST, Frame], Value]
_Comprehension = ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
# The loops around a read of a name, and the comprehension binding it (`Evaluator._around`).
_Around = tuple[tuple[ast.For, ...], tuple[_Comprehension, bool] | None]


class NotAVariable(enum.Enum):
    """What `Evaluator.comprehension_variable` gives for a name that is no comprehension's
    or unrolled loop's variable (None is a value such a variable may hold)."""

    NAME = "not a comprehension's variable"


class Evaluator:
    def __init__(self, project: Project, jax_version: tuple[int, ...] | None) -> None:
        self.project = project
        self.jax_version = jax_version
        self.current_mesh: CurrentMesh = lambda module, node, frame: Unknown(
            "contexts are not known here"
        )
        # the concrete mesh `jax.sharding.get_mesh()` returns there (set_mesh's, use_mesh's)
        self.current_device_mesh: CurrentMesh = lambda module, node, frame: Unknown(
            "contexts are not known here"
        )
        self._flows: dict[tuple[ast.AST, Frame], Flow] = {}
        self._escaped: dict[Path, frozenset[str]] = {}
        self._read_by_callees: dict[tuple[Path, str], bool] = {}
        # (module, name, receiver or "rebound") -> where another module may change it
        self._changed: dict[tuple[object, ...], str | None] = {}
        self._calls: dict[tuple[object, ...], Value] = {}
        # what a name a loop carries is assumed to be, where a read of it meets its own
        # question (`_loop_carried`), by the name, the bindings reaching it and its frame
        self._carried: dict[
            tuple[str, frozenset[Binding], Frame], tuple[Value, int]
        ] = {}
        self._params: dict[tuple[ast.AST, str], Value] = {}
        self._importers: dict[tuple[Module, Path], bool] = {}
        self._importers_spelled: dict[tuple[Path, Path], bool] = {}
        self._only_called: dict[tuple[Path, ast.AST], bool] = {}
        # What is being evaluated, each with its place on the stack of questions.
        self._active: dict[tuple[object, ...], int] = {}
        self._depth = 0
        # Whether an answer gave up on code nested too deeply (its answers Unknown): the engine
        # then says the file is nested too deeply rather than report nothing about it.
        self.too_deep = False
        # The expressions evaluated so far, and the count past which an answer is not followed
        # (`_within`).
        self._steps = 0
        self._step_limit = sys.maxsize
        self._comprehension: dict[tuple[ast.AST, str], Value] = {}
        # Each expression's value per frame (and comprehension variables), kept only when every
        # cut met while computing it (a question already on the stack: a cycle) was a question
        # asked inside it; a cut at a question asked before it, or at the depth bound, makes the
        # value depend on the path that asked, not only on the expression and its frame.
        self._values: dict[tuple[object, ...], Value] = {}
        self._floor = _NO_CUT
        self._keys: list[tuple[object, ...]] = []
        self._tentative: dict[
            tuple[object, ...], tuple[Value, int, tuple[object, ...]]
        ] = {}
        self._generators: dict[ast.AST, bool] = {}
        self._frames: dict[ast.AST, Frame] = {}  # each scope's, by `frame_at`
        self._arounds: dict[ast.Name, _Around] = {}  # by `_around`
        # each function's item stores of a name (`_item_stores`)
        self._item_store_scans: dict[tuple[ast.AST, str], tuple[ast.Assign, ...]] = {}
        self._loop_modules: dict[ast.AST, Path] = {}  # the loops `iterations` gave

    def is_generator(self, function: ast.AST) -> bool:
        """Whether `function`'s own body yields (walked once per function)."""
        found = self._generators.get(function)
        if found is None:
            found = self._generators[function] = _is_generator(function)
        return found

    # -- the question -------------------------------------------------------------------------

    def value_of(self, module: Module, expr: ast.expr) -> Value:
        return self.value(module, expr, self.frame_at(module, expr))

    def frame_at(self, module: Module, node: ast.AST) -> Frame:
        """The frame of the scope `node` is in, its parameters taken from its callers (one
        per scope, made once: its hash is found once for the questions asked in it)."""
        scope = module.scope_of(node)
        found = self._frames.get(scope)
        if found is None or found.path != module.path:
            if scope is module.tree:
                found = Frame(scope, module.path, ())
            elif isinstance(scope, ast.ClassDef):
                found = Frame(scope, module.path, (), self.frame_at(module, scope))
            else:
                found = Frame(scope, module.path, None, self.frame_at(module, scope))
            self._frames[scope] = found
        return found

    def module(self, path: Path) -> Module | Unknown:
        return self.project.module(path)

    # -- expressions --------------------------------------------------------------------------

    def value(self, module: Module, node: ast.AST, frame: Frame) -> Value:
        return self._remembered(
            ("value", node, frame),
            lambda: self._located(module, node, frame),
            lambda: Unknown(f"line {module.line(node)} depends on itself"),
        )

    def _located(self, module: Module, node: ast.AST, frame: Frame) -> Value:
        value = self._value(module, node, frame)
        if isinstance(value, Unknown) and value.where is None:
            value.where = (module.path, module.line(node))  # where the trail ended
        return value

    def _remembered(
        self,
        key: tuple[object, ...],
        compute: Callable[[], Value],
        in_cycle: Callable[[], Value],
    ) -> Value:
        """`compute()`, the answer to question `key`, remembered for the module's questions
        (with the comprehension variables in force); `in_cycle()` when `key` is asked while
        being answered."""
        memo_key = (
            (*key, frozenset(self._comprehension.items()))
            if self._comprehension
            else key
        )
        if memo_key in self._values:
            return self._values[memo_key]
        self._steps += 1
        if self._steps > self._step_limit:
            self._floor = -1  # what asked it depends on the bound: not kept
            return Unknown("more code than jaxfix follows for one question")
        if key in self._active:
            self.cut(key)
            return in_cycle()
        tentative = self._tentative.get(memo_key)
        if tentative is not None and self._still_asked(tentative[1], tentative[2]):
            self._floor = min(self._floor, tentative[1])
            return tentative[0]
        place = self._push(key)
        outer_floor, self._floor = self._floor, _NO_CUT
        try:
            value = compute()
        except RecursionError:
            # Kept for this expression (the deepest one asked), so that the next question about
            # the code around it stops here rather than at the stack's bound again: nested code
            # costs one descent, not one per level. What asked it is not kept (`cut`).
            self.too_deep = True
            self._floor = -1
            value = self._values[memo_key] = Unknown("nested too deeply")
            return value
        finally:
            self._pop(key)
            inner_floor = self._floor
            self._floor = min(outer_floor, inner_floor)
        if self._carried:  # answered under an assumption: kept while it is made
            inner_floor = min(inner_floor, *(p for _, p in self._carried.values()))
        if inner_floor >= place:
            self._values[memo_key] = value
        elif inner_floor >= 0:
            # within the question at `inner_floor` (a loop's bindings reading each other), every
            # way to this expression meets the same cycle: keep it while that question is asked
            self._tentative[memo_key] = (value, inner_floor, self._keys[inner_floor])
        return value

    @contextmanager
    def _within(self, steps: int) -> Iterator[None]:
        """Evaluate at most `steps` more expressions (fewer inside a bound already set); past
        them every answer is Unknown and none asked meanwhile is kept."""
        outer = self._step_limit
        self._step_limit = min(outer, self._steps + steps)
        try:
            yield
        finally:
            self._step_limit = outer

    def _push(self, key: tuple[object, ...]) -> int:
        place = self._active[key] = len(self._keys)
        self._keys.append(key)
        return place

    def _pop(self, key: tuple[object, ...]) -> None:
        del self._active[key]
        self._keys.pop()

    def _still_asked(self, place: int, key: tuple[object, ...]) -> bool:
        return place < len(self._keys) and self._keys[place] is key

    def cut(self, key: tuple[object, ...] | None = None) -> None:
        """An answer met question `key` already on the stack (None: a bound that depends on
        the whole stack): what is asked above it is not kept."""
        place = self._active.get(key, -1) if key is not None else -1
        self._floor = min(self._floor, place)

    def _value(self, module: Module, node: ast.AST, frame: Frame) -> Value:
        if isinstance(node, ast.Constant):
            value = node.value
            if value is None or isinstance(value, (bool, int, float, str)):
                return value
            return Unknown("a constant jaxfix does not model")
        if isinstance(node, ast.Name):
            return self._name(module, node, frame)
        if isinstance(node, ast.Tuple):
            return self._elements(module, node.elts, frame)
        if isinstance(node, ast.List):
            items = self._elements(module, node.elts, frame)
            return ListValue(items) if isinstance(items, tuple) else items
        if isinstance(node, ast.Dict):
            return self._dict(module, node, frame)
        if isinstance(node, ast.Set):
            members = self._elements(module, node.elts, frame)
            if isinstance(members, tuple) and all(isinstance(m, str) for m in members):
                return frozenset(str(m) for m in members)
            return Unknown("a set jaxfix does not spell out")
        if isinstance(node, ast.Attribute):
            if _is_bare_super(node.value):
                return self._super_attribute(module, node, frame)
            base = self.value(module, node.value, frame)
            found = self.attribute(base, node.attr, node)
            if isinstance(found, Mesh) and isinstance(base, Instance):
                found = self._read_through_property(module, base, node, found)
            if (
                isinstance(found, OneOf)
                and None in found.options
                and _read_first_under_not_none(module, node)
            ):
                rest = [o for o in found.options if o is not None]
                return rest[0] if len(rest) == 1 else OneOf(found.why, tuple(rest))
            return found
        if isinstance(node, ast.Subscript):
            return self._subscript(module, node, frame)
        if isinstance(node, ast.Call):
            return self._call(module, node, frame)
        if isinstance(node, ast.BinOp):
            left = self.value(module, node.left, frame)
            if isinstance(left, Unknown):
                # lost where it was, whatever the right side is (`_binary`): not asked
                return lost_at(Unknown(left.why), left)
            right = self.value(module, node.right, frame)
            array = arrays.binary(node.op, left, right, node)
            return array if array is not None else _binary(node.op, left, right)
        if isinstance(node, ast.UnaryOp):
            operand = self.value(module, node.operand, frame)
            if isinstance(node.op, ast.Not):
                truth = _truth(operand)
                return (
                    Unknown("`not` of an unknown value") if truth is None else not truth
                )
            if isinstance(node.op, ast.USub) and _is_int(operand):
                return -operand  # type: ignore[operator]  # _is_int checked it
            if isinstance(node.op, ast.UAdd) and _is_int(operand):
                return operand
            if isinstance(node.op, (ast.USub, ast.UAdd)) and isinstance(operand, Array):
                kept = arrays.on_operands_mesh([operand], node)
                if kept is not None:
                    return kept
            return _operation_lost([operand])
        if isinstance(node, ast.BoolOp):
            return self._bool_op(module, node, frame)
        if isinstance(node, ast.Compare):
            return self._compare(module, node, frame)
        if isinstance(node, ast.IfExp):
            truth = _truth(self.value(module, node.test, frame))
            if truth is not None:
                return self.value(module, node.body if truth else node.orelse, frame)
            sides = [
                self.value(module, node.body, frame),
                self.value(module, node.orelse, frame),
            ]
            why = "the two sides of a conditional expression differ"
            options = _callables(sides)
            if options is not None and len(options) > 1:
                return OneOf(why, options)
            return join(sides, why)
        if isinstance(node, ast.Lambda):
            return Function(node, module.path, frame)
        if isinstance(node, ast.NamedExpr):
            return self.value(module, node.value, frame)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp)):
            return self._comprehension_value(module, node, frame)
        return Unknown(f"a {type(node).__name__} jaxfix does not evaluate")

    def _elements(
        self, module: Module, elements: list[ast.expr], frame: Frame
    ) -> Value:
        items: list[Value] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                spliced = _items(self.value(module, element.value, frame))
                if spliced is None:
                    return Unknown("a starred element jaxfix cannot spell out")
                items.extend(spliced)
            else:
                items.append(self.value(module, element, frame))
        return tuple(items)

    def _dict(self, module: Module, node: ast.Dict, frame: Frame) -> Value:
        pairs: list[tuple[Value, Value]] = []
        written: list[tuple[Value, ast.AST]] = []
        for key, value in zip(node.keys, node.values):
            if key is None:
                spliced = self.value(module, value, frame)
                if not isinstance(spliced, DictValue):
                    return Unknown("`**` of a dict jaxfix does not know")
                pairs.extend(spliced.items)
                written.extend(spliced.written)
                continue
            pairs.append(
                (self.value(module, key, frame), self.value(module, value, frame))
            )
            written.append((pairs[-1][0], key))
        if not all(known(k) for k, _ in pairs):
            return Unknown("a dict with keys jaxfix cannot compute")
        return DictValue(tuple(pairs), written=tuple(written))

    def _bool_op(self, module: Module, node: ast.BoolOp, frame: Frame) -> Value:
        is_and = isinstance(node.op, ast.And)
        value: Value = Unknown("an empty boolean operation")
        for index, operand in enumerate(node.values):
            value = self.value(module, operand, frame)
            if index == len(node.values) - 1:
                return (
                    value  # `mesh or default_mesh()`: the last operand, whatever it is
                )
            truth = _truth(value)
            if truth is None:
                return lost_at(
                    Unknown("a boolean operation on an unknown value"),
                    value if isinstance(value, Unknown) else Unknown(""),
                )
            if truth is not is_and:
                return value
        return value

    def _compare(self, module: Module, node: ast.Compare, frame: Frame) -> Value:
        if len(node.ops) != 1:
            return Unknown("a chained comparison")
        left = self.value(module, node.left, frame)
        op = node.ops[0]
        settled = _compare_settled(op, left)
        if settled is not None:
            return Unknown(settled)  # what the right side is changes nothing: not asked
        right = self.value(module, node.comparators[0], frame)
        if isinstance(op, (ast.Is, ast.IsNot)):
            if isinstance(right, Unknown) or isinstance(left, Unknown):
                return Unknown("an identity test of an unknown value")
            if right is None or left is None:
                equal = left is None and right is None
                return equal if isinstance(op, ast.Is) else not equal
            return Unknown("an identity test jaxfix does not decide")
        primitive = (int, float, str, tuple)
        if isinstance(op, (ast.Eq, ast.NotEq)):
            if (isinstance(left, primitive) or left is None) and (
                isinstance(right, primitive) or right is None
            ):
                if known(left) and known(right):
                    equal = left == right
                    return equal if isinstance(op, ast.Eq) else not equal
            return Unknown("a comparison jaxfix does not decide")
        if isinstance(op, (ast.In, ast.NotIn)):
            if isinstance(left, str) and isinstance(right, str):
                found = left in right  # `":" in axis_dims`: a substring test
                return found if isinstance(op, ast.In) else not found
            items = _items(right)
            if items is not None and known(left) and all(known(i) for i in items):
                found = any(same(left, i) for i in items)
                return found if isinstance(op, ast.In) else not found
        if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) and (
            _is_int(left) and _is_int(right)
        ):
            compare = {
                ast.Lt: operator.lt,
                ast.LtE: operator.le,
                ast.Gt: operator.gt,
                ast.GtE: operator.ge,
            }[type(op)]
            assert isinstance(left, int) and isinstance(right, int)
            return bool(compare(left, right))
        return Unknown("a comparison jaxfix does not decide")

    # -- names --------------------------------------------------------------------------------

    def _name(self, module: Module, node: ast.Name, frame: Frame) -> Value:
        bound = self.comprehension_variable(module, node)
        if bound is not NotAVariable.NAME:
            return bound
        left = self._keywords_left(module, node, frame)
        if left is not None:
            return left
        return self.lookup(module, node.id, node, frame)

    def lookup(self, module: Module, name: str, at: ast.AST, frame: Frame) -> Value:
        """The value of `name` read at `at` in `frame` (whose scope holds `at`)."""
        scope = frame.scope
        if scope is module.tree or name in _locals(module, scope):
            return self._flow_value(module, name, at, frame)
        # a free name: the enclosing functions (not class bodies), then the module
        outer = frame.parent
        while outer is not None and outer.scope is not module.tree:
            if not isinstance(outer.scope, ast.ClassDef) and name in _locals(
                module, outer.scope
            ):
                settled = self._settled_before(module, name, at, outer)
                if settled is not None:
                    return settled
                return self._everywhere(module, name, outer)
            outer = outer.parent
        return self._global(module, name, at)

    def _settled_before(
        self, module: Module, name: str, at: ast.AST, outer: Frame
    ) -> Value | None:
        """A name of `outer`'s scope read from a function (or lambda) defined in it, where
        every binding of the name comes before the statement defining that function, which no
        loop repeats, and nothing rebinds it by `nonlocal`: the bindings reaching that
        statement, all the function can ever see (`if mesh is None: mesh = default()`, then
        `def put(x): ... mesh ...`). None otherwise."""
        statement = _statement_in(module, at, outer.scope)
        if statement is None or not isinstance(
            outer.scope, (ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            return None
        current: ast.AST | None = module.parents.get(statement)
        while current is not None and current is not outer.scope:
            if isinstance(current, (ast.For, ast.AsyncFor, ast.While)):
                return None
            current = module.parents.get(current)
        flow = self.flow(module, outer)
        line = module.line(statement)
        if (
            name in module.declared_nonlocal
            and any(
                isinstance(n, ast.Nonlocal) and name in n.names
                for n in ast.walk(outer.scope)
            )
        ) or any(module.line(b.node) >= line for b in flow.everything.get(name, ())):
            return None
        env = flow.before.get(statement)
        bindings = env.get(name) if env is not None else None
        if not bindings:
            return None
        return self._bindings_value(module, name, bindings, outer)

    def api_value(
        self, module: Module, expr: ast.expr, frame: Frame | None = None
    ) -> Value | None:
        """The value of `expr` when it may be a JAX API, None when it surely is none: an
        attribute `x.attr` whose name is no API's last name (every qualified name of an API
        reached through `x.attr` ends in `.attr`: one stored on an object under another name,
        `self.sm = jax.set_mesh`, is not followed), or a name that reads a function or class
        of the tree or a builtin (`names_a_definition`). Most callees of a module are
        answered so without evaluating them."""
        if isinstance(expr, ast.Attribute) and expr.attr not in API_LAST_NAMES:
            return None
        if (
            isinstance(expr, ast.Name)
            and expr.id not in API_LAST_NAMES
            and self.names_a_definition(module, expr)
        ):
            return None
        if frame is None:
            frame = self.frame_at(module, expr)
        return self.value(module, expr, frame)

    def names_a_definition(self, module: Module, node: ast.Name) -> bool:
        """Whether `node` surely reads a `def` or `class` statement without decorators (the
        name is bound by nothing else in the scope it is read from, as `lookup` resolves it)
        or a builtin (bound nowhere, no star import): a function or class, never a JAX API."""
        if self.comprehension_variable(module, node) is not NotAVariable.NAME:
            return False
        scope = module.scope_of(node)
        innermost = True
        while scope is not module.tree:
            if (innermost or not isinstance(scope, ast.ClassDef)) and (
                node.id in _locals(module, scope)
            ):
                return node.id in _definitions(module, scope)
            innermost = False
            scope = module.scope_of(scope)
        if node.id in module.declared_global:
            return False
        if node.id not in _locals(
            module, scope
        ):  # a builtin, unless a star import binds it
            return not module.has_star_import
        return node.id in _definitions(module, scope)

    def _flow_value(
        self, module: Module, name: str, at: ast.AST, frame: Frame
    ) -> Value:
        flow = self.flow(module, frame)
        statement = _statement_in(module, at, frame.scope)
        env: Env | None
        if statement is None:  # a lambda's body: its parameters
            env = flow.end
        elif isinstance(statement, ast.While) and _holds(statement.test, at):
            env = flow.heads.get(statement)
        else:
            env = flow.before.get(statement)
        if env is None:
            return Unknown(
                f"line {module.line(at)} is never reached (or depends on itself)"
            )
        if statement is not None and self._read_later(module, at, statement, frame):
            return self._everywhere(module, name, frame)
        bindings = env.get(name)
        if not bindings:
            if frame.scope is module.tree or isinstance(frame.scope, ast.ClassDef):
                if "*" in env:
                    return Unknown(f"`{name}` may come from a star import")
                if frame.scope is not module.tree:
                    return self.lookup(module, name, at, frame.parent or frame)
                return _builtin(name)
            return Unknown(f"`{name}` is not bound at line {module.line(at)}")
        if statement is not None:
            stored = self._item_stores_before(module, name, bindings, statement, frame)
            if stored is not None:
                return stored
        value = self._bindings_value(module, name, bindings, frame)
        if isinstance(value, Instance) and statement is not None:
            value = self._configured_before(
                module, name, bindings, frame, statement, value
            )
        if (
            isinstance(value, OneOf)
            and None in value.options
            and statement is not None
            and _tested_not_none(module, name, statement, bindings, flow)
        ):
            # `if x is not None: return x` of a value that may be None: the other one
            rest = [o for o in value.options if o is not None]
            return rest[0] if len(rest) == 1 else OneOf(value.why, tuple(rest))
        return value

    def _item_stores_before(
        self,
        module: Module,
        name: str,
        bindings: frozenset[Binding],
        statement: ast.stmt,
        frame: Frame,
    ) -> Value | None:
        """A function's list (or dict) changed only by item stores (`sizes[sizes.index(-1)]
        = n // known` under `if -1 in sizes:`, maxtext's `fill_unspecified_mesh_axes`), read
        at `statement`: its value with the stores before `statement` that run in this frame
        applied in order. Each store is a statement of the function's body or of `if`s in it
        whose tests this frame decides (no loop, `try` or `with` around it); every read up to
        the last store only computes from the items (`x[i]`, `x.index(v)`, `v in x`,
        `len(x)`, `math.prod(x)`, `tuple(x)`), so no other name holds the object they change.
        None where that is not so."""
        scope = frame.scope
        if (
            len(bindings) != 1
            or not isinstance(scope, ast.FunctionDef)
            or name not in self._escaped_in(module)
        ):
            return None
        (binding,) = bindings
        if binding.kind not in ("param", "assign") or binding.path:
            return None
        stores = self._item_stores(module, name, scope)
        if not stores:
            return None
        line = module.line(statement)
        ran: list[ast.Assign] = []
        for store in stores:
            if module.line(store) >= line:
                break  # no loop holds a store: one after `statement` has not run
            env = self.flow(module, frame).before.get(store)
            if env is None:
                continue  # on a branch this frame never takes
            if env.get(name) != bindings or not self._runs_here(module, store, frame):
                return None
            ran.append(store)
        value = self._binding_value(module, name, binding, frame)
        if not isinstance(value, (ListValue, DictValue)):
            return (
                None  # an object's `__setitem__` stores (keras' LayoutMap) are its own
            )
        for store in ran:
            target = store.targets[0]
            assert isinstance(target, ast.Subscript)
            key = self.value(module, target.slice, frame)
            item = self.value(module, store.value, frame)
            value = _item_replaced(value, key, item)
            if isinstance(value, Unknown):
                return lost_at(value, item) if isinstance(item, Unknown) else value
        return value

    def _item_stores(
        self, module: Module, name: str, scope: ast.FunctionDef
    ) -> tuple[ast.Assign, ...]:
        """The item stores `name[key] = value` of `scope` in line order, where its every
        other read there only reads (none of them in a nested scope) and those up to the
        last store only compute from the items; else none. Found once per function and name:
        each read of the name in the function asks it again."""
        key = (scope, name)
        found = self._item_store_scans.get(key)
        if found is None:
            found = self._item_store_scans[key] = _item_stores_in(module, name, scope)
        return found

    def _runs_here(self, module: Module, store: ast.stmt, frame: Frame) -> bool:
        """Every statement around `store` up to its function is an `if` whose test this frame
        decides, taking the side `store` is on."""
        child: ast.AST = store
        parent = module.parents.get(store)
        while parent is not None and parent is not frame.scope:
            if not isinstance(parent, ast.If) or child is parent.test:
                return False
            truth = _truth(self.value(module, parent.test, frame))
            if truth is None or truth != any(child is s for s in parent.body):
                return False
            child, parent = parent, module.parents.get(parent)
        return parent is frame.scope

    def _configured_before(
        self,
        module: Module,
        name: str,
        bindings: frozenset[Binding],
        frame: Frame,
        statement: ast.stmt,
        built: Instance,
    ) -> Instance:
        """The object `name` holds where `statement` runs, in a function that builds it and
        configures it before it escapes (`configured.configuring`): `built` with what each
        configuring statement before `statement` stores (`cfg.mesh_shape = (2, 4)`; a
        method's call, `cfg.set(name=...)`, gives the object the call returns, which must be
        the same object); `built` as it was where the function does anything else."""
        scope = frame.scope
        if len(bindings) != 1 or not isinstance(
            scope, (ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            return built
        (binding,) = bindings
        start = binding.node
        if not (
            binding.kind == "assign"
            and isinstance(start, ast.Assign)
            and start in scope.body
        ):
            return built
        uses = [
            u
            for u in module.loads_by_name.get(name, ())
            if isinstance(u, ast.Name) and module.is_within(u, scope)
        ]
        found = configured.configuring(scope, name, start, uses, module.parents)
        top = _top_of(module, statement, scope)
        if found is None or top is None:
            return built
        current = built
        for step in found:
            if scope.body.index(step.statement) >= scope.body.index(top):
                break
            if step.attr is not None:
                stored = self.value(module, step.value, frame)
                current = replace(
                    current,
                    stored=current.stored + ((step.attr, stored, step.statement),),
                )
                continue
            after = self.value(module, step.value, frame)
            if not (isinstance(after, Instance) and after.cls == current.cls):
                return built  # a method that may change the object in ways not seen
            current = after
        return current

    def _read_later(
        self, module: Module, at: ast.AST, statement: ast.stmt, frame: Frame
    ) -> bool:
        """Whether `at` is read when a generator expression of `statement` is iterated, not
        where the statement runs (`(A for _ in r)`; not `tuple(A for _ in r)`, nor its
        first iterable): any binding of the scope may be the one it sees."""
        child, parent = at, module.parents.get(at)
        while parent is not None and child is not statement:
            if isinstance(parent, ast.GeneratorExp) and not _holds(
                parent.generators[0].iter, at
            ):
                consumer = module.parents.get(parent)
                eager = (
                    isinstance(consumer, ast.Call)
                    and consumer.args == [parent]
                    and self.value(module, consumer.func, frame) in _EAGER_CONSUMERS
                )
                if not eager:
                    return True
            child, parent = parent, module.parents.get(parent)
        return False

    def _everywhere(self, module: Module, name: str, frame: Frame) -> Value:
        """A name of `frame`'s scope read from a function defined in it: any binding it has."""
        flow = self.flow(module, frame)
        bindings = frozenset(flow.everything.get(name, ()))
        if not bindings:
            return Unknown(f"`{name}` is not bound")
        return self._bindings_value(module, name, bindings, frame)

    def _global(self, module: Module, name: str, at: ast.AST | None = None) -> Value:
        """A module-level name read from a function: every binding it has in the module,
        and every value a function stores in it through `global` (`_singleton`)."""
        frame = Frame(module.tree, module.path, ())
        flow = self.flow(module, frame)
        if name not in flow.everything:
            if "*" in flow.everything:
                return Unknown(f"`{name}` may come from a star import")
            return _builtin(name)
        value = self._bindings_value(
            module, name, frozenset(flow.everything[name]), frame
        )
        if _assigned_by_global(module, name):
            return self._singleton(module, name, value, at)
        return value

    def _singleton(
        self, module: Module, name: str, initial: Value, at: ast.AST | None
    ) -> Value:
        """A module-level name a setter function stores through `global` (`_MESH = None`,
        `def set_mesh(m): global _MESH; _MESH = m`), read from a function: the one value
        every store gives (each evaluated where its setter runs), or that value or None where
        the module binds None and the read is not the `return NAME` right after an
        `if NAME is None: raise ...` (a getter's guard). Unknown where a function binds it
        otherwise than by one plain `NAME = value`, or the stores disagree."""
        lost = Unknown(f"`{name}` is also assigned by a function (`global`)")
        stores = _global_stores(module, name)
        if stores is None or not stores:
            return lost
        values: list[Value] = []
        for store in stores:
            value = self.value(module, store.value, self.frame_at(module, store))
            if isinstance(value, Unknown) or value is None:
                return lost_at(lost, value) if isinstance(value, Unknown) else lost
            values.append(value)
        if initial is not None:
            values.append(initial)
        found = join(values, f"functions store different values in `{name}`")
        if isinstance(found, Unknown) or initial is not None:
            return found
        if at is not None and _returned_after_none_guard(module, name, at):
            return found
        return OneOf(f"`{name}` may still be None where it is read", (found, None))

    def _loaded_attribute(
        self, base: LoadedFromFile, name: str, node: ast.AST
    ) -> Value:
        """`module.get_config` of a module loaded from a file named at run time: the
        function or class the project's modules bind to that name at their top (several:
        `OneOf` them, a call gives each one's value); Unknown where none does, or a module
        binds something else there."""
        holder = self.project.holding(node)
        if holder is None:
            return lost_at(Unknown(f"`.{name}` of {base.why}"), base)
        found = self.project.candidate_files(
            name, holder.path, imported=False, limit=_MAX_ALTERNATIVES
        )
        if isinstance(found, Unknown):
            return lost_at(Unknown(f"`.{name}` of {base.why}: {found.why}"), base)
        options: list[Value] = []
        for path in found:
            module = self.module(path)
            if isinstance(module, Unknown) or not _binds_at_top(module.tree, name):
                continue
            value = self.module_attribute(ModuleValue(path, None), name, node)
            if not isinstance(value, (Function, Class)):
                return lost_at(
                    Unknown(
                        f"`.{name}` of {base.why}, which {path.name} binds otherwise"
                    ),
                    base,
                )
            if value not in options:
                options.append(value)
        if not options:
            return lost_at(
                Unknown(
                    f"`.{name}` of {base.why}: no module of the project defines it"
                ),
                base,
            )
        why = f"`.{name}` of {base.why}"
        return options[0] if len(options) == 1 else OneOf(why, tuple(options))

    def module_attribute(self, ref: ModuleValue, name: str, node: ast.AST) -> Value:
        """`module.name` of a module of the tree: what its module body leaves bound."""
        if ref.path is None:
            sub = (
                self.project.submodule(ModuleRef(ref.path, ref.directory), name)
                if ref.directory is not None
                else None
            )
            if sub is not None:
                return ModuleValue(sub.path, sub.directory)
            return Unknown(f"`{name}` is not in namespace package {ref.directory}")
        module = self.module(ref.path)
        if isinstance(module, Unknown):
            return module
        frame = Frame(module.tree, module.path, ())
        key = ("module attribute", ref.path, name)
        if key in self._active:
            # asked again while its module's code is being followed (an import cycle:
            # `from pkg import sub` in pkg/__init__.py, a.py and b.py importing each other)
            found = self._bound_whatever_runs(module, ref, name)
            if found is not None:
                return found
            self.cut(key)
            return Unknown(f"an import cycle through `{name}`")
        if _assigned_by_global(module, name):
            return Unknown(f"`{name}` is also assigned by a function (`global`)")
        self._push(key)
        try:
            flow = self.flow(module, frame)
            bindings = flow.end.get(name) if flow.end is not None else None
            if bindings:
                return self._bindings_value(module, name, bindings, frame)
            if flow.end is not None and "*" in flow.end:
                return Unknown(f"`{name}` may come from a star import")
        finally:
            self._pop(key)
        if ref.directory is not None:
            sub = self.project.submodule(ModuleRef(ref.path, ref.directory), name)
            if sub is not None:
                return ModuleValue(sub.path, sub.directory)
        return Unknown(f"`{name}` is not bound in {ref.path.name}")

    def _bound_whatever_runs(
        self, module: Module, ref: ModuleValue, name: str
    ) -> Value | None:
        """`module.name` where following the module's code meets this very question (an
        import cycle), when what the name denotes once the module has run does not depend on
        which of its code ran: a function or class defined once, at the top of the module, with
        no decorator and nothing else binding the name; a submodule `pkg.name` that the
        package binds to the name only by importing it (`from pkg import name`, `from . import
        name`: Python imports the submodule there, whoever asks first). A function body reads
        a module's names after every import has finished, so the cycle changes nothing for
        them. None otherwise (the cycle stays an Unknown)."""
        if name in module.declared_global:
            return None
        tree = module.tree
        defined = [
            s
            for s in tree.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and s.name == name
        ]
        local, plain = module.scope_names(tree)
        if name in plain and len(defined) == 1 and not defined[0].decorator_list:
            if (
                sum(
                    1
                    for node in module.parents
                    if isinstance(
                        node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                    )
                    and node.name == name
                    and module.scope_of(node) is tree
                )
                != 1
            ):
                return None
            frame = Frame(tree, module.path, ())
            node = defined[0]
            if isinstance(node, ast.ClassDef):
                return Class(node, module.path, frame)
            return Function(node, module.path, frame)
        if ref.directory is None or module.has_star_import:
            return None
        sub = self.project.submodule(ModuleRef(ref.path, ref.directory), name)
        if sub is None or name not in local:
            return None
        for binder in module.parents:
            if module.scope_of(binder) is not tree or not _binds_name(binder, name):
                continue
            statement = module.parents.get(binder)
            if not (
                isinstance(binder, ast.alias)
                and binder.name == name
                and binder.asname in (None, name)
                and isinstance(statement, ast.ImportFrom)
            ):
                return None
            source = self.project.find(
                statement.module or "", statement.level, module.path
            )
            if isinstance(source, Unknown) or source.path != ref.path:
                return None
        return ModuleValue(sub.path, sub.directory)

    def flow(self, module: Module, frame: Frame) -> Flow:
        key = (frame.scope, frame)
        flow = self._flows.get(key)
        if flow is None:
            flow = self._flows[key] = Flow(frame.scope, module.has_walrus)
            params: dict[str, frozenset[Binding]] = {}
            scope = frame.scope
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                a = scope.args
                for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
                    if arg is not None:
                        params[arg.arg] = frozenset({Binding("param", arg)})
            start = Env(params)
            flow.run(
                lambda test, statement: _truth(self.value(module, test, frame)), start
            )
        return flow

    def _bindings_value(
        self, module: Module, name: str, bindings: frozenset[Binding], frame: Frame
    ) -> Value:
        carried = self._carried.get((name, bindings, frame)) if self._carried else None
        if carried is not None:
            assumed, place = carried
            self._floor = min(self._floor, place)  # what rests on it is not kept
            return assumed
        values: list[Value] = []
        asked: list[Value] = []  # every binding's value asked, for `_loop_carried`
        for binding in sorted(
            bindings, key=_source_order
        ):  # a set: in the code's order
            value = self._binding_value(module, name, binding, frame)
            asked.append(value)
            if settles_join(values, value):
                values = [value]  # what `join` gives, whatever the later bindings are
                break
            values.append(value)
        why = f"`{name}` may have different values here"
        options = _callables(values) if len(values) > 1 else None
        if options is not None and len(options) > 1:
            # a compatibility shim's `if hasattr(jax.sharding, "use_mesh"): set_mesh =
            # jax.sharding.use_mesh` / `else: set_mesh = jax.set_mesh`, as `a if t else b`
            return OneOf(why, options)
        value = join(values, why)
        if isinstance(value, Unknown):
            value = self._loop_carried(module, name, bindings, frame, asked) or value
        if isinstance(value, Namespace) and name in self._escaped_in(module):
            filled = self._filled_by_stores(module, name, bindings, frame)
            if filled is not None:
                return filled
        if (
            _holds_container(value)
            and name in self._escaped_in(module)
            and not self._only_read_by_callees(module, name)
            and not self._escapes_on_other_ways(module, name, bindings, frame)
            and not self._escapes_only_as_locals(module, name, frame)
        ):
            filled = self._filled_by_loop(module, name, bindings, frame)
            if filled is not None:
                return filled
            registry = self._filled_by_registration(module, name, bindings, frame)
            if registry is None:
                return Unknown(f"`{name}` may be changed where it is used")
            value = registry  # a module's registry: another module may change it too
        if (
            isinstance(frame.scope, ast.Module)
            and module.path != self.project.current
            and self._unchangeable(value)
        ):
            # `config.MESH_SHAPE = (8, 8)` in cli.py: the name itself rebound (a config
            # object's or dict's stores are `_changed_elsewhere`'s); asked of another
            # module's names (the checked module's own are read where it runs)
            where = self._rebound_elsewhere(module, name)
            if where is not None:
                return Unknown(f"`{name}` may be rebound in another module{where}")
        if isinstance(value, Namespace) and all(b.kind == "param" for b in bindings):
            # a config its callers built (`train_and_evaluate(config, workdir)`): their stores
            # are in it, and this function's own uses that may change it were asked above;
            # another module's `config.x = v` is of another variable
            return value
        if isinstance(value, Namespace) or (
            isinstance(value, (ListValue, DictValue, Items, Instance))
            and isinstance(frame.scope, ast.Module)
            and not self._unchangeable(value)
        ):
            # a config module's namespace, dict or object that another module sets
            # (`config.CONFIG[k] = v` in overrides.py, `CFG.x = v` in cli.py): which value a
            # reader sees depends on what ran first; the literal alone would be stale
            where = self._changed_elsewhere(
                module, name, value if isinstance(value, Instance) else None
            )
            if where is not None:
                return Unknown(f"`{name}` may be changed in another module{where}")
        return value

    def _filled_by_stores(
        self, module: Module, name: str, bindings: frozenset[Binding], frame: Frame
    ) -> Value | None:
        """A config a function builds and then fills by attribute stores, one statement each
        in its own body (`config = ConfigDict()`, `config.batch_size = 16`,
        `config.dataset = ConfigDict()`, `config.dataset.train = ...`: ml_collections'
        `get_config`), read only after the last store: the namespace those stores make. None
        where the function does anything else with the name (a store under an `if` or in a
        loop, a read between the stores, a nested function's use, an attribute set on an
        object the function did not build here)."""
        scope = frame.scope
        if len(bindings) != 1 or not isinstance(scope, ast.FunctionDef):
            return None
        (binding,) = bindings
        start = binding.node
        if not (
            binding.kind == "assign"
            and isinstance(start, ast.Assign)
            and start in scope.body
            and isinstance(start.value, ast.Call)
        ):
            return None
        first = self.value(module, start.value, frame)
        if not isinstance(first, Namespace):
            return None
        stores: list[tuple[ast.Assign, list[str]]] = []
        reads: list[ast.Name] = []
        for use in module.loads_by_name.get(name, ()):
            if not isinstance(use, ast.Name) or not module.is_within(use, scope):
                continue
            if module.scope_of(use) is not scope:
                return None
            path: list[str] = []
            node: ast.AST = use
            parent = module.parents.get(node)
            while isinstance(parent, ast.Attribute) and parent.value is node:
                path.append(parent.attr)
                node, parent = parent, module.parents.get(parent)
            if (
                path
                and isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(parent, ast.Assign)
                and parent.targets == [node]
                and parent in scope.body
            ):
                stores.append((parent, path))
            elif reads_only(use, module.parents) or self._passed_to_reader(
                module, use, 0
            ):  # `train_and_evaluate(config, workdir)` after `config.model = name`
                reads.append(use)
            else:
                return None
        if not stores:
            return None
        stores.sort(key=lambda s: scope.body.index(s[0]))
        if scope.body.index(stores[0][0]) < scope.body.index(start):
            return None
        last = module.line(stores[-1][0])
        if any(module.line(r) <= last for r in reads):
            return None  # read before the config is whole
        built: dict[str, object] = {"": first.mapping, **dict(first.items)}
        for statement, path in stores:
            holder = built
            for attribute in path[:-1]:
                inner = holder.get(attribute)
                if not isinstance(inner, dict):
                    return None  # an object not built here: it may be shared
                holder = inner
            value = self.value(module, statement.value, frame)
            if isinstance(value, Namespace) and isinstance(statement.value, ast.Call):
                holder[path[-1]] = {"": value.mapping, **dict(value.items)}
            else:
                holder[path[-1]] = value
        return _namespace_of(built)

    def attribute_dict_class(self, cls: Class) -> bool:
        """A `dict` subclass whose attributes are its items: `__setattr__(self, name, value)`
        sets `self[name] = value` and `__getattr__(self, name)` reads `self[name]` (the
        ConfigDict / AttrDict idiom), no `__init__` of its own and no base of the tree."""
        methods = {s.name: s for s in cls.node.body if isinstance(s, ast.FunctionDef)}
        setter, getter = methods.get("__setattr__"), methods.get("__getattr__")
        if setter is None or getter is None or "__init__" in methods:
            return False
        if len(self._mro(cls)) != 1 or len(cls.node.bases) != 1:
            return False
        module = self.module(cls.path)
        if isinstance(module, Unknown):
            return False
        base = self.value(module, cls.node.bases[0], self.frame_at(module, cls.node))
        if not (isinstance(base, External) and base.name == "builtins.dict"):
            return False

        def item_of_self(function: ast.FunctionDef, store: bool) -> bool:
            params = [a.arg for a in function.args.args]
            if len(params) != (3 if store else 2):
                return False
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Subscript)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == params[0]
                    and isinstance(node.slice, ast.Name)
                    and node.slice.id == params[1]
                    and isinstance(node.ctx, ast.Store if store else ast.Load)
                ):
                    return True
            return False

        return item_of_self(setter, True) and item_of_self(getter, False)

    def _filled_by_registration(
        self, module: Module, name: str, bindings: frozenset[Binding], frame: Frame
    ) -> Items | None:
        """A registry: a module's dict made empty (`_REGISTRY = {}`) whose one store is
        `_REGISTRY[key] = value` in a function of the module given `value` as its parameter
        (`def register(cls): _REGISTRY[name_of(cls)] = cls; return cls`), every other use a
        read: `Items` of what the project registers with it (the classes or functions it
        decorates, last, and what its calls pass), one of them where there are several. None
        where the registering function is used otherwise or anything else changes the dict."""
        if len(bindings) != 1 or not isinstance(frame.scope, ast.Module):
            return None
        (binding,) = bindings
        start = binding.node
        if not (
            binding.kind == "assign"
            and isinstance(start, ast.Assign)
            and isinstance(start.value, ast.Dict)
            and not start.value.keys
            and start in module.tree.body
        ):
            return None
        register: tuple[ast.FunctionDef, bool] | None = None
        for use in module.loads_by_name.get(name, ()):
            if not isinstance(use, ast.Name):
                return None
            store = _registering_store(module, use)
            if store is None:
                if not reads_only(use, module.parents):
                    return None
                continue
            if register is not None and store != register:
                return None
            register = store
        if register is None:
            return None
        options = self._registered(module, *register)
        if options is None:
            return None
        why = f"one of the {len(options)} values registered in `{name}`"
        item: Value = options[0] if len(options) == 1 else OneOf(why, tuple(options))
        return Items(item, Unknown(f"a key of `{name}`"), mapping=True)

    def _registered(
        self, module: Module, register: ast.FunctionDef, factory: bool
    ) -> list[Value] | None:
        """What the project gives the registering function `register` (or, a `factory`, the
        function a call of it returns): the class or function it decorates (the decorator
        nearest the `def`), or the one argument of a call of it; None when it is used
        otherwise or some module cannot be read."""
        others = self.project.candidate_files(register.name, module.path)
        if isinstance(others, Unknown):
            return None
        found: list[Value] = []
        for source in dict.fromkeys([module.path, *others]):
            other = self.project.module_loading(source, register.name)
            if other is None:
                continue
            if isinstance(other, Unknown):
                return None
            for use in other.loads_by_name.get(register.name, ()):
                value = self.value(other, use, self.frame_at(other, use))
                if not isinstance(value, Function) or value.node is not register:
                    if isinstance(value, Unknown) and not isinstance(value, Foreign):
                        return None
                    continue
                call = other.parents.get(use)
                if not factory:
                    call = use
                elif not (isinstance(call, ast.Call) and call.func is use):
                    return None  # `register("name")` is what decorates
                given = self._given_to_register(other, call)
                if given is None:
                    return None
                if given not in found:
                    found.append(given)
        return found or None

    def _given_to_register(self, module: Module, use: ast.AST) -> Value | None:
        """The value a use of the registering function (or a call of a factory of them)
        registers: the decorated class or function where it is the decorator nearest the
        `def`, the argument of `register(x)`."""
        parent = module.parents.get(use)
        if (
            isinstance(parent, (ast.ClassDef, ast.FunctionDef))
            and parent.decorator_list
            and parent.decorator_list[-1] is use
        ):
            closure = self.frame_at(module, parent)
            if isinstance(parent, ast.ClassDef):
                return Class(parent, module.path, closure)
            return Function(parent, module.path, closure)
        if (
            isinstance(parent, ast.Call)
            and parent.func is use
            and len(parent.args) == 1
            and not parent.keywords
            and not isinstance(parent.args[0], ast.Starred)
        ):
            return self.value(module, parent.args[0], self.frame_at(module, parent))
        return None

    def _filled_by_loop(
        self, module: Module, name: str, bindings: frozenset[Binding], frame: Frame
    ) -> Value | None:
        """A dict (or list) a function builds empty and fills in one `for` loop over items jaxfix
        knows (`out = {}`, `for k, v in tree.items(): out[k] = f(v)`, qwix's checkpoint loader;
        `args = []`, `for s in shapes: args.append(struct(s))`), read
        only after the loop: the dict the loop makes, each iteration's stores evaluated with
        the loop's variables bound to that item. None where the function does anything else
        with the name (a store under an `if`, a read inside the loop, a nested function, a
        loop that may stop early)."""
        scope = frame.scope
        if len(bindings) != 1 or not isinstance(scope, ast.FunctionDef):
            return None
        (binding,) = bindings
        start = binding.node
        if not (
            binding.kind == "assign"
            and isinstance(start, ast.Assign)
            and start in scope.body
        ):
            return None
        empty = _literal_element(
            start.value, binding.path
        )  # `state, specs = {}, {}` too
        if not (
            (isinstance(empty, ast.Dict) and not empty.keys)
            or (isinstance(empty, ast.List) and not empty.elts)
        ):
            return None
        filled_list = isinstance(empty, ast.List)  # `args.append(x)` in the loop
        loop: ast.For | None = None
        stores: list[ast.stmt] = []
        reads: list[ast.Name] = []
        for use in module.loads_by_name.get(name, ()):
            if not isinstance(use, ast.Name):
                continue
            if not module.is_within(use, scope):
                continue  # another function's variable of this spelling
            if module.scope_of(use) is not scope:
                return (
                    None  # a nested function's or lambda's: run when, jaxfix cannot say
                )
            filling = _filling_in_a_loop(module, use, filled_list)
            if filling is not None:
                statement, parent = filling
                if loop is not None and parent is not loop:
                    return None
                loop = parent
                stores.append(statement)
            elif reads_only(use, module.parents):
                reads.append(use)
            else:
                return None
        if loop is None or loop not in scope.body or loop.orelse:
            return None
        if scope.body.index(loop) < scope.body.index(start):
            return None
        end = getattr(loop, "end_lineno", None) or 0
        if any(module.line(r) <= end for r in reads):
            return None  # read inside the loop or before it: not the whole dict
        targets = _stored(loop.target)
        # `if spec is None: continue` before the stores: the items it skips store nothing
        skips = [
            statement
            for statement in loop.body
            if isinstance(statement, ast.If)
            and not statement.orelse
            and isinstance(statement.body[-1], ast.Continue)
            and all(isinstance(s, ast.Expr) for s in statement.body[:-1])
        ]
        if any(
            loop.body.index(skip) > loop.body.index(store)
            for skip in skips
            for store in stores
        ):
            return None
        for statement in loop.body:
            if statement in skips:
                continue
            for node in ast.walk(statement):
                if isinstance(
                    node,
                    (
                        ast.Break,
                        ast.Continue,
                        ast.Return,
                        ast.Raise,
                        ast.Yield,
                        ast.YieldFrom,
                        ast.FunctionDef,
                        ast.AsyncFunctionDef,
                        ast.Lambda,
                        ast.ClassDef,
                        ast.Try,
                    ),
                ):
                    return None
                if (
                    isinstance(node, ast.Name)
                    and isinstance(node.ctx, (ast.Store, ast.Del))
                    and node.id in targets
                ):
                    return None  # a loop variable bound anew in the body
        items = _items(self.value(module, loop.iter, frame))
        if items is None or len(items) > _MAX_ITEMS:
            return None
        pairs: list[tuple[Value, Value]] = []
        appended_items: list[Value] = []
        saved = dict(self._comprehension)
        try:
            for element in items:
                for target, value in _assign_target(loop.target, element):
                    self._comprehension[(loop, target)] = value
                skipped = [
                    _truth(self.value(module, skip.test, frame)) for skip in skips
                ]
                if None in skipped:
                    return None
                if any(skipped):
                    continue
                for statement in stores:
                    if isinstance(statement, ast.Expr):  # `args.append(x)`
                        assert isinstance(statement.value, ast.Call)
                        appended_items.append(
                            self.value(module, statement.value.args[0], frame)
                        )
                        continue
                    assert isinstance(statement, ast.Assign)
                    item_node = statement.targets[0]
                    assert isinstance(item_node, ast.Subscript)
                    key = self.value(module, item_node.slice, frame)
                    if not known(key) or not isinstance(key, (str, int, float, tuple)):
                        return None
                    pairs.append((key, self.value(module, statement.value, frame)))
        finally:
            self._comprehension = saved
        if filled_list:
            return ListValue(tuple(appended_items))
        return DictValue(tuple(pairs))

    def _escapes_on_other_ways(
        self, module: Module, name: str, bindings: frozenset[Binding], frame: Frame
    ) -> bool:
        """A function's local `name` whose every use that may change it is, in this frame,
        never reached or reached by none of `bindings` (`dims.append(...)` on the branch the
        frame does not take, another `dims` there): what these bindings denote is unchanged.
        False (may be changed) for a use in a nested function, lambda or comprehension."""
        scope = frame.scope
        if isinstance(scope, ast.Lambda):
            # a lambda's parameter: its uses are the lambda's body's (`lambda x: isinstance(x, C)`)
            a = scope.args
            if name not in {
                p.arg
                for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                if p is not None
            }:
                return False
            return all(
                reads_only(use, module.parents)
                or self._passed_to_reader(module, use, 0)
                for use in module.loads_by_name.get(name, ())
                if isinstance(use, ast.Name) and module.is_within(use, scope)
            )
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        if name not in _locals(module, scope):
            return False
        flow = self.flow(module, frame)
        for use in module.loads_by_name.get(name, ()):
            if not isinstance(use, ast.Name) or not module.is_within(use, scope):
                continue  # another function's variable of the same spelling
            if reads_only(use, module.parents):
                continue
            if module.scope_of(use) is not scope:
                return False
            statement = _statement_in(module, use, scope)
            if statement is None:
                return False
            env = flow.before.get(statement)
            if env is None or not (env.get(name) or frozenset()) & bindings:
                continue  # not run in this frame, or on another binding of the name
            if not self._passed_to_reader(module, use, 0):
                return False
        return True

    def _escapes_only_as_locals(self, module: Module, name: str, frame: Frame) -> bool:
        """A module-level `name` whose every use that may change what it denotes is in a
        function where `name` is a local of its own (`args = []; args.append(...)` in a helper
        beside a module's `args = build_args(...)`): those uses are of other variables."""
        if not isinstance(frame.scope, ast.Module):
            return False
        for use in module.loads_by_name.get(name, ()):
            if not isinstance(use, ast.Name) or reads_only(use, module.parents):
                continue
            scope, first = module.scope_of(use), True
            while not isinstance(scope, ast.Module) and (
                name not in _locals(module, scope)
                or (isinstance(scope, ast.ClassDef) and not first)
            ):  # a function's free name skips the class bodies around it
                scope, first = module.scope_of(scope), False
            if isinstance(scope, ast.Module):
                return False  # the module's own variable
        return True

    def _unchangeable(self, value: Value) -> bool:
        """Nothing can change the value in place: a number, string, tuple, mesh or spec, or an
        object of a frozen dataclass (`frozen=True`, flax.struct.dataclass) or named tuple
        built with such values."""
        if value is None or isinstance(value, (int, float, str, Mesh, Spec, Sharding)):
            return True
        if isinstance(value, tuple):
            return all(self._unchangeable(v) for v in value)
        if isinstance(value, Instance):
            return (
                value.init is not None
                and self._frozen_class(value.cls)
                and all(self._unchangeable(v) for _, v in value.init)
            )
        return False

    def _struct_class(self, cls: Class) -> bool:
        """A flax.struct.dataclass that does not define `replace` itself."""
        if any(_defines(k, "replace") for k in self._mro(cls)):
            return False
        module = self.module(cls.path)
        if isinstance(module, Unknown):
            return False
        frame = self.frame_at(module, cls.node)
        return any(
            isinstance(applied, External) and applied.name == "flax.struct.dataclass"
            for applied in (
                self.value(module, d, frame) for d in cls.node.decorator_list
            )
        )

    def _frozen_class(self, cls: Class) -> bool:
        if self.is_named_tuple(cls) or self._module_subclass(cls):
            return True
        module = self.module(cls.path)
        if isinstance(module, Unknown):
            return False
        frame = self.frame_at(module, cls.node)
        for decorator in cls.node.decorator_list:
            made = self._dataclass_decorator(module, decorator, frame)
            if made is None:
                continue
            name, keywords = made
            if name == "flax.struct.dataclass":
                return True  # frozen always
            if name == "dataclasses.dataclass":
                return any(
                    k.arg == "frozen"
                    and isinstance(k.value, ast.Constant)
                    and k.value.value is True
                    for k in keywords
                )
        return False

    def _dataclass_decorator(
        self, module: Module, decorator: ast.expr, frame: Frame
    ) -> tuple[str, list[ast.keyword]] | None:
        """The dataclass decorator `decorator` applies (its name and keywords):
        `@dataclasses.dataclass`, `@dataclass(frozen=True)`, or a function of the tree of
        one parameter whose one statement returns the class through one (axlearn's
        `config_class`: `return dataclasses.dataclass(cls)`, or `dataclass(frozen=True)(cls)`);
        None for any other."""
        call = decorator if isinstance(decorator, ast.Call) else None
        applied = self.value(module, call.func if call else decorator, frame)
        if isinstance(applied, External):
            if applied.name not in _DATACLASS_DECORATORS:
                return None
            return applied.name, list(call.keywords) if call else []
        if call is not None or not (
            isinstance(applied, Function)
            and applied.wrapped_by is None
            and isinstance(applied.node, ast.FunctionDef)
        ):
            return None
        node = applied.node
        body = [s for s in node.body if not _is_docstring(s)]
        if not (
            len(node.args.args) == 1
            and not (node.args.posonlyargs or node.args.kwonlyargs)
            and not (node.args.vararg or node.args.kwarg or node.decorator_list)
            and len(body) == 1
            and isinstance(body[0], ast.Return)
            and isinstance(made := body[0].value, ast.Call)
        ):
            return None
        param = node.args.args[0].arg
        if not (
            len(made.args) == 1
            and isinstance(made.args[0], ast.Name)
            and made.args[0].id == param
        ):
            return None
        inner = made.func if isinstance(made.func, ast.Call) else made
        if inner is not made and (made.keywords or inner.args):
            return None  # `dataclass(**kw)(cls)` takes the class alone
        owner = self.module(applied.path)
        if isinstance(owner, Unknown):
            return None
        name = self.value(owner, inner.func, self.frame_at(owner, inner))
        if not (isinstance(name, External) and name.name in _DATACLASS_DECORATORS):
            return None
        return name.name, list(inner.keywords)

    def _changed_elsewhere(
        self, module: Module, name: str, receiver: Instance | None = None
    ) -> str | None:
        """A config object's attributes are set from anywhere it is reached
        (`config.probe.data = 4` in main.py): any module that may use `name` of this module
        and does more than read it (by its name or as a module's attribute); the use's place
        (` (cli.py:8)`, empty when the modules cannot all be read), None when there is none."""
        key = (module.path, name, receiver)
        if key in self._changed:
            return self._changed[key]
        found = self.project.candidate_files(
            name, module.path, limit=MAX_READER_MODULES
        )
        if isinstance(found, Unknown):
            return f" ({found.why})"
        for path in found:
            other = self.module(path)
            if isinstance(other, Unknown):
                return ""
            changing = self._changing_use(other, name, receiver)
            if changing is not None:
                return f" ({path.name}:{other.line(changing)})"
            for node in other.parents:
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr == name
                    and not reads_only(node, other.parents)
                    and not self._passed_to_reader(other, node, 0)
                    and not (
                        receiver is not None
                        and self._reading_method_call(other, node, receiver, 0)
                    )
                ):
                    return f" ({path.name}:{other.line(node)})"
        self._changed[key] = None
        return None

    def _rebound_elsewhere(self, module: Module, name: str) -> str | None:
        """A module's name bound to a value nothing changes in place (a number, a tuple) is
        still rebound by another module's `mod.NAME = v` or `setattr(mod, "NAME", v)`: the
        place (` (cli.py:8)`) of such a store on what may be this module, among the modules
        that name it and its module; None when there is none, or when more modules than
        `MAX_CALLER_MODULES` name it (not looked into, as before)."""
        key = (module.path, name, "rebound")
        if key in self._changed:
            return self._changed[key]
        found = self.project.candidate_files(name, module.path)
        where: str | None = None
        if not isinstance(found, Unknown):
            for path in found:
                other = self.module(path)
                if isinstance(other, Unknown):
                    where = ""
                    break
                at = self._store_on_module(other, module, name)
                if at is not None:
                    where = f" ({path.name}:{other.line(at)})"
                    break
        self._changed[key] = where
        return where

    def _store_on_module(
        self, other: Module, module: Module, name: str
    ) -> ast.AST | None:
        """A store `x.NAME = ...` (or `setattr(x, "NAME", ...)`) in `other` whose `x` may be
        `module` (its value is that module, or not known)."""
        targets: list[tuple[ast.AST, ast.expr]] = [
            (store, store.value) for store in other.attribute_stores(name)
        ]
        if "setattr" in other.loads_by_name:
            targets.extend(
                (call, call.args[0])
                for call in other.calls
                if isinstance(call.func, ast.Name)
                and call.func.id == "setattr"
                and len(call.args) >= 2
                and not (
                    isinstance(call.args[1], ast.Constant)
                    and call.args[1].value != name
                )
            )
        for at, base in targets:
            value = self.value(other, base, self.frame_at(other, base))
            if isinstance(value, ModuleValue):
                if value.path == module.path:
                    return at
            elif isinstance(value, Unknown) and not isinstance(value, Foreign):
                if isinstance(at, ast.Attribute) and isinstance(base, ast.Name):
                    bindings = self.reaching(other, base)
                    if bindings and all(b.kind == "param" for b in bindings):
                        if base.id in ("self", "cls"):
                            continue  # an object's own attribute, not a module's
                return at
        return None

    def _changing_use(
        self, module: Module, name: str, receiver: Instance | None = None
    ) -> ast.expr | None:
        """A use of `name` in the module that may change what it denotes and is not an
        argument of a function of the tree that only reads it (see `_only_read_by_callees`),
        nor, when `name` is the object `receiver`, a call of a method that only reads it."""
        if self._only_read_by_callees(module, name):
            return None
        return next(
            (
                n
                for n in module.loads_by_name.get(name, ())
                if isinstance(n, ast.Name)
                and not reads_only(n, module.parents)
                and not self._passed_to_reader(module, n, 0)
                and not (
                    receiver is not None
                    and self._reading_method_call(module, n, receiver, 0)
                )
            ),
            None,
        )

    def _reading_method_call(
        self, module: Module, use: ast.expr, receiver: Instance, depth: int
    ) -> bool:
        """`use.m(...)`, `use` being the object `receiver`, where `m` is a plain method of
        its class (of the tree, no `__setattr__`) that uses `self` only to read attributes
        (`self.x` read, never stored, changed in place, passed on or returned) or to call
        such methods."""
        if depth >= 3:
            return False
        attr = module.parents.get(use)
        call = module.parents.get(attr) if attr is not None else None
        if not (
            isinstance(attr, ast.Attribute)
            and isinstance(attr.ctx, ast.Load)
            and isinstance(call, ast.Call)
            and call.func is attr
        ):
            return False
        chain = self._mro(receiver.cls)
        if any(_defines(k, "__setattr__") or _defines(k, "__getattr__") for k in chain):
            return False
        method = self._class_member(receiver.cls, attr.attr)
        if (
            not isinstance(method, Function)
            or method.wrapped_by is not None
            or not isinstance(method.node, ast.FunctionDef)
        ):
            return False
        target = self.module(method.path)
        if isinstance(target, Unknown):
            return False
        params = [*method.node.args.posonlyargs, *method.node.args.args]
        if not params:
            return False
        me = params[0].arg
        for n in ast.walk(method.node):
            if not isinstance(n, ast.Name) or n.id != me:
                continue
            read = target.parents.get(n)
            if not (isinstance(read, ast.Attribute) and isinstance(read.ctx, ast.Load)):
                return False
            if not (
                self._reading_method_call(target, n, receiver, depth + 1)
                or (
                    not _is_called(target, read)
                    and reads_only(read, target.parents)
                    and not _handed_out(target, read)
                )
            ):
                return False
        return True

    def _only_read_by_callees(self, module: Module, name: str) -> bool:
        """Every use of `name` in the module that may change what it denotes is an argument
        of a function of the tree whose parameter only reads it (`input_signature(SPECS,
        mesh)`), as far as a few calls deep."""
        key = (module.path, name)
        found = self._read_by_callees.get(key)
        if found is None:
            found = self._read_by_callees[key] = all(
                self._read_where_used(module, n) or self._held_by_read_alias(module, n)
                for n in module.loads_by_name.get(name, ())
            )
        return found

    def _read_where_used(self, module: Module, use: ast.AST) -> bool:
        return (
            not isinstance(use, ast.Name)
            or reads_only(use, module.parents)
            or self._passed_to_reader(module, use, 0)
            or self._kept_read_only(module, use)
            or self._default_only_read(module, use)
        )

    def _default_only_read(self, module: Module, use: ast.AST) -> bool:
        """`use` is the default of a parameter (`def build_mesh(shape=MESH_SHAPE)`) that the
        function's body only reads, or passes on to a function that only reads it: the
        default is the module's object itself, so a body that changed the parameter would
        change it."""
        arguments = module.parents.get(use)
        function = module.parents.get(arguments) if arguments is not None else None
        if not isinstance(arguments, ast.arguments) or not isinstance(
            function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        ):
            return False
        positional = [*arguments.posonlyargs, *arguments.args]
        if use in arguments.defaults:
            offset = len(positional) - len(arguments.defaults)
            param = positional[offset + arguments.defaults.index(use)].arg
        elif use in arguments.kw_defaults:
            param = arguments.kwonlyargs[arguments.kw_defaults.index(use)].arg
        else:
            return False
        return all(
            reads_only(n, module.parents)
            or self._passed_to_reader(module, n, 1)
            or _rebinds(n, module.parents)
            for n in ast.walk(function)
            if isinstance(n, ast.Name) and n.id == param
        )

    def _held_by_read_alias(self, module: Module, use: ast.AST) -> bool:
        """`use` is bound to another name, alone or as an item of a tuple or list display
        (`shaped_train_args = (shaped_batch,)`, then `jit_and_compile(f, shaped_train_args)`),
        and every use of that name only reads it and never hands out its items one by one
        (`for batch in args: batch.update(...)`); one alias deep: an alias of an alias is
        taken as changed."""
        if not isinstance(use, ast.Name):
            return False
        alias = alias_target(use, module.parents, in_display=True)
        return alias is not None and all(
            self._read_where_used(module, n) and not _iterated(n, module.parents)
            for n in module.loads_by_name.get(alias, ())
        )

    def _passed_to_reader(self, module: Module, use: ast.expr, depth: int) -> bool:
        """`use` is an argument of a call of a function (or method) of the tree whose
        parameter it binds is only read in its body, or passed on to one such."""
        if depth >= 3:
            return False
        parent = module.parents.get(use)
        while (
            isinstance(parent, (ast.Tuple, ast.List))
            and isinstance(parent.ctx, ast.Load)
            and use in parent.elts
        ):  # `in_shardings=(params_sharding, data)`: the display is what is passed
            use, parent = parent, module.parents.get(parent)
        if parent is None:
            return False
        call = parent if isinstance(parent, ast.Call) else module.parents.get(parent)
        if not isinstance(call, ast.Call) or call.func is use:
            return False
        callee = self.value(module, call.func, self.frame_at(module, call))
        shift = 0
        if isinstance(callee, Instance):  # `spec(tree)`: its class's `__call__`
            callee = self.attribute(callee, "__call__", call)
        if isinstance(callee, BoundMethod):
            callee, shift = callee.function, 1
        elif isinstance(callee, Class):  # `Loop(weights)`: its class's own `__init__`
            init = self._own_init(callee)
            if init is None:
                return False
            callee, shift = init, 1
        if not isinstance(callee, Function) or callee.wrapped_by not in (
            None,
            "jit",
            *(("classmethod",) if shift else ()),  # `cls.from_config(config)`
        ):
            return False
        a = callee.node.args
        params = [p.arg for p in (*a.posonlyargs, *a.args)]
        if isinstance(parent, ast.keyword):
            if parent.arg is None:
                return False
            param = parent.arg
            if param not in params[len(a.posonlyargs) :] and param not in (
                p.arg for p in a.kwonlyargs
            ):
                return False
        elif use in call.args:
            index = call.args.index(use) + shift
            if any(
                isinstance(x, ast.Starred) for x in call.args[: call.args.index(use)]
            ):
                return False
            if index >= len(params):
                return False
            param = params[index]
        else:
            return False
        target = self.module(callee.path)
        if isinstance(target, Unknown):
            return False
        return all(
            reads_only(n, target.parents)
            or self._passed_to_reader(target, n, depth + 1)
            or _rebinds(n, target.parents)
            or self._kept_read_only(target, n)
            for n in ast.walk(callee.node)
            if isinstance(n, ast.Name) and n.id == param
        )

    def _kept_read_only(self, module: Module, use: ast.expr) -> bool:
        """`use` is a name a class's `__init__` keeps as `self.attr = use`, and every use of
        `.attr` in the project only reads it (recurrentgemma's `Sampler(params, ...)`,
        `self.params[...]` read in its methods): what the object holds is what was passed."""
        statement = module.parents.get(use)
        init = module.scope_of(use)
        if (
            not isinstance(use, ast.Name)
            or not isinstance(init, ast.FunctionDef)
            or init.name != "__init__"
            or not isinstance(module.parents.get(init), ast.ClassDef)
            or not isinstance(statement, ast.Assign)
            or statement.value is not use
            or len(statement.targets) != 1
        ):
            return False
        target = statement.targets[0]
        a = init.args
        first = (*a.posonlyargs, *a.args)[:1]
        if not (
            first
            and isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == first[0].arg
        ):
            return False
        attr = target.attr
        others = self.project.candidate_files(attr, module.path, imported=False)
        if isinstance(others, Unknown):
            return False
        for path in (module.path, *others):
            other = self.module(path)
            if isinstance(other, Unknown):
                return False
            for node in other.loads_by_name.get(attr, ()):
                if isinstance(node, ast.Attribute) and not reads_only(
                    node, other.parents
                ):
                    return False  # (a name of the same spelling is another thing)
        return True

    def _own_init(self, cls: Class) -> Function | None:
        """The `__init__` a class of the tree defines in its own body, when it has no base of
        the tree and no decorator (which might give it another `__init__`)."""
        if cls.node.decorator_list or not self._every_base_seen([cls], bare=True):
            return None
        for statement in cls.node.body:
            if (
                isinstance(statement, ast.FunctionDef)
                and statement.name == "__init__"
                and not statement.decorator_list
            ):
                return Function(statement, cls.path, cls.closure)
        return None

    def _escaped_in(self, module: Module) -> frozenset[str]:
        found = self._escaped.get(module.path)
        if found is None:
            found = self._escaped[module.path] = escaped_names(
                module.loads_by_name, module.parents
            )
        return found

    def _loop_carried(
        self,
        module: Module,
        name: str,
        bindings: frozenset[Binding],
        frame: Frame,
        values: list[Value],
    ) -> Value | None:
        """The value of a name a loop carries (`params, loss = step(params, batch)` in a
        `for` loop, after `params = init(mesh)`), where the bindings that do not read it give
        placed arrays: a fixed point. Assume the name, where a read of it meets its own
        question, is what those bindings give (`_widened`: arrays on one mesh, their specs
        unknown where they differ); evaluate every binding under that; widen again, until the
        assumption covers what every binding gives. None where it does not settle, or
        nothing of the loop's values is an array on a mesh."""
        key = (name, bindings, frame)
        known: list[Value] = [v for v in values if not isinstance(v, Unknown)]
        if key in self._carried or not known or len(known) == len(values):
            return None
        boxed = _widened(known)
        if boxed is None or not _holds_placed_array(boxed[0]):
            return None
        assumed = boxed[0]
        order = sorted(bindings, key=_source_order)
        place = len(self._keys) - 1  # the question being answered
        for _ in range(_CARRIED_ROUNDS):
            self._carried[key] = (assumed, place)
            self._forget_loop(module, order, frame, place)
            sizes = (len(self._params), len(self._flows), len(self._tentative))
            try:
                again = [self._binding_value(module, name, b, frame) for b in order]
            finally:
                del self._carried[key]
                # what callers passed, which branches ran and what was kept for a question
                # below (another cycle), asked under the assumption
                _drop_after(self._params, sizes[0])
                _drop_after(self._flows, sizes[1])
                _drop_after(self._tentative, sizes[2])
                self._forget_loop(module, order, frame, place)
            widened = _widened(again)
            if widened is None:
                return None
            if widened[0] == assumed:
                return assumed
            assumed = widened[0]
        return None

    def _forget_loop(
        self, module: Module, order: list[Binding], frame: Frame, place: int
    ) -> None:
        """Forget what was answered about the bindings' values (the one met while being
        answered kept as Unknown, those kept within the question at `place`): they are asked
        again under another assumption."""
        for binding in order:
            node = binding.node
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                self._values.pop(("value", node.value, frame), None)
        self._drop_tentative(place)

    def _drop_tentative(self, place: int) -> None:
        """Forget the answers kept within the question at `place` or above (found under an
        assumption `_loop_carried` now changes)."""
        self._tentative = {
            k: t for k, t in self._tentative.items() if t[1] < max(place, 0)
        }

    def _binding_value(
        self, module: Module, name: str, binding: Binding, frame: Frame
    ) -> Value:
        node = binding.node
        kind = binding.kind
        if kind == "opaque":
            return Unknown(f"`{name}` is {binding.why} (line {module.line(node)})")
        if kind == "param":
            assert isinstance(node, ast.arg)
            return self._parameter(module, node, frame)
        if kind == "import":
            assert isinstance(node, ast.alias)
            return self._imported(module, node)
        if kind == "def":
            assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            return self._decorated(
                module, node, Function(node, module.path, frame), frame
            )
        if kind == "class":
            assert isinstance(node, ast.ClassDef)
            return self._decorated(module, node, Class(node, module.path, frame), frame)
        if kind == "with":
            assert isinstance(node, (ast.With, ast.AsyncWith))
            return Unknown(f"`{name}` is what a context manager's __enter__ returns")
        if kind == "for":
            assert isinstance(node, (ast.For, ast.AsyncFor))
            item = _item_of(self.value(module, node.iter, frame), binding.path)
            if isinstance(item, Unknown):
                return Unknown(
                    f"`{name}` is a loop variable (line {module.line(node)}): {item.why}"
                )
            return item
        if isinstance(node, ast.NamedExpr):
            return self.value(module, node.value, frame)
        if kind == "aug":
            assert isinstance(node, ast.AugAssign)
            before = self._remembered(
                ("before", node, frame),
                lambda: self.lookup(module, name, node, frame),
                lambda: Unknown(
                    f"`{name}` depends on itself (line {module.line(node)})"
                ),
            )
            return _binary(node.op, before, self.value(module, node.value, frame))
        assert isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
        value = self.value(module, node.value, frame)
        for index, length, star in binding.path:
            value = _unpacked(value, index, length, star)
        return value

    def _parameter(self, module: Module, arg: ast.arg, frame: Frame) -> Value:
        if frame.args is not None:
            return frame.arg(arg.arg)
        function = frame.scope
        assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        key = (function, arg.arg)
        found = self._params.get(key)
        if found is None:
            if ("params", key) in self._active:
                self.cut(("params", key))
                return Unknown(f"`{arg.arg}` depends on itself through its callers")
            self._push(("params", key))
            try:
                found = self._params[key] = self._from_callers(module, function, arg)
            finally:
                self._pop(("params", key))
        return found

    def _from_callers(
        self,
        module: Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
        arg: ast.arg,
    ) -> Value:
        """What every call of `function` in the project passes for `arg` (or its default)."""
        if isinstance(function, ast.Lambda):
            called = self._called_where_written(module, function, arg)
            if called is not None:
                return called
            return self._mapped_leaf(module, function, arg)
        klass = module.parents.get(function)
        params = [*function.args.posonlyargs, *function.args.args]
        if isinstance(klass, ast.ClassDef) and params and params[0] is arg:
            if any(
                isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                for d in function.decorator_list
            ):
                if _is_classmethod(function):
                    # `cls`: the class, where no class of the run derives from it
                    return self._class_of_its_own(module, klass, arg)
                return Unknown(f"`{arg.arg}` of a static or class method")
            # `self`: the one object every call of the method in the project is made on, when
            # jaxfix saw it built (`PROVIDER = LoraProvider(mesh_shape=(2, 2))` in a config
            # module, `configs.PROVIDER.lora_shapes(...)`, `step = partitioner.partition(f)`
            # then `step.lower(x)`): its fields are that construction's; else an object of the
            # class (or a subclass) built by a caller jaxfix does not see
            receiver = self._receiver_from_callers(module, function)
            if receiver is not None:
                return receiver
            cls = Class(klass, module.path, self.frame_at(module, klass))
            return Instance(cls, None, arg)
        calls = self.calls_of(module, function)
        if isinstance(calls, Unknown):
            return lost_at(Unknown(f"parameter `{arg.arg}`: {calls.why}"), calls)
        if not calls:
            return Unknown(
                f"parameter `{arg.arg}`: no call of `{function.name}` in the project"
            )
        values: list[Value] = []
        settled: Value | None = None
        for caller, call, callee in calls:
            if callee is None:
                return Unknown(f"`{function.name}` is called through a decorator")
            frame = self.frame_at(caller, call)
            if settled is not None:
                # the answer is `settled` unless this call cannot be bound, which its
                # arguments' places tell (their values only where `*args` or `**kwargs` are)
                unbound = self._unbound(caller, call, callee, frame, arg.arg)
                if unbound is not None:
                    return unbound
                continue
            bound = self._arguments(caller, call, callee, frame, wanted=arg.arg)
            if isinstance(bound, Unknown):
                return bound
            given = dict(bound)
            value = given[arg.arg] if arg.arg in given else Unknown("not passed")
            if settles_join(values, value):
                settled = value  # what `join` gives, whatever the later callers pass
            values.append(value)
        if settled is not None:
            return settled
        return join(
            values, f"the callers of `{function.name}` pass different `{arg.arg}`"
        )

    def _unbound(
        self,
        module: Module,
        call: ast.Call,
        callee: Function,
        frame: Frame,
        wanted: str,
    ) -> Unknown | None:
        """The Unknown `_arguments(..., wanted=wanted)` gives for `call` (it cannot be bound to
        `callee`'s parameters), else None: where the call spells out where each argument
        goes, bound with no argument evaluated (binding looks at their places, not their
        values); else (`*args`, `**kwargs`) asked as `_arguments` asks it."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            bound = self._arguments(module, call, callee, frame, wanted=wanted)
            return bound if isinstance(bound, Unknown) else None
        receives = self._receives(callee)
        not_asked = Unknown("an argument not asked about")
        positional: list[Value] = [not_asked] * (len(call.args) + receives)
        keywords: dict[str, Value] = {
            k.arg: not_asked for k in call.keywords if k.arg is not None
        }
        bound = self.bind(callee, positional, keywords)
        return bound if isinstance(bound, Unknown) else None

    def _called_where_written(
        self, module: Module, function: ast.Lambda, arg: ast.arg
    ) -> Value | None:
        """What a lambda called where it is written is given for `arg`: `(lambda x: ...)(a)`,
        or jitted first, `jax.jit(lambda x, p: f(x, p))(x, params)` (jit keeps the values, the
        keywords that make them static or donated too); None for a lambda used otherwise."""
        params = function.args
        if (
            params.posonlyargs
            or params.vararg
            or params.kwonlyargs
            or params.kwarg
            or params.defaults
        ):
            return None
        call = module.parents.get(function)
        if not isinstance(call, ast.Call):
            return None
        if call.func is not function:
            outer = module.parents.get(call)
            if not (
                call.args == [function]
                and all(k.arg in _JIT_KEEPS_VALUES for k in call.keywords)
                and isinstance(outer, ast.Call)
                and outer.func is call
            ):
                return None
            jit = self.value(module, call.func, self.frame_at(module, call))
            if not isinstance(jit, External) or _KEEPS_BODY.get(jit.name) != "jit":
                return None
            call = outer
        if (
            call.keywords
            or len(call.args) != len(params.args)
            or any(isinstance(a, ast.Starred) for a in call.args)
        ):
            return None
        given = call.args[params.args.index(arg)]
        return self.value(module, given, self.frame_at(module, call))

    def _mapped_leaf(self, module: Module, function: ast.Lambda, arg: ast.arg) -> Value:
        """A lambda's parameter where the lambda is what `jax.tree.map(f, *trees)` (or its
        `_with_path` kin) maps: a leaf of the tree the parameter's place names (the key path
        for the first of `_with_path`), when every leaf of that tree is the same value."""
        why = f"`{arg.arg}` is a lambda's parameter"
        call = module.parents.get(function)
        params = function.args.args
        if not (
            isinstance(call, ast.Call)
            and call.args
            and call.args[0] is function
            and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args)
            and not function.args.posonlyargs
            and not function.args.vararg
            and arg in params
        ):
            return Unknown(why)
        frame = self.frame_at(module, call)
        callee = self.value(module, call.func, frame)
        if not isinstance(callee, External) or callee.name not in (
            _TREE_MAPS | _TREE_MAPS_WITH_PATH
        ):
            return Unknown(why)
        place = params.index(arg)
        if callee.name in _TREE_MAPS_WITH_PATH:
            if place == 0:
                return Foreign("a leaf's key path")
            place -= 1
        trees = call.args[1:]
        if place >= len(trees):
            return Unknown(why)
        tree = self.value(module, trees[place], frame)
        if isinstance(tree, Leaves):
            return tree.leaf
        leaves = _tree_leaves(tree)
        if not leaves:
            lost = Unknown(f"`{arg.arg}` is a leaf of a tree jaxfix does not spell out")
            return lost_at(lost, tree) if isinstance(tree, Unknown) else lost
        return _one_leaf(leaves, f"the leaves `{arg.arg}` is given differ")

    def _class_of_its_own(
        self, module: Module, klass: ast.ClassDef, arg: ast.arg
    ) -> Value:
        """`klass` itself, as a class method's `cls`, when no module of the run that may name
        it defines a class deriving from it (else `cls` may be that subclass)."""
        why = f"`{arg.arg}` of a class method, whose class may be subclassed"
        others = self.project.candidate_files(klass.name, module.path)
        if isinstance(others, Unknown):
            return lost_at(Unknown(why), others)
        for path in {module.path, *others}:
            other = self.module(path)
            if isinstance(other, Unknown):
                return Unknown(why)
            for node in other.classes:
                for base in node.bases:
                    spelled = base.attr if isinstance(base, ast.Attribute) else None
                    if isinstance(base, ast.Name):
                        spelled = base.id
                    if spelled == klass.name or not isinstance(
                        base, (ast.Name, ast.Attribute)
                    ):
                        return Unknown(why)
        return Class(klass, module.path, self.frame_at(module, klass))

    def _set_up_for_the_class(self, cls: Class, name: str) -> Value | None:
        """`cls.name = v` in the class's `setUpClass` (a class method unittest runs once,
        before any test of the class): v, where it is the module's only store of `.name`,
        made on every way through `setUpClass`; None where the class has no such store."""
        module = self.module(cls.path)
        if isinstance(module, Unknown) or not module.stores_attribute(name):
            return None
        defined = [  # the last definition is the one the class keeps
            s
            for s in cls.node.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign))
            and (
                getattr(s, "name", None) == "setUpClass"
                or any(
                    isinstance(t, ast.Name) and t.id == "setUpClass"
                    for t in getattr(s, "targets", ())
                )
            )
        ]
        setup = defined[-1] if defined else None
        if (
            not isinstance(setup, ast.FunctionDef)
            or not _is_classmethod(setup)
            or not setup.args.args
        ):
            return None
        this = setup.args.args[0].arg
        stores = module.attribute_stores(name)
        if not stores or not all(
            module.is_within(store, setup)
            and isinstance(store.value, ast.Name)
            and store.value.id == this
            and module.scope_of(store) is setup
            for store in stores
        ):
            return None
        frame = Frame(setup, cls.path, ((this, cls),), cls.closure)
        flow = self.flow(module, frame)
        attribute = f"{this}.{name}"
        ends = [
            e
            for e in (flow.end, *(flow.before.get(r) for r in flow.returns))
            if e is not None
        ]
        found = [e.get(attribute) for e in ends]
        if not ends or not all(found):
            return Unknown(f"`setUpClass` may leave `.{name}` unset")
        bindings = frozenset(b for f in found if f for b in f)
        return self._bindings_value(module, attribute, bindings, frame)

    def _receiver_from_callers(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Instance | None:
        """The object every call of the method `function` in the project is made on, when
        there are calls, each on an object jaxfix saw built with all its fields (the same one
        for all); None otherwise."""
        if function.name.startswith("__") or function.decorator_list:
            return (
                None  # dunders are called by Python, decorated methods through wrappers
            )
        calls = self.calls_of(module, function, on_objects=True)
        if isinstance(calls, Unknown) or not calls:
            return None
        found: Instance | None = None
        for caller, call, callee in calls:
            if callee is None or not isinstance(call.func, ast.Attribute):
                return None
            receiver = self.value(caller, call.func.value, self.frame_at(caller, call))
            if not isinstance(receiver, Instance) or receiver.init is None:
                return None
            if found is not None and receiver != found:
                return None
            found = receiver
        return found

    def calls_of(
        self,
        module: Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        *,
        through_decorators: bool = False,
        on_objects: bool = False,
    ) -> list[tuple[Module, ast.Call, Function | None]] | Unknown:
        """Every call in the project of `function` (with the function value called, None for a
        call of its decorated name: `through_decorators`), or Unknown when it is also used
        otherwise (passed on, stored, a decorator jaxfix does not see through).
        `on_objects`: a method's calls, looked for also in modules that do not import its
        module (`configs.PROVIDER.lora_shapes(...)` needs no import of the class's module)."""
        key = ("calls", function, through_decorators, on_objects)
        if key in self._active:
            self.cut(key)
            return Unknown(f"`{function.name}` is used in its own callers")
        self._push(key)
        try:
            found = self._find_calls(module, function, through_decorators, on_objects)
            if (
                found == []
                and not on_objects
                and isinstance(module.parents.get(function), ast.ClassDef)
                and function.name != "__init__"
            ):
                # a method is called on objects: its callers need not import its module
                # (`configs.PROVIDER.lora_shapes(...)`); looked for there when none imports it
                found = self._find_calls(module, function, through_decorators, True)
            return found
        finally:
            self._pop(key)

    def _find_calls(
        self,
        module: Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        through_decorators: bool,
        on_objects: bool = False,
    ) -> list[tuple[Module, ast.Call, Function | None]] | Unknown:
        name = function.name
        parent = module.parents.get(function)
        if name == "__call__" and isinstance(parent, ast.ClassDef):
            return self._object_calls(module, function, parent)
        is_init = name == "__init__" and isinstance(parent, ast.ClassDef)
        if is_init:
            assert isinstance(parent, ast.ClassDef)
            name = parent.name
        found: list[tuple[Module, ast.Call, Function | None]] = []
        own: list[ast.AST] = []  # reads of the name in the function's own body
        others = self.project.candidate_files(
            name, module.path, imported=not on_objects
        )
        if isinstance(others, Unknown):
            return others
        sources: list[Module | Path] = [
            module,
            *(p for p in others if p != module.path),
        ]
        for source in sources:
            if (
                isinstance(source, Path)
                and not on_objects
                and not self._may_import_spelled(source, module.path)
            ):
                continue  # no import of it brings the function: not parsed
            other = (
                self.project.module_loading(source, name)
                if isinstance(source, Path)
                else source
            )
            if other is None:  # it parses and reads no `name` (the run's summary of it)
                continue
            if isinstance(other, Unknown):  # its calls cannot be seen
                return Unknown(f"`{name}` may be used in {other.why}")
            if not on_objects and not self._may_import(other, module.path):
                continue  # it only holds the words: no import brings it the function
            for use in other.loads_by_name.get(name, ()):
                if (
                    other is module
                    and not is_init
                    and not name.startswith("__")  # Python calls dunders: none is seen
                    and module.scope_of(use) is function
                ):
                    own.append(use)  # asked once the calls from elsewhere are known
                    continue
                refused = self._read_of(
                    other, use, module, function, is_init, through_decorators, found
                )
                if refused is not None:
                    return refused
        for use in own:
            if self._not_it_in_callers_frames(module, use, function, found):
                continue
            refused = self._read_of(
                module, use, module, function, False, through_decorators, found
            )
            if refused is not None:
                return refused
        if is_init and isinstance(parent, ast.ClassDef):
            # `cls(...)` in a class method of the class or of a base it inherits one from
            klass = Class(parent, module.path, self.frame_at(module, parent))
            for owner in self._mro(klass):
                owner_module = self.module(owner.path)
                made = (
                    self._made_by_classmethods(
                        owner_module, owner.node, Function(function, module.path), 0
                    )
                    if isinstance(owner_module, Module)
                    else None
                )
                if made is None:
                    return Unknown(
                        f"`cls` of a class method of `{owner.node.name}` is used otherwise"
                    )
                found.extend(made)
        return found

    def _read_of(
        self,
        other: Module,
        use: ast.AST,
        home: Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        is_init: bool,
        through_decorators: bool,
        found: list[tuple[Module, ast.Call, Function | None]],
    ) -> Unknown | None:
        """Whether the read `use` of `function`'s name (the class's for an `__init__`) in
        `other` is `function` (defined in `home`): the calls of it that it makes are added to
        `found`; Unknown where it may be it and jaxfix cannot say, or it is used other than
        called."""
        name = function.name
        parent = home.parents.get(function)
        if is_init and isinstance(parent, ast.ClassDef):
            name = parent.name
        with self._within(_MAX_STEPS_PER_READ):
            value = self.value(other, use, self.frame_at(other, use))
        target = _function_of(value, is_init)
        where = f"{other.path.name}:{other.line(use)}"
        if isinstance(value, Foreign):
            return None  # made outside the tree: not the tree's function
        if target is None and isinstance(value, Unknown):
            if isinstance(use, ast.Name) and self._method_only_called(home, function):
                return None  # a variable of the method's name: never the method
            if not (
                isinstance(use, ast.Name)
                and self.is_definition_of(other, use, function)
            ):
                return Unknown(f"`{name}` at {where} may be it")
            if not through_decorators:
                return Unknown(f"`{name}` is decorated ({value.why})")
        elif target is None or target.node is not function:
            return None
        call = other.parents.get(use)
        if isinstance(call, ast.Call) and call.func is use:
            found.append((other, call, target))
            return None
        jitted_calls = self._jitted_then_called(other, use)
        if jitted_calls is not None:  # `jax.jit(f, static_argnums=2)(x, y, cfg)`
            found.extend((other, c, target) for c in jitted_calls)
            return None
        partial_calls = self._partial_then_called(other, use, function)
        if partial_calls is not None:  # `step = partial(f, mesh=mesh)`; `step(x)`
            found.extend(partial_calls)
            return None
        runs = self.runs_through_jitted_attribute(other, use)
        if runs is not None:  # `self.attr = jax.jit(self.f)`; `self.attr(x)`
            found.extend((other, run, target) for run in runs)
            return None
        if is_init and target is not None:
            # the class used as a value: passed, a base, a registry's entry
            made = self._made_otherwise(other, cast(ast.expr, use), target, 0)
            if made is not None:
                found.extend(made)
                return None
        return Unknown(f"`{name}` is used other than called at {where}")

    def _method_only_called(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> bool:
        """Whether `function`, a method of a class of `module` (not a dunder, which Python
        calls itself), reaches no value but through a call (method_reads.py), looked at in
        every module holding its name."""
        key = (module.path, function)
        known = self._only_called.get(key)
        if known is not None:
            return known
        known = False
        if isinstance(
            module.parents.get(function), ast.ClassDef
        ) and not function.name.startswith("__"):
            found = self.project.candidate_files(
                function.name, module.path, imported=False
            )
            if not isinstance(found, Unknown):
                modules = [self.module(p) for p in (module.path, *found)]
                known = all(isinstance(m, Module) for m in modules) and (
                    read_only_when_called(
                        (m for m in modules if isinstance(m, Module)), function.name
                    )
                )
        self._only_called[key] = known
        return known

    def _jitted_then_called(
        self, module: Module, use: ast.AST
    ) -> list[ast.Call] | None:
        """The calls of `jax.jit(f, ...)` where `use` is that `f` and jit is given only
        keywords that keep the values (static, donated arguments), each calling `f` with its
        arguments: `jax.jit(f)(args)`, or, bound to a function's local name
        (`forward = jax.jit(model.forward, static_argnums=2)`), each read of that name, every
        one a call; None for any other use."""
        jit = module.parents.get(use)
        if not (
            isinstance(jit, ast.Call)
            and jit.args == [use]
            and all(k.arg in _JIT_KEEPS_VALUES for k in jit.keywords)
        ):
            return None
        api = self.value(module, jit.func, self.frame_at(module, jit))
        if not isinstance(api, External) or _KEEPS_BODY.get(api.name) != "jit":
            return None
        call = module.parents.get(jit)
        if isinstance(call, ast.Call) and call.func is jit:
            return [call]
        return _calls_of_local(module, jit)

    def _partial_then_called(
        self,
        module: Module,
        use: ast.AST,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
    ) -> list[tuple[Module, ast.Call, Function | None]] | None:
        """The calls of `functools.partial(f, k=v, ...)` where `use` is that `f` and the
        partial binds only keywords: called where it is made, bound to a function's local
        name whose every read is a call (`step = partial(eval_step, mesh=mesh)`, then
        `step(x)`); each a call of `f` whose callee carries the
        partial's keywords (a keyword the call gives wins, as Python's partial does). None
        for any other use."""
        made = module.parents.get(use)
        if not (
            isinstance(made, ast.Call)
            and made.args == [use]
            and made.keywords
            and all(k.arg is not None for k in made.keywords)
        ):
            return None
        frame = self.frame_at(module, made)
        api = self.value(module, made.func, frame)
        if not (isinstance(api, External) and api_of_name(api.name) is Api.PARTIAL):
            return None
        value = self.value(module, made, frame)
        if not (isinstance(value, Function) and value.node is function and value.bound):
            return None  # not functools.partial, or a partial jaxfix does not follow
        called = module.parents.get(made)
        if isinstance(called, ast.Call) and called.func is made:
            calls: list[ast.Call] | None = [called]
        else:
            calls = _calls_of_local(module, made)
            if calls is None:
                calls = self._calls_of_module_name(module, made)
        if calls is None:
            return None
        return [(module, call, value) for call in calls]

    def _calls_of_module_name(
        self, module: Module, value: ast.expr
    ) -> list[ast.Call] | None:
        """Where `value` is what the module binds, once, to a module-level name
        (`eval_fn = partial(evaluate, mesh=MESH)`) that no other module may import, no
        function stores (`global`) and no string names: the calls that read it, where every
        read of the name that sees that binding is a call of it; None otherwise."""
        name = _module_level_name(module, value)
        if name is None:
            return None
        statement = module.parents.get(value)
        if name in module.declared_global:
            return None
        files = self.project.candidate_files(name, module.path)
        if isinstance(files, Unknown) or any(p != module.path for p in files):
            return None  # another module may import it
        if not read_only_when_called([module], name):
            return None  # an attribute read, or a lookup by its string
        calls: list[ast.Call] = []
        for use in module.loads_by_name.get(name, ()):
            if not isinstance(use, ast.Name):
                continue  # `obj.eval_fn(...)`: another object's attribute, called
            bindings = self.reaching(module, use)
            if not bindings or any(b.node is not statement for b in bindings):
                return None
            call = module.parents.get(use)
            if not (isinstance(call, ast.Call) and call.func is use):
                return None
            calls.append(call)
        return calls

    def _not_it_in_callers_frames(
        self,
        module: Module,
        use: ast.AST,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        found: list[tuple[Module, ast.Call, Function | None]],
    ) -> bool:
        """Whether a read of `function`'s name in its own body is surely not `function`:
        it is not in the frame of any call of it from elsewhere (`found`, each with its own
        arguments: `self._jitted.lower(x)` in `def lower`, `fn.lower(x).compile()` in
        `def compile(self, fn, x)`). The body first runs through one of those calls, so a
        read that is not the function there never calls it again. Not without such a call
        (the body may run where jaxfix sees no call: Python calls a dunder itself)."""
        if not found:
            return False
        at = self.frame_at(module, use)
        for caller, call, callee in found:
            if callee is None:
                return False  # called through a decorator, which may pass anything
            with self._within(_MAX_STEPS_PER_READ):
                args = self._arguments(
                    caller, call, callee, self.frame_at(caller, call)
                )
                if isinstance(args, Unknown):
                    return False
                value = self.value(module, use, replace(at, args=args))
            if isinstance(value, Foreign):
                continue
            if isinstance(value, Unknown):
                return False
            target = _function_of(value, False)
            if target is not None and target.node is function:
                return False
        return True

    def _may_import(self, other: Module, target: Path) -> bool:
        """Whether the code of `other` may get the module at `target` by importing it: an
        import of it, of a package above it (which may re-export its names or hold it as a
        submodule), a relative import jaxfix cannot place, or a dynamic import. A module
        holding the function's name and its module's name only as words (a variable, an
        attribute, another package's module of that name) cannot call it by name."""
        if other.path == target:
            return True
        key = (other, target)
        known = self._importers.get(key)
        if known is None:
            known = self._importers[key] = self._imports_module(other, target)
        return known

    def _may_import_spelled(self, path: Path, target: Path) -> bool:
        """`_may_import` of the module at `path`, from the import statements its code spells
        (`spelled_imports`: every one the parser finds, and more), without parsing it: False
        only where the parsed module's answer is False too."""
        real = self.project.real
        if real(path) == real(target):
            return True
        key = (path, target)
        known = self._importers_spelled.get(key)
        if known is None:
            imports = self.project.spelled_imports(path)
            known = self._importers_spelled[key] = imports is None or self._reaches(
                imports, path, target
            )
        return known

    def _imports_module(self, other: Module, target: Path) -> bool:
        if any(w in other.loads_by_name for w in ("import_module", "__import__")):
            return True
        imports: list[tuple[str, int]] = []
        for statement in other.imports:
            if isinstance(statement, ast.ImportFrom):
                imports.append((statement.module or "", statement.level))
                continue
            for alias in statement.names:
                parts = alias.name.split(".")
                imports.extend(
                    (".".join(parts[:n]), 0) for n in range(1, len(parts) + 1)
                )
        return self._reaches(imports, other.path, target)

    def _reaches(
        self, imports: list[tuple[str, int]], importer: Path, target: Path
    ) -> bool:
        """Whether one of `imports` (dotted name, level) of the module at `importer` gets
        the module at `target`: itself, or a package above it (which may re-export its names
        or hold it as a submodule); a relative import jaxfix cannot place may."""
        real = self.project.real
        place = real(target)
        for name, level in imports:
            if level == 0 and name.partition(".")[0] in _EXTERNAL_TOPS:
                continue
            found = self.project.find(name, level, importer)
            if isinstance(found, Unknown):
                if level > 0:  # a relative import jaxfix cannot place
                    return True
                continue  # absolute: a module outside the tree (evaluated so)
            if found.path is not None and real(found.path) == place:
                return True
            if found.directory is not None and real(found.directory) in place.parents:
                return True
        return False

    def _made_otherwise(
        self, module: Module, use: ast.expr, init: Function, depth: int
    ) -> list[tuple[Module, ast.Call, Function | None]] | None:
        """The calls that build an object of a class through `use`, a read of the class
        other than its call: none where it only names the class (an annotation, the class
        of `isinstance`, an `except`, an attribute such as a class method: its own `cls(...)`
        calls are the class's); the constructions of a subclass that adds no `__init__`
        (`class B(A): ...`); the calls of the parameter of a function of the tree it is
        passed to (`build(A, cfg)`, `cls(cfg)` in `build`); the calls `TABLE[key](...)` of a
        module's dict literal holding it (`MODELS = {"a": A}`), its only uses. Each call
        may build another class too (another caller's class, another entry): its arguments
        are among those the class's `__init__` may get. None where the class may be used
        otherwise (kept, changed): its constructions are not all known. `depth`: the hops
        followed so far (a bound: past `_MAX_CLASS_HOPS`, not known)."""
        if depth > _MAX_CLASS_HOPS:
            return None
        parent = module.parents.get(use)
        if _names_a_class_only(module, use):
            return []
        if isinstance(parent, ast.Call) and parent.func is use:
            return [(module, parent, init)]
        if (
            isinstance(parent, ast.Attribute)
            and parent.value is use
            and isinstance(parent.ctx, ast.Load)
            and not parent.attr.startswith("__")
        ):
            # `A.from_config`, `A.NAME`: what builds an object is a class method's `cls(...)`,
            # found in the class bodies, where every base is of the tree
            cls = self.value(module, use, self.frame_at(module, use))
            if isinstance(cls, Class) and self._bases_of_the_tree(cls):
                return []
            return None
        if isinstance(parent, ast.ClassDef) and use in parent.bases:
            return self._subclass_made(module, parent, use, init, depth)
        if isinstance(parent, ast.Call) and (
            use in parent.args or any(k.value is use for k in parent.keywords)
        ):
            return self._made_by_callee(module, parent, use, init, depth)
        if isinstance(parent, ast.Dict) and use in parent.values:
            return self._made_from_table(module, parent, use, init, depth)
        if isinstance(parent, ast.IfExp) and use is not parent.test:
            # `cls = A if flag else B`: what the choice is used as
            return self._made_otherwise(module, parent, init, depth + 1)
        if (
            isinstance(parent, ast.Assign)
            and parent.value is use
            and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)
        ):
            return self._made_through_name(module, parent, init, depth)
        if isinstance(parent, ast.Return) and parent.value is use:
            return self._made_through_result(module, parent, init, depth)
        return None

    def _made_through_name(
        self, module: Module, statement: ast.Assign, init: Function, depth: int
    ) -> list[tuple[Module, ast.Call, Function | None]] | None:
        """`cls = A` in a function: every read of `cls` in the function (none in code nested
        in it, the name not `global` or `nonlocal`), each followed as `_made_otherwise`
        does (a read that sees another binding too is counted: its call may build `A`)."""
        scope = module.scope_of(statement)
        target = statement.targets[0]
        assert isinstance(target, ast.Name)
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        if target.id in module.declared_global or (
            target.id in module.declared_nonlocal
            and any(
                isinstance(n, ast.Nonlocal) and target.id in n.names
                for n in ast.walk(scope)
            )
        ):
            return None
        found: list[tuple[Module, ast.Call, Function | None]] = []
        for read in module.loads_by_name.get(target.id, ()):
            if not isinstance(read, ast.Name) or not module.is_within(read, scope):
                continue
            if module.scope_of(read) is not scope:
                return None  # read by a nested function or lambda
            made = self._made_otherwise(module, read, init, depth + 1)
            if made is None:
                return None
            found.extend(made)
        return found

    def _made_through_result(
        self, module: Module, statement: ast.Return, init: Function, depth: int
    ) -> list[tuple[Module, ast.Call, Function | None]] | None:
        """`return A` in a plain function of the tree (`def model_class(name): return A`):
        every call of the function, each followed as `_made_otherwise` follows the class."""
        function = module.scope_of(statement)
        if (
            not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
            or function.decorator_list
            or isinstance(module.parents.get(function), ast.ClassDef)
            or self.is_generator(function)
        ):
            return None
        calls = self.calls_of(module, function)
        if isinstance(calls, Unknown):
            return None
        found: list[tuple[Module, ast.Call, Function | None]] = []
        for caller, call, _ in calls:
            made = self._made_otherwise(caller, call, init, depth + 1)
            if made is None:
                return None
            found.extend(made)
        return found

    def _subclass_made(
        self,
        module: Module,
        klass: ast.ClassDef,
        use: ast.expr,
        init: Function,
        depth: int,
    ) -> list[tuple[Module, ast.Call, Function | None]] | None:
        """`class B(A): ...` with no other base: with no `__init__` of its own, the calls that
        build a `B` (by its name, by its class methods' `cls`, A's included) run `A.__init__`;
        with one, its `super().__init__(...)` calls do, where a `B` may be built."""
        if (
            klass.bases != [use]
            or klass.keywords
            or klass.decorator_list
            or any(
                isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                and s.name in ("__new__", "__call__")
                for s in klass.body
            )
        ):
            return None
        found: list[tuple[Module, ast.Call, Function | None]] = []
        own_init = next(
            (
                s
                for s in klass.body
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                and s.name == "__init__"
            ),
            None,
        )
        if own_init is not None:
            if self.calls_of(module, own_init) == []:
                return []  # no object of the subclass is built: its `super()` never runs
            for node in ast.walk(klass):
                if _is_super_init(node, bare=False):
                    if not _is_super_init(node):
                        return None  # `super(Other, self)`: another class's next
                    found.append((module, node, init))  # type: ignore[arg-type]  # a call
            return found
        made = self._made_by_classmethods(module, klass, init, depth + 1)
        if made is None:
            return None
        found.extend(made)
        # the bases' class methods called on the subclass (`B.from_config(cfg)`)
        base = self.value(module, use, self.frame_at(module, klass))
        if not isinstance(base, Class):
            return None
        for owner in self._mro(base):
            owner_module = self.module(owner.path)
            if not isinstance(owner_module, Module):
                return None
            made = self._made_by_classmethods(owner_module, owner.node, init, depth + 1)
            if made is None:
                return None
            found.extend(made)
        others = self.project.candidate_files(klass.name, module.path)
        if isinstance(others, Unknown):
            return None
        sources: list[Module | Path] = [
            module,
            *(p for p in others if p != module.path),
        ]
        for source in sources:
            other = self.module(source) if isinstance(source, Path) else source
            if isinstance(other, Unknown):
                return None
            for read in other.loads_by_name.get(klass.name, ()):
                value = self.value(other, read, self.frame_at(other, read))
                if isinstance(value, Class) and value.node is klass:
                    made = self._made_otherwise(other, read, init, depth + 1)  # type: ignore[arg-type]  # a load
                    if made is None:
                        return None
                    found.extend(made)
                elif isinstance(value, Unknown) and not isinstance(value, Foreign):
                    return None  # it may be the class
        return found

    def _made_by_classmethods(
        self, module: Module, klass: ast.ClassDef, init: Function, depth: int
    ) -> list[tuple[Module, ast.Call, Function | None]] | None:
        """The `cls(...)` calls of `klass`'s own class methods (`cls` read only to be called,
        to read an attribute, or passed on as `_made_otherwise` follows), each taken as a
        call of `init` (it may build a subclass, which runs another `__init__`: its arguments
        are only among those `init` may get); [] where there is none."""
        found: list[tuple[Module, ast.Call, Function | None]] = []
        for method in klass.body:
            if not isinstance(
                method, (ast.FunctionDef, ast.AsyncFunctionDef)
            ) or not _is_classmethod(method):
                continue
            params = [*method.args.posonlyargs, *method.args.args]
            if not params:
                continue
            cls = params[0].arg
            for read in module.loads_by_name.get(cls, ()):
                if not isinstance(read, ast.Name) or not module.is_within(read, method):
                    continue
                bindings = self.reaching(module, read)
                if not bindings or any(b.node is not params[0] for b in bindings):
                    return None  # `cls` rebound, or read in code nested in the method
                made = self._made_otherwise(module, read, init, depth + 1)
                if made is None:
                    return None
                found.extend(made)
        return found

    def _bases_of_the_tree(self, cls: Class) -> bool:
        """Whether every class `cls` derives from is of the tree, in one chain (its class
        methods are all in bodies jaxfix reads)."""
        chain = self._mro(cls)
        return not chain[-1].node.bases

    def _made_by_callee(
        self,
        module: Module,
        call: ast.Call,
        use: ast.expr,
        init: Function,
        depth: int,
    ) -> list[tuple[Module, ast.Call, Function | None]] | None:
        """`build(A, cfg)`, `build` a plain function of the tree (not a method): the uses of
        its parameter that takes `A`, each read of it followed as `_made_otherwise` does."""
        callee = self.value(module, call.func, self.frame_at(module, call))
        if (
            not isinstance(callee, Function)
            or callee.wrapped_by is not None
            or not isinstance(callee.node, (ast.FunctionDef, ast.AsyncFunctionDef))
            or callee.node.decorator_list
            or self._is_method(callee)
        ):
            return None
        node = callee.node
        if any(
            isinstance(a, ast.Starred)
            for a in call.args[: call.args.index(use) + 1]
            if use in call.args
        ):
            return None
        positional = [*node.args.posonlyargs, *node.args.args]
        param: ast.arg | None = None
        if use in call.args:
            index = call.args.index(use)
            param = positional[index] if index < len(positional) else None
        else:
            keyword = next(k for k in call.keywords if k.value is use)
            if keyword.arg is not None:
                param = next(
                    (
                        a
                        for a in (*node.args.args, *node.args.kwonlyargs)
                        if a.arg == keyword.arg
                    ),
                    None,
                )
        if param is None:
            return None
        target = self.module(callee.path)
        if isinstance(target, Unknown):
            return None
        found: list[tuple[Module, ast.Call, Function | None]] = []
        for read in target.loads_by_name.get(param.arg, ()):
            if not isinstance(read, ast.Name) or not target.is_within(read, node):
                continue
            bindings = self.reaching(target, read)
            if not bindings or any(b.node is not param for b in bindings):
                return None  # rebound, or read in code nested in the function
            made = self._made_otherwise(target, read, init, depth + 1)
            if made is None:
                return None
            found.extend(made)
        return found

    def _made_from_table(
        self, module: Module, table: ast.Dict, use: ast.expr, init: Function, depth: int
    ) -> list[tuple[Module, ast.Call, Function | None]] | None:
        """`MODELS = {"a": A, "b": B}` at a module's top, its one binding, every read of it
        in the run (this module's and those importing it) an item `MODELS[key]`, less those
        whose key jaxfix knows is another entry's: each item followed as `_made_otherwise`
        follows the class (`MODELS[name](cfg)`, `return MODELS[name]`)."""
        key_node = table.keys[table.values.index(use)]
        own_key = (
            key_node.value
            if isinstance(key_node, ast.Constant)
            and isinstance(key_node.value, (str, int))
            and not isinstance(key_node.value, bool)
            else None
        )
        name = _module_level_name(module, table)
        if name is None:
            return None
        if (
            name in module.declared_global
            or sum(
                1
                for node in module.parents
                if _binds_name(node, name) and module.scope_of(node) is module.tree
            )
            != 1
        ):
            return None
        others = self.project.candidate_files(name, module.path)
        if isinstance(others, Unknown):
            return None
        found: list[tuple[Module, ast.Call, Function | None]] = []
        sources: list[Module | Path] = [
            module,
            *(p for p in others if p != module.path),
        ]
        for source in sources:
            other = self.module(source) if isinstance(source, Path) else source
            if isinstance(other, Unknown):
                return None
            for read in other.loads_by_name.get(name, ()):
                item = other.parents.get(read)
                if not (
                    isinstance(item, ast.Subscript)
                    and item.value is read
                    and isinstance(item.ctx, ast.Load)
                ):
                    return None
                if own_key is not None:
                    key = self.value(other, item.slice, self.frame_at(other, item))
                    if (
                        isinstance(key, (str, int))
                        and not isinstance(key, bool)
                        and key != own_key
                    ):
                        continue  # another entry's key
                made = self._made_otherwise(other, item, init, depth + 1)
                if made is None:
                    return None
                found.extend(made)
        return found

    def _object_calls(
        self,
        module: Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        klass: ast.ClassDef,
    ) -> list[tuple[Module, ast.Call, Function | None]] | Unknown:
        """The calls of `klass`'s `__call__`: of each object built by a call of the class's own
        `__init__` (every such call in the project) bound to a name by a plain assignment whose
        every read calls it, or returned by a function whose every `return` returns it (t5x's
        `partition(fn, ...)` returning its wrapper object), then each call of that function
        so bound; Unknown where an object is used otherwise, or its name may be imported by
        another module."""
        init = next(
            (
                s
                for s in klass.body
                if isinstance(s, ast.FunctionDef) and s.name == "__init__"
            ),
            None,
        )
        if init is None or function.decorator_list:
            return Unknown(f"objects of `{klass.name}` jaxfix does not see built")
        made = self.calls_of(module, init)
        if isinstance(made, Unknown) or not made:
            return Unknown(f"objects of `{klass.name}` jaxfix does not see built")
        target = Function(
            function,
            module.path,
            Frame(klass, module.path, (), self.frame_at(module, klass)),
        )
        found: list[tuple[Module, ast.Call, Function | None]] = []
        keeps_itself = self._keeps_itself(
            Class(klass, module.path, self.frame_at(module, klass))
        )
        pending = [(other, construct, 0) for other, construct, _ in made]
        while pending:
            other, construct, depth = pending.pop()
            statement = other.parents.get(construct)
            factory = other.scope_of(construct)
            if (
                isinstance(statement, ast.Return)
                and depth < _MAX_FACTORY_DEPTH
                and isinstance(factory, (ast.FunctionDef, ast.AsyncFunctionDef))
                and _returns_only(factory, construct)
            ):
                # `def partition(...): return Wrapper(...)`: its objects are the
                # results of the factory's calls
                returned = self.calls_of(other, factory)
                if isinstance(returned, Unknown) or not returned:
                    return Unknown(
                        f"an object of `{klass.name}` is returned by `{factory.name}`"
                        f", whose calls jaxfix does not see"
                    )
                pending += [(m, c, depth + 1) for m, c, _ in returned]
                continue
            if (
                not isinstance(statement, ast.Assign)
                or statement.value is not construct
                or len(statement.targets) != 1
                or not isinstance(statement.targets[0], ast.Name)
            ):
                return Unknown(f"an object of `{klass.name}` is not bound to a name")
            name = statement.targets[0].id
            if other.scope_of(statement) is other.tree:
                files = self.project.candidate_files(name, other.path)
                if isinstance(files, Unknown) or any(p != other.path for p in files):
                    return Unknown(f"`{name}` may be imported by another module")
            for use in other.loads_by_name.get(name, ()):
                call = other.parents.get(use)
                bindings = (
                    self.reaching(other, use) if isinstance(use, ast.Name) else None
                )
                if not bindings or any(b.node is not statement for b in bindings):
                    return Unknown(f"`{name}` is used other than called")
                if (
                    isinstance(call, ast.Attribute)
                    and call.attr != "__call__"
                    and keeps_itself
                ):
                    continue  # `pipeline.prepare_latents(...)`: no method hands it out
                if not isinstance(call, ast.Call) or call.func is not use:
                    return Unknown(f"`{name}` is used other than called")
                found.append((other, call, target))
        return found

    def _keeps_itself(self, klass: Class) -> bool:
        """Whether no method of `klass` (or of a base of the tree) hands its object on: the
        class bodies hold only `def`s (decorated at most as properties, static or class
        methods), constants and docstrings; each method reads its first parameter only as
        `self.attr` (never `self.__call__`); no base is outside the tree but `object`. Then
        reading an attribute of an object of the class (`pipeline.prepare_latents(...)`)
        does not call it."""
        chain = self._mro(klass)
        if not self._every_base_seen(chain, bare=True):
            return False
        for owner in chain:
            module = self.module(owner.path)
            if isinstance(module, Unknown):
                return False
            for method in owner.node.body:
                if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if not _inert_class_statement(method):
                        return False
                    continue
                if not all(map(_plain_method_decorator, method.decorator_list)):
                    return False
                if not (method.args.posonlyargs or method.args.args):
                    continue
                first = (*method.args.posonlyargs, *method.args.args)[0].arg
                for node in ast.walk(method):
                    if not (isinstance(node, ast.Name) and node.id == first):
                        continue
                    parent = module.parents.get(node)
                    if not (
                        isinstance(parent, ast.Attribute)
                        and parent.value is node
                        and parent.attr != "__call__"
                    ):
                        return False
        return True

    def runs_through_jitted_attribute(
        self, module: Module, use: ast.AST
    ) -> list[ast.Call] | None:
        """For `self.attr = jax.jit(f)` in a method of a class, `use` being that `f`: the
        calls that run f through the attribute (`self.attr(x)`, `self.attr.lower(x)`), when
        this is the module's only store of `.attr`, no other module names `attr`, no subclass
        stores it, and every read of `.attr` in the module is such a run on a method's own
        first parameter in the class; else None (not known)."""
        jitted = module.parents.get(use)
        if not (
            isinstance(jitted, ast.Call)
            and jitted.args == [use]
            and not jitted.keywords
        ):
            return None
        callee = self.value(module, jitted.func, self.frame_at(module, jitted))
        if not (isinstance(callee, External) and _KEEPS_BODY.get(callee.name) == "jit"):
            return None
        statement = module.parents.get(jitted)
        method = module.scope_of(jitted)
        klass = module.parents.get(method) if method is not None else None
        if not (
            isinstance(statement, ast.Assign)
            and statement.value is jitted
            and len(statement.targets) == 1
            and isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
            and isinstance(klass, ast.ClassDef)
            and method.args.args
        ):
            return None
        target = statement.targets[0]
        this = method.args.args[0].arg
        if not (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == this
        ):
            return None
        attr = target.attr
        if module.attribute_stores(attr) != [target]:
            return None
        # an object's attribute is reached without an import of its module: every module
        # holding the word
        others = self.project.candidate_files(attr, module.path, imported=False)
        if isinstance(others, Unknown) or any(p != module.path for p in others):
            return None
        if self._subclass_assigning(Class(klass, module.path), attr):
            return None
        runs: list[ast.Call] = []
        for read in module.loads_by_name.get(attr, ()):
            reader = module.scope_of(read)
            if not (
                isinstance(read, ast.Attribute)
                and isinstance(read.value, ast.Name)
                and isinstance(reader, (ast.FunctionDef, ast.AsyncFunctionDef))
                and module.parents.get(reader) is klass
                and reader.args.args
                and read.value.id == reader.args.args[0].arg
            ):
                return None
            parent = module.parents.get(read)
            if isinstance(parent, ast.Call) and parent.func is read:
                runs.append(parent)
                continue
            if isinstance(parent, ast.Attribute) and parent.attr in ("lower", "trace"):
                grand = module.parents.get(parent)
                if isinstance(grand, ast.Call) and grand.func is parent:
                    runs.append(grand)
                    continue
            return None
        return runs

    def is_definition_of(
        self, module: Module, use: ast.Name, function: ast.AST
    ) -> bool:
        """Whether every binding reaching the read `use` is the `def` of `function`."""
        bindings = self.reaching(module, use)
        return bool(bindings) and all(
            b.kind == "def" and b.node is function for b in bindings or ()
        )

    def reaching(self, module: Module, use: ast.Name) -> frozenset[Binding] | None:
        """The bindings a read of a name may see (None where there are none to see)."""
        frame = self.frame_at(module, use)
        name = use.id
        if frame.scope is module.tree or name in _locals(module, frame.scope):
            flow = self.flow(module, frame)
            statement = _statement_in(module, use, frame.scope)
            env = flow.before.get(statement) if statement is not None else flow.end
            found = env.get(name) if env is not None else None
            if found or frame.scope is not module.tree:
                return found
        outer = frame.parent
        while outer is not None and outer.scope is not module.tree:
            if not isinstance(outer.scope, ast.ClassDef) and name in _locals(
                module, outer.scope
            ):
                return frozenset(self.flow(module, outer).everything.get(name, ()))
            outer = outer.parent
        top = self.flow(module, Frame(module.tree, module.path, ()))
        return frozenset(top.everything.get(name, ())) or None

    def _imported(self, module: Module, alias: ast.alias) -> Value:
        statement = module.parents.get(alias)
        if isinstance(statement, ast.Import):
            top = alias.name.partition(".")[0]
            if alias.asname is None:
                return self._import_module(module, top, 0, top)
            return self._import_module(module, alias.name, 0, alias.name)
        assert isinstance(statement, ast.ImportFrom)
        source = statement.module or ""
        level = statement.level
        if level == 0 and source.partition(".")[0] in _EXTERNAL_TOPS:
            return vocabulary.external(f"{source}.{alias.name}")
        found = self.project.find(source, level, module.path)
        if isinstance(found, Unknown):
            if level:
                return found
            return vocabulary.external(f"{source}.{alias.name}")
        self.project.read.update(p for p in (found.path,) if p is not None)
        return self.module_attribute(
            ModuleValue(found.path, found.directory), alias.name, alias
        )

    def _import_module(
        self, module: Module, name: str, level: int, spelled: str
    ) -> Value:
        if name.partition(".")[0] in _EXTERNAL_TOPS:
            return vocabulary.external(spelled)
        found = self.project.find(name, level, module.path)
        if isinstance(found, Unknown):
            return vocabulary.external(spelled)
        return ModuleValue(found.path, found.directory)

    def iterations(
        self, module: Module, node: ast.AST
    ) -> list[tuple[tuple[ast.For, str, Value], ...]] | Unknown | None:
        """Each iteration of the `for` loops around `node` in its own scope (its body holds
        `node`), or, where none is, of those around the calls of its function in their
        callers (`for m in meshes: helper(m)`: `helper`'s parameter is then each item), as
        the loop variables' values it binds (outermost loop first, an inner loop's items
        evaluated with the outer variables bound): None when no loop is around it, Unknown
        when a loop's items are not spelled out or there are more than `_MAX_ITERATIONS`
        iterations. `loop_module` says which module a loop is in."""
        loops = [(module, loop) for loop in _loops_around(module, node)]
        scope = module.scope_of(node)
        if not loops and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            calls = self.calls_of(module, scope, through_decorators=True)
            if isinstance(calls, list):
                seen: set[ast.AST] = set()
                for caller, call, _ in calls:
                    for loop in _loops_around(caller, call):
                        if loop not in seen:
                            seen.add(loop)
                            loops.append((caller, loop))
        if not loops:
            return None
        done: list[tuple[tuple[ast.For, str, Value], ...]] = [()]
        for where, loop in loops:
            self._loop_modules[loop] = where.path
            frame = self.frame_at(where, loop)
            grown: list[tuple[tuple[ast.For, str, Value], ...]] = []
            for bound in done:
                with self.unrolled(bound):
                    iterated = self.value(where, loop.iter, frame)
                items = _items(iterated)
                if items is None:
                    why = f"the items of the loop at line {where.line(loop)}"
                    if isinstance(iterated, Unknown):
                        return lost_at(Unknown(f"{why} are not known"), iterated)
                    return Unknown(f"{why} are not spelled out")
                for item in items:
                    pairs = tuple(
                        (loop, name, value)
                        for name, value in _assign_target(loop.target, item)
                    )
                    grown.append((*bound, *pairs))
            done = grown
            if len(done) > _MAX_ITERATIONS:
                return Unknown(f"more than {_MAX_ITERATIONS} iterations of the loops")
        return done

    def loop_module(self, loop: ast.For) -> Path | None:
        """The module of a loop `iterations` gave."""
        return self._loop_modules.get(loop)

    @contextmanager
    def unrolled(self, bound: tuple[tuple[ast.For, str, Value], ...]) -> Iterator[None]:
        """Inside: each `for` loop variable of `bound` reads the value it binds there (one
        iteration of `iterations`); the answers that depend on it are remembered with it, and
        parameters found from callers meanwhile are forgotten after."""
        saved = dict(self._comprehension)
        params = self._params
        self._params = {}  # a parameter from callers may read a loop variable bound here
        try:
            for loop, name, value in bound:
                self._comprehension[(loop, name)] = value
            yield
        finally:
            self._comprehension = saved
            self._params = params

    @contextmanager
    def on_host(self, devices: int) -> Iterator[None]:
        """Inside: the program runs with `devices` devices in all: `jax.device_count()` is
        that count, `jax.devices()` a list of that many (the local ones stay unknown: how
        many processes share them is not known; answers that depend on it are remembered
        with it, as loop variables are; parameters found from callers meanwhile are
        forgotten after)."""
        saved = dict(self._comprehension)
        params = self._params
        self._params = {}
        try:
            self._comprehension[_HOST] = devices
            yield
        finally:
            self._comprehension = saved
            self._params = params

    def _host_read(
        self, callee: External, positional: list[Value] | Unknown, keywords: object
    ) -> Value | None:
        """What a read of the host's devices gives inside `on_host`, else None."""
        devices = self._comprehension.get(_HOST)
        if not isinstance(devices, int) or positional or keywords:
            return None
        # the global count only: a host's local devices are fewer where several processes
        # run the program, and jaxfix does not know how many do
        if callee.name == "jax.device_count":
            return devices
        if callee.name == "jax.devices":
            return Devices((devices,), is_array=False)
        return None

    def unrolling(self) -> frozenset[tuple[tuple[ast.AST, str], Value]] | None:
        """The loop and comprehension variables bound now (a key for answers that depend
        on them), None when none is."""
        return frozenset(self._comprehension.items()) if self._comprehension else None

    def comprehension_variable(
        self, module: Module, node: ast.Name
    ) -> Value | NotAVariable:
        """The value of `node` where it reads a comprehension's variable or an unrolled loop's
        (Unknown while the comprehension is not being evaluated; None where the item is
        None), `NotAVariable.NAME` elsewhere."""
        loops, binding = self._around(module, node)
        if self._comprehension:
            for loop in loops:
                if (loop, node.id) in self._comprehension:
                    return self._comprehension[(loop, node.id)]  # a loop jaxfix unrolls
        if binding is None:
            return NotAVariable.NAME
        comprehension, first = binding
        if (comprehension, node.id) in self._comprehension:
            return self._comprehension[(comprehension, node.id)]
        if first:
            return self._every_item(module, comprehension, node.id)
        return Unknown(f"`{node.id}` is a comprehension's variable")

    def _around(self, module: Module, node: ast.Name) -> _Around:
        """The `for` loops around `node` (up to its function, lambda or class) inside the
        innermost comprehension whose generator binds its name, and that comprehension with
        whether its first generator binds it (None: none does): found once per read."""
        found = self._arounds.get(node)
        if found is not None:
            return found
        loops: list[ast.For] = []
        binding: tuple[_Comprehension, bool] | None = None
        current: ast.AST | None = module.parents.get(node)
        while binding is None and not (
            current is None
            or isinstance(
                current,
                (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef),
            )
        ):
            if isinstance(current, ast.For):
                loops.append(current)
            elif isinstance(
                current, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
            ):
                for generator in current.generators:
                    if node.id in _stored(generator.target):
                        binding = (current, generator is current.generators[0])
                        break
            current = module.parents.get(current)
        found = self._arounds[node] = (tuple(loops), binding)
        return found

    def _every_item(
        self,
        module: Module,
        comprehension: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
        name: str,
    ) -> Value:
        """A variable of a comprehension's first generator, read where the comprehension is
        not being unrolled: the one value it takes for every item of the iterable (which the
        enclosing scope evaluates; an `if` of the comprehension only drops items)."""
        why = f"`{name}` is a comprehension's variable"
        generator = comprehension.generators[0]
        iterated = self.value(
            module, generator.iter, self.frame_at(module, comprehension)
        )
        if isinstance(iterated, Items):
            every = iterated.key if iterated.mapping else iterated.item
            bound = [v for t, v in _assign_target(generator.target, every) if t == name]
            return bound[0] if len(bound) == 1 else Unknown(why)
        items = _items(iterated)
        if items is None:
            lost = Unknown(f"{why} over values jaxfix does not spell out")
            return lost_at(lost, iterated) if isinstance(iterated, Unknown) else lost
        if not items or len(items) > _MAX_ITEMS:
            return Unknown(why)
        values: list[Value] = []
        for item in items:
            bound = [v for t, v in _assign_target(generator.target, item) if t == name]
            if len(bound) != 1:
                return Unknown(why)
            values.append(bound[0])
        return join(values, f"{why}, whose items differ")

    def _comprehension_results(
        self,
        module: Module,
        node: ast.ListComp | ast.GeneratorExp | ast.DictComp,
        frame: Frame,
        results: list[Value],
        index: int,
    ) -> Unknown | None:
        """Each item of the comprehension from generator `index` on, appended to `results`."""
        if index == len(node.generators):
            if isinstance(node, ast.DictComp):
                results.append(
                    (
                        self.value(module, node.key, frame),
                        self.value(module, node.value, frame),
                    )
                )
            else:
                results.append(self.value(module, node.elt, frame))
            return None
        generator = node.generators[index]
        items = _items(self.value(module, generator.iter, frame))
        if items is None or generator.is_async:
            return Unknown("a comprehension over values jaxfix does not know")
        for item in items:
            for target, value in _assign_target(generator.target, item):
                self._comprehension[(node, target)] = value
            for condition in generator.ifs:
                truth = _truth(self.value(module, condition, frame))
                if truth is None:
                    return Unknown("a comprehension's condition jaxfix cannot decide")
                if not truth:
                    break
            else:
                failed = self._comprehension_results(
                    module, node, frame, results, index + 1
                )
                if failed is not None:
                    return failed
            if len(results) > _MAX_ITEMS:
                return Unknown("a long comprehension")
        return None

    def _comprehension_value(
        self,
        module: Module,
        node: ast.ListComp | ast.GeneratorExp | ast.DictComp,
        frame: Frame,
    ) -> Value:
        results: list[Value] = []
        saved = dict(self._comprehension)
        try:
            failed = self._comprehension_results(module, node, frame, results, 0)
        finally:
            self._comprehension = saved
        if failed is not None:
            every = self._of_every_item(module, node, frame)
            return every if every is not None else failed
        if isinstance(node, ast.DictComp):
            pairs = [r for r in results if isinstance(r, tuple) and len(r) == 2]
            return DictValue(tuple((p[0], p[1]) for p in pairs))
        if isinstance(node, ast.ListComp):
            return ListValue(tuple(results))
        return tuple(results)

    def _of_every_item(
        self,
        module: Module,
        node: ast.ListComp | ast.GeneratorExp | ast.DictComp,
        frame: Frame,
    ) -> Items | None:
        """A comprehension whose first iterable jaxfix does not spell out, whose element is one
        value whatever the item (its variables bound to what every item is: the `Items`'
        item, else Unknown; an `if` of it only drops items): `Items` of it. None when the
        element depends on what jaxfix does not know, or the iterable is spelled out (the
        comprehension then failed otherwise)."""
        first = node.generators[0]
        iterated = self.value(module, first.iter, frame)
        if first.is_async or _items(iterated) is not None:
            return None
        why = "a comprehension's variable over values jaxfix does not spell out"
        every: Value = (
            (iterated.key if iterated.mapping else iterated.item)
            if isinstance(iterated, Items)
            else lost_at(Unknown(why), iterated)
            if isinstance(iterated, Unknown)
            else Unknown(why)
        )
        saved = dict(self._comprehension)
        try:
            for target, value in _assign_target(first.target, every):
                self._comprehension[(node, target)] = value
            if isinstance(node, ast.DictComp):
                key = self.value(module, node.key, frame)
                item = self.value(module, node.value, frame)
            else:
                key, item = (
                    Unknown("a list has no keys"),
                    self.value(module, node.elt, frame),
                )
        finally:
            self._comprehension = saved
        if isinstance(item, Unknown):
            return None
        return Items(item, key, isinstance(node, ast.DictComp))

    # -- attributes and items ---------------------------------------------------------------

    def attribute(self, base: Value, name: str, node: ast.AST) -> Value:
        if isinstance(base, JaxStage):
            return lost_at(JaxStage(f"`.{name}` of {base.why}"), base)
        if isinstance(base, Foreign):
            return lost_at(Foreign(f"`.{name}` of {base.why}"), base)
        if isinstance(base, OneOf):
            return lost_at(Unknown(f"`.{name}` of {base.why}"), base)
        if isinstance(base, JitOfUnknown) and name in STAGE_METHODS:
            return lost_at(JaxStage(f"`.{name}` of {base.why}"), base)
        if isinstance(base, LoadedFromFile):
            return self._loaded_attribute(base, name, node)
        if isinstance(base, Unknown):
            return base
        if isinstance(base, ModuleValue):
            return self.module_attribute(base, name, node)
        if isinstance(base, External):
            return vocabulary.external_attribute(base, name)
        if isinstance(base, Instance):
            return self._instance_attribute(base, name, node)
        if isinstance(base, Namespace):
            found = base.get(name)
            if found is None:
                return Unknown(f"`.{name}` that the namespace was not given")
            return found
        if isinstance(base, EnumMember):
            if name == "value":
                return base.value
            return (
                base.name if name == "name" else Unknown(f"`.{name}` of an enum member")
            )
        if isinstance(base, Class):
            found = self._class_member(base, name)
            if (
                not name.startswith("_")
                and not isinstance(found, (Function, Class))
                and self._plain_enum(base)
            ):  # `ShardMode.FSDP` is a member, not "fsdp"
                return EnumMember(base, name, found)
            if isinstance(found, Function) and found.wrapped_by in _PROPERTIES:
                return Unknown(f"the property `{name}` of the class itself")
            if isinstance(found, Function) and found.wrapped_by == "classmethod":
                return BoundMethod(
                    found, base
                )  # `cls` is the class it is reached through
            if isinstance(found, NotDefined):
                set_up = self._set_up_for_the_class(base, name)
                if set_up is not None:
                    return set_up
            return found
        return vocabulary.attribute(base, name, node)

    def _class_member(self, cls: Class, name: str) -> Value:
        """A name bound in the class body (or a base class of the tree): constant or method."""
        return self._member_in(self._mro(cls), name, cls)

    def _member_in(self, classes: list[Class], name: str, cls: Class) -> Value:
        """`name` as the first of `classes` (an MRO, or its part after a class) binds it."""
        for klass in classes:
            module = self.module(klass.path)
            if isinstance(module, Unknown):
                return module
            frame = Frame(klass.node, klass.path, (), klass.closure)
            flow = self.flow(module, frame)
            bindings = flow.end.get(name) if flow.end is not None else None
            if bindings:
                return self._bindings_value(module, name, bindings, frame)
        return NotDefined(f"`{name}` is not defined in class `{cls.node.name}`")

    def _super_attribute(
        self, module: Module, node: ast.Attribute, frame: Frame
    ) -> Value:
        """`super().name` in a method of a class of the tree: `name` as the classes after it
        in the MRO of the object (or class) the method runs on bind it, bound to that object
        as an attribute of the object itself would be."""
        method = frame.scope
        klass = module.parents.get(method)
        if not (
            isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
            and isinstance(klass, ast.ClassDef)
            and method.args.args
        ):
            return Unknown("`super()` outside a method of a class")
        receiver = self._parameter(module, method.args.args[0], frame)
        if isinstance(receiver, Unknown):
            return receiver
        cls = receiver.cls if isinstance(receiver, Instance) else receiver
        if not isinstance(cls, Class):
            return Unknown("`super()` of an object jaxfix does not know")
        mro = self._mro(cls)
        after = next((i + 1 for i, k in enumerate(mro) if k.node is klass), None)
        if after is None:
            return Unknown(f"`super()` of `{klass.name}`, not a base jaxfix sees")
        member = self._member_in(mro[after:], node.attr, cls)
        if not isinstance(member, Function) or member.wrapped_by == "staticmethod":
            return member
        if member.wrapped_by == "classmethod":
            return BoundMethod(member, cls)
        if not isinstance(receiver, Instance):
            return member  # a plain function reached through the class
        if member.wrapped_by in _PROPERTIES:
            return self.call_function(member, [receiver], {}, node)
        return BoundMethod(member, receiver)

    def _plain_enum(self, cls: Class) -> bool:
        """Whether `cls` derives from `enum.Enum` (through classes of the tree) with no `str`
        or `int` mixed in (whose members are strs or ints: `class Axis(str, Enum)`)."""
        enum = False
        for klass in self._mro(cls):
            module = self.module(klass.path)
            if isinstance(module, Unknown):
                return False
            for base in klass.node.bases:
                value = self.value(module, base, self.frame_at(module, klass.node))
                name = value.name if isinstance(value, External) else None
                if name in _DATA_ENUMS:
                    return False
                enum = enum or name in _ENUMS
        return enum

    def _mro(self, cls: Class) -> list[Class]:
        """The class and its single-inheritance chain of bases of the tree; bases outside the
        tree end it (their members are Unknown)."""
        chain = [cls]
        current = cls
        for _ in range(8):
            module = self.module(current.path)
            if isinstance(module, Unknown):
                break
            bases = [
                self.value(module, b, self.frame_at(module, current.node))
                for b in current.node.bases
            ]
            local = [b for b in bases if isinstance(b, Class)]
            if len(local) != 1:
                break
            current = local[0]
            chain.append(current)
        return chain

    def _read_through_property(
        self, module: Module, instance: Instance, read: ast.Attribute, mesh: Mesh
    ) -> Mesh:
        """A mesh read as `obj.name` of a property (or `functools.cached_property`) of its
        class that built it: the read's place first among the frames it was built through
        (the getter ran there)."""
        getter = self._class_member(instance.cls, read.attr)
        if not isinstance(getter, Function) or getter.wrapped_by not in _PROPERTIES:
            return mesh
        framed = _returned_through(mesh, getter, module.path, read)
        assert isinstance(framed, Mesh)
        return framed

    def _instance_attribute(
        self, instance: Instance, name: str, node: ast.AST
    ) -> Value:
        after = [value for key, value, _ in instance.stored if key == name]
        if after:  # stored by a method returning the object: unless set otherwise
            fluent = frozenset(method for _, _, method in instance.stored)
            return self._assigned_elsewhere(instance, name, fluent) or after[-1]
        fields = self._init_fields(instance.cls)
        if fields is None and name in (self._dataclass_fields(instance.cls) or ()):
            # a field its own `__init__` sets (equinox's way): never the class's default
            return self._assigned_in_init(instance, name)
        if fields is not None and name in fields:
            # the object's own value, never the class's default (`C(5).a` of `a: int = 1`)
            if instance.init is None:
                return Unknown(
                    f"the field `{name}` of an object jaxfix did not see built"
                )
            exempt = frozenset(place for _, _, place in instance.stored)
            stored = self._field_stored(instance.cls, name, exempt)
            if stored is not None:
                return stored
            return dict(instance.init).get(name, Unknown(f"field `{name}` not given"))
        member = self._class_member(instance.cls, name)
        if isinstance(member, Function):
            if member.wrapped_by in _PROPERTIES:
                if member.wrapped_by == _SETTABLE:
                    store = self._stored_on(name, instance.cls)
                    if store is not None:
                        return Unknown(
                            f"the property `.{name}` may be set, and {store.why}"
                        )
                return self.call_function(member, [instance], {}, node)
            if member.wrapped_by == "staticmethod":
                return member
            if member.wrapped_by == "classmethod":
                return BoundMethod(member, instance.cls)
            return BoundMethod(member, instance)
        if not isinstance(member, NotDefined):
            return member
        set_up = self._set_up_for_the_class(instance.cls, name)
        if set_up is not None:
            return set_up
        filled = self._filled_by_item_stores(instance, name)
        if filled is not None:
            return filled
        return self._assigned_in_init(instance, name, at=node)

    def _field_stored(
        self, cls: Class, name: str, exempt: frozenset[ast.AST] = frozenset()
    ) -> Unknown | None:
        """Why the field `name` of an object of the dataclass `cls` may no longer hold what its
        construction gave: a method of the class sets it through `__setattr__` (a frozen
        one's `__post_init__`: `object.__setattr__(self, "shape", ...)`); for a class not
        frozen, a method of the class (`__post_init__` too) assigns `self.name`, or the project
        stores `.name` on an object from outside its class (`model.ff_layer = ...` after
        building it) or may by `setattr`; None when none may. The stores and calls of
        `exempt` are the object's own, already in its value."""
        for klass in self._mro(cls):
            forced = _set_through_dunder(klass.node, name)
            if forced is not None:
                return Unknown(
                    f"the field `.{name}` is also set by `__setattr__` in "
                    f"`{forced.name}` (line {forced.lineno})"
                )
        if self._frozen_class(cls):
            return None  # a store raises
        for klass in self._mro(cls):
            owner = self.module(klass.path)
            if isinstance(owner, Unknown):
                return owner
            if not owner.stores_attribute(name):
                continue
            for statement in klass.node.body:
                if isinstance(
                    statement, (ast.FunctionDef, ast.AsyncFunctionDef)
                ) and owner.assigns_self_attribute(statement, name):
                    return Unknown(
                        f"the field `.{name}` is also assigned by `{statement.name}`"
                    )
        return self._stored_outside_methods(
            name, cls.path, cls, exempt
        ) or self._set_by_setattr(name, cls, exempt)

    def _set_by_setattr(
        self, name: str, cls: Class, exempt: frozenset[ast.AST] = frozenset()
    ) -> Unknown | None:
        """Unknown naming the first `setattr(obj, key, value)` of the project whose key may be
        `name` (`name` itself, or a key computed at run time: axlearn's `ConfigBase.set(**kw)`
        loops `setattr(self, k, v)`) on an object of `cls`; None when there is none. A
        `setattr(self, ...)` in a method of another class sets only that class's objects: one
        `cls` is not (nor derives from, every base of `cls` seen) is left out."""
        near = cls.path
        found = self.project.candidate_files("setattr", near, imported=False)
        if isinstance(found, Unknown):
            return None  # too many modules to parse each: not looked for, as before
        for path in (near, *(p for p in found if p != near)):
            module = self.project.module_loading(path, "setattr")
            if module is None:
                continue
            if isinstance(module, Unknown):
                return module
            for call in module.calls:
                if not (
                    isinstance(call.func, ast.Name)
                    and call.func.id == "setattr"
                    and len(call.args) >= 2
                ):
                    continue
                key = call.args[1]
                if isinstance(key, ast.Constant) and key.value != name:
                    continue
                if self._sets_other_class(module, call, cls):
                    continue
                if self._keys_never_given(module, call, key, name, cls, exempt):
                    continue
                return Unknown(
                    f"`setattr` may set `.{name}`, at {path.name}:{module.line(call)}"
                )
        return None

    def _sets_other_class(self, module: Module, call: ast.Call, cls: Class) -> bool:
        """Whether `setattr(self, ...)`, in a plain method of a class of the tree, sets the
        attributes of objects of that class only, which `cls` is not and does not derive
        from."""
        function = module.scope_of(call)
        owner = module.parents.get(function) if function is not None else None
        if not (
            isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
            and isinstance(owner, ast.ClassDef)
            and not function.decorator_list
            and function.args.args
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id == function.args.args[0].arg
        ):
            return False
        chain = self._mro(cls)
        return all(k.node is not owner for k in chain) and self._every_base_seen(chain)

    def _keys_never_given(
        self,
        module: Module,
        call: ast.Call,
        key: ast.expr,
        name: str,
        cls: Class,
        exempt: frozenset[ast.AST],
    ) -> bool:
        """Whether `setattr(obj, key, v)` surely never gets `name` for `key`: `key` is the
        variable of a `for` loop over the function's own `**kwargs` (its `.items()`, `.keys()`
        or itself; EasyLM's `get_default_config(cls, **updates)`), and no call of the function
        in the project passes `name` by keyword (or a `**mapping`) to an object that may be
        one of `cls` (a call of `exempt` is the object's own, already in its value)."""
        function = module.scope_of(call)
        if not (
            isinstance(key, ast.Name)
            and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
            and function.args.kwarg is not None
        ):
            return False
        kwargs = function.args.kwarg.arg
        loop = module.parents.get(call)
        while loop is not None and loop is not function:
            if isinstance(loop, ast.For):
                break
            loop = module.parents.get(loop)
        if not isinstance(loop, ast.For):
            return False
        iterated = loop.iter
        if isinstance(iterated, ast.Call) and not iterated.args:
            if not (
                isinstance(iterated.func, ast.Attribute)
                and iterated.func.attr in ("items", "keys")
            ):
                return False
            pairs = iterated.func.attr == "items"
            iterated = iterated.func.value
        else:
            pairs = False
        target = loop.target
        if pairs and isinstance(target, ast.Tuple) and target.elts:
            target = target.elts[0]
        if not (
            isinstance(iterated, ast.Name)
            and iterated.id == kwargs
            and isinstance(target, ast.Name)
            and target.id == key.id
        ):
            return False
        return self._never_given(module, function, name, 0, (cls, exempt))

    def _never_given(
        self,
        module: Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        name: str,
        depth: int,
        receiving: tuple[Class, frozenset[ast.AST]] | None = None,
    ) -> bool:
        """Whether no call of `function` in the project passes `name` to its `**kwargs`: a
        `**kwargs` the caller forwards from its own `**kwargs`, never changed there
        (`super().__init__(**kwargs)` of a subclass's `__init__`), passes what the caller's
        own calls pass, followed `_MAX_FORWARDS` callers up; any other `**mapping` may pass
        it. A keyword naming one of `function`'s own parameters binds that parameter, never
        its `**kwargs`. With `receiving` (a class, and the calls already in an object's
        value), a method's call on an object of a class unrelated to it, or one of those
        calls, passes nothing to that object."""
        a = function.args
        if any(p.arg == name for p in (*a.args, *a.kwonlyargs)):
            return True
        method = isinstance(module.parents.get(function), ast.ClassDef)
        calls = self.calls_of(module, function, on_objects=method)
        if isinstance(calls, Unknown):
            return False
        for caller, made, _ in calls:
            if receiving is not None and (
                made in receiving[1]
                or (
                    isinstance(made.func, ast.Attribute)
                    and self._of_other_class(caller, made.func.value, receiving[0])
                )
            ):
                continue
            for keyword in made.keywords:
                if keyword.arg == name:
                    return False
                if keyword.arg is not None:
                    continue
                forwarding = caller.scope_of(made)
                if not (
                    depth < _MAX_FORWARDS
                    and isinstance(forwarding, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and _forwards_own_kwargs(caller, forwarding, keyword.value)
                    and self._never_given(caller, forwarding, name, depth + 1)
                ):
                    return False
        return True

    def _filled_by_item_stores(self, instance: Instance, name: str) -> Value | None:
        """`self.<name>` of an object whose class starts it as an empty dict in `__init__`
        and fills it only in its own `__setitem__` (`self._map[key] = value`), every other
        use of `.<name>` in the project a read or a removal: `Items` of the values those
        stores keep, `obj[k] = v` of an object of the class in a module naming the class
        being a call of `__setitem__(k, v)`. The one value every store keeps is the item
        (objects of one class: the constructor's arguments they agree on); None where the
        attribute is not such a dict."""
        cls = instance.cls
        init = item_stores.own_method(cls.node, "__init__")
        setter = item_stores.own_method(cls.node, "__setitem__")
        if (
            instance.init is None
            or init is None
            or setter is None
            or not item_stores.starts_empty(init, name)
        ):
            return None
        key = ("item stores", cls.node, name)
        cached = self._calls.get(key)
        if cached is not None:
            return cached
        if key in self._active:
            self.cut(key)
            return Unknown(f"`.{name}` read while its stores are evaluated")
        self._push(key)
        try:
            found = self._item_stores_value(cls, name, setter)
        finally:
            self._pop(key)
        if found is not None:
            self._calls[key] = found
        return found

    def _item_stores_value(
        self, cls: Class, name: str, setter: ast.FunctionDef
    ) -> Value | None:
        owner = self.module(cls.path)
        if isinstance(owner, Unknown):
            return None
        for statement in cls.node.body:
            if (
                isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                and statement.name != "__init__"
                and owner.assigns_self_attribute(statement, name)
            ):
                return None  # rebound by another method
        stores = item_stores.item_stores(setter, name)
        users = self.project.candidate_files(name, cls.path, imported=False)
        namers = self.project.candidate_files(cls.node.name, cls.path)
        if isinstance(users, Unknown) or isinstance(namers, Unknown):
            return None
        for path in {cls.path, *users}:
            other = self.module(path)
            if isinstance(other, Unknown):
                return None
            for use in other.loads_by_name.get(name, ()):
                if not isinstance(use, ast.Attribute) or reads_only(use, other.parents):
                    continue
                if item_stores.removes_item(use, other.parents):
                    continue
                if other.statement_of(use) not in stores:
                    return None  # changed elsewhere than by its own `__setitem__`
        method = Function(setter, cls.path, cls.closure)
        keys: list[Value] = []
        values: list[Value] = []
        for path in dict.fromkeys((cls.path, *namers)):
            module = self.module(path)
            if isinstance(module, Unknown):
                return None
            for node in ast.walk(module.tree):
                site = self._item_store_site(module, node, cls)
                if site is None:
                    continue
                if isinstance(site, Unknown):
                    return None
                args = self.bind(method, list(site), {})
                if isinstance(args, Unknown):
                    return None
                frame = Frame(setter, cls.path, args, cls.closure)
                for store in stores:
                    target = store.targets[0]
                    assert isinstance(target, ast.Subscript)
                    keys.append(self.value(owner, target.slice, frame))
                    values.append(self.value(owner, store.value, frame))
        if not values:
            return None
        why = f"the stores of `.{name}` keep different values"
        return Items(_joined_objects(values, why), _joined_objects(keys, why), True)

    def _item_store_site(
        self, module: Module, node: ast.AST, cls: Class
    ) -> tuple[Value, Value, Value] | Unknown | None:
        """`obj[k] = v` on an object of `cls`: (obj, k, v); Unknown for any other way of
        calling its `__setitem__` (`obj[k] += v`, `obj.update(...)`, `obj.setdefault(...)`,
        `obj.__setitem__(...)`); None for code that does not store into one."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr not in _SETTING_METHODS:
                return None
            receiver = self.value(module, node.func.value, self.frame_at(module, node))
            if isinstance(receiver, Instance) and receiver.cls == cls:
                return Unknown(f"`.{node.func.attr}(...)` of an object of the class")
            return None
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            changed = self.value(module, node.target.value, self.frame_at(module, node))
            if isinstance(changed, Instance) and changed.cls == cls:
                return Unknown("`obj[k] op= v` of an object of the class")
            return None
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Subscript)
            and not isinstance(node.targets[0].slice, ast.Slice)
        ):
            return None
        target = node.targets[0]
        assert isinstance(target, ast.Subscript)
        frame = self.frame_at(module, node)
        obj = self.value(module, target.value, frame)
        if not (isinstance(obj, Instance) and obj.cls == cls):
            return None
        return (
            obj,
            self.value(module, target.slice, frame),
            self.value(module, node.value, frame),
        )

    def _assigned_elsewhere(
        self, instance: Instance, name: str, exempt: frozenset[ast.AST]
    ) -> Unknown | None:
        """Why `.name` of the object may not be what `__init__` (or a method of `exempt`)
        stored: another method assigns it too, or, for `self` of a method, a subclass in the
        module does, or code outside the class or a `setattr` may; None when none may."""
        return self._assigned_by_class(
            instance, name, exempt
        ) or self._assigned_outside(instance, name, exempt)

    def _assigned_by_class(
        self, instance: Instance, name: str, exempt: frozenset[ast.AST]
    ) -> Unknown | None:
        """Why `.name` may not be what `__init__` stored, told by the class itself: another
        method (not of `exempt`) assigns it, or, for `self` of a method, a subclass does."""
        chain = self._mro(instance.cls)
        for klass in chain:
            owner = self.module(klass.path)
            if isinstance(owner, Unknown):
                return owner
            if not owner.stores_attribute(name):
                continue
            for statement in klass.node.body:
                if (
                    isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and statement.name != "__init__"
                    and statement not in exempt
                    and owner.assigns_self_attribute(statement, name)
                ):
                    prop = self._property_set_by(owner, klass, statement)
                    if prop is not None:
                        # runs only through a store `obj.<property> = v`
                        store = self._attribute_store(prop, klass.path)
                        if store is None:
                            continue
                        return Unknown(
                            f"`.{name}` is also assigned by the setter of `.{prop}`,"
                            f" and {store.why}"
                        )
                    return Unknown(f"`.{name}` is also assigned by `{statement.name}`")
        if instance.init is None:
            overriding = self._subclass_assigning(instance.cls, name)
            if overriding is not None:
                return Unknown(f"`.{name}` is also assigned by subclass `{overriding}`")
        return None

    def _assigned_outside(
        self, instance: Instance, name: str, exempt: frozenset[ast.AST] = frozenset()
    ) -> Unknown | None:
        """Why `.name` may not be what `__init__` stored, told by code outside the class: a
        store on its objects, or a `setattr` that may name it (those of `exempt` are the
        object's own, already in its value)."""
        return self._stored_outside_methods(
            name, instance.cls.path, instance.cls, exempt
        ) or self._set_by_setattr(name, instance.cls, exempt)

    def _assigned_in_init(
        self,
        instance: Instance,
        name: str,
        exempt: frozenset[ast.AST] = frozenset(),
        at: ast.AST | None = None,
    ) -> Value:
        """`self.name = ...` in `__init__` (the class's, else a base's reached through
        `super().__init__()`), evaluated with the constructor's arguments; Unknown when another
        method (not of `exempt`) assigns it too, or, for `self` of a method, a subclass in the
        module does; code outside the class storing it too gives `_or_stored_outside`."""
        chain = self._mro(instance.cls)
        within = self._assigned_by_class(instance, name, exempt)
        if within is not None:
            set_up = self._set_up_by_method(instance, name, exempt, at)
            return within if set_up is None else set_up
        outside = self._assigned_outside(instance, name)
        if outside is not None:
            return self._or_stored_outside(instance, name, outside, chain)
        return self._init_assigned(instance, name, chain)

    def _set_up_by_method(
        self,
        instance: Instance,
        name: str,
        exempt: frozenset[ast.AST],
        at: ast.AST | None = None,
    ) -> Value | None:
        """`.name` stored by one setup method of the class, taking `self` alone (`def
        setup_mesh(self): self.mesh = jax.make_mesh(...)`), that runs before any other use of
        every object of it: `__init__` calls it first (set_up.py), or every construction of
        the class in the project is followed at once by its one call (`t = Trainer(cfg)`,
        then `t.setup_mesh()`), and it is called nowhere else; or the method holding the read
        `at` calls it first (`self._setup_mesh()`, a memoizing one). What it stores, run on
        the object; None where that is not proven (another store, `__init__` storing other
        than None, a base or subclass storing it, a store outside the class)."""
        cls = instance.cls
        module = self.module(cls.path)
        if isinstance(module, Unknown):
            return None
        setters: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        for index, klass in enumerate(self._mro(cls)):
            owner = self.module(klass.path)
            if isinstance(owner, Unknown):
                return None
            for statement in klass.node.body:
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                if not owner.assigns_self_attribute(statement, name):
                    continue
                if index or statement in exempt:
                    return None  # a base's store, or the object's own fluent one
                if statement.name != "__init__":
                    setters.append(statement)
        init = next(
            (
                s
                for s in cls.node.body
                if isinstance(s, ast.FunctionDef) and s.name == "__init__"
            ),
            None,
        )
        if len(setters) != 1 or init is None:
            return None
        setter = setters[0]
        this = set_up.setup_method(setter)
        if this is None or not set_up.stores_first(setter, this, name):
            return None
        for store in module.attribute_stores(name):
            if module.is_within(store, init):
                assign = module.parents.get(store)
                if not (
                    isinstance(assign, ast.Assign)
                    and assign.targets == [store]
                    and isinstance(assign.value, ast.Constant)
                    and assign.value.value is None
                ):
                    return None  # `__init__` stores a value of its own
        if (
            self._subclass_assigning(cls, name) is not None
            or self._assigned_outside(instance, name, exempt) is not None
        ):
            return None
        if not (
            self._runs_first(module, init, setter)
            or (
                at is not None
                and set_up.called_before(module, cls.node, at, setter.name)
            )
        ):
            return None
        frame = Frame(setter, cls.path, ((this, instance),), cls.closure)
        flow = self.flow(module, frame)
        attribute = f"{this}.{name}"
        memo = set_up.memo_returns(setter, this, name)  # it was set already
        ends = [
            e
            for e in (
                flow.end,
                *(flow.before.get(r) for r in flow.returns if r not in memo),
            )
            if e is not None
        ]
        found = [e.get(attribute) for e in ends]
        if not ends or not all(found):
            return Unknown(f"`{setter.name}` may leave `.{name}` unset")
        bindings = frozenset(b for f in found if f for b in f)
        return self._bindings_value(module, attribute, bindings, frame)

    def _runs_first(
        self,
        module: Module,
        init: ast.FunctionDef,
        setter: ast.FunctionDef | ast.AsyncFunctionDef,
    ) -> bool:
        """Whether the setup method `setter` runs before any other use of every object of
        its class and at no other time: `__init__` calls it first, or each construction of the
        class is followed at once by its call (and `__init__` uses the object for nothing
        else); it is called nowhere but there."""
        calls = self.calls_of(module, setter, on_objects=True)
        if isinstance(calls, Unknown):
            return False
        allowed: set[ast.Call] = set()
        if set_up.called_first_in_init(init, setter.name):
            allowed = {
                c.value
                for c in init.body
                if isinstance(c, ast.Expr)
                and isinstance(c.value, ast.Call)
                and isinstance(c.value.func, ast.Attribute)
                and c.value.func.attr == setter.name
            }
        else:
            if set_up.init_uses_object(init):
                return False
            made = self.calls_of(module, init)
            if isinstance(made, Unknown) or not made:
                return False
            for caller, call, _ in made:
                after = set_up.set_up_after(call, caller.parents, setter.name)
                if after is None:
                    return False
                allowed.add(after)
        return bool(calls) and all(call in allowed for _, call, _ in calls)

    def _or_stored_outside(
        self, instance: Instance, name: str, outside: Unknown, chain: list[Class]
    ) -> Value:
        """`.name` of an object whose `__init__` assigns it and code outside its class stores
        it again (sglang-jax's `self.spec_worker = None`, then `runner.spec_worker =
        EAGLEWorker(...)`): one of what `__init__` and every such store give, kept as `OneOf`
        when that is a value or None (which a read under `if x.name is not None:` narrows);
        else `outside`, which names the first store."""
        if self._set_by_setattr(name, instance.cls) is not None:
            return outside
        stored = self._stored_outside(name, instance.cls.path)
        if stored is None:
            return outside
        values = [self._init_assigned(instance, name, chain), *stored]
        if any(isinstance(v, Unknown) for v in values):
            return outside
        rest: list[Value] = []
        for value in values:
            if value is not None and value not in rest:
                rest.append(value)
        if len(rest) != 1 or None not in values:
            return outside
        return OneOf(f"{outside.why}, or None", (rest[0], None))

    def _stored_outside(self, name: str, near: Path) -> list[Value] | None:
        """What every store `x.name = v` of the project that is not a method's store on its
        own first parameter keeps (each `v` where it is written); None where one is not a
        plain assignment of one target, or too many modules hold the word to look."""
        found = self.project.candidate_files(name, near, imported=False)
        if isinstance(found, Unknown):
            return None
        values: list[Value] = []
        for path in (near, *(p for p in found if p != near)):
            module = self.project.module_storing(path, name)
            if module is None:
                continue
            if isinstance(module, Unknown):
                return None
            for store in module.attribute_stores(name):
                if _on_own_first_parameter(module, store):
                    continue
                assign = module.parents.get(store)
                if not (isinstance(assign, ast.Assign) and assign.targets == [store]):
                    return None
                values.append(
                    self.value(module, assign.value, self.frame_at(module, assign))
                )
        return values

    def _init_assigned(
        self, instance: Instance, name: str, chain: list[Class]
    ) -> Value:
        """`self.name = ...` in `__init__` (`_assigned_in_init`), once no other place may
        assign it."""
        for index, klass in enumerate(chain):
            init = next(
                (
                    s
                    for s in klass.node.body
                    if isinstance(s, ast.FunctionDef) and s.name == "__init__"
                ),
                None,
            )
            if init is None:
                continue
            module = self.module(klass.path)
            if isinstance(module, Unknown):
                return module
            params = [*init.args.posonlyargs, *init.args.args]
            if not params:
                return Unknown("an `__init__` without `self`")
            self_name = params[0].arg
            frame = Frame(init, klass.path, None, klass.closure)
            if instance.init is not None and not any(
                _defines(k, "__init__") for k in chain[:index]
            ):
                frame = replace(frame, args=((self_name, instance), *instance.init))
            elif len(params) == 1 and not init.args.kwonlyargs:
                frame = replace(frame, args=((self_name, instance),))
            elif index and not any(_defines(k, "__init__") for k in chain[:index]):
                # an object built where jaxfix does not see, of a subclass adding no
                # `__init__`: the base's arguments as every call building one passes them
                passed = self._subclass_init_args(instance, klass, init)
                if isinstance(passed, Unknown):
                    return Unknown(
                        f"`.{name}` may be set by a base `__init__` with arguments"
                        f" ({passed.why})"
                    )
                frame = replace(frame, args=((self_name, instance), *passed))
            elif index:
                passed = self._base_init_args(instance, chain, index)
                if isinstance(passed, Unknown):
                    return Unknown(
                        f"`.{name}` may be set by a base `__init__` with arguments"
                        f" ({passed.why})"
                    )
                frame = replace(frame, args=passed)
            flow = self.flow(module, frame)
            attribute = f"{self_name}.{name}"
            ends = [
                e
                for e in (flow.end, *(flow.before.get(r) for r in flow.returns))
                if e is not None
            ]
            found = [e.get(attribute) for e in ends]
            if ends and all(found):
                bindings = frozenset(b for f in found if f for b in f)
                value = self._bindings_value(module, attribute, bindings, frame)
                built = instance.origin
                if (
                    isinstance(value, Mesh)
                    and instance.built_in is not None
                    and isinstance(built, ast.Call)
                ):  # built by `__init__`: through the construction's frame
                    return _framed(
                        value, init, klass.path, instance.built_in, built.lineno
                    )
                return value
            if any(found) or not _calls_super_init(init):
                return Unknown(f"`__init__` may leave `.{name}` unset")
        return Unknown(f"`.{name}` is not assigned in `__init__`")

    def _subclass_init_args(
        self, instance: Instance, base: Class, init: ast.FunctionDef
    ) -> tuple[tuple[str, Value], ...] | Unknown:
        """The arguments (self left out) of `base.__init__` as every construction of
        `instance`'s class, a subclass adding no `__init__`, passes them (`_subclass_made`:
        by its name, its class methods' `cls`, passed on or in a registry)."""
        cls = instance.cls
        module = self.module(cls.path)
        if isinstance(module, Unknown):
            return module
        why = Unknown("the arguments of the constructor are not known")
        if len(cls.node.bases) != 1:
            return why
        made = self._subclass_made(
            module, cls.node, cls.node.bases[0], Function(init, base.path), 0
        )
        if not made:
            return why
        params = [*init.args.posonlyargs, *init.args.args][1:] + init.args.kwonlyargs
        values: dict[str, list[Value]] = {p.arg: [] for p in params}
        for caller, call, callee in made:
            assert callee is not None
            bound = self._arguments(caller, call, callee, self.frame_at(caller, call))
            if isinstance(bound, Unknown):
                return bound
            given = dict(bound)
            for param in params:
                values[param.arg].append(
                    given[param.arg] if param.arg in given else Unknown("not passed")
                )
        return tuple(
            (
                param.arg,
                join(
                    values[param.arg],
                    f"the calls building `{cls.node.name}` pass different `{param.arg}`",
                ),
            )
            for param in params
        )

    def _base_init_args(
        self, instance: Instance, chain: list[Class], index: int
    ) -> tuple[tuple[str, Value], ...] | Unknown:
        """The arguments of `chain[index]`'s `__init__` (self included) as the nearest
        subclass defining one passes them: its one `super().__init__(...)`, a statement of
        its body run on every way, evaluated with that subclass's own arguments."""
        below = [j for j in range(index) if _defines(chain[j], "__init__")]
        if not below or instance.init is None:
            return Unknown("the arguments of the constructor are not known")
        j = below[-1]
        sub = chain[j]
        sub_init = next(
            s
            for s in sub.node.body
            if isinstance(s, ast.FunctionDef) and s.name == "__init__"
        )
        base_init = next(
            (
                s
                for s in chain[index].node.body
                if isinstance(s, ast.FunctionDef) and s.name == "__init__"
            ),
            None,
        )
        calls = [
            s.value
            for s in sub_init.body
            if isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Call)
            and _is_super_init(s.value)
        ]
        if (
            base_init is None
            or len(calls) != 1
            or sum(1 for n in ast.walk(sub_init) if _is_super_init(n, bare=False)) != 1
        ):
            return Unknown("not one `super().__init__(...)` run on every way")
        params = [*sub_init.args.posonlyargs, *sub_init.args.args]
        if not params:
            return Unknown("an `__init__` without `self`")
        if len(below) == 1:
            sub_args: tuple[tuple[str, Value], ...] | Unknown = (
                (params[0].arg, instance),
                *instance.init,
            )
        else:
            sub_args = self._base_init_args(instance, chain, j)
        if isinstance(sub_args, Unknown):
            return sub_args
        module = self.module(sub.path)
        if isinstance(module, Unknown):
            return module
        frame = Frame(sub_init, sub.path, sub_args, sub.closure)
        positional, keywords = self._call_arguments(module, calls[0], frame)
        if isinstance(positional, Unknown):
            return positional
        return self.bind(
            Function(base_init, chain[index].path, chain[index].closure),
            [instance, *positional],
            keywords,
        )

    def _subclass_assigning(self, cls: Class, name: str) -> str | None:
        """A class of the module deriving from `cls` (by name) that assigns `self.name`."""
        module = self.module(cls.path)
        if isinstance(module, Unknown) or not module.stores_attribute(name):
            return None
        for node in module.classes:
            if (
                node is not cls.node
                and any(
                    isinstance(b, ast.Name) and b.id == cls.node.name
                    for b in node.bases
                )
                and any(
                    isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and module.assigns_self_attribute(s, name)
                    for s in node.body
                )
            ):
                return node.name
        return None

    def _dataclass_fields(self, cls: Class) -> list[str] | None:
        """A dataclass's (or named tuple's) fields in order, its bases' first, as far as the
        tree shows them (`_all_fields_known` says whether a base outside it may add some)."""
        if not self._is_dataclass(cls):
            return None
        if self.is_named_tuple(cls):
            return _annotated(cls)
        fields: list[str] = []
        for klass in reversed(self._mro(cls)):
            if self._is_dataclass(klass):
                fields += [f for f in _annotated(klass) if f not in fields]
        return fields

    def _init_fields(self, cls: Class) -> list[str] | None:
        """The dataclass's fields when its generated `__init__` builds it: none when a class
        of the chain writes its own `__init__` (kept by `@dataclass`, and equinox's way)."""
        fields = self._dataclass_fields(cls)
        if fields is None or any(_defines(k, "__init__") for k in self._mro(cls)):
            return None
        return fields

    def _all_fields_known(self, cls: Class) -> bool:
        """No base outside the tree (other than ones that bring no fields) may add fields
        before the class's own."""
        if self.is_named_tuple(cls):
            return True
        last = self._mro(cls)[-1]
        module = self.module(last.path)
        if isinstance(module, Unknown):
            return False
        frame = self.frame_at(module, last.node)
        for base in last.node.bases:
            value = self.value(
                module, base.value if isinstance(base, ast.Subscript) else base, frame
            )
            if not (isinstance(value, External) and value.name in _FIELDLESS_BASES):
                return False
        return not last.node.keywords

    def _is_dataclass(self, cls: Class) -> bool:
        module = self.module(cls.path)
        if isinstance(module, Unknown):
            return False
        if self.is_named_tuple(cls):
            return True
        frame = self.frame_at(module, cls.node)
        for decorator in cls.node.decorator_list:
            if self._dataclass_decorator(module, decorator, frame) is not None:
                return True
        return self._module_subclass(cls)

    def _module_subclass(self, cls: Class) -> bool:
        """A subclass of `equinox.Module` (through classes of the tree): a frozen dataclass
        by its metaclass, fields from its annotations."""
        for klass in self._mro(cls):
            module = self.module(klass.path)
            if isinstance(module, Unknown):
                return False
            frame = self.frame_at(module, klass.node)
            for base in klass.node.bases:
                seen = self.value(module, base, frame)
                if isinstance(seen, External) and seen.name in DATACLASS_BASES:
                    return True
        return False

    def is_named_tuple(self, cls: Class) -> bool:
        """`class C(typing.NamedTuple)` (a tuple, and so a pytree whose children are its
        fields)."""
        module = self.module(cls.path)
        if isinstance(module, Unknown) or len(cls.node.bases) != 1:
            return False
        base = self.value(module, cls.node.bases[0], self.frame_at(module, cls.node))
        return isinstance(base, External) and base.name == "typing.NamedTuple"

    def _subscript(self, module: Module, node: ast.Subscript, frame: Frame) -> Value:
        base = self.value(module, node.value, frame)
        if isinstance(node.slice, ast.Slice):
            if node.slice.step is not None:
                if isinstance(base, Devices):  # `devices[::2]`, `devices[1::2][::-1]`
                    lower, upper, step = (
                        self.value(module, b, frame) if b is not None else None
                        for b in (node.slice.lower, node.slice.upper, node.slice.step)
                    )
                    return device_shapes.stepped(base, lower, upper, step)
                return Unknown("a slice with a step")
            bounds = [
                self.value(module, b, frame) if b is not None else None
                for b in (node.slice.lower, node.slice.upper)
            ]
            return vocabulary.sliced(base, bounds[0], bounds[1])
        if isinstance(base, Unknown):
            # an unknown container's item, whatever the key (`vocabulary.item`): not asked
            return vocabulary.item(base, None)
        key = self.value(module, node.slice, frame)
        if isinstance(base, Namespace) and base.mapping:
            base = DictValue(tuple(base.items))  # `config["name"]` of a ConfigDict
        if isinstance(base, Instance):
            # `obj[key]` is `type(obj).__getitem__(obj, key)`, a method of the tree's class
            method = self._class_member(base.cls, "__getitem__")
            if isinstance(method, Function) and method.wrapped_by is None:
                return self.call_function(method, [base, key], {}, node)
        return vocabulary.item(base, key)

    # -- calls ----------------------------------------------------------------------------------

    def _call(self, module: Module, node: ast.Call, frame: Frame) -> Value:
        popped = self._keyword_popped(module, node, frame)
        if popped is not None:
            return popped
        if isinstance(node.func, ast.Attribute):
            receiver = self.value(module, node.func.value, frame)
            if isinstance(receiver, Namespace) and receiver.mapping:
                receiver = DictValue(
                    tuple(receiver.items)
                )  # a ConfigDict's dict methods
            if isinstance(
                receiver,
                (
                    Mesh,
                    DictValue,
                    Devices,
                    Sharding,
                    ListValue,
                    tuple,
                    str,
                    Array,
                    Items,
                ),
            ):
                positional, keywords = self._call_arguments(module, node, frame)
                return vocabulary.method(
                    receiver, node.func.attr, positional, keywords, node
                )
            if node.func.attr == "update" and (
                isinstance(receiver, StructLeaf)
                or (
                    isinstance(receiver, ShapeStruct)
                    and (
                        receiver.sharding is None
                        or isinstance(receiver.sharding, Sharding)
                    )
                )
            ):
                positional, keywords = self._call_arguments(module, node, frame)
                return _struct_updated(receiver, positional, keywords)
            if (
                node.func.attr == "eval_shape"
                and isinstance(receiver, Function)
                and receiver.wrapped_by == "jit"
            ):
                return _jit_eval_shape(receiver)
            if (
                node.func.attr == "replace"
                and isinstance(receiver, Instance)
                and self._struct_class(receiver.cls)
            ):  # flax.struct's own `obj.replace(**changes)`: dataclasses.replace
                positional, keywords = self._call_arguments(module, node, frame)
                if positional:
                    return Unknown("`.replace(...)` given positional arguments")
                return self._replaced([receiver], keywords, node)
            callee = (
                self._super_attribute(module, node.func, frame)
                if _is_bare_super(node.func.value)
                else self.attribute(receiver, node.func.attr, node.func)
            )
        else:
            differentiated = self._differentiated(module, node, frame)
            if differentiated is not None:
                return differentiated
            callee = self.value(module, node.func, frame)
        if isinstance(callee, JaxStage) or (
            isinstance(callee, Unknown) and not isinstance(callee, (Foreign, OneOf))
        ):
            # what the call gives whatever its arguments: they are not evaluated
            return self._call_of(module, node, frame, callee, [], {})
        positional, keywords = self._call_arguments(module, node, frame)
        if isinstance(
            callee, OneOf
        ):  # `f = a if test else b`: a call of each, agreeing
            return _agreed(
                [
                    self._call_of(module, node, frame, option, positional, keywords)
                    for option in callee.options
                    if option is not None  # calling None raises: a call that returns
                ],  # was of another option (`REGISTRY.get(name)()`)
                "the calls of a conditional expression's sides give different values",
            )
        return self._call_of(module, node, frame, callee, positional, keywords)

    def _keyword_popped(
        self, module: Module, node: ast.Call, frame: Frame
    ) -> Value | None:
        """`kwargs.pop("key", default)` on the function's own `**kwargs` (a config's
        `self.flag = kwargs.pop("flag", True)`): the keyword the call gave, else the default;
        None when not such a call (see `_pops_of_keywords`)."""
        func = node.func
        scope = frame.scope
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "pop"
            and isinstance(func.value, ast.Name)
            and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
            and scope.args.kwarg is not None
            and func.value.id == scope.args.kwarg.arg
            and self._pops_of_keywords(module, scope) is not None
        ):
            return None
        given = self._parameter(module, scope.args.kwarg, frame)
        if not isinstance(given, DictValue):
            return Unknown(f"`{func.value.id}` of calls jaxfix does not see all of")
        key = node.args[0]
        assert isinstance(key, ast.Constant) and isinstance(key.value, str)
        if any(k == key.value for k, _ in given.items):
            return given.get(key.value)
        if len(node.args) == 1:
            return Unknown(f"`{func.value.id}.pop` of a key the call may not give")
        return self.value(module, node.args[1], frame)

    def _keywords_left(
        self, module: Module, node: ast.Name, frame: Frame
    ) -> Value | None:
        """The function's own `**kwargs` read after its pops (`super().__init__(**kwargs)`):
        the keywords the call gave less those popped by statements of the body before the
        read, when every pop is a statement of the body itself (not under an `if` or a loop);
        None when `node` is not such a read."""
        scope = frame.scope
        if not (
            isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
            and scope.args.kwarg is not None
            and node.id == scope.args.kwarg.arg
        ):
            return None
        pops = self._pops_of_keywords(module, scope)
        if not pops:
            return None
        statement: ast.AST = node
        while module.parents.get(statement) is not scope:
            statement = module.parents[statement]
        if statement not in scope.body:
            return None  # in a decorator or a default
        place = scope.body.index(statement)
        popped = set()
        for pop in pops:
            top: ast.AST = pop
            while module.parents.get(top) is not scope:
                top = module.parents[top]
            if top not in scope.body or top is statement:
                return Unknown(f"`{node.id}` read where a pop may or may not have run")
            if scope.body.index(top) < place:
                key = pop.args[0]
                assert isinstance(key, ast.Constant)
                popped.add(key.value)
        given = self._parameter(module, scope.args.kwarg, frame)
        if not isinstance(given, DictValue):
            return Unknown(f"`{node.id}` of calls jaxfix does not see all of")
        return DictValue(tuple((k, v) for k, v in given.items if k not in popped))

    def _pops_of_keywords(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[ast.Call] | None:
        """The `kwargs.pop("key"[, default])` calls of the function's own `**kwargs`, when
        every other use of it only reads it, no two pop one key and it is never rebound (the
        dict is the call's own: no pop sees another's, nothing else changes it); else None."""
        kwarg = function.args.kwarg
        assert kwarg is not None
        pops: list[ast.Call] = []
        for n in ast.walk(function):
            if not isinstance(n, ast.Name) or n.id != kwarg.arg:
                continue
            if not isinstance(n.ctx, ast.Load):
                return None  # `kwargs = ...` rebinds it
            call = module.parents.get(module.parents.get(n, n))
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.value is n
                and call.func.attr == "pop"
                and not call.keywords
                and 1 <= len(call.args) <= 2
                and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[0].value, str)
            ):
                pops.append(call)
            elif not reads_only(n, module.parents):
                return None
        keys = [p.args[0].value for p in pops if isinstance(p.args[0], ast.Constant)]
        return pops if len(keys) == len(set(keys)) else None

    def _differentiated(
        self, module: Module, node: ast.Call, frame: Frame
    ) -> Value | None:
        """`jax.value_and_grad(f)(params, ...)`: what `f` returns and the gradients, a tree
        of `params`'s structure whose each array is on its parameter's mesh (`jax.grad(f)`:
        the gradients alone); None for any other call (`has_aux=`, `argnums=`: not these)."""
        made = node.func
        if not isinstance(made, ast.Call) or made.keywords or len(made.args) != 1:
            return None
        if isinstance(made.args[0], ast.Starred):
            return None
        api = self.value(module, made.func, frame)
        if not isinstance(api, External) or api.name not in _DIFFERENTIATE:
            return None
        positional, keywords = self._call_arguments(module, node, frame)
        if not isinstance(positional, list) or not positional:
            return Unknown("gradients of arguments jaxfix cannot bind")
        grads = _cotangents(positional[0], node)
        if not _DIFFERENTIATE[api.name]:
            return grads
        function = self.value(module, made.args[0], frame)
        value = self._call_of(module, node, frame, function, positional, keywords)
        return (value, grads)

    def _call_of(
        self,
        module: Module,
        node: ast.Call,
        frame: Frame,
        callee: Value,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
    ) -> Value:
        """What `node` gives calling `callee` with these arguments."""
        if isinstance(callee, JaxStage):
            return lost_at(JaxStage(f"a call of {callee.why}"), callee)
        if isinstance(callee, Foreign) and not any(
            holds_tree_objects(v)
            for v in (
                *(positional if isinstance(positional, list) else [positional]),
                *(keywords.values() if isinstance(keywords, dict) else [keywords]),
            )
        ):
            return lost_at(Foreign(f"a call of {callee.why}"), callee)
        if isinstance(callee, Unknown):
            return lost_at(
                Unknown(f"a call of something jaxfix does not know ({callee.why})"),
                callee,
            )
        if isinstance(callee, External):
            if callee.bound and isinstance(keywords, dict):
                keywords = {**dict(callee.bound), **keywords}
            if callee.args and isinstance(positional, list):
                positional = [*callee.args, *positional]
            if (
                callee.name == "jax.sharding.get_mesh"
                and positional == []
                and not keywords
            ):
                return self.current_device_mesh(module, node, frame)
            if callee.name in ("jax.sharding.get_abstract_mesh", "jax.eval_shape"):
                current = self.current_mesh(module, node, frame)
                abstract = current.abstract if isinstance(current, Mesh) else current
                if callee.name == "jax.eval_shape":
                    return Structs(abstract)
                return abstract
            if (
                callee.name in _TREE_MAPS | _TREE_MAPS_WITH_PATH
                and isinstance(positional, list)
                and len(positional) >= 2
                and isinstance(keywords, dict)
                and set(keywords) <= {"is_leaf"}
            ):
                is_leaf = keywords.get("is_leaf")
                if is_leaf is not None and not isinstance(is_leaf, Function):
                    return Unknown("jax.tree.map with an is_leaf= jaxfix does not see")
                with_path = callee.name in _TREE_MAPS_WITH_PATH
                mapped = self._tree_map(
                    positional[0],
                    positional[1:],
                    node,
                    with_path=with_path,
                    is_leaf=is_leaf,
                )
                if isinstance(mapped, Unknown) and not isinstance(mapped, Foreign):
                    placed = self._placed_whatever_leaf(
                        positional[0], positional[1:], node, with_path
                    )
                    if placed is not None:
                        return placed
                return mapped
            if (
                callee.name in ("builtins.next", "builtins.iter")
                and isinstance(positional, list)
                and len(positional) == 1
                and isinstance(positional[0], Items)
                and keywords == {}
            ):  # `next(iter(d.values()))`: an item, if any (else StopIteration)
                every = positional[0]
                if callee.name == "builtins.iter":
                    return every
                return every.key if every.mapping else every.item
            if (
                callee.name in ("builtins.next", "builtins.iter")
                and isinstance(positional, list)
                and positional
                and isinstance(positional[0], Yields)
                and keywords == {}
            ):  # `next(gen)`, `next(gen, default)`, `iter(gen)` of a generator of the tree
                if callee.name == "builtins.iter":
                    return (
                        positional[0]
                        if len(positional) == 1
                        else Unknown("iter with a sentinel")
                    )
                return join(
                    [positional[0].value, *positional[1:2]],
                    "next(...) of a generator or its default",
                )
            if (
                callee.name == "builtins.map"
                and isinstance(positional, list)
                and len(positional) >= 2
                and keywords == {}
            ):
                return self._mapped(module, node, frame, positional[0], positional[1:])
            if callee.name in _TREE_LEAVES:
                leaves = (
                    _tree_leaves(positional[0])
                    if isinstance(positional, list)
                    and len(positional) == 1
                    and keywords == {}
                    else None
                )
                if leaves is None:
                    return Unknown(
                        "jax.tree.leaves of a tree jaxfix does not spell out"
                    )
                return ListValue(leaves)
            if callee.name == "builtins.isinstance":
                return self._isinstance(positional, keywords)
            if callee.name in ("builtins.hasattr", "builtins.getattr"):
                return self._hasattr(callee.name, positional, keywords, node)
            if callee.name == "types.SimpleNamespace":
                if isinstance(keywords, Unknown):
                    return keywords
                if positional:
                    return Unknown("a SimpleNamespace given a mapping")
                return Namespace(tuple(keywords.items()))
            if callee.name in _CONFIG_DICTS:
                return _config_dict(positional, keywords)
            if (
                callee.name in _CONFIG_DICT_CREATE
            ):  # `create(**kwargs)`: ConfigDict(kwargs)
                if isinstance(keywords, Unknown) or positional:
                    return Unknown(f"`{callee.name}` given other than keywords")
                return Namespace(tuple(keywords.items()), mapping=True)
            if callee.name == "dataclasses.replace":
                return self._replaced(positional, keywords, node)
            if callee.name == "dataclasses.asdict":
                if isinstance(positional, Unknown) or keywords or len(positional) != 1:
                    return Unknown("dataclasses.asdict given other than one object")
                return self._as_dict(positional[0], node)
            if callee.name == "builtins.property":
                return _property_of(positional, keywords)
            host = self._host_read(callee, positional, keywords)
            if host is not None:
                return host
            loaded = _loaded_from_file(callee, positional)
            if loaded is not None:
                return loaded
            if (
                api_of_name(callee.name) is Api.JIT
                and isinstance(positional, list)
                and len(positional) == 1
                and isinstance(positional[0], Instance)
            ):  # `jax.jit(obj)` of an object of the tree: JAX traces its `__call__`
                method = self.attribute(positional[0], "__call__", node)
                if not isinstance(method, BoundMethod):
                    why = method.why if isinstance(method, Unknown) else "no method"
                    return Unknown(f"jax.jit of an object whose `__call__` is {why}")
                positional = [method]
            return vocabulary.call(callee, positional, keywords, node, self.jax_version)
        if isinstance(callee, Function):
            return _returned_through(
                self.call_function(callee, positional, keywords, node),
                callee,
                module.path,
                node,
            )
        if isinstance(callee, BoundMethod):
            with_receiver: list[Value] | Unknown = (
                [callee.receiver, *positional]
                if isinstance(positional, list)
                else positional
            )
            result = self.call_function(callee.function, with_receiver, keywords, node)
            if isinstance(result, Instance) and result == callee.receiver:
                return self._after_fluent(callee, result, with_receiver, keywords, node)
            return _returned_through(result, callee.function, module.path, node)
        if isinstance(callee, Class):
            made = self._construct(callee, positional, keywords, node)
            if isinstance(made, Instance) and made.origin is node:
                return replace(made, built_in=module.path)
            return made
        if isinstance(callee, Instance):  # `spec(tree)`: the class's `__call__`
            method = self.attribute(callee, "__call__", node)
            if isinstance(method, BoundMethod):
                return self._call_of(module, node, frame, method, positional, keywords)
            if isinstance(method, Unknown):
                return lost_at(Unknown(f"a call of an object: {method.why}"), method)
            return Unknown("a call of an object whose `__call__` jaxfix cannot follow")
        return Unknown("a call of a value that is not a function")

    def _after_fluent(
        self,
        method: BoundMethod,
        instance: Instance,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
        call: ast.AST,
    ) -> Instance:
        """The object a method returning it gives (`LlamaForCausalLM(...).shard_model()`):
        a method setting the keywords it is given (`configured.keyword_setter`) gives it with
        those;
        with the attributes the method's body stores on it (`self.params = ...`, statements of
        the body itself, evaluated in the call's frame), where this call is the method's
        only one in the project; else the object as it was (its attributes the method
        stores stay Unknown)."""
        function = method.function
        node = function.node
        module = self.module(function.path)
        if (
            not isinstance(node, ast.FunctionDef)
            or not node.args.args
            or isinstance(module, Unknown)
        ):
            return instance
        if configured.keyword_setter(node):
            # `cfg.set(mesh_shape=(2, 4))`: each keyword, set by this call
            if not isinstance(keywords, dict) or positional != [instance]:
                return instance
            given = tuple((key, value, call) for key, value in keywords.items())
            return replace(instance, stored=instance.stored + given)
        me = node.args.args[0].arg
        stores: list[tuple[str, ast.expr]] = []
        for statement in node.body:
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(target := statement.targets[0], ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == me
            ):
                stores.append((target.attr, statement.value))
        if not stores or len(stores) != sum(
            1
            for n in ast.walk(node)
            if isinstance(n, ast.Attribute)
            and isinstance(n.ctx, ast.Store)
            and isinstance(n.value, ast.Name)
            and n.value.id == me
        ):
            return instance  # a store in a branch or a loop, or on something else
        calls = self.calls_of(module, node, on_objects=True)
        if isinstance(calls, Unknown) or [c for _, c, _ in calls] != [call]:
            return instance
        if not isinstance(positional, list):
            return instance
        # the body reads the attributes as they were before it ran
        exempt = frozenset({node, *(m for _, _, m in instance.stored)})
        before = replace(
            instance,
            stored=instance.stored
            + tuple(
                (name, self._value_before(instance, name, exempt), node)
                for name, _ in stores
            ),
        )
        args = self.bind(function, [before, *positional[1:]], keywords)
        if isinstance(args, Unknown):
            return instance
        frame = Frame(node, function.path, args, function.closure)
        stored = tuple(
            (name, self.value(module, value, frame), node) for name, value in stores
        )
        return replace(instance, stored=instance.stored + stored)

    def _value_before(
        self, instance: Instance, name: str, exempt: frozenset[ast.AST]
    ) -> Value:
        """`.name` of the object before a method of `exempt` stores it again."""
        after = [value for key, value, _ in instance.stored if key == name]
        if after:
            return self._assigned_elsewhere(instance, name, exempt) or after[-1]
        return self._assigned_in_init(instance, name, exempt)

    def _mapped(
        self,
        module: Module,
        node: ast.Call,
        frame: Frame,
        function: Value,
        iterables: list[Value],
    ) -> Value:
        """`map(function, *iterables)` over items the code spells out: the value of each call,
        in order (what `tuple(...)`, `list(...)` or a loop reads of it)."""
        columns = [_items(v) for v in iterables]
        if any(c is None for c in columns):
            cause = next((v for v in iterables if isinstance(v, Unknown)), None)
            if cause is not None:
                return lost_at(Unknown(lambda: f"`map` over {cause.why}"), cause)
            return Unknown("`map` over values jaxfix does not spell out")
        return tuple(
            self._call_of(module, node, frame, function, list(arguments), {})
            for arguments in zip(*(c for c in columns if c is not None))
        )

    def _isinstance(
        self,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
    ) -> Value:
        """`isinstance(value, C)` for classes of the tree (or a tuple of them): True for an
        object of C or of a subclass of it; False for an object whose every base jaxfix sees
        (none is C) and for data no class of the tree makes (literals, lists, dicts, JAX
        values); Unknown otherwise."""
        if isinstance(positional, Unknown) or keywords != {} or len(positional) != 2:
            return Unknown("isinstance with arguments jaxfix cannot spell out")
        value, classes = positional
        options = _items(classes) if isinstance(classes, tuple) else (classes,)
        if not options or not all(
            isinstance(c, Class)
            or (
                isinstance(c, External)
                and not c.args
                and not c.bound
                and (c.name in _BUILTIN_CLASSES or api_of_name(c.name) in _JAX_CLASSES)
            )
            for c in options
        ):
            return Unknown("isinstance of a class from outside the tree")
        verdicts = {
            self._is_instance(value, c)
            if isinstance(c, Class)
            else _is_builtin_instance(value, _BUILTIN_CLASSES[c.name])
            if c.name in _BUILTIN_CLASSES
            else _is_jax_instance(value, _JAX_CLASSES[api_of_name(c.name)])
            for c in options
            if isinstance(c, (Class, External))
        }
        if True in verdicts:
            return True
        if verdicts == {False}:
            return False
        return Unknown("isinstance of a value whose class jaxfix cannot tell")

    def _hasattr(
        self,
        which: str,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
        node: ast.AST,
    ) -> Value:
        """`hasattr(x, "name")`, and `getattr(x, "name"[, default])` by it: decided for an
        object of a class of the tree whose attributes jaxfix sees all of, for the JAX values
        it knows (jax_attributes.py) and for Python's literals, lists and dicts."""
        if isinstance(positional, Unknown):
            return positional
        if keywords != {} or not 2 <= len(positional) <= (3 if "get" in which else 2):
            return Unknown(
                f"{which.split('.')[1]} with arguments jaxfix cannot spell out"
            )
        value, name = positional[0], positional[1]
        if not isinstance(name, str):
            return Unknown("an attribute name jaxfix does not know")
        has = self._has_attribute(value, name)
        if which == "builtins.hasattr":
            if has is None:
                return lost_at(
                    Unknown(f"whether the object has `.{name}`"),
                    value if isinstance(value, Unknown) else Unknown(""),
                )
            return has
        if has is False and len(positional) == 3:
            return positional[2]
        if has is None and len(positional) == 3:
            return Unknown(f"whether the object has `.{name}` (getattr's default)")
        return self.attribute(value, name, node)

    def _has_attribute(self, value: Value, name: str) -> bool | None:
        if isinstance(value, Instance):
            return self._instance_has(value, name)
        kind = _JAX_KIND.get(type(value))
        if isinstance(value, Mesh):
            kind = (
                "jax.sharding.AbstractMesh"
                if value.kind is MeshKind.ABSTRACT
                else "jax.sharding.Mesh"
            )
        if kind is not None:
            return jax_attributes.has_attribute(kind, name)
        python = {ListValue: list, DictValue: dict}.get(type(value)) or (
            type(value)
            if value is None or type(value) in (bool, int, float, str, tuple)
            else None
        )
        if python is not None and not name.startswith("__"):
            return hasattr(python, name)
        return None

    def plain_attribute(self, module: Module, node: ast.Attribute) -> bool:
        """Whether `obj.name` is read from where it is kept, without running code: `obj` a
        module of the tree with no `__getattr__`, or an object (or class) of a class of the
        tree (`self` of a method of one) whose classes, all seen (a base outside the tree
        only `object` and the like), define no `__getattr__`/`__getattribute__` and bind
        `name` to no method, property or object whose class defines `__get__`; where the
        object may be of a subclass, no class of a module holding the word binds `name` to
        a function or a call's result, and no module defines `__getattribute__`."""
        frame = self.frame_at(module, node)
        owner = self.value(module, node.value, frame)
        if isinstance(owner, ModuleValue):
            held = self.module(owner.path) if owner.path is not None else None
            return isinstance(held, Module) and not any(
                isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                and s.name in ("__getattr__", "__getattribute__")
                for s in held.tree.body
            )
        exact = isinstance(owner, Instance) and owner.init is not None
        cls = (
            owner.cls
            if isinstance(owner, Instance)
            else owner
            if isinstance(owner, Class)
            else self._class_of_self(module, node.value)
        )
        if cls is None:
            return False
        chain = self._mro(cls)
        if not self._every_base_seen(chain, bare=True) or any(
            _defines(k, m) for k in chain for m in ("__getattr__", "__getattribute__")
        ):
            return False
        member = self._class_member(cls, node.attr)
        if isinstance(member, Instance):
            kept = self._mro(member.cls)
            if not self._every_base_seen(kept, bare=True) or any(
                _defines(k, "__get__") for k in kept
            ):
                return False
        elif not isinstance(member, (NotDefined, Mesh, Class)) and not (
            member is None or type(member) in (bool, int, float, str, tuple)
        ):
            return False
        return exact or self._no_subclass_computes(cls, node.attr)

    def _class_of_self(self, module: Module, base: ast.expr) -> Class | None:
        """The class of the tree whose method takes `base` (a name) as its first
        parameter, where every binding reaching the read is that parameter."""
        if not isinstance(base, ast.Name):
            return None
        bindings = self.reaching(module, base)
        method = module.scope_of(base)
        klass = module.parents.get(method)
        if not (
            bindings
            and isinstance(method, ast.FunctionDef)
            and isinstance(klass, ast.ClassDef)
            and not method.decorator_list
            and [*method.args.posonlyargs, *method.args.args][:1]
            and [*method.args.posonlyargs, *method.args.args][0].arg == base.id
            and all(b.kind == "param" for b in bindings)
        ):
            return None
        return Class(klass, module.path, self.frame_at(module, klass))

    def _no_subclass_computes(self, cls: Class, name: str) -> bool:
        """Whether no class of a module that may subclass `cls` (its own, and those holding
        its name and its module's) binds `name` to a function (a property, a method) or to
        a call's result (a descriptor), or defines `__getattr__`/`__getattribute__`: a
        subclass jaxfix did not follow reads it plainly."""
        found = self.project.candidate_files(cls.node.name, cls.path)
        if isinstance(found, Unknown):
            return False
        for path in {cls.path, *found}:
            held = self.module(path)
            if isinstance(held, Unknown):
                return False
            for klass in ast.walk(held.tree):
                if isinstance(klass, ast.ClassDef) and any(
                    _computes(statement, word)
                    for statement in klass.body
                    for word in (name, "__getattr__", "__getattribute__")
                ):
                    return False
        return True

    def _instance_has(self, instance: Instance, name: str) -> bool | None:
        """True when the class (or a base of the tree) defines `name`, has it as a field or
        sets it in `__init__`; False when jaxfix sees every base, none defines it, no class
        of the chain answers attributes itself (`__getattr__`), the object was built where
        jaxfix saw it (not a subclass's `self`), and no module of the project stores
        `.name` on anything or calls `setattr`."""
        fields = self._init_fields(instance.cls)
        if fields is not None and name in fields:
            return True
        member = self._class_member(instance.cls, name)
        if not isinstance(member, Unknown):
            return True
        if not isinstance(member, NotDefined):
            return None
        if not isinstance(self._assigned_in_init(instance, name), Unknown):
            return True
        chain = self._mro(instance.cls)
        if instance.init is None or not self._every_base_seen(chain, bare=True):
            return (
                None  # a subclass's `self`, or a base jaxfix cannot read, may have it
            )
        if any(
            _defines(k, m) for k in chain for m in ("__getattr__", "__getattribute__")
        ):
            return None
        for word, near in ((name, instance.cls.path), ("setattr", instance.cls.path)):
            found = self.project.candidate_files(word, near, imported=False)
            if isinstance(found, Unknown):
                return None
            for path in (near, *found):
                module = self.module(path)
                if isinstance(module, Unknown):
                    return None
                if word == name and module.stores_attribute(name):
                    return None
                if word == "setattr" and any(
                    isinstance(c.func, ast.Name) and c.func.id == "setattr"
                    for c in module.calls
                ):
                    return None
        return False

    def _property_set_by(
        self,
        module: Module,
        klass: Class,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
    ) -> str | None:
        """The property whose setter `function` is, when nothing else can call it:
        `@x.setter def x(self, v)`, or `def _set(self, v)` whose one use in the project is
        `x = property(getter, _set)` in the class body; else None."""
        if _is_setter(function):
            return function.name
        if function.decorator_list:
            return None
        others = self.project.candidate_files(
            function.name, module.path, imported=False
        )
        if isinstance(others, Unknown) or any(p != module.path for p in others):
            return None
        uses = module.loads_by_name.get(function.name, ())
        if len(uses) != 1:
            return None
        call = module.parents.get(uses[0])
        statement = module.parents.get(call) if call is not None else None
        if not (
            isinstance(uses[0], ast.Name)
            and isinstance(call, ast.Call)
            and len(call.args) == 2
            and call.args[1] is uses[0]
            and isinstance(statement, ast.Assign)
            and statement in klass.node.body
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            return None
        made = self.value(
            module, call, Frame(klass.node, klass.path, (), klass.closure)
        )
        if not (isinstance(made, Function) and made.wrapped_by == _SETTABLE):
            return None
        return statement.targets[0].id

    def _memo_kept(self, module: Module, getter: ast.FunctionDef, name: str) -> bool:
        """Whether `.name`, filled by the memoizing method `getter`, is stored nowhere else in
        the project but as `self.name = None` in its class's `__init__` (no `setattr`)."""
        cls = module.parents.get(getter)
        if not isinstance(cls, ast.ClassDef):
            return False
        init = next(
            (
                s
                for s in cls.body
                if isinstance(s, ast.FunctionDef) and s.name == "__init__"
            ),
            None,
        )
        for word in (name, "setattr"):
            found = self.project.candidate_files(word, module.path, imported=False)
            if isinstance(found, Unknown):
                return False
            for path in {module.path, *found}:
                other = self.module(path)
                if isinstance(other, Unknown):
                    return False
                if word == "setattr":
                    if any(
                        isinstance(c.func, ast.Name) and c.func.id == "setattr"
                        for c in other.calls
                    ):
                        return False
                    continue
                for store in other.attribute_stores(name):
                    if other is module and module.is_within(store, getter):
                        continue
                    assign = module.parents.get(store) if other is module else None
                    if not (
                        init is not None
                        and module.is_within(store, init)
                        and isinstance(assign, ast.Assign)
                        and assign.targets == [store]
                        and isinstance(assign.value, ast.Constant)
                        and assign.value.value is None
                    ):
                        return False
        return True

    def _stored_outside_methods(
        self,
        name: str,
        near: Path,
        cls: Class | None = None,
        exempt: frozenset[ast.AST] = frozenset(),
    ) -> Unknown | None:
        """Unknown naming the first store `x.name = ...` of the project that is not a method's
        store on its own first parameter: an object's attribute set from outside its class
        (`device_mesh.backend_mesh = jax.make_mesh(...)` after building it), so the value its
        constructor made may not be the one read; None when there is none. Asked for the
        objects of `cls`, a store on an object of a class unrelated to it is left out, and so
        is a statement of `exempt` (the object's own store, already in its value)."""
        found = self.project.candidate_files(name, near, imported=False)
        if isinstance(found, Unknown):
            # too many modules hold the word to parse each: not looked for (a known limit,
            # docs/design.md), as before this check
            return None
        for path in (near, *(p for p in found if p != near)):
            module = self.project.module_storing(path, name)
            if (
                module is None
            ):  # stores no `.name` (the run's summary, or its code says)
                continue
            if isinstance(module, Unknown):
                return module
            for store in module.attribute_stores(name):
                if _on_own_first_parameter(module, store):
                    continue
                if module.parents.get(store) in exempt or (
                    cls is not None
                    and isinstance(store, ast.Attribute)
                    and self._of_other_class(module, store.value, cls)
                ):
                    continue
                return Unknown(
                    f"`.{name}` is also stored from outside its class, at "
                    f"{path.name}:{module.line(store)}"
                )
        return None

    def _of_other_class(self, module: Module, receiver: ast.expr, cls: Class) -> bool:
        """Whether `receiver` (where it is written) surely is an object of a class of the
        tree that neither is nor derives from `cls`, nor `cls` from it (every base of both
        seen): a store or a method's call on it does not reach an object of `cls`."""
        value = self.value(module, receiver, self.frame_at(module, receiver))
        if not isinstance(value, Instance):
            return False
        theirs, ours = self._mro(value.cls), self._mro(cls)
        return (
            self._every_base_seen(theirs)
            and self._every_base_seen(ours)
            and all(k.node is not cls.node for k in theirs)
            and all(k.node is not value.cls.node for k in ours)
        )

    def _stored_on(self, name: str, cls: Class) -> Unknown | None:
        """None when no store of `.name` and no `setattr` of the project may set it on an
        object of `cls`; else Unknown naming the first that may. A method's store on its own
        first parameter (`self.mesh = config.mesh`) in a class `cls` neither is nor derives
        from (every base of `cls` seen) sets only that class's objects."""
        chain = self._mro(cls)
        alone = self._every_base_seen(chain)
        found = self.project.candidate_files(name, cls.path, imported=False)
        if isinstance(found, Unknown):
            return found
        for path in (cls.path, *(p for p in found if p != cls.path)):
            module = self.project.module_storing(path, name)
            if module is None:  # no such store (as the run's summary says)
                continue
            if isinstance(module, Unknown):
                return module
            for store in module.attribute_stores(name):
                owner = module.parents.get(module.scope_of(store) or store)
                if (
                    alone
                    and _on_own_first_parameter(module, store)
                    and all(k.node is not owner for k in chain)
                ):
                    continue
                return Unknown(
                    f"`.{name}` is stored at {path.name}:{module.line(store)}"
                )
        return self._set_by_setattr(name, cls)

    def _attribute_store(self, name: str, near: Path) -> Unknown | None:
        """None when no module of the project stores `.name` on anything or calls
        `setattr`; else Unknown naming the first such place."""
        for word in (name, "setattr"):
            found = self.project.candidate_files(word, near, imported=False)
            if isinstance(found, Unknown):
                return found
            for path in (near, *(p for p in found if p != near)):
                module = (
                    self.project.module_storing(path, name)
                    if word == name
                    else self.project.module_loading(path, word)
                )
                if module is None:  # no such store or call (as the run's summary says)
                    continue
                if isinstance(module, Unknown):
                    return module
                places: list[ast.AST] = []
                if word == name:
                    places = list(module.attribute_stores(name))
                else:
                    places = [
                        c
                        for c in module.calls
                        if isinstance(c.func, ast.Name) and c.func.id == "setattr"
                    ]
                if places:
                    what = (
                        f"`.{name}` is stored"
                        if word == name
                        else "`setattr` is called"
                    )
                    return Unknown(f"{what} at {path.name}:{module.line(places[0])}")
        return None

    def _is_instance(self, value: Value, cls: Class) -> bool | None:
        if isinstance(value, Instance):
            chain = self._mro(value.cls)
            if any(k.node is cls.node for k in chain):
                return True
            return False if self._every_base_seen(chain) else None
        if value is None or isinstance(
            value,
            (bool, int, float, str, tuple, ListValue, DictValue, Mesh, Spec, Sharding)
            + (ShapeStruct, Array, MeshContext),
        ):
            return False
        return None

    def _every_base_seen(self, chain: list[Class], bare: bool = False) -> bool:
        """Every base of the chain's classes is in the chain or outside the tree (with
        `bare`: one that brings no attributes, `object`)."""
        for klass in chain:
            module = self.module(klass.path)
            if isinstance(module, Unknown):
                return False
            frame = self.frame_at(module, klass.node)
            for base in klass.node.bases:
                seen = self.value(
                    module,
                    base.value if isinstance(base, ast.Subscript) else base,
                    frame,
                )
                if isinstance(seen, Class) and any(k.node is seen.node for k in chain):
                    continue
                if not isinstance(seen, External) or (
                    bare and seen.name not in _FIELDLESS_BASES
                ):
                    return False
        return True

    def _replaced(
        self,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
        node: ast.Call,
    ) -> Value:
        """`dataclasses.replace(obj, **changes)`: a new object of obj's dataclass whose fields
        are obj's, but those given. Known when obj's fields are (jaxfix saw it built) and every
        change names a field of the class."""
        if isinstance(positional, Unknown):
            return positional
        if isinstance(keywords, Unknown):
            return keywords
        if len(positional) != 1:
            return Unknown("dataclasses.replace given other than one object")
        obj = positional[0]
        if isinstance(obj, Unknown):
            return lost_at(Unknown(f"dataclasses.replace of {obj.why}"), obj)
        if not isinstance(obj, Instance) or self.is_named_tuple(obj.cls):
            return Unknown("dataclasses.replace of something not a dataclass object")
        fields = self._dataclass_fields(obj.cls)
        if fields is None or obj.init is None:
            return Unknown(
                "dataclasses.replace of an object whose fields jaxfix did not see given"
            )
        if not set(keywords) <= set(fields):
            return Unknown("dataclasses.replace of a field the class does not show")
        return Instance(obj.cls, tuple((dict(obj.init) | keywords).items()), node)

    def _as_dict(self, obj: Value, node: ast.Call) -> Value:
        """`dataclasses.asdict(obj)` (flax's `TrainConfig(**dataclasses.asdict(config))`): a
        dict of obj's fields in their order, each as the object's attribute reads, nested
        dataclass objects in tuples, lists and dicts made dicts too. Known where the class
        shows every field and no `__post_init__` may change them."""
        if isinstance(obj, (tuple, ListValue)):
            items = obj if isinstance(obj, tuple) else obj.items
            made = [self._as_dict(item, node) for item in items]
            return tuple(made) if isinstance(obj, tuple) else ListValue(tuple(made))
        if isinstance(obj, DictValue):
            return DictValue(tuple((k, self._as_dict(v, node)) for k, v in obj.items))
        if not isinstance(obj, Instance):
            return obj
        fields = self._dataclass_fields(obj.cls)
        if fields is None or self.is_named_tuple(obj.cls):
            return obj  # an object not a dataclass's: asdict copies it
        if not self._all_fields_known(obj.cls) or any(
            _defines(k, "__post_init__") for k in self._mro(obj.cls)
        ):
            return Unknown(
                "dataclasses.asdict of an object whose fields jaxfix may not see"
            )
        return DictValue(
            tuple(
                (f, self._as_dict(self.attribute(obj, f, node), node)) for f in fields
            )
        )

    def _tree_map(
        self,
        function: Value,
        trees: list[Value],
        node: ast.Call,
        *,
        with_path: bool = False,
        is_leaf: Function | None = None,
    ) -> Value:
        """`jax.tree.map(function, *trees)`: over tuples, lists and dicts the code spells out,
        the same containers of what `function` gives each leaf (None, an empty subtree, stays
        None); over trees whose every leaf is one value (`Leaves`, `Items` of leaves) or a
        struct of `jax.eval_shape`'s result, `Leaves` of what `function` gives, when it gives one value
        whatever leaf it is given. The other trees must have the first's structure, or be
        such `Leaves`; anything else (an object of the tree, which may be a registered node)
        is not spelled out. `with_path` (`jax.tree.map_with_path`): the function is given each
        leaf's key path first, which jaxfix does not spell out."""
        if not isinstance(function, Function):
            return Unknown("jax.tree.map of a function jaxfix does not see")
        first = trees[0]
        if is_leaf is not None:  # asked of each node of the first tree, None too
            verdict = self.call_function(is_leaf, [first], {}, node)
            if verdict is True:
                if any(isinstance(t, (Leaves, Structs, Foreign)) for t in trees[1:]):
                    return Unknown(
                        "jax.tree.map with is_leaf= over a tree jaxfix does not spell out"
                    )
                given = (
                    [Foreign("a leaf's key path"), *trees] if with_path else list(trees)
                )
                return self.call_function(function, given, {}, node)
            if verdict is not False:
                return Unknown(
                    "jax.tree.map with an is_leaf= whose answer jaxfix cannot tell"
                )
        if first is None:
            return None
        items = _items(first) if isinstance(first, (tuple, ListValue)) else None
        if isinstance(first, DictValue):
            items = tuple(v for _, v in first.items)
        if items is not None:
            columns: list[list[Value]] = [[] for _ in items]
            for tree in trees:
                if isinstance(tree, Leaves):
                    for column in columns:
                        column.append(tree)
                    continue
                if type(tree) is not type(first):
                    return Unknown("jax.tree.map over trees of other structures")
                if isinstance(tree, DictValue) and isinstance(first, DictValue):
                    keys = [k for k, _ in first.items]
                    if len(tree.items) != len(keys) or not all(
                        same(k, key) for (k, _), key in zip(tree.items, keys)
                    ):
                        return Unknown("jax.tree.map over dicts of other keys")
                    values = tuple(v for _, v in tree.items)
                else:
                    values = _items(tree) or ()
                if len(values) != len(items):
                    return Unknown("jax.tree.map over trees of other lengths")
                for column, item in zip(columns, values):
                    column.append(item)
            mapped = tuple(
                self._subtree_mapped(function, column, node, with_path, is_leaf)
                for column in columns
            )
            if isinstance(first, DictValue):
                return DictValue(
                    tuple((k, v) for (k, _), v in zip(first.items, mapped))
                )
            return ListValue(mapped) if isinstance(first, ListValue) else mapped
        leaves: list[Value] = []
        spread = False  # a tree of leaves jaxfix does not spell out
        for tree in trees:
            if isinstance(tree, Leaves):
                leaves.append(tree.leaf)
                spread = True
            elif isinstance(tree, Structs):
                leaves.append(StructLeaf("a leaf of what jax.eval_shape returns"))
                spread = True
            elif isinstance(tree, Items) and isinstance(
                tree.item, (ShapeStruct, Array, Sharding, Spec)
            ):  # a comprehension's items, each a leaf (maybe none)
                leaves.append(tree.item)
                spread = True
            elif isinstance(tree, Foreign) and not isinstance(tree, JaxStage):
                leaves.append(Foreign("a leaf of an object made outside the tree"))
                spread = True
            elif isinstance(
                tree, (ShapeStruct, Array, Sharding, Spec, int, float, str)
            ):
                leaves.append(tree)  # a leaf
            elif spread and _tree_leaves(tree):
                # `jax.tree.map(f, abstract_state, shardings)`: a tree spelled out beside
                # eval_shape's structs has their structure; each leaf of it is given with
                # one of theirs
                spelled = _tree_leaves(tree)
                assert spelled is not None
                leaves.append(_one_leaf(spelled, "the leaves of a mapped tree differ"))
            else:
                return Unknown("jax.tree.map over a tree jaxfix does not spell out")
        if with_path:
            leaves.insert(0, Foreign("a leaf's key path"))
        leaf = self.call_function(function, leaves, {}, node)
        if not spread:
            return leaf
        if isinstance(first, Items) and not isinstance(leaf, Unknown):
            # the comprehension's collection, each item mapped (none, maybe)
            return Items(leaf, first.key, first.mapping)
        # A leaf jaxfix does not know stays a tree of such leaves: what `function` may give
        # (a subtree too), mapped again, is what the next function gives for any value.
        return Leaves(leaf)

    def _subtree_mapped(
        self,
        function: Value,
        trees: list[Value],
        node: ast.Call,
        with_path: bool,
        is_leaf: Function | None,
    ) -> Value:
        """One subtree of `jax.tree.map`: mapped where jaxfix spells it out, else, for a
        subtree jaxfix does not know at all, `Leaves` of what `function` gives whatever the
        leaf, when that is known (as for a whole tree). Not for an object of the tree, which
        may be a registered node with no leaf."""
        mapped = self._tree_map(
            function, trees, node, with_path=with_path, is_leaf=is_leaf
        )
        if (
            isinstance(mapped, Unknown)
            and not isinstance(mapped, Foreign)
            and all(isinstance(t, (Unknown, Leaves)) for t in trees)
        ):
            placed = self._placed_whatever_leaf(function, trees, node, with_path)
            if placed is not None:
                return placed
        return mapped

    def _placed_whatever_leaf(
        self, function: Value, trees: list[Value], node: ast.Call, with_path: bool
    ) -> Leaves | None:
        """`jax.tree.map(f, *trees)` over trees jaxfix does not spell out, where `f` gives, for
        any leaf, a sharding, struct or array on one mesh jaxfix knows
        (`lambda spec: NamedSharding(mesh, spec)`): whatever the trees and `is_leaf`, every
        leaf of the result is such a value; `Leaves` of it (a tree given as `Leaves` passes
        its leaf)."""
        if not isinstance(function, Function):
            return None
        given: list[Value] = [
            t.leaf
            if isinstance(t, Leaves)
            else Unknown("a leaf jaxfix does not spell out")
            for t in trees
        ]
        if with_path:
            given.insert(0, Foreign("a leaf's key path"))
        leaf = self.call_function(function, given, {}, node)
        sharding = leaf.sharding if isinstance(leaf, (ShapeStruct, Array)) else leaf
        if isinstance(sharding, Sharding) and isinstance(sharding.mesh, Mesh):
            return Leaves(leaf)
        return None

    def _call_arguments(
        self,
        module: Module,
        node: ast.Call,
        frame: Frame,
        only: Callable[[int | str], bool] | None = None,
    ) -> tuple[list[Value] | Unknown, dict[str, Value] | Unknown]:
        """The call's positional and keyword arguments; with `only` (where each argument
        goes is spelled out), those it rejects (by position or keyword) left unevaluated."""
        positional: list[Value] | Unknown = []
        for index, arg in enumerate(node.args):
            if isinstance(positional, Unknown):
                break
            if only is not None and not only(index):
                positional.append(Unknown("an argument not asked about"))
            elif isinstance(arg, ast.Starred):
                items = _items(self.value(module, arg.value, frame))
                if items is None:
                    positional = Unknown("`*args` jaxfix cannot spell out")
                else:
                    positional.extend(items)
            else:
                positional.append(self.value(module, arg, frame))
        keywords: dict[str, Value] | Unknown = {}
        for keyword in node.keywords:
            if isinstance(keywords, Unknown):
                break
            if keyword.arg is None:
                spliced = self.value(module, keyword.value, frame)
                if isinstance(spliced, DictValue) and all(
                    isinstance(k, str) for k, _ in spliced.items
                ):
                    keywords.update((str(k), v) for k, v in spliced.items)
                else:
                    keywords = Unknown("`**kwargs` jaxfix cannot spell out")
            elif only is not None and not only(keyword.arg):
                keywords[keyword.arg] = Unknown("an argument not asked about")
            else:
                keywords[keyword.arg] = self.value(module, keyword.value, frame)
        return positional, keywords

    def arguments(
        self, module: Module, call: ast.Call, callee: Function, frame: Frame
    ) -> tuple[tuple[str, Value], ...] | Unknown:
        """The callee's parameters bound to the arguments of `call`, evaluated in `frame`."""
        return self._arguments(module, call, callee, frame)

    def _arguments(
        self,
        module: Module,
        call: ast.Call,
        callee: Function,
        frame: Frame,
        wanted: str | None = None,
    ) -> tuple[tuple[str, Value], ...] | Unknown:
        """The callee's parameters bound to the call's arguments. `wanted`: only that
        parameter's argument is evaluated (the others are placeholders), where the call
        spells out where each argument goes (no `*args`, no `**kwargs`): a question about
        one parameter does not ask about the others (which may lead back to it)."""
        receives = self._receives(callee)
        only: Callable[[int | str], bool] | None = None
        if (
            wanted is not None
            and not any(isinstance(a, ast.Starred) for a in call.args)
            and all(k.arg is not None for k in call.keywords)
        ):
            a = callee.node.args
            params = [p.arg for p in (*a.posonlyargs, *a.args)]
            shift = 1 if receives else 0

            def only(place: int | str) -> bool:
                if isinstance(place, str):
                    return place == wanted
                index = place + shift
                return index >= len(params) or params[index] == wanted

        positional, keywords = self._call_arguments(module, call, frame, only)
        if receives:
            receiver: Value = Unknown("the object a method is called on")
            if isinstance(call.func, ast.Attribute):
                receiver = self.value(module, call.func.value, frame)
            elif callee.node.name == "__call__":  # type: ignore[union-attr]  # a def: a method
                receiver = self.value(module, call.func, frame)  # the object called
            if callee.wrapped_by == "classmethod" and isinstance(receiver, Instance):
                receiver = receiver.cls
            if isinstance(positional, list):
                positional = [receiver, *positional]
        return self.bind(callee, positional, keywords)

    def _receives(self, callee: Function) -> bool:
        """Whether a call of `callee` gives it the object it is called on first (a method,
        not a static one)."""
        return (
            isinstance(callee.node, ast.FunctionDef)
            and self._is_method(callee)
            and callee.wrapped_by != "staticmethod"  # given no receiver
        )

    def _is_method(self, function: Function) -> bool:
        module = self.module(function.path)
        return isinstance(module, Module) and isinstance(
            module.parents.get(function.node), ast.ClassDef
        )

    def _yielded(
        self, module: Module, function: ast.FunctionDef, frame: Frame
    ) -> Value:
        """A generator function's call: `Yields` of what every `yield` of its own body gives
        (`yield from` another iterable: Unknown)."""
        values: list[Value] = []
        stack = list(ast.iter_child_nodes(function))
        while stack:
            node = stack.pop()
            if isinstance(node, ast.YieldFrom):
                return Unknown("a generator that yields from another iterable")
            if isinstance(node, ast.Yield):
                values.append(
                    self.value(module, node.value, frame)
                    if node.value is not None
                    else None
                )
            if not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
            ):
                stack.extend(ast.iter_child_nodes(node))
        return Yields(join(values, f"`{function.name}` may yield different values"))

    def _jit_result(
        self,
        function: Function,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
        node: ast.AST,
    ) -> Value:
        """What a jitted function returns where its `out_shardings` place it: each output
        array on the `NamedSharding` given for it (one for every output, or a tuple of them
        matching the outputs), the body (run as if not jitted) telling which outputs are
        arrays; given no shardings, each output array the body shows on a mesh of Explicit
        axes, on that sharding (`_typed_outputs`); Unknown for anything else."""
        lost = Unknown("what a jitted function returns")
        given = dict(function.jit_keywords)
        out = given.get("out_shardings")
        if "out_shardings" in given and not isinstance(out, (Sharding, tuple)):
            return lost
        if out is None and "in_shardings" in given:
            return lost
        body = self.call_function(
            replace(function, wrapped_by=None, jit_keywords=(), jit_api=None),
            positional,
            keywords,
            node,
        )
        found = _typed_outputs(body) if out is None else _placed_outputs(body, out)
        if found is None and isinstance(body, Unknown):
            return lost_at(Unknown(f"what a jitted function returns: {body.why}"), body)
        return lost if found is None else found

    def bind(
        self,
        function: Function,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
    ) -> tuple[tuple[str, Value], ...] | Unknown:
        """The function's parameters bound to these arguments (defaults evaluated where the
        function was defined)."""
        if isinstance(positional, Unknown):
            return positional
        if isinstance(keywords, Unknown):
            return keywords
        a = function.node.args
        params = [p.arg for p in (*a.posonlyargs, *a.args)]
        bound: dict[str, Value] = dict(function.bound)
        for index, value in enumerate(positional):
            if index < len(params):
                bound[params[index]] = value
            elif a.vararg is None:
                return Unknown("a call with more arguments than parameters")
        if a.vararg is not None:
            bound[a.vararg.arg] = tuple(positional[len(params) :])
        extra: list[tuple[Value, Value]] = []
        kwonly = [p.arg for p in a.kwonlyargs]
        for name, value in keywords.items():
            if name in params[len(a.posonlyargs) :] or name in kwonly:
                bound[name] = value
            elif a.kwarg is not None:
                extra.append((name, value))
            else:
                return Unknown(f"a call with an unknown keyword `{name}`")
        if a.kwarg is not None:
            bound[a.kwarg.arg] = DictValue(tuple(extra))
        defaults = dict(zip(params[len(params) - len(a.defaults) :], a.defaults)) | {
            p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None
        }
        module = self.module(function.path)
        for name in (*params, *kwonly):
            if name not in bound and name in defaults:
                if isinstance(module, Unknown):
                    return module
                default_frame = function.closure or self.frame_at(module, function.node)
                bound[name] = self.value(module, defaults[name], default_frame)
            elif name not in bound:
                return Unknown(f"a call that does not pass `{name}`")
        return tuple(bound.items())

    def call_function(
        self,
        function: Function,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
        node: ast.AST,
    ) -> Value:
        """What calling `function` returns: every reachable `return` agreeing."""
        if function.wrapped_by == "jit":
            return self._jit_result(function, positional, keywords, node)
        if function.wrapped_by == "contextmanager":
            return Unknown("a context manager of the tree")
        if isinstance(function.node, ast.AsyncFunctionDef):
            return Unknown("a generator or coroutine")
        generator = self.is_generator(function.node)
        args = self.bind(function, positional, keywords)
        if isinstance(args, Unknown):
            return args
        # with the loop variables and host bound now: what the body reads of the context
        # (`get_abstract_mesh()`) or of the host may differ from one to the next
        key = ("call", function.node, function.closure, args, self.unrolling())
        cached = self._calls.get(key)
        if cached is not None:
            return cached
        if key in self._active:
            self.cut(key)
            return Unknown("a recursive call")
        if self._depth >= _MAX_CALL_DEPTH:
            self.cut()
            return Unknown("calls nested deeper than jaxfix follows")
        module = self.module(function.path)
        if isinstance(module, Unknown):
            return module
        self._push(key)
        self._depth += 1
        try:
            frame = Frame(function.node, function.path, args, function.closure)
            memo = _memoized(function.node)
            if isinstance(function.node, ast.Lambda):
                value = self.value(module, function.node.body, frame)
            elif generator:
                value = self._yielded(module, function.node, frame)
            elif memo is not None and self._memo_kept(module, function.node, memo[0]):
                value = self.value(module, memo[1], frame)
            else:
                values = self._returned(module, frame)
                value = _joined_objects(values, "")
                if isinstance(value, Unknown) and not any(value is v for v in values):
                    value = _or_none(
                        values, _name_of(function)
                    ) or self._returns_differ(module, function, frame)
        finally:
            self._depth -= 1
            self._pop(key)
        if not self._carried:  # else what it gives may rest on an assumption
            self._calls[key] = value
        return value

    def _returned(self, module: Module, frame: Frame) -> list[Value]:
        """What each way out of the function of `frame` returns (None where it runs off its
        end), in order; only the first where it is an Unknown that settles their join
        (`_joined_objects` gives it whatever the later returns are: not asked)."""
        flow = self.flow(module, frame)
        values: list[Value] = []
        for statement in flow.returns:
            value = (
                self.value(module, statement.value, frame)
                if statement.value is not None
                else None
            )
            if settles_join(values, value):
                return [value]
            values.append(value)
        if flow.end is not None:
            values.append(None)
        return values

    def _returns_differ(
        self, module: Module, function: Function, frame: Frame
    ) -> Unknown:
        """Why `function`'s returns disagree: the first test around a `return` that jaxfix
        does not decide there (`if self._lower:` of an object built with a flag the code
        does not show), placed where its value was lost."""
        name = function.node.name  # type: ignore[union-attr]  # a def: lambdas return once
        for test in _return_tests(function.node):
            decided = self.value(module, test, frame)
            if _truth(decided) is None:
                said = f"`{name}` returns different values by `{quoting.cut(ast.unparse(test))}`"
                if not isinstance(decided, Unknown):
                    return Unknown(f"{said}, whose truth jaxfix does not know")
                return lost_at(
                    Unknown(f"{said}, which jaxfix does not decide: {decided.why}"),
                    decided,
                )
        return Unknown(f"`{name}` may return different values")

    def _construct(
        self,
        cls: Class,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
        node: ast.AST,
    ) -> Value:
        fields = self._init_fields(cls)
        if fields is not None:
            if isinstance(positional, Unknown):
                return positional
            if isinstance(keywords, Unknown):
                return keywords
            if positional and not self._all_fields_known(cls):
                return Instance(cls, None, node)  # which field takes which argument
            given = dict(zip(fields, positional)) | keywords
            for klass in self._mro(cls):  # a default of the class, else of a base
                if not self._is_dataclass(klass):
                    continue
                module = self.module(klass.path)
                if isinstance(module, Unknown):
                    return module
                for statement in klass.node.body:
                    if (
                        isinstance(statement, ast.AnnAssign)
                        and isinstance(statement.target, ast.Name)
                        and statement.target.id not in given
                        and statement.value is not None
                    ):
                        frame = Frame(klass.node, klass.path, (), klass.closure)
                        default = self._field_default(module, statement.value, frame)
                        if default is not None:
                            given[statement.target.id] = default[0]
            return Instance(cls, tuple(given.items()), node)
        if self.attribute_dict_class(cls):
            return _attribute_dict(positional, keywords)
        started = self._field_dict_made(cls, positional, keywords, node)
        if started is not None:
            return started
        init = self._class_member(cls, "__init__")
        if isinstance(init, Unknown):
            if isinstance(init, NotDefined):
                if len(self._mro(cls)) == 1 and not cls.node.bases:
                    return Instance(cls, (), node)  # object.__init__
                return Instance(cls, None, node)  # a base outside the tree builds it
            return Unknown(f"`{cls.node.name}(...)` of a class jaxfix cannot see whole")
        if not isinstance(init, Function):
            return Unknown("a constructor jaxfix cannot follow")
        placeholder = Instance(cls, None, node)
        if isinstance(positional, Unknown) or isinstance(keywords, Unknown):
            # `VisionTransformer(num_classes=n, **model_config)` of a registry's config: an
            # object of the class still, its constructor's arguments unknown
            if self._plainly_constructed(cls):
                return placeholder
            lost = positional if isinstance(positional, Unknown) else keywords
            assert isinstance(lost, Unknown)
            return lost
        args = self.bind(init, [placeholder, *positional], keywords)
        if isinstance(args, Unknown):
            return args
        return Instance(cls, tuple(a for a in args[1:]), node)

    def _field_dict_made(
        self,
        cls: Class,
        positional: list[Value] | Unknown,
        keywords: dict[str, Value] | Unknown,
        node: ast.AST,
    ) -> Namespace | None:
        """`ConfigDict()` of a class whose attributes are the items of a dict it keeps
        (field_dicts.py: ml_collections' shape, a project's stand-in for it), no base but
        `object`, called without arguments where `__init__` starts that dict empty: an empty
        attribute config (filled by stores where it is built, `_filled_by_stores`); None
        for any other class or call."""
        if positional or keywords or len(self._mro(cls)) != 1:
            return None
        module = self.module(cls.path)
        if isinstance(module, Unknown) or any(
            not (isinstance(b, ast.Name) and b.id == "object") for b in cls.node.bases
        ):
            return None
        kept = field_dicts.kept_dict(cls.node)
        init = self._class_member(cls, "__init__")
        if kept is None or not isinstance(init, Function):
            return None
        params = init.node.args.args
        outer = Frame(cls.node, cls.path, (), cls.closure)
        args: list[tuple[str, Value]] = [(params[0].arg, Instance(cls, None, node))]
        for param, default in zip(params[1:], init.node.args.defaults):
            args.append((param.arg, self.value(module, default, outer)))
        frame = Frame(init.node, cls.path, tuple(args), cls.closure)
        began = self.value(module, kept[1], frame)
        if not (isinstance(began, DictValue) and not began.items):
            return None
        getitem = any(
            isinstance(s, ast.FunctionDef) and s.name == "__getitem__"
            for s in cls.node.body
        )
        return Namespace((), mapping=getitem)

    def _plainly_constructed(self, cls: Class) -> bool:
        """A call of the class makes an object of it: no class of its bases (all of the tree)
        defines `__new__`, and none is made by a metaclass."""
        chain = self._mro(cls)
        if chain[-1].node.bases or any(len(k.node.bases) != 1 for k in chain[:-1]):
            return False  # a base outside the tree may make it
        return not any(
            _defines(k, "__new__") or any(w.arg == "metaclass" for w in k.node.keywords)
            for k in chain
        )

    def _field_default(
        self, module: Module, value: ast.expr, frame: Frame
    ) -> tuple[Value] | None:
        """A field's default (in a 1-tuple): the value written, or `field(default=v)`'s `v`
        (dataclasses, flax.struct, equinox); None for a field(...) without one."""
        if isinstance(value, ast.Call):
            callee = self.value(module, value.func, frame)
            if isinstance(callee, External) and callee.name in FIELD_FUNCTIONS:
                for keyword in value.keywords:
                    if keyword.arg == "default":
                        return (self.value(module, keyword.value, frame),)
                    if keyword.arg == "default_factory":
                        return (self._factory_default(module, keyword.value, frame),)
                    if keyword.arg is None:
                        return (Unknown(f"a default made by `{callee.name}`"),)
                return None
        return (self.value(module, value, frame),)

    def _factory_default(
        self, module: Module, factory: ast.expr, frame: Frame
    ) -> Value:
        """`field(default_factory=f)`'s default: what calling `f` with no arguments gives,
        for a lambda or function of the tree (its closure the class's) or a class of the
        tree (alphafold3's `global_config: GlobalConfig = field(default_factory=GlobalConfig)`,
        an object with its own defaults); else unknown."""
        made = self.value(module, factory, frame)
        if isinstance(made, Function) and made.wrapped_by is None:
            return self.call_function(made, [], {}, factory)
        if isinstance(made, Class):
            return self._construct(made, [], {}, factory)
        return Unknown("a default made by a `default_factory` jaxfix does not follow")

    def _memoizing(
        self, module: Module, decorator: ast.expr, frame: Frame
    ) -> External | None:
        """`functools.lru_cache(maxsize=None)` (keywords and constants only): the memoizing
        decorator that call makes, as `functools.lru_cache` itself; None for another."""
        if not isinstance(decorator, ast.Call) or not all(
            isinstance(a, ast.Constant) for a in decorator.args
        ):
            return None
        if any(k.arg is None for k in decorator.keywords):
            return None
        made = self.value(module, decorator.func, frame)
        return made if isinstance(made, External) and made.name in _MAKES_MEMO else None

    def _decorated(
        self,
        module: Module,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
        value: Function | Class,
        frame: Frame,
    ) -> Value:
        """A definition through its decorators: those that keep its body (jax.jit,
        functools.partial(jax.jit, ...), contextlib.contextmanager, property, dataclass, ...)."""
        result: Value = value
        for decorator in reversed(node.decorator_list):
            if (
                isinstance(decorator, ast.Attribute)
                and decorator.attr in ("setter", "deleter", "getter")
                and decorator is node.decorator_list[0]
            ):
                # `@x.setter def x(self, v)`: the property `x` reads through its getter
                prop = self.value(module, decorator.value, frame)
                if not (
                    isinstance(prop, Function)
                    and prop.wrapped_by in _PROPERTIES
                    and decorator.attr == "setter"
                    and len(node.decorator_list) == 1
                ):
                    return Unknown(
                        f"a property's `.{decorator.attr}` jaxfix does not follow"
                    )
                return replace(prop, wrapped_by=_SETTABLE)
            applied = self._memoizing(module, decorator, frame) or self.value(
                module, decorator, frame
            )
            if isinstance(applied, External) and isinstance(result, Function):
                kind = _KEEPS_BODY.get(applied.name)
                if kind is None:
                    return Unknown(f"decorated by `{applied.name}`")
                if kind == "staticmethod" and result.wrapped_by is not None:
                    kind = ""  # a jitted static method stays jitted
                result = replace(result, wrapped_by=kind or result.wrapped_by)
                continue
            if isinstance(result, Class) and (
                (
                    isinstance(applied, External)
                    and applied.name in _DATACLASS_DECORATORS | _KEEPS_CLASS
                )
                or self._dataclass_decorator(module, decorator, frame) is not None
            ):
                continue
            if isinstance(result, Function) and vocabulary.is_partial_jit(applied):
                result = replace(result, wrapped_by="jit")
                continue
            if (
                isinstance(applied, Function)
                and applied.wrapped_by is None
                and _returns_its_parameter(applied.node)
            ):
                continue  # `def register(fn): REGISTRY[fn.__name__] = fn; return fn`
            return Unknown(
                f"decorated by something jaxfix does not see through (line {decorator.lineno})"
            )
        return result


def _set_through_dunder(
    klass: ast.ClassDef, name: str
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method of `klass` that calls `X.__setattr__(obj, key, value)` (`object.__setattr__`,
    `super().__setattr__`) with `key` that may be `name` (it, or computed), if any."""
    for method in klass.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(method):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "__setattr__"
                and node.args
            ):
                continue
            # `object.__setattr__(self, key, v)`, or `super().__setattr__(key, v)`
            key = node.args[1] if len(node.args) == 3 else node.args[0]
            if not (isinstance(key, ast.Constant) and key.value != name):
                return method
    return None


def _returns_only(
    function: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr
) -> bool:
    """Whether every `return` of `function`'s own body returns `value` (and it yields
    nothing): each call of it gives what `value` evaluates to."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        ):
            continue  # its own scope
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, ast.Return) and node.value is not value:
            return False
        stack.extend(ast.iter_child_nodes(node))
    return True


def _returns_its_parameter(
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
) -> bool:
    """A `def` of one parameter that ends by returning it, every `return` of its own body
    returning it and nothing rebinding it: a decorator that registers what it decorates and
    gives it back unchanged."""
    if not isinstance(function, ast.FunctionDef):
        return False
    a = function.args
    if (
        a.posonlyargs
        or a.kwonlyargs
        or a.vararg
        or a.kwarg
        or len(a.args) != 1
        or not function.body
    ):
        return False
    name = a.args[0].arg

    def is_it(expr: ast.expr | None) -> bool:
        return isinstance(expr, ast.Name) and expr.id == name

    last = function.body[-1]
    if not (isinstance(last, ast.Return) and is_it(last.value)):
        return False
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        ):
            continue  # its own scope
        if isinstance(node, ast.Return) and not is_it(node.value):
            return False
        if (
            isinstance(node, ast.Name)
            and node.id == name
            and not isinstance(node.ctx, ast.Load)
        ):
            return False
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        stack.extend(ast.iter_child_nodes(node))
    return True


def _property_of(
    positional: list[Value] | Unknown, keywords: dict[str, Value] | Unknown
) -> Value:
    """`property(fget)` or `property(fget, fset)`: the getter, read as a property (one that a
    store may change when `fset` is given)."""
    if isinstance(positional, Unknown):
        return positional
    if isinstance(keywords, Unknown) or set(keywords) - {"doc"}:
        return Unknown("a `property(...)` given keywords jaxfix does not follow")
    if not 1 <= len(positional) <= 2 or not isinstance(positional[0], Function):
        return Unknown("a `property(...)` without a getter jaxfix sees")
    getter = positional[0]
    if getter.wrapped_by is not None:
        return Unknown("a `property(...)` of a wrapped getter")
    setter = positional[1] if len(positional) == 2 else None
    return replace(getter, wrapped_by="property" if setter is None else _SETTABLE)


def _is_setter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`@<name>.setter def <name>(self, value)`: the setter of the property `name`."""
    return any(
        isinstance(d, ast.Attribute)
        and d.attr == "setter"
        and isinstance(d.value, ast.Name)
        and d.value.id == function.name
        for d in function.decorator_list
    )


def _jit_eval_shape(jitted: Function) -> Value:
    """`jax.jit(f, out_shardings=s).eval_shape(...)`: ShapeDtypeStructs on the shardings
    given (each `NamedSharding` of `s`, a subtree of the result whose every leaf is on it);
    Unknown where an output's sharding is not given."""
    out = dict(jitted.jit_keywords).get("out_shardings")
    if out is None:
        return Unknown("`.eval_shape` of a jitted function given no out_shardings")
    return _structs_on(out)


def _structs_on(shardings: Value) -> Value:
    if isinstance(shardings, Sharding):
        why = "the {} of what a jitted function's `.eval_shape` returns"
        return Leaves(
            ShapeStruct(
                Foreign(why.format("shape")), Foreign(why.format("dtype")), shardings
            )
        )
    if isinstance(shardings, DictValue):
        return DictValue(tuple((k, _structs_on(v)) for k, v in shardings.items))
    if isinstance(shardings, ListValue):
        return ListValue(tuple(_structs_on(v) for v in shardings.items))
    if isinstance(shardings, tuple):
        return tuple(_structs_on(v) for v in shardings)
    if isinstance(shardings, Unknown):
        return lost_at(Unknown(f"out_shardings of {shardings.why}"), shardings)
    return Unknown(
        "`.eval_shape` of a jitted function whose out_shardings jaxfix cannot map"
    )


_STRUCT_UPDATES = frozenset({"shape", "dtype", "sharding", "weak_type"})


def _struct_updated(
    struct: ShapeStruct | StructLeaf,
    positional: list[Value] | Unknown,
    keywords: dict[str, Value] | Unknown,
) -> Value:
    """`struct.update(**changes)`: a ShapeDtypeStruct with those fields given, the others the
    struct's (Unknown for a leaf of what `jax.eval_shape` returns)."""
    if isinstance(positional, Unknown):
        return positional
    if isinstance(keywords, Unknown):
        return keywords
    if positional or not set(keywords) <= _STRUCT_UPDATES:
        return Unknown("`.update(...)` of a ShapeDtypeStruct with other arguments")
    old: dict[str, Value] = (
        {"shape": struct.shape, "dtype": struct.dtype, "sharding": struct.sharding}
        if isinstance(struct, ShapeStruct)
        else {
            key: lost_at(Foreign(f"the {key} of {struct.why}"), struct)
            for key in ("shape", "dtype", "sharding")
        }
    )
    given = old | {k: v for k, v in keywords.items() if k != "weak_type"}
    return ShapeStruct(given["shape"], given["dtype"], given["sharding"])


def _annotated(cls: Class) -> list[str]:
    """The names a class body annotates (a dataclass's own fields)."""
    return [
        s.target.id
        for s in cls.node.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
    ]


def _callables(sides: list[Value]) -> tuple[Value, ...] | None:
    """The different callables a conditional expression's sides may be (a side that is itself
    a `OneOf` gives its options), or None when a side is anything else."""
    options: list[Value] = []
    for side in sides:
        for option in side.options if isinstance(side, OneOf) else (side,):
            if not isinstance(option, (External, Function, Class, BoundMethod)):
                return None
            if not any(same(option, o) for o in options):
                options.append(option)
    return tuple(options)


# The mesh context APIs that make a mesh current when entered (a `with` item, `enter_context`):
# a call that is one of them on every way enters the same context (`set_mesh` also sets the
# mesh when merely called, which a call through a `OneOf` is never taken to do).
_ENTERED_ALIKE = frozenset({Api.SET_MESH, Api.USE_MESH})


def _joined_objects(values: list[Value], why: str) -> Value:
    """What every value is (`join`), where objects of one class built with the same
    parameters are that class's object with the arguments they agree on (Unknown where they
    differ)."""
    if not values:  # a function that returns on no way (it always raises)
        return join(values, why)
    first = values[0]
    if isinstance(first, Instance) and all(v == first for v in values):
        return first  # one object, with what was stored on it since
    if (
        isinstance(first, Instance)
        and first.init is not None
        and all(
            isinstance(v, Instance)
            and v.cls == first.cls
            and v.init is not None
            and [n for n, _ in v.init] == [n for n, _ in first.init]
            for v in values
        )
    ):
        inits = [cast(Instance, v).init or () for v in values]
        return Instance(
            first.cls,
            tuple(
                (param, join([init[i][1] for init in inits], why))
                for i, (param, _) in enumerate(first.init)
            ),
        )
    return join(values, why)


def _name_of(function: Function) -> str:
    node = function.node
    return "a lambda" if isinstance(node, ast.Lambda) else f"`{node.name}`"


def _or_none(values: list[Value], name: str) -> OneOf | None:
    """Returns of one value or None (`return self._map[key]` ... `return None`): `OneOf`
    them, which a read under `if x is not None:` narrows to the value; None otherwise."""
    rest: list[Value] = [v for v in values if v is not None]
    if not rest or len(rest) == len(values):
        return None
    value = _joined_objects(rest, "")
    if isinstance(value, Unknown):
        return None
    return OneOf(f"{name} returns a value or None", (value, None))


def _tested_not_none(
    module: Module,
    name: str,
    statement: ast.stmt,
    bindings: frozenset[Binding],
    flow: Flow,
) -> bool:
    """`statement` is in the body of an `if name is not None:` (or `if name:`) that the
    same bindings of `name` reach."""
    child: ast.AST = statement
    parent = module.parents.get(child)
    while parent is not None and parent is not flow.scope:
        if isinstance(parent, ast.If) and child in parent.body:
            test = parent.test
            if (
                isinstance(test, ast.Compare)
                and isinstance(test.left, ast.Name)
                and test.left.id == name
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.IsNot)
                and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value is None
            ) or (isinstance(test, ast.Name) and test.id == name):
                env = flow.before.get(parent)
                return env is not None and env.get(name) == bindings
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        child, parent = parent, module.parents.get(parent)
    return False


def _read_first_under_not_none(module: Module, node: ast.Attribute) -> bool:
    """`node` (`self.worker`) is the first thing the first statement of the body of an
    `if self.worker is not None:` (or `if self.worker:`) evaluates (`x = self.worker.f(...)`,
    `return self.worker`): nothing runs between the test and the read that could store the
    attribute again."""
    child: ast.AST = node
    parent = module.parents.get(child)
    while True:
        if isinstance(parent, ast.Attribute) and parent.value is child:
            pass
        elif isinstance(parent, ast.Call) and parent.func is child:
            pass
        elif isinstance(parent, (ast.Assign, ast.Return, ast.Expr)) and (
            parent.value is child
        ):
            break
        else:
            return False
        child, parent = parent, module.parents.get(parent)
    statement = parent
    test_of = module.parents.get(statement)
    if not (isinstance(test_of, ast.If) and test_of.body[:1] == [statement]):
        return False
    test = test_of.test
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        test = test.left
    return ast.dump(test) == ast.dump(node)


def _agreed(results: list[Value], why: str) -> Value:
    """The value every option's call gives (`OneOf`), else Unknown(why): mesh contexts of the
    same mesh by `set_mesh` and `use_mesh` agree, as the context `use_mesh` enters."""
    if not results:
        return Unknown(why)
    contexts = [r for r in results if isinstance(r, MeshContext)]
    if contexts and len(contexts) == len(results):
        first = contexts[0]
        apis = {c.api for c in contexts}
        if (len(apis) == 1 or apis <= _ENTERED_ALIKE) and all(
            c.mesh is first.mesh or same(c.mesh, first.mesh) for c in contexts[1:]
        ):
            return first if len(apis) == 1 else replace(first, api=Api.USE_MESH)
    first_result = results[0]
    if all(not isinstance(r, Unknown) and same(first_result, r) for r in results):
        return first_result
    if len(results) <= _MAX_ALTERNATIVES and not any(
        isinstance(r, Unknown) for r in results
    ):
        distinct: list[Value] = []
        for result in results:
            if not any(same(result, d) for d in distinct):
                distinct.append(result)
        return Alternatives(why, tuple(distinct))
    return Unknown(why)


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _function_of(value: Value, is_init: bool) -> Function | None:
    if isinstance(value, Function):
        return value
    if isinstance(value, BoundMethod):
        return value.function
    if is_init and isinstance(value, Class):
        init = next(
            (
                s
                for s in value.node.body
                if isinstance(s, ast.FunctionDef) and s.name == "__init__"
            ),
            None,
        )
        return Function(init, value.path) if init is not None else None
    return None


def _names_a_class_only(module: Module, use: ast.expr) -> bool:
    """Whether `use` only names a class, building no object of it: in an annotation (of a
    parameter, a return, an annotated assignment), as the class `isinstance`/`issubclass`
    test, or the class an `except` catches."""
    child: ast.AST = use
    parent = module.parents.get(use)
    while isinstance(parent, (ast.Subscript, ast.Tuple, ast.BinOp, ast.Attribute)):
        if isinstance(parent, ast.Attribute):
            return False  # `A.attr`: not the class itself
        child, parent = parent, module.parents.get(parent)
    if isinstance(parent, ast.arg) and parent.annotation is child:
        return True
    if (
        isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef))
        and parent.returns is child
    ):
        return True
    if isinstance(parent, ast.AnnAssign) and parent.annotation is child:
        return True
    if isinstance(parent, ast.ExceptHandler) and parent.type is child:
        return True
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in ("isinstance", "issubclass")
        and len(parent.args) == 2
        and parent.args[1] is child
        and (child is use or isinstance(child, ast.Tuple))
    )


def _binds_name(node: ast.AST, name: str) -> bool:
    """Whether `node` binds `name` in the scope it is in (a store, a definition, an import's
    name, an exception's name; a comprehension's variable is counted too: never a miss)."""
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, (ast.Store, ast.Del))
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, ast.alias):
        return (node.asname or node.name.partition(".")[0]) == name
    if isinstance(node, ast.ExceptHandler):
        return node.name == name
    if isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return node.name == name
    if isinstance(node, ast.MatchMapping):
        return node.rest == name
    return False


def _module_level_name(module: Module, value: ast.expr) -> str | None:
    """The name a module-level `NAME = value` binds `value` to; None for any other place."""
    statement = module.parents.get(value)
    if (
        isinstance(statement, ast.Assign)
        and statement.value is value
        and len(statement.targets) == 1
        and isinstance(target := statement.targets[0], ast.Name)
        and module.scope_of(statement) is module.tree
    ):
        return target.id
    return None


def _assigned_by_global(module: Module, name: str) -> bool:
    return name in module.declared_global


def _global_stores(module: Module, name: str) -> list[ast.Assign] | None:
    """The statements functions of `module` store its global `name` by: each a plain
    `name = value` in a function declaring `global name`; None where one binds it otherwise
    (a tuple target, `+=`, `for`, `del`, `with ... as`, an import, a nested function's)."""
    stores: list[ast.Assign] = []
    for node in module.parents:
        if not (isinstance(node, ast.Global) and name in node.names):
            continue
        scope = module.scope_of(node)
        if isinstance(scope, ast.ClassDef):
            return None  # a class body's store: not followed
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # the module's own `global`: its bindings are the module's
        for inner in ast.walk(scope):
            if inner is scope or not _binds_name(inner, name):
                continue
            statement = module.parents.get(inner)
            if not (
                isinstance(inner, ast.Name)
                and isinstance(statement, ast.Assign)
                and statement.targets == [inner]
                and module.scope_of(statement) is scope
            ):
                return None
            stores.append(statement)
    return stores


def _returned_after_none_guard(module: Module, name: str, at: ast.AST) -> bool:
    """`at` is the `return NAME` statement's value right after an `if NAME is None:` whose
    body only raises, both in one function's body (a getter that refuses an unset global)."""
    statement = module.parents.get(at)
    function = module.scope_of(at)
    if not (
        isinstance(statement, ast.Return)
        and statement.value is at
        and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        and statement in function.body
    ):
        return False
    index = function.body.index(statement)
    if index == 0:
        return False
    guard = function.body[index - 1]
    return (
        isinstance(guard, ast.If)
        and not guard.orelse
        and all(isinstance(s, ast.Raise) for s in guard.body)
        and isinstance(test := guard.test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == name
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def _computes(statement: ast.stmt, name: str) -> bool:
    """Whether a class body's `statement` binds `name` to a function or a call's result."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return statement.name == name
    targets = (
        statement.targets
        if isinstance(statement, ast.Assign)
        else [statement.target]
        if isinstance(statement, ast.AnnAssign) and statement.value is not None
        else []
    )
    value = getattr(statement, "value", None)
    return isinstance(value, (ast.Call, ast.Lambda)) and any(
        isinstance(t, ast.Name) and t.id == name for t in targets
    )


def _defines(cls: Class, name: str) -> bool:
    return any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name
        for s in cls.node.body
    )


def _memoized(function: ast.AST) -> tuple[str, ast.expr] | None:
    """A memoizing getter, `if self.x is None: self.x = E` then `return self.x`: the
    attribute's name and `E` (what every call returns, when nothing else stores `.x`)."""
    if not isinstance(function, ast.FunctionDef) or len(function.body) != 2:
        return None
    params = [*function.args.posonlyargs, *function.args.args]
    if len(params) != 1:
        return None
    me = params[0].arg
    guard, back = function.body

    def own(node: ast.AST) -> str | None:
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == me
        ):
            return node.attr
        return None

    if not (
        isinstance(guard, ast.If)
        and not guard.orelse
        and isinstance(guard.test, ast.Compare)
        and len(guard.test.ops) == 1
        and isinstance(guard.test.ops[0], ast.Is)
        and isinstance(guard.test.comparators[0], ast.Constant)
        and guard.test.comparators[0].value is None
        and len(guard.body) == 1
        and isinstance(guard.body[0], ast.Assign)
        and len(guard.body[0].targets) == 1
        and isinstance(back, ast.Return)
        and back.value is not None
    ):
        return None
    name = own(guard.test.left)
    store = guard.body[0]
    if name is None or own(store.targets[0]) != name or own(back.value) != name:
        return None
    if any(own(n) == name for n in ast.walk(store.value)):
        return None
    return name, store.value


def _handed_out(module: Module, node: ast.expr) -> bool:
    """`return self.x` (or an item or attribute of it), `yield self.x`: the caller gets what
    the object holds and may change it in place."""
    top: ast.AST = node
    parent = module.parents.get(top)
    while isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is top:
        top, parent = parent, module.parents.get(parent)
    return isinstance(parent, (ast.Return, ast.Yield, ast.YieldFrom))


def _is_called(module: Module, node: ast.expr) -> bool:
    call = module.parents.get(node)
    return isinstance(call, ast.Call) and call.func is node


def _is_bare_super(node: ast.expr) -> bool:
    """`super()`, the class's next in the MRO of the object the method runs on."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "super"
        and not node.args
        and not node.keywords
    )


def _calls_super_init(init: ast.FunctionDef) -> bool:
    return any(_is_super_init(n, bare=False) for n in ast.walk(init))


def _is_super_init(node: ast.AST, bare: bool = True) -> bool:
    """`super().__init__(...)`; with `bare`, only `super()` (the class's next in the MRO),
    never `super(Other, self)`."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "__init__"
        and isinstance(node.func.value, ast.Call)
        and isinstance(node.func.value.func, ast.Name)
        and node.func.value.func.id == "super"
        and (not bare or not node.func.value.args)
    )


def _statement_in(module: Module, node: ast.AST, scope: ast.AST) -> ast.stmt | None:
    """The innermost statement of `scope` holding `node`."""
    current: ast.AST | None = node
    while current is not None and current is not scope:
        if isinstance(current, ast.stmt) and module.scope_of(current) is scope:
            return current
        current = module.parents.get(current)
    return None


def _top_of(
    module: Module, statement: ast.stmt, scope: ast.FunctionDef | ast.AsyncFunctionDef
) -> ast.stmt | None:
    """The statement of `scope`'s own body that holds `statement`."""
    current: ast.AST | None = statement
    while current is not None:
        parent = module.parents.get(current)
        if parent is scope:
            return current if current in scope.body else None
        current = parent
    return None


def _holds(outer: ast.AST, node: ast.AST) -> bool:
    return any(n is node for n in ast.walk(outer))


def _is_generator(function: ast.AST) -> bool:
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _builtin(name: str) -> Value:
    if hasattr(builtins, name):
        return External(f"builtins.{name}")
    return Unknown(f"`{name}` is not bound")


def _stored(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


# ml_collections' attribute configs that are also dicts.
_CONFIG_DICTS = frozenset(
    {
        "ml_collections.ConfigDict",
        "ml_collections.config_dict.ConfigDict",
        "ml_collections.config_dict.config_dict.ConfigDict",
    }
)

# ml_collections' `create(**kwargs)`, the ConfigDict of its keywords (nanodo's nested configs).
_CONFIG_DICT_CREATE = frozenset(
    {
        "ml_collections.config_dict.create",
        "ml_collections.config_dict.config_dict.create",
    }
)


def _config_dict(
    positional: list[Value] | Unknown, keywords: dict[str, Value] | Unknown
) -> Value:
    """`ConfigDict()` or `ConfigDict({"a": 1})`: a namespace that is also a mapping."""
    if isinstance(positional, Unknown):
        return positional
    if keywords or len(positional) > 1:
        return Unknown("a ConfigDict built with arguments jaxfix does not follow")
    if not positional:
        return Namespace((), mapping=True)
    given = positional[0]
    if isinstance(given, DictValue) and all(isinstance(k, str) for k, _ in given.items):
        return Namespace(tuple((str(k), v) for k, v in given.items), mapping=True)
    return Unknown("a ConfigDict of something jaxfix does not know")


def _attribute_dict(
    positional: list[Value] | Unknown, keywords: dict[str, Value] | Unknown
) -> Value:
    """A call of a `dict` subclass whose attributes are its items (the ConfigDict stand-in a
    project writes): `dict`'s own constructor, a mapping and keywords (`Config(D=16, F=32)`,
    nanodo's `create(**kwargs)` returning `ConfigDict(**kwargs)`), later keywords winning."""
    if isinstance(keywords, Unknown):
        return keywords
    if isinstance(positional, Unknown) or len(positional) > 1:
        return _config_dict(positional, {})
    made = _config_dict(positional, {})
    if not isinstance(made, Namespace):
        return made
    return Namespace(tuple({**dict(made.items), **keywords}.items()), mapping=True)


def _namespace_of(built: dict[str, object]) -> Namespace:
    """The namespace a config under construction makes (`""` holds whether it is a mapping;
    a nested dict is a config built in the same function)."""
    items: tuple[tuple[str, Value], ...] = tuple(
        (key, _namespace_of(value) if isinstance(value, dict) else cast(Value, value))
        for key, value in built.items()
        if key != ""
    )
    return Namespace(items, mapping=bool(built[""]))


def _loops_around(module: Module, node: ast.AST) -> list[ast.For]:
    """The `for` statements whose body holds `node`, in its own scope, outermost first."""
    loops: list[ast.For] = []
    child: ast.AST = node
    parent = module.parents.get(node)
    while parent is not None and not isinstance(
        parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    ):
        if isinstance(parent, ast.For) and child in parent.body:
            loops.append(parent)
        child, parent = parent, module.parents.get(parent)
    loops.reverse()
    return loops


def _assign_target(target: ast.AST, value: Value) -> Iterator[tuple[str, Value]]:
    if isinstance(target, ast.Name):
        yield target.id, value
        return
    if isinstance(target, (ast.Tuple, ast.List)):
        items = _items(value)
        for index, element in enumerate(target.elts):
            if items is not None and len(items) == len(target.elts):
                yield from _assign_target(element, items[index])
            else:
                for name in _stored(element):
                    yield name, Unknown("unpacks a value jaxfix cannot spell out")


def _items(value: Value) -> tuple[Value, ...] | None:
    """The items iterating over `value` gives, when known."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, ListValue):
        return value.items
    if isinstance(value, Array) and value.values is not None:
        return value.values  # a 1-D NumPy array of known integers
    if isinstance(value, Spec):
        return value.parts  # a PartitionSpec is a tuple of its parts
    if isinstance(value, DictValue):
        return tuple(k for k, _ in value.items)
    if isinstance(value, str) and len(value) <= _MAX_ITEMS:
        return tuple(value)
    return None


def _return_tests(function: ast.AST) -> Iterator[ast.expr]:
    """The tests of the `if` statements and expressions of `function` (not of the functions
    it defines) that hold a `return`, outermost first."""
    stack: list[ast.AST] = list(reversed(getattr(function, "body", [])))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.If) and any(
            isinstance(n, ast.Return) for n in ast.walk(node)
        ):
            yield node.test
        if isinstance(node, ast.Return) and isinstance(node.value, ast.IfExp):
            yield node.value.test
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _truth(value: Value) -> bool | None:
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, (int, float, str, tuple)) and known(value):
        return bool(value)
    if isinstance(value, (ListValue, DictValue)):
        return bool(value.items)
    if isinstance(value, External) and value.name == "typing.TYPE_CHECKING":
        return False
    if isinstance(
        value, (Function, Class, ModuleValue, Mesh, Sharding, Spec, ShapeStruct)
    ):
        return True
    return None  # an array's truth is its data's


def _compare_settled(op: ast.cmpop, left: Value) -> str | None:
    """Why `left <op> ...` is Unknown whatever its right side is (`_compare`'s answer then),
    or None where the right side's value may decide it: an identity test of an Unknown, an
    equality of a value other than a known primitive, a membership of an unknown value not a
    string, an order of a value not an int."""
    if isinstance(op, (ast.Is, ast.IsNot)):
        return (
            "an identity test of an unknown value"
            if isinstance(left, Unknown)
            else None
        )
    if isinstance(op, (ast.Eq, ast.NotEq)):
        primitive = isinstance(left, (int, float, str, tuple)) or left is None
        return None if primitive and known(left) else _UNDECIDED
    if isinstance(op, (ast.In, ast.NotIn)):
        return None if isinstance(left, str) or known(left) else _UNDECIDED
    if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return None if _is_int(left) else _UNDECIDED
    return _UNDECIDED


_UNDECIDED = "a comparison jaxfix does not decide"


def _is_int(value: Value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _binary(op: ast.operator, left: Value, right: Value) -> Value:
    if _is_int(left) and _is_int(right):
        assert isinstance(left, int) and isinstance(right, int)
        if isinstance(op, ast.Pow):
            return left**right if 0 <= right <= _MAX_POWER else Unknown("a large power")
        if isinstance(op, (ast.FloorDiv, ast.Mod)) and right == 0:
            return Unknown("a division by zero")
        function = _BINARY.get(type(op))
        if function is not None:
            return function(left, right)
    numbers = (_is_int(left) or isinstance(left, float)) and (
        _is_int(right) or isinstance(right, float)
    )
    if numbers and isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        # `num_devices / -count`, `target / np.prod(vals) * -1`: a float, as Python gives
        assert isinstance(left, (int, float)) and isinstance(right, (int, float))
        if isinstance(op, ast.Div) and right == 0:
            return Unknown("a division by zero")
        try:
            if isinstance(op, ast.Div):
                return left / right
            return float(_FLOAT_BINARY[type(op)](left, right))
        except OverflowError:
            return Unknown("a number too large for a float")
    if isinstance(op, ast.Add):
        if isinstance(left, tuple) and isinstance(right, tuple):
            return left + right
        if isinstance(left, ListValue) and isinstance(right, ListValue):
            return ListValue(left.items + right.items)
        if isinstance(left, Devices) and isinstance(right, Devices):
            return device_shapes.joined(left, right)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    if isinstance(op, ast.Mult):
        for seq, times in ((left, right), (right, left)):
            items = seq.items if isinstance(seq, ListValue) else seq
            if isinstance(items, tuple) and _is_int(times):
                assert isinstance(times, int)
                if times * len(items) > _MAX_ITEMS:
                    return Unknown("long")
                return (
                    ListValue(items * times)
                    if isinstance(seq, ListValue)
                    else items * times
                )
    if (
        isinstance(op, ast.BitOr)
        and isinstance(left, DictValue)
        and isinstance(right, DictValue)
    ):
        return DictValue(left.items + right.items, written=left.written + right.written)
    for operand in (left, right):
        if isinstance(operand, Unknown):
            # an operand jaxfix does not know: the operation is lost where it was
            return lost_at(Unknown(operand.why), operand)
    return _operation_lost([left, right])


def _operation_lost(operands: list[Value]) -> Unknown:
    """An operation jaxfix does not evaluate; of an array whose placement jaxfix does not
    know, lost where that was (the trail's end)."""
    for operand in operands:
        placement = operand.sharding if isinstance(operand, Array) else None
        if isinstance(placement, Sharding):
            placement = placement.mesh
        if isinstance(placement, Unknown) and placement.where is not None:
            return lost_at(Unknown(placement.why), placement)
    return Unknown("an operation jaxfix does not evaluate")


def _unpacked(value: Value, index: int, length: int, star: int) -> Value:
    items = _items(value)
    if items is None or isinstance(value, (DictValue, str)):
        return Unknown("unpacks a value jaxfix cannot spell out")
    if star < 0:
        return (
            items[index] if len(items) == length else Unknown("unpacks another length")
        )
    after = length - star - 1
    if len(items) < length - 1:
        return Unknown("unpacks another length")
    if index < star:
        return items[index]
    if index == star:
        return ListValue(items[star : len(items) - after])
    return items[len(items) - (length - index)]


def _locals(module: Module, scope: ast.AST) -> frozenset[str]:
    return module.scope_names(scope)[0]


def _definitions(module: Module, scope: ast.AST) -> frozenset[str]:
    return module.scope_names(scope)[1]


# Python's own classes (and their abc/typing aliases) `isinstance` is decided for, by the
# Python types of the data jaxfix spells out that are instances of each.
_BUILTIN_CLASSES: dict[str, tuple[type, ...]] = {
    **dict.fromkeys(
        (
            "builtins.dict",
            "collections.abc.Mapping",
            "collections.abc.MutableMapping",
            "typing.Mapping",
            "typing.MutableMapping",
            "typing.Dict",
        ),
        (DictValue,),
    ),
    **dict.fromkeys(("builtins.list", "typing.List"), (ListValue,)),
    **dict.fromkeys(("builtins.tuple", "typing.Tuple"), (tuple,)),
    **dict.fromkeys(
        ("collections.abc.Sequence", "typing.Sequence"), (tuple, ListValue, str)
    ),
    "builtins.str": (str,),
    "builtins.int": (int,),  # bool is an int, as in Python
    "builtins.bool": (bool,),
    "builtins.float": (float,),
}

# The data whose Python type jaxfix knows exactly: `isinstance` of it is decided.
_PLAIN_DATA = (bool, int, float, str, tuple, ListValue, DictValue)


def _is_builtin_instance(value: Value, types: tuple[type, ...]) -> bool | None:
    """`isinstance(value, C)` for one of Python's classes C (by `types`, what jaxfix's data
    of C is): decided for None and plain data (literals, tuples, lists, dicts) and for the
    JAX objects jaxfix knows (a mesh, a sharding, a spec, a ShapeDtypeStruct: none is a
    Python builtin's); None (cannot tell) for anything else, an object of the tree maybe
    subclassing C."""
    if value is None:
        return False
    if isinstance(value, _PLAIN_DATA) and not isinstance(value, Unknown):
        return isinstance(value, types)
    if isinstance(value, _JAX_OBJECTS):
        return False
    return None


# The JAX classes `isinstance` decides, each with what is an object of it: a mesh of its kind
# (`AbstractMesh` and `Mesh` are siblings under BaseMesh on jax 0.10.2 and 0.12.0.1, neither
# subclasses the other; a concrete mesh's `.abstract_mesh` is an AbstractMesh), a sharding, a
# spec, a ShapeDtypeStruct.
_JAX_CLASSES: dict[Api | None, Callable[[Value], bool]] = {
    Api.ABSTRACT_MESH: lambda v: isinstance(v, Mesh) and v.kind is MeshKind.ABSTRACT,
    Api.MESH: lambda v: isinstance(v, Mesh) and v.kind is MeshKind.CONCRETE,
    Api.NAMED_SHARDING: lambda v: isinstance(v, Sharding),
    Api.PARTITION_SPEC: lambda v: isinstance(v, Spec),
    Api.SHAPE_DTYPE_STRUCT: lambda v: isinstance(v, ShapeStruct),
}
_JAX_OBJECTS = (Mesh, Sharding, Spec, ShapeStruct)


def _is_jax_instance(value: Value, is_one: Callable[[Value], bool]) -> bool | None:
    """`isinstance(value, C)` for a JAX class C of `_JAX_CLASSES`: decided for the JAX objects
    jaxfix knows, None and plain data (no JAX class's object); None (cannot tell) else."""
    if isinstance(value, _JAX_OBJECTS):
        return is_one(value)
    if value is None or (
        isinstance(value, _PLAIN_DATA) and not isinstance(value, Unknown)
    ):
        return False
    return None


def _rebinds(name: ast.Name, parents: dict[ast.AST, ast.AST]) -> bool:
    """`name` is bound anew (`mesh_shape = [...]`, `a, b = ...`, a `for` target): the
    parameter's old value is left as it was. Not `name += x`, which extends a list in place."""
    return isinstance(name.ctx, ast.Store) and not isinstance(
        parents.get(name), ast.AugAssign
    )


def _placed_outputs(body: Value, out: Value) -> Value | None:
    """The outputs `body` (what the function returns un-jitted) placed by `out_shardings`
    `out`: an array on a NamedSharding of a known mesh, or a tuple of outputs (one sharding
    for all, or a tuple of one per output; an output without one is Unknown); None when the
    structure does not show it."""
    if isinstance(body, Array):
        if isinstance(out, Sharding) and isinstance(out.mesh, Mesh):
            return replace(body, sharding=out)
        return None
    if isinstance(body, tuple):
        if isinstance(out, tuple) and len(out) != len(body):
            return None
        outs = out if isinstance(out, tuple) else (out,) * len(body)
        placed = [_placed_outputs(b, o) for b, o in zip(body, outs)]
        return tuple(
            Unknown("what a jitted function returns") if p is None else p
            for p in placed
        )
    return None


_CARRIED_ROUNDS = 3  # a loop carrying arrays settles in two
_K = TypeVar("_K")
_V = TypeVar("_V")


def _drop_after(kept: dict[_K, _V], size: int) -> None:
    """Forget the entries added to `kept` after it held `size` (insertion order)."""
    for new in list(kept)[size:]:
        del kept[new]


def _widened(values: list[Value]) -> tuple[Value] | None:
    """One value covering each of `values` (boxed: it may be None): the value itself where
    they are all alike; arrays on NamedShardings of one mesh (the same mesh object), on that
    mesh with their spec where they agree (else unknown); tuples and dicts of one structure,
    item by item; None for anything else."""
    first = values[0]
    if all(same(first, v) for v in values[1:]):
        return (first,)
    if all(isinstance(v, Array) for v in values):
        return _widened_arrays([v for v in values if isinstance(v, Array)])
    columns: list[list[Value]]
    if isinstance(first, tuple) and all(
        isinstance(v, tuple) and len(v) == len(first) for v in values
    ):
        columns = [
            [v[i] for v in values if isinstance(v, tuple)] for i in range(len(first))
        ]
        found = [_widened(c) for c in columns]
        if any(f is None for f in found):
            return None
        return (tuple(f[0] for f in found if f is not None),)
    if isinstance(first, DictValue) and all(isinstance(v, DictValue) for v in values):
        dicts = [v for v in values if isinstance(v, DictValue)]
        keys = [k for k, _ in first.items]
        if any([k for k, _ in d.items] != keys for d in dicts[1:]):
            return None
        items: list[tuple[Value, Value]] = []
        for index, key in enumerate(keys):
            item = _widened([d.items[index][1] for d in dicts])
            if item is None:
                return None
            items.append((key, item[0]))
        return (DictValue(tuple(items)),)
    return None


def _widened_arrays(arrays: list[Array]) -> tuple[Value] | None:
    placed: list[tuple[Mesh, Sharding]] = []
    for array in arrays:
        sharding = array.sharding
        if not isinstance(sharding, Sharding) or not isinstance(sharding.mesh, Mesh):
            return None
        placed.append((sharding.mesh, sharding))
    mesh, first = placed[0]
    if any(m != mesh or m.origin is not mesh.origin for m, _ in placed[1:]):
        return None
    agreed = all(same(s.spec, first.spec) for _, s in placed[1:])
    spec = first.spec if agreed else Unknown("the spec of an array a loop carries")
    return (Array(Sharding(mesh, spec, first.origin), (), False, arrays[0].origin),)


def _holds_placed_array(value: Value) -> bool:
    """Whether `value` is, or a tuple or dict of it holds, an array on a NamedSharding."""
    if isinstance(value, Array):
        return isinstance(value.sharding, Sharding)
    if isinstance(value, tuple):
        return any(_holds_placed_array(v) for v in value)
    if isinstance(value, DictValue):
        return any(_holds_placed_array(v) for _, v in value.items)
    return False


def _cotangents(primal: Value, node: ast.AST) -> Value:
    """The gradients of `primal` (a tree of arrays): the same structure, each array on its
    own array's mesh when that mesh's axes are Explicit (a cotangent has its primal's type:
    jax 0.10.2 and 0.12.0.1), its spec left unknown; Unknown where the tree is not spelled
    out or an array is on no such mesh."""
    lost = "a gradient of an array jaxfix does not see on a mesh of Explicit axes"
    if isinstance(primal, Array):
        typed = _typed_outputs(primal)
        if not isinstance(typed, Array) or not isinstance(typed.sharding, Sharding):
            return Unknown(lost)
        spec = Unknown("the spec of a gradient")
        return Array(replace(typed.sharding, spec=spec), (), False, node)
    if primal is None:
        return None
    if isinstance(primal, tuple):
        return tuple(_cotangents(p, node) for p in primal)
    if isinstance(primal, ListValue):
        return ListValue(tuple(_cotangents(p, node) for p in primal.items))
    if isinstance(primal, DictValue):
        return DictValue(tuple((k, _cotangents(v, node)) for k, v in primal.items))
    return Unknown("gradients of a tree jaxfix does not spell out")


def _typed_outputs(body: Value) -> Value | None:
    """What a function jitted without shardings returns, of what its body (run un-jitted)
    returns: an array on a NamedSharding of a mesh of Explicit axes stays on it (its type:
    jax 0.10.2 and 0.12.0.1 give each output the sharding of its type, a computed one on its
    operands' mesh, a placed one where it was placed); tuples, lists and dicts of outputs
    keep their structure; None for anything else (with Auto axes the compiler picks the
    output's sharding; a number becomes an array on a mesh the body does not show)."""
    if isinstance(body, Array):
        sharding = body.sharding
        if not isinstance(sharding, Sharding) or not isinstance(sharding.mesh, Mesh):
            return None
        types = sharding.mesh.axis_types
        return body if types and all(t is AxisType.EXPLICIT for t in types) else None
    lost = "what a jitted function returns"
    if isinstance(body, tuple):
        return tuple(_typed_or_lost(b, lost) for b in body)
    if isinstance(body, ListValue):
        return ListValue(tuple(_typed_or_lost(b, lost) for b in body.items))
    if isinstance(body, DictValue):
        return DictValue(tuple((k, _typed_or_lost(v, lost)) for k, v in body.items))
    return None


def _typed_or_lost(body: Value, why: str) -> Value:
    """An output of `_typed_outputs` (None, an empty subtree, stays None), else Unknown."""
    if body is None or isinstance(body, Unknown):
        return body  # what the body does not show, and why
    typed = _typed_outputs(body)
    return Unknown(why) if typed is None else typed


def _one_leaf(leaves: tuple[Value, ...], why: str) -> Value:
    """The one value every leaf is; for shardings on one mesh with different specs (a tree
    map's `NamedSharding(mesh, spec)` per parameter), a sharding on that mesh whose spec is
    Unknown."""
    if all(isinstance(leaf, Sharding) for leaf in leaves):
        shardings = [leaf for leaf in leaves if isinstance(leaf, Sharding)]
        mesh = join([leaf.mesh for leaf in shardings], why)
        if not isinstance(mesh, Unknown):
            spec = join([leaf.spec for leaf in shardings], why)
            return Sharding(mesh, spec, shardings[0].origin)
    return join(list(leaves), why)


def _tree_leaves(tree: Value) -> tuple[Value, ...] | None:
    """`jax.tree.leaves(tree)` for a tree the code spells out: tuples and lists in order, a
    dict's values by sorted keys (as JAX flattens it), None no leaf, and JAX's own objects
    and Python numbers and strings as leaves; None (not spelled out) for anything else (an
    object of the tree may be a registered node)."""
    if tree is None:
        return ()
    if isinstance(tree, Unknown):
        return None
    if isinstance(tree, (tuple, ListValue)):
        items = _items(tree)
    elif isinstance(tree, DictValue):
        if not all(isinstance(k, str) for k, _ in tree.items):
            return None
        items = tuple(v for _, v in sorted(tree.items, key=lambda kv: str(kv[0])))
    elif isinstance(tree, (Array, ShapeStruct, Sharding, Mesh, bool, int, float, str)):
        return (tree,)
    else:
        return None
    if items is None:
        return None
    found: list[Value] = []
    for item in items:
        leaves = _tree_leaves(item)
        if leaves is None:
            return None
        found.extend(leaves)
    return tuple(found)


def _item_of(iterated: Value, path: tuple[tuple[int, int, int], ...]) -> Value:
    """What a `for` loop's variable (at `path` in the target's tuples) is at each turn: the
    one value every item of a tuple or list gives there, or what a generator of the tree
    yields; Unknown otherwise."""
    if isinstance(iterated, Yields):
        items: tuple[Value, ...] | None = (iterated.value,)
    else:
        items = _items(iterated) if isinstance(iterated, (tuple, ListValue)) else None
    if not items:
        return Unknown("a loop over values jaxfix does not spell out")
    unpacked = []
    for item in items:
        for index, length, star in path:
            item = _unpacked(item, index, length, star)
        unpacked.append(item)
    return join(unpacked, "a loop over different values")


def _is_classmethod(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(d, ast.Name) and d.id == "classmethod"
        for d in function.decorator_list
    )


def _literal_element(
    value: ast.expr, path: tuple[tuple[int, int, int], ...]
) -> ast.expr | None:
    """The expression an unpacking target at `path` takes from a literal tuple or list
    (`a, b = {}, []` gives `[]` for `b`); `value` itself for a plain target; None where an
    unpacking is not of a literal of its length without `*`."""
    for index, length, star in path:
        if not (
            star < 0
            and isinstance(value, (ast.Tuple, ast.List))
            and len(value.elts) == length
            and not any(isinstance(e, ast.Starred) for e in value.elts)
        ):
            return None
        value = value.elts[index]
    return value


def _item_stores_in(
    module: Module, name: str, scope: ast.FunctionDef
) -> tuple[ast.Assign, ...]:
    """`Evaluator._item_stores`' scan of the module's reads of `name` (a read outside the
    lines of the function and its decorators is not under it: tested before its parents are
    walked)."""
    first = min([scope.lineno, *(d.lineno for d in scope.decorator_list)])
    end = scope.end_lineno or sys.maxsize
    stores: list[ast.Assign] = []
    reads: list[ast.Name] = []
    for use in module.loads_by_name.get(name, ()):
        if (
            not isinstance(use, ast.Name)
            or not first <= use.lineno <= end
            or not module.is_within(use, scope)
        ):
            continue
        if module.scope_of(use) is not scope:
            return ()
        store = _item_store_of(module, use)
        if store is not None:
            stores.append(store)
        elif reads_only(use, module.parents):
            reads.append(use)
        else:
            return ()
    if not stores:
        return ()
    last = max(module.line(s) for s in stores)
    if any(
        module.line(r) <= last and not _computes_from_items(module, r) for r in reads
    ):
        return ()  # read before a store: another name may hold the changed object
    return tuple(sorted(stores, key=module.line))


def _item_store_of(module: Module, use: ast.Name) -> ast.Assign | None:
    """The statement `use[key] = value` that `use` is the container of, else None."""
    item = module.parents.get(use)
    statement = module.parents.get(item) if item is not None else None
    if (
        isinstance(item, ast.Subscript)
        and item.value is use
        and isinstance(item.ctx, ast.Store)
        and isinstance(statement, ast.Assign)
        and statement.targets == [item]
    ):
        return statement
    return None


# Functions that compute a new value from a list's items at once, keeping no reference.
_FROM_ITEMS = frozenset(
    {"len", "tuple", "list", "sorted", "sum", "min", "max", "prod", "int", "any", "all"}
)


def _computes_from_items(module: Module, use: ast.Name) -> bool:
    """`use` is read only for what its items are now: `use[i]`, `use.index(v)`,
    `use.count(v)`, `v in use`, or the argument of a function that computes a value from
    its items at once (`len`, `tuple`, `math.prod`, `np.prod`)."""
    parent = module.parents.get(use)
    if isinstance(parent, ast.Subscript):
        return parent.value is use and isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Compare):
        return True
    if isinstance(parent, ast.Attribute):
        call = module.parents.get(parent)
        return (
            parent.attr in ("index", "count")
            and isinstance(call, ast.Call)
            and call.func is parent
        )
    if isinstance(parent, ast.Call) and parent.func is not use:
        func = parent.func
        called = func.attr if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Name):
            called = func.id
        return called in _FROM_ITEMS and len(parent.args) == 1 and not parent.keywords
    return False


def _item_replaced(container: Value, key: Value, item: Value) -> Value:
    """`container` with `container[key] = item` done: a list's known index (negative ones
    from its end), a dict's key (a new key goes last)."""
    if isinstance(container, ListValue):
        if not isinstance(key, int) or isinstance(key, bool):
            return Unknown("an item store at an index jaxfix does not know")
        items = list(container.items)
        if not -len(items) <= key < len(items):
            return Unknown("an item store past the list's end")
        items[key] = item
        return ListValue(tuple(items))
    if isinstance(container, DictValue):
        if not known(key) or not isinstance(key, (str, int)):
            return Unknown("an item store at a key jaxfix does not know")
        if any(k == key for k, _ in container.items):
            return DictValue(
                tuple((k, item if k == key else v) for k, v in container.items)
            )
        return DictValue((*container.items, (key, item)))
    return Unknown("an item store into a value jaxfix does not spell out")


def _filling_in_a_loop(
    module: Module, use: ast.Name, appends: bool
) -> tuple[ast.stmt, ast.For] | None:
    """The statement filling the container `use` reads, with the `for` loop whose body it is
    directly in: `use.append(v)` for a list (`appends`), `use[k] = v` for a dict; None for
    any other use."""
    item = module.parents.get(use)
    statement = module.parents.get(item) if item is not None else None
    if appends:
        if not (
            isinstance(item, ast.Attribute)
            and item.attr == "append"
            and isinstance(statement, ast.Call)
            and statement.func is item
            and len(statement.args) == 1
            and not statement.keywords
            and not isinstance(statement.args[0], ast.Starred)
        ):
            return None
        statement = module.parents.get(statement)
        if not isinstance(statement, ast.Expr):
            return None
    elif not (
        isinstance(item, ast.Subscript)
        and isinstance(item.ctx, ast.Store)
        and isinstance(statement, ast.Assign)
        and statement.targets == [item]
    ):
        return None
    loop = module.parents.get(statement)
    return (statement, loop) if isinstance(loop, ast.For) else None


_PLAIN_METHOD_DECORATORS = frozenset(
    {"property", "cached_property", "staticmethod", "classmethod", "abstractmethod"}
)


def _plain_method_decorator(decorator: ast.expr) -> bool:
    """`@property`, `@functools.cached_property`, `@staticmethod`, `@classmethod`,
    `@abc.abstractmethod` or a property's `@x.setter`: none calls the method elsewhere."""
    if isinstance(decorator, ast.Name):
        return decorator.id in _PLAIN_METHOD_DECORATORS
    return isinstance(decorator, ast.Attribute) and (
        decorator.attr in _PLAIN_METHOD_DECORATORS or decorator.attr == "setter"
    )


def _inert_class_statement(statement: ast.stmt) -> bool:
    """A docstring, `pass`, or a constant bound in a class body (`name = 3`, `x: int = 1`)."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Constant)
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        value = statement.value
        return value is None or all(
            isinstance(n, (ast.Constant, ast.Tuple, ast.Load)) for n in ast.walk(value)
        )
    return False


def _returned_through(
    value: Value, function: Function, path: Path, call: ast.expr
) -> Value:
    """A mesh a call of a function of the tree returns (a property's getter read at `call`,
    a static or class method called), with that call's place first among the frames it was
    built through (the line that built it last, when the function built it); each call site
    its own, whatever the call cache shares. A mesh the function was given (its first frame
    is not in its body) was not built through this call: it is left as it is."""
    if not isinstance(value, Mesh) or function.wrapped_by not in _FRAMED_WRAPPERS:
        return value
    return _framed(value, function.node, function.path, path, call.lineno)


def _framed(
    mesh: Mesh,
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
    defined_in: Path,
    path: Path,
    line: int,
) -> Mesh:
    """`mesh` with the frame at `line` of `path` first, where `function` (defined in
    `defined_in`) ran the outermost place it was built through: its first frame, else the
    expression that built it, is in the function's body."""
    frames = mesh.built_at
    origin = mesh.origin
    if not frames:
        if not (
            isinstance(origin, ast.expr)
            and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(n is origin for n in ast.walk(function))
        ):
            return mesh
        frames = ((defined_in, origin.lineno),)
    elif not (
        frames[0][0] == defined_in
        and function.lineno <= frames[0][1] <= (function.end_lineno or function.lineno)
    ):
        return mesh
    return replace(mesh, built_at=((path, line), *frames))


def _forwards_own_kwargs(
    module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef, spread: ast.expr
) -> bool:
    """Whether `**spread` is `function`'s own `**kwargs`, only ever read as a whole: never
    rebound, stored into, or read by a method or subscript (`kwargs.pop(...)`)."""
    kwarg = function.args.kwarg
    if kwarg is None or not (isinstance(spread, ast.Name) and spread.id == kwarg.arg):
        return False
    for node in ast.walk(function):
        if not (isinstance(node, ast.Name) and node.id == kwarg.arg):
            continue
        parent = module.parents.get(node)
        if not isinstance(node.ctx, ast.Load) or not isinstance(parent, ast.keyword):
            return False
    return True


def _on_own_first_parameter(module: Module, store: ast.Attribute) -> bool:
    """Whether `store` (`x.name = ...`) is a method's store on its own first parameter (`self`
    of a function defined in a class body, the function whose code it is)."""
    function = module.scope_of(store)
    return (
        isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        and isinstance(module.parents.get(function), ast.ClassDef)
        and module.stores_on_first_parameter(store, function)
    )


def _source_order(binding: Binding) -> tuple[int, int]:
    """Where a binding is written: the same answer (its trail's place) on every run."""
    return (
        getattr(binding.node, "lineno", 0),
        getattr(binding.node, "col_offset", 0),
    )


def _iterated(use: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """`use` is what a loop or comprehension walks: its items are bound to a name."""
    parent = parents.get(use)
    return (
        isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension))
        and parent.iter is use
    )


def _calls_of_local(module: Module, value: ast.expr) -> list[ast.Call] | None:
    """Where `value` is what a function binds, once, to a local name (`g = value`), and
    every read of the name in that function is a call of it (none in a nested function):
    those calls; None otherwise."""
    statement = module.parents.get(value)
    scope = module.scope_of(value)
    if not (
        isinstance(statement, ast.Assign)
        and statement.value is value
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
    ):
        return None
    name = statement.targets[0].id
    stores = [
        n
        for n in ast.walk(scope)
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
    ]
    if stores != [statement.targets[0]] or name in module.declared_global:
        return None
    calls: list[ast.Call] = []
    for read in module.loads_by_name.get(name, ()):
        if not isinstance(read, ast.Name) or not module.is_within(read, scope):
            continue  # `modeling.forward` is not the name
        call = module.parents.get(read)
        if module.scope_of(read) is not scope or not (
            isinstance(call, ast.Call) and call.func is read
        ):
            return None
        calls.append(call)
    return calls


def _registering_store(
    module: Module, use: ast.Name
) -> tuple[ast.FunctionDef, bool] | None:
    """The module-level function whose body makes `use` the dict of a store
    `NAME[key] = param` of its one parameter (a registering decorator's: `def register(cls)`),
    or that returns such a function it defines (a decorator factory's: `def register(name):
    def wrap(cls): ...; return wrap`), and whether it is a factory; None otherwise."""
    target = module.parents.get(use)
    statement = module.parents.get(target) if target is not None else None
    scope = module.scope_of(use)
    if not (
        isinstance(target, ast.Subscript)
        and target.value is use
        and isinstance(target.ctx, ast.Store)
        and isinstance(statement, ast.Assign)
        and statement.targets == [target]
        and isinstance(scope, ast.FunctionDef)
        and statement in scope.body
    ):
        return None
    outer = module.parents.get(scope)
    factory = isinstance(outer, ast.FunctionDef) and outer in module.tree.body
    if factory:
        assert isinstance(outer, ast.FunctionDef)
        returned = [n for n in outer.body if isinstance(n, ast.Return)]
        if not (
            scope in outer.body
            and len(returned) == 1
            and isinstance(returned[0].value, ast.Name)
            and returned[0].value.id == scope.name
        ):
            return None
    elif scope not in module.tree.body:
        return None
    params = [*scope.args.posonlyargs, *scope.args.args]
    if not (
        len(params) == 1
        and isinstance(statement.value, ast.Name)
        and statement.value.id == params[0].arg
        and not any(
            isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr))
            and params[0].arg in _stored_names(n)
            for n in ast.walk(scope)
        )
    ):
        return None
    if factory:
        assert isinstance(outer, ast.FunctionDef)
        return outer, True
    return scope, False


def _stored_names(node: ast.AST) -> set[str]:
    targets: list[ast.AST] = (
        list(node.targets)
        if isinstance(node, ast.Assign)
        else [node.target]
        if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr))
        else []
    )
    names: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
    return names  # `d[key] = v`, `o.a = v` rebind no name


def _holds_container(value: Value) -> bool:
    """A list, dict or namespace, or a tuple holding one (`args = example_inputs()`, then
    `args[0]["tokens"] = ...`: the tuple cannot change, the dict it holds can)."""
    if isinstance(value, (ListValue, DictValue, Namespace, Items)):
        return True
    return isinstance(value, tuple) and any(_holds_container(v) for v in value)
