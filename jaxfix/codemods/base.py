"""The rule base class: a visitor over `ast` that reports; the engine applies the fixes.

Rules are batched: one walk of the module serves every rule that runs on a file, calling each
rule's `visit_<AstClass>(node)` in source order (a rule cannot skip a node's children, so only
`visit_` methods exist: a `leave_` method, or a `visit_` name that is not a plain method, is
refused when its class is defined). A rule asks its `Analysis` (the run's engine,
jaxfix/analysis/ast_engine/analysis.py) and reports `ast` nodes; a fix's edits are
`(ast node, edit)` pairs, LibCST being parsed only when a fix is applied (jaxfix/write/cst_edits.py).
"""

from __future__ import annotations

import ast
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.callers import CallerWay
from jaxfix.check.byte_tokens import Words, tokens_match
from jaxfix.evidence.facts import Evidence, Facts
from jaxfix.evidence.message_templates import check as check_templates
from jaxfix.evidence.message_templates import exceptions
from jaxfix.evidence.message_templates import roles as mesh_roles
from jaxfix.ground.diagnostics import Fix, Related, Report, Safety
from jaxfix.settings.jax_version import parse_version
from jaxfix.settings.options import Options
from jaxfix.settings.rule_settings import RuleSetting

if TYPE_CHECKING:  # a fix's edit imports LibCST when it runs
    import libcst as cst

DOC_SECTIONS = (
    "## What it does",
    "## Why is this bad?",
    "## Example",
    "## Use instead",
    "## Fix safety",
    "## References",
)


class Rule:
    """Subclasses set the class attributes below and put their ruff-style docs in the docstring."""

    code: ClassVar[str]
    name: ClassVar[str]  # kebab-case, e.g. "missing-lowering-platforms"
    summary: ClassVar[str]  # one line for --list-rules
    # Each kind of fix the rule makes -> what it does, one line; {} for a rule that only reports
    # (not a ClassVar, so that such a rule may write `fixes: dict[Safety, str] = {}`).
    # The one source of every description of the rule's fix safety; `report` enforces it.
    fixes: dict[Safety, str]
    # Prefilter: the file can only be flagged if, for some group, every token (a bytes regular
    # expression, searched in the raw file) matches. Plain literals, read without importing libcst.
    tokens: ClassVar[tuple[tuple[bytes, ...], ...]]
    # The messages of the JAX errors the rule reports, a hole for what varies: `{mesh:role}`
    # for a mesh the rule reads from a log (`{mesh}` for one it does not), `{size:role}` for
    # that mesh's size; see jaxfix/evidence/message_templates.py. A report inside
    # `with assertRaisesRegex(ValueError, p):` whose `p` may match one is dropped.
    raises: ClassVar[tuple[str, ...]] = ()
    # The builtin exception JAX raises with those messages (`TypeError` for a call Python
    # refuses): what a test of the error expects, a log's traceback and the recorder name;
    # a tuple gives one per message, where JAX raises them as different exceptions.
    error: ClassVar[str | tuple[str, ...]] = "ValueError"
    # Where JAX holds each role's mesh when it raises: a local variable of the raising frame,
    # then attributes ("self.prev"). The repair recorder reads them when that frame survives
    # JAX's traceback filtering; else the message tells.
    # A path `local[*].attribute` is a collection: each item is recorded as role0, role1, ...
    # (meshes the message does not name, kept for where the run built them).
    # `a.mesh|b.mesh`: the first that holds a mesh (the frames raising different messages).
    # `f:a.mesh`: in the innermost frame of JAX's function `f` below the call, a caller of
    # the raising frame (a mesh one message does not print: kept as the run held it).
    mesh_locals: ClassVar[Mapping[str, str]] = {}
    # Roles of `mesh_locals` that no message names (JAX008's "Got <class AbstractMesh>"),
    # recorded for where the run built them alone.
    unnamed_meshes: ClassVar[frozenset[str]] = frozenset()
    # The JAX source files that raise those errors (path suffixes, `/`-separated): a logged
    # traceback ending in one whose message cannot be read is said to be lost, not ignored.
    raised_in: ClassVar[tuple[str, ...]] = ()
    # The first JAX version on which the old code raises; None for a deprecation that only
    # warns on every JAX version jaxfix knows. The default selection is the rules whose old
    # code raises on the target JAX version; `--select ALL` adds the rest.
    raises_since: ClassVar[str | None] = "0"

    # The rule's own settings, `[tool.jaxfix.rules.<code>]` in config (read with `setting`).
    settings: ClassVar[tuple[RuleSetting, ...]] = ()

    _visitor_names: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Collects the rule's visitor methods once per class and refuses what the batched
        walk cannot honour."""
        super().__init_subclass__(**kwargs)
        names = []
        for name in dir(cls):
            if name.startswith("leave_"):
                raise TypeError(
                    f"{cls.__name__}.{name}: the batched walk calls visit_ methods only"
                )
            if not name.startswith("visit_"):
                continue
            if not inspect.isfunction(inspect.getattr_static(cls, name)):
                raise TypeError(f"{cls.__name__}.{name} must be a plain method")
            names.append(name)
        cls._visitor_names = tuple(names)
        try:
            check_templates(cls.raises)
        except ValueError as error:
            raise TypeError(f"{cls.__name__}.raises: {error}") from None
        try:
            exceptions(cls.error, cls.raises)
        except ValueError as error:
            raise TypeError(f"{cls.__name__}.error: {error}") from None
        try:
            if cls.raises_since is not None:
                parse_version(cls.raises_since)
        except ValueError as error:
            raise TypeError(f"{cls.__name__}.raises_since: {error}") from None
        unknown = (
            {role for role, path in cls.mesh_locals.items() if "[*]" not in path}
            - set(mesh_roles(cls.raises))
            - cls.unnamed_meshes
        )
        if unknown:
            raise TypeError(
                f"{cls.__name__}.mesh_locals: no `raises` message names {sorted(unknown)}"
            )

    def get_visitors(self) -> Mapping[str, Callable[[Any], None]]:
        return {name: getattr(self, name) for name in self._visitor_names}

    def __init__(self, analysis: Analysis, options: Options) -> None:
        super().__init__()
        self.analysis = analysis
        self.options = options
        self.reports: list[Report] = []
        self.trails: list[Report] = []  # calls looked at and left, and why (`-v`)

    def at_value(self, evidence: Evidence) -> None:
        """Evidence that a value an error of this rule was about is written in this module
        (`evidence.value_site`, found along the frames the run took): a rule that fixes such
        values reports there; by default it does not."""

    @functools.cached_property
    def recorded(self) -> bool:
        """Whether a run recorded this rule's error in this module (`repair`, `--from-log`,
        `--evidence`): a rule's cheap gates on what the module spells (`AbstractMesh(`, a
        literal `NamedSharding(...)`) then give way, and its values come from wherever the
        engine finds them (another module, a constant, a `**mapping`)."""
        return any(e.code == self.code for e in self.analysis.evidence.evidence)

    def checks(self, call: ast.Call) -> bool | None:
        """Whether `call` is one this rule checks (one JAX raises its error at); None where
        the rule does not say. A run's error on a line holding such a call that the rule
        left is one jaxfix cannot tell the cause of from the code; on a line holding none,
        JAX raised it inside code the line calls (jaxfix/check/engine.py says which)."""
        return None

    def setting(self, key: str) -> Any:
        """This rule's setting `key`: from config or flag, else its declared default."""
        (declared,) = [s for s in self.settings if s.key == key]
        return self.options.rule_settings.get(self.code, {}).get(key, declared.default)

    def report(
        self,
        node: ast.AST,
        message: str,
        *,
        fix: Fix | None = None,
        related: tuple[Related, ...] = (),
    ) -> None:
        if fix is not None and fix.safety not in self.fixes:
            raise TypeError(
                f"{self.code} made a {fix.safety.value} fix but declares only {sorted(s.value for s in self.fixes)}"
            )
        self.reports.append(Report(self.code, message, node, fix, related))

    def leave(self, node: ast.AST, why: str | None) -> None:
        """The rule looked at `node` and leaves it: `why` (the step where a value's trail
        ended, `Analysis.trail`) is what `-v` prints there; None says nothing."""
        if why is not None:
            self.trails.append(Report(self.code, why, node))

    def expected(self, node: ast.AST) -> bool:
        """Whether `node` runs where the code tests this rule's error (`assertRaises...`): the
        engine drops such reports; a rule may ask first to skip working out the message."""
        return self.analysis.expected(node, self.raises, self.error)

    def expected_on_way(self, node: ast.AST, way: CallerWay) -> bool:
        """Whether `node`, or a call on one caller's `way` to it, runs where the code tests
        this rule's error."""
        return self.expected(node) or any(
            self.analysis.of(caller).expected(call, self.raises, self.error)
            for caller, call, _ in way.calls
        )

    @classmethod
    def impossible(cls, facts: Facts) -> str | None:
        """Why meshes a record holds (not read from a message) cannot have raised the rule's
        error; None when they may have."""
        return None

    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def fix_safety(cls) -> str:
        """ "safe", "unsafe", "safe or unsafe" (by case) or "none"."""
        return " or ".join(s.value for s in Safety if s in cls.fixes) or "none"

    @classmethod
    def fix_safety_text(cls) -> str:
        """One line: each kind of fix and what it does."""
        return (
            "; ".join(f"{s.value}: {cls.fixes[s]}" for s in Safety if s in cls.fixes)
            or "no fix"
        )

    @classmethod
    def may_apply(cls, source: bytes | Words) -> bool:
        return tokens_match(cls.tokens, source)


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """`name=value` formatted as black writes it (no spaces around `=`)."""
    import libcst as cst  # for a fix's edit, which runs only when the fix is written

    no_space = cst.SimpleWhitespace("")
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space),
    )
