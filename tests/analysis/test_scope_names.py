"""`flow.scope_names`: the names a scope makes local, and those only plain `def`/`class`
statements bind, from one walk of its own code."""

from __future__ import annotations

import ast
import textwrap

from jaxfix.analysis.ast_engine.flow import scope_names


def _function(source: str) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(source))
    found = tree.body[0]
    assert isinstance(found, ast.FunctionDef)
    return found


def test_every_way_a_function_binds_a_name_and_none_of_its_nested_scopes():
    function = _function(
        """
        def f(a, /, b, *args, c, **kwargs):
            global g
            x = 1
            y += 1
            del z
            for i, (j, k) in pairs:
                pass
            with open(p) as handle, lock:
                pass
            import numpy as np, os.path
            from jax import sharding as js, jit
            try:
                pass
            except ValueError as error:
                pass
            g = 2
            def plain():
                inner = 1
            @decorator
            def decorated():
                pass
            class Plain:
                attribute = 1
            square = lambda v: (w := v * v)
            values = [t for t in range(3) if (found := t)]
            obj.attr = 3
            items[0] = 4
            match command:
                case [first, *rest]:
                    pass
                case {"key": value, **others}:
                    pass
                case Point(x=px) as point:
                    pass
        """
    )
    local, plain = scope_names(function)
    assert local == {
        "a", "b", "args", "c", "kwargs", "x", "y", "z", "i", "j", "k", "handle", "np",
        "os", "js", "jit", "error", "plain", "decorated", "Plain", "square", "values",
        "found",
    }  # fmt: skip
    assert plain == {"plain", "Plain"}


def test_a_match_capture_makes_a_def_of_the_same_name_other_than_plain():
    function = _function(
        """
        def f(command):
            def handler():
                pass
            match command:
                case [handler]:
                    pass
        """
    )
    local, plain = scope_names(function)
    assert "handler" in local
    assert not plain


def test_a_module_and_a_class_bind_what_their_own_code_binds():
    tree = ast.parse(
        textwrap.dedent(
            """
            import jax
            CONFIG = {}
            class Model:
                size: int = 3
                def method(self):
                    local = 1
            if jax:
                flag = [n for n in range(2)]
            """
        )
    )
    local, plain = scope_names(tree)
    assert local == {"jax", "CONFIG", "Model", "flag"}
    assert plain == {"Model"}
    model = tree.body[2]
    assert isinstance(model, ast.ClassDef)
    assert scope_names(model) == ({"size", "method"}, {"method"})


def test_a_lambda_binds_its_parameters_and_its_walrus():
    tree = ast.parse("square = lambda v, *rest: (w := v * v)")
    lam = tree.body[0].value  # type: ignore[attr-defined]
    assert isinstance(lam, ast.Lambda)
    assert scope_names(lam) == ({"v", "rest", "w"}, frozenset())
