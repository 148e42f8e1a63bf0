"""Property-based fuzzing of the engine: whatever the program, jaxfix never crashes, its output
parses, a second run changes nothing, and code outside the rewritten nodes stays byte-identical.

Programs come from tests/jax_program_strategy.py (the rules' patterns inside arbitrary
surrounding code) and from hypothesmith (arbitrary Python). Runs are derandomized, so CI sees
the same examples every time.
"""

from __future__ import annotations

import ast
import difflib
import io
import tokenize
from collections import Counter
from pathlib import Path

import hypothesmith
import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jax_program_strategy import Program, programs
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.ground.diagnostics import FileResult
from jaxfix.settings.options import Options
from jaxfix.sources.text import decode, split_lines

OPTION_SETS = (Options(), Options(unsafe_fixes=True))
PATH = Path("fuzzed.py")
# hypothesmith is slow to build examples and the engine takes a good part of a second per run:
# example counts stay low so the suite stays fast.
FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ARBITRARY = settings(
    FUZZ,
    max_examples=15,
    suppress_health_check=[*FUZZ.suppress_health_check, HealthCheck.filter_too_much],
)


def _parses(source: bytes, parse) -> bool:  # noqa: ANN001 - a parse function
    try:
        parse(source)
    except (SyntaxError, ValueError, cst.ParserSyntaxError):
        return False
    return True


def _changed_original_lines(old: list[str], new: list[str]) -> set[int]:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return {
        i
        for tag, i1, i2, _, _ in matcher.get_opcodes()
        if tag in ("replace", "delete")
        for i in range(i1, i2)
    }


def _is_subsequence(items: list[str], sequence: list[str]) -> bool:
    rest = iter(sequence)
    return all(any(item == candidate for candidate in rest) for item in items)


def check_harmless(
    source: bytes, options: Options, surrounding: frozenset[int] = frozenset()
) -> FileResult:
    """The fuzzing properties for one input; `surrounding` are line indexes no fix may touch."""
    result = check_file(Run(options), PATH, source)
    if not _parses(source, cst.parse_module):
        # Unparsable input gets a clear error, or none when the prefilter lets no rule look at it.
        assert result.fixed is None
        assert not (result.error or "").startswith("internal error"), result.error
        return result
    if result.error is not None and cst.parse_module(source).bytes != source:
        # The one refusal allowed on valid input: LibCST cannot reproduce the file exactly.
        assert result.error.startswith(
            "internal error, file left untouched: LibCST does not reproduce"
        ), result.error
        return result
    assert result.error is None, result.error
    if result.fixed is None:
        return result
    assert any(d.applied for d in result.diagnostics), (
        "the file changed, but no applied fix was reported"
    )
    assert _parses(result.fixed, cst.parse_module), (
        "the output does not parse with LibCST"
    )
    if _parses(source, ast.parse):
        assert _parses(result.fixed, ast.parse), "the output does not parse with ast"
    again = check_file(Run(options), PATH, result.fixed)
    assert again.error is None, again.error
    assert again.fixed is None, "a second run changes the output again"
    old, new = split_lines(decode(source)), split_lines(decode(result.fixed))
    changed = _changed_original_lines(old, new)
    touched = sorted(changed & surrounding)
    assert not touched, f"fixes changed surrounding lines {[old[i] for i in touched]}"
    assert _is_subsequence(
        [line for i, line in enumerate(old) if i not in changed], new
    )
    lost = _comments(source) - _comments(result.fixed)
    assert not lost, f"fixes dropped comments {sorted(lost)}"
    return result


def _comments(source: bytes) -> Counter[str]:
    tokens = tokenize.tokenize(io.BytesIO(source).readline)
    return Counter(token.string for token in tokens if token.type == tokenize.COMMENT)


@FUZZ
@given(programs())
def test_generated_jax_programs_are_fixed_without_harm(program: Program):
    for options in OPTION_SETS:
        check_harmless(program.source.encode(), options, program.surrounding)


@FUZZ
@given(programs(), st.data())
def test_broken_programs_get_only_a_syntax_error(program: Program, data: st.DataObject):
    """Truncated or corrupted input: a syntax error when it no longer parses, else no harm."""
    text = program.source
    cut = data.draw(st.integers(0, len(text)), label="cut")
    junk = data.draw(
        st.sampled_from(["", "(", ":", "\n  ", "'", "@", "\\", "\x00"]), label="junk"
    )
    broken = (
        text[:cut] + junk + text[cut + data.draw(st.integers(0, 3), label="drop") :]
    ).encode()
    for options in OPTION_SETS:
        check_harmless(broken, options)


@ARBITRARY
@given(hypothesmith.from_node(cst.Module), programs(), st.booleans())
def test_arbitrary_code_next_to_jax_patterns(
    code: str, program: Program, code_first: bool
):
    """hypothesmith's arbitrary Python before or after the patterns (rebinding their names, say)."""
    code = code if code.endswith("\n") or not code else code + "\n"
    jax_part = (
        program.source
        if program.source.endswith(("\n", "\r")) or not program.source
        else program.source + "\n"
    )
    first, second = (code, jax_part) if code_first else (jax_part, code)
    source = first + second
    offset = len(split_lines(first))
    if code_first:
        surrounding = frozenset(range(offset)) | {
            offset + i for i in program.surrounding
        }
    else:
        surrounding = program.surrounding | frozenset(
            range(offset, offset + len(split_lines(second)))
        )
    for options in OPTION_SETS:
        check_harmless(source.encode(), options, surrounding)


@ARBITRARY
@given(hypothesmith.from_grammar())
def test_arbitrary_text_behind_every_rule_token(code: str):
    """A comment with every rule's tokens defeats the prefilter, so every rule visits the code."""
    tokens = b"# jax jit lower trace AbstractMesh NamedSharding use_abstract_mesh set_mesh top_level_all_gather\n"
    for options in OPTION_SETS:
        check_harmless(tokens + code.encode("utf-8", "surrogatepass"), options)
