"""The YAML entries jaxfix changes without PyYAML (jaxfix/write/yaml_subset.py, through
`find_yaml_entry` when `import yaml` fails): the same entry, with the same byte spans, as
PyYAML's composer finds in the subset it reads; anything outside that subset, or hostile,
refused with its reason, never a patch."""

from __future__ import annotations

import sys

import pytest

from jaxfix.write.json_entry import (
    NotAnEntry,
    find_yaml_entry,
    find_yaml_subset_entry,
    replaced,
)

STAGES = """\
# stages of the run
train:
  mesh_shape: [2, 4]   # the training mesh
  batch: 8
eval:
  mesh_shape:
  - 4
  - 4
  name: 'eval stage'
serve:
  mesh:
    shape: [ 8,1 ]
    dp: 2
"""


@pytest.mark.parametrize(
    ("keys", "scalar"),
    [
        (("train", "mesh_shape"), False),
        (("eval", "mesh_shape"), False),
        (("serve", "mesh", "shape"), False),
        (("serve", "mesh", "dp"), True),
        (("train", "batch"), True),
    ],
)
def test_the_subset_reader_finds_what_pyyaml_finds(keys, scalar):
    pytest.importorskip("yaml")
    data = STAGES.encode()
    mine = find_yaml_subset_entry(data, keys, scalar)
    theirs = find_yaml_entry(data, keys, scalar)
    assert (mine.values, mine.spans, mine.line, mine.column) == (
        theirs.values,
        theirs.spans,
        theirs.line,
        theirs.column,
    )


def test_without_pyyaml_the_entry_s_integer_alone_is_replaced(monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` raises ImportError
    data = STAGES.encode()
    entry = find_yaml_entry(data, ("eval", "mesh_shape"))
    assert entry.values == (4, 4)
    after = replaced(data, entry.spans[1], 2)
    assert after == data.replace(b"  - 4\n  name", b"  - 2\n  name")


@pytest.mark.parametrize(
    ("document", "why"),
    [
        ("- &b [4, 4]\n", "'&'"),
        ("eval: !!python/tuple [4, 4]\n", "'!'"),
        ("eval: |\n  4\n", "'|'"),
        ("eval: {shape: [4, 4]}\n", "'{'"),
        ("eval: [4, 4]\n---\neval: [2, 2]\n", "another document"),
        ("%YAML 1.1\n---\neval: [4, 4]\n", "'%'"),
        ("eval:\n\tshape: [4, 4]\n", "tab"),
        ("eval: [4, 4]\neval: [2, 4]\n", "written twice"),
        ("on: [4, 4]\n", "not a string in YAML 1.1"),
        ("eval: [4,\n  4]\n", "goes on to the next line"),
        ("eval:\n  shape: [4, 4]\n    extra: 1\n", "goes on to the next line"),
        ("eval:\n    shape: [4, 4]\n  extra: 1\n", "indentation"),
        ("eval: [4, 4] extra\n", "one line alone"),
        ("? eval\n: [4, 4]\n", "complex key"),
        ('eval: "a\\n"\n', "escape"),
    ],
)
def test_yaml_outside_the_subset_is_refused_with_its_reason(document, why):
    with pytest.raises(NotAnEntry, match="not YAML jaxfix reads") as raised:
        find_yaml_subset_entry(document.encode(), ("eval",))
    assert why in str(raised.value)


@pytest.mark.parametrize(
    ("document", "keys", "why"),
    [
        ("eval: [99999999999, 4]\n", ("eval",), "not a list of integers"),
        ("eval: ['4', 4]\n", ("eval",), "not a list of integers"),
        ("eval: [4.0, 4]\n", ("eval",), "not a list of integers"),
        ("eval: [0x4, 4]\n", ("eval",), "not a list of integers"),
        ("eval: [4, 4]\n", ("serve",), "no entry"),
        ("eval: [4, 4]\n", ("eval", "shape"), "not a mapping"),
    ],
)
def test_an_entry_that_is_not_plain_integers_is_refused(document, keys, why):
    with pytest.raises(NotAnEntry, match=why):
        find_yaml_subset_entry(document.encode(), keys)


def test_a_file_that_is_not_utf8_is_refused():
    with pytest.raises(NotAnEntry, match="not UTF-8"):
        find_yaml_subset_entry(b"eval: [4, 4] # \xff\n", ("eval",))


def test_huge_numbers_are_refused_with_pyyaml_too():
    pytest.importorskip("yaml")
    with pytest.raises(NotAnEntry, match="not a list of integers"):
        find_yaml_entry(b"eval: [99999999999, 4]\n", ("eval",))


@pytest.mark.parametrize(
    "document",
    [
        b"other: "
        + b"9" * 5000
        + b"\neval: [4, 4]\n",  # past Python's int() digit limit
        b"other: " + b"[" * 3000 + b"]" * 3000 + b"\neval: [4, 4]\n",  # past the stack
    ],
)
def test_a_file_pyyaml_cannot_load_is_refused_not_raised(document):
    pytest.importorskip("yaml")
    with pytest.raises(NotAnEntry, match="does not read"):
        find_yaml_entry(document, ("eval",))


ALIASED = """\
train:
  mesh_shape: [2, 4]
eval:
  mesh_shape: [4, 4]
serve: &serve
  mesh_shape: [4, 4]
wide: *serve
"""


def test_an_entry_beside_an_alias_is_found_and_the_reused_one_is_refused():
    data = ALIASED.encode()
    entry = find_yaml_subset_entry(data, ("eval", "mesh_shape"))
    assert entry.values == (4, 4) and entry.line == 4
    for keys in (("serve", "mesh_shape"), ("wide", "mesh_shape")):
        with pytest.raises(NotAnEntry, match="an anchor other entries reuse"):
            find_yaml_subset_entry(data, keys)


@pytest.mark.parametrize(
    "document",
    [
        "wide: *serve\nserve: &serve\n  a: [4, 4]\n",  # an alias before its anchor
        "serve: &s [4, 4]\nother: &s [2, 2]\n",  # an anchor set twice
        "serve: [&s 4, 4]\n",  # an anchor inside a list
        "serve: a *s\n",  # in a scalar
    ],
)
def test_anchors_and_aliases_elsewhere_than_a_mapping_s_value_are_refused(document):
    with pytest.raises(NotAnEntry, match="not YAML jaxfix reads"):
        find_yaml_subset_entry(document.encode(), ("serve",))
