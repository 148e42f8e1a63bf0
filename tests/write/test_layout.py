"""Fixes keep to the project's line length (ruff's, else black's, else 88), laid out like the code
around them, and never reformat what they did not touch."""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import options_from_args
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.cli.main import cli
from jaxfix.settings.config import line_length
from snippets import CALL, FIXED, VIOLATION

LONG_UNTOUCHED = "unrelated = [" + ", ".join(["1"] * 40) + "]\n"


def fix(source: str, limit: int = 88) -> str:
    result = check_file(
        Run(replace(options_from_args([]), line_length=limit)),
        Path("example.py"),
        source.encode(),
    )
    assert result.error is None and result.fixed is not None, result.error
    return result.fixed.decode()


def _source_lines(path: Path) -> list[str]:
    """A source file's lines in its own encoding (a fixture may declare latin-1)."""
    import tokenize

    with tokenize.open(path) as handle:
        return handle.read().splitlines()


@pytest.mark.parametrize(
    "config,expected",
    [
        ({"pyproject.toml": "[tool.ruff]\nline-length = 120\n"}, 120),
        ({"pyproject.toml": "[tool.black]\nline-length = 100\n"}, 100),
        (
            {
                "ruff.toml": "line-length = 110\n",
                "pyproject.toml": "[tool.black]\nline-length = 100\n",
            },
            110,
        ),
        (
            {
                "pyproject.toml": "[tool.ruff]\nline-length = 99\n[tool.black]\nline-length = 100\n"
            },
            99,
        ),
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, 88),
        ({}, 88),
    ],
)
def test_the_line_length_is_the_formatters(tmp_path, config, expected):
    for name, text in config.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "pkg").mkdir()
    assert line_length(tmp_path / "pkg" / "model.py") == expected


def test_a_long_fix_lays_out_the_edited_call_and_nothing_else(tmp_path):
    (tmp_path / "model.py").write_text(VIOLATION + LONG_UNTOUCHED)
    assert CliRunner().invoke(cli, ["--no-cache", str(tmp_path)]).exit_code == 0
    assert (tmp_path / "model.py").read_text() == FIXED + LONG_UNTOUCHED
    roomy = tmp_path / "roomy"
    roomy.mkdir()
    (roomy / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    (roomy / "model.py").write_text(VIOLATION)
    assert CliRunner().invoke(cli, ["--no-cache", str(roomy)]).exit_code == 0
    assert (
        "trace(x).lower(lowering_platforms=(jax.export.default_export_platform(),))\n"
        in (roomy / "model.py").read_text()
    )


def test_the_layout_follows_the_line_it_is_on():
    nested = VIOLATION.replace(
        f"lowered = {CALL}", f"results = dict(\n    lowered={CALL},\n)"
    )
    assert fix(nested).endswith(
        "results = dict(\n"
        "    lowered=jax.jit(jnp.sin).trace(x).lower(\n"
        "        lowering_platforms=(jax.export.default_export_platform(),),\n"
        "    ),\n"
        ")\n"
    )
    in_function = VIOLATION.replace(
        f"lowered = {CALL}", f"def build():\n\treturn {CALL}"
    )
    assert fix(in_function).endswith(
        "\treturn jax.jit(jnp.sin).trace(x).lower(\n\t\tlowering_platforms=(jax.export.default_export_platform(),),\n\t)\n"
    )
    crlf = fix(VIOLATION.replace("\n", "\r\n"))
    assert crlf == FIXED.replace("\n", "\r\n")


def test_the_outermost_call_on_the_line_is_laid_out_first():
    printed = VIOLATION.replace(
        f"lowered = {CALL}", f"print({CALL}.as_text(), flush=True)"
    )
    assert fix(printed).endswith(
        "print(\n"
        "    jax.jit(jnp.sin).trace(x).lower(\n"
        "        lowering_platforms=(jax.export.default_export_platform(),),\n"
        "    ).as_text(),\n"
        "    flush=True,\n"
        ")\n"
    )


def test_a_fix_that_fits_stays_on_its_line():
    assert fix(VIOLATION, limit=120) == VIOLATION.replace(
        CALL,
        "jax.jit(jnp.sin).trace(x).lower(lowering_platforms=(jax.export.default_export_platform(),))",
    )


def test_a_method_chain_splits_at_the_last_call_that_leaves_lines_that_fit():
    """black's right-hand split: the last bracket first, then earlier ones, until the first line fits."""
    chained = VIOLATION.replace(
        f"lowered = {CALL}", "compiled = jax.jit(lambda a: a * 2).lower(x).compile()"
    )
    result = check_file(
        Run(options_from_args(["--unsafe-fixes"])), Path("example.py"), chained.encode()
    )
    assert result.fixed.decode().endswith(
        "compiled = jax.jit(lambda a: a * 2).trace(x).lower(\n"
        "    lowering_platforms=(jax.export.default_export_platform(),),\n"
        ").compile(device_assignment=tuple(jax.devices()[:8]))\n"
    )
    # a call after the fixed one, with or without arguments, stays on the closing line
    for after in (".as_text()", ".as_text(debug_info=True)"):
        source = VIOLATION.replace(
            f"lowered = {CALL}",
            f"score = jax.jit(jnp.add)\n\n\ndef export():\n    return score.lower(x, x){after}",
        )
        assert fix(source).endswith(
            "    return score.trace(x, x).lower(\n"
            "        lowering_platforms=(jax.export.default_export_platform(),),\n"
            f"    ){after}\n"
        )


def test_a_too_long_boolean_argument_goes_in_parentheses_then_splits_at_its_operators():
    """black's layout of `k=a or b`: in parentheses on a line of its own, and where that line
    is too long too, one operand a line."""
    source = VIOLATION.replace(
        f"lowered = {CALL}",
        "PLATFORMS = None\n"
        "lowered = jax.jit(jnp.sin).trace(x).lower(lowering_platforms=PLATFORMS)",
    )

    def fixed(limit: int) -> str:
        run = Run(replace(options_from_args(["--unsafe-fixes"]), line_length=limit))
        result = check_file(run, Path("example.py"), source.encode())
        assert result.error is None and result.fixed is not None, result.error
        return result.fixed.decode()

    assert fixed(70).endswith(
        "lowered = jax.jit(jnp.sin).trace(x).lower(\n"
        "    lowering_platforms=(\n"
        "        PLATFORMS or (jax.export.default_export_platform(),)\n"
        "    ),\n"
        ")\n"
    )
    assert fixed(56).endswith(
        "lowered = jax.jit(jnp.sin).trace(x).lower(\n"
        "    lowering_platforms=(\n"
        "        PLATFORMS\n"
        "        or (jax.export.default_export_platform(),)\n"
        "    ),\n"
        ")\n"
    )


# -- every fixed fixture ---------------------------------------------------------------------------

FIXTURE_ROOT = Path(__file__).resolve().parents[2] / "fixtures"
PROJECTS = Path(__file__).resolve().parents[1] / "from_log_projects"
PAIRS = [
    (fixed.with_name(fixed.name.replace(".fixed.py", ".py")), fixed)
    for fixed in sorted(
        [*FIXTURE_ROOT.glob("**/*.fixed.py"), *PROJECTS.glob("*/*.fixed.py")]
    )
]
LIMIT = 88  # no fixture sets another line length


def test_every_fixed_line_fits_where_the_original_lines_fit():
    assert len(PAIRS) > 100
    too_long = []
    for original, fixed in PAIRS:
        old, new = _source_lines(original), _source_lines(fixed)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
            None, old, new, autojunk=False
        ).get_opcodes():
            if tag != "equal" and all(len(line) <= LIMIT for line in old[i1:i2]):
                too_long += [
                    f"{fixed.name}: {line}" for line in new[j1:j2] if len(line) > LIMIT
                ]
    assert not too_long, "\n".join(too_long)


def _isort_findings(files: list[Path], root: Path) -> dict[str, int]:
    """ruff's isort rule with its defaults (no project config): I001 findings per file."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which(
        "ruff"
    )
    assert ruff, "ruff is in the test extra"
    done = subprocess.run(
        [
            ruff,
            "check",
            "--isolated",
            "--no-cache",
            "--select",
            "I",
            "--output-format",
            "json",
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert done.returncode in (0, 1), done.stderr
    found: dict[str, int] = {}
    for item in json.loads(done.stdout):
        name = Path(item["filename"]).resolve().relative_to(root.resolve()).as_posix()
        found[name] = found.get(name, 0) + 1
    return found


def test_added_imports_are_where_isort_puts_them(tmp_path):
    """A fixed file has no I001 finding its original did not have (an original that is itself
    unsorted keeps its own findings: only what jaxfix added is judged)."""
    copies = []
    for number, (original, fixed) in enumerate(PAIRS):
        for side, path in (("before", original), ("after", fixed)):
            copy = tmp_path / side / f"{number}_{original.name}"
            copy.parent.mkdir(exist_ok=True)
            copy.write_bytes(path.read_bytes())
            copies.append(copy)
    found = _isort_findings(copies, tmp_path)
    worse = [
        f"{original.relative_to(original.parents[1])}"
        for number, (original, _) in enumerate(PAIRS)
        if found.get(f"after/{number}_{original.name}", 0)
        > found.get(f"before/{number}_{original.name}", 0)
    ]
    assert not worse, worse
    added = [
        n
        for n, (o, f) in enumerate(PAIRS)
        if "import jax" in _source_lines(f) and "import jax" not in _source_lines(o)
    ]
    assert added, "some fixture's fix adds `import jax`"


@pytest.mark.parametrize("depth", [30, 60])
def test_laying_out_nested_calls_is_linear_in_their_depth(monkeypatch, depth):
    """A fix held by calls nested deeper than the line length allows (hostile input: on main
    40 levels took a minute, 97 hung) explodes each call a bounded number of times."""
    import jaxfix.write.layout as layout

    exploded = []
    real = layout.explode
    monkeypatch.setattr(
        layout,
        "explode",
        lambda call, *rest: exploded.append(call) or real(call, *rest),
    )
    fixture = (
        Path(__file__).parents[2]
        / "fixtures"
        / "JAX001"
        / "bare_jit_decorator_lower.py"
    ).read_text()
    inner = "shift.lower(x)"
    for _ in range(depth):
        inner = f"g(k={inner})"
    source = fixture.replace(
        "lowered = shift.lower(x)", f"def g(k):\n    return k\n\n\nlowered = {inner}"
    )
    result = check_file(
        Run(options_from_args(["--jax-version", "0.10.2"])),
        Path("deep.py"),
        source.encode(),
    )
    assert result.error is None and result.fixed is not None
    compile(result.fixed, "deep.py", "exec")
    assert len(exploded) <= 4 * depth, len(exploded)
