"""The task side of a client: the :class:`Task` handle, ``start_task`` and ``tasks()``.

The wire shapes of both protocol eras and the polling driver are in ``task_protocol``; running a
task-required tool through ``execute_tool`` is in ``catalog``, which uses the helpers here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcp_types import CallToolResult

from mcp_litellm._client.listing import MAX_PAGES
from mcp_litellm._client.loop import run_async, run_sync
from mcp_litellm._client.task_protocol import (
    TaskState,
    cancel,
    create,
    fetch_result,
    get,
    is_modern,
    list_page,
    wait,
)
from mcp_litellm._client.tool import ToolResult
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.redact import short_token

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client
    from mcp_litellm._client.connection import Connection
    from mcp_litellm._client.tool import Tool


def task_support(sdk_tool: Any) -> str:
    """A listed tool's ``execution.taskSupport`` ("forbidden" when absent, as the specification says)."""
    execution = getattr(sdk_tool, "execution", None)
    support = getattr(execution, "task_support", None)
    return support if support in ("optional", "required") else "forbidden"


def runs_as_task(tool: Tool, asked: bool | None, server: str) -> bool:
    """Whether a call of ``tool`` is sent as a task; ``ConfigError`` for a task the tool does not allow."""
    if asked and tool.task_support == "forbidden":
        raise ConfigError(f"tool {tool.mcp_name!r} of server {server!r} cannot run as a task (its taskSupport is "
                          "'forbidden'); call it without task=True / start_task")
    if asked is False and tool.task_support == "required":
        raise ConfigError(f"tool {tool.mcp_name!r} of server {server!r} runs only as a task (its taskSupport is "
                          "'required'); call it without task=False")
    return tool.task_support == "required" or (bool(asked) and tool.task_support == "optional")


def status_as_progress(progress: Any) -> Any:
    """Report a task's status changes through the call's progress callback: ``(n, None, message)``."""
    if progress is None:
        return None
    seen = 0

    async def report(state: TaskState) -> None:
        nonlocal seen
        seen += 1
        await progress(float(seen), None, state.status_message or state.status)

    return report


class Task:
    """A tool call running as a task on the server: see ``Tool.start_task``.

    Attributes:
        id: the server's task id.
        tool_name: the server's name of the tool.
        status: ``"working"``, ``"input_required"``, ``"completed"``, ``"failed"`` or ``"cancelled"``,
            as last seen (``refresh()`` asks again).
        status_message: the server's message about the status, as last seen, or ``None``.
        ttl: seconds the server keeps the task from its creation (``None``: not limited, or not said).
    """

    def __init__(self, client: Client, tool_name: str, state: TaskState, result: ToolResult | None = None) -> None:
        self.client = client
        self.tool_name = tool_name
        self._state = state
        self._result = result

    @property
    def id(self) -> str:
        """The server's task id."""
        return self._state.task_id

    @property
    def status(self) -> str:
        """The status as last seen."""
        return self._state.status

    @property
    def status_message(self) -> str | None:
        """The status message as last seen."""
        return self._state.status_message

    @property
    def ttl(self) -> float | None:
        """Seconds the server keeps the task from its creation, if it said."""
        return self._state.ttl

    @property
    def done(self) -> bool:
        """True once the task completed, failed or was cancelled (as last seen)."""
        return self._state.done

    def __repr__(self) -> str:
        return f"Task(id={short_token(self.id)!r}, tool={self.tool_name!r}, status={self.status!r})"

    def _check_alive(self) -> None:
        expires = self._state.expires_at()
        if expires is not None and time.time() > expires and self._result is None:
            raise ConfigError(
                f"task {short_token(self.id)!r} of tool {self.tool_name!r} on server {self.client.name!r} has "
                f"outlived its lifetime (ttl {self._state.ttl:g}s): the server may have deleted it and its result; "
                "start a new task, with a longer ttl= if the server allows it")

    async def _refresh(self) -> Task:
        if self._result is not None:
            return self
        self._check_alive()
        connection = await self.client._connected()
        task_id = self.id

        async def call(sdk: Any) -> TaskState:
            return await get(sdk.session, task_id)

        self._state = await connection.request("tasks/get", call, self.client._timeout(None))
        return self

    def refresh(self) -> Task:
        """Ask the server for the task's status now (``tasks/get``); returns the task."""
        return run_sync(self._refresh())

    async def arefresh(self) -> Task:
        """Async twin of :meth:`refresh`."""
        return await run_async(self._refresh())

    async def _wait_result(self, timeout: float | None) -> ToolResult:
        if self._result is not None:
            return self._result
        self._check_alive()
        connection = await self.client._connected()

        async def report(state: TaskState) -> None:
            self._state = state

        async def call(sdk: Any) -> CallToolResult:
            state = await wait(sdk.session, self._state, report)
            self._state = state
            return await fetch_result(sdk.session, state)

        result = await connection.request("tasks/get", call, timeout)
        self._result = ToolResult.from_sdk(result, self.tool_name, max_chars=self.client.max_result_chars)
        return self._result

    def result(self, timeout: float | None = None) -> ToolResult:
        """Wait until the task ends (at most ``timeout`` seconds; ``None``: no limit), then return its
        :class:`ToolResult`. A timeout raises ``ml.RequestTimeoutError`` and leaves the task running (use
        :meth:`cancel`); a failed task raises ``ml.ServerError``."""
        return run_sync(self._wait_result(timeout))

    async def aresult(self, timeout: float | None = None) -> ToolResult:
        """Async twin of :meth:`result`."""
        return await run_async(self._wait_result(timeout))

    async def _cancel(self) -> Task:
        if self.done:
            return self
        connection = await self.client._connected()
        task_id = self.id

        async def call(sdk: Any) -> TaskState | None:
            return await cancel(sdk.session, task_id)

        state = await connection.request("tasks/cancel", call, self.client._timeout(None))
        self._state = state if state is not None else TaskState(task_id, "cancelled", self.status_message,
                                                                 self._state.created_at, self._state.ttl)
        return self

    def cancel(self) -> Task:
        """Ask the server to cancel the task (``tasks/cancel``); a finished task is left as it is."""
        return run_sync(self._cancel())

    async def acancel(self) -> Task:
        """Async twin of :meth:`cancel`."""
        return await run_async(self._cancel())


class TasksMixin:
    """``start_task`` / ``tasks`` of :class:`mcp_litellm.Client` (part of ``CatalogMixin``)."""

    name: str
    max_result_chars: int | None

    if TYPE_CHECKING:  # provided by the client core and CatalogMixin
        async def _connected(self) -> Connection: ...
        def _timeout(self, timeout: float | None) -> float: ...
        async def _approve_tool_call(self, tool: Tool, arguments: dict[str, Any]) -> str | None: ...
        def _request_meta(self) -> dict[str, Any] | None: ...
        async def _resolve_tool(self, name: str | Tool,
                                parameters: Mapping[str, Any] | None) -> tuple[Tool, dict[str, Any]]: ...

    async def _start_task(self, name: str | Tool, parameters: Mapping[str, Any] | None, ttl: float | None,
                          timeout: float | None) -> Task:
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, int | float) or ttl <= 0):
            raise ConfigError(f"ttl must be a positive number of seconds or None, got {ttl!r}")
        tool, arguments = await self._resolve_tool(name, parameters)
        connection = await self._connected()
        if not is_modern(connection.client.session):
            runs_as_task(tool, True, self.name)
        denial = await self._approve_tool_call(tool, arguments)
        if denial is not None:
            state = TaskState(task_id="", status="failed", status_message=f"denied: {denial}")
            return Task(self, tool.mcp_name, state,  # type: ignore[arg-type]
                               ToolResult.error(f"Tool call was denied: {denial}", tool.mcp_name))
        meta = self._request_meta()

        async def call(client: Any) -> TaskState | CallToolResult:
            return await create(client.session, tool.mcp_name, arguments, ttl=ttl, meta=meta, progress=None)

        made = await connection.request("tools/call", call, self._timeout(timeout))
        if isinstance(made, CallToolResult):  # the server ran the call at once
            return Task(self, tool.mcp_name, TaskState(task_id="", status="completed"),  # type: ignore[arg-type]
                              ToolResult.from_sdk(made, tool.mcp_name, max_chars=self.max_result_chars))
        return Task(self, tool.mcp_name, made)  # type: ignore[arg-type]

    def start_task(self, name: str | Tool, parameters: Mapping[str, Any] | None = None, *,
                   ttl: float | None = None, timeout: float | None = None) -> Task:
        """Start tool ``name`` as a task and return its :class:`~mcp_litellm.Task` (see ``Tool.start_task``).

        ``ttl``: seconds the server should keep the task; ``timeout``: seconds for creating it.
        A tool whose ``task_support`` is ``"forbidden"`` raises ``ConfigError``.
        """
        return run_sync(self._start_task(name, parameters, ttl, timeout))

    async def astart_task(self, name: str | Tool, parameters: Mapping[str, Any] | None = None, *,
                          ttl: float | None = None, timeout: float | None = None) -> Task:
        """Async twin of :meth:`start_task`."""
        return await run_async(self._start_task(name, parameters, ttl, timeout))

    async def _list_tasks(self) -> list[Task]:
        connection = await self._connected()

        async def call(client: Any) -> list[TaskState]:
            if is_modern(client.session):
                raise ConfigError(f"server {self.name!r} speaks 2026-07-28, where tasks cannot be listed "
                                  "(the tasks extension has no tasks/list); keep the Task handles you start")
            capabilities = client.server_capabilities.tasks
            if capabilities is None or capabilities.list is None:
                raise ConfigError(f"server {self.name!r} does not offer task listing (no tasks.list capability)")
            found: list[TaskState] = []
            cursor: str | None = None
            for _ in range(MAX_PAGES):
                page, cursor = await list_page(client.session, cursor)
                found += page
                if cursor is None:
                    break
            return found

        states = await connection.request("tasks/list", call, self._timeout(None))
        return [Task(self, "", state) for state in states]  # type: ignore[arg-type]

    def tasks(self) -> list[Task]:
        """The server's tasks (``tasks/list``; 2025-11-25 servers with the ``tasks.list`` capability).

        Their ``tool_name`` is empty: the listing does not say which tool a task runs. Raises
        ``ConfigError`` for a server that cannot list tasks.
        """
        return run_sync(self._list_tasks())

    async def atasks(self) -> list[Task]:
        """Async twin of :meth:`tasks`."""
        return await run_async(self._list_tasks())


__all__ = ["Task", "TasksMixin", "runs_as_task", "status_as_progress", "task_support"]
