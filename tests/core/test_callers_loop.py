"""The default home of a session: the caller's own loop for async code, the background loop for sync code.

A client started from async code runs its session on that loop, so its async calls there cross no
thread (issue 25). Everything the background loop made possible keeps working: blocking calls from
other threads, blocking calls inside a running loop (a notebook cell), one client used from several
loops in turn, a loop that ends while the client is open, and a clean stop at interpreter exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import mcp_litellm as ml
from mcp_litellm._client.session import loop as _loop
from tests.helpers.processes import processes_with, wait_no_processes
from tests.helpers.servers import FIXTURE_SERVER
from tests.servers.fixture_server import build_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def marker() -> str:
    return f"mltest{uuid.uuid4().hex[:10]}"


def _stdio(marker: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(FIXTURE_SERVER), "--name", f"fixture-{marker}"]}


def _owner_tasks(loop: asyncio.AbstractEventLoop, name: str) -> list[asyncio.Task[object]]:
    return [task for task in asyncio.all_tasks(loop) if task.get_name() == f"mcp-litellm:{name}"]


@contextlib.contextmanager
def _counting_hops() -> Iterator[list[int]]:
    """Count the thread hops (``asyncio.run_coroutine_threadsafe`` calls) made inside the block."""
    hops = [0]
    real = asyncio.run_coroutine_threadsafe

    def counting(*args: object) -> object:
        hops[0] += 1
        return real(*args)  # type: ignore[arg-type]

    asyncio.run_coroutine_threadsafe = counting  # type: ignore[assignment]
    try:
        yield hops
    finally:
        asyncio.run_coroutine_threadsafe = real


def test_async_calls_run_on_the_callers_loop_without_use_running_loop(marker: str) -> None:
    async def main() -> tuple[list[str], bool, bool]:
        loop = asyncio.get_running_loop()
        async with ml.client("mine", "stdio", _stdio(marker), start=False) as client:
            owned_here = len(_owner_tasks(loop, "mine")) == 1
            with _counting_hops() as hops:
                results = await asyncio.gather(*(client.aexecute_tool("add", {"a": i, "b": 1}) for i in range(20)))
        return [r.text for r in results], owned_here, hops[0] == 0

    texts, owned_here, no_hop = asyncio.run(main())
    assert owned_here, "the session's owner task should run on the loop that started the client"
    assert no_hop, "an async call on the client's own loop should not cross to another thread"
    assert texts == [str(i + 1) for i in range(20)]
    assert _loop.adopted_loop() is None
    assert wait_no_processes(marker) == []


def test_blocking_calls_from_threads_reach_it_and_on_its_own_thread_raise() -> None:
    async def main() -> tuple[str, list[float], str]:
        async with ml.client("mine", "memory", {"server": build_server()}, start=False) as client:
            with pytest.raises(RuntimeError, match="async twin"):  # at once, not a deadlock
                client.execute_tool("add", {"a": 1, "b": 1})
            with pytest.raises(RuntimeError, match="async twin"):
                client.tools()  # not listed yet: it needs the session
            await client.atools()
            assert client.tool("add").name == "add"  # needs no session once listed: answered here
            with pytest.raises(RuntimeError, match="needed that session"):
                client.execute_tool("add", {"a": 1, "b": 1})
            progress: list[float] = []

            def in_a_thread() -> str:  # progress is delivered on the client's loop, in the call's order
                return client.execute_tool("slow", {"seconds": 0.03, "steps": 3},
                                           on_progress=lambda value, total, message: progress.append(value)).text

            slow = await asyncio.to_thread(in_a_thread)
            echoed = (await client.aexecute_tool("echo", {"message": "still async"})).text
            return slow, progress, echoed

    slow, progress, echoed = asyncio.run(main())
    assert slow == "slept 0.03"
    assert progress == [1, 2, 3]
    assert echoed == "still async"


def test_blocking_work_that_reaches_a_session_on_the_blocked_loop_raises_instead_of_hanging() -> None:
    async def cell() -> None:
        async with ml.client("mine", "memory", {"server": build_server()}, start=False) as client:

            async def not_a_client_method() -> str:  # a chat's or group's work, run on the background loop
                return (await client.aexecute_tool("add", {"a": 1, "b": 1})).text

            with pytest.raises(RuntimeError, match="blocked in a synchronous"):
                _loop.run_sync(not_a_client_method())
            assert (await client.aexecute_tool("add", {"a": 2, "b": 2})).text == "4"  # the loop goes on

    asyncio.run(asyncio.wait_for(cell(), 30))


def test_blocking_calls_inside_a_running_loop_use_the_background_loop() -> None:
    async def notebook_cell() -> tuple[str, bool]:
        client = ml.client("cell", "memory", {"server": build_server()})  # connects on first use
        try:
            text = client.execute_tool("add", {"a": 20, "b": 22}).text  # a blocking call in the cell
            return text, client._session_loop() is _loop.get_loop()
        finally:
            client.stop()

    assert asyncio.run(notebook_cell()) == ("42", True)


def test_one_client_in_turn_on_several_loops_and_left_open_when_a_loop_ends(marker: str) -> None:
    client = ml.client("turns", "stdio", _stdio(marker), start=False)
    try:
        async def with_block() -> str:
            async with client:
                return (await client.aexecute_tool("add", {"a": 1, "b": 1})).text

        assert asyncio.run(with_block()) == "2"  # started and stopped on one loop; the next uses another
        assert wait_no_processes(marker) == []

        async def left_open() -> int:
            await client.astart()
            return int((await client.aexecute_tool("pid", {})).text)

        first = asyncio.run(left_open())
        assert wait_no_processes(marker) == [], "the loop's end should have ended its session's server"
        assert not client.is_alive()

        async def later() -> int:  # reconnects (once, on the background loop) instead of "loop is closed"
            return int((await client.aexecute_tool("pid", {})).text)

        second = asyncio.run(later())
        assert second != first
        assert asyncio.run(later()) == second, "a loop that ends should not take the new session with it"
        assert client.execute_tool("pid", {}).text == str(second)  # and sync calls use the same session
    finally:
        client.stop()
    assert wait_no_processes(marker) == []


def test_a_call_from_another_loop_fails_clearly_when_the_clients_loop_ends() -> None:
    started, release = threading.Event(), threading.Event()
    holder: list[ml.Client] = []

    def home() -> None:
        async def main() -> None:
            holder.append(await ml.client("home", "memory", {"server": build_server()}, start=False).astart())
            started.set()
            await asyncio.get_running_loop().run_in_executor(None, release.wait)

        asyncio.run(main())  # ends with the client still open

    thread = threading.Thread(target=home)
    thread.start()
    assert started.wait(30)
    client = holder[0]

    async def caller() -> str:
        quick = (await client.aexecute_tool("add", {"a": 2, "b": 2})).text  # crosses to the home loop
        call = asyncio.ensure_future(client.aexecute_tool("wait", {"seconds": 30}))
        await asyncio.sleep(0.3)
        release.set()  # the home loop ends during the call
        with pytest.raises(ml.TransportError, match="ended during the call"):
            await asyncio.wait_for(call, 20)
        return quick

    try:
        assert asyncio.run(caller()) == "4"
        thread.join(20)
        assert client.execute_tool("add", {"a": 3, "b": 3}).text == "6"  # reconnected on the background loop
    finally:
        release.set()
        client.stop()


def test_an_idle_loop_serves_blocking_calls_in_its_thread_and_refuses_other_loops() -> None:
    loop = asyncio.new_event_loop()
    try:
        client = loop.run_until_complete(ml.client("idle", "memory", {"server": build_server()}, start=False).astart())
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"  # runs the idle loop for the call

        async def elsewhere() -> None:
            await client.aexecute_tool("add", {"a": 1, "b": 2})

        with pytest.raises(RuntimeError, match="not running"):
            asyncio.run(elsewhere())
        client.stop()
        assert not client.is_alive()
    finally:
        loop.close()


def test_interpreter_exit_stops_every_kind_of_client_cleanly(marker: str) -> None:
    script = textwrap.dedent(f"""
        import asyncio, atexit, sys
        idle = asyncio.new_event_loop()                                 # a loop left idle (closed after ours)
        atexit.register(idle.close)                                     # atexit runs last-registered first
        import mcp_litellm as ml
        config = lambda n: {{"command": sys.executable, "args": [{str(FIXTURE_SERVER)!r}, "--name", "{marker}-" + n]}}
        ml.client("sync", "stdio", config("sync"))                      # on the background loop

        async def left_open():
            await ml.client("ended", "stdio", config("ended"), start=False).astart()
        asyncio.run(left_open())                                        # its loop ends, the client stays open

        idle.run_until_complete(ml.client("idle", "stdio", config("idle"), start=False).astart())

        async def running():
            client = await ml.client("running", "stdio", config("running"), start=False).astart()
            print((await client.aexecute_tool("add", {{"a": 1, "b": 1}})).text, flush=True)
            sys.exit(0)                                                 # exits while its loop is running
        asyncio.run(running())
    """)
    done = subprocess.run([sys.executable, "-W", "default", "-c", script], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"
    noise = [line for line in done.stderr.splitlines() if "Warning" in line or "Traceback" in line
             or "Error" in line or "never awaited" in line]
    assert noise == [], done.stderr
    assert wait_no_processes(marker) == [], "no server process may outlive the interpreter"
    assert processes_with(marker) == []


def test_a_group_started_in_async_code_runs_its_calls_on_the_callers_loop(marker: str) -> None:
    config = {"mcpServers": {"one": _stdio(marker), "two": _stdio(marker)}}

    async def main() -> tuple[bool, bool, list[str], str]:
        loop = asyncio.get_running_loop()
        async with ml.ClientGroup(config) as group:
            owned_here = all(len(_owner_tasks(loop, name)) == 1 for name in ("one", "two"))
            with _counting_hops() as hops:
                names = sorted(tool.name for tool in await group.atools())
                results = await asyncio.gather(*(group.aexecute_tool("one__add", {"a": i, "b": 1}) for i in range(10)))
            # a blocking call from another thread reaches the sessions on this loop
            pid = await asyncio.to_thread(lambda: group.execute_tool("two__pid", {}).text)
        return owned_here, hops[0] == 0, [*names[:1], *(r.text for r in results)], pid

    owned_here, no_hop, texts, pid = asyncio.run(main())
    assert owned_here, "the group's sessions should run on the loop that started it"
    assert no_hop, "a group's async calls on its own loop should not cross to another thread"
    assert texts == ["one__add", *(str(i + 1) for i in range(10))]
    assert pid.isdigit()
    assert wait_no_processes(marker) == []


def test_a_group_left_open_when_its_loop_ends_moves_to_the_background_loop(marker: str) -> None:
    config = {"mcpServers": {"one": _stdio(marker)}}
    holder: list[ml.ClientGroup] = []

    async def left_open() -> int:
        started = await ml.ClientGroup(config).astart()
        holder.append(started)
        return int((await started.aexecute_tool("pid", {})).text)

    first = asyncio.run(left_open())
    assert wait_no_processes(marker) == [], "the loop's end should have ended its sessions' servers"
    group = holder[0]
    try:
        async def later() -> int:
            return int((await group.aexecute_tool("pid", {})).text)

        second = asyncio.run(later())  # reconnects on the background loop, not "loop is closed"
        assert second != first
        assert asyncio.run(later()) == second
        assert group.execute_tool("pid", {}).text == str(second)
    finally:
        group.stop()
    assert wait_no_processes(marker) == []


def test_a_groups_sync_methods_on_its_loops_thread_answer_what_needs_no_session(marker: str) -> None:
    async def main() -> None:
        async with ml.ClientGroup({"mcpServers": {"one": _stdio(marker), "two": _stdio(marker)}}) as group:
            listed = sorted(tool.name for tool in await group.atools())
            assert sorted(tool.name for tool in group.tools()) == listed  # cached: answered on this thread
            assert group.tool("one__add").name == "one__add"
            with pytest.raises(RuntimeError, match="async twin"):
                group.execute_tool("one__add", {"a": 1, "b": 1})  # needs a session on this blocked loop
            assert (await group.aexecute_tool("one__add", {"a": 1, "b": 1})).text == "2"  # the loop goes on

    asyncio.run(asyncio.wait_for(main(), 60))
    assert wait_no_processes(marker) == []


def test_a_blocking_call_in_flight_when_its_clients_loop_ends_fails_with_a_transport_error(marker: str) -> None:
    outcome: list[BaseException | str] = []
    holder: list[ml.Client] = []

    async def main() -> threading.Thread:
        client = await ml.client("ending", "stdio", _stdio(marker), start=False).astart()
        holder.append(client)

        def blocking() -> None:
            try:
                outcome.append(client.execute_tool("wait", {"seconds": 5}).text)
            except BaseException as exc:
                outcome.append(exc)

        thread = threading.Thread(target=blocking)
        thread.start()
        await asyncio.sleep(0.5)  # the call is in flight on this loop, which now ends
        return thread

    thread = asyncio.run(main())
    thread.join(30)
    client = holder[0]
    try:
        [error] = outcome
        assert isinstance(error, ml.TransportError), repr(error)
        assert "ended during the call" in str(error)
        assert client.execute_tool("add", {"a": 1, "b": 1}).text == "2"  # the next call reconnects
    finally:
        client.stop()
    assert wait_no_processes(marker) == []
