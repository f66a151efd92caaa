"""Tasks: tool calls the server runs in the background, polled until they finish.

Two wire shapes are spoken:

- 2025-11-25 (tasks in the core protocol): the client asks for a task by adding ``task: {ttl}`` to
  ``tools/call``; the server answers ``{task: {...}}``; ``tasks/get`` polls, ``tasks/result`` fetches
  the tool's result, ``tasks/list`` lists and ``tasks/cancel`` cancels.
- 2026-07-28 (the ``io.modelcontextprotocol/tasks`` extension, SEP-2663): the client declares the
  extension and the server decides; a task comes back as a flat result with ``resultType: "task"``;
  ``tasks/get`` polls and carries the tool's result once completed (no ``tasks/result``, no
  ``tasks/list``); ``tasks/cancel`` is a bare acknowledgement.

The functions here take the SDK's ``ClientSession`` and run inside ``Connection.request`` (which
applies timeouts and translates errors); ``tasks.py`` has the public handle and the client methods.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal

import anyio
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, RequestParams, Result
from mcp_types import Request as _Request

from mcp_litellm._core.errors import ServerError
from mcp_litellm._core.redact import short_token
from mcp_litellm._core.sdk_compat import send_raw_request

if TYPE_CHECKING:
    from mcp.client.session import ClientSession


logger = logging.getLogger("mcp_litellm")

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = frozenset({"completed", "failed", "cancelled"})
DEFAULT_POLL = 1.0
"""Seconds between polls when the server suggests no interval."""
MIN_POLL, MAX_POLL = 0.05, 30.0
CANCEL_GRACE = 5.0
"""Seconds a ``tasks/cancel`` sent after a timeout or cancellation may take."""

StatusCallback = Callable[["TaskState"], Awaitable[None]]


# -- wire models --------------------------------------------------------------------------------------


class _TaskIdParams(RequestParams):
    task_id: str


class _GetTask(_Request[_TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: _TaskIdParams
    name_param = "taskId"


class _TaskResult(_Request[_TaskIdParams, Literal["tasks/result"]]):
    method: Literal["tasks/result"] = "tasks/result"
    params: _TaskIdParams
    name_param = "taskId"


class _CancelTask(_Request[_TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: _TaskIdParams
    name_param = "taskId"


class _ListParams(RequestParams):
    cursor: str | None = None


class _ListTasks(_Request[_ListParams, Literal["tasks/list"]]):
    method: Literal["tasks/list"] = "tasks/list"
    params: _ListParams


class CreatedTask(Result):
    """A ``tools/call`` answered with a task handle (2026-07-28 extension shape)."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str = "working"
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


# -- state ----------------------------------------------------------------------------------------------


@dataclass
class TaskState:
    """One snapshot of a task, whichever wire shape it came in."""

    task_id: str
    status: str
    status_message: str | None = None
    created_at: str | None = None
    ttl: float | None = None
    """Seconds the server keeps the task from its creation (``None``: unlimited or not said)."""
    poll_interval: float | None = None
    result: dict[str, Any] | None = None
    """The tool's result, when the server put it in the snapshot (2026-07-28, completed)."""
    error: dict[str, Any] | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> TaskState:
        """From a ``Task`` object (2025-11-25) or a flat task result (2026-07-28)."""
        if isinstance(raw.get("task"), Mapping):
            raw = raw["task"]
        task_id = raw.get("taskId")
        status = raw.get("status")
        if not isinstance(task_id, str) or not isinstance(status, str):
            raise ServerError(-32603, f"the server sent a malformed task (no taskId or status): {dict(raw)!r:.300}",
                              method="tasks/get")
        ttl_ms = raw.get("ttlMs", raw.get("ttl"))
        poll_ms = raw.get("pollIntervalMs", raw.get("pollInterval"))
        result = raw.get("result")
        error = raw.get("error")
        message = raw.get("statusMessage")
        return cls(task_id=task_id, status=status, status_message=message if isinstance(message, str) else None,
                   created_at=raw.get("createdAt") if isinstance(raw.get("createdAt"), str) else None,
                   ttl=ttl_ms / 1000 if isinstance(ttl_ms, int | float) else None,
                   poll_interval=poll_ms / 1000 if isinstance(poll_ms, int | float) else None,
                   result=dict(result) if isinstance(result, Mapping) else None,
                   error=dict(error) if isinstance(error, Mapping) else None)

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    def wait_time(self) -> float:
        interval = self.poll_interval if self.poll_interval is not None else DEFAULT_POLL
        return min(max(interval, MIN_POLL), MAX_POLL)

    def expires_at(self) -> float | None:
        """Wall-clock time (``time.time()``) after which the server may forget the task, if known."""
        if self.ttl is None or self.created_at is None:
            return None
        try:
            created = datetime.fromisoformat(self.created_at.replace("Z", "+00:00"))
        except ValueError:
            return None
        if created.tzinfo is None:
            created = created.replace(tzinfo=timezone.utc)
        return created.timestamp() + self.ttl


# -- requests -----------------------------------------------------------------------------------------


async def _send(session: ClientSession, request: Any) -> dict[str, Any]:
    from pydantic import TypeAdapter

    result: dict[str, Any] = await session.send_request(request, TypeAdapter(dict[str, Any]))  # type: ignore[type-var]
    return result


_late_cancels: set[asyncio.Future[None]] = set()  # cancels of tasks created after their caller gave up


async def create(session: ClientSession, name: str, arguments: dict[str, object], *, modern: bool, ttl: float | None,
                 meta: dict[str, object] | None, progress: Any) -> TaskState | CallToolResult:
    """Call tool ``name`` as a task; the server's task, or the tool's result if it ran the call at once.

    If the caller gives up (a timeout, a cancellation) while the server is still creating the task, the
    create goes on in the background for up to ``CANCEL_GRACE`` seconds, and a task it made is cancelled:
    a server that does not stop on ``notifications/cancelled`` would otherwise run it for nobody.
    """
    creating = asyncio.ensure_future(_create(session, name, arguments, modern=modern, ttl=ttl, meta=meta,
                                             progress=progress))
    try:
        return await asyncio.shield(creating)
    except asyncio.CancelledError:
        cleanup = asyncio.ensure_future(_cancel_when_made(session, creating))
        _late_cancels.add(cleanup)
        cleanup.add_done_callback(_late_cancels.discard)
        raise


async def _cancel_when_made(session: ClientSession, creating: asyncio.Future[TaskState | CallToolResult]) -> None:
    try:
        with anyio.fail_after(CANCEL_GRACE):
            made = await creating
    except BaseException:  # the create failed or never answered: there is no task to cancel
        if not creating.done():
            creating.cancel()
        return
    if isinstance(made, TaskState) and not made.done:
        logger.debug("cancelling task %r: it was created after its call had been given up", short_token(made.task_id))
        await cancel_quietly(session, made.task_id)


async def _create(session: ClientSession, name: str, arguments: dict[str, object], *, modern: bool, ttl: float | None,
                  meta: dict[str, object] | None, progress: Any) -> TaskState | CallToolResult:
    if modern:
        answer = await session.call_tool(name, arguments, progress_callback=progress, meta=meta,  # type: ignore[arg-type]
                                         allow_claimed=True)
        if isinstance(answer, CreatedTask):
            return TaskState.parse(answer.model_dump(by_alias=True, mode="json"))
        if isinstance(answer, CallToolResult):
            return answer
        raise ServerError(-32603, f"tools/call returned an unexpected {type(answer).__name__}", method="tools/call")
    params: dict[str, object] = {"name": name, "arguments": arguments,
                              "task": {} if ttl is None else {"ttl": int(ttl * 1000)}}
    if meta:
        params["_meta"] = meta
    raw = await _send_raw(session, "tools/call", params, progress)
    if isinstance(raw.get("task"), Mapping):
        return TaskState.parse(raw)
    return CallToolResult.model_validate(raw, by_alias=True)


async def _send_raw(session: ClientSession, method: str, params: dict[str, object], progress: Any) -> dict[str, Any]:
    """Send a request whose result the SDK would validate as the wrong type (a task-augmented ``tools/call``).

    The SDK checks a ``tools/call`` answer against ``CallToolResult`` and has no public way to send
    one that may be answered with a task; this goes one level below ``send_request``.
    """
    return await send_raw_request(session, method, params, progress)


async def get(session: ClientSession, task_id: str) -> TaskState:
    """``tasks/get``."""
    return TaskState.parse(await _send(session, _GetTask(params=_TaskIdParams(task_id=task_id))))


async def cancel(session: ClientSession, task_id: str) -> TaskState | None:
    """``tasks/cancel``: the task as the server left it (2025-11-25), or ``None`` (a bare acknowledgement)."""
    raw = await _send(session, _CancelTask(params=_TaskIdParams(task_id=task_id)))
    return TaskState.parse(raw) if "taskId" in raw or "task" in raw else None


async def list_page(session: ClientSession, cursor: str | None) -> tuple[list[TaskState], str | None]:
    """One page of ``tasks/list`` (2025-11-25 servers that offer listing)."""
    raw = await _send(session, _ListTasks(params=_ListParams(cursor=cursor)))
    tasks = raw.get("tasks")
    if not isinstance(tasks, list):
        raise ServerError(-32603, "tasks/list returned no 'tasks' list", method="tasks/list")
    next_cursor = raw.get("nextCursor")
    return [TaskState.parse(t) for t in tasks if isinstance(t, Mapping)], next_cursor if next_cursor else None


async def fetch_result(session: ClientSession, state: TaskState, *, modern: bool) -> CallToolResult:
    """The tool's result of a finished task (``tasks/result``, or what ``tasks/get`` carried on a ``modern``
    (2026-era, ``Connection.modern``) session)."""
    if modern:
        if state.result is None:
            state = await get(session, state.task_id)
        if state.result is not None:
            return CallToolResult.model_validate(state.result, by_alias=True)
        if state.error is not None:
            code = state.error.get("code")
            raise ServerError(code if isinstance(code, int) else -32603,
                              str(state.error.get("message") or f"task {short_token(state.task_id)!r} failed"),
                              state.error.get("data"), method="tasks/get")
        raise ServerError(-32603, f"task {short_token(state.task_id)!r} ended {state.status} without a result",
                          method="tasks/get")
    raw = await _send(session, _TaskResult(params=_TaskIdParams(task_id=state.task_id)))
    raw.pop("_meta", None)
    return CallToolResult.model_validate(raw, by_alias=True)


async def wait(session: ClientSession, state: TaskState, report: StatusCallback | None, *,
               modern: bool) -> TaskState:
    """Poll ``tasks/get`` at the server's interval until the task ends; ``report`` sees every change."""
    last = state.status_message or state.status
    while not state.done:
        if state.status == "input_required":
            if not modern:
                return state  # tasks/result lets the server ask (elicitation, sampling) and then answers
            raise ServerError(-32603, f"task {short_token(state.task_id)!r} needs input from the client "
                              "(tasks/update), which mcp-litellm does not support yet on 2026-07-28",
                              method="tasks/get")
        await asyncio.sleep(state.wait_time())
        state = await get(session, state.task_id)
        said = state.status_message or state.status
        if report is not None and said != last:
            await report(state)
        last = said
    return state


async def cancel_quietly(session: ClientSession, task_id: str) -> None:
    """Send ``tasks/cancel`` after a timeout or cancellation, shielded and bounded; failures are logged."""
    async def send() -> None:
        try:
            with anyio.fail_after(CANCEL_GRACE):
                await cancel(session, task_id)
        except Exception as exc:  # the call is already failing: say why the task may linger, and go on
            logger.warning("could not cancel task %r: %s", short_token(task_id), exc)

    sending = asyncio.ensure_future(send())
    # Shielded both ways: from a native cancellation (asyncio.timeout, 3.11+) and from an anyio cancel scope
    # (anyio.fail_after, 3.10), which would otherwise cancel every await here at once, leaving the task running
    # until the cancel happened to go out.
    with anyio.CancelScope(shield=True):
        await asyncio.shield(sending)


async def run(session: ClientSession, state: TaskState, report: StatusCallback | None, *,
              modern: bool) -> CallToolResult:
    """Wait for a task and fetch its result; a timeout or cancellation cancels the task on the server."""
    try:
        state = await wait(session, state, report, modern=modern)
    except BaseException:
        if not state.done:
            await cancel_quietly(session, state.task_id)
        raise
    return await fetch_result(session, state, modern=modern)


class TasksExtension(ClientExtension):
    """Declares the tasks extension (2026-07-28) and finishes task results of plain tool calls.

    A client's sessions share its one extension. A server may make a task of any ``tools/call``; the SDK
    then hands the task to :meth:`_resolve_claimed` in the task that made the call, so each call says,
    around its request (:meth:`reporting`), where status changes of such a task go: explicit state of
    this object, keyed by the asyncio task that awaits the call.
    """

    identifier = TASKS_EXTENSION

    def __init__(self) -> None:
        super().__init__()
        self._reporters: dict[asyncio.Task[object], StatusCallback] = {}

    @contextmanager
    def reporting(self, report: StatusCallback | None) -> Iterator[None]:
        """While the current asyncio task makes a tool call: report a claimed task's status to ``report``."""
        task = asyncio.current_task()
        if report is None or task is None:
            yield
            return
        self._reporters[task] = report
        try:
            yield
        finally:
            self._reporters.pop(task, None)

    async def _resolve_claimed(self, created: CreatedTask, context: ClaimContext) -> CallToolResult:
        """A 2026-07-28 server made a task of a plain ``tools/call``: finish it like any task."""
        state = TaskState.parse(created.model_dump(by_alias=True, mode="json"))
        task = asyncio.current_task()
        report = self._reporters.get(task) if task is not None else None
        if report is not None:
            await report(state)
        return await run(context.session, state, report, modern=True)  # claims exist on 2026-era sessions only

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self._resolve_claimed)]


__all__ = ["TASKS_EXTENSION", "CreatedTask", "StatusCallback", "TaskState", "TasksExtension"]
