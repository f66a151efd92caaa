"""One way to reach a tool, whoever offers it: the :class:`Toolset` interface, the :class:`CallContext` every
call carries, and the generic wrappers (:class:`Combined`, :class:`Filtered`, :class:`Prefixed`).

A toolset lists its tools (:class:`ToolDef`: a name, the server it comes from, its LiteLLM definition) and
calls one by name with its arguments and an explicit :class:`CallContext` (who made the call, its tool call
id, the code-mode run, timeout, progress, task). A :class:`~mcp_litellm.Client`, a
:class:`~mcp_litellm.ClientGroup`, a chat's local functions and its built-in tools implement it; filtering,
prefixing and combining are wrappers around it, as tool search, result budgets and code mode are in the
chat. Nothing here does I/O of its own.

It lives in ``_client`` rather than ``_core`` because a call's answer is a :class:`ToolResult` and its
progress handler a :data:`ProgressHandler`, both of this floor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, runtime_checkable

from mcp_litellm._client.primitives.progress import ProgressHandler
from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._core.code_run import CodeRun
from mcp_litellm._core.errors import ConfigError, NotFoundError

__all__ = ["CallContext", "Combined", "DefinedTool", "Filtered", "Origin", "Prefixed", "ToolDef", "Toolset"]

Origin = Literal["user", "model", "code", "provider"]
"""Who made a tool call: the program (``"user"``: ``client.execute_tool``), the model in its answer
(``"model"``), the model's program in code mode (``"code"``), or the provider for a hosted MCP server
(``"provider"``)."""


@dataclass(frozen=True)
class CallContext:
    """What travels with one tool call, from whoever made it down to the SDK: an argument, never a context
    variable.

    Attributes:
        origin: who made the call (:data:`Origin`).
        tool_call_id: the id of the model's tool call (``None`` for a call the program made).
        code_run: the code-mode run the call comes from (``origin == "code"``), else ``None``.
        timeout: seconds the whole call may take (``None``: the client's ``request_timeout``).
        on_progress: a progress handler for this call, besides the client's own.
        task: run the call as a task (``None``: as the tool's ``task_support`` says).
        reset_timeout_on_progress: each progress notification restarts ``timeout`` (``None``: the
            client's setting).
        max_total_timeout: with ``reset_timeout_on_progress``, the most the call may take in all.
    """

    origin: Origin = "user"
    tool_call_id: str | None = None
    code_run: CodeRun | None = field(default=None, repr=False)
    timeout: float | None = None
    on_progress: ProgressHandler | None = field(default=None, repr=False)
    task: bool | None = None
    reset_timeout_on_progress: bool | None = None
    max_total_timeout: float | None = None

    def but(self, **changes: Any) -> CallContext:
        """A copy with ``changes`` (a wrapper's view of the same call)."""
        return replace(self, **changes)


@runtime_checkable
class ToolDef(Protocol):
    """A tool as a toolset lists it: what the model is offered (an MCP :class:`~mcp_litellm.Tool`, a local
    function, a built-in tool of the chat)."""

    @property
    def name(self) -> str:
        """The name the model calls."""
        ...

    @property
    def server(self) -> str | None:
        """The MCP server offering it (``None`` for a local function or a built-in)."""
        ...

    def to_litellm(self, model: str | None = None) -> dict[str, Any]:
        """The LiteLLM (OpenAI-format) tool definition; ``model`` applies that provider's schema rules."""
        ...

    def renamed(self, name: str) -> ToolDef:
        """The same tool offered under ``name``."""
        ...


class DefinedTool:
    """Half of a :class:`ToolDef` for a tool offered as a fixed LiteLLM definition (a local function, a chat's
    built-in): its name is the definition's, it comes from no MCP server, and its definition is the same for
    every provider. A subclass holds ``definition`` and writes ``renamed`` with :meth:`definition_named`."""

    definition: dict[str, Any]

    @property
    def name(self) -> str:
        """The name the model calls."""
        return str(self.definition["function"]["name"])

    @property
    def server(self) -> None:
        """It comes from no MCP server."""
        return None

    def to_litellm(self, model: str | None = None) -> dict[str, Any]:
        """The definition it was offered with (the same for every provider)."""
        return self.definition

    def definition_named(self, name: str) -> dict[str, Any]:
        """A copy of the definition under ``name``."""
        return {**self.definition, "function": {**self.definition["function"], "name": name}}


class Toolset(Protocol):
    """Tools that can be listed and called: the one interface every kind of tool is reached through."""

    async def list_tools(self) -> Sequence[ToolDef]:
        """The tools as they are now."""
        ...

    async def call_tool(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult:
        """Call the tool listed as ``name``; ``NotFoundError`` when none is. A tool's own failure is an
        error result; what the call met on the way (a dead server, a timeout) may raise."""
        ...


class Combined:
    """Several toolsets as one: their tools in order; a name two different tools share is a
    ``ConfigError`` naming both (rename with :class:`Prefixed`, or leave one out with :class:`Filtered`)."""

    def __init__(self, toolsets: Iterable[Toolset]) -> None:
        self.toolsets = list(toolsets)
        self._owner: dict[str, Toolset] = {}

    async def list_tools(self) -> list[ToolDef]:
        """Every toolset's tools, in order."""
        listed: list[ToolDef] = []
        owner: dict[str, Toolset] = {}
        seen: dict[str, ToolDef] = {}
        for toolset in self.toolsets:
            for tool in await toolset.list_tools():
                if tool.name in seen:
                    if owner[tool.name] is toolset:
                        continue
                    raise ConfigError(f"two tools are named {tool.name!r} (from {_origin(seen[tool.name])} and "
                                      f"{_origin(tool)}); give a server a prefix or leave one tool out")
                seen[tool.name] = tool
                owner[tool.name] = toolset
                listed.append(tool)
        self._owner = owner
        return listed

    async def call_tool(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult:
        """Call ``name`` on the toolset that listed it (listing first when it is not known yet)."""
        toolset = self._owner.get(name)
        if toolset is None:
            await self.list_tools()
            toolset = self._owner.get(name)
        if toolset is None:
            raise NotFoundError("tool", name, self._owner)
        return await toolset.call_tool(name, arguments, ctx)


class Filtered:
    """A toolset showing only the tools ``keep`` accepts; calling another is ``NotFoundError``."""

    def __init__(self, toolset: Toolset, keep: Callable[[ToolDef], bool]) -> None:
        self.toolset = toolset
        self.keep = keep
        self._kept: set[str] = set()

    async def list_tools(self) -> list[ToolDef]:
        """The inner toolset's tools that ``keep`` accepts."""
        kept = [tool for tool in await self.toolset.list_tools() if self.keep(tool)]
        self._kept = {tool.name for tool in kept}
        return kept

    async def call_tool(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult:
        """Call ``name`` if it is kept."""
        if name not in self._kept:
            await self.list_tools()
        if name not in self._kept:
            raise NotFoundError("tool", name, self._kept)
        return await self.toolset.call_tool(name, arguments, ctx)


class Prefixed:
    """A toolset whose tools are offered as ``prefix + separator + name``."""

    def __init__(self, toolset: Toolset, prefix: str, separator: str = "__") -> None:
        self.toolset = toolset
        self.prefix = prefix + separator

    async def list_tools(self) -> list[ToolDef]:
        """The inner toolset's tools, renamed."""
        return [tool.renamed(self.prefix + tool.name) for tool in await self.toolset.list_tools()]

    async def call_tool(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult:
        """Call the inner tool ``name`` stands for."""
        if not name.startswith(self.prefix):
            raise NotFoundError("tool", name, [tool.name for tool in await self.list_tools()])
        return await self.toolset.call_tool(name[len(self.prefix):], arguments, ctx)


def _origin(tool: ToolDef) -> str:
    return f"server {tool.server!r}" if tool.server is not None else "a local function or built-in"
