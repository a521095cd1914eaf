"""The language server, ``tensortypes lsp`` (layer 7: tools over the back ends).

``server`` holds the implementation; it needs the ``lsp`` extra
(``pip install 'tensortypes[lsp]'``: pygls and lsprotocol). :func:`main` says
so, and exits with status 2, when they are missing.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> int:
    """Run the language server over stdio; status 2 when the ``lsp`` extra is missing."""
    try:
        from tensortypes.lsp.server import main as serve
    except ImportError as error:
        missing = getattr(error, "name", None) or str(error)
        sys.stderr.write(
            f"tensortypes lsp: the language server needs the 'lsp' extra "
            f"({missing} is not installed): pip install 'tensortypes[lsp]'\n"
        )
        return 2
    return serve()
