"""`jaxfix server`: the language server, over stdio (docs/editors.md)."""

from __future__ import annotations

import importlib.util

import click


@click.command("server", context_settings={"help_option_names": ["-h", "--help"]})
def server() -> None:
    """Run the language server (LSP over stdio) for editors: diagnostics, fixes, rule docs.

    Needs pygls: pip install 'jaxfix[server]'. Configure the editor as docs/editors.md shows.
    """
    if importlib.util.find_spec("pygls") is None:
        raise click.UsageError("jaxfix server needs pygls: pip install 'jaxfix[server]'")
    from jaxfix.server.process import AnalysisProcess

    analysis = AnalysisProcess()  # first: its import of libcst overlaps this one's of pygls
    try:
        from jaxfix.server.lsp import create

        create(analysis).start_io()
    finally:
        analysis.close()
