import pytest

# Trees that the tests run as user programs (their own tests fail on purpose) and the suite's
# rules' fixtures (run under real JAX by test_real_jax, on purpose with 8 devices): data, not tests.
collect_ignore = ["repair_projects", "from_log_projects", "rules/fixtures"]


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C raises `KeyboardInterrupt` in every process of the suite, as at a terminal: a shell
    starts background jobs with SIGINT ignored, and the interrupt tests need Python's handler."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker a core this process may use, at most four (each file's real-JAX
    runs start processes of their own, and eight JAX processes fill a machine's memory)."""
    import os

    cores = (
        len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else (os.cpu_count() or 1)
    )
    return max(1, min(cores, 4))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-fixtures",
        action="store_true",
        help="Rewrite fixtures/*/*.fixed.py with jaxfix's current output (review the diff like code).",
    )


@pytest.fixture
def system_temp(tmp_path, monkeypatch):
    """The system's temporary directory (`tempfile.gettempdir()`) of this process and of the
    processes it starts: the test's own."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    return tmp_path


@pytest.fixture(autouse=True)
def _registry_as_it_was():
    """Rules registered during a test or a fixture of wider scope (`--rule-module`, the
    suite's own rules) are gone after it: every test starts with jaxfix's own registry."""
    from jaxfix.codemods import RULES

    own = dict(_OWN_RULES)
    yield
    if RULES != own:
        RULES.clear()
        RULES.update(own)


def _own_rules():
    from jaxfix.codemods import BUILTIN, RULES

    return {code: RULES[code] for code in BUILTIN}


_OWN_RULES = _own_rules()
