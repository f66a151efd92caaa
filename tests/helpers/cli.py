"""Running ``mcp-litellm`` as a subprocess: any command, ``chat`` against a scripted endpoint, and the config files
and error lines the CLI tests read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp_litellm._cli.commands import DEMO_NOTICE
from tests.helpers.entries import fixture_entry


def run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
        timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_litellm", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    """The error output must be a single 'mcp-litellm: error: ...' line, never a traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip() and line != DEMO_NOTICE]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("mcp-litellm: error: "), done.stderr
    return lines[0]


def write_config(tmp_path: Path, servers: dict[str, object]) -> str:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


MODEL = "openai/gpt-4o-mini"


def chat(url: str, stdin: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "DISABLE_AIOHTTP_TRANSPORT": "True"}
    return subprocess.run([sys.executable, "-m", "mcp_litellm", "chat", "--model", MODEL, "--api-base", url,
                           "--api-key", "sk-test", *extra], input=stdin, capture_output=True, text=True,
                          timeout=120, env=env)


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m.get("role") == "tool"]


def fixture_config(tmp_path: Path, marker: str) -> str:
    """The fixture server on the 2025-11-25 handshake, whose servers may send requests back to the client."""
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"fixture": fixture_entry("fixture", marker, protocol="legacy")}}))
    return str(path)
