import pytest

# Trees that the tests run as user programs (their own tests fail on purpose): data, not tests.
collect_ignore = ["repair_projects", "from_log_projects"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-fixtures",
        action="store_true",
        help="Rewrite fixtures/*/*.fixed.py with jaxfix's current output (review the diff like code).",
    )


@pytest.fixture(autouse=True)
def _registry_as_it_was():
    """Rules a test registers (`--rule-module`, the suite's own rules) are gone after it:
    every other test sees jaxfix's own registry."""
    from jaxfix.codemods import RULES

    saved = dict(RULES)
    yield
    if RULES != saved:
        RULES.clear()
        RULES.update(saved)
