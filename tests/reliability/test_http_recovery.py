"""HTTP clients that outlive an outage: the server stops, requests fail, the server comes back.

Real servers only: the fixture MCPServer served by uvicorn on 127.0.0.1 in a subprocess, and
server-everything (TypeScript SDK) over streamableHttp, each stopped and started again on the same
port. A lost HTTP connection is reconnected by the next request, one attempt per request, and
``is_alive()`` says False from the failure until a reconnect succeeded.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import mcp_litellm as ml
from tests.helpers.servers import FIXTURE_SERVER, free_port, start_http_server, stop_process

RECONNECTING = "the connection was lost; reconnecting"


class Restartable:
    """A server subprocess that can be stopped and started again on the same port."""

    def __init__(self, command: list[str], port: int, env: dict[str, str] | None = None) -> None:
        self.command, self.port, self.env = command, port, env
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> int:
        self.process = start_http_server(self.command, self.port, self.env)
        return self.process.pid

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)


@contextmanager
def fixture_server(transport: str) -> Iterator[tuple[Restartable, str]]:
    port = free_port()
    kind, path = ("streamable-http", "/mcp") if transport == "streamable" else ("sse", "/sse")
    server = Restartable([sys.executable, str(FIXTURE_SERVER), kind, "--port", str(port)], port)
    server.start()
    try:
        yield server, f"http://127.0.0.1:{port}{path}"
    finally:
        server.stop()


def reconnects(caplog: pytest.LogCaptureFixture) -> int:
    return sum(RECONNECTING in r.getMessage() for r in caplog.records)


def timed(call: Callable[[], object]) -> tuple[object, float]:
    started = time.monotonic()
    try:
        outcome: object = call()
    except ml.MCPLiteLLMError as exc:
        outcome = exc
    return outcome, time.monotonic() - started


@pytest.mark.parametrize(("transport", "protocol"), [("streamable", "legacy"), ("streamable", "auto"),
                                                     ("sse", "legacy")])
def test_requests_during_an_outage_fail_then_the_next_request_reconnects(transport, protocol, caplog):
    caplog.set_level(logging.INFO, logger="mcp_litellm")
    with fixture_server(transport) as (server, url):
        client = ml.client("outage", transport, {"url": url}, protocol=protocol, request_timeout=5)
        try:
            first_pid = int(client.execute_tool("pid").text)
            assert client.is_alive()
            server.stop()
            if transport == "sse":  # its event stream ends with the server: known before any request
                deadline = time.monotonic() + 5
                while client.is_alive() and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert not client.is_alive()

            failed, took = timed(lambda: client.execute_tool("add", {"a": 1, "b": 2}))
            assert isinstance(failed, ml.TransportError), failed
            assert "'outage'" in str(failed) and took < 3
            assert not client.is_alive(), "is_alive() must say False once a request found the server gone"

            # still down: every call tries once more (one attempt, no retry loop) and fails fast
            for attempt in (1, 2):
                before = reconnects(caplog)
                failed, took = timed(lambda: client.execute_tool("add", {"a": 1, "b": 2}))
                assert isinstance(failed, ml.TransportError), failed
                assert "unreachable" in str(failed) and "'outage'" in str(failed), str(failed)
                assert took < 3, f"attempt {attempt} took {took:.1f}s"
                assert reconnects(caplog) - before == 1, "exactly one reconnect attempt per call"
                assert not client.is_alive()

            second_pid = server.start()
            assert not client.is_alive(), "is_alive() does not guess: it stays False until a reconnect"
            assert int(client.execute_tool("pid").text) == second_pid != first_pid
            assert client.is_alive()
            assert any("reconnected" in r.getMessage() for r in caplog.records)
            assert client.execute_tool("add", {"a": 2, "b": 3}).text == "5"
        finally:
            client.stop()


def test_stopping_a_client_whose_server_is_gone_is_quick_and_quiet(caplog):
    with fixture_server("streamable") as (server, url):
        client = ml.client("orphan", "streamable", {"url": url}, protocol="legacy", request_timeout=5)
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        server.stop()
        started = time.monotonic()
        client.stop()
        assert time.monotonic() - started < 3
        assert not client.is_alive()
    # the SDK warns that its closing DELETE failed; the session is gone with the server, nothing to do
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_ping_reconnects_a_lost_http_connection_and_reports_the_truth():
    with fixture_server("streamable") as (server, url):
        client = ml.client("pinged", "streamable", {"url": url}, protocol="legacy", request_timeout=5)
        try:
            assert client.ping()
            server.stop()
            assert client.ping() is False
            assert not client.is_alive()
            assert client.ping() is False, "ping while still down: one reconnect attempt, False, no exception"
            server.start()
            assert client.ping() is True
            assert client.is_alive()
            assert {"add", "pid"} <= {tool.name for tool in client.tools(refresh=True)}
        finally:
            client.stop()


async def test_concurrent_calls_on_a_lost_connection_reconnect_it_once(caplog):
    caplog.set_level(logging.INFO, logger="mcp_litellm")
    with fixture_server("streamable") as (server, url):
        client = ml.client("crowd", "streamable", {"url": url}, protocol="legacy", request_timeout=5, start=False)
        await client.astart()
        try:
            await client.aexecute_tool("pid")
            server.stop()
            with pytest.raises(ml.TransportError):
                await client.aexecute_tool("pid")
            before = reconnects(caplog)
            down = await asyncio.gather(*(client.aexecute_tool("add", {"a": i, "b": 1}) for i in range(6)),
                                        return_exceptions=True)
            assert all(isinstance(outcome, ml.TransportError) for outcome in down), down
            # calls that arrive while an attempt runs share it; one arriving after it failed makes its own
            assert 1 <= reconnects(caplog) - before <= 6
            server.start()
            before = reconnects(caplog)
            results = await asyncio.gather(*(client.aexecute_tool("add", {"a": i, "b": 1}) for i in range(6)))
            assert [r.text for r in results] == [str(i + 1) for i in range(6)]
            assert reconnects(caplog) - before == 1
            assert client.is_alive()
        finally:
            await client.astop()


def test_reconnect_restores_subscriptions_on_the_new_server():
    with fixture_server("streamable") as (server, url):
        client = ml.client("resubscriber", "streamable", {"url": url}, protocol="legacy", request_timeout=5)
        try:
            client.resource("readme").subscribe()
            server.stop()
            with pytest.raises(ml.TransportError):
                client.execute_tool("pid")
            server.start()
            events = client.execute_tool("server_events").structured
            assert events["result"].count("subscribe file:///docs/readme.md") == 1, events
        finally:
            client.stop()


def test_stdio_server_that_died_still_needs_restart(tmp_path: Path):
    # recovery is for HTTP, where a server can come back at the same URL; a dead process cannot
    client = ml.client("mortal", "stdio", {"command": sys.executable, "args": [str(FIXTURE_SERVER)]},
                       request_timeout=5)
    try:
        with pytest.raises(ml.TransportError):
            client.execute_tool("crash")
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("pid")
        assert "restart()" in str(info.value)
        assert not client.is_alive()
        client.restart()
        assert client.is_alive()
    finally:
        client.stop()


# -- server-everything (TypeScript SDK) ---------------------------------------------------------------


@pytest.fixture
def everything_server(everything_js: Path) -> Iterator[tuple[Restartable, str]]:
    port = free_port()
    server = Restartable(["node", str(everything_js), "streamableHttp"], port, env={"PORT": str(port)})
    server.start()
    try:
        yield server, f"http://127.0.0.1:{port}/mcp"
    finally:
        server.stop()


@pytest.mark.thirdparty
def test_server_everything_restarted_between_calls_answers_400_and_gets_a_new_session(everything_server, caplog):
    server, url = everything_server
    client = ml.client("everything", "streamable", {"url": url}, request_timeout=10)
    try:
        assert client.execute_tool("echo", {"message": "before"}).text == "Echo: before"
        server.stop()
        server.start()
        started = time.monotonic()
        assert client.execute_tool("echo", {"message": "after"}).text == "Echo: after"
        assert time.monotonic() - started < 5
        assert client.is_alive()
        assert any("forgot the MCP session (HTTP 400)" in r.getMessage() for r in caplog.records)
        assert "is 5" in client.execute_tool("get-sum", {"a": 2, "b": 3}).text
    finally:
        client.stop()
    # closing the forgotten session (the server answers its DELETE with 400 too) is no warning
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("mcp.")]


@pytest.mark.thirdparty
def test_server_everything_down_then_up_again_reconnects(everything_server):
    server, url = everything_server
    client = ml.client("everything", "streamable", {"url": url}, request_timeout=10)
    try:
        assert client.execute_tool("echo", {"message": "one"}).text == "Echo: one"
        server.stop()
        for _ in range(2):
            with pytest.raises(ml.TransportError) as info:
                client.execute_tool("echo", {"message": "lost"})
            assert "'everything'" in str(info.value)
            assert not client.is_alive()
        server.start()
        assert client.execute_tool("echo", {"message": "two"}).text == "Echo: two"
        assert client.is_alive()
    finally:
        client.stop()
