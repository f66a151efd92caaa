"""The tools a chat offers: MCP tools and local Python functions, under the names the model sees.

``ToolBox`` is the chat's inner :class:`~mcp_litellm._client.primitives.toolset.Toolset`: a
:class:`~mcp_litellm._chat.function_toolset.FunctionToolset` of its local functions combined with the MCP
clients and groups it was given (each reached through its own ``call_tool``), and the MCP tools given one
by one (through their client). It checks that two different tools never share a name, keeps the tools in
the order requests send them, and caches their LiteLLM definitions per model. The chat's built-in tools are
wrappers around it (``_chat/tool_search/``, ``_chat/results.py``, ``_chat/code_mode/``).
"""

from __future__ import annotations

import asyncio
import logging
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from mcp_litellm._chat.function_toolset import FunctionToolset, LocalTool, checked_arguments, local_tool
from mcp_litellm._client.primitives.tool import Tool
from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._client.primitives.tool_ui import model_visible
from mcp_litellm._client.primitives.toolset import CallContext, ToolDef, Toolset
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, server_unreachable

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client
    from mcp_litellm._servers.group import ClientGroup

__all__ = ["ChatTool", "ChatToolset", "LocalTool", "ToolBox", "checked_arguments", "local_tool",
           "server_of"]

logger = logging.getLogger("mcp_litellm")

_NAME_LIMIT = 30  # how many tool names an "unknown tool" answer lists


class ChatTool(ToolDef, Protocol):
    """A tool of the chat as its wrappers read it (an MCP :class:`Tool` or a :class:`LocalTool`)."""

    @property
    def mcp_name(self) -> str:
        """The name its server gives it (a local function's own name)."""
        ...

    @property
    def description(self) -> str:
        """What it does."""
        ...

    @property
    def input_schema(self) -> dict[str, typing.Any]:
        """The JSON schema of its arguments."""
        ...

    @property
    def output_schema(self) -> dict[str, typing.Any] | None:
        """The JSON schema of its structured result, if it declares one."""
        ...


class ChatToolset(Toolset, Protocol):
    """A toolset of the chat (the :class:`ToolBox` or a wrapper of it) that can also list its tools without
    listing the live sources again (for the blocking :meth:`Chat.tool_definitions`)."""

    async def list_tools(self) -> Sequence[ToolDef]:
        """The tools, the live sources listed first."""
        ...

    def listed_now(self) -> Sequence[ToolDef]:
        """The tools, with the live sources' tools as last listed."""
        ...


@dataclass(frozen=True)
class _Entry:
    """A tool of the box: what it is, the toolset that calls it and its name there, and what makes it the
    same tool as another entry (the same function, or the same server tool)."""

    tool: Tool | LocalTool
    owner: Toolset
    inner: str
    mcp: Tool | None
    identity: tuple[int, str]


class _Source:
    """A client or group given live: its tools as a :class:`Toolset`, and their sync listing."""

    def __init__(self, item: Client | ClientGroup, toolset: Toolset) -> None:
        self.item = item
        self.toolset = toolset

    def entries(self, listed: Iterable[Tool]) -> list[_Entry]:
        return [_Entry(tool, self.toolset, tool.name, tool, _mcp_identity(tool)) for tool in listed]


class ToolBox:
    """The tools of one chat, by the name the model sees, with their definitions cached per model.

    Besides tools, it holds *live* sources (a :class:`~mcp_litellm.Client` or
    :class:`~mcp_litellm.ClientGroup`): :meth:`refresh` (and :meth:`list_tools`), before each model request,
    puts their current tools in (what a list_changed brought; never a tool their pins withhold).
    """

    def __init__(self) -> None:
        self.functions = FunctionToolset()
        self._local: dict[str, LocalTool] = {}
        self._given: dict[str, _Entry] = {}
        self._sources: list[_Source] = []
        self._live: dict[str, _Entry] = {}
        self._live_key: tuple[object, ...] = ()
        self._entries: dict[str, _Entry] = {}
        self._definitions: dict[str | None, list[dict[str, typing.Any]]] = {}
        self._by_name: dict[str | None, dict[str, dict[str, typing.Any]]] = {}
        self.version = 0
        """Grows with every change (so indexes built from the tools know when to rebuild)."""

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> typing.Iterator[Tool | LocalTool]:
        return iter([entry.tool for entry in self._entries.values()])

    def _changed(self) -> None:
        # a tool meant only for its app (MCP Apps visibility ["app"]) never reaches the model
        self._entries = {name: entry for name, entry in {**self._live, **self._given}.items()
                         if model_visible(entry.tool)}
        self.functions.tools = {name: tool for name, tool in self._local.items() if name in self._entries}
        self._definitions.clear()
        self._by_name.clear()
        self.version += 1

    def clear(self) -> None:
        """Remove every tool (and live source)."""
        self._given.clear()
        self._local.clear()
        self._sources.clear()
        self._live, self._live_key = {}, ()
        self._changed()

    def add(self, items: Iterable[object]) -> None:
        """Add MCP tools, local functions and tool dicts (lists and tuples of tools are flattened), and
        live sources (clients and groups)."""
        for item in _flatten(items):
            source = _source(item)
            if source is not None:
                if not any(known.item is item for known in self._sources):
                    self._sources.append(source)
                continue
            entry = self._entry(item)
            current = self._given.get(entry.tool.name) or self._live.get(entry.tool.name)
            if current is not None and current.identity != entry.identity:
                raise ConfigError(
                    f"two different tools are named {entry.tool.name!r}{_origins(current, entry)}: create the "
                    "clients with with_prefix=True (or use ml.ClientGroup, which prefixes clashing names), or "
                    "leave one out")
            self._given[entry.tool.name] = entry
        self._changed()

    def _entry(self, item: object) -> _Entry:
        """The entry of a tool given by itself: an MCP tool (called through its client) or a function."""
        if isinstance(item, Tool):  # the one door where a given item's kind is told
            return _Entry(item, _client_of(item), item.mcp_name, item, _mcp_identity(item))
        tool = local_tool(item)
        self._local[tool.name] = tool
        return _Entry(tool, self.functions, tool.name, None, (id(tool.function), ""))

    async def refresh(self) -> None:
        """Put the live sources' current tools in (their listings are cached until a list_changed)."""
        if self._sources:
            # a source's Toolset listing: a server down offers the tools it last listed (see Client.list_tools)
            self._take([entry for source in self._sources
                        for entry in source.entries(await source.item.list_tools())])

    def refresh_now(self) -> None:
        """:meth:`refresh` for blocking code; inside a running event loop it keeps the last known tools."""
        if not self._sources or _loop_running():
            return
        try:
            listed = [entry for source in self._sources for entry in source.entries(source.item.tools())]
        except MCPLiteLLMError as error:
            if not server_unreachable(error):
                raise
            return  # a server down: the tools as last listed (the next request lists it the lenient way)
        self._take(listed)

    def _take(self, listed: list[_Entry]) -> None:
        live: dict[str, _Entry] = {}
        for entry in listed:
            name = entry.tool.name
            current = self._given.get(name) or live.get(name)
            if current is not None and current.identity != entry.identity:
                logger.warning("two different tools are named %r%s; the chat offers the first", name,
                               _origins(current, entry))
                continue
            live[name] = entry
        # a new listing makes new schema objects; the same cached listing (or a group's renamed copies of
        # it) keeps them, so the definitions and the search index are rebuilt only when the tools changed
        key = tuple((name, *entry.identity, entry.tool.description, id(entry.tool.input_schema))
                    for name, entry in live.items())
        if key != self._live_key:
            self._live, self._live_key = live, key
            self._changed()

    # -- the Toolset interface -----------------------------------------------------------------------

    async def list_tools(self) -> list[Tool | LocalTool]:
        """The tools as they are now (the live sources listed first), in :meth:`ordered` order."""
        await self.refresh()
        return self.ordered()

    def listed_now(self) -> list[Tool | LocalTool]:
        """:meth:`list_tools` without listing the live sources again (their tools as last listed)."""
        return self.ordered()

    async def call_tool(self, name: str, arguments: dict[str, object], ctx: CallContext) -> ToolResult:
        """Call the tool the model calls ``name`` through the toolset that offers it; a name no tool has is an
        error result naming the tools there are (for the model to try again)."""
        entry = self._entries.get(name)
        if entry is None:
            names = self.names
            shown = ", ".join(names[:_NAME_LIMIT]) + (" ..." if len(names) > _NAME_LIMIT else "")
            return ToolResult.error(f"Error: there is no tool named {name!r}. Available tools: {shown or 'none'}.",
                                    name)
        return await entry.owner.call_tool(entry.inner, arguments, ctx)

    # -- reading -------------------------------------------------------------------------------------

    def clients(self) -> list[Client]:
        """The MCP clients this box reaches, once each: those given live (each of a group's) and those of the
        tools given one by one."""
        from mcp_litellm._client.client import Client

        found: dict[int, Client] = {}
        for source in self._sources:
            for client in [source.item] if isinstance(source.item, Client) else list(source.item):
                found.setdefault(id(client), client)
        for entry in (*self._given.values(), *self._live.values()):
            if entry.mcp is not None and isinstance(entry.mcp.client, Client):
                found.setdefault(id(entry.mcp.client), entry.mcp.client)
        return list(found.values())

    def get(self, name: str) -> Tool | LocalTool | None:
        """The tool the model calls ``name``, or ``None``."""
        entry = self._entries.get(name)
        return entry.tool if entry is not None else None

    def mcp_tool(self, name: str) -> Tool | None:
        """The MCP :class:`Tool` the model calls ``name``, or ``None`` (a local function, or no tool)."""
        entry = self._entries.get(name)
        return entry.mcp if entry is not None else None

    @property
    def names(self) -> list[str]:
        """The names the model sees."""
        return list(self._entries)

    def ordered(self) -> list[Tool | LocalTool]:
        """The tools by server, then name (local functions first): the order definitions are sent in,
        the same in every request, so providers' prompt caches keep matching."""
        return sorted((entry.tool for entry in self._entries.values()), key=lambda t: (server_of(t), t.name))

    def definitions(self, model: str | None) -> list[dict[str, typing.Any]]:
        """LiteLLM tool definitions for ``model`` (its provider's schema rules applied), in :meth:`ordered`
        order, cached."""
        cached = self._definitions.get(model)
        if cached is None:
            cached = [t.to_litellm(model) for t in self.ordered()]
            self._definitions[model] = cached
        return cached

    def definition(self, tool: ToolDef, model: str | None) -> dict[str, typing.Any]:
        """``tool``'s definition for ``model``: the cached one when it is one of the box's tools."""
        by_name = self._by_name.get(model)
        if by_name is None:
            by_name = self._by_name[model] = {d["function"]["name"]: d for d in self.definitions(model)}
        entry = self._entries.get(tool.name)
        if entry is not None and entry.tool is tool:
            return by_name[tool.name]
        return tool.to_litellm(model)


def server_of(tool: ToolDef) -> str:
    """The name of the server offering ``tool`` (``""`` for a local function or a built-in)."""
    return tool.server or ""


def _client_of(tool: Tool) -> Client:
    """The client a given MCP tool is called through (a :class:`Toolset` itself)."""
    from mcp_litellm._client.client import Client

    client = tool.client
    if not isinstance(client, Client):
        raise ConfigError(f"tool {tool.name!r} does not come from an mcp_litellm Client, so the chat cannot call it")
    return client


def _mcp_identity(tool: Tool) -> tuple[int, str]:
    return id(tool.client), tool.mcp_name


def _source(item: object) -> _Source | None:
    """``item`` as a live source of tools when it is a client or a group (offered with its current tools)."""
    from mcp_litellm._client.client import Client
    from mcp_litellm._servers.group import ClientGroup

    if isinstance(item, Client):
        return _Source(item, item)
    if isinstance(item, ClientGroup):
        return _Source(item, item)  # a group is a Toolset: a call goes to the client of the tool the name stands for
    return None


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _flatten(items: Iterable[object]) -> typing.Iterator[object]:
    for item in items:
        if isinstance(item, list | set | frozenset) or (isinstance(item, tuple) and not _is_pair(item)):
            yield from _flatten(item)
        else:
            yield item


def _is_pair(item: tuple[object, ...]) -> bool:
    return len(item) == 2 and isinstance(item[0], Mapping) and callable(item[1])


def _origins(a: _Entry, b: _Entry) -> str:
    def origin(entry: _Entry) -> str:
        return f"server {entry.tool.server!r}" if entry.tool.server else "a local function"

    return f" ({origin(a)} and {origin(b)})"

