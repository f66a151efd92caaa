"""A small MCPServer for the web-app and per-user tests: echoes after a sleep, says who called, its PID.

Run it as ``python tests/servers/pool_server.py [stdio|streamable-http] [--port N] [--name NAME]``.
"""

from __future__ import annotations

import asyncio
import os
import sys

from mcp.server.mcpserver import Context, MCPServer


def build_server(name: str = "pool") -> MCPServer:
    """The server: ``echo``, ``whoami`` and ``pid``."""
    server = MCPServer(name)

    @server.tool()
    async def echo(text: str, delay: float = 0.0) -> str:
        """Return ``text`` after sleeping ``delay`` seconds."""
        await asyncio.sleep(delay)
        return text

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The credential this request came with (its Authorization or X-API-Key header), or 'anonymous'."""
        headers = ctx.headers or {}
        return headers.get("authorization") or headers.get("x-api-key") or "anonymous"

    @server.tool()
    def pid() -> int:
        """The server's process id."""
        return os.getpid()

    return server


def main(argv: list[str] | None = None) -> None:
    from tests.servers._main import run

    run(lambda args: build_server(args.name), argv, name="pool")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    main()
