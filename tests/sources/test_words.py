"""The word index's words (jaxfix/sources/words.py): identifiers and numbers, a UTF-8 identifier kept
whole, whatever bytes surround them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jaxfix.sources.words import _WORD, words_of


def test_words_are_identifiers_numbers_and_utf8_names():
    source = "x = jax.set_mesh(m_2)  # größe 12\n".encode()
    assert words_of(source) == {
        b"x",
        b"jax",
        b"set_mesh",
        b"m_2",
        "größe".encode(),
        b"12",
    }


def test_every_byte_splits_or_joins_as_the_word_pattern_says():
    every = bytes(range(256))
    assert words_of(every * 2) == set(_WORD.findall(every * 2))


@given(st.binary(max_size=200))
def test_any_bytes_give_the_word_patterns_words(source):
    assert words_of(source) == set(_WORD.findall(source))
