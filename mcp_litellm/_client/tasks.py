"""``Tasks``: the task side of a client: ``start_task`` and ``tasks()`` (the :class:`Task` handle is in
``primitives/task``).

The wire shapes of both protocol eras and the polling driver are in ``session/task_protocol``; running a
task-required tool through ``execute_tool`` is in ``catalog``, which uses the helpers here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from mcp_types import CallToolResult

from mcp_litellm._client.listing import MAX_PAGES
from mcp_litellm._client.primitives.task import Task, TaskOwner
from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._client.session.deadline import Deadline
from mcp_litellm._client.session.owner import SessionOwner
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


Resolve: TypeAlias = ("Callable[[str | Tool, Mapping[str, object] | None, Deadline], "
                      "Awaitable[tuple[Tool, dict[str, Any]]]]")
"""The tool a call names and its arguments (the tool catalog's ``resolve``)."""
Approve: TypeAlias = "Callable[[Tool, dict[str, Any], CallContext], Awaitable[str | None]]"
"""The approval of a tool call: the reason for a denial, ``None`` when it may run (the client features')."""


class Tasks:
    """``start_task`` / ``tasks`` of one client.

    Built with what it needs: the client the :class:`Task` handles belong to (``owner``), the session's owner,
    the tool catalog's ``resolve``, the approval of a call, the ``_meta`` stamped on a request and the client's
    ``timeout`` rule.
    """

    def __init__(self, owner: TaskOwner, session: SessionOwner, *, resolve: Resolve, approve: Approve,
                 meta: Callable[[], dict[str, Any] | None], timeout: Callable[[float | None], float]) -> None:
        self._owner = owner
        self._session = session
        self._resolve = resolve
        self._approve = approve
        self._meta = meta
        self._timeout = timeout

    async def start_task(self, name: str | Tool, parameters: Mapping[str, object] | None, ttl: float | None,
                         timeout: float | None) -> Task:
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, int | float) or ttl <= 0):
            raise ConfigError(f"ttl must be a positive number of seconds or None, got {shown_value(ttl)}")
        deadline = Deadline(self._timeout(timeout), "tools/call")  # creating the task, its lookup included
        tool, arguments = await self._resolve(name, parameters, deadline)
        connection = await self._session.connected(deadline)
        if not connection.modern:
            runs_as_task(tool, True, self._owner.name)
        with deadline.paused():
            denial = await self._approve(tool, arguments, CallContext(origin="user", timeout=timeout))
        if denial is not None:
            state = TaskState(task_id="", status="failed", status_message=f"denied: {denial}")
            return Task(self._owner, tool.mcp_name, state,
                        ToolResult.error(f"Tool call was denied: {denial}", tool.mcp_name))
        meta = self._meta()

        async def call(client: mcp.Client) -> TaskState | CallToolResult:
            return await create(client.session, tool.mcp_name, arguments, modern=connection.modern, ttl=ttl, meta=meta,
                                progress=None)

        made = await connection.request("tools/call", call, deadline)
        if isinstance(made, CallToolResult):  # the server ran the call at once
            return Task(self._owner, tool.mcp_name, TaskState(task_id="", status="completed"),
                        ToolResult.from_sdk(made, tool.mcp_name, max_chars=self._owner.max_result_chars,
                                            ui=tool.ui if self._owner.apps else None))
        return Task(self._owner, tool.mcp_name, made)

    async def list_tasks(self) -> list[Task]:
        connection = await self._session.connected()

        async def call(client: mcp.Client) -> list[TaskState]:
            if connection.modern:
                raise ConfigError(f"server {self._owner.name!r} speaks 2026-07-28, where tasks cannot be listed "
                                  "(the tasks extension has no tasks/list); keep the Task handles you start")
            capabilities = client.server_capabilities.tasks
            if capabilities is None or capabilities.list is None:
                raise ConfigError(f"server {self._owner.name!r} does not offer task listing (no tasks.list capability)")
            found: list[TaskState] = []
            cursor: str | None = None
            for _ in range(MAX_PAGES):
                page, cursor = await list_page(client.session, cursor)
                found += page
                if cursor is None:
                    break
            return found

        states = await connection.request("tasks/list", call, self._timeout(None))
        return [Task(self._owner, "", state) for state in states]


__all__ = ["Task", "Tasks", "runs_as_task", "status_as_progress", "task_support"]
