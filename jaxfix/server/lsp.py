"""The protocol side: documents in, diagnostics, hovers and code actions out (pygls).

Every analysis is a job for the analysis process (jaxfix/server/process.py), keyed by the
document (a text document's URI, or a notebook's): a change waits for the debounce, then
supersedes whatever that document's older version still had waiting or running. Diagnostics
are published only for the version they were computed from. Fixes are re-derived by the engine
when a code action is resolved (never taken from the cache) and sent as minimal edits.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from jaxfix import __version__
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Safety
from jaxfix.ground.escaping import printable
from jaxfix.server.jobs import Answer, Check, Document, FixAll, FixOne, Hello, Job
from jaxfix.server.process import AnalysisProcess, Stopped
from jaxfix.server.text import UTF16, Edit, Lines, Position, edits
from jaxfix.sources.kinds import from_text
from jaxfix.sources.notebook import EditorCells

if TYPE_CHECKING:
    from collections.abc import Sequence

    from jaxfix.write.data_edits import DataDiff

DEBOUNCE_SECONDS = 0.25  # after a change; an open or a save is analysed at once
FIX_ALL = "source.fixAll.jaxfix"
_NOTEBOOK_SYNC = t.NotebookDocumentSyncOptions(
    # "*": every notebook type; the cells-only form is valid too, but lsprotocol's own converter
    # (pygls' client, and so tests/server/test_server.py) cannot read it back.
    notebook_selector=[
        t.NotebookDocumentFilterWithNotebook(
            notebook="*", cells=[t.NotebookCellLanguage(language="python")]
        )
    ],
    save=True,
)


@dataclass(frozen=True)
class _Text:
    """One text the editor shows: a file, or a notebook cell (its number among all cells)."""

    uri: str
    version: int | None
    text: str
    cell: int | None = None


@dataclass
class _Entry:
    diagnostic: Diagnostic
    lsp: t.Diagnostic
    uri: str


@dataclass
class _Analysed:
    """What was sent for one version of a document, and what came back."""

    key: str
    version: int | None
    document: Document
    texts: dict[str, _Text]  # by URI: the file, or each cell of the notebook
    entries: list[_Entry] = field(default_factory=list)
    # The project's other files the result used (modules it imports, paths imports were looked
    # for at): a save of one of them re-checks this document.
    dependencies: frozenset[str] = frozenset()


class JaxfixServer(LanguageServer):
    def __init__(self, analysis: AnalysisProcess) -> None:
        super().__init__("jaxfix", __version__, notebook_document_sync=_NOTEBOOK_SYNC)
        self.analysis = analysis
        analysis.on_hello = self.remember
        self.explain: dict[str, str] = {}
        self.analysed: dict[str, _Analysed] = {}
        self.timers: dict[str, asyncio.Task[None]] = {}
        self.published: dict[
            str, set[str]
        ] = {}  # document key -> URIs it published diagnostics to
        self.last_error: dict[str, str] = {}

    def remember(self, hello: Hello) -> None:
        self.explain = hello.explain

    # ---- documents --------------------------------------------------------------------------

    def encoding(self) -> str:
        return str(
            getattr(
                self.workspace.position_encoding,
                "value",
                self.workspace.position_encoding,
            )
            or UTF16
        )

    def folder_of(self, path: Path) -> str | None:
        """The innermost workspace folder holding `path` (the root when the client sent none)."""
        folders = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
        if not folders and self.workspace.root_path:
            folders = [self.workspace.root_path]
        inside = [f for f in folders if f and path.is_relative_to(Path(f))]
        return max(inside, key=len) if inside else None

    def snapshot(self, key: str) -> _Analysed | None:
        """The document's current text as the engine should read it (None: nothing to check):
        a notebook document's Source is built from its cells, a text document's from its text."""
        notebook = self.workspace.get_notebook_document(notebook_uri=key)
        if notebook is not None:
            name = to_fs_path(key)
            if not name:
                return None
            cells, texts = [], {}
            for number, cell in enumerate(notebook.cells, start=1):
                document = self.workspace.get_text_document(cell.document)
                if cell.kind == t.NotebookCellKind.Code:
                    cells.append((number, document.source))
                texts[cell.document] = _Text(
                    cell.document, document.version, document.source, number
                )
            source = EditorCells.of(name, cells)
            return _Analysed(
                key,
                notebook.version,
                Document(source, self.folder_of(source.path)),
                texts,
            )
        opened = self.open_text(key)
        if opened is None:
            return None
        name = to_fs_path(key)
        if not name or not name.endswith((".py", ".ipynb")):
            return None
        path = Path(name)
        return _Analysed(
            key,
            opened.version,
            Document(from_text(path, opened.source), self.folder_of(path)),
            {key: _Text(key, opened.version, opened.source)},
        )

    def current_version(self, key: str) -> int | None:
        notebook = self.workspace.get_notebook_document(notebook_uri=key)
        if notebook is not None:
            return notebook.version
        document = self.open_text(key)
        return document.version if document is not None else None

    def open_text(self, uri: str) -> TextDocument | None:
        """The open text document (pygls files them by the URI unquoted: `%20` as a space)."""
        found: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        return found

    def schedule(self, key: str, delay: float) -> None:
        """Analyse the document after `delay`; an older version's analysis is stopped now."""
        self.analysis.stop(key)
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self.timers[key] = asyncio.get_running_loop().create_task(
            self._analyse(key, delay)
        )

    def saved(self, key: str) -> None:
        """Check the saved document now, and the open documents whose results used its file."""
        self.schedule(key, 0)
        name = to_fs_path(key)
        for other in list(self.analysed.values()):
            if other.key != key and name in other.dependencies:
                self.schedule(other.key, DEBOUNCE_SECONDS)

    def forget(self, key: str) -> None:
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self.analysis.stop(key)
        self.analysed.pop(key, None)
        self.last_error.pop(key, None)
        for uri in self.published.pop(key, set()):
            self.text_document_publish_diagnostics(
                t.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    async def _analyse(self, key: str, delay: float) -> None:
        await asyncio.sleep(delay)
        state = self.snapshot(key)
        if state is None:
            return
        try:
            answer = await self.analysis.run(Check(state.document), key)
        except Stopped:
            return
        if self.current_version(key) != state.version:
            return  # a newer version is on its way
        self.timers.pop(key, None)
        self.publish(state, answer)

    # ---- results ----------------------------------------------------------------------------

    def log(self, key: str, message: str) -> None:
        """One message per distinct failure of a document (not one per keystroke)."""
        if self.last_error.get(key) == message:
            return
        self.last_error[key] = message
        # One line: a newline or an ESC in a file name or an error must not forge another.
        self.window_log_message(
            t.LogMessageParams(type=t.MessageType.Error, message=printable(message))
        )

    def publish(self, state: _Analysed, answer: Answer) -> None:
        result = answer.result
        shown = Path(state.document.path).name
        if answer.failure is not None:
            self.log(state.key, f"jaxfix: {shown}: {answer.failure}")
        elif result is not None and result.error is not None:
            if not result.error.startswith(
                "syntax error"
            ):  # the editor's Python support shows those
                where = f":{result.error_location}" if result.error_location else ""
                self.log(state.key, f"jaxfix: {shown}{where}: {result.error}")
        else:
            self.last_error.pop(state.key, None)
        state.entries = (
            self.entries(state, result)
            if result is not None and result.error is None
            else []
        )
        state.dependencies = (
            frozenset(str(d.path) for d in result.dependencies)
            if result is not None
            else frozenset()
        )
        self.analysed[state.key] = state
        by_uri: dict[str, list[t.Diagnostic]] = {uri: [] for uri in state.texts}
        for entry in state.entries:
            by_uri[entry.uri].append(entry.lsp)
        stale = self.published.get(state.key, set()) - set(by_uri)
        for uri in stale:
            by_uri[uri] = []
        for uri, found in by_uri.items():
            version = state.texts[uri].version if uri in state.texts else None
            self.text_document_publish_diagnostics(
                t.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
            )
        self.published[state.key] = set(state.texts)

    def _text_of(self, state: _Analysed, cell: int | None) -> _Text | None:
        for text in state.texts.values():
            if text.cell == cell:
                return text
        return None

    def _range(
        self, text: _Text, start: tuple[int, int], end: tuple[int, int]
    ) -> t.Range:
        lines = Lines(text.text, self.encoding())
        return t.Range(
            _position(lines.position(*start)), _position(lines.position(*end))
        )

    def entries(self, state: _Analysed, result: FileResult) -> list[_Entry]:
        result = state.document.source.stored(result)  # places in the text shown
        found = []
        for index, diagnostic in enumerate(result.diagnostics):
            text = self._text_of(state, diagnostic.start.cell)
            if text is None:
                continue
            where = self._range(
                text,
                (diagnostic.start.line, diagnostic.start.column),
                (diagnostic.end.line, diagnostic.end.column),
            )
            related = []
            for other in diagnostic.related:
                if other.path is not None:  # a place in another file: its line
                    line = t.Position(max(other.start.line - 1, 0), 0)
                    related.append(
                        t.DiagnosticRelatedInformation(
                            t.Location(
                                other.path.resolve().as_uri(), t.Range(line, line)
                            ),
                            other.message,
                        )
                    )
                    continue
                other_text = self._text_of(state, other.start.cell)
                if other_text is not None:
                    place = self._range(
                        other_text,
                        (other.start.line, other.start.column),
                        (other.start.line, other.start.column),
                    )
                    related.append(
                        t.DiagnosticRelatedInformation(
                            t.Location(other_text.uri, place), other.message
                        )
                    )
            lsp = t.Diagnostic(
                range=where,
                message=diagnostic.message,
                severity=t.DiagnosticSeverity.Error,
                code=diagnostic.code,
                source="jaxfix",
                related_information=related or None,
                data={"key": state.key, "version": state.version, "index": index},
            )
            found.append(_Entry(diagnostic, lsp, text.uri))
        return found

    # ---- hover and code actions -------------------------------------------------------------

    def entries_at(self, uri: str, within: t.Range) -> list[tuple[_Analysed, _Entry]]:
        found = []
        for state in self.analysed.values():
            if uri not in state.texts:
                continue
            for entry in state.entries:
                if entry.uri == uri and _overlaps(entry.lsp.range, within):
                    found.append((state, entry))
        return found

    def hover(self, params: t.HoverParams) -> t.Hover | None:
        here = t.Range(params.position, params.position)
        found = self.entries_at(params.text_document.uri, here)
        if not found:
            return None
        codes = list(dict.fromkeys(entry.diagnostic.code for _, entry in found))
        pages = [
            self.explain.get(code)
            or f"{code}: {next(e.diagnostic.message for _, e in found if e.diagnostic.code == code)}"
            for code in codes
        ]
        return t.Hover(
            t.MarkupContent(t.MarkupKind.Markdown, "\n\n---\n\n".join(pages)),
            range=found[0][1].lsp.range,
        )

    def code_actions(self, params: t.CodeActionParams) -> list[t.CodeAction]:
        only = params.context.only

        def wanted(kind: str) -> bool:
            return only is None or any(
                kind == o or kind.startswith(f"{o}.") for o in only
            )

        actions = []
        states = {}
        if wanted(t.CodeActionKind.QuickFix):
            for state, entry in self.entries_at(params.text_document.uri, params.range):
                diagnostic = entry.diagnostic
                if diagnostic.fix_safety is None or diagnostic.fix_title is None:
                    continue
                unsafe = diagnostic.fix_safety is Safety.UNSAFE
                title = f"jaxfix{' (unsafe fix)' if unsafe else ''}: {diagnostic.fix_title} ({diagnostic.code})"
                actions.append(
                    t.CodeAction(
                        title,
                        kind=t.CodeActionKind.QuickFix,
                        diagnostics=[entry.lsp],
                        is_preferred=not unsafe,
                        data={**(entry.lsp.data or {}), "fix": "one"},
                    )
                )
        if wanted(FIX_ALL):
            for state in self.analysed.values():
                if params.text_document.uri in state.texts:
                    states[state.key] = state
            for state in states.values():
                if any(e.diagnostic.fix_safety is Safety.SAFE for e in state.entries):
                    actions.append(
                        t.CodeAction(
                            "jaxfix: apply every safe fix",
                            kind=FIX_ALL,
                            data={
                                "key": state.key,
                                "version": state.version,
                                "fix": "all",
                            },
                        )
                    )
        return actions

    def can_resolve_edits(self) -> bool:
        document = self.client_capabilities.text_document
        action = document.code_action if document is not None else None
        if action is None or action.resolve_support is None:
            return False
        return "edit" in action.resolve_support.properties and bool(action.data_support)

    async def resolve(self, action: t.CodeAction) -> t.CodeAction:
        data: dict[str, Any] = action.data if isinstance(action.data, dict) else {}
        state = self.analysed.get(str(data.get("key")))
        if (
            state is None
            or state.version != data.get("version")
            or self.current_version(state.key) != state.version
        ):
            return action  # the document changed since: no edit rather than a wrong one
        job: Job
        if data.get("fix") == "all":
            job = FixAll(state.document)
        else:
            index = data.get("index")
            entry = next(
                (
                    e
                    for e in state.entries
                    if e.lsp.data and e.lsp.data.get("index") == index
                ),
                None,
            )
            if entry is None:
                return action
            diagnostic = entry.diagnostic
            # The lines of the report (changed-lines mode keeps the reports touching them), as
            # lines of the source's original.
            job = FixOne(
                state.document,
                diagnostic.code,
                state.document.source.original_lines(diagnostic.start, diagnostic.end),
                diagnostic.fix_safety is Safety.UNSAFE,
            )
        try:
            answer = await self.analysis.run(job, state.key)
        except Stopped:
            return action
        result = answer.result
        if answer.failure is not None or result is None or result.error is not None:
            self.log(
                state.key,
                f"jaxfix: {Path(state.document.path).name}: cannot compute the fix: {answer.failure or (result and result.error)}",
            )
            return action
        if self.current_version(state.key) != state.version:
            return action
        withheld = [d.message for d in result.diagnostics if d.withheld]
        if withheld:  # as the command line: neither fix of a place wanted two ways
            self.log(state.key, f"jaxfix: {withheld[0]}")
            return action
        from jaxfix.write.data_edits import data_diffs

        others = data_diffs([result])
        if result.fixed is None and not others:
            return action
        for (
            other
        ) in others:  # changed in the editor since: no edit rather than a wrong one
            shown = self.open_text(Path(other.path).absolute().as_uri())
            if shown is not None and shown.source.encode("utf-8") != other.old:
                self.log(state.key, f"jaxfix: {other.path.name} has unsaved changes")
                return action
        fixed = state.document.source.original if result.fixed is None else result.fixed
        action.edit = self.workspace_edit(state, fixed, others)
        return action

    def workspace_edit(
        self, state: _Analysed, fixed: bytes, others: Sequence[DataDiff] = ()
    ) -> t.WorkspaceEdit:
        """The edits from the document to `fixed`, and of each other file a fix changes
        (`others`: the module where a value is written, as the command line writes it)."""
        changed: list[tuple[_Text, list[Edit]]] = []
        new_texts = state.document.source.texts(fixed)  # the whole text, or by cell
        for text in state.texts.values():
            new = new_texts.get(text.cell, text.text)
            if new != text.text:
                changed.append((text, edits(text.text, new, self.encoding())))
        workspace = self.client_capabilities.workspace
        versioned = bool(
            workspace
            and workspace.workspace_edit
            and workspace.workspace_edit.document_changes
        )
        as_lsp = [
            (
                text,
                [
                    t.TextEdit(
                        t.Range(_position(e.start), _position(e.end)), e.new_text
                    )
                    for e in found
                ],
            )
            for text, found in changed
        ]
        for other in others:
            text = _Text(Path(other.path).absolute().as_uri(), None, "")
            new = other.new.decode("utf-8", "replace")
            old = other.old.decode("utf-8", "replace")
            as_lsp.append(
                (
                    text,
                    [
                        t.TextEdit(
                            t.Range(_position(e.start), _position(e.end)), e.new_text
                        )
                        for e in edits(old, new, self.encoding())
                    ],
                )
            )
        if versioned:
            return t.WorkspaceEdit(
                document_changes=[
                    t.TextDocumentEdit(
                        t.OptionalVersionedTextDocumentIdentifier(
                            text.uri, text.version
                        ),
                        found,
                    )
                    for text, found in as_lsp
                ]
            )
        return t.WorkspaceEdit(changes={text.uri: found for text, found in as_lsp})


def _position(position: Position) -> t.Position:
    return t.Position(position.line, position.character)


def _before(a: t.Position, b: t.Position) -> bool:
    return (a.line, a.character) < (b.line, b.character)


def _overlaps(a: t.Range, b: t.Range) -> bool:
    """Ranges share a character, or one is empty and touches the other (a cursor inside or at an end)."""
    return not _before(a.end, b.start) and not _before(b.end, a.start)


def create(analysis: AnalysisProcess) -> JaxfixServer:
    server = JaxfixServer(analysis)

    @server.feature(t.INITIALIZE)
    def initialize(ls: JaxfixServer, params: t.InitializeParams) -> None:
        ls.analysis.attach()

    @server.feature(t.SHUTDOWN)
    def shutdown(ls: JaxfixServer, params: Any) -> None:
        ls.analysis.close()

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JaxfixServer, params: t.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JaxfixServer, params: t.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE_SECONDS)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE, t.SaveOptions(include_text=False))
    def did_save(ls: JaxfixServer, params: t.DidSaveTextDocumentParams) -> None:
        ls.saved(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JaxfixServer, params: t.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(t.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(
        ls: JaxfixServer, params: t.DidOpenNotebookDocumentParams
    ) -> None:
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(t.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(
        ls: JaxfixServer, params: t.DidChangeNotebookDocumentParams
    ) -> None:
        ls.schedule(params.notebook_document.uri, DEBOUNCE_SECONDS)

    @server.feature(t.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(
        ls: JaxfixServer, params: t.DidSaveNotebookDocumentParams
    ) -> None:
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(t.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(
        ls: JaxfixServer, params: t.DidCloseNotebookDocumentParams
    ) -> None:
        ls.forget(params.notebook_document.uri)

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def hover(ls: JaxfixServer, params: t.HoverParams) -> t.Hover | None:
        return ls.hover(params)

    @server.feature(
        t.TEXT_DOCUMENT_CODE_ACTION,
        t.CodeActionOptions(
            code_action_kinds=[t.CodeActionKind.QuickFix, FIX_ALL],
            resolve_provider=True,
        ),
    )
    async def code_action(
        ls: JaxfixServer, params: t.CodeActionParams
    ) -> list[t.CodeAction]:
        actions = ls.code_actions(params)
        if not ls.can_resolve_edits():
            actions = [await ls.resolve(action) for action in actions]
        return actions

    @server.feature(t.CODE_ACTION_RESOLVE)
    async def code_action_resolve(
        ls: JaxfixServer, params: t.CodeAction
    ) -> t.CodeAction:
        return await ls.resolve(params)

    return server
