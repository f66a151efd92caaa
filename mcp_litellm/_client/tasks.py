"""The task side of a client: ``start_task`` and ``tasks()`` (the :class:`Task` handle is in ``task``).

The wire shapes of both protocol eras and the polling driver are in ``task_protocol``; running a
task-required tool through ``execute_tool`` is in ``catalog``, which uses the helpers here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcp_types import CallToolResult

from mcp_litellm._client.core import ClientCore
from mcp_litellm._client.listing import MAX_PAGES
from mcp_litellm._client.primitives.task import Task
from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._client.session.deadline import Deadline
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._client.session.task_protocol import TaskState, create, list_page
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.redact import shown_value

if TYPE_CHECKING:
    import mcp

    from mcp_litellm._client.primitives.tool import Tool


def task_support(sdk_tool: object) -> str:
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


class TasksMixin(ClientCore):
    """``start_task`` / ``tasks`` of :class:`mcp_litellm.Client` (part of ``CatalogMixin``)."""



    async def _start_task(self, name: str | Tool, parameters: Mapping[str, object] | None, ttl: float | None,
                          timeout: float | None) -> Task:
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, int | float) or ttl <= 0):
            raise ConfigError(f"ttl must be a positive number of seconds or None, got {shown_value(ttl)}")
        deadline = Deadline(self._timeout(timeout), "tools/call")  # creating the task, its lookup included
        tool, arguments = await self._resolve_tool(name, parameters, deadline)
        connection = await self._connected(deadline)
        if not connection.modern:
            runs_as_task(tool, True, self.name)
        with deadline.paused():
            denial = await self._approve_tool_call(tool, arguments, CallContext(origin="user", timeout=timeout))
        if denial is not None:
            state = TaskState(task_id="", status="failed", status_message=f"denied: {denial}")
            return Task(self, tool.mcp_name, state,
                               ToolResult.error(f"Tool call was denied: {denial}", tool.mcp_name))
        meta = self._request_meta()

        async def call(client: mcp.Client) -> TaskState | CallToolResult:
            return await create(client.session, tool.mcp_name, arguments, modern=connection.modern, ttl=ttl, meta=meta,
                                progress=None)

        made = await connection.request("tools/call", call, deadline)
        if isinstance(made, CallToolResult):  # the server ran the call at once
            return Task(self, tool.mcp_name, TaskState(task_id="", status="completed"),
                              ToolResult.from_sdk(made, tool.mcp_name, max_chars=self.max_result_chars,
                                                 ui=tool.ui if getattr(self, "apps", False) else None))
        return Task(self, tool.mcp_name, made)

    def start_task(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                   ttl: float | None = None, timeout: float | None = None) -> Task:
        """Start tool ``name`` as a task and return its :class:`~mcp_litellm.Task` (see ``Tool.start_task``).

        ``ttl``: seconds the server should keep the task; ``timeout``: seconds for creating it.
        A tool whose ``task_support`` is ``"forbidden"`` raises ``ConfigError``.
        """
        return run_sync(self._start_task(name, parameters, ttl, timeout), home=self._session_loop())

    async def astart_task(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                          ttl: float | None = None, timeout: float | None = None) -> Task:
        """Async twin of :meth:`start_task`."""
        return await run_async(self._start_task(name, parameters, ttl, timeout), home=self._session_loop())

    async def _list_tasks(self) -> list[Task]:
        connection = await self._connected()

        async def call(client: mcp.Client) -> list[TaskState]:
            if connection.modern:
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
        return [Task(self, "", state) for state in states]

    def tasks(self) -> list[Task]:
        """The server's tasks (``tasks/list``; 2025-11-25 servers with the ``tasks.list`` capability).

        Their ``tool_name`` is empty: the listing does not say which tool a task runs. Raises
        ``ConfigError`` for a server that cannot list tasks.
        """
        return run_sync(self._list_tasks(), home=self._session_loop())

    async def atasks(self) -> list[Task]:
        """Async twin of :meth:`tasks`."""
        return await run_async(self._list_tasks(), home=self._session_loop())


__all__ = ["Task", "TasksMixin", "runs_as_task", "status_as_progress", "task_support"]
