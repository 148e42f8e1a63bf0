"""The prefilter never changes a result: running every selected rule on every file (fixtures,
mutated fixtures, generated programs, a generated corpus) gives what skipping the files and
rules it drops gives, and every rule the full engine reports is one it kept. And a run that has
nothing to parse (no candidates, or all of them cached) never imports libcst."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import jaxfix.check.engine
import jaxfix.check.runner
from codemods.test_mutations import CHAINS, _chain, _mutate
from fixture_cases import all_cases
from helpers import once_per_session, options_from_args, shared_engine_run
from jax_program_strategy import Program, programs
from jaxfix.check.engine import check_file, selected_rules
from jaxfix.check.run import Run
from jaxfix.check.runner import run_files
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import FileResult
from jaxfix.settings.options import Options

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from make_corpus import write_corpus  # noqa: E402 - a script of bench/, not a package

CASES = all_cases()
# The options that change what rules conclude: defaults, unsafe fixes, each JAX generation.
OPTION_SETS = (
    Options(),
    Options(unsafe_fixes=True),
    Options(jax_version=(0, 10, 2)),
    Options(jax_version=(0, 12, 0)),
)


def disable_prefilter(patch: pytest.MonkeyPatch) -> None:
    """Every selected rule looks at every file: no byte prefilter (in the engine and in the
    runner's parent process)."""
    patch.setattr(Rule, "may_apply", classmethod(lambda cls, source: True))
    patch.setattr(jaxfix.check.runner, "is_candidate", lambda source, rules: True)
    patch.setattr(
        jaxfix.check.runner,
        "candidate_codes",
        lambda source, rules: tuple(rule.code for rule in rules),
    )


def full_engine(
    source: bytes, options: Options, path: str = "example.py"
) -> FileResult:
    """One engine run of every selected rule on `source`, nothing filtered."""
    with pytest.MonkeyPatch.context() as patch:
        disable_prefilter(patch)
        return check_file(Run(options), Path(path), source)


@once_per_session
def case_full_engine(source: bytes, args: tuple[str, ...], path: str) -> FileResult:
    """`full_engine` under a fixture's own options, once per session for each input (a
    mutant's full run serves two tests below)."""
    return full_engine(source, options_from_args(list(args)), path)


def assert_filters_keep_what_is_reported(
    source: bytes,
    options: Options,
    full: FileResult,
) -> FileResult:
    """The differential check for the byte prefilter: every rule the full engine reports is
    one it keeps, so a file it drops has nothing to report (`full`: that engine's result)."""
    rules = selected_rules(options)
    kept_by_bytes = {rule.code for rule in rules if rule.may_apply(source)}
    reported = {d.code for d in full.diagnostics}
    assert reported <= kept_by_bytes, (
        f"the byte prefilter drops {sorted(reported - kept_by_bytes)}, which report"
    )
    if not kept_by_bytes:
        assert full.fixed is None and not full.diagnostics
    return full


def _outcome(result: FileResult) -> FileResult:
    """A result without what its answers used (files, import places, word searches): the
    full engine runs rules the prefilter drops, and their questions read more, for the cache."""
    return replace(result, dependencies=(), lookups=())


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fixture_results_do_not_depend_on_the_prefilter(case, monkeypatch):
    files = [case.before] + ([case.fixed] if case.fixed else [])
    options = options_from_args(case.cli_args)
    filtered = run_files(Run(options).scoped(files), files, write=False, jobs=1)
    disable_prefilter(monkeypatch)
    assert [
        _outcome(r)
        for r in run_files(Run(options).scoped(files), files, write=False, jobs=1)
    ] == [_outcome(r) for r in filtered]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_mutated_fixture_results_do_not_depend_on_the_prefilter(case):
    """The fixture mutation corpus (renamed, re-imported, commented, reordered spellings)."""
    mutant = _mutate(case.before.read_text(encoding="utf-8"), _chain(case)).encode()
    args, path = tuple(case.cli_args), str(case.before)
    filtered = shared_engine_run(
        mutant, args, path
    )  # tests/codemods/test_mutations.py's run
    full = case_full_engine(mutant, args, path)
    assert _outcome(full) == _outcome(filtered)


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(programs())
def test_generated_program_results_do_not_depend_on_the_prefilter(program: Program):
    source = program.source.encode()
    for options in OPTION_SETS:
        full = assert_filters_keep_what_is_reported(
            source, options, full_engine(source, options, "fuzzed.py")
        )
        assert check_file(Run(options), Path("fuzzed.py"), source) == full


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_filters_keep_every_rule_that_reports_on_mutations(case):
    """The fixture, its fixed file and both mutation chains (between them every mutation:
    respelled imports, aliases, comments inside calls...), under the fixture's own options."""
    source = case.before.read_text(encoding="utf-8")
    options = options_from_args(case.cli_args)
    variants = [source, *(_mutate(source, chain) for chain in CHAINS)]
    if case.fixed:
        variants.append(case.fixed.read_text(encoding="utf-8"))
    for variant in dict.fromkeys(variant.encode() for variant in variants):
        assert_filters_keep_what_is_reported(
            variant,
            options,
            case_full_engine(variant, tuple(case.cli_args), str(case.before)),
        )


def test_filters_keep_every_rule_that_reports_on_a_generated_corpus(tmp_path):
    """bench/make_corpus.py's tree with 30% violations: fixtures embedded in ordinary JAX code."""
    write_corpus(tmp_path, files=24, lines=40, candidates=0.6, violations=0.3, seed=20)
    reported = 0
    for path in sorted(tmp_path.rglob("*.py")):
        for options in OPTION_SETS[:2]:
            source = path.read_bytes()
            full = full_engine(source, options, str(path))
            reported += len(
                assert_filters_keep_what_is_reported(source, options, full).diagnostics
            )
    assert reported  # the corpus has violations, so the check has something to keep


@pytest.mark.parametrize(
    "text",
    [
        "jitted.lower(x)",
        "jitted . lower (x)",
        "(jitted.  # a comment\n   lower(x))",
        "jitted.\\\n    lower(x)",
        "(jitted\n .lower\n (x))",
        '{"cells": [{"source": ["y = (jitted.\\n", "     lower(x))"]}]}',
    ],
)
def test_lower_call_token_allows_whitespace_comments_and_continuations(text):
    source = f"import jax\nfrom jax.sharding import AbstractMesh, NamedSharding\njitted = jax.jit(f)\n{text}\n".encode()
    assert ast.parse(source)  # notebook JSON too: a dict display
    assert RULES["JAX001"].may_apply(source)
    assert not RULES["JAX001"].may_apply(source.replace(b"lower", b"lowered"))


@pytest.mark.parametrize(
    "text",
    [
        "with Mesh(devices, ('data',)):\n    y = f(x)",
        "def run():\n    async with Mesh(devices, ('data',)):\n        pass",
        "if True:\n\twith Mesh(devices, ('data',)): pass",
        '{"cells": [{"source": ["    with Mesh(devices, (\'data\',)):\\n"]}]}',
        '{"cells": [{"source": "x = 1\\n\\twith Mesh(devices, (\'data\',)): pass"}]}',
    ],
)
def test_legacy_mesh_context_token_is_a_with_statement_not_prose(text):
    """JAX102 looks at `with` statements: a file whose docstrings say "with" and name a
    Mesh is no candidate; a `with` statement, indented, async or in a notebook cell is."""
    source = f"from jax.sharding import Mesh\n{text}\n".encode()
    assert ast.parse(source)  # notebook JSON too: a dict display
    assert RULES["JAX102"].may_apply(source)
    prose = b'"""Put the batch on a Mesh, with one shard a device."""\nx = Mesh\n'
    assert ast.parse(prose)
    assert not RULES["JAX102"].may_apply(prose)


def test_token_regexes_do_not_backtrack_on_long_comments():
    """A comment after a dot with many `#` and spaces: a regex that could split it into
    comment, space, comment... would take 2**60 steps here."""
    source = (
        b"x = 1.  "
        + b"# " * 60
        + b"\n"
        + b"AbstractMesh NamedSharding jit use_abstract_mesh as\n"
    )
    for rule in RULES.values():
        rule.may_apply(source)


_RUN_CLI = textwrap.dedent("""
    import sys
    from jaxfix.cli.main import main
    sys.argv = ["jaxfix", *sys.argv[1:]]
    try:
        main()
    except SystemExit as exit:
        print("exit", exit.code, "libcst imported:", "libcst" in sys.modules)
""")


def _cli_in_fresh_process(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _RUN_CLI, *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.stdout.strip().splitlines()[-1]


def test_a_run_with_nothing_to_parse_never_imports_libcst(tmp_path):
    (tmp_path / "plain.py").write_text("import jax\n\nprint(jax.numpy.ones(3))\n")
    assert (
        _cli_in_fresh_process("--check", "-q", str(tmp_path))
        == "exit 0 libcst imported: False"
    )


def test_a_warm_cache_run_never_imports_libcst(tmp_path):
    # Reported, not fixed (JAX002's fix is unsafe): a result with a fix is never cached, it runs again.
    case = next(c for c in CASES if c.code == "JAX002" and c.fixed is not None)
    (tmp_path / "case.py").write_bytes(case.before.read_bytes())
    args = (
        "--check",
        "-q",
        *(a for a in case.cli_args if a != "--unsafe-fixes"),
        str(tmp_path),
    )
    assert _cli_in_fresh_process(*args) == "exit 1 libcst imported: True"
    assert _cli_in_fresh_process(*args) == "exit 1 libcst imported: False"


def test_word_tokens_are_tested_as_the_regular_expressions_they_are():
    """The substring shortcuts (`A|B` tokens tested with `in`, a regular expression tried only
    when the words it needs are there) answer what `re.search` answers, on every rule's tokens
    over every fixture (and each token alone over texts made to hit or miss it)."""
    import re

    from jaxfix.check.byte_tokens import Words, _matcher, _required_words
    from jaxfix.codemods import RULES

    sources = [
        path.read_bytes()
        for path in Path(__file__)
        .resolve()
        .parents[1]
        .joinpath("fixtures")
        .rglob("*.py*")
    ]
    tokens = {
        token for rule in RULES.values() for group in rule.tokens for token in group
    }
    shortcut = [token for token in tokens if b"\\" not in token and b"(" not in token]
    assert shortcut, (
        "no rule token takes the substring shortcut: this test checks nothing"
    )
    assert any(_required_words(token) for token in tokens if token not in shortcut), (
        "no regular expression has a word guard"
    )
    for token in tokens:
        samples = (
            sources
            + [word + b" x" for word in token.split(b"|")]
            + [b"x_" + token.split(b"|")[0][1:]]
        )
        for source in samples:
            assert _matcher(token)(Words(source)) == (
                re.search(token, source) is not None
            ), (token, source[:80])


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (rb"\bp?jit\b", ((b"jit",),)),
        (rb"use_mesh(?s:.*)use_mesh", ((b"use_mesh",),)),
        (
            rb"(?:set|use)_mesh",
            ((b"set", b"use"), (b"_mesh",)),
        ),  # one of a group's words
        (rb"\b(?:Ab|cd)\b", ((b"Ab", b"cd"),)),
        (rb"(?:Ab|cd)?x", ((b"x",),)),  # a quantified group is not required
        (rb"(?:Ab|c.)x", ((b"x",),)),  # nor one that is not of plain words
        (rb"[\w)] *@[\s(=]", ((b"@",),)),  # a character that stands for itself
        (rb"x @?y", ((b"x",), (b" ",), (b"y",))),
        (rb"ab?c", ((b"a",), (b"c",))),  # a quantified character is not required
        (rb"a{2}bc|x", ()),  # a top-level alternative: no word is required
        (rb"a{2,3}bc", ((b"bc",),)),
        (
            rb"x[]a|(]y",
            ((b"x",), (b"y",)),
        ),  # inside a class, `]`, `|` and `(` are characters
        (rb"x[^\]]yz", ((b"x",), (b"yz",))),
        (rb"(?i)abc", ()),  # flags that change how literals match
        (rb"(?x)a b", ()),
        (rb"\x61?bc", ()),  # an escape of several characters: not read
        (rb"\141?bc", ()),
    ],
)
def test_words_a_regular_expression_cannot_match_without(pattern, words):
    import re

    from jaxfix.check.byte_tokens import Words, _matcher, _required_words

    assert _required_words(pattern) == words
    for text in (
        b"abc",
        b"ABC",
        b"a bc",
        b"aaabc",
        b"xay",
        b"x]yz",
        b"x|y",
        b"jit",
        b"pjit(",
        b"use_mesh use_mesh",
        b"set_mesh",
        b"Ab x",
        b"cd",
        b"c_x",
        b"xy",
        b"x y",
        b"x @y",
        b"a @ b",
        b"a@b",
    ):
        assert _matcher(pattern)(Words(text)) == (
            re.search(pattern, text) is not None
        ), (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "tail"),
    [
        (rb"[\w)\]] *@[\s(=]", rb"@[\s(=]"),  # after a class
        (rb"\bdot\s*\(", rb"dot\s*\("),  # after an assertion
        (rb"\bp?jit\b", rb"jit\b"),  # a quantified character is not required
        (rb"(?m)(?:^|\")[ \t]*with\b", rb"(?m)with\b"),  # the flags kept
        (rb"\b\.x", rb"\.x"),  # an escaped character stands for itself
        (rb"\b\sx", rb"x"),  # `\s` does not
        (rb"\bab{2}c", rb"ab{2}c"),
        (rb"\ba{2}c", rb"c"),
        (rb"ab", None),  # begins with its literal already
        (rb"\.lower", None),
        (rb"\bx|y", None),  # a top-level alternative
        (rb"(a)x\1", None),  # refers back to a group
        (rb"(?P<n>a)x(?P=n)", None),
        (rb"[ab]+", None),  # no literal outside a class
        (rb"\b(?:ab|cd)\b", None),  # nor outside a group
        (rb"\x0a?x", None),  # an escape of several characters
        (rb"\012?x", None),
    ],
)
def test_a_regular_expression_is_searched_from_its_first_literal(pattern, tail):
    """A pattern that `re` would try at every position is first searched from its first
    literal character on (what any match of it holds), and answers what `re.search` does."""
    import re

    from jaxfix.check.byte_tokens import Words, _matcher, _tail

    found = _tail(pattern)
    assert (None if found is None else found.pattern) == tail
    for text in (
        b"a @ b",
        b"a @b",
        b"@decorator",
        b"x = dot (a)",
        b"x = _dot(a)",
        b"pjit(f)",
        b"jit",
        b'"with mesh:',
        b"  with x:",
        b"y.with_x",
        b"a.x",
        b"a x",
        b"abbc",
        b"aac",
        b"ab",
        b"y",
        b"axa",
        b"ab cd",
        b"y\n  x",
        b"a\nx",
    ):
        assert _matcher(pattern)(Words(text)) == (
            re.search(pattern, text) is not None
        ), (pattern, text)


def test_a_regular_expression_is_not_searched_without_one_of_its_words():
    """A file with none of a group's words, or without a character the pattern needs, is
    ruled out by substring tests: the words looked up say so."""
    from jaxfix.check.byte_tokens import Words, _matcher

    words = Words(b"y = x + z  # no product here")
    assert not _matcher(rb"\b(?:AbstractMesh|eval_shape)\b")(words)
    assert not _matcher(rb"[\w)\]] *@[\s(=]")(words)
    assert set(words.absent) == {b"AbstractMesh", b"eval_shape", b"@"}


def test_a_word_known_absent_rules_out_the_words_containing_it():
    from jaxfix.check.byte_tokens import Words

    words = Words(b"use_mesh(m)")
    assert b"abstract_mesh" not in words
    words.source = (
        b"use_abstract_mesh(m)"  # not looked at again: implied by the absent word
    )
    assert b"use_abstract_mesh" not in words
    assert b"use_" in words


def test_the_engine_searches_a_token_once_for_all_the_rules_needing_it(monkeypatch):
    """Which rules run on a file: every rule is tested on one `Words`, so a token several
    rules need (`shard_map`) is searched once; the rules chosen are each rule's own test."""
    from jaxfix.check import byte_tokens
    from jaxfix.check.engine import candidate_rules

    options = Options(select=("ALL",))
    source = b"from jax import shard_map\nf = shard_map(g, mesh=m, in_specs=P())\n"
    needing = [
        e.code
        for e in selected_rules(options)
        if any(b"shard_map" in group for group in e.tokens)
    ]
    assert len(needing) > 1
    looked_up: list[bytes] = []
    contains = byte_tokens.Words.__contains__

    def recorded(self: byte_tokens.Words, word: bytes) -> bool:
        looked_up.append(word)
        return contains(self, word)

    monkeypatch.setattr(byte_tokens.Words, "__contains__", recorded)
    chosen = {rule.code for rule in candidate_rules(source, options)}
    assert looked_up.count(b"shard_map") == 1
    monkeypatch.setattr(byte_tokens.Words, "__contains__", contains)
    assert chosen == {
        e.code
        for e in selected_rules(options)
        if e.may_apply(byte_tokens.Words(source))
    }


def test_the_engine_runs_the_rules_the_runner_s_prefilter_passed_without_testing_them(
    tmp_path, monkeypatch
):
    """The runner's prefilter says which rules may fire on a file (every one whose tokens
    its code holds, not only the first); the engine runs those and tests none again."""
    from jaxfix.check.runner import _settle_cheaply, process_file
    from snippets import REPORTED, VIOLATION

    options = options_from_args(["--select", "ALL"])
    path = tmp_path / "example.py"
    path.write_text(VIOLATION + REPORTED)
    run = Run(options)
    settled = _settle_cheaply(path, run, run.rules, (None, None))
    assert isinstance(settled, tuple)
    source, codes = settled
    assert codes == tuple(e.code for e in run.rules if e.may_apply(source))
    assert {"JAX001", "JAX002"} <= set(codes)
    before = process_file(Run(options), path, write=False)
    monkeypatch.setattr(
        Rule, "may_apply", classmethod(lambda cls, source: pytest.fail("tested again"))
    )
    after = process_file(Run(options), path, write=False)
    assert {d.code for d in after.diagnostics} >= {"JAX001", "JAX002"}
    assert after.diagnostics == before.diagnostics


# The keyword or attribute a rule's visitor needs, each spelled as code may split it (spaces,
# a comment, a continued line, a notebook cell's line break), and the word spelled otherwise
# in a file its visitor never looks at.
_NEEDED_SPELLINGS = {
    "JAX008": (
        "concrete = m.abstract_mesh",
        "concrete = (m.  # the abstract one\n    abstract_mesh)",
        "concrete = m.\\\n    abstract_mesh",
        '{"cells": [{"source": ["y = (m.\\n", "     abstract_mesh)"]}]}',
    ),
    "JAX009": (
        "a = ShapedArray((8,), f32, sharding=s)",
        "a = ShapedArray((8,), f32, sharding = s)",
        "a = ShapedArray((8,), f32, sharding  # placed\n    =s)",
        '{"cells": [{"source": ["a = ShapedArray((8,), f32, sharding\\n", "  =s)"]}]}',
    ),
    "JAX010": (
        "m = jax.sharding.AbstractMesh((2,), ('x',))",
        "m = (AbstractMesh  # by hand\n    ((2,), ('x',)))",
        "from jax.sharding import AbstractMesh as AM",
        '{"cells": [{"source": ["m = (AbstractMesh\\n", "  ((2,), (\'x\',)))"]}]}',
    ),
    "JAX011": (
        "y = jnp.dot(a, b, out_sharding=s)",
        "y = jnp.dot(a, b, out_sharding\n    =s)",
        '{"cells": [{"source": ["y = jnp.dot(a, b,\\n", "  out_sharding=s)"]}]}',
    ),
}
_OTHER_SPELLINGS = {
    "JAX008": "with use_abstract_mesh(get_abstract_mesh()):\n    pass",
    "JAX009": "import jax.sharding\na = ShapedArray((8,), f32)",
    "JAX010": "def f(m: AbstractMesh):\n    return isinstance(m, jax.sharding.AbstractMesh)",
    "JAX011": "f = jax.jit(g, out_shardings=s)",
}


@pytest.mark.parametrize(
    ("code", "text"),
    [(code, text) for code, texts in _NEEDED_SPELLINGS.items() for text in texts],
)
def test_a_rule_s_needed_keyword_or_attribute_keeps_its_file(code, text):
    source = f"import jax\n{text}\n".encode()
    assert ast.parse(source)  # notebook JSON too: a dict display
    assert RULES[code].may_apply(source)


@pytest.mark.parametrize("code", sorted(_OTHER_SPELLINGS))
def test_a_word_spelled_otherwise_than_the_rule_needs_is_no_candidate(code):
    """JAX008 reads `.abstract_mesh` (not `use_abstract_mesh`), JAX009 a ShapedArray's
    `sharding=` (not the module `jax.sharding`), JAX010 looks in modules calling
    `AbstractMesh(...)` (not naming the type), JAX011 the keyword `out_sharding` (not jit's
    `out_shardings`): a file spelling only the other is not parsed for the rule."""
    source = f"import jax\n{_OTHER_SPELLINGS[code]}\n".encode()
    assert ast.parse(source)
    assert not RULES[code].may_apply(source)


def test_a_file_only_a_needed_spelling_made_a_candidate_is_not_parsed(tmp_path):
    """The runner's prefilter settles, unparsed, a file whose words named a rule's token but
    not the spelling its visitor needs; the same file with that spelling is checked."""
    from jaxfix.check.runner import _settle_cheaply

    run = Run(options_from_args(["--select", "JAX008,JAX009,JAX010,JAX011"]))
    skipped, kept = tmp_path / "skipped.py", tmp_path / "kept.py"
    skipped.write_text("import jax\n" + "\n".join(_OTHER_SPELLINGS.values()) + "\n")
    kept.write_text(
        "import jax\n"
        + "\n".join(texts[0] for texts in _NEEDED_SPELLINGS.values())
        + "\n"
    )
    assert isinstance(
        _settle_cheaply(skipped, run, run.rules, (None, None)), FileResult
    )
    settled = _settle_cheaply(kept, run, run.rules, (None, None))
    assert isinstance(settled, tuple)
    assert settled[1] == ("JAX008", "JAX009", "JAX010", "JAX011")
