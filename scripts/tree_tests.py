"""Migrate a copy of a code base with jaxfix and run the code base's own tests of the changed files
before and after, in the code base's own environment.

    python scripts/tree_tests.py TREE --python VENV/bin/python [--work DIR] [--root src]...
        [--select ALL] [--no-unsafe-fixes] [--jaxfix-arg ARG]... [--test PATH]...
        [--skip-test PATH]... [--only-changed-tests] [--pytest-arg ARG]...
        [--timeout SECONDS] [--json FILE]

TREE is copied twice under --work (`before/` and `after/`); jaxfix (this interpreter, `python -m
jaxfix --select ALL --unsafe-fixes --format json`, with the libraries of --python after its own
on `sys.path`, as where jaxfix is installed beside the tree's) fixes `after/` in place. The tests run are the
changed test files (`test_*.py`, `*_test.py`), the test files in a changed `conftest.py`'s
folder, and every test file that imports a changed module (named from TREE or each --root, e.g.
`src`); --test adds more. Each copy's tests run under --python with pytest, the same command,
environment and seed (`PYTHONHASHSEED=0`, `JAX_PLATFORMS=cpu`, eight CPU devices:
`XLA_FLAGS=--xla_force_host_platform_device_count=8`, `PYTHONPATH` the copy's roots, each copy
its own `TMPDIR` and `TEST_TMPDIR`), and the
outcomes are compared test by test (pytest's JUnit XML).

The report (stdout) lists the fixes per rule and file, the tests chosen and why, and per test
file the counts passed/failed/error/skipped before and after, then every test that passed before
and does not after. Each test file runs in its own pytest (--timeout each): a file whose run
writes no report (a timeout, a crash) counts as one error, `FILE::(no report)`. Exit code: 1
if a test passed before and not after, 2 if jaxfix itself failed, else 0. A changed file no
test run reaches (a notebook, an example script) is listed as such.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

OUTCOMES = ("passed", "failed", "error", "skipped")
IGNORED_COPY = shutil.ignore_patterns(
    ".git", ".jaxfix_cache", "__pycache__", ".pytest_cache"
)


@dataclass
class Migration:
    """What jaxfix changed in the copy: per file, the codes of the fixes it applied."""

    fixes: dict[str, Counter[str]] = field(default_factory=dict)
    left: Counter[str] = field(default_factory=Counter)


# jaxfix run with the tree's installed libraries after its own on sys.path: JAX102 reads the
# libraries a block's calls reach (as where jaxfix is installed beside the project's).
_WITH_LIBRARIES = (
    "import runpy, sys; sys.path.extend(sys.argv[1].split({sep!r})); "
    "sys.argv = ['jaxfix', *sys.argv[2:]]; "
    "runpy.run_module('jaxfix', run_name='__main__', alter_sys=True)"
)


def site_packages(python: str) -> list[str]:
    """The tree interpreter's library directories (purelib, platlib)."""
    done = subprocess.run(
        [
            python,
            "-c",
            (
                "import json, sysconfig; p = sysconfig.get_paths(); "
                "print(json.dumps(sorted({p['purelib'], p['platlib']})))"
            ),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def migrate(
    copy: Path,
    select: str,
    unsafe: bool,
    jobs: int,
    extra: list[str],
    libraries: tuple[str, ...] = (),
) -> Migration:
    command = [sys.executable, "-m", "jaxfix"]
    if libraries:
        code = _WITH_LIBRARIES.format(sep=os.pathsep)
        command = [sys.executable, "-c", code, os.pathsep.join(libraries)]
    command += ["--select", select, "--no-cache"]
    command += ["--format", "json", "-j", str(jobs)]
    command += ["--unsafe-fixes" if unsafe else "--no-unsafe-fixes", *extra, "."]
    done = subprocess.run(
        command, cwd=copy, capture_output=True, text=True, check=False
    )
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise SystemExit(
            f"jaxfix failed (exit {done.returncode}):\n{done.stderr[-4000:]}"
        )
    migration = Migration()
    for entry in json.loads(done.stdout)["files"]:
        for diagnostic in entry["diagnostics"]:
            fix = diagnostic.get("fix")
            if fix and fix["applied"]:
                migration.fixes.setdefault(entry["path"], Counter())[
                    diagnostic["code"]
                ] += 1
            else:
                migration.left[diagnostic["code"]] += 1
        if entry["status"] == "changed":
            migration.fixes.setdefault(entry["path"], Counter())
    return migration


def is_test_file(path: Path) -> bool:
    return path.suffix == ".py" and (
        path.name.startswith("test_") or path.stem.endswith("_test")
    )


def module_names(path: str, tree: Path, roots: list[Path]) -> set[str]:
    """The dotted names `import` reaches `path` by, one per root holding it."""
    absolute = (tree / path).resolve()
    names: set[str] = set()
    if absolute.suffix != ".py":
        return names
    for root in roots:
        try:
            parts = list(absolute.relative_to(root.resolve()).with_suffix("").parts)
        except ValueError:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        if parts and all(part.isidentifier() for part in parts):
            names.add(".".join(parts))
    return names


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, and `parent.leaf` for each `from parent import leaf`."""
    try:
        module = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def choose_tests(
    tree: Path, changed: list[str], roots: list[Path], extra: list[str]
) -> tuple[dict[str, list[str]], list[str]]:
    """Test file -> why it runs (the changed files it is or imports), and the changed files no
    chosen test reaches."""
    tests = sorted(
        path.relative_to(tree).as_posix()
        for path in tree.rglob("*.py")
        if is_test_file(path) and not any(part.startswith(".") for part in path.parts)
    )
    imports = {test: imported_modules(tree / test) for test in tests}
    chosen: dict[str, list[str]] = {test: ["--test"] for test in extra}
    untested = []
    for path in changed:
        reached = []
        if is_test_file(Path(path)):
            reached = [path]
        elif Path(path).name == "conftest.py":
            folder = Path(path).parent.as_posix()
            reached = [
                test for test in tests if test.startswith(f"{folder}/") or folder == "."
            ]
        elif names := module_names(path, tree, roots):
            reached = [test for test in tests if names & imports[test]]
        for test in reached:
            chosen.setdefault(test, []).append(path)
        if not reached:
            untested.append(path)
    return dict(sorted(chosen.items())), untested


def run_tests(
    copy: Path,
    tests: list[str],
    python: str,
    roots: list[str],
    pytest_args: list[str],
    timeout: float,
) -> dict[str, str]:
    """Test id -> outcome, from pytest's JUnit XML, one pytest run per test file (a file whose
    run times out or writes no report is one `FILE::(no report)` entry, `error`)."""
    env = dict(os.environ)
    # Each copy its own temporary folder: tests writing fixed names under TEST_TMPDIR would
    # otherwise meet the other copy's files (FileExistsError after, not a change of the code).
    scratch = copy.parent / f"{copy.name}-tmp"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    env.update(
        TMPDIR=str(scratch),
        TEST_TMPDIR=str(scratch),
        PYTHONHASHSEED="0",
        JAX_PLATFORMS="cpu",
        XLA_FLAGS="--xla_force_host_platform_device_count=8",
        PYTHONPATH=os.pathsep.join(str(copy / root) for root in roots),
    )
    outcomes: dict[str, str] = {}
    for number, test in enumerate(tests):
        report = copy.parent / f"{copy.name}-junit-{number}.xml"
        report.unlink(missing_ok=True)
        command = [
            python,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={report}",
        ]
        command += ["-o", "junit_family=xunit1", *pytest_args, test]
        try:
            subprocess.run(
                command,
                cwd=copy,
                env=env,
                check=False,
                timeout=timeout,
                capture_output=True,
            )
        except subprocess.TimeoutExpired:
            pass
        if not report.exists():
            outcomes[f"{test}::(no report)"] = "error"
            continue
        for case in ET.parse(report).iter("testcase"):
            test_id = f"{test}::{case.get('classname')}::{case.get('name')}"
            outcome = "passed"
            for tag in ("failure", "error", "skipped"):
                if case.find(tag) is not None:
                    outcome = {"failure": "failed"}.get(tag, tag)
                    break
            outcomes[test_id] = outcome
        print(
            f"{copy.name} {test}: {dict(Counter(o for t, o in outcomes.items() if t.startswith(test + '::')))}",
            file=sys.stderr,
            flush=True,
        )
    return outcomes


def counts(outcomes: dict[str, str], test_file: str) -> Counter[str]:
    return Counter(
        outcome
        for test_id, outcome in outcomes.items()
        if test_id.startswith(f"{test_file}::")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--python", required=True, help="the tree's own interpreter")
    parser.add_argument(
        "--work", type=Path, help="where the copies go (TREE.migration)"
    )
    parser.add_argument(
        "--root", action="append", default=[], help="an import root in TREE"
    )
    parser.add_argument("--select", default="ALL")
    parser.add_argument("--no-unsafe-fixes", dest="unsafe", action="store_false")
    parser.add_argument(
        "--jaxfix-arg", action="append", default=[], help="passed to jaxfix"
    )
    parser.add_argument(
        "--test", action="append", default=[], help="also run this test file"
    )
    parser.add_argument(
        "--only-changed-tests",
        action="store_true",
        help="run the changed test files (and --test), not those importing a changed module",
    )
    parser.add_argument(
        "--skip-test", action="append", default=[], help="do not run this test file"
    )
    parser.add_argument(
        "--pytest-arg", action="append", default=[], help="to every pytest run"
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="seconds per test file"
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    tree = args.tree.resolve()
    work = (args.work or tree.with_name(f"{tree.name}.migration")).resolve()
    before, after = work / "before", work / "after"
    for copy in (before, after):
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(tree, copy, ignore=IGNORED_COPY, symlinks=True)
    roots = [".", *args.root]
    migration = migrate(
        after,
        args.select,
        args.unsafe,
        args.jobs,
        args.jaxfix_arg,
        tuple(site_packages(args.python)),
    )
    changed = sorted(migration.fixes)
    chosen, untested = choose_tests(
        after, changed, [after / root for root in roots], args.test
    )
    chosen = {t: why for t, why in chosen.items() if t not in args.skip_test}
    if args.only_changed_tests:
        chosen = {t: why for t, why in chosen.items() if t in why or "--test" in why}
        reached = {path for why in chosen.values() for path in why}
        untested = [path for path in changed if path not in reached]

    flags = " ".join(
        ["--select", args.select, *(["--unsafe-fixes"] if args.unsafe else [])]
    )
    print(f"# {tree.name}: jaxfix {' '.join([flags, *args.jaxfix_arg])}\n")
    per_rule = sum(migration.fixes.values(), Counter())
    print("fixes by rule:", _codes(per_rule))
    print("left without a fix:", _codes(migration.left))
    print(f"\n## {len(changed)} files changed")
    for path in changed:
        note = "  (no test run reaches it)" if path in untested else ""
        print(f"- {path}: {_codes(migration.fixes[path])}{note}")
    results: dict[str, object] = {
        "tree": str(tree),
        "fixes": {path: dict(codes) for path, codes in migration.fixes.items()},
        "left": dict(migration.left),
        "tests": chosen,
        "untested": untested,
    }
    runs = {
        name: run_tests(
            copy, list(chosen), args.python, roots, args.pytest_arg, args.timeout
        )
        for name, copy in (("before", before), ("after", after))
    }
    print(
        f"\n## {len(chosen)} test files (before -> after: passed/failed/error/skipped)"
    )
    for test, why in chosen.items():
        cells = [
            "/".join(str(counts(runs[name], test)[outcome]) for outcome in OUTCOMES)
            for name in ("before", "after")
        ]
        print(f"- {test}: {cells[0]} -> {cells[1]}  (reaches {', '.join(why)})")
    for name, outcomes in runs.items():
        total = Counter(outcomes.values())
        print(
            f"{name}: "
            + ", ".join(f"{total[outcome]} {outcome}" for outcome in OUTCOMES)
        )
    worse = sorted(
        test_id
        for test_id, outcome in runs["before"].items()
        if outcome == "passed" and runs["after"].get(test_id) != "passed"
    )
    better = sorted(
        test_id
        for test_id, outcome in runs["after"].items()
        if outcome == "passed" and runs["before"].get(test_id) != "passed"
    )
    print(f"\npassed before, not after: {len(worse)}")
    for test_id in worse:
        print(f"- {test_id}: {runs['after'].get(test_id, 'missing')}")
    print(f"passed after, not before: {len(better)}")
    for test_id in better:
        print(f"- {test_id}: was {runs['before'].get(test_id, 'missing')}")
    results.update(
        before=runs["before"], after=runs["after"], worse=worse, better=better
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 1 if worse else 0


def _codes(counts: Counter[str]) -> str:
    return ", ".join(f"{code} {n}" for code, n in sorted(counts.items())) or "none"


if __name__ == "__main__":
    sys.exit(main())
