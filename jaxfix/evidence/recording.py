"""The private directory a recorded run gets: the recorder, a `sitecustomize` that starts it
and then the user's own, the rules' messages, and the environment that puts them in force.

Nothing is installed into the command's environment: the directory goes first on PYTHONPATH
(inherited by every Python process the command starts, `python -m ...` and shells included),
and pytest loads the recorder as a plugin through PYTEST_PLUGINS.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from jaxfix.check.registry import all_rules
from jaxfix.evidence import recorder
from jaxfix.evidence.message_templates import exceptions, pattern
from jaxfix.ground.run_directories import make_run_directory

MODULE = "jaxfix_record"  # the recorder's hooks inside the directory (jaxfix/evidence/recorder.py)
WRITER = f"{MODULE}_writer"  # and what writes the records (jaxfix/evidence/recorder_writer.py)
PROVENANCE = f"{MODULE}_provenance"  # where meshes are built (jaxfix/evidence/recorder_provenance.py)
# The pytest plugin: a module of its own, first imported by pytest (a plugin imported before
# pytest starts draws its assertion-rewriting warning).
PLUGIN = "jaxfix_record_pytest"
# What the directory holds (a run killed before its end leaves it: the next one removes it,
# jaxfix/ground/run_directories.py): the modules above, their bytecode, the patterns, each
# run's evidence and output.
_HOLDS = re.compile(
    rf"(?:{MODULE}(?:_writer|_provenance|_pytest)?|sitecustomize)\.py|__pycache__/"
    r"|patterns\.json(?:\.part)?|evidence-[0-9]+\.jsonl|output-[0-9]+\.txt"
)

_SITECUSTOMIZE = '''\
"""Written by jaxfix for one recorded run: starts the recorder, then the sitecustomize this one
hides (the next on sys.path), so that the user's own start-up code still runs. It runs in every
Python process of the command: it imports nothing Python has not loaded already unless there is
such a sitecustomize."""
import os
import sys

try:
    import jaxfix_record

    jaxfix_record.install()
except Exception as _error:  # the recorder must never stop the program
    sys.stderr.write("jaxfix: the recorder did not start: {}\\n".format(_error))


def _chain():
    """The next sitecustomize, once per process: the directories whose sitecustomize already ran
    here (this one's, a nested recorded run's) are skipped, and one of them reached again (a
    user's sitecustomize that chains the same way finds this one) does nothing."""
    try:
        from _frozen_importlib_external import PathFinder  # CPython's, loaded at start-up
    except ImportError:
        from importlib.machinery import PathFinder

    here = os.path.dirname(os.path.abspath(__file__))
    ran = sys.__dict__.setdefault("_jaxfix_sitecustomize_ran", set())
    if here in ran:
        return
    ran.add(here)
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) not in ran]
    spec = PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    import importlib.util

    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_chain()
'''


def message_patterns() -> dict[str, list[str]]:
    """Each rule's `raises` messages as regular expressions (their holes left open), read as
    the prefilter reads the rules' tokens: without importing them (libcst)."""
    return {
        rule.code: [pattern(template) for template in rule.raises]
        for rule in all_rules()
        if rule.raises
    }


def mesh_locals() -> dict[str, dict[str, str]]:
    """Where JAX keeps each rule's meshes when it raises, by role (`Rule.mesh_locals`)."""
    return {
        rule.code: dict(rule.mesh_locals) for rule in all_rules() if rule.mesh_locals
    }


def recorder_patterns() -> dict[str, object]:
    """What the recorder matches with: the rules' messages, the exception each message is
    raised with (`Rule.error`, one name per message), and where JAX keeps the meshes."""
    errors = {
        rule.code: list(exceptions(rule.error, rule.raises))
        for rule in all_rules()
        if rule.raises
    }
    return {"messages": message_patterns(), "errors": errors, "meshes": mesh_locals()}


class RecordingDir:
    """A private temporary directory (mode 0700) holding the recorder; `env(n)` is the
    environment of run `n`, whose evidence goes to `evidence(n)`; `write_patterns()` must be
    called before or during the first run. Removed by `close()`."""

    def __init__(self) -> None:
        self.path = make_run_directory("record", _HOLDS)
        hooks = Path(recorder.__file__)
        shutil.copyfile(hooks, self.path / f"{MODULE}.py")
        shutil.copyfile(
            hooks.with_name("recorder_writer.py"), self.path / f"{WRITER}.py"
        )
        shutil.copyfile(
            hooks.with_name("recorder_provenance.py"), self.path / f"{PROVENANCE}.py"
        )
        (self.path / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
        (self.path / f"{PLUGIN}.py").write_text(
            f"from {MODULE} import pytest_exception_interact  # noqa: F401\n",
            encoding="utf-8",
        )
        self.patterns = self.path / "patterns.json"

    def write_patterns(self) -> None:
        """Atomically: the recorder reads the file at its first error, possibly while it is
        written (the rules are imported while the command starts; see jaxfix/workflows/repair.py)."""
        if self.patterns.exists():
            return
        part = self.path / "patterns.json.part"
        part.write_text(json.dumps(recorder_patterns()), encoding="utf-8")
        os.replace(part, self.patterns)

    def evidence(self, run: int) -> Path:
        return self.path / f"evidence-{run}.jsonl"

    def output(self, run: int) -> Path:
        return self.path / f"output-{run}.txt"

    def env(self, run: int, base: Mapping[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(self.path), env.get("PYTHONPATH", "")) if p
        )
        plugins = [p for p in env.get("PYTEST_PLUGINS", "").split(",") if p.strip()]
        env["PYTEST_PLUGINS"] = ",".join(
            [*plugins, PLUGIN] if PLUGIN not in plugins else plugins
        )
        env[recorder.FILE_ENV] = str(self.evidence(run))
        env[recorder.PATTERNS_ENV] = str(self.patterns)
        return env

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
