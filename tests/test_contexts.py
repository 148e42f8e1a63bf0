"""The analysis core's two questions: `contexts_at(node)` and `value_of(expr)`, plus the binder."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxfix.analysis.contexts import Entry, context_mesh_sites
from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.analysis.names import SIGNATURES, Api, bind
from jaxfix.analysis.values import MeshKind, MeshValue, Unknown
from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper

HEADER = """\
import contextlib
import unittest
import jax
from jax.sharding import AbstractMesh, Mesh, use_abstract_mesh
M8 = AbstractMesh((8,), ("x",))
"""


def analyze(code: str) -> ModuleAnalysis:
    module = cst.parse_module(HEADER + textwrap.dedent(code))
    return ModuleAnalysis(
        ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), (0, 10, 2)
    )


def target(analysis: ModuleAnalysis, name: str = "target") -> cst.Call:
    """The call of `target()` (or `name()`) in the module."""
    (call,) = [
        c
        for c in analysis.nodes(cst.Call)
        if isinstance(c.func, cst.Name) and c.func.value == name
    ]
    return call


def described(
    analysis: ModuleAnalysis, node: cst.CSTNode
) -> list[tuple[Entry, Api | None, str]]:
    """(entry, api, mesh shape or 'unknown') for each site, outermost first."""
    return [
        (
            s.entry,
            s.api,
            s.mesh.shape_text() if isinstance(s.mesh, MeshValue) else "unknown",
        )
        for s in analysis.contexts_at(node)
    ]


def test_with_items_outermost_first_and_only_in_the_nodes_own_function():
    analysis = analyze(
        """
        with use_abstract_mesh(M8), open("f") as handle:
            with jax.set_mesh(jax.make_mesh((8,), ("x",))):
                def later():
                    other()
                target()
        """
    )
    assert described(analysis, target(analysis)) == [
        (Entry.WITH, Api.USE_ABSTRACT_MESH, "(8,) ('x',)"),
        (Entry.WITH, Api.SET_MESH, "(8,) ('x',)"),
    ]
    assert (
        described(analysis, target(analysis, "other")) == []
    )  # `later` is never called


def test_legacy_with_mesh_is_a_site_that_sets_no_context_mesh():
    analysis = analyze(
        """
        mesh = Mesh(jax.devices(), ("x",))
        with use_abstract_mesh(M8):
            with mesh:
                target()
        """
    )
    sites = analysis.contexts_at(target(analysis))
    assert [(s.api, s.sets_context_mesh) for s in sites] == [
        (Api.USE_ABSTRACT_MESH, True),
        (Api.MESH, False),
    ]
    assert [s.api for s in context_mesh_sites(sites)] == [Api.USE_ABSTRACT_MESH]


def test_enter_context_until_close_and_a_bare_set_mesh_earlier_in_the_block():
    analysis = analyze(
        """
        stack = contextlib.ExitStack()
        stack.enter_context(use_abstract_mesh(M8))
        jax.set_mesh(None)
        target()
        stack.close()
        other()
        """
    )
    assert [(s.entry, s.api) for s in analysis.contexts_at(target(analysis))] == [
        (Entry.ENTER_CONTEXT, Api.USE_ABSTRACT_MESH),
        (Entry.GLOBAL_SET, Api.SET_MESH),
    ]
    (global_set,) = analysis.contexts_at(target(analysis, "other"))
    assert global_set.entry is Entry.GLOBAL_SET and global_set.mesh.is_empty


def test_a_global_set_mesh_elsewhere_may_have_run_before():
    analysis = analyze(
        """
        target()
        def configure():
            jax.set_mesh(jax.make_mesh((8,), ("x",)))
        other()
        """
    )
    (site,) = analysis.contexts_at(target(analysis))
    assert (
        site.entry is Entry.ELSEWHERE
        and isinstance(site.mesh, Unknown)
        and context_mesh_sites([site]) == []
    )
    (site,) = analysis.contexts_at(
        target(analysis, "other")
    )  # a def that holds one: unknown since
    assert (
        site.entry is Entry.GLOBAL_SET
        and isinstance(site.mesh, Unknown)
        and context_mesh_sites([site]) == [site]
    )


def test_setup_then_callers_one_level_with_the_call_that_leads_there():
    analysis = analyze(
        """
        class Test(unittest.TestCase):
            def setUp(self):
                self.enterContext(use_abstract_mesh(M8))

            def test_it(self):
                target()

        def stage():
            other()

        with use_abstract_mesh(AbstractMesh((4,), ("x",))):
            stage()
        with use_abstract_mesh(AbstractMesh((2,), ("x",))):
            jax.jit(stage)()
        """
    )
    (setup,) = analysis.contexts_at(target(analysis))
    assert (
        setup.entry is Entry.SETUP
        and setup.setup.name.value == "setUp"
        and setup.mesh.size == 8
    )
    sites = context_mesh_sites(analysis.contexts_at(target(analysis, "other")))
    assert [(s.mesh.size, analysis.line(s.call)) for s in sites] == [(4, 18), (2, 20)]


@pytest.mark.parametrize(
    "definition",
    [
        "@contextlib.contextmanager\ndef stage():\n    yield\n    other()\n",  # a generator: a call runs nothing
        "def helper(f):\n    return f\n@helper\ndef stage():\n    other()\n",  # may be run elsewhere
        "class K:\n    def stage(self):\n        other()\n",  # methods are not followed
    ],
    ids=["generator", "unknown-decorator", "method"],
)
def test_calls_that_may_not_run_the_body_are_not_followed(definition):
    analysis = analyze(
        definition + "with use_abstract_mesh(M8):\n    stage()\n    K().stage()\n"
    )
    assert context_mesh_sites(analysis.contexts_at(target(analysis, "other"))) == []


def test_a_helper_sets_a_mesh_by_what_its_body_does_not_by_its_name():
    analysis = analyze(
        """
        @contextlib.contextmanager
        def log_mesh_timing():
            yield

        @contextlib.contextmanager
        def quiet():
            with use_abstract_mesh(AbstractMesh((), ())):
                yield

        with use_abstract_mesh(M8):
            with log_mesh_timing():
                target()
            with quiet():
                other()
            with imported_helper():
                third()
        """
    )
    assert [s.api for s in analysis.contexts_at(target(analysis))] == [
        Api.USE_ABSTRACT_MESH
    ]
    inner = analysis.contexts_at(target(analysis, "other"))[-1]
    assert (
        inner.api is Api.USE_ABSTRACT_MESH
        and isinstance(inner.mesh, MeshValue)
        and inner.mesh.is_empty
    )
    unseen = analysis.contexts_at(target(analysis, "third"))[-1]
    assert unseen.api is None and "cannot see" in unseen.mesh.why


def test_a_decorator_whose_body_enters_a_mesh_is_a_context():
    analysis = analyze(
        """
        def with_mesh(f):
            def wrapper(*args):
                with jax.set_mesh(jax.make_mesh((8,), ("x",))):
                    return f(*args)
            return wrapper

        @with_mesh
        def test_it():
            target()
        """
    )
    assert described(analysis, target(analysis)) == [
        (Entry.DECORATOR, Api.SET_MESH, "(8,) ('x',)")
    ]


@pytest.mark.parametrize(
    "decorator",
    [
        # a factory, as jax's test_util.with_explicit_mesh is written
        "def deco(n):\n    def apply(f):\n        def run(*a, **k):\n            mesh = jax.make_mesh((8,), ('x',))\n"
        "            with jax.set_mesh(mesh):\n                return f(*a, **k, mesh=mesh)\n        return run\n    return apply\n",
        # functools.wraps, and the mesh entered by ExitStack
        "import functools\ndef deco(n):\n    def apply(f):\n        @functools.wraps(f)\n        def run(*a):\n"
        "            with contextlib.ExitStack() as stack:\n                stack.enter_context(jax.set_mesh(jax.make_mesh((8,), ('x',))))\n"
        "                return f(*a)\n        return run\n    return apply\n",
    ],
    ids=["factory", "wraps-and-exit-stack"],
)
def test_a_decorator_puts_the_sites_around_its_call_of_the_function_around_it(
    decorator,
):
    analysis = analyze(decorator + "@deco(8)\ndef test_it(mesh=None):\n    target()\n")
    assert described(analysis, target(analysis)) == [
        (Entry.DECORATOR, Api.SET_MESH, "(8,) ('x',)")
    ]


@pytest.mark.parametrize(
    "wrapper_body,expected",
    [
        (
            "with jax.set_mesh(jax.make_mesh((8,), ('x',))):\n    pass\nreturn f(*a)",
            [],
        ),  # called after the mesh
        (
            "with jax.set_mesh(jax.make_mesh((8,), ('x',))):\n    f(*a)\nreturn f(*a)",
            ["unknown"],
        ),  # called twice
        (
            "with jax.set_mesh(jax.make_mesh((8,), ('x',))):\n    return helper(f)",
            ["unknown"],
        ),  # handed on
    ],
    ids=["called-outside", "called-twice", "handed-on"],
)
def test_a_wrapper_jaxfix_cannot_follow_is_one_unknown_site(wrapper_body, expected):
    body = textwrap.indent(wrapper_body, " " * 8)
    analysis = analyze(
        f"def deco(f):\n    def run(*a):\n{body}\n    return run\n\n@deco\ndef test_it():\n    target()\n"
    )
    assert [shape for _, _, shape in described(analysis, target(analysis))] == expected


def test_a_contextmanager_is_the_mesh_in_force_at_its_yield():
    analysis = analyze(
        """
        @contextlib.contextmanager
        def data_parallel():
            with jax.set_mesh(jax.make_mesh((8,), ("x",))):
                with contextlib.suppress(KeyError):
                    yield

        @contextlib.contextmanager
        def after():
            with jax.set_mesh(jax.make_mesh((8,), ("x",))):
                pass
            yield

        @contextlib.contextmanager
        def twice():
            with jax.set_mesh(jax.make_mesh((8,), ("x",))):
                yield
            yield

        @contextlib.contextmanager
        def itself():
            with itself():
                yield

        with data_parallel():
            target()
        with after():
            other()
        with twice():
            third()
        with itself():
            fourth()
        """
    )
    assert described(analysis, target(analysis)) == [
        (Entry.WITH, Api.SET_MESH, "(8,) ('x',)")
    ]
    assert described(analysis, target(analysis, "other")) == []
    assert described(analysis, target(analysis, "third")) == [
        (Entry.WITH, None, "unknown")
    ]
    assert described(analysis, target(analysis, "fourth")) == []


def test_a_function_passed_on_under_a_mesh_is_a_use_site():
    analysis = analyze(
        """
        def stage():
            target()

        with use_abstract_mesh(M8):
            run_later(stage)
        """
    )
    (site,) = analysis.contexts_at(target(analysis))
    assert (
        site.entry is Entry.USE
        and not site.sets_context_mesh
        and context_mesh_sites([site]) == []
    )


@pytest.mark.parametrize(
    "code, value",
    [
        ("v = 8 * 4 - 2 // 1", 30),
        ("A = 2\nv = (A, -A, 'x')", (2, -2, "x")),
        ("v = ('x',) * 3", ("x", "x", "x")),
        ("v = None", None),
        ("def f(n):\n    return n\nv = n", Unknown),
        ("v = (*rest, 2)", Unknown),
        ("A, (B, *C) = 1, (2, 3, 4)\nv = (A, B, C)", (1, 2, (3, 4))),
        ("A, B = SIZES\nv = A", Unknown),
        ("A = B = 8\nv = A * B", 64),
        ("A = 4\nA *= 2\nA += 1\nv = A", 9),
        ("A = 4\nA = A * 2\nv = A", 8),  # the read of A in `A * 2` sees `A = 4` only
        ("if c:\n    A = 8\nelse:\n    A = 8\nv = A", 8),
        ("for A in (8, 8):\n    pass\nv = A", Unknown),
        ("def f(a, b=2):\n    c = a * b\n    return c\nv = f(3)", 6),
        (
            "def f(a):\n    if a:\n        return 1\nv = f(0)",
            Unknown,
        ),  # falls off its end
        (
            "def f(a):\n    if a:\n        return 1\nv = f(x)",
            Unknown,
        ),  # may fall off its end
        # an `if` on a parameter the call gives runs one branch; a raising guard ends its path
        ("def f(a):\n    if a:\n        return 1\nv = f(3)", 1),
        (
            "def f(a, b=None):\n    if not a:\n        raise E\n    if b is None:\n        return 2\n    return 3\nv = f(True)",
            2,
        ),
        (
            "def f(a, b=None):\n    if b is not None:\n        return 3\n    else:\n        return 2\nv = f(1, b=(4,))",
            3,
        ),
        (
            "def f(a, o=False):\n    if g():\n        raise E\n    if o:\n        return 1\n    else:\n        return 2\nv = f(1)",
            2,
        ),
        (
            "def f(a):\n    if g(a):\n        return 1\n    return 2\nv = f(1)",
            Unknown,
        ),  # its returns differ
        (
            "def f(a):\n    if a:\n        return 1\n    a = 0\n    return 2\nv = f(1)",
            Unknown,
        ),  # `a` is bound twice
        ("def f(a):\n    for x in a:\n        return 1\n    return 1\nv = f(y)", 1),
        (
            "def f(a):\n    try:\n        return 1\n    except E:\n        pass\nv = f(y)",
            Unknown,
        ),  # may fall off its end
        (
            "def f(a):\n    return g(a)\ndef g(a):\n    return a\nv = f(3)",
            Unknown,
        ),  # one level only
        ("def f(*a):\n    return 1\nv = f(3)", Unknown),
        ("class C:\n    X = 3\nclass D(C):\n    pass\nv = D.X", 3),
        ("v = (len(('a', 'b')), 2 ** 5, 7 % 4, (1,) + (2,))", (2, 32, 3, (1, 2))),
        ("B = (1,)\nv = (*B, *B)", (1, 1)),
    ],
)
def test_value_of(code, value):
    analysis = analyze(code)
    module = analysis.wrapper.module
    result = analysis.value_of(module.body[-1].body[0].value)
    assert isinstance(result, Unknown) if value is Unknown else result == value


@pytest.mark.parametrize(
    "code, value",
    [
        ("A = 4\nv = A\nA *= 2", 4),  # a binding after the read does not reach it
        ("A = 4\nA *= 2\nv = A\nA += 1", 8),
        (
            "A = 4\nv = lambda: A\nA *= 2",
            Unknown,
        ),  # read when called: after `A *= 2`, maybe
        (
            "A = 4\nv = (A for _ in range(2))\nA *= 2",
            Unknown,
        ),  # a generator reads later
        (
            "while c:\n    A = 4\n    v = A\n    A *= 2",
            4,
        ),  # each pass binds A = 4 just before the read
        ("A = 4\nwhile c:\n    v = A\n    A *= 2", Unknown),  # a loop may read it again
    ],
)
def test_value_of_a_read_before_later_bindings(code, value):
    analysis = analyze(code)
    reads: list[cst.BaseExpression] = []

    class Find(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if (
                isinstance(node.targets[0].target, cst.Name)
                and node.targets[0].target.value == "v"
            ):
                reads.append(node.value)

    analysis.wrapper.module.visit(Find())
    (expr,) = reads
    expr = (
        expr.body
        if isinstance(expr, cst.Lambda)
        else expr.elt
        if isinstance(expr, cst.GeneratorExp)
        else expr
    )
    result = analysis.value_of(expr)
    assert isinstance(result, Unknown) if value is Unknown else result == value


def test_value_of_a_mesh_keeps_unknown_sizes_per_axis():
    analysis = analyze("v = AbstractMesh((n, 4), ('a', 'b'))")
    mesh = analysis.value_of(analysis.wrapper.module.body[-1].body[0].value)
    assert (
        mesh.kind is MeshKind.ABSTRACT
        and mesh.axis_sizes == (None, 4)
        and mesh.size is None
    )


def test_bind_follows_the_signature_table():
    call = cst.parse_expression("NamedSharding(mesh, spec=P('x'), memory_kind=None)")
    assert set(bind(call, SIGNATURES[Api.NAMED_SHARDING])) == {
        "mesh",
        "spec",
        "memory_kind",
    }
    assert (
        bind(
            cst.parse_expression("NamedSharding(m, s, extra)"),
            SIGNATURES[Api.NAMED_SHARDING],
        )
        is None
    )
    assert (
        bind(
            cst.parse_expression("NamedSharding(*args)"), SIGNATURES[Api.NAMED_SHARDING]
        )
        is None
    )
    assert (
        bind(cst.parse_expression("jit(fun=f)"), SIGNATURES[Api.JIT]) is None
    )  # positional-only
    assert (
        bind(
            cst.parse_expression("NamedSharding(m, mesh=m)"),
            SIGNATURES[Api.NAMED_SHARDING],
        )
        is None
    )


def test_jit_application_in_every_form():
    analysis = analyze(
        """
        import functools
        a = jax.jit(f, static_argnums=0)
        b = functools.partial(jax.jit, static_argnames="n")
        c = jax.jit
        d = jax.jit(donate_argnums=0)
        e = functools.partial(jax.jit, 1)
        """
    )
    values = [s.body[0].value for s in analysis.wrapper.module.body[-5:]]
    a, b, c, d, e = (analysis.jit_application(v) for v in values)
    assert a.function.value == "f" and set(a.keywords) == {"static_argnums"}
    assert b.function is None and set(b.keywords) == {"static_argnames"}
    assert c.function is None and not c.keywords
    assert d.function is None and set(d.keywords) == {"donate_argnums"}
    assert e is None


def test_inherited_test_case_methods_and_the_standard_library_enter_no_mesh():
    analysis = analyze(
        """
        import pytest

        class Test(unittest.TestCase):
            def test_it(self):
                with use_abstract_mesh(M8), self.assertRaises(ValueError), pytest.raises(ValueError):
                    with self.subTest(), contextlib.suppress(KeyError), jax.named_scope("s"):
                        target()

            def subTest(self):
                return own_helper()
        """
    )
    (site, unknown) = analysis.contexts_at(target(analysis))
    assert site.api is Api.USE_ABSTRACT_MESH  # only the class's own subTest is opaque
    assert unknown.api is None and "self.subTest" in unknown.mesh.why


def test_reasons_that_name_a_line_are_made_only_when_read():
    analysis = analyze(
        """
        def f():
            jax.set_mesh(jax.make_mesh((8,), ("x",)))

        def g():
            target()
        """
    )
    sites = analysis.contexts_at(target(analysis))
    assert "positions" not in vars(analysis)  # nothing has asked for a line yet
    reasons = [s.mesh.why for s in sites if isinstance(s.mesh, Unknown)]
    assert reasons == ["set globally at line 8"]
    assert "positions" in vars(analysis)
    made = Unknown(lambda: "a reason")
    assert made == Unknown("a reason") and hash(made) == hash(Unknown("a reason"))
