import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-fixtures",
        action="store_true",
        help="Rewrite fixtures/*/*.fixed.py with jaxfix's current output (review the diff like code).",
    )
