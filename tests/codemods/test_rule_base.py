"""The Rule base class: what one batched walk can honour is checked when a rule is defined."""

from __future__ import annotations

import ast

import pytest

from jaxfix.codemods import RULES
from jaxfix.codemods.base import DOC_SECTIONS, Rule


def test_a_rules_visitors_are_its_own_methods_bound_to_the_instance():
    class Calls(Rule):
        def visit_Call(self, node: ast.Call) -> None:
            pass

        def visit_Name(self, node: ast.Name) -> None:
            pass

    rule = Calls(None, None)  # type: ignore[arg-type] - the visitors need no analysis
    visitors = rule.get_visitors()
    assert sorted(visitors) == ["visit_Call", "visit_Name"]
    assert visitors["visit_Call"].__self__ is rule


def test_a_leave_method_is_refused():
    with pytest.raises(TypeError, match="visit_ methods only"):

        class Leaving(Rule):
            def leave_Call(self, node: ast.Call) -> None:
                pass


def test_a_visitor_name_that_is_not_a_plain_method_is_refused():
    with pytest.raises(TypeError, match="must be a plain method"):

        class Lazy(Rule):
            @property
            def visit_Call(self):
                raise AssertionError("the walk would evaluate this")


def test_an_exception_per_message_must_name_one_for_each():
    class TwoExceptions(Rule):
        raises = ("first message", "second message")
        error = ("RuntimeError", "ValueError")

    assert TwoExceptions.error == ("RuntimeError", "ValueError")
    with pytest.raises(TypeError, match="one per `raises` message"):

        class Short(Rule):
            raises = ("first message", "second message")
            error = ("RuntimeError",)


@pytest.mark.parametrize("code", sorted(RULES))
def test_the_registered_rules_visit_ast_node_classes(code):
    for name in RULES[code](None, None).get_visitors():  # type: ignore[arg-type]
        assert isinstance(getattr(ast, name.removeprefix("visit_"), None), type), name


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_documents_the_ruff_style_sections_in_order(code):
    doc = RULES[code].doc()
    where = [doc.find(section) for section in DOC_SECTIONS]
    assert -1 not in where and where == sorted(where), dict(zip(DOC_SECTIONS, where))
