"""`jaxfix server`: the language server, over stdio (docs/editors.md)."""

from __future__ import annotations

import importlib.util

import click


@click.command("server", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--stdio",
    is_flag=True,
    help="Accepted for clients that pass it: stdio is the only transport.",
)
def server(stdio: bool) -> None:
    """Run the language server for editors (LSP over stdio).

    Diagnostics, quick fixes, fix-all and rule docs, as `jaxfix --check` finds them. Needs
    pygls: pip install 'jaxfix[server]'. Editor setup: docs/editors.md.
    """
    if importlib.util.find_spec("pygls") is None:
        raise click.UsageError(
            "jaxfix server needs pygls: pip install 'jaxfix[server]'"
        )
    from jaxfix.server.process import AnalysisProcess

    analysis = (
        AnalysisProcess()
    )  # first: its import of libcst overlaps this one's of pygls
    try:
        from jaxfix.server.lsp import create

        create(analysis).start_io()
    finally:
        analysis.close()
