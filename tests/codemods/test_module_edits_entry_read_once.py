"""`entry_read_once` (jaxfix/codemods/module_edits.py): a literal written as an entry of an
attribute config (`create(mesh_axes=("replica",))`) is changed alone when the project's one read
of that entry holds it, however often the config itself is read; `called_through`
(jaxfix/analysis/ast_engine/written_at.py) leads a mesh's frames up its functions' one caller."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ast_programs import of_file
from jaxfix.analysis.ast_engine.written_at import called_through
from jaxfix.codemods.module_edits import entry_read_once

CONFIG = """\
class ConfigDict(dict):
    def __getattr__(self, name):
        return self[name]

    def __setattr__(self, name, value):
        self[name] = value


def create(**kwargs):
    return ConfigDict(**kwargs)


def get_config():
    cfg = ConfigDict()
    cfg.mesh_axes = ("data",)
    cfg.eval = create(gather=True, mesh_axes=("replica",))
    return cfg
"""

MAIN = """\
import jax

from config import get_config


def build(axes):
    return jax.make_mesh((jax.device_count(),), tuple(axes))


def train(c):
    mesh = build(c.mesh_axes)
    eval_mesh = build(c.eval.mesh_axes)
    {more}
    return mesh, eval_mesh


def main():
    train(get_config())
"""


def _tree(tmp_path: Path, more: str) -> tuple[Path, Path]:
    (tmp_path / "config.py").write_text(CONFIG)
    (tmp_path / "main.py").write_text(MAIN.format(more=more))
    return tmp_path / "config.py", tmp_path / "main.py"


@pytest.mark.parametrize(
    "more, once",
    [
        ("pass", True),
        ("print(c.eval.mesh_axes)", False),
        ('print(getattr(c.eval, "mesh_axes"))', False),
    ],
)
def test_an_entry_read_once_is_changed_alone(
    tmp_path: Path, more: str, once: bool
) -> None:
    config, _ = _tree(tmp_path, more)
    engine, module = of_file(config, roots=(tmp_path,))
    literal = next(
        k.value
        for k in ast.walk(module.tree)
        if isinstance(k, ast.keyword) and k.arg == "mesh_axes"
    )
    assert entry_read_once(engine.evaluator, module, literal) is once


@pytest.mark.parametrize("callers, led", [(1, True), (2, False)])
def test_frames_are_led_up_a_functions_one_caller(
    tmp_path: Path, callers: int, led: bool
) -> None:
    _, main = _tree(tmp_path, "pass")
    if callers == 2:
        main.write_text(
            main.read_text() + "\n\ndef again():\n    train(get_config())\n"
        )
    engine, module = of_file(main, roots=(tmp_path,))
    frames = ((main, 12), (main, 7))
    found = called_through(engine.evaluator, frames)
    assert (found[0] == (main, 18)) is led
    assert found[-2:] == frames
