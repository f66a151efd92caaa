"""Tasks against real servers: server-everything (2025-11-25 shape) and an SDK server on both eras."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

import mcp_litellm as ml
from tests.servers.task_server import build_server

ERAS = ["auto", "legacy"]  # auto negotiates 2026-07-28 with the SDK server


@pytest.fixture
def everything(everything_js):
    client = ml.client("everything", "stdio", {"command": "node", "args": [str(everything_js)]})
    yield client
    client.stop()


@pytest.fixture
def task_server(request):
    made: list[ml.Client] = []

    def make(protocol: str) -> tuple[ml.Client, Any]:
        server = build_server()
        client = ml.client("tasks", "memory", {"server": server}, protocol=protocol)
        made.append(client)
        return client, server

    yield make
    for client in made:
        client.stop()


# -- server-everything: its task-only tool ------------------------------------------------------------------


def test_everything_task_tool_runs_to_its_result_with_status_as_progress(everything):
    tool = everything.tool("simulate-research-query")
    assert tool.task_support == "required"
    seen: list[tuple[float, float | None, str | None]] = []
    result = tool.execute(topic="bees", on_progress=lambda p, t, m: seen.append((p, t, m)))
    assert isinstance(result, ml.ToolResult) and not result.is_error
    assert "Research Report: bees" in result.text and result.tool_name == "simulate-research-query"
    # the server moves through four 1-s stages and suggests polling every second, so a poll on a loaded
    # machine may miss a stage: what is seen must be those stages, in their order, without going back
    stages = ["Gathering sources...", "Analyzing content...", "Synthesizing findings...", "Generating report..."]
    messages = [m for _, _, m in seen if m != "completed"]
    assert messages and all(m in stages for m in messages), messages
    assert [stages.index(m) for m in messages] == sorted(stages.index(m) for m in messages), messages
    assert [p for p, _, _ in seen] == [float(i) for i in range(1, len(seen) + 1)]  # increasing, as progress must


def test_everything_start_task_handle_refresh_list_result(everything):
    tool = everything.tool("simulate-research-query")
    task = tool.start_task(topic="ants", ttl=120)
    assert isinstance(task, ml.Task) and task.id and task.status == "working" and not task.done
    assert task.ttl is not None and task.ttl > 0  # the server's granted lifetime, in seconds
    assert task.refresh() is task and task.status in ("working", "completed")
    assert task.id in [t.id for t in everything.tasks()]
    result = task.result(timeout=30)
    assert "Research Report: ants" in result.text
    assert task.status == "completed" and task.done and task.result() is result  # kept, not fetched again
    listed = {t.id: t.status for t in everything.tasks()}
    assert listed[task.id] == "completed"


def test_everything_timeout_cancels_the_task(everything):
    tool = everything.tool("simulate-research-query")
    started = time.monotonic()
    # the task takes 4 s (four 1-s stages); 2.5 s leaves room for a slow create on a loaded machine
    with pytest.raises(ml.TimeoutError, match=r"timed out after 2\.5s"):
        tool.execute(topic="slow", timeout=2.5)
    assert time.monotonic() - started < 12
    statuses = [t.status for t in everything.tasks()]
    assert statuses == ["cancelled"]  # the server saw tasks/cancel


def test_everything_cancel_a_running_task(everything):
    task = everything.tool("simulate-research-query").start_task(topic="x")
    assert task.cancel() is task and task.status == "cancelled" and task.done
    assert {t.id: t.status for t in everything.tasks()}[task.id] == "cancelled"


def test_a_forbidden_tool_cannot_run_as_a_task(everything):
    with pytest.raises(ml.ConfigError, match=r"'echo' .* cannot run as a task .*forbidden"):
        everything.tool("echo").start_task(message="hi")
    with pytest.raises(ml.ConfigError, match="cannot run as a task"):
        everything.execute_tool("echo", {"message": "hi"}, task=True)
    with pytest.raises(ml.ConfigError, match="runs only as a task"):
        everything.execute_tool("simulate-research-query", {"topic": "x"}, task=False)
    with pytest.raises(ml.ConfigError, match="ttl must be a positive number"):
        everything.tool("simulate-research-query").start_task(topic="x", ttl=-1)


# -- the SDK server, both eras ------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ERAS)
def test_sdk_task_tool_runs_with_status_as_progress(task_server, protocol):
    client, _ = task_server(protocol)
    assert client.protocol_version == ("2025-11-25" if protocol == "legacy" else "2026-07-28")
    seen: list[tuple[float, str | None, str]] = []
    client.on_progress(lambda p, t, m, name: seen.append((p, m, name)))
    result = client.tool("research").execute(topic="bees", steps=3)
    assert result.text == "research done: bees" and result.structured == {"result": "research done: bees"}
    assert [m for _, m, _ in seen][-4:] == ["step 1 of 3", "step 2 of 3", "step 3 of 3", "done"]
    assert {name for _, _, name in seen} == {"research"}
    assert client.tool("echo").execute(text="plain").text == "plain"  # other tools are untouched


@pytest.mark.parametrize("protocol", ERAS)
def test_sdk_optional_tool(task_server, protocol):
    client, _ = task_server(protocol)
    seen: list[str | None] = []
    result = client.tool("summarize").execute(topic="x", on_progress=lambda p, t, m: seen.append(m))
    if protocol == "legacy":  # not asked for a task: a plain call
        assert result.text == "summary of x" and seen == []
    else:  # 2026-07-28: the server decided to make a task of it
        assert result.text == "summarize done: x" and seen[-1] == "done"


@pytest.mark.parametrize("protocol", ERAS)
def test_sdk_timeout_sends_tasks_cancel(task_server, protocol):
    client, server = task_server(protocol)
    with pytest.raises(ml.TimeoutError):
        client.tool("research").execute(topic="slow", steps=200, delay=0.05, timeout=0.5)
    deadline = time.monotonic() + 5
    while not server.tasks.cancelled and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(server.tasks.cancelled) == 1
    job = server.tasks.jobs[server.tasks.cancelled[0]]
    assert job.status == "cancelled" and job.result is None  # the work stopped


@pytest.mark.parametrize("protocol", ERAS)
def test_sdk_task_handle_sync(task_server, protocol):
    client, server = task_server(protocol)
    task = client.tool("research").start_task(topic="ants", steps=4, ttl=30)
    assert task.id in server.tasks.jobs and task.status == "working" and task.tool_name == "research"
    assert task.ttl == (30.0 if protocol == "legacy" else 60.0)  # legacy: as asked; 2026: the server's choice
    assert task.refresh().status_message is not None
    assert task.result(timeout=10).text == "research done: ants"
    assert task.status == "completed" and task.status_message == "done"
    stopped = client.tool("research").start_task(topic="y", steps=500)
    assert stopped.cancel().status == "cancelled" and server.tasks.cancelled == [stopped.id]
    assert "Task(id=" in repr(stopped) and "research" in repr(stopped)
    assert stopped.id not in repr(stopped), "a task id can act as a bearer token: reprs show only its start"


@pytest.mark.parametrize("protocol", ERAS)
async def test_sdk_task_handle_async(task_server, protocol):
    client, server = task_server(protocol)
    await client.astart()
    tool = await client.atool("research")
    task = await tool.astart_task(topic="async", steps=2)
    assert (await task.arefresh()).id == task.id
    result = await task.aresult(timeout=10)
    assert result.text == "research done: async" and task.done
    other = await tool.astart_task(topic="z", steps=500)
    await other.acancel()
    assert other.status == "cancelled" and server.tasks.cancelled == [other.id]
    with pytest.raises(ml.TimeoutError):  # result(timeout=) gives up waiting and leaves the task alone
        await (await tool.astart_task(topic="w", steps=500)).aresult(timeout=0.3)
    assert len(server.tasks.cancelled) == 1


async def test_sdk_cancelling_the_caller_cancels_the_task(task_server):
    client, server = task_server("legacy")
    await client.astart()
    call = asyncio.ensure_future(client.aexecute_tool("research", {"topic": "c", "steps": 500}))
    await asyncio.sleep(0.4)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    deadline = time.monotonic() + 5
    while not server.tasks.cancelled and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert len(server.tasks.cancelled) == 1


def test_sdk_listing(task_server):
    client, _ = task_server("auto")
    with pytest.raises(ml.ConfigError, match="2026-07-28, where tasks cannot be listed"):
        client.tasks()
    legacy, _ = task_server("legacy")
    with pytest.raises(ml.ConfigError, match="does not offer task listing"):
        legacy.tasks()


def test_a_task_past_its_lifetime_says_so(task_server):
    client, _ = task_server("legacy")
    task = client.tool("research").start_task(topic="t", steps=500, ttl=30)
    task._state.created_at = "2000-01-01T00:00:00Z"  # as if it were made long ago
    with pytest.raises(ml.ConfigError, match="outlived its lifetime"):
        task.result()
    with pytest.raises(ml.ConfigError, match="outlived its lifetime"):
        task.refresh()


@pytest.mark.parametrize("protocol", ERAS)
def test_sdk_ctrl_c_cancels_the_task(task_server, protocol):
    import os
    import signal
    import threading

    client, server = task_server(protocol)
    tool = client.tool("research")
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            tool.execute(topic="interrupted", steps=500, delay=0.05)
    finally:
        timer.cancel()
    deadline = time.monotonic() + 5
    while not server.tasks.cancelled and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(server.tasks.cancelled) == 1
    assert server.tasks.jobs[server.tasks.cancelled[0]].status == "cancelled"


def test_everything_input_required_reaches_the_elicitation_handler(everything_js):
    asked: list[str] = []

    def answer(elicitation: Any) -> dict[str, Any]:
        asked.append(elicitation.message)
        return {"action": "accept", "content": {"interpretation": "snake"}}

    client = ml.client("everything", "stdio", {"command": "node", "args": [str(everything_js)]}, elicitation=answer)
    try:
        seen: list[str | None] = []
        result = client.tool("simulate-research-query").execute(
            topic="python", ambiguous=True, timeout=30, on_progress=lambda p, t, m: seen.append(m))
        assert "Clarification**: snake" in result.text and not result.is_error
        assert len(asked) == 1 and "multiple interpretations" in asked[0]
        assert any("Requesting clarification" in (m or "") for m in seen)
    finally:
        client.stop()


@pytest.mark.parametrize("transport", ["stdio", "streamable"])
@pytest.mark.parametrize("protocol", ERAS)
def test_sdk_tasks_over_real_transports(transport, protocol):
    import sys

    from tests.helpers.servers import ROOT, free_port, start_http_server, stop_process

    script = str(ROOT / "tests/servers/task_server.py")
    process = None
    if transport == "stdio":
        client = ml.client("tasks", "stdio", {"command": sys.executable, "args": [script]}, protocol=protocol)
    else:
        port = free_port()
        process = start_http_server([sys.executable, script, "streamable-http", "--port", str(port)], port)
        client = ml.client("tasks", "streamable", {"url": f"http://127.0.0.1:{port}/mcp"}, protocol=protocol)
    try:
        seen: list[str | None] = []
        result = client.tool("research").execute(topic="wire", steps=2, on_progress=lambda p, t, m: seen.append(m))
        assert result.text == "research done: wire" and seen[-1] == "done"
        task = client.tool("research").start_task(topic="later", steps=500)
        assert task.refresh().status == "working"
        with pytest.raises(ml.TimeoutError):
            client.tool("research").execute(topic="slow", steps=500, timeout=0.5)
        task.cancel()
        time.sleep(0.3)
        cancelled = client.tool("cancelled_tasks").execute().structured
        assert cancelled is not None and len(cancelled["result"]) == 2 and task.id in cancelled["result"]
    finally:
        client.stop()
        if process is not None:
            stop_process(process)


@pytest.mark.parametrize("protocol", ERAS)
def test_sdk_failed_task_and_tool_error(task_server, protocol):
    client, _ = task_server(protocol)
    tool = client.tool("research")
    with pytest.raises(ml.ServerError, match="the job broke"):
        tool.execute(topic="x", steps=1, fail=True)
    task = tool.start_task(topic="x", steps=1, fail=True)
    with pytest.raises(ml.ServerError, match="the job broke"):
        task.result(timeout=10)
    assert task.status == "failed"
    result = tool.execute(topic="x", steps=1, tool_error=True)  # a tool error is a completed task
    assert result.is_error and "bad topic" in result.text


def test_a_tool_argument_called_task_goes_to_the_tool(task_server):
    client, _ = task_server("legacy")
    assign = client.tool("assign")
    assert assign.task_support == "forbidden"
    assert assign.execute({"task": "write docs", "timeout": 3}).text == "assigned write docs (3)"
    with pytest.warns(DeprecationWarning, match="has an argument named 'timeout', 'task'"):
        assert assign.execute(task="write docs", timeout=3).text == "assigned write docs (3)"


def test_a_timeout_during_a_slow_create_still_cancels_the_task_the_server_made(task_server):
    """The caller gave up while the server was still creating the task: once the server answers, the
    task it made is cancelled, not left running. (2025-11-25, where the client asks for a task. On
    2026-07-28 the server turns a plain call into a task, and the SDK drops the answer to a call that
    was cancelled, so a server that ignores the cancellation keeps such a task.)"""
    client, server = task_server("legacy")
    with pytest.raises(ml.TimeoutError):
        client.execute_tool("research", {"topic": "late", "steps": 500, "create_delay": 1.0}, timeout=0.3)
    deadline = time.monotonic() + 10
    while not server.tasks.cancelled and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(server.tasks.jobs) == 1, "this server creates the task even though the call was cancelled"
    assert list(server.tasks.jobs) == server.tasks.cancelled, "the task made after the timeout must be cancelled"
    assert client.execute_tool("echo", {"text": "still fine"}).text == "still fine"
