"""The Rule base class: what one batched traversal can honour is checked when a rule is defined."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
import pytest

from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper
from jaxfix.codemods import RULES
from jaxfix.codemods.base import DOC_SECTIONS, CstRule
from jaxfix.options import Options


def test_a_rules_visitors_are_its_own_methods_bound_to_the_instance():
    class Calls(CstRule):
        def visit_Call(self, node: cst.Call) -> None:
            pass

        def leave_Name(self, original_node: cst.Name) -> None:
            pass

    rule = Calls(None, None)  # type: ignore[arg-type] - the visitors need no analysis
    visitors = rule.get_visitors()
    assert sorted(visitors) == ["leave_Name", "visit_Call"]
    assert visitors["visit_Call"].__self__ is rule


@pytest.mark.parametrize(
    "decorator",
    [
        m.visit(m.Call()),
        m.call_if_inside(m.FunctionDef()),
        m.call_if_not_inside(m.ClassDef()),
    ],
)
def test_matcher_decorators_are_refused(decorator):
    with pytest.raises(TypeError, match="matcher decorators"):

        class Decorated(CstRule):
            @decorator
            def visit_Call(self, node: cst.Call) -> None:
                pass


def test_a_visitor_name_that_is_not_a_plain_method_is_refused():
    with pytest.raises(TypeError, match="must be a plain method"):

        class Lazy(CstRule):
            @property
            def visit_Call(self):
                raise AssertionError("LibCST would evaluate this before the traversal")


@pytest.mark.parametrize("code", sorted(RULES))
def test_the_registered_rules_visit_what_libcst_would_collect(code):
    analysis = ModuleAnalysis(ModuleLevelBatchWrapper(cst.parse_module("")), None)
    rule = RULES[code](analysis, Options())
    assert (
        rule.get_visitors().keys() == cst.BatchableCSTVisitor.get_visitors(rule).keys()
    )


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_documents_the_ruff_style_sections_in_order(code):
    doc = RULES[code].doc()
    where = [doc.find(section) for section in DOC_SECTIONS]
    assert -1 not in where and where == sorted(where), dict(zip(DOC_SECTIONS, where))
