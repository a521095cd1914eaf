"""The language server in a real editor: Neovim, headless, attaches ``tensortypes lsp`` to a
file, waits for the diagnostics and writes them out; the test reads them back.

Runs where ``nvim`` (0.7 or newer) and the ``lsp`` extra are installed; skips with a note
otherwise (Debian: ``apt-get install neovim``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("pygls", reason="the 'lsp' extra (pygls) is not installed")

LUA = r"""
local out = vim.env.TT_OUT
local client = vim.lsp.start_client({
  name = "tensortypes",
  cmd = { vim.env.TT_PYTHON, "-m", "tensortypes", "lsp" },
  root_dir = vim.env.TT_ROOT,
})
vim.cmd("edit " .. vim.fn.fnameescape(vim.env.TT_FILE))
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client)
local ok = vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 100)
local found = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(found, { lnum = d.lnum, col = d.col, message = d.message,
                        code = d.user_data and d.user_data.lsp and d.user_data.lsp.code or "",
                        source = d.source or "" })
end
local f = io.open(out, "w")
f:write(vim.json.encode({ ok = ok, diagnostics = found }))
f:close()
vim.lsp.stop_client(client)
vim.cmd("qall!")
"""


def test_neovim_shows_the_diagnostics(tmp_path):
    nvim = shutil.which("nvim")
    if nvim is None:
        print("skipped: nvim is not installed (apt-get install neovim)")
        pytest.skip("nvim is not installed")
    (tmp_path / "pyproject.toml").write_text("[tool.tensortypes]\n")
    source = tmp_path / "model.py"
    source.write_text("import torch\nx = torch.zeros(3, 4)\ny = x @ torch.ones(5, 2)\n")
    script = tmp_path / "attach.lua"
    script.write_text(LUA)
    out = tmp_path / "diagnostics.json"
    env = {
        "TT_OUT": str(out),
        "TT_PYTHON": sys.executable,
        "TT_ROOT": str(tmp_path),
        "TT_FILE": str(source),
        "HOME": str(tmp_path),
        "PATH": "/usr/bin:/bin",
        "TENSORTYPES_CACHE_DIR": str(tmp_path / "cache"),
    }
    done = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-c", f"luafile {script}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert out.exists(), done.stdout + done.stderr
    result = json.loads(out.read_text())
    assert result["ok"], result
    (d,) = result["diagnostics"]
    assert (d["lnum"], d["col"]) == (2, 4)
    assert d["code"] == "matmul" and d["source"] == "tensortypes"
    assert "contracted axes differ" in d["message"]
