"""``tensortypes lsp`` without the ``lsp`` extra: a clear message and status 2, no traceback."""

from __future__ import annotations

import subprocess
import sys

BLOCKED = (
    "import sys; sys.modules['pygls'] = None; sys.modules['lsprotocol'] = None\n"
    "from tensortypes.cli import main\n"
    "sys.exit(main(['lsp']))\n"
)


def test_lsp_without_pygls_says_what_to_install():
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "pip install 'tensortypes[lsp]'" in done.stderr
    assert "Traceback" not in done.stderr
