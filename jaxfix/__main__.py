"""`python -m jaxfix` and the `jaxfix` command. A `--check` run whose inputs are all as an
earlier run left them prints that run's output before anything else is imported
(jaxfix/cache/warm_path.py); any other run records itself for the next."""

import sys


def main() -> None:
    from jaxfix.cache import warm_path

    warm_path.replay(sys.argv[1:])
    warm_path.record(sys.argv[1:])
    from jaxfix.cli.main import main as command_line

    command_line()


if __name__ == "__main__":
    main()
