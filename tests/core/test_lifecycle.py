"""Client lifecycle on real servers: eras, timeouts, crashes, restarts, threads, loops, clean-up."""

from __future__ import annotations

import asyncio
import builtins
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import mcp_litellm as ml
from tests.helpers.servers import FIXTURE_SERVER


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (or is a zombie awaiting its reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process_gone(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("transport", ["stdio", "memory", "streamable"])
@pytest.mark.parametrize(("protocol", "era"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_both_protocol_eras(make_client, transport, protocol, era):
    client = make_client(transport, protocol=protocol)
    assert client.protocol_version == era
    assert client.instructions == "A test server for mcp-litellm."
    assert client.capabilities.tools is not None
    assert client.ping()
    assert client.execute_tool("add", {"a": 5, "b": 6}).text == "11"


def test_timeout_raises_and_cancels_on_server(make_client, transport):
    client = make_client(transport, request_timeout=10)
    started = time.monotonic()
    with pytest.raises(ml.TimeoutError) as info:
        client.execute_tool("wait", {"seconds": 5}, timeout=0.5)
    assert time.monotonic() - started < 3
    assert isinstance(info.value, builtins.TimeoutError)
    assert "timed out" in str(info.value)
    assert client.is_alive() and client.ping()
    deadline = time.monotonic() + 5
    while "wait cancelled" not in (events := client.execute_tool("server_events").text):
        assert time.monotonic() < deadline, f"the server never saw the cancellation: {events!r}"
        time.sleep(0.1)
    assert "wait finished" not in events


def test_request_timeout_applies_per_client(make_client):
    client = make_client("memory", request_timeout=0.3)
    with pytest.raises(ml.TimeoutError):
        client.execute_tool("wait", {"seconds": 3})
    assert client.execute_tool("wait", {"seconds": 0.01}, timeout=5).text == "waited"


def test_crash_fails_pending_calls_promptly_and_restart_recovers(make_client):
    client = make_client("stdio", request_timeout=30)
    first_pid = int(client.execute_tool("pid").text)
    errors: list[BaseException] = []

    def pending_call() -> None:
        try:
            client.execute_tool("wait", {"seconds": 20})
        except BaseException as exc:
            errors.append(exc)

    waiters = [threading.Thread(target=pending_call) for _ in range(3)]
    for waiter in waiters:
        waiter.start()
    time.sleep(0.3)
    started = time.monotonic()
    with pytest.raises(ml.TransportError):
        client.execute_tool("crash")
    for waiter in waiters:
        waiter.join(timeout=5)
    assert time.monotonic() - started < 2, "pending calls must fail at once, not at the timeout"
    assert len(errors) == 3 and all(isinstance(e, ml.TransportError) for e in errors), errors
    assert not client.is_alive()
    assert client.ping() is False
    with pytest.raises(ml.TransportError, match="restart"):
        client.execute_tool("add", {"a": 1, "b": 1})
    assert wait_gone(first_pid)

    client.restart()
    assert client.is_alive()
    assert int(client.execute_tool("pid").text) != first_pid
    assert client.execute_tool("add", {"a": 1, "b": 1}).text == "2"


def test_stop_terminates_wrapper_process_tree(make_client):
    # `sh -c "...; true"` forks the server as a grandchild, as npx/uvx wrappers do.
    wrapper = {"command": "sh", "args": ["-c", f"{sys.executable} {FIXTURE_SERVER}; true"]}
    client = ml.client("wrapped", "stdio", wrapper)
    try:
        server_pid = int(client.execute_tool("pid").text)
        assert not process_gone(server_pid)
    finally:
        client.stop()
    assert wait_gone(server_pid), "the server behind the wrapper outlived stop()"


def test_interpreter_exit_leaves_no_server_process(tmp_path):
    script = tmp_path / "leave_running.py"
    script.write_text(
        "import sys, mcp_litellm as ml\n"
        f"c = ml.client('x', 'stdio', {{'command': sys.executable, 'args': [{str(FIXTURE_SERVER)!r}]}})\n"
        "print(c.execute_tool('pid').text, flush=True)\n"
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True)
    pid = int(out.stdout.strip())
    assert wait_gone(pid), "a client left running at interpreter exit must not leave its server behind"


def test_server_that_exits_at_start_fails_fast():
    started = time.monotonic()
    with pytest.raises(ml.TransportError, match=r"could not connect|handshake"):
        ml.client("dies", "stdio", {"command": sys.executable, "args": ["-c", "import sys; sys.exit(1)"]},
                  request_timeout=20)
    assert time.monotonic() - started < 10


def test_missing_command_is_a_transport_error():
    with pytest.raises(ml.TransportError, match="command not found"):
        ml.client("nothing", "stdio", {"command": "definitely-not-a-command-xyz"})


def test_unreachable_http_server_is_a_transport_error():
    from tests.helpers.servers import free_port

    with pytest.raises(ml.TransportError):
        ml.client("down", "streamable", {"url": f"http://127.0.0.1:{free_port()}/mcp"}, request_timeout=10)


def test_server_stderr_goes_to_logger_not_terminal_with_env_values_masked(caplog, capfd):
    caplog.set_level("INFO", logger="mcp_litellm.server")
    banner = "fixture-banner-4711"  # the fixture prints this env value (a server echoing its environment)
    client = ml.client("noisy", "stdio", {"command": sys.executable, "args": [str(FIXTURE_SERVER)],
                                          "env": {"FIXTURE_BANNER": banner}})
    try:
        deadline = time.monotonic() + 5
        while not any(r.getMessage() == "[noisy] ***" for r in caplog.records):
            assert time.monotonic() < deadline, "the banner line never reached the mcp_litellm.server logger"
            time.sleep(0.05)
        record = next(r for r in caplog.records if r.getMessage() == "[noisy] ***")
        assert record.name == "mcp_litellm.server"
        assert not any(banner in r.getMessage() for r in caplog.records)
    finally:
        client.stop()
    assert banner not in capfd.readouterr().err


def test_many_threads_share_one_client(make_client):
    client = make_client("stdio")
    results: dict[int, list[str]] = {}

    def work(n: int) -> None:
        results[n] = [client.execute_tool("add", {"a": n, "b": i}).text for i in range(20)]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == {n: [str(n + i) for i in range(20)] for n in range(4)}


def test_sync_api_inside_a_running_event_loop(make_client):
    client = make_client("memory")

    async def notebook_cell() -> str:
        # A notebook runs cells inside a loop; the sync API must still work there.
        return client.execute_tool("echo", {"message": "from a cell"}).text

    assert asyncio.run(notebook_cell()) == "from a cell"


def test_async_api_from_several_event_loops(make_client):
    client = make_client("stdio", start=False)
    asyncio.run(client.astart())
    outcomes: list[str] = []

    def other_loop(n: int) -> None:
        async def run() -> str:
            results = await asyncio.gather(*(client.aexecute_tool("add", {"a": n, "b": i}) for i in range(10)))
            return ",".join(r.text for r in results)

        outcomes.append(asyncio.run(run()))

    threads = [threading.Thread(target=other_loop, args=(n,)) for n in (100, 200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == [",".join(str(n + i) for i in range(10)) for n in (100, 200)]

    # closed from yet another loop and task than the one that opened it
    asyncio.run(client.astop())
    assert not client.is_alive()


async def test_close_from_another_task(make_client):
    client = make_client("stdio", start=False)
    await client.astart()
    opener = asyncio.current_task()

    async def closer() -> None:
        assert asyncio.current_task() is not opener
        await client.astop()

    await asyncio.create_task(closer())
    assert not client.is_alive()
    await client.astart()  # and it can be started again
    assert (await client.aexecute_tool("add", {"a": 2, "b": 2})).text == "4"


async def test_cancelling_the_caller_cancels_the_request(make_client):
    client = make_client("memory", start=False)
    await client.astart()
    task = asyncio.create_task(client.aexecute_tool("wait", {"seconds": 10}))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline = time.monotonic() + 5
    while "wait cancelled" not in (await client.aexecute_tool("server_events")).text:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)


def test_context_managers(make_client):
    client = make_client("stdio", start=False)
    assert not client.is_alive()
    with client:
        assert client.is_alive()
        pid = int(client.execute_tool("pid").text)
    assert not client.is_alive()
    assert wait_gone(pid)


def test_calls_before_start_say_how_to_start(make_client):
    client = make_client("memory", start=False)
    with pytest.raises(ml.TransportError, match="start"):
        client.tools()
    with pytest.raises(ml.TransportError, match="start"):
        _ = client.server_info


def test_no_orphans_after_many_clients(make_client):
    pids = []
    for _ in range(3):
        client = make_client("stdio")
        pids.append(int(client.execute_tool("pid").text))
        client.stop()
    assert all(wait_gone(pid) for pid in pids)
    assert os.getpid() not in pids


def test_sync_tools_of_an_in_process_server_reuse_worker_threads():
    """The background loop has a root task, so anyio keeps its worker threads between calls.

    (Without one, every call of a sync tool started and ended a thread: twice the CPU per call.)
    """
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("threads")

    @server.tool(description="The worker thread this call ran on.")
    def where() -> int:
        return threading.get_native_id()

    async def from_a_loop(client: ml.Client) -> set[str]:
        return {(await client.aexecute_tool("where")).text for _ in range(10)}

    client = ml.client("threads", "memory", {"server": server})
    try:
        threads = {client.execute_tool("where").text for _ in range(20)}
        threads |= asyncio.run(from_a_loop(client))
        assert len(threads) <= 2, f"30 sequential calls ran on {len(threads)} different threads"
    finally:
        client.stop()


def test_the_transport_is_inferred_from_the_config_when_not_given(fixture_http):
    from tests.servers.fixture_server import build_server

    configs = {
        "streamable": {"url": fixture_http["streamable-http"]},
        "sse": {"url": fixture_http["sse"]},
        "stdio": {"command": sys.executable, "args": [str(FIXTURE_SERVER)]},
        "memory": {"server": build_server()},
    }
    for expected, config in configs.items():
        client = ml.client(f"inferred-{expected}", config=config)
        try:
            assert client.transport_type == expected
            assert client.execute_tool("add", {"a": 2, "b": 3}).text == "5"
        finally:
            client.stop()
    with pytest.raises(ml.ConfigError, match="command"):
        ml.client("nothing", config={})  # nothing to infer from: stdio, which needs a command
