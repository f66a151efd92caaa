"""Servers that die, vanish or never answer: calls fail fast and clearly, and nothing is left running."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest

import mcp_litellm as ml
from tests.helpers.entries import BAD_SERVER, bad_server
from tests.helpers.processes import alive, call_in_thread, wait_dead
from tests.helpers.servers import FIXTURE_SERVER, free_port, start_http_server, stop_process


def processes_running(script: Path) -> list[str]:
    """Command lines of live processes running ``script`` (ours or not, none should survive a test)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or not alive(int(entry.name)):
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(script) in cmdline:
            found.append(f"{entry.name}: {cmdline}")
    return found


def test_server_killed_mid_call_fails_within_a_second_and_restart_recovers(make_client):
    client = make_client("stdio", request_timeout=30)
    pid = int(client.execute_tool("pid").text)
    caller, outcome = call_in_thread(client, "wait", {"seconds": 20})
    time.sleep(0.3)  # the call is in flight on the server
    killed_at = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    caller.join(timeout=5)
    assert not caller.is_alive(), "the pending call hung after the server was killed"
    assert isinstance(outcome.get("error"), ml.TransportError), outcome
    assert outcome["at"] - killed_at < 1.0  # type: ignore[operator]
    assert not client.is_alive()
    assert wait_dead(pid)

    client.restart()
    new_pid = int(client.execute_tool("pid").text)
    assert new_pid != pid
    assert client.execute_tool("add", {"a": 2, "b": 3}).text == "5"
    client.stop()
    assert wait_dead(new_pid), "stop() left the restarted server running"


async def test_server_killed_mid_call_async(make_client):
    client = make_client("stdio", start=False, request_timeout=30)
    await client.astart()
    pid = int((await client.aexecute_tool("pid")).text)
    pending = asyncio.ensure_future(client.aexecute_tool("wait", {"seconds": 20}))
    await asyncio.sleep(0.3)
    os.kill(pid, signal.SIGKILL)
    started = time.monotonic()
    with pytest.raises(ml.TransportError):
        await asyncio.wait_for(pending, 5)
    assert time.monotonic() - started < 1.0
    await client.arestart()
    assert (await client.aexecute_tool("add", {"a": 1, "b": 1})).text == "2"


def test_http_server_killed_mid_call_fails_promptly():
    port = free_port()
    process = start_http_server([sys.executable, str(FIXTURE_SERVER), "streamable-http", "--port", str(port)], port)
    try:
        client = ml.client("http-dies", "streamable", {"url": f"http://127.0.0.1:{port}/mcp"}, request_timeout=15)
        try:
            assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
            caller, outcome = call_in_thread(client, "wait", {"seconds": 20})
            time.sleep(0.5)
            killed_at = time.monotonic()
            process.kill()
            caller.join(timeout=20)
            assert not caller.is_alive()
            assert isinstance(outcome.get("error"), ml.TransportError), outcome
            assert outcome["at"] - killed_at < 1.0  # type: ignore[operator]
        finally:
            client.stop()
    finally:
        stop_process(process)


def test_server_that_never_answers_a_call_times_out_at_the_configured_timeout():
    client = bad_server("mute", request_timeout=0.8)
    try:
        started = time.monotonic()
        with pytest.raises(ml.TimeoutError, match=r"timed out after 0\.8s"):
            client.execute_tool("add", {"a": 1, "b": 2})
        elapsed = time.monotonic() - started
        assert 0.7 < elapsed < 2.0
        # a per-call timeout overrides the client's
        started = time.monotonic()
        with pytest.raises(ml.TimeoutError):
            client.execute_tool("add", {"a": 1, "b": 2}, timeout=0.3)
        assert time.monotonic() - started < 1.5
        assert client.is_alive(), "a timeout is not a dead connection"
    finally:
        client.stop()
    assert processes_running(BAD_SERVER) == []


def test_server_that_never_answers_the_handshake_fails_at_the_timeout_and_is_cleaned_up():
    started = time.monotonic()
    with pytest.raises(ml.TimeoutError, match=r"did not finish connecting within 1\.0s"):
        bad_server("silent", request_timeout=1.0)
    # the failed connect must not also wait out a long shutdown grace period
    assert time.monotonic() - started < 3.0
    deadline = time.monotonic() + 5
    while processes_running(BAD_SERVER) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_running(BAD_SERVER) == []


def test_no_orphans_after_every_kind_of_failure():
    for mode in ("garbage", "invalid", "mute"):
        client = bad_server(mode, request_timeout=0.5)
        with contextlib.suppress(ml.MCPLiteLLMError):
            client.execute_tool("add", {"a": 1, "b": 2})
        client.stop()
    assert processes_running(BAD_SERVER) == []
