"""Code nested deeper than LibCST survives is refused with one line before the parser and the
engine see it, for every construct LibCST recurses on, and everything the check lets through is
processed, fixes written with LibCST: the limits are LibCST's own, found by nesting each
construct until it fails (jaxfix/sources/nesting.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from fixture_cases import ROOT
from jaxfix.check.run import Run
from jaxfix.check.runner import run_files
from jaxfix.settings.options import Options
from jaxfix.sources.nesting import too_deep
from snippets import VIOLATION

SITE = "jax.jit(jnp.sin).lower(x)"  # the violation's call, nested inside some shapes
SHAPES = {
    "lambdas": lambda n: "f = " + "lambda: " * n + "1\n",
    "lambdas-with-parameters": lambda n: "f = " + "lambda a, b=1: " * n + "a\n",
    "lambdas-around-the-site": lambda n: "f = " + "lambda: " * n + SITE + "\n",
    "nested-calls": lambda n: "y = " + "f(" * n + "1" + ")" * n + "\n",
    "keyword-arguments": lambda n: "y = " + "f(a=" * n + "1" + ")" * n + "\n",
    "calls-of-lambdas": lambda n: "y = " + "f(lambda: " * n + "1" + ")" * n + "\n",
    "call-chain": lambda n: "y = f" + "()" * n + "\n",
    "subscripts": lambda n: "y = " + "a[" * n + "1" + "]" * n + "\n",
    "parentheses": lambda n: "y = " + "(" * n + SITE + ")" * n + "\n",
    "binary-operators": lambda n: "y = " + "a + " * n + SITE + "\n",
    "power": lambda n: "y = " + "**".join(["a"] * n) + "\n",
    "unary-operators": lambda n: "y = " + "-" * n + "a\n",
    "not": lambda n: "y = " + "not " * n + "a\n",
    "boolean-operators": lambda n: "y = " + " and ".join(["a"] * n) + "\n",
    "attributes": lambda n: "y = a" + ".b" * n + "\n",
    "conditional-expressions": lambda n: "y = " + "a if b else " * n + SITE + "\n",
    "comprehension-clauses": lambda n: "y = [x " + "for x in y " * n + "]\n",
    "nested-comprehensions": lambda n: (
        "y = " + "[x for x in " * n + SITE + "]" * n + "\n"
    ),
    "dicts": lambda n: "y = " + "{1: " * n + "1" + "}" * n + "\n",
    "walrus": lambda n: "y = " + "(a := " * n + "1" + ")" * n + "\n",
    "f-strings": lambda n: (
        "y = " + 'f"{' * n + SITE + '}"' * n + "\n"
    ),  # Python 3.12 syntax, which LibCST parses
    "adjacent-strings": lambda n: "y = " + "'a' " * n + "\n",
    "elif-chain": lambda n: (
        "if a:\n    pass\n"
        + "elif a:\n    pass\n" * n
        + f"else:\n    lowered = {SITE}\n"
    ),
    "nested-functions": lambda n: (
        "".join(" " * i + "def g():\n" for i in range(n))
        + " " * n
        + f"lowered = {SITE}\n"
    ),
}
DEEP = 5000  # levels; blocks nest 200 deep (5,000 indented lines would be 12 MB)
REFUSAL = re.compile(
    r"nested too deeply for the parser: \d+ levels at line \d+ \(.*\); file left untouched"
)


def _code(shape: str, depth: int) -> bytes:
    return (
        VIOLATION
        + SHAPES[shape](min(depth, 200) if shape == "nested-functions" else depth)
    ).encode()


def _deepest_accepted(shape: str) -> int:
    low, high = 1, DEEP  # accepted, refused
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (
            (middle, high) if too_deep(_code(shape, middle)) is None else (low, middle)
        )
    return low


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_construct_is_refused_before_libcst_and_what_passes_is_processed(
    tmp_path, shape
):
    """In-process at -j 1 (where a crash would end the run): 5,000 levels is one refusal naming the
    depth and the line, the next file is processed; the deepest code the check accepts runs
    through the engine, the rules and LibCST without a RecursionError, under pytest's own stack."""
    deep, deepest, other = (
        tmp_path / "deep.py",
        tmp_path / "deepest.py",
        tmp_path / "other.py",
    )
    deep.write_bytes(_code(shape, DEEP))
    deepest.write_bytes(_code(shape, _deepest_accepted(shape)))
    other.write_text(VIOLATION)
    results = {
        r.path.name: r
        for r in run_files(
            Run(Options()).scoped([deep, deepest, other]),
            [deep, deepest, other],
            write=False,
            jobs=1,
        )
    }
    assert results["deep.py"].error is not None and REFUSAL.fullmatch(
        results["deep.py"].error
    ), results["deep.py"].error
    assert results["deep.py"].error_location is not None
    assert (
        f"at line {results['deep.py'].error_location.line} " in results["deep.py"].error
    )
    if (
        shape == "nested-functions" and results["deepest.py"].error is not None
    ):  # 100 blocks: Python's own limit
        assert results["deepest.py"].error.startswith(
            "syntax error: too many levels of indentation"
        )
    else:
        assert results["deepest.py"].error is None, results["deepest.py"].error
        assert (
            results["deepest.py"].fixed is not None
        )  # the rules ran: the violation at the top is fixed
    assert results["other.py"].error is None and results["other.py"].fixed is not None


_STDIN_RUNS = """
import json, sys
from click.testing import CliRunner
from jaxfix.cli.main import cli
for code in json.loads(sys.stdin.read()):
    result = CliRunner().invoke(cli, ["--no-cache", "-"], input=code.encode(), catch_exceptions=False)
    print(json.dumps([result.exit_code, result.stdout, result.stderr]), flush=True)
"""


def test_each_construct_through_stdin_is_one_line_not_a_crash():
    """An editor pipes its buffer (`jaxfix -`): in a child process, so a crash is seen as one."""
    codes = [_code(shape, DEEP).decode() for shape in sorted(SHAPES)]
    completed = subprocess.run(
        [sys.executable, "-c", _STDIN_RUNS],
        input=json.dumps(codes),
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    assert completed.returncode == 0, (completed.returncode, completed.stderr[-500:])
    runs = [json.loads(line) for line in completed.stdout.splitlines()]
    assert len(runs) == len(codes)
    for shape, code, (exit_code, out, err) in zip(sorted(SHAPES), codes, runs):
        lines = err.splitlines()
        assert (
            exit_code == 2
            and len(lines) == 1
            and REFUSAL.search(lines[0])
            and lines[0].startswith("-:")
        ), (shape, lines)
        assert out == code  # the buffer comes back unchanged
