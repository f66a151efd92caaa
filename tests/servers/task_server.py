"""An MCP server built with the SDK whose slow tools run as tasks, on both protocol eras.

The SDK (2.3) has the extension API (``mcp.server.extension.Extension``: new request methods and a
``tools/call`` interceptor) but no tasks implementation, so this server adds one on top of it:

- 2025-11-25: ``tools/call`` of a tool listed with ``execution.taskSupport`` answers ``{task: {...}}``;
  ``tasks/get``, ``tasks/result``, ``tasks/list`` and ``tasks/cancel``.
- 2026-07-28 (the ``io.modelcontextprotocol/tasks`` extension): the same call answers a flat task
  (``resultType: "task"``); ``tasks/get`` carries the result once completed; ``tasks/cancel`` is an
  empty acknowledgement.

``TaskServer.cancelled`` records the ids the server was asked to cancel (tests read it over the
``cancelled_tasks`` tool, which works on every transport). ``python tests/servers/task_server.py``
serves it over stdio.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
from datetime import datetime, timezone
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolRequestParams, RequestParams, ToolExecution

TASKS = "io.modelcontextprotocol/tasks"
LEGACY = frozenset({"2025-11-25"})


class _TaskId(RequestParams):
    task_id: str


class _Cursor(RequestParams):
    cursor: str | None = None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


class _Job:
    def __init__(self, task_id: str, ttl_ms: int) -> None:
        self.task_id = task_id
        self.status = "working"
        self.message: str | None = "starting"
        self.created = _now()
        self.updated = self.created
        self.ttl_ms = ttl_ms
        self.result: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.runner: asyncio.Task[None] | None = None

    def set(self, status: str, message: str | None) -> None:
        self.status, self.message, self.updated = status, message, _now()

    def legacy(self) -> dict[str, Any]:
        return {"taskId": self.task_id, "status": self.status, "statusMessage": self.message,
                "createdAt": self.created, "lastUpdatedAt": self.updated, "ttl": self.ttl_ms, "pollInterval": 50}

    def modern(self) -> dict[str, Any]:
        return {"taskId": self.task_id, "status": self.status, "statusMessage": self.message,
                "createdAt": self.created, "lastUpdatedAt": self.updated, "ttlMs": self.ttl_ms,
                "pollIntervalMs": 50}


class ServerTasks(Extension):
    """Runs the tools named in ``task_tools`` as tasks."""

    identifier = TASKS

    def __init__(self, task_tools: dict[str, str]) -> None:
        self.task_tools = task_tools
        self.jobs: dict[str, _Job] = {}
        self.background: set[asyncio.Future[Any]] = set()
        self.cancelled: list[str] = []

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", _TaskId, self._get),
            MethodBinding("tasks/cancel", _TaskId, self._cancel),
            MethodBinding("tasks/result", _TaskId, self._result, protocol_versions=LEGACY),
            MethodBinding("tasks/list", _Cursor, self._list, protocol_versions=LEGACY),
        ]

    def _start(self, name: str, arguments: dict[str, Any], ttl_ms: int) -> _Job:
        job = _Job(secrets.token_hex(16), ttl_ms=ttl_ms)
        self.jobs[job.task_id] = job
        job.runner = asyncio.get_running_loop().create_task(self._run(job, name, arguments))
        return job

    async def _slow_start(self, name: str, arguments: dict[str, Any], ttl_ms: int) -> _Job:
        """``_start`` after ``create_delay`` seconds, even when the client cancels the call meanwhile (as a
        server that ignores cancellation would)."""
        async def start() -> _Job:
            await asyncio.sleep(float(arguments.get("create_delay", 0)))
            return self._start(name, arguments, ttl_ms)

        creating = asyncio.ensure_future(start())
        self.background.add(creating)
        creating.add_done_callback(self.background.discard)
        return await asyncio.shield(creating)

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: Any, call_next: Any) -> Any:
        """2026-07-28: the server decides; every call of a task tool becomes a task."""
        if ctx.protocol_version in LEGACY or params.name not in self.task_tools:
            return await call_next(ctx)
        job = await self._slow_start(params.name, dict(params.arguments or {}), 60_000)
        return {"resultType": "task", **job.modern()}

    async def legacy_middleware(self, ctx: Any, call_next: Any) -> Any:
        """2025-11-25: a ``tools/call`` with ``task: {ttl}`` becomes a task. A middleware, because the SDK
        drops ``params.task`` before handlers see it and checks what they return against ``CallToolResult``."""
        params = ctx.params if isinstance(ctx.params, dict) else {}
        task = params.get("task")
        if (ctx.method != "tools/call" or ctx.protocol_version not in LEGACY or not isinstance(task, dict)
                or params.get("name") not in self.task_tools):
            return await call_next(ctx)
        ttl = min(int(task.get("ttl") or 60_000), 120_000)  # the server grants at most two minutes
        job = await self._slow_start(params["name"], dict(params.get("arguments") or {}), ttl)
        return {"task": job.legacy()}

    async def _run(self, job: _Job, tool: str, arguments: dict[str, Any]) -> None:
        steps = int(arguments.get("steps", 3))
        delay = float(arguments.get("delay", 0.1))
        for step in range(1, steps + 1):
            job.set("working", f"step {step} of {steps}")
            await asyncio.sleep(delay)
        if arguments.get("fail"):  # a JSON-RPC-level failure: status "failed"
            job.error = {"code": -32010, "message": "the job broke"}
            job.set("failed", "the job broke")
            return
        if arguments.get("tool_error"):  # the tool reported an error: still "completed"
            job.result = {"content": [{"type": "text", "text": "bad topic"}], "isError": True}
        else:
            text = f"{tool} done: {arguments.get('topic', '')}"
            job.result = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text},
                          "isError": False}
        job.set("completed", "done")

    def _job(self, task_id: str) -> _Job:
        job = self.jobs.get(task_id)
        if job is None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32602, message=f"unknown task {task_id}")
        return job

    async def _get(self, ctx: Any, params: _TaskId) -> dict[str, Any]:
        job = self._job(params.task_id)
        if ctx.protocol_version in LEGACY:
            return job.legacy()
        answer = {"resultType": "complete", **job.modern()}
        if job.status == "completed" and job.result is not None:
            answer["result"] = {k: v for k, v in job.result.items() if v is not None}
        if job.status == "failed" and job.error is not None:
            answer["error"] = job.error
        return answer

    async def _result(self, ctx: Any, params: _TaskId) -> dict[str, Any]:
        job = self._job(params.task_id)
        if job.runner is not None:
            await asyncio.shield(job.runner)
        if job.error is not None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=job.error["code"], message=job.error["message"])
        assert job.result is not None
        return {k: v for k, v in job.result.items() if v is not None}

    async def _list(self, ctx: Any, params: _Cursor) -> dict[str, Any]:
        return {"tasks": [job.legacy() for job in self.jobs.values()]}

    async def _cancel(self, ctx: Any, params: _TaskId) -> dict[str, Any]:
        job = self._job(params.task_id)
        self.cancelled.append(job.task_id)
        if job.runner is not None and not job.runner.done():
            job.runner.cancel()
        if job.status not in ("completed", "failed", "cancelled"):
            job.set("cancelled", "cancelled by the client")
        return job.legacy() if ctx.protocol_version in LEGACY else {}


class TaskServer(MCPServer):
    """Lists the task tools with ``execution.taskSupport`` (the SDK's tool decorator has no such option)."""

    def __init__(self, tasks: ServerTasks) -> None:
        super().__init__("task-server", extensions=[tasks], middleware=[tasks.legacy_middleware])
        self.tasks = tasks

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        for tool in tools:
            if tool.name in self.tasks.task_tools:
                tool.execution = ToolExecution(task_support=self.tasks.task_tools[tool.name])  # type: ignore[arg-type]
        return tools


def build_server() -> TaskServer:
    server = TaskServer(ServerTasks({"research": "required", "summarize": "optional"}))

    @server.tool()
    def research(topic: str, steps: int = 3, delay: float = 0.1, fail: bool = False, tool_error: bool = False,
                 create_delay: float = 0) -> str:
        """Research a topic (runs as a task)."""
        return f"research done: {topic}"

    @server.tool()
    def summarize(topic: str, steps: int = 1, delay: float = 0.05) -> str:
        """Summarize a topic (may run as a task)."""
        return f"summary of {topic}"

    @server.tool()
    def assign(task: str, timeout: int = 0) -> str:
        """A plain tool whose arguments are called task and timeout."""
        return f"assigned {task} ({timeout})"

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    @server.tool()
    def cancelled_tasks() -> list[str]:
        """The ids of the tasks the server was asked to cancel."""
        return list(server.tasks.cancelled)

    return server


if __name__ == "__main__":
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        build_server().run("stdio")
    else:
        port = int(sys.argv[sys.argv.index("--port") + 1])
        build_server().run(transport, host="127.0.0.1", port=port)  # type: ignore[call-overload]
