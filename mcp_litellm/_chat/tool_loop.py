"""The tools a chat offers and how one round of the model's tool calls is run.

``ToolBox`` holds MCP tools and local Python functions under the names the model sees. ``run_call``
turns one :class:`ToolCall` into a :class:`ToolResult`, whatever goes wrong: unknown names, arguments
that are not JSON, a tool that fails, times out or whose server died all become error results the
model can read, so the conversation carries on and every call gets its answer.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio

from mcp_litellm._chat.message import ToolCall, parse_arguments
from mcp_litellm._client.tool import Tool, ToolResult
from mcp_litellm._core import telemetry
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError
from mcp_litellm._core.naming import safe_tool_name
from mcp_litellm._core.user_code import call_user_code, is_async_callable

logger = logging.getLogger("mcp_litellm")

_NAME_LIMIT = 30  # how many tool names an "unknown tool" answer lists


@dataclass(eq=False)
class LocalTool:
    """A Python function offered to the model next to MCP tools.

    ``definition`` is the LiteLLM/OpenAI tool dict; ``function`` is called with the arguments as
    keywords (sync functions run on the bounded worker pool of ``_core.user_code``, async ones are
    awaited).
    """

    definition: dict[str, Any]
    function: Callable[..., Any]

    @property
    def name(self) -> str:
        """The tool name the model sees."""
        return str(self.definition["function"]["name"])

    async def arun(self, arguments: dict[str, Any]) -> ToolResult:
        """Call the function and wrap what it returns as a :class:`ToolResult`."""
        value = await call_user_code(self.function, **arguments)
        if isinstance(value, ToolResult):
            return value
        from mcp_types import TextContent

        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        return ToolResult(content=[TextContent(type="text", text=text)], tool_name=self.name)


def _schema_of(function: Callable[..., Any]) -> dict[str, Any]:
    """A JSON schema for ``function``'s keyword parameters, from its type hints (pydantic)."""
    import pydantic

    try:
        hints = typing.get_type_hints(function)
    except Exception:  # unresolvable annotations: fall back to "any value"
        hints = {}
    fields: dict[str, Any] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.POSITIONAL_ONLY):
            continue
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[name] = (hints.get(name, Any), default)
    model = pydantic.create_model(getattr(function, "__name__", "tool"), **fields)
    schema: dict[str, Any] = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema


def local_tool(item: Any) -> LocalTool:
    """A :class:`LocalTool` from a function, a ``(tool dict, function)`` pair, or a tool dict with a
    ``"function"`` callable under the key ``"callable"``."""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Mapping) and callable(item[1]):
        return LocalTool(_checked_definition(item[0]), item[1])
    if isinstance(item, Mapping):
        function = item.get("callable")
        if not callable(function):
            raise ConfigError(
                f"the tool dict {_dict_name(item)!r} has no Python function to run: pass it as a (tool_dict, "
                "function) pair, or put the function under the key 'callable'"
            )
        definition = {k: v for k, v in item.items() if k != "callable"}
        return LocalTool(_checked_definition(definition), function)
    if callable(item) and not isinstance(item, type):
        name = safe_tool_name(getattr(item, "__name__", "tool"))
        doc = inspect.getdoc(item) or ""
        description = doc.split("\n\n", 1)[0].strip() or name
        return LocalTool({"type": "function", "function": {"name": name, "description": description,
                                                           "parameters": _schema_of(item)}}, item)
    raise ConfigError(
        f"with_tools() takes MCP tools, clients and client groups, Python functions, (tool_dict, function) pairs "
        f"or tool dicts with a 'callable'; got {type(item).__name__}"
    )


def _dict_name(definition: Mapping[str, Any]) -> str:
    function = definition.get("function")
    return str(function.get("name")) if isinstance(function, Mapping) else "?"


def _checked_definition(definition: Mapping[str, Any]) -> dict[str, Any]:
    function = definition.get("function")
    if definition.get("type", "function") != "function" or not isinstance(function, Mapping):
        raise ConfigError('a tool dict must look like {"type": "function", "function": {"name": ..., '
                          '"description": ..., "parameters": {...}}}')
    name = function.get("name")
    if not isinstance(name, str) or safe_tool_name(name) != name:
        raise ConfigError(f"tool name {name!r} is not valid for LLM providers: use 1-64 characters "
                          "from a-z, A-Z, 0-9, '_' and '-'")
    return {"type": "function", "function": {"parameters": {"type": "object", "properties": {}}, **function}}


class ToolBox:
    """The tools of one chat, by the name the model sees, with their definitions cached per model.

    Besides tools, it holds *live* sources (a :class:`~mcp_litellm.Client` or
    :class:`~mcp_litellm.ClientGroup`): :meth:`refresh`, before each model request, puts their current
    tools in (what a list_changed brought; never a tool their pins withhold).
    """

    def __init__(self) -> None:
        self._given: dict[str, Tool | LocalTool] = {}
        self._sources: list[Any] = []
        self._live: dict[str, Tool] = {}
        self._live_key: tuple[Any, ...] = ()
        self._tools: dict[str, Tool | LocalTool] = {}
        self._definitions: dict[str | None, list[dict[str, Any]]] = {}
        self.version = 0
        """Grows with every change (so indexes built from the tools know when to rebuild)."""

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> typing.Iterator[Tool | LocalTool]:
        return iter(self._tools.values())

    def _changed(self) -> None:
        self._tools = {**self._live, **self._given}
        self._definitions.clear()
        self.version += 1

    def clear(self) -> None:
        """Remove every tool (and live source)."""
        self._given.clear()
        self._sources.clear()
        self._live, self._live_key = {}, ()
        self._changed()

    def add(self, items: Iterable[Any]) -> None:
        """Add MCP tools, local functions and tool dicts (lists and tuples of tools are flattened), and
        live sources (clients and groups)."""
        for item in _flatten(items):
            if _is_source(item):
                if not any(source is item for source in self._sources):
                    self._sources.append(item)
                continue
            tool = item if isinstance(item, Tool) else local_tool(item)
            current = self._given.get(tool.name) or self._live.get(tool.name)
            if current is not None and not _same(current, tool):
                raise ConfigError(
                    f"two different tools are named {tool.name!r}{_origins(current, tool)}: create the clients "
                    "with with_prefix=True (or use ml.ClientGroup, which prefixes clashing names), or leave one out"
                )
            self._given[tool.name] = tool
        self._changed()

    async def refresh(self) -> None:
        """Put the live sources' current tools in (their listings are cached until a list_changed)."""
        if not self._sources:
            return
        listed = [tool for source in self._sources for tool in await source.atools()]
        self._take(listed)

    def refresh_now(self) -> None:
        """:meth:`refresh` for blocking code; inside a running event loop it keeps the last known tools."""
        if not self._sources or _loop_running():
            return
        self._take([tool for source in self._sources for tool in source.tools()])

    def _take(self, listed: list[Tool]) -> None:
        live: dict[str, Tool] = {}
        for tool in listed:
            current = self._given.get(tool.name) or live.get(tool.name)
            if current is not None and not _same(current, tool):
                logger.warning("two different tools are named %r%s; the chat offers the first", tool.name,
                               _origins(current, tool))
                continue
            live[tool.name] = tool
        # a new listing makes new schema objects; the same cached listing (or a group's renamed copies of
        # it) keeps them, so the definitions and the search index are rebuilt only when the tools changed
        key = tuple((t.name, id(t.client), t.mcp_name, t.description, id(t.input_schema)) for t in live.values())
        if key != self._live_key:
            self._live, self._live_key = live, key
            self._changed()

    def get(self, name: str) -> Tool | LocalTool | None:
        """The tool the model calls ``name``, or ``None``."""
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        """The names the model sees."""
        return list(self._tools)

    def ordered(self) -> list[Tool | LocalTool]:
        """The tools by server, then name (local functions first): the order definitions are sent in,
        the same in every request, so providers' prompt caches keep matching."""
        return sorted(self._tools.values(), key=lambda t: (server_of(t), t.name))

    def definitions(self, model: str | None) -> list[dict[str, Any]]:
        """LiteLLM tool definitions for ``model`` (its provider's schema rules applied), in :meth:`ordered`
        order, cached."""
        cached = self._definitions.get(model)
        if cached is None:
            cached = [t.to_litellm(model) if isinstance(t, Tool) else t.definition for t in self.ordered()]
            self._definitions[model] = cached
        return cached


def server_of(tool: Tool | LocalTool) -> str:
    """The name of the server offering ``tool`` (``""`` for a local function)."""
    return tool.client.name if isinstance(tool, Tool) else ""


def _is_source(item: Any) -> bool:
    """Whether ``item`` is a live source of tools: a client or a group (offered with its current tools)."""
    from mcp_litellm._client.client import Client
    from mcp_litellm._servers.group import ClientGroup

    return isinstance(item, Client | ClientGroup)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _flatten(items: Iterable[Any]) -> typing.Iterator[Any]:
    for item in items:
        if isinstance(item, list | set | frozenset) or (isinstance(item, tuple) and not _is_pair(item)):
            yield from _flatten(item)
        else:
            yield item


def _is_pair(item: tuple[Any, ...]) -> bool:
    return len(item) == 2 and isinstance(item[0], Mapping) and callable(item[1])


def _same(a: Tool | LocalTool, b: Tool | LocalTool) -> bool:
    if isinstance(a, Tool) and isinstance(b, Tool):
        return a.client is b.client and a.mcp_name == b.mcp_name
    return a is b or (isinstance(a, LocalTool) and isinstance(b, LocalTool) and a.function is b.function)


def _origins(a: Tool | LocalTool, b: Tool | LocalTool) -> str:
    def origin(tool: Tool | LocalTool) -> str:
        return f"server {tool.client.name!r}" if isinstance(tool, Tool) else "a local function"

    return f" ({origin(a)} and {origin(b)})"


async def _run_local(tool: LocalTool, arguments: dict[str, Any], timeout: float | None) -> ToolResult:
    """Run a local tool for at most ``timeout`` seconds; then an error result says it timed out.

    An async function is cancelled; a sync one cannot be stopped, so its thread is left to finish alone.
    """
    with anyio.move_on_after(timeout):
        return await tool.arun(arguments)
    stopped = "it was cancelled" if is_async_callable(tool.function) else "the chat stopped waiting for it"
    return ToolResult.error(f"Error: the tool {tool.name} timed out after {timeout:g}s; {stopped}.", tool.name)


async def run_call(toolbox: ToolBox, call: ToolCall, *, timeout: float | None = None) -> ToolResult:
    """Run one tool call; every failure becomes an error :class:`ToolResult` addressed to the model.

    ``timeout`` bounds MCP tools and local functions alike (``None``: the client's request timeout for
    MCP tools, no limit for local functions).
    """
    tool = toolbox.get(call.name)
    if tool is None:
        names = toolbox.names
        shown = ", ".join(names[:_NAME_LIMIT]) + (" ..." if len(names) > _NAME_LIMIT else "")
        return ToolResult.error(f"Error: there is no tool named {call.name!r}. Available tools: {shown or 'none'}.",
                                call.name)
    try:
        arguments = parse_arguments(call.arguments)
    except ValueError as exc:
        return ToolResult.error(f"Error: could not call {call.name}: {exc}. Call it again with the arguments as "
                                "one JSON object.", call.name)
    token = telemetry.tool_call_id.set(call.id)  # the MCP tool's span names the model's call
    try:
        if isinstance(tool, Tool):
            return await tool.aexecute(arguments, timeout=timeout)
        with telemetry.span(f"execute_tool {tool.name}", {"gen_ai.operation.name": "execute_tool",
                                                          "gen_ai.tool.name": tool.name, "gen_ai.tool.type": "function",
                                                          "gen_ai.tool.call.id": call.id}) as span:
            result = await _run_local(tool, arguments, timeout)
            if result.is_error:
                telemetry.fail(span, "tool_error")
            return result
    except MCPLiteLLMError as exc:
        return ToolResult.error(f"Error: the tool {call.name} failed: {exc}", call.name)
    except Exception as exc:
        if isinstance(exc, TypeError) and isinstance(tool, LocalTool) and "argument" in str(exc):
            return ToolResult.error(f"Error: wrong arguments for {call.name}: {exc}", call.name)
        logger.warning("tool %s raised %s: %s", call.name, type(exc).__name__, exc)
        return ToolResult.error(f"Error: the tool {call.name} raised {type(exc).__name__}: {exc}", call.name)
    finally:
        telemetry.tool_call_id.reset(token)
