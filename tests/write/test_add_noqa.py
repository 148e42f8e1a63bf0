"""`--add-noqa`'s comments: only at line ends where a comment changes nothing (jaxfix/write/add_noqa.py)."""

from __future__ import annotations

from jaxfix.ground.diagnostics import Diagnostic, Location
from jaxfix.write.add_noqa import with_suppressions


def finding(code: str, start: int, end: int | None = None) -> Diagnostic:
    return Diagnostic(code, "message", Location(start, 1), Location(end or start, 1))


def test_a_comment_goes_at_the_end_of_the_first_line_or_merges_with_ours():
    source = b"a = f(x)\r\nb = g(y)  # jaxfix: ignore[JAX003]\nc = 1\n"
    new, added, left = with_suppressions(
        source, [finding("JAX001", 1), finding("JAX001", 2), finding("JAX002", 1)]
    )
    assert (
        new
        == b"a = f(x)  # jaxfix: ignore[JAX001, JAX002]\r\nb = g(y)  # jaxfix: ignore[JAX003, JAX001]\nc = 1\n"
    )
    assert added == 2 and left == []
    assert with_suppressions(new, [finding("JAX001", 1)])[0] == new  # idempotent


def test_never_inside_a_string_or_after_a_continuation():
    string = b'x = f("""\nstill the string\n""")\n'
    new, added, left = with_suppressions(string, [finding("JAX001", 1, 3)])
    assert (
        new == b'x = f("""\nstill the string\n""")  # jaxfix: ignore[JAX001]\n'
        and added == 1
    )
    continued = b"x = f(1) + \\\n    g(2)\n"
    new, added, left = with_suppressions(continued, [finding("JAX001", 1, 2)])
    assert new == b"x = f(1) + \\\n    g(2)  # jaxfix: ignore[JAX001]\n"
    inside = b's = """\na = 1\n"""\n'
    new, added, left = with_suppressions(inside, [finding("JAX001", 2)])
    assert new == inside and added == 0 and left == [finding("JAX001", 2)]
