"""Which bindings of a name reach a read, as the `ast` engine's flow answers
(`Evaluator.reaching`): the question a fix that rewrites a binding asks (ported from the
LibCST engine's tests/test_reaching.py: the same programs, the same reads).

The LibCST engine answered "None" where a fix could not rewrite one plain assignment; the new
engine gives every binding that reaches, with its kind ("assign", "aug") and, for an unpacking
target, its place in the tuple: a fix rewrites only a lone plain assignment."""

from __future__ import annotations

import ast

import pytest

from ast_programs import calls, parsed


def _reaching(code: str, read: int = -1) -> list[tuple[str, str, bool]] | None:
    """(kind, statement, unpacked) of each binding reaching `use(m)` (the last by default)."""
    engine, module = parsed(code)
    name = calls(module, "use")[read].args[0]
    assert isinstance(name, ast.Name)
    found = engine.evaluator.reaching(module, name)
    if found is None:
        return None
    return sorted((b.kind, ast.unparse(b.node), bool(b.path)) for b in found)


def _assigned(*values: int) -> list[tuple[str, str, bool]]:
    return [("assign", f"m = {v}", False) for v in values]


@pytest.mark.parametrize(
    "code, bindings",
    [
        ("m = 1\nm = 2\nuse(m)\n", _assigned(2)),
        ("m = 1\nuse(m)\nm = 2\n", _assigned(1)),
        (
            "def f():\n    m = 1\n    m = 2\n    with c():\n        use(m)\n",
            _assigned(2),
        ),
        ("m = 1\nif c:\n    m = 2\nelse:\n    m = 3\nuse(m)\n", _assigned(2, 3)),
        ("m = 1\nif c:\n    m = 2\nuse(m)\n", _assigned(1, 2)),
        (
            "m = 1\nif c:\n    m = 2\nelif d:\n    pass\nelse:\n    m = 4\nuse(m)\n",
            _assigned(1, 2, 4),
        ),
        ("m = 1\nwith c():\n    m = 2\nuse(m)\n", _assigned(2)),
        # one binding: the loop does not rebind it
        ("m = 1\nfor i in r:\n    use(m)\n", _assigned(1)),
        ("for i in r:\n    m = 1\n    use(m)\n", _assigned(1)),
        # the next step sees m = 2 (the LibCST engine: None, for the same reason)
        ("m = 1\nfor i in r:\n    use(m)\n    m = 2\n", _assigned(1, 2)),
        ("m = 1\nm += 1\nuse(m)\n", [("aug", "m += 1", False)]),
        # when f runs is not known: any binding of the module
        ("m = 1\nm = 2\ndef f():\n    use(m)\n", _assigned(1, 2)),
        ("m = 1\ntry:\n    m = 2\nexcept E:\n    use(m)\n", _assigned(1, 2)),
        ("if c:\n    m = 1\nuse(m)\n", _assigned(1)),  # the one value it can see
        # The LibCST engine gave up on a later rebinding at module level ("maybe unbound");
        # the new flow sees that only `m = 1` reaches the read
        ("if c:\n    m = 1\nuse(m)\nm = 2\n", _assigned(1)),
        ("m = 1\nm, n = 2, 3\nuse(m)\n", [("assign", "m, n = (2, 3)", True)]),
    ],
)
def test_reaching_bindings(code: str, bindings: list[tuple[str, str, bool]]) -> None:
    assert _reaching(code) == bindings


def test_reads_reached_stop_at_a_rebinding() -> None:
    code = "m = 1\nuse(m)\nuse(m)\nm = 2\nuse(m)\n"
    assert [_reaching(code, n) for n in range(3)] == [
        _assigned(1),
        _assigned(1),
        _assigned(2),
    ]
