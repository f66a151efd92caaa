"""A group's tools as one :class:`~mcp_litellm._client.primitives.toolset.Toolset`: looking a tool up by any of its
names in the group, and calling it (or starting it as a task) within one timeout.

The list itself is the servers' lists combined under the names ``merged_tools`` gives them (a prefix only
where two servers collide, a short hash where prefixed names still clash); a tool is called on its own
client, so the client's rules (pins, approval, retries) apply as they do for a direct call.
"""

from __future__ import annotations

import asyncio
import builtins
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Protocol, TypeVar

import anyio

from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._core.errors import ConfigError, NotFoundError, RequestTimeoutError
from mcp_litellm._core.naming import safe_tool_name
from mcp_litellm._core.option_checks import positive_seconds

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client
    from mcp_litellm._client.primitives.task import Task
    from mcp_litellm._client.primitives.tool import Tool, ToolResult

__all__ = ["GroupTools"]

_T = TypeVar("_T")


class _Group(Protocol):
    """What :class:`GroupTools` needs of its group."""

    @property
    def _clients(self) -> Mapping[str, Client]: ...
    @property
    def _prefixes(self) -> Mapping[str, str]: ...
    async def _offered_tools(self, refresh: bool) -> list[Tool]: ...
    def _session_loop(self) -> asyncio.AbstractEventLoop | None: ...


class GroupTools:
    """The tools of ``group``: :meth:`list_tools` / :meth:`call_tool` (the ``Toolset`` interface), and the
    lookups and timeouts ``ClientGroup.execute_tool`` and ``start_task`` share."""

    def __init__(self, group: _Group) -> None:
        self.group = group

    def _session_loop(self) -> asyncio.AbstractEventLoop | None:
        """The group's loop: ``run_sync``/``run_async`` route this object's work there, as the group's own
        (``_client/session/loop.py``)."""
        return self.group._session_loop()

    async def list_tools(self) -> list[Tool]:
        """Every server's tools under their names in the group (a server down: those it last listed)."""
        return await self.group._offered_tools(False)

    async def find(self, name: str, refresh: bool) -> Tool:
        """The tool called ``name`` in the group (or on its server, when only one server has it, or
        ``"{server}__{tool}"`` when several do); refreshes the lists once before ``NotFoundError``."""
        group = self.group
        tools = await group._offered_tools(refresh)
        for tool in tools:
            if tool.name == name:
                return tool
        by_server_name = [t for t in tools if t.mcp_name == name]
        if len(by_server_name) == 1:
            return by_server_name[0]
        prefixed = [t for t in tools if name in (safe_tool_name(t.mcp_name, group._prefixes[t.client.name]),
                                                 safe_tool_name(t.mcp_name, t.client.name))]
        if len(prefixed) == 1:  # "{server}__{tool}", as named where several servers offer it
            return prefixed[0]
        if not refresh:
            return await self.find(name, True)
        for client in group._clients.values():  # a tool its pins withhold: say so, not "not found"
            client._tools.raise_if_withheld(name, group._prefixes[client.name], client.name)
        several = None
        if by_server_name:  # several servers offer it: say which, and the names that tell them apart
            servers = ", ".join(repr(t.client.name) for t in by_server_name)
            names = " or ".join(repr(t.name) for t in by_server_name)
            several = f"tool {name!r} is offered by several servers ({servers}); use its name in the group: {names}"
        raise NotFoundError("tool", name, [t.name for t in tools], message=several)

    async def _resolve(self, name: str | Tool, timeout: float | None, what: str) -> Tool:
        """The group's tool for ``name`` (a name, or a :class:`Tool` of one of its servers), found within
        ``timeout`` (``None``: each server's own)."""
        from mcp_litellm._client.primitives.tool import Tool

        if isinstance(name, Tool):
            if name.client not in self.group._clients.values():
                raise ConfigError(f"tool {name.name!r} belongs to server {name.client.name!r}, which is not in "
                                  "this group; call it through its own client")
            return name
        if not isinstance(name, str):
            raise ConfigError(f"a tool name (str) or Tool is needed, got {type(name).__name__}")
        if timeout is None:
            return await self.find(name, False)
        try:
            with anyio.fail_after(timeout):
                return await self.find(name, False)
        except builtins.TimeoutError:
            raise RequestTimeoutError(f"{what} of {name!r} timed out after {float(timeout)}s, while waiting "
                                      "for the group's tool listing; it was cancelled") from None

    async def _within(self, name: str | Tool, ctx: CallContext, what: str,
                      call: Callable[[Tool, CallContext], Awaitable[_T]]) -> _T:
        """``call(tool, ctx)`` with what is left of the call's ``timeout`` / ``max_total_timeout`` once the
        tool is found (the lookup is part of the call)."""
        started = time.monotonic()
        timeout = positive_seconds(ctx.timeout, "timeout", none="for each server's request_timeout", allow_inf=True)
        total = positive_seconds(ctx.max_total_timeout, "max_total_timeout", none="for no cap")
        tool = await self._resolve(name, timeout, what)
        spent = time.monotonic() - started
        return await call(tool, ctx.but(timeout=None if timeout is None else max(timeout - spent, 1e-3),
                                        max_total_timeout=None if total is None else max(total - spent, 1e-3)))

    async def call_tool(self, name: str, arguments: Mapping[str, object], ctx: CallContext) -> ToolResult:
        """Call the group's tool ``name`` with ``arguments`` on its own client, as ``ctx`` says."""
        async def call(tool: Tool, ctx: CallContext) -> ToolResult:
            return await self.group._clients[tool.client.name].call_tool(tool.mcp_name, dict(arguments), ctx)

        return await self._within(name, ctx, "tools/call", call)

    async def execute(self, name: str | Tool, parameters: Mapping[str, object] | None,
                      ctx: CallContext) -> ToolResult:
        """``ClientGroup.execute_tool``: the tool (by name, or a :class:`Tool`) called on its client."""
        async def call(tool: Tool, ctx: CallContext) -> ToolResult:
            return await tool.client.aexecute_tool(
                tool, parameters, timeout=ctx.timeout, on_progress=ctx.on_progress, task=ctx.task,
                reset_timeout_on_progress=ctx.reset_timeout_on_progress, max_total_timeout=ctx.max_total_timeout)

        return await self._within(name, ctx, "tools/call", call)

    async def start_task(self, name: str | Tool, parameters: Mapping[str, object] | None, ttl: float | None,
                         timeout: float | None) -> Task:
        """``ClientGroup.start_task``: the tool started as a task on its client."""
        async def call(tool: Tool, ctx: CallContext) -> Task:
            return await tool.client.astart_task(tool, parameters, ttl=ttl, timeout=ctx.timeout)

        return await self._within(name, CallContext(timeout=timeout), "tasks/create", call)

    async def pin(self, names: Iterable[str] | str | None) -> dict[str, list[str]]:
        """``ClientGroup.pin_tools``: accept the current definitions of ``names`` (all when ``None``) on every
        server with ``tool_pins``."""
        group = self.group
        pinned = [c for c in group._clients.values() if c._tool_pins is not None and c.is_alive()]
        if not pinned:
            raise ConfigError("no server of this group has tool_pins: create it with tool_pins=PATH to pin tools")
        if names is None:
            return {c.name: await c.apin_tools() for c in pinned}
        wanted = [names] if isinstance(names, str) else list(names)
        for client in pinned:
            await client._tools.list_tools(True)
        accepted: dict[str, list[str]] = {}
        for name in wanted:
            owners = [(c, tool) for c in pinned for tool in c._tool_pins.current  # type: ignore[union-attr]
                      if name in (tool, safe_tool_name(tool, c.name), safe_tool_name(tool, group._prefixes[c.name]))]
            if not owners:
                raise NotFoundError("tool", name, [t for c in pinned for t in c._tool_pins.current])  # type: ignore[union-attr]
            for client, tool in owners:
                accepted.setdefault(client.name, []).extend(await client.apin_tools([tool]))
        return accepted
