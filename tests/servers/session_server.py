"""A streamable HTTP MCPServer that keeps state per MCP session and counts what ran, with no event store
(so a response stream that is cut cannot be resumed), for the dropped-response tests (issue 37).

Run it as ``python tests/servers/session_server.py streamable-http --port N``.

- ``whoami`` (read-only): the MCP session id the server sees for this call.
- ``remember {value}`` / ``recall`` (read-only): state kept in the server's session.
- ``bump``: no hints (neither read-only nor idempotent); counts its runs.
- ``peek`` (read-only) and ``put {key, value}`` (idempotent): count their runs too.
- ``stats`` (read-only): the run counts, as JSON.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True)
IDEMPOTENT = ToolAnnotations(read_only_hint=False, idempotent_hint=True, destructive_hint=False)


def _session(ctx: Context) -> str:
    return next((v for k, v in (ctx.headers or {}).items() if k.lower() == "mcp-session-id"), "")


def build_server(name: str = "sessions") -> MCPServer:
    server = MCPServer(name, log_level="WARNING")
    runs: Counter[str] = Counter()
    remembered: dict[str, str] = {}
    stored: dict[str, str] = {}

    @server.tool(description="The MCP session id of this call.", annotations=READ_ONLY)
    def whoami(ctx: Context) -> str:
        runs["whoami"] += 1
        return _session(ctx) or "(no session)"

    @server.tool(description="Remember a value in this session.")
    def remember(value: str, ctx: Context) -> str:
        remembered[_session(ctx)] = value
        return "ok"

    @server.tool(description="The value remembered in this session.", annotations=READ_ONLY)
    def recall(ctx: Context) -> str:
        return remembered.get(_session(ctx), "(nothing)")

    @server.tool(description="Count one more bump (not idempotent).")
    def bump() -> int:
        runs["bump"] += 1
        return runs["bump"]

    @server.tool(description="Read something (read-only); counts its runs.", annotations=READ_ONLY)
    def peek() -> str:
        runs["peek"] += 1
        return f"peeked {runs['peek']}"

    @server.tool(description="Store a value under a key (idempotent).", annotations=IDEMPOTENT)
    def put(key: str, value: str) -> str:
        runs["put"] += 1
        stored[key] = value
        return "stored"

    @server.tool(description="How many times each counted tool ran, as JSON.", annotations=READ_ONLY)
    def stats() -> str:
        return json.dumps(dict(runs))

    return server


def main(argv: list[str] | None = None) -> None:
    from tests.servers._main import run

    def build(args: Any) -> MCPServer:
        return build_server(args.name)

    run(build, argv, name="sessions")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    main()
