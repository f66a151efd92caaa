"""A slow MCP server (the SDK's MCPServer) for the tests of a call's deadline.

``SlowServer(settings)`` lists its tools after ``settings.list_delay`` seconds; ``sleep`` sleeps, and
``tick`` sleeps while reporting progress every ``every`` seconds. ``SlowServer.app()`` serves it over
streamable HTTP as an ASGI app that answers a ``notifications/cancelled`` POST only after
``settings.cancel_ack_delay`` seconds (a server busy with the work being cancelled) and records each
cancellation it received.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver import Context, MCPServer


@dataclass
class Settings:
    """How slow the server is now (tests change it between calls)."""

    list_delay: float = 0.0
    cancel_ack_delay: float = 0.0
    cancellations: list[bytes] = field(default_factory=list)


class SlowServer(MCPServer):
    """An MCPServer whose ``tools/list`` takes ``settings.list_delay`` seconds."""

    def __init__(self, settings: Settings) -> None:
        super().__init__("slow")
        self.slowness = settings

        @self.tool(description="Sleep this many seconds.")
        async def sleep(seconds: float) -> str:
            await asyncio.sleep(seconds)
            return "slept"

        @self.tool(description="Sleep, reporting progress every `every` seconds.")
        async def tick(seconds: float, ctx: Context, every: float = 0.4) -> str:
            steps = max(int(seconds / every), 1)
            for step in range(steps):
                await ctx.report_progress(step + 1, steps)
                await asyncio.sleep(every)
            return "ticked"

    async def list_tools(self) -> Any:
        await asyncio.sleep(self.slowness.list_delay)
        return await super().list_tools()

    def app(self) -> Any:
        """The streamable HTTP ASGI app, with cancellations acknowledged late (see the module's docstring)."""
        inner = self.streamable_http_app()
        settings = self.slowness

        async def app(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["method"] != "POST":
                await inner(scope, receive, send)
                return
            body, more = b"", True
            while more:
                message = await receive()
                body += message.get("body", b"")
                more = message.get("more_body", False)
            if b'"notifications/cancelled"' in body:
                settings.cancellations.append(body)
                await asyncio.sleep(settings.cancel_ack_delay)
            replayed = False

            async def replay() -> Any:
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await inner(scope, replay, send)

        return app
