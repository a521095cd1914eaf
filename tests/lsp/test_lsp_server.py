"""The language server end to end: a real LSP client talks to ``tensortypes lsp`` over stdio.

Skipped when the ``lsp`` extra (pygls, lsprotocol) or pytest-lsp is not installed.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the 'lsp' extra (pygls) is not installed")
pytest.importorskip("lsprotocol", reason="the 'lsp' extra (lsprotocol) is not installed")
pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed")

from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

BAD = (
    "import torch\n"
    "from jaxtyping import Float\n"
    "\n"
    "def f(x: Float[torch.Tensor, 'b n'], w: Float[torch.Tensor, 'm k']):\n"
    "    y = x @ w\n"
    "    return y\n"
)
GOOD = BAD.replace("'m k'", "'n k'")


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "tensortypes", "lsp"])
)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    (root / "pyproject.toml").write_text("[tool.tensortypes]\ndisable_codes = ['view']\n")
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            initialization_options={"debounce": 0.05},
        )
    )
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


async def _open(client, name: str, text: str) -> str:
    path = Path(client.root) / name
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


@pytest.mark.asyncio
async def test_diagnostics_on_open_with_related_information(client: LanguageClient):
    uri = await _open(client, "bad.py", BAD)
    found = client.diagnostics[uri]
    assert [d.code for d in found] == ["matmul"]
    d = found[0]
    assert d.source == "tensortypes" and d.severity == lsp.DiagnosticSeverity.Error
    # ``x @ w`` on line 5 (0-based 4), columns 8..13.
    assert (d.range.start.line, d.range.start.character) == (4, 8)
    assert (d.range.end.line, d.range.end.character) == (4, 13)
    # The notes point at the parameter line where the sizes were bound.
    assert d.related_information
    assert {r.location.range.start.line for r in d.related_information} == {3}
    assert all(r.location.uri == uri for r in d.related_information)


@pytest.mark.asyncio
async def test_the_line_that_made_a_shape_is_located_related_information(client: LanguageClient):
    # The broadcast fails on line 7; m's shape was made on line 6 (keepdim, then .T).
    text = (
        "import torch\n"
        "from jaxtyping import Float\n"
        "\n"
        "def f(x: Float[torch.Tensor, 'b c']):\n"
        "    m = x.sum(0, keepdim=True)\n"
        "    m = m.T\n"
        "    return x * m\n"
    )
    uri = await _open(client, "shaped.py", text)
    (d,) = client.diagnostics[uri]
    assert d.code == "broadcast" and d.range.start.line == 6
    first = d.related_information[0]
    assert first.message == "m gets its shape (c, 1) here (used at line 7)"
    assert (first.location.range.start.line, first.location.range.start.character) == (5, 4)


@pytest.mark.asyncio
async def test_change_is_debounced_and_rechecked(client: LanguageClient):
    uri = await _open(client, "edit.py", BAD)
    assert client.diagnostics[uri]
    # Two quick edits: only the last version is checked and published.
    for version, text in ((2, BAD + "\n"), (3, GOOD)):
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    await asyncio.wait_for(
        client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), timeout=30
    )
    assert not client.diagnostics[uri]


@pytest.mark.asyncio
async def test_hover_shows_shape_and_dtype(client: LanguageClient):
    uri = await _open(client, "hover.py", GOOD)
    # Hover on ``x @ w`` (line 5, inside the operator expression).
    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(4, 10)
        )
    )
    assert hover is not None
    assert "[b,k](torch)" in hover.contents.value
    # Hover on the assigned name ``y``.
    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(4, 4)
        )
    )
    assert hover is not None and "[b,k](torch)" in hover.contents.value
    # Nothing known on a blank line.
    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(2, 0)
        )
    )
    assert hover is None


@pytest.mark.asyncio
async def test_configuration_disables_codes(client: LanguageClient):
    text = "import torch\nx = torch.zeros(3, 4).t()\ny = x.view(12)\n"
    uri = await _open(client, "view.py", text)
    assert not client.diagnostics[uri]  # 'view' is disabled in [tool.tensortypes]


@pytest.mark.asyncio
async def test_non_ascii_columns_are_client_units(client: LanguageClient):
    text = "import torch\na = torch.zeros(2, 3); é = torch.zeros(4, 5); c = a @ é\n"
    uri = await _open(client, "utf.py", text)
    (d,) = client.diagnostics[uri]
    line = text.splitlines()[1]
    # UTF-16 units: 'é' is one unit, though two UTF-8 bytes.
    assert d.range.start.character == line.index("a @ é")
    assert d.range.end.character == len(line)


@pytest.mark.asyncio
async def test_syntax_error_is_a_diagnostic(client: LanguageClient):
    uri = await _open(client, "broken.py", "def f(:\n")
    assert [d.code for d in client.diagnostics[uri]] == ["syntax"]


@pytest.mark.asyncio
async def test_imports_are_followed_and_a_save_rechecks_open_documents(client: LanguageClient):
    root = Path(client.root)
    (root / "shapes.py").write_text(
        "import torch\nfrom jaxtyping import Float\nVec = Float[torch.Tensor, 'n 3']\n"
    )
    user = (
        "import torch\nfrom shapes import Vec\n\ndef f(x: Vec):\n    return x @ torch.ones(4, 2)\n"
    )
    uri = await _open(client, "user.py", user)
    # Vec comes from another module: the contracted axes are 3 and 4.
    assert [d.code for d in client.diagnostics[uri]] == ["matmul"]
    # The alias changes on disk and is saved: the open module is checked again.
    (root / "shapes.py").write_text(
        "import torch\nfrom jaxtyping import Float\nVec = Float[torch.Tensor, 'n 4']\n"
    )
    shapes_uri = (root / "shapes.py").as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(
                uri=shapes_uri,
                language_id="python",
                version=1,
                text=(root / "shapes.py").read_text(),
            )
        )
    )
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    client.text_document_did_save(
        lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri=shapes_uri))
    )
    for _ in range(4):  # the saved module's diagnostics, then the other open ones
        await asyncio.wait_for(
            client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), timeout=30
        )
        if not client.diagnostics.get(uri):
            break
    assert not client.diagnostics[uri]
