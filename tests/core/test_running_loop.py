"""``ml.use_running_loop()``: sessions owned by the program's own event loop instead of the background one."""

from __future__ import annotations

import asyncio
import sys
import uuid

import pytest

import mcp_litellm as ml
from mcp_litellm._client.session import loop as _loop
from tests.helpers.processes import processes_with, wait_no_processes
from tests.helpers.servers import FIXTURE_SERVER
from tests.servers.fixture_server import build_server


def _stdio(marker: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(FIXTURE_SERVER), "--name", f"fixture-{marker}"]}


def _owner_tasks(loop: asyncio.AbstractEventLoop, name: str) -> list[asyncio.Task[object]]:
    return [task for task in asyncio.all_tasks(loop) if task.get_name() == f"mcp-litellm:{name}"]


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_sessions_run_on_the_callers_loop(transport: str) -> None:
    marker = f"mltest{uuid.uuid4().hex[:10]}"
    config = {"server": build_server()} if transport == "memory" else _stdio(marker)

    async def main() -> tuple[list[str], bool, bool]:
        ml.use_running_loop()
        ml.use_running_loop()  # a second call from the same loop changes nothing
        loop = asyncio.get_running_loop()
        async with ml.client("mine", transport, config, start=False) as client:
            owned_here = len(_owner_tasks(loop, "mine")) == 1
            results = await asyncio.gather(*(client.aexecute_tool("add", {"a": i, "b": 1}) for i in range(30)))
            texts = [r.text for r in results]
            tools = [t.name for t in await client.atools()]
        return texts, owned_here, "add" in tools

    texts, owned_here, listed = asyncio.run(main())
    assert owned_here, "the session's owner task should run on the loop that called use_running_loop()"
    assert texts == [str(i + 1) for i in range(30)]
    assert listed
    assert _loop.adopted_loop() is None  # the loop closed, so it no longer owns anything


def test_blocking_calls_raise_on_the_loop_thread_and_work_from_other_threads() -> None:
    async def main() -> tuple[str, str]:
        ml.use_running_loop()
        client = await ml.client("mine", "memory", {"server": build_server()}, start=False).astart()
        try:
            with pytest.raises(RuntimeError, match="async twin"):
                client.execute_tool("add", {"a": 1, "b": 1})
            with pytest.raises(RuntimeError, match="async twin"):
                client.tools()
            # a worker thread may block: its call runs on this loop while the loop keeps running
            from_thread = await asyncio.to_thread(client.execute_tool, "echo", {"message": "from a thread"})
            still_async = await client.aexecute_tool("echo", {"message": "still async"})
            return from_thread.text, still_async.text
        finally:
            await client.astop()

    assert asyncio.run(main()) == ("from a thread", "still async")


def test_closing_the_loop_ends_its_sessions_and_the_background_loop_takes_over() -> None:
    marker = f"mltest{uuid.uuid4().hex[:10]}"
    client = ml.client("left-open", "stdio", _stdio(marker), start=False)

    async def main() -> str:
        ml.use_running_loop()
        await client.astart()
        assert processes_with(marker), "the stdio server should be running"
        return (await client.aexecute_tool("add", {"a": 2, "b": 3})).text

    try:
        assert asyncio.run(main()) == "5"  # the client is left running when the loop closes
        assert wait_no_processes(marker) == [], "closing the loop should terminate the server process"
        assert not client.is_alive()
        # blocking use after the loop closed goes to the background loop again
        client.restart()
        assert client.execute_tool("add", {"a": 4, "b": 4}).text == "8"
        assert _loop.get_loop() is not None and _loop.adopted_loop() is None
    finally:
        client.stop()
    assert wait_no_processes(marker) == []


def test_refused_while_clients_run_on_the_background_loop() -> None:
    with ml.client("background", "memory", {"server": build_server()}) as client:

        async def main() -> None:
            ml.use_running_loop()

        with pytest.raises(ml.ConfigError, match="background"):
            asyncio.run(main())
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"  # still served where it was


def test_refused_outside_async_code() -> None:
    with pytest.raises(ml.ConfigError, match="from async code"):
        ml.use_running_loop()


def test_refused_while_another_open_loop_owns_the_sessions() -> None:
    first = asyncio.new_event_loop()
    try:

        async def adopt() -> None:
            ml.use_running_loop()

        first.run_until_complete(adopt())

        async def second() -> None:
            ml.use_running_loop()

        with pytest.raises(ml.ConfigError, match="already called"):
            asyncio.run(second())
        # blocking calls while the adopted loop is idle fail fast instead of hanging
        with pytest.raises(RuntimeError, match="not running"):
            ml.client("idle", "memory", {"server": build_server()})
    finally:
        first.close()
    assert _loop.adopted_loop() is None


def _slow_stdio(marker: str, delay: float) -> dict[str, object]:
    """The fixture server behind a shell that waits ``delay`` seconds first: a slow first start."""
    command = f"sleep {delay}; exec {sys.executable} {FIXTURE_SERVER} --name fixture-{marker}"
    return {"command": "sh", "args": ["-c", command, marker]}


def test_a_client_made_inside_a_running_loop_connects_on_first_use_without_blocking_it() -> None:
    marker = f"mltest{uuid.uuid4().hex[:10]}"

    async def main() -> tuple[list[int], bool, str, int, int, list[str]]:
        ticks = 0

        async def heartbeat() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        beating = asyncio.create_task(heartbeat())
        client = ml.client("slow", config=_slow_stdio(marker, 1.0))  # start defaults to True
        spawned_by_constructor = processes_with(marker)
        alive_before = client.is_alive()
        with pytest.raises(ml.TransportError) as not_yet:
            _ = client.capabilities
        before_first_call = ticks
        # two first calls at once share one connect: one server process
        tools, echoed = await asyncio.gather(client.atools(), client.aexecute_tool("echo", {"message": "hi"}))
        during_connect = ticks - before_first_call
        servers = processes_with(marker)
        beating.cancel()
        await client.astop()
        return (spawned_by_constructor, alive_before, str(not_yet.value), during_connect, len(servers),
                [t.name for t in tools] + [echoed.text])

    spawned, alive_before, not_yet, during_connect, servers, seen = asyncio.run(main())
    assert spawned == [] and not alive_before, "the constructor must not connect inside a running loop"
    assert "first call" in not_yet and "async with" in not_yet
    assert during_connect >= 20, f"the loop should keep running during the 1 s connect, ran {during_connect} ticks"
    assert servers == 1, "concurrent first calls should share one connect"
    assert "add" in seen and seen[-1] == "hi"
    assert wait_no_processes(marker) == []


def test_a_client_made_inside_a_running_loop_works_with_async_with_and_sync_calls_from_threads() -> None:
    async def main() -> tuple[bool, bool, str]:
        client = ml.client("deferred", config={"server": build_server()})
        deferred = not client.is_alive()
        async with client:
            alive = client.is_alive()
        # a worker thread's blocking call connects too (the client was stopped: it does not reconnect by itself)
        again = ml.client("deferred-2", config={"server": build_server()})
        text = await asyncio.to_thread(lambda: again.execute_tool("echo", {"message": "thread"}).text)
        await again.astop()
        return deferred, alive, text

    deferred, alive, text = asyncio.run(main())
    assert deferred and alive and text == "thread"


def test_ping_as_the_first_call_connects_a_deferred_client() -> None:
    async def main() -> tuple[str, bool, bool, str]:
        client = ml.client("pinged", config={"server": build_server()})
        before = repr(client)
        answered = await client.aping()
        alive = client.is_alive()
        await client.astop()
        return before, answered, alive, repr(client)

    before, answered, alive, after = asyncio.run(main())
    assert "not connected yet" in before and answered and alive and "stopped" in after


def test_outside_a_loop_the_constructor_still_connects() -> None:
    client = ml.client("eager", config={"server": build_server()})
    try:
        assert client.is_alive()
        assert client.protocol_version
    finally:
        client.stop()
