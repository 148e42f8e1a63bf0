"""An editor for the server tests: pygls' own LanguageClient driving `jaxfix server` over stdio,
with what a test needs (open, change, wait for diagnostics, apply edits as a client would)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
_SAFE_PATH = ("-P",) if sys.version_info >= (3, 11) else ()

CAPABILITIES = t.ClientCapabilities(
    general=t.GeneralClientCapabilities(
        position_encodings=[t.PositionEncodingKind.Utf16]
    ),
    text_document=t.TextDocumentClientCapabilities(
        code_action=t.CodeActionClientCapabilities(
            data_support=True,
            resolve_support=t.ClientCodeActionResolveOptions(properties=["edit"]),
            code_action_literal_support=t.ClientCodeActionLiteralOptions(
                t.ClientCodeActionKindOptions(
                    [t.CodeActionKind.QuickFix, t.CodeActionKind.SourceFixAll]
                ),
            ),
        ),
        hover=t.HoverClientCapabilities(content_format=[t.MarkupKind.Markdown]),
        publish_diagnostics=t.PublishDiagnosticsClientCapabilities(
            related_information=True, version_support=True
        ),
    ),
    workspace=t.WorkspaceClientCapabilities(
        workspace_edit=t.WorkspaceEditClientCapabilities(document_changes=True)
    ),
    notebook_document=t.NotebookDocumentClientCapabilities(
        t.NotebookDocumentSyncClientCapabilities()
    ),
)


class Editor:
    """One server, one workspace folder."""

    def __init__(self, root: Path, *, python_path: tuple[Path, ...] = ()) -> None:
        self.root = root
        self.client = LanguageClient("jaxfix-tests", "1")
        self.published: list[t.PublishDiagnosticsParams] = []
        self.logs: list[str] = []
        self._arrived = asyncio.Event()
        self._seen: set[int] = (
            set()
        )  # indexes of `published` that diagnostics() returned
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(map(str, (*python_path, ROOT))),
        }

        @self.client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: t.PublishDiagnosticsParams) -> None:
            self.published.append(params)
            self._arrived.set()

        @self.client.feature(t.WINDOW_LOG_MESSAGE)
        def log(params: t.LogMessageParams) -> None:
            self.logs.append(params.message)

    async def start(
        self, capabilities: t.ClientCapabilities = CAPABILITIES
    ) -> t.InitializeResult:
        # As an editor starts it: the console script, in the workspace (whose modules, such as a
        # `typing.py`, must not be imported by the server or its analysis process).
        script = Path(sys.executable).with_name("jaxfix")
        command = (
            [str(script)]
            if script.exists()
            else [sys.executable, *_SAFE_PATH, "-m", "jaxfix"]
        )
        await self.client.start_io(*command, "server", env=self.env, cwd=str(self.root))
        folder = t.WorkspaceFolder(self.root.as_uri(), self.root.name)
        result = await asyncio.wait_for(
            self.client.initialize_async(
                t.InitializeParams(
                    capabilities=capabilities,
                    root_uri=self.root.as_uri(),
                    workspace_folders=[folder],
                    process_id=os.getpid(),
                )
            ),
            60,
        )
        self.client.initialized(t.InitializedParams())
        return result

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 30)
            self.client.exit(None)
        finally:
            await self.client.stop()

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.as_uri()
        text = path.read_text(encoding="utf-8") if text is None else text
        self.client.text_document_did_open(
            t.DidOpenTextDocumentParams(t.TextDocumentItem(uri, "python", 1, text))
        )
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.client.text_document_did_change(
            t.DidChangeTextDocumentParams(
                t.VersionedTextDocumentIdentifier(version, uri),
                [t.TextDocumentContentChangeWholeDocument(text)],
            )
        )

    async def diagnostics(
        self, uri: str, version: int | None = None, timeout: float = 120
    ) -> t.PublishDiagnosticsParams:
        """The first diagnostics published for `uri` (for that version) not yet returned."""

        async def arrive() -> t.PublishDiagnosticsParams:
            while True:
                for index, params in enumerate(self.published):
                    if (
                        params.uri == uri
                        and (version is None or params.version == version)
                        and index not in self._seen
                    ):
                        self._seen.add(index)
                        return params
                self._arrived.clear()
                await self._arrived.wait()

        return await asyncio.wait_for(arrive(), timeout)

    async def hover(self, uri: str, position: t.Position) -> t.Hover | None:
        return await self.client.text_document_hover_async(
            t.HoverParams(t.TextDocumentIdentifier(uri), position)
        )

    async def actions(
        self,
        uri: str,
        where: t.Range,
        diagnostics: list[t.Diagnostic] = (),
        only: list[str] | None = None,
    ) -> list[t.CodeAction]:
        found = await self.client.text_document_code_action_async(
            t.CodeActionParams(
                t.TextDocumentIdentifier(uri),
                where,
                t.CodeActionContext(list(diagnostics), only=only),
            )
        )
        return list(found or ())

    async def resolve(self, action: t.CodeAction) -> t.CodeAction:
        return await self.client.code_action_resolve_async(action)


def offset(text: str, position: t.Position) -> int:
    """A UTF-16 LSP position as an index into `text` (lines end at \\n, \\r\\n or \\r)."""
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    units = 0
    for index, character in enumerate(lines[position.line]):
        if units >= position.character:
            return start + index
        units += 2 if ord(character) > 0xFFFF else 1
    return start + len(lines[position.line])


def apply(text: str, edits: list[t.TextEdit]) -> str:
    """The text with the edits applied, as a client applies a TextDocumentEdit (all ranges refer
    to the original text; none overlap)."""
    spans = sorted(
        (
            (offset(text, e.range.start), offset(text, e.range.end), e.new_text)
            for e in edits
        ),
        reverse=True,
    )
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


def edits_for(action: t.CodeAction, uri: str) -> list[t.TextEdit]:
    edit = action.edit
    assert edit is not None, action
    if edit.document_changes:
        return [
            e
            for change in edit.document_changes
            if change.text_document.uri == uri
            for e in change.edits
        ]
    return list((edit.changes or {}).get(uri, ()))
