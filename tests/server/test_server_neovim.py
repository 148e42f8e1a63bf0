"""Neovim's built-in LSP client (headless) drives `jaxfix server`: it opens a fixture, receives
the JAX001 diagnostic, applies the quick fix and writes the file, which then equals the
fixture's `.fixed.py`. Skipped where Neovim is not installed (`apt-get install neovim`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "pygls", reason="jaxfix server needs pygls (pip install 'jaxfix[server]')"
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "JAX001" / "bare_jit_decorator_lower.py"
NVIM = shutil.which("nvim")

# Works with Neovim 0.7 (start_client, get_clients absent) and later (vim.lsp.start).
SCRIPT = r"""
local out, file, root = os.getenv("JAXFIX_OUT"), os.getenv("JAXFIX_FILE"), os.getenv("JAXFIX_ROOT")
local cmd = vim.fn.json_decode(os.getenv("JAXFIX_CMD"))
local report = {}
local function finish(problem)
  report.problem = problem or ""
  vim.fn.writefile({vim.fn.json_encode(report)}, out)
  vim.cmd("qall!")
end
vim.cmd("edit " .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local config = {name = "jaxfix", cmd = cmd, root_dir = root,
                workspace_folders = {{uri = vim.uri_from_fname(root), name = "workspace"}}}
local client_id
if vim.lsp.start then
  client_id = vim.lsp.start(config)
else
  client_id = vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(bufnr, client_id)
end
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(120000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50) then
  return finish("no diagnostics")
end
local found = vim.diagnostic.get(bufnr)
report.diagnostics = {}
for _, d in ipairs(found) do
  table.insert(report.diagnostics, {code = d.code, source = d.source, lnum = d.lnum, col = d.col})
end
local d = found[1]
local lsp_diagnostic = {
  range = {start = {line = d.lnum, character = d.col}, ["end"] = {line = d.end_lnum, character = d.end_col}},
  message = d.message, code = d.code, source = d.source, severity = 1,
  data = d.user_data and d.user_data.lsp and d.user_data.lsp.data or nil,
}
local params = {
  textDocument = {uri = vim.uri_from_bufnr(bufnr)},
  range = {start = {line = d.lnum, character = 0}, ["end"] = {line = d.lnum + 1, character = 0}},
  context = {diagnostics = {lsp_diagnostic}, only = {"quickfix"}},
}
local response = client.request_sync("textDocument/codeAction", params, 120000, bufnr)
if not response or response.err or not response.result or #response.result == 0 then
  return finish("no code action: " .. vim.inspect(response))
end
local action = response.result[1]
report.title = action.title
if not action.edit then
  local resolved = client.request_sync("codeAction/resolve", action, 120000, bufnr)
  if not resolved or resolved.err then return finish("resolve failed: " .. vim.inspect(resolved)) end
  action = resolved.result
end
vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or "utf-16")
vim.cmd("write")
client.stop()
finish(nil)
"""


@pytest.mark.skipif(
    NVIM is None,
    reason="Neovim is not installed (apt-get install neovim); the pygls-client tests still run",
)
def test_neovim_applies_the_quick_fix_and_writes_the_fixed_file(tmp_path):
    path = tmp_path / FIXTURE.name
    shutil.copy(FIXTURE, path)
    script, out = tmp_path / "drive.lua", tmp_path / "report.json"
    script.write_text(SCRIPT)
    launcher = Path(sys.executable).with_name("jaxfix")
    command = (
        [str(launcher), "server"]
        if launcher.exists()
        else [sys.executable, "-m", "jaxfix", "server"]
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "JAXFIX_OUT": str(out),
        "JAXFIX_FILE": str(path),
        "JAXFIX_ROOT": str(tmp_path),
        "JAXFIX_CMD": json.dumps(command),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [NVIM, "--headless", "--clean", "-n", "-c", f"luafile {script}"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.exists(), (done.returncode, done.stdout, done.stderr)
    report = json.loads(out.read_text())
    assert report["problem"] == "", report
    assert [
        (d["code"], d["source"], d["lnum"], d["col"]) for d in report["diagnostics"]
    ] == [("JAX001", "jaxfix", 20, 10)]
    assert "lowering_platforms" in report["title"] and "unsafe" not in report["title"]
    assert path.read_text() == FIXTURE.with_suffix(".fixed.py").read_text()
