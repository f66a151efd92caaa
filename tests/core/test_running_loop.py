"""``ml.use_running_loop()``: sessions owned by the program's own event loop instead of the background one."""

from __future__ import annotations

import asyncio
import sys
import uuid

import pytest

import mcp_litellm as ml
from mcp_litellm._client import loop as _loop
from tests.conftest import FIXTURE_SERVER
from tests.group.conftest import processes_with, wait_no_processes
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
