"""``read_ui``/``aread_ui`` of a :class:`~mcp_litellm.ClientGroup` (MCP Apps): the interface of one of its tools,
read from the server that offers the tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp_litellm._client.apps import AppResource
from mcp_litellm._client.client import Client
from mcp_litellm._client.loop import run_async, run_sync
from mcp_litellm._client.tool import Tool
from mcp_litellm._core.errors import ConfigError

if TYPE_CHECKING:
    import asyncio


class GroupAppsMixin:
    """``read_ui``/``aread_ui`` of :class:`mcp_litellm.ClientGroup`."""

    if TYPE_CHECKING:  # the group's own
        def _session_loop(self) -> asyncio.AbstractEventLoop | None: ...
        async def atool(self, name: str, *, refresh: bool = False) -> Tool: ...

    async def _read_ui(self, tool: str | Tool) -> AppResource:
        found = await self.atool(tool) if isinstance(tool, str) else tool
        client = found.client
        if not isinstance(client, Client):
            raise ConfigError(f"tool {found.name!r} does not come from an MCP server of this group")
        return await client.aread_ui(found)

    def read_ui(self, tool: str | Tool) -> AppResource:
        """The interface (MCP Apps) of the group's tool ``tool`` (a :class:`Tool` or its name in the group),
        read from its server: see :meth:`Client.read_ui <mcp_litellm.Client.read_ui>`."""
        return run_sync(self._read_ui(tool), home=self._session_loop())

    async def aread_ui(self, tool: str | Tool) -> AppResource:
        """Async twin of :meth:`read_ui`."""
        return await run_async(self._read_ui(tool), home=self._session_loop())


__all__ = ["GroupAppsMixin"]
