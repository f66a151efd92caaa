"""What a server offers: listing (paginated, cached) and calling tools.

``CatalogMixin`` is part of :class:`mcp_litellm.Client`; it relies on the client core for the
connection (``_require_connection``), timeouts (``_timeout``) and the approval hook.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from mcp_types import CallToolResult

from mcp_litellm._errors import ConfigError, NotFoundError
from mcp_litellm._loop import run_async, run_sync
from mcp_litellm._naming import safe_tool_name
from mcp_litellm._tool import ProgressHandler, Tool, ToolResult, _with_spec_defaults

logger = logging.getLogger("mcp_litellm")
T = TypeVar("T")

MAX_PAGES = 1000
"""A server that keeps returning cursors is cut off after this many pages."""

_OUTPUT_SCHEMA_ERRORS = ("Invalid structured content", "has an output schema but did not return")


async def paginate(fetch: Callable[[str | None], Awaitable[Any]], items: str, *, server: str) -> list[Any]:
    """Collect every page of a list call, stopping on a repeated cursor or after ``MAX_PAGES``."""
    collected: list[Any] = []
    seen: set[str] = set()
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        collected.extend(getattr(page, items))
        cursor = page.next_cursor
        if cursor is None:
            return collected
        if cursor in seen:
            logger.warning("server %r repeated pagination cursor %r for %s; stopping", server, cursor, items)
            return collected
        seen.add(cursor)
    logger.warning("server %r returned more than %d pages of %s; stopping", server, MAX_PAGES, items)
    return collected


async def call_handler(fn: Callable[..., Any], *args: Any) -> Any:
    """Call a user handler that may be sync or async."""
    result = fn(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


class CatalogMixin:
    """Tools of a server: list, find, call."""

    name: str
    with_prefix: bool
    max_result_chars: int | None
    _catalog_cache: dict[str, Any]
    _progress_handlers: list[ProgressHandler]

    # provided by the client core
    def _require_connection(self) -> Any: ...  # pragma: no cover
    def _timeout(self, timeout: float | None) -> float: ...  # pragma: no cover
    async def _approve_tool_call(self, tool: Tool, arguments: dict[str, Any]) -> str | None: ...  # pragma: no cover
    def _request_meta(self) -> dict[str, Any] | None: ...  # pragma: no cover

    def _invalidate(self, kind: str | None = None) -> None:
        if kind is None:
            self._catalog_cache.clear()
        else:
            self._catalog_cache.pop(kind, None)

    # -- tools -----------------------------------------------------------------------------------

    async def _list_tools(self, refresh: bool) -> list[Tool]:
        cached = self._catalog_cache.get("tools")
        if cached is not None and not refresh:
            return list(cached)
        connection = self._require_connection()
        timeout = self._timeout(None)

        async def fetch(cursor: str | None) -> Any:
            return await connection.request("tools/list", lambda c: c.list_tools(cursor=cursor), timeout)

        listed = await paginate(fetch, "tools", server=self.name)
        tools = [self._make_tool(t) for t in listed]
        self._catalog_cache["tools"] = tools
        return list(tools)

    def _make_tool(self, sdk_tool: Any) -> Tool:
        return Tool(
            name=safe_tool_name(sdk_tool.name, self.name if self.with_prefix else None),
            mcp_name=sdk_tool.name,
            title=sdk_tool.title or (sdk_tool.annotations.title if sdk_tool.annotations else None),
            description=sdk_tool.description or "",
            input_schema=dict(sdk_tool.input_schema or {}),
            output_schema=dict(sdk_tool.output_schema) if sdk_tool.output_schema else None,
            annotations=_with_spec_defaults(sdk_tool.annotations),
            client=self,  # type: ignore[arg-type]
        )

    def tools(self, refresh: bool = False) -> list[Tool]:
        """The server's tools (fetched once, then cached until ``refresh=True`` or a list_changed)."""
        return run_sync(self._list_tools(refresh))

    async def atools(self, refresh: bool = False) -> list[Tool]:
        """Async twin of :meth:`tools`."""
        return await run_async(self._list_tools(refresh))

    async def _find_tool(self, name: str, refresh: bool) -> Tool:
        tools = await self._list_tools(refresh)
        for tool in tools:
            if tool.name == name:
                return tool
        for tool in tools:
            if tool.mcp_name == name:
                return tool
        if not refresh:  # the list may be stale: look once more before giving up
            return await self._find_tool(name, True)
        raise NotFoundError("tool", name, [t.name for t in tools], server=self.name)

    def tool(self, name: str, refresh: bool = False) -> Tool:
        """The tool called ``name`` (its LiteLLM name or the server's name); ``NotFoundError`` if absent."""
        return run_sync(self._find_tool(name, refresh))

    async def atool(self, name: str, refresh: bool = False) -> Tool:
        """Async twin of :meth:`tool`."""
        return await run_async(self._find_tool(name, refresh))

    async def _execute(self, name: str, parameters: Mapping[str, Any] | None, timeout: float | None,
                       on_progress: ProgressHandler | None) -> ToolResult:
        if parameters is not None and not isinstance(parameters, Mapping):
            raise ConfigError(f"tool parameters must be a mapping, got {type(parameters).__name__}")
        tool = await self._find_tool(name, False)
        arguments = dict(parameters or {})
        denial = await self._approve_tool_call(tool, arguments)
        if denial is not None:
            return ToolResult.error(f"Tool call was denied: {denial}", tool.mcp_name)
        connection = self._require_connection()
        progress = self._progress_callback(tool.mcp_name, on_progress)
        meta = self._request_meta()

        async def call(client: Any) -> CallToolResult:
            return await client.call_tool(tool.mcp_name, arguments, progress_callback=progress, meta=meta)

        try:
            result = await connection.request("tools/call", call, self._timeout(timeout))
        except RuntimeError as exc:  # the SDK's output-schema check
            if not str(exc).startswith(_OUTPUT_SCHEMA_ERRORS) and "output schema" not in str(exc):
                raise
            return ToolResult.error(f"Error: the tool's result did not match its output schema: {exc}",
                                    tool.mcp_name)
        return ToolResult.from_sdk(result, tool.mcp_name, max_chars=self.max_result_chars)

    def _progress_callback(self, tool_name: str, on_progress: ProgressHandler | None) -> Any:
        handlers = [*([on_progress] if on_progress else []), *self._progress_handlers]
        if not handlers:
            return None

        async def progress(value: float, total: float | None, message: str | None) -> None:
            for handler in handlers:
                try:
                    await call_handler(handler, value, total, message)
                except Exception:
                    logger.exception("progress handler for %s on %r failed", tool_name, self.name)

        return progress

    def execute_tool(self, name: str, parameters: Mapping[str, Any] | None = None, *, timeout: float | None = None,
                     on_progress: ProgressHandler | None = None) -> ToolResult:
        """Call tool ``name`` with ``parameters``; returns a :class:`ToolResult` (``is_error`` for tool errors).

        Raises ``NotFoundError`` for an unknown name, ``TimeoutError``, ``TransportError`` or
        ``ServerError`` when the call itself fails.
        """
        return run_sync(self._execute(name, parameters, timeout, on_progress))

    async def aexecute_tool(self, name: str, parameters: Mapping[str, Any] | None = None, *,
                            timeout: float | None = None, on_progress: ProgressHandler | None = None) -> ToolResult:
        """Async twin of :meth:`execute_tool`."""
        return await run_async(self._execute(name, parameters, timeout, on_progress))
