"""Run-time evidence (`--from-log`, `--evidence`, `repair`): a traceback or a recorded run
showed that a rule's error was raised at a line.

Plain data that crosses from the log and evidence readers (jaxfix/fromlog/, jaxfix/evidence/records.py)
through Options to the analysis, which hands it to the rule at that line; no libcst here.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

LISTED = 3  # how many of a log's many values a message names


def listed(items: Sequence[str], joiner: str = ", ") -> str:
    """The first few items, then how many there are: a log of 20,000 tracebacks that disagree
    makes a line a reader can take in ("12, 40, 77, ... (20,000 in all)"), not a megabyte."""
    if len(items) <= LISTED:
        return joiner.join(items)
    return f"{joiner.join(items[:LISTED])}{joiner}... ({len(items):,} in all)"


@dataclass(frozen=True)
class MeshFacts:
    """A mesh as JAX's error message prints it."""

    kind: str  # "abstract" or "concrete"
    axis_names: tuple[str, ...]
    axis_sizes: tuple[int, ...]
    axis_types: tuple[str, ...] | None  # None when the message does not show them
    has_abstract_device: bool
    device_count: int | None = (
        None  # a concrete mesh's devices, when a recorded run read it
    )

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    @property
    def is_empty(self) -> bool:
        return not self.axis_sizes

    def differs_from(self, other: MeshFacts) -> bool:
        """Whether JAX surely holds them for two meshes: other axis names or sizes, or axis
        types both show and that differ."""
        return (self.axis_names, self.axis_sizes) != (
            other.axis_names,
            other.axis_sizes,
        ) or (
            self.axis_types is not None
            and other.axis_types is not None
            and self.axis_types != other.axis_types
        )


@dataclass(frozen=True)
class Facts(Mapping[str, MeshFacts]):
    """The meshes one error message names, by role: each rule's `raises` templates name them
    (`{mesh:context}`, see jaxfix/evidence/message_templates.py), so which roles depends on the error;
    `counts`, the numbers it states of what is no mesh (`{count:devices}`: JAX010's device
    assignment size), by role."""

    meshes: tuple[tuple[str, MeshFacts], ...] = ()  # sorted by role
    counts: tuple[tuple[str, int], ...] = ()  # sorted by role

    @classmethod
    def of(
        cls, meshes: Mapping[str, MeshFacts], counts: Mapping[str, int] | None = None
    ) -> Facts:
        return cls(
            tuple(sorted(meshes.items(), key=lambda item: item[0])),
            tuple(sorted((counts or {}).items())),
        )

    def count(self, role: str) -> int | None:
        """The number the message states by `role`, if it states one."""
        return dict(self.counts).get(role)

    def __getitem__(self, role: str) -> MeshFacts:
        for name, mesh in self.meshes:
            if name == role:
                return mesh
        raise KeyError(role)

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self.meshes)

    def __len__(self) -> int:
        return len(self.meshes)


@dataclass(frozen=True)
class Origin:
    """Where a recorded run saw a mesh an error names `built` or `entered` (its `role`, as in
    Facts): the user frames in the tree, outermost first, each `(file, line)`; the chain stops
    at the innermost frame that could not be placed in the tree as it is now."""

    role: str
    kind: str  # "built" or "entered"
    frames: tuple[tuple[Path, int], ...]
    # The meshes the record these frames come from names: a line reached by several tests
    # (each with its own chain and its own meshes) ties each chain to its own sizes.
    facts: Facts | None = None
    # kind "cached": a mesh another test's body built, which a memoized factory handed to the
    # record's test; `reached`: the record's own frames to the line that raised, outermost
    # first (the call of that factory on its path is looked for there).
    reached: tuple[tuple[Path, int], ...] = ()
    # Each of `frames`' call's columns (0-based, in characters) where the run recorded them,
    # the call fits on its line and the line still shows its text there; else None: which
    # of two calls on one line the run made.
    columns: tuple[tuple[int, int] | None, ...] = ()
    # The mesh itself as the record held it, for a role no message names (JAX013's `made`):
    # its axes, never checked against a message.
    mesh: MeshFacts | None = None

    def describe(self, root: Path | None = None) -> str:
        """`pkg/meshes.py:5, called from main.py:10`: innermost first."""
        places = [
            f"{_shown(path, root)}:{line}" for path, line in reversed(self.frames)
        ]
        return ", called from ".join(places[:LISTED])


def _divisor(dividend: int, size: int) -> int | None:
    """The integer `n` with `dividend // n == size` that divides `dividend` exactly, else
    None."""
    if size <= 0 or dividend % size:
        return None
    return dividend // size


def _sizes(mesh: MeshFacts) -> str:
    """`(data 4, model 2)`."""
    return (
        "("
        + ", ".join(f"{n} {s}" for n, s in zip(mesh.axis_names, mesh.axis_sizes))
        + ")"
    )


def _match(facts: Facts | None, role: str | None) -> str:
    """`: set them to (data 2, model 4), the context mesh's sizes`, when the message names
    one other mesh with the same axis names and another size per axis."""
    if facts is None or role is None or role not in facts:
        return ""
    mesh = facts[role]
    others = [(r, m) for r, m in facts.meshes if r != role]
    if len(others) != 1:
        return ""
    other_role, other = others[0]
    if other.axis_names != mesh.axis_names or other.axis_sizes == mesh.axis_sizes:
        return ""
    return f": set them to {_sizes(other)}, the {other_role} mesh's sizes, or the {other_role} mesh's to these"


def _other_mesh(
    facts: Facts | None, role: str | None
) -> tuple[MeshFacts, tuple[str, MeshFacts]] | None:
    """The `role` mesh and the one other mesh the message names, (its role, it), when they
    have the same axis names."""
    if facts is None or role is None or role not in facts:
        return None
    others = [(r, m) for r, m in facts.meshes if r != role]
    if len(others) != 1 or others[0][1].axis_names != facts[role].axis_names:
        return None
    return facts[role], others[0]


def _shown(path: Path, root: Path | None) -> str:
    absolute = Path(os.path.abspath(path))
    if root is not None and absolute.is_relative_to(root):
        return absolute.relative_to(root).as_posix()
    return path.as_posix()


@dataclass(frozen=True)
class DataEntry:
    """A JSON file's entry that holds a mesh's sizes (the site's `path` is that file): `items`,
    the byte span (start, end) of each integer in the file; `digest`, the SHA-256 of the file's
    bytes as read (a fix writes only over those bytes); `text`, the entry as written there
    (`[4, 4]`)."""

    items: tuple[tuple[int, int], ...]
    digest: str
    text: str


@dataclass(frozen=True)
class ValueSite:
    """Where the sizes of a mesh the run saw raising are written, found by walking back along
    the frames that built it (jaxfix/analysis/ast_engine/written_at.py): the expression to
    replace in `path` (`span`: line, column, end line, end column; columns 0-based, in
    characters), or with `keyword` the construction to give that keyword; `raised`: the line
    that raised, `name` what a reader calls the value (`EVAL['mesh']['shape']`), `why` why the
    fix goes there rather than where the value is first written."""

    raised: tuple[Path, int]
    path: Path
    span: tuple[int, int, int, int]
    name: str
    keyword: str | None = None
    why: str | None = None
    entry: DataEntry | None = None  # in a JSON file: the entry, not Python code
    # The value is one axis's size alone (`dp=4`, `"dp_size": 4`): the axis of the mesh.
    axis: int | None = None
    # The meshes of the records whose chains lead here, when the line that raised was
    # reached along several (each test its own chain and sizes); () when they are the
    # evidence's own.
    facts: tuple[Facts, ...] = ()
    # The sizes are the value of a `key=value` override string (`"eval.mesh_shape=2,2"`) at
    # `span`: its key.
    override: str | None = None
    # The value is the number of devices a `-1` axis is filled from: the mesh's size.
    total: bool = False
    # The value is this environment variable's integer (`int(os.environ.get("TP", "4"))`),
    # times `scale[0]`, floor-divided by `scale[1]`.
    variable: str | None = None
    scale: tuple[int, int] = (1, 1)
    # ... or `dividend` floor-divided by it (`num_devices // num_partitions`)
    dividend: int | None = None
    # The mesh of the error's message (its role, as in Facts) whose sizes come from here,
    # for an error whose rule has no walk of its own (`Evidence.mesh_origins`).
    role: str | None = None
    # Where the host values it reads are read (an environment variable's `os.environ.get`),
    # when on other lines than `span`'s.
    reads_at: tuple[tuple[Path, int], ...] = ()
    # The value is the argument a call passes for this parameter of the function it calls
    # (a mesh the callee makes an out_sharding on).
    passed_as: str | None = None
    # ... and the mesh the `with` around that call gave the context, as the code names it,
    # where the run built the context mesh where that name holds it.
    entered: str | None = None
    # The value is a pytree of arrays (the gather's out_sharding is a container of
    # shardings): a move onto another mesh goes leaf by leaf.
    tree: bool = False
    # The value is the mesh a `with` enters as the context, where the input and the
    # out_sharding are on another: that mesh, as the entering function names it.
    onto: str | None = None
    # The walk stopped here, at an expression it does not follow (the sizes computed from
    # other values): named beside where the run built the mesh, which it does not replace.
    unfollowed: bool = False
    # The value is the `jax.make_mesh(...)` call that made the mesh the error is about, with
    # this many axes (as the engine saw them where it raised).
    axes: int | None = None
    # The sizes are computed from entries of a config file the run was given: each entry's
    # file, line and `key is value` (jaxfix/check/config_factors.py), and what the sizes must
    # multiply to (None: the message does not say).
    factors: tuple[tuple[Path, int, str], ...] = ()
    product: int | None = None
    factors_as_run: bool = False  # the entries as written give the run's sizes
    # The value is the mesh's axis names (a literal of strings), not its sizes: a mesh of
    # the same sizes and types as the one it must match, under other names.
    names: bool = False

    def variable_setting(
        self, size: int, environment: Sequence[EnvironmentRead] = ()
    ) -> str | None:
        """What to set `variable` to for the value to be `size`: "the environment variable
        X: set it to N; ", or None when there is no variable or no integer does it. A
        quotient's variable (`dividend`) is named with its value in the run, when the run
        read one at that place (`environment`)."""
        if self.variable is None:
            return None
        if self.dividend is not None:
            value = _divisor(self.dividend, size)
            if value is None:
                return None
            held = self._held(environment)
            shown = f" is {held} in the run" if held else ""
            return (
                f"the environment variable {self.variable}{shown}: set it to {value}; "
            )
        times, over = self.scale
        if size % times:
            return None
        return f"the environment variable {self.variable}: set it to {size // times * over}; "

    def _held(self, environment: Sequence[EnvironmentRead]) -> str | None:
        """The one value the run read `variable` as at this place, when it reads as an
        integer; else None."""
        places = {(self.path, self.span[0]), *self.reads_at}
        values = {
            r.value
            for r in environment
            if r.variable == self.variable
            and r.value is not None
            and (Path(os.path.realpath(r.path)), r.line) in places
        }
        held = next(iter(values), None) if len(values) == 1 else None
        if held is None or not (held.isascii() and held.isdigit() and len(held) < 10):
            return None
        return held

    def variable_match(
        self,
        facts: Facts | None,
        environment: Sequence[EnvironmentRead] = (),
    ) -> str | None:
        """`: TP is 4 in the run; set it to 8 for them to be the aval mesh's sizes (data 8)`:
        what `variable` must hold for the mesh of `role` to have the other mesh's sizes, when
        the message names one other mesh of the same axis names differing at the one axis the
        variable sizes, and an integer does it; the run's value when it recorded one that
        gives this mesh's size (`environment`). None when it is not that certain."""
        if self.variable is None or self.total:
            return None
        pair = _other_mesh(facts, self.role)
        if pair is None:
            return None
        mesh, (role, other) = pair
        axis = self.axis if self.axis is not None else 0
        sizes, wanted = mesh.axis_sizes, other.axis_sizes
        differing = [i for i, (a, b) in enumerate(zip(sizes, wanted)) if a != b]
        if differing != [axis] or (self.axis is None and len(sizes) != 1):
            return None
        times, over = self.scale
        places = {(self.path, self.span[0]), *self.reads_at}
        values = {
            r.value
            for r in environment
            if r.variable == self.variable
            and r.value is not None
            and (Path(os.path.realpath(r.path)), r.line) in places
        }
        if len(values) > 1 or wanted[axis] % times:
            return None
        held = next(iter(values), None)
        if held is not None and not (
            held.isascii()
            and held.isdigit()
            and len(held) < 10
            and int(held) > 0
            and (
                self.dividend // int(held)
                if self.dividend is not None
                else int(held) * times // over
            )
            == sizes[axis]
        ):
            return None  # the run read another value than the one sizing this mesh
        if self.dividend is not None:
            found = _divisor(self.dividend, wanted[axis])
            if found is None:
                return None
            setting = found
        else:
            setting = wanted[axis] // times * over
        shown = (
            f"{self.variable} is {held} in the run; set it"
            if held
            else f"set {self.variable}"
        )
        return (
            f": {shown} to {setting} for them to be the {role} mesh's sizes "
            f"{_sizes(other)}"
        )

    def entry_match(self, facts: Facts | None) -> str | None:
        """`: set it to [8, 2] for them to be the aval mesh's sizes (data 8, model 2)`: what
        the config file's entry (`entry`) must hold for the mesh of `role` to have the other
        mesh's sizes, when the message names one other mesh of the same axis names (its one
        axis's size, when the entry holds that axis alone and only it differs)."""
        pair = _other_mesh(facts, self.role) if self.entry is not None else None
        if pair is None:
            return None
        mesh, (role, other) = pair
        wanted = other.axis_sizes
        if self.axis is None:
            value = "[" + ", ".join(str(s) for s in wanted) + "]"
        elif [i for i, (a, b) in enumerate(zip(mesh.axis_sizes, wanted)) if a != b] == [
            self.axis
        ]:
            value = str(wanted[self.axis])
        else:
            return None
        return f": set it to {value} for them to be the {role} mesh's sizes {_sizes(other)}"

    def where(self, root: Path | None = None) -> str:
        return f"{_shown(self.path, root)}:{self.span[0]}"

    def read_where(self, root: Path | None = None) -> str:
        """`; read at pkg/env.py:12`: where its host values are read, when on other lines."""
        places = [
            f"{_shown(path, root)}:{line}"
            for path, line in self.reads_at
            if (path, line) != (self.path, self.span[0])
        ]
        return f" (read at {listed(places)})" if places else ""

    def factor_note(self, root: Path | None = None) -> str:
        """`; its factors are written at conf.yml:18 (dcn_data_parallelism is 1), ...; the sizes
        must multiply to 8`: the config entries the sizes are computed from."""
        placed = [
            f"{_shown(p, root)}:{line} ({what})" for p, line, what in self.factors
        ]
        if not placed:
            return ""
        must = (
            f"; the sizes must multiply to {self.product}"
            if self.product is not None
            else ""
        )
        held = (
            ""
            if self.factors_as_run
            else ", as the config file holds them now (an override on the command line "
            "or in the environment may have changed them in the run)"
        )
        return f"; its factors are written at {listed(placed)}{held}{must}"

    def setting(self) -> str | None:
        """What the value written here would have to be for the inner mesh of the records
        whose path leads here (`facts`) to have the enclosing mesh's size: `axis 'expert'
        is 4 in the run; 8 would make the enclosing size 8`; None when they disagree or no
        whole number does."""
        new = {m for f in self.facts if (m := f.get("new")) is not None}
        prev = {m.size for f in self.facts if (m := f.get("prev")) is not None}
        if len(new) != 1 or len(prev) != 1:
            return None
        (inner,), (target,) = new, prev
        sizes = list(inner.axis_sizes)
        if self.total:  # the number of devices a `-1` axis is filled from
            return (
                f"the number of devices its `-1` axis is filled from is "
                f"{math.prod(s or 0 for s in sizes)} in the run; {target} would make the "
                f"enclosing size {target}"
            )
        outer = next(f["prev"] for f in self.facts if "prev" in f)
        enclosing = dict(zip(outer.axis_names, outer.axis_sizes))
        differing = [
            i
            for i, (n, size) in enumerate(zip(inner.axis_names, sizes))
            if n in enclosing and enclosing[n] != size
        ]
        axis = (
            self.axis if self.axis is not None else (differing[0] if differing else 0)
        )
        if not 0 <= axis < len(sizes):
            return None
        others = math.prod(s for i, s in enumerate(sizes) if i != axis)
        if others <= 0 or target % others:
            return None
        size = target // others
        name = (
            inner.axis_names[axis] if axis < len(inner.axis_names) else f"#{axis + 1}"
        )
        if self.axis is not None:
            return (
                (self.variable_setting(size) or "")
                + f"axis {name!r} is {sizes[axis]} in the run; {size} would make the "
                f"enclosing size {target}"
            )
        shown = ", ".join(str(size if i == axis else s) for i, s in enumerate(sizes))
        written = ", ".join(str(s) for s in sizes)
        return (
            f"the sizes are ({written}) in the run; ({shown}) would make the enclosing "
            f"size {target}"
        )


@dataclass(frozen=True)
class DevicesSeen:
    """How many devices a recorded run shows the program holds: at least `count` (a concrete
    mesh of that size its code built, at a line of the tree that builds one), or exactly `count`
    (`exact`: jax.make_mesh's message naming the count, raised from a line that calls it)."""

    count: int
    exact: bool
    what: str  # "a concrete mesh the run built", "jax.make_mesh's message"
    record: int  # the evidence record that shows it
    at: tuple[Path, int] | None = (
        None  # the line of the tree that built the mesh or raised
    )


@dataclass(frozen=True)
class EnvironmentRead:
    """An environment variable the run's code read: at `line` of `path` (a file of the tree
    whose line still names the variable), holding `value` in the run (None: unset, or a value
    the recorder does not keep, any but a size's), while pytest ran `test` (None: outside a
    test)."""

    variable: str
    value: str | None
    path: Path
    line: int
    test: str | None = None

    def during(self, tests: set[str | None]) -> bool:
        """Whether the read is on the way of records of `tests`: read outside a test, or in
        one of them, or the records are no test's."""
        return self.test is None or self.test in tests or None in tests


@dataclass(frozen=True)
class Evidence:
    """Every traceback of one error at one line of one local file, as one value."""

    code: str
    line: int  # 1-based, in the local file as it is now
    log_lines: tuple[
        int, ...
    ]  # where in the log the tracebacks end (1-based), sorted; or the records
    facts: tuple[Facts, ...]  # the distinct facts of those tracebacks, in log order
    # From a recorded run (Python >= 3.11): the span of the call that raised, 0-based columns in
    # characters, when it fits on `line`; None from a log.
    columns: tuple[int, int] | None = None
    jax_version: tuple[int, ...] | None = (
        None  # the JAX that raised, when the run recorded it
    )
    origin: str = "log line"  # what `log_lines` count: "log line" or "evidence record"
    # From a recorded run: where the meshes of its records were built and entered.
    origins: tuple[Origin, ...] = ()
    # Where the value the error is about is written (see ValueSite), or why jaxfix cannot say;
    # `at_value`: this is that place's own evidence (its `line` is the value's), not a line
    # that raised.
    value_site: ValueSite | None = None
    value_unknown: str | None = None
    # Where the walk from the run's frames stopped at the value itself, written as an
    # expression computed from the host when it runs (`jax.device_count() // 2`): the
    # origin a report names, which jaxfix does not change (`name`: the expression).
    value_origin: ValueSite | None = None
    # Every such origin, one for each path the run took to this line that ends at one, with
    # the meshes of that path's records (`ValueSite.facts`): each is named where it is written.
    value_origins: tuple[ValueSite, ...] = ()
    at_value: bool = False
    # For an error whose rule walks no value of its own (JAX011's context and out_sharding
    # meshes): where the run's frames lead for each mesh the message names, by `role`: the
    # place its sizes are computed from the host or written.
    mesh_origins: tuple[ValueSite, ...] = ()
    # From a recorded run: the directories its processes ran in (a config file named by a
    # relative path is read from there).
    cwds: tuple[Path, ...] = ()
    # From a log: the lines of this file its tracebacks passed through on the way to `line`
    # (outer frames: the call in a `with mesh:` block of a function raising elsewhere).
    callers: tuple[int, ...] = ()
    # From a recorded run: the devices its records show the program holds, when one does.
    devices: DevicesSeen | None = None
    # From a recorded run: the command-line arguments of its processes (a config file the
    # program loads may be named there).
    arguments: tuple[str, ...] = ()
    # From a recorded run: the environment variables its processes' code read.
    environment: tuple[EnvironmentRead, ...] = ()

    def origin_note(
        self, root: Path | None = None, settings: bool = True
    ) -> str | None:
        """Where the value is written when it is computed from the host (each of
        `value_origins`), in words, its file named from `root` (with `settings`, what the
        size would have to be on the path that leads there); else why a path reaches no
        place (`value_unknown`)."""
        origins = self.value_origins or (
            (self.value_origin,) if self.value_origin is not None else ()
        )
        if not origins:
            return self.value_unknown
        shown = []
        for origin in origins[:LISTED]:
            setting = origin.setting() if settings else None
            shown.append(
                f"the inner mesh's size comes from `{origin.name}`, written at "
                f"{origin.where(root)}{origin.read_where(root)} and {origin.why}"
                + (f" ({setting})" if setting else "")
            )
        note = (
            "; ".join(shown)
            + ": jaxfix writes no literal there, one would be right on "
            "this host only"
        )
        unknown = self.value_unknown
        if unknown and not any(f"`{o.name}`" in unknown for o in origins):
            note += f"; {unknown}"  # why another path reaches no place (changed since?)
        return note

    def mesh_note(self, root: Path | None = None) -> str | None:
        """Where each mesh the message names got its sizes, as the run's frames lead there
        (`mesh_origins`; else where the run built it), and what they would have to be to
        match the other mesh: the origins a report names when no fix is made."""
        facts = self.agreed
        shown = []
        walked = {o.role for o in self.mesh_origins if not o.unfollowed}
        for origin in self.mesh_origins[:LISTED]:
            mesh = facts.get(origin.role) if facts and origin.role else None
            sizes = f" {_sizes(mesh)}" if mesh is not None else ""
            shown.append(
                f"the {origin.role} mesh's sizes{sizes} come from `{origin.name}` at "
                f"{origin.where(root)}{origin.read_where(root)}, {origin.why}"
                f"{origin.factor_note(root)}"
                + (
                    origin.variable_match(facts, self.environment)
                    or origin.entry_match(facts)
                    or ("" if len(shown) else _match(facts, origin.role))
                )
            )
        named = [o for o in self.origins if o.kind == "built" and o.frames]
        named += [o for o in self.origins if o.kind == "entered" and o.frames]
        for place in named:
            if place.role in walked or facts is None or place.role not in facts:
                continue
            walked.add(place.role)
            shown.append(
                f"the run {place.kind} the {place.role} mesh {_sizes(facts[place.role])} "
                f"at {place.describe(root)}"
                + ("" if len(shown) else _match(facts, place.role))
            )
        return "; ".join(shown) if shown else None

    @property
    def agreed(self) -> Facts | None:
        """The facts, when every traceback of this site shows the same; None when they differ."""
        return self.facts[0] if len(self.facts) == 1 else None

    def meshes(self, role: str) -> tuple[MeshFacts, ...]:
        """The mesh of that role in each of the distinct facts that name one, in log order."""
        return tuple(m for m in (f.get(role) for f in self.facts) if m is not None)

    @property
    def where(self) -> str:
        return f"{self.origin}{'s' if len(self.log_lines) > 1 else ''} {listed([str(n) for n in self.log_lines])}"
