"""The :class:`Task` handle: a tool call running as a task on the server (``Tool.start_task``).

The wire shapes of both protocol eras and the polling driver are in ``task_protocol``; ``start_task`` and
``tasks()`` of the client are in ``tasks``.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Protocol

from mcp_types import CallToolResult

from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._client.session.task_protocol import TaskState, cancel, fetch_result, get, wait
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.redact import short_token

if TYPE_CHECKING:
    from mcp_litellm._client.session.connection import Connection


class TaskOwner(Protocol):
    """What a :class:`Task` needs of the client that started it (a :class:`~mcp_litellm.Client` is one)."""

    def _session_loop(self) -> asyncio.AbstractEventLoop | None: ...

    @property
    def name(self) -> str: ...
    @property
    def max_result_chars(self) -> int | None: ...
    @property
    def apps(self) -> bool: ...

    async def _connected(self) -> Connection: ...
    def _timeout(self, timeout: float | None) -> float: ...


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

    def __init__(self, client: TaskOwner, tool_name: str, state: TaskState, result: ToolResult | None = None) -> None:
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
        return run_sync(self._refresh(), home=self.client._session_loop())

    async def arefresh(self) -> Task:
        """Async twin of :meth:`refresh`."""
        return await run_async(self._refresh(), home=self.client._session_loop())

    async def _wait_result(self, timeout: float | None) -> ToolResult:
        if self._result is not None:
            return self._result
        self._check_alive()
        connection = await self.client._connected()

        async def report(state: TaskState) -> None:
            self._state = state

        async def call(sdk: Any) -> CallToolResult:
            state = await wait(sdk.session, self._state, report, modern=connection.modern)
            self._state = state
            return await fetch_result(sdk.session, state, modern=connection.modern)

        result = await connection.request("tasks/get", call, timeout)
        self._result = ToolResult.from_sdk(result, self.tool_name, max_chars=self.client.max_result_chars)
        return self._result

    def result(self, timeout: float | None = None) -> ToolResult:
        """Wait until the task ends (at most ``timeout`` seconds; ``None``: no limit), then return its
        :class:`ToolResult`. A timeout raises ``ml.RequestTimeoutError`` and leaves the task running (use
        :meth:`cancel`); a failed task raises ``ml.ServerError``."""
        return run_sync(self._wait_result(timeout), home=self.client._session_loop())

    async def aresult(self, timeout: float | None = None) -> ToolResult:
        """Async twin of :meth:`result`."""
        return await run_async(self._wait_result(timeout), home=self.client._session_loop())

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
        return run_sync(self._cancel(), home=self.client._session_loop())

    async def acancel(self) -> Task:
        """Async twin of :meth:`cancel`."""
        return await run_async(self._cancel(), home=self.client._session_loop())


__all__ = ["Task", "TaskOwner"]
