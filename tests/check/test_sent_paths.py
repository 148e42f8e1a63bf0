"""Paths sent to and from workers as text: equal on arrival, one object a text."""

from __future__ import annotations

import pickle
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

from jaxfix.check.sent_paths import path_from_text, send_paths_as_text
from jaxfix.ground.diagnostics import WordLookup


def _sent(value: object) -> object:
    return pickle.loads(bytes(ForkingPickler.dumps(value)))


def test_a_path_arrives_equal_and_once_made() -> None:
    send_paths_as_text()
    first = _sent(Path("/tree/pkg/module.py"))
    again = _sent([Path("/tree/pkg/module.py")])
    assert first == Path("/tree/pkg/module.py")
    assert isinstance(again, list) and again[0] is first


def test_relative_and_odd_paths_keep_their_meaning() -> None:
    send_paths_as_text()
    for path in (Path("pkg/a.py"), Path("."), Path("/t/x/../y.py"), Path("/t/a b.py")):
        arrived = _sent(path)
        assert arrived == path and type(arrived) is type(path)
        assert str(arrived) == str(path)


def test_a_result_s_word_search_holds_the_same_files() -> None:
    send_paths_as_text()
    lookup = WordLookup(("dot",), frozenset({Path("/t/a.py"), Path("/t/b.py")}), "d")
    arrived = _sent(lookup)
    assert arrived == lookup
    assert isinstance(arrived, WordLookup)
    assert {id(p) for p in arrived.holders} == {
        id(path_from_text("/t/a.py")),
        id(path_from_text("/t/b.py")),
    }
