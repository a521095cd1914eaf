"""``tensortypes lsp``: the static checker as a language server over stdio (layer 7).

The only module that imports ``pygls`` and ``lsprotocol`` (the ``lsp`` extra:
``pip install 'tensortypes[lsp]'``). It serves

- **diagnostics** on open and save at once, and on change after a short pause
  (``debounce``, 0.25 s by default) so typing is not slowed; the diagnostics are
  those of ``tensortypes check`` (same rules, codes and ``[tool.tensortypes]``
  settings), and each note that names a line (where a size was bound, where a
  value came from) is a ``relatedInformation`` link to that line (a located
  note, where an operand's shape was made, with its own message);
- **hover** on an expression: its shape and dtype as the checker knows them
  (what ``reveal_type`` prints);
- **imports followed** into the workspace's other modules as ``tensortypes check``
  follows them (star imports, aliases, functions of other modules), read from disk;
  saving a file re-reads them and checks every open document again.

Positions: the checker counts columns in UTF-8 bytes (``ast``); they are turned
into the position encoding agreed with the client (UTF-16 by default), so a
line with non-ASCII text still underlines the right characters.

The text checked is the editor's buffer, not the file on disk; results are
kept per document version, so a hover after a check reuses its walk.
"""

from __future__ import annotations

import ast
import asyncio
import logging
from typing import Any
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from tensortypes.check.config import CheckConfig, find_pyproject, is_excluded, load_config
from tensortypes.check.infer import Checker
from tensortypes.check.notes import note_lines
from tensortypes.check.runner import internal_error, select_codes

__all__ = ["TensortypesServer", "server", "main", "DEFAULT_DEBOUNCE"]

DEFAULT_DEBOUNCE = 0.25
_LOG = logging.getLogger("tensortypes.lsp")
_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "note": lsp.DiagnosticSeverity.Information}


class _Result:
    """One check of one document version: its diagnostics and its hover table."""

    __slots__ = ("version", "diagnostics", "record", "tree")

    def __init__(self, version, diagnostics, record, tree):
        self.version = version
        self.diagnostics = diagnostics
        self.record = record
        self.tree = tree


class TensortypesServer(LanguageServer):
    """The language server: settings from ``[tool.tensortypes]``, one result per document."""

    def __init__(self) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            ours = version("tensortypes")
        except PackageNotFoundError:  # pragma: no cover (a source tree never installed)
            ours = "0"
        super().__init__(
            "tensortypes", ours, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental
        )
        self.settings = CheckConfig()
        self.debounce = DEFAULT_DEBOUNCE
        self.results: dict = {}
        self.pending: dict = {}
        self.root: Path | None = None
        # The workspace's modules, read from disk (a check.project.Project).
        self.project: Any = None

    # -- settings -----------------------------------------------------------------------------
    def configure(self, root: str | None, options) -> None:
        """Read ``[tool.tensortypes]`` at or above ``root`` and the client's options."""
        try:
            start = Path(root) if root else None
            pyproject = find_pyproject(start) if start is not None else None
            self.settings = load_config(pyproject) if pyproject is not None else CheckConfig()
        except (OSError, ValueError) as error:
            self.settings = CheckConfig()
            self.window_show_message(
                lsp.ShowMessageParams(
                    lsp.MessageType.Warning, f"tensortypes: {error}; using the default settings"
                )
            )
        self.root = Path(root).resolve() if root else None
        self.reset_project()
        if isinstance(options, dict):
            value = options.get("debounce")
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
                self.debounce = float(value)
            if isinstance(options.get("strict"), bool):
                self.settings.strict = options["strict"]

    def reset_project(self) -> None:
        """Forget what was read of the workspace's other modules (a file was saved)."""
        from tensortypes.check.project import Project

        folders = [self.root] if self.root is not None else []
        if self.settings.root is not None and self.settings.root not in folders:
            folders.append(self.settings.root)
        self.project = Project((), folders)

    def skipped(self, path: str) -> bool:
        return bool(self.settings.exclude) and is_excluded(
            Path(path), self.settings.exclude, self.settings.root
        )

    # -- checking -----------------------------------------------------------------------------
    def check_text(self, text: str, path: str, version) -> _Result:
        """Check one buffer; never raises (an internal error becomes one diagnostic)."""
        record: dict = {}
        checker = Checker(text, path, self.settings.strict, record=record, project=self.project)
        try:
            found = checker.run()
        except Exception as error:  # noqa: BLE001 (the server must outlive a checker bug)
            _LOG.exception("checking %s failed", path)
            found = [internal_error(path, error)]
            record = {}
        found = select_codes(found, self.settings.disable_codes)
        return _Result(version, found, record, checker.tree)

    def result_for(self, uri: str) -> _Result | None:
        """The result of the document's current version, checking it if needed."""
        doc = self.workspace.get_text_document(uri)
        found = self.results.get(uri)
        if found is not None and found.version == doc.version:
            return found
        if self.skipped(doc.path):
            return None
        found = self.check_text(doc.source, doc.path, doc.version)
        self.results[uri] = found
        return found

    def publish(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        if self.skipped(doc.path):
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )
            return
        result = self.result_for(uri)
        if result is None:  # skipped (checked above; result_for says so too)
            return
        lines = doc.source.splitlines() or [""]
        items = [to_lsp(d, uri, lines, doc.position_codec) for d in result.diagnostics]
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, version=doc.version, diagnostics=items)
        )

    async def publish_later(self, uri: str, version) -> None:
        """Check after the debounce pause, unless another change came in meanwhile."""
        try:
            await asyncio.sleep(self.debounce)
            doc = self.workspace.get_text_document(uri)
            if doc.version != version:
                return
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(
                None, self.check_text, doc.source, doc.path, doc.version
            )
            if self.workspace.get_text_document(uri).version != version:
                return  # typed on while we checked: the newer change publishes
            self.results[uri] = result
            self.publish(uri)
        except asyncio.CancelledError:
            pass
        finally:
            if self.pending.get(uri) is asyncio.current_task():
                del self.pending[uri]

    def schedule(self, uri: str) -> None:
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()
        version = self.workspace.get_text_document(uri).version
        self.pending[uri] = asyncio.get_running_loop().create_task(self.publish_later(uri, version))

    # -- hover --------------------------------------------------------------------------------
    def hover(self, uri: str, position: lsp.Position) -> lsp.Hover | None:
        result = self.result_for(uri)
        if result is None or result.tree is None:
            return None
        doc = self.workspace.get_text_document(uri)
        lines = doc.source.splitlines() or [""]
        server_pos = doc.position_codec.position_from_client_units(lines, position)
        line_text = lines[server_pos.line] if server_pos.line < len(lines) else ""
        col = len(line_text[: server_pos.character].encode("utf-8"))
        node, value = _innermost(result, server_pos.line + 1, col)
        if node is None:
            return None
        label = ast.get_source_segment(doc.source, node) or ast.unparse(node)
        if len(label) > 80:
            label = label[:77] + "..."
        text = f"```\n{label}: {value.describe()}\n```"
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
            range=_range(
                node.lineno,
                node.col_offset + 1,
                node.end_lineno,
                node.end_col_offset + 1,
                lines,
                doc.position_codec,
            ),
        )


def _contains(node, line: int, col: int) -> bool:
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return start <= (line, col) <= end


def _informative(value) -> bool:
    text = value.describe()
    return bool(text) and text not in ("unknown", "Any", "object")


def _innermost(result: _Result, line: int, col: int):
    """The smallest recorded expression at (line, col), or the target of an assignment."""
    best, best_value = None, None
    best_size: Any = None
    for node, value in result.record.items():
        if getattr(node, "end_lineno", None) is None or not _contains(node, line, col):
            continue
        if not _informative(value):
            continue
        size = (
            node.end_lineno - node.lineno,
            node.end_col_offset - node.col_offset if node.end_lineno == node.lineno else 10**9,
        )
        if best is None or size < best_size:
            best, best_value, best_size = node, value, size
    if best is not None:
        return best, best_value
    # A name being assigned (``y = x @ w``): the assigned value's type.
    for node in ast.walk(result.tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and _contains(target, line, col):
                    for recorded, value in result.record.items():
                        if recorded is node.value or _same_place(recorded, node.value):
                            return target, value
    return None, None


def _same_place(a, b) -> bool:
    return (
        getattr(a, "lineno", None),
        getattr(a, "col_offset", None),
        getattr(a, "end_lineno", None),
        getattr(a, "end_col_offset", None),
    ) == (b.lineno, b.col_offset, b.end_lineno, b.end_col_offset)


def _char(lines, line: int, byte_col: int) -> int:
    """A 0-based character index from a 0-based UTF-8 byte offset on 1-based ``line``."""
    if not 1 <= line <= len(lines):
        return 0
    raw = lines[line - 1].encode("utf-8")
    return len(raw[: max(0, byte_col)].decode("utf-8", errors="ignore"))


def _range(line, col, end_line, end_col, lines, codec) -> lsp.Range:
    """An LSP range from the checker's 1-based line and byte columns (end exclusive)."""
    start_line = max(1, line)
    start = lsp.Position(start_line - 1, _char(lines, start_line, col - 1))
    if end_line is None or end_col is None or (end_line, end_col) <= (line, col):
        text = lines[start_line - 1] if start_line <= len(lines) else ""
        stop = lsp.Position(start_line - 1, len(text))
    else:
        stop = lsp.Position(end_line - 1, _char(lines, end_line, end_col - 1))
    return lsp.Range(
        codec.position_to_client_units(lines, start), codec.position_to_client_units(lines, stop)
    )


def _line_range(line: int, lines, codec) -> lsp.Range:
    text = lines[line - 1] if 1 <= line <= len(lines) else ""
    indent = len(text) - len(text.lstrip())
    return lsp.Range(
        codec.position_to_client_units(lines, lsp.Position(line - 1, indent)),
        codec.position_to_client_units(lines, lsp.Position(line - 1, len(text))),
    )


def to_lsp(d, uri: str, lines, codec) -> lsp.Diagnostic:
    """One checker diagnostic as an LSP diagnostic, its notes as related information."""
    where = _range(d.line, d.col, d.end_line, d.end_col, lines, codec)
    related = []
    for line, _, message in d.related:  # located notes: their own line and message
        if 1 <= line <= len(lines):
            related.append(
                lsp.DiagnosticRelatedInformation(
                    location=lsp.Location(uri=uri, range=_line_range(line, lines, codec)),
                    message=message,
                )
            )
    for note in d.notes:
        targets = [line for line in note_lines(note) if 1 <= line <= len(lines)]
        for line in targets or [None]:
            place = where if line is None else _line_range(line, lines, codec)
            related.append(
                lsp.DiagnosticRelatedInformation(
                    location=lsp.Location(uri=uri, range=place), message=note
                )
            )
    return lsp.Diagnostic(
        range=where,
        message=d.message,
        severity=_SEVERITY[d.severity],
        code=d.code,
        source="tensortypes",
        related_information=related or None,
    )


server = TensortypesServer()


@server.feature(lsp.INITIALIZE)
def _initialize(ls: TensortypesServer, params: lsp.InitializeParams) -> None:
    root = None
    if params.workspace_folders:
        from pygls.uris import to_fs_path

        root = to_fs_path(params.workspace_folders[0].uri)
    elif params.root_uri:
        from pygls.uris import to_fs_path

        root = to_fs_path(params.root_uri)
    elif params.root_path:
        root = params.root_path
    ls.configure(root, params.initialization_options)


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def _did_open(ls: TensortypesServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def _did_save(ls: TensortypesServer, params: lsp.DidSaveTextDocumentParams) -> None:
    # Imports are followed into the workspace's modules as they are on disk: a save may
    # change what another open module sees (an alias, a signature), so every open
    # document is checked again.
    ls.reset_project()
    ls.results.clear()
    saved = params.text_document.uri
    ls.publish(saved)
    for uri in list(ls.workspace.text_documents):
        if uri != saved:
            ls.publish(uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
async def _did_change(ls: TensortypesServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def _did_close(ls: TensortypesServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.results.pop(uri, None)
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def _hover(ls: TensortypesServer, params: lsp.HoverParams) -> lsp.Hover | None:
    return ls.hover(params.text_document.uri, params.position)


def main() -> int:
    """Serve over stdin/stdout until the client says exit."""
    server.start_io()
    return 0
