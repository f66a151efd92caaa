"""Issue 37 (1): one dropped HTTP answer no longer throws the MCP session away.

Real servers with sessions and no event store (so a cut answer cannot be resumed): the SDK's
``MCPServer`` (tests/servers/session_server.py) and one written with the TypeScript SDK
(tests/servers/session_server.mjs), each behind a TCP relay on 127.0.0.1 (tests/relay.py) that reads
one answer whole from the server and then forwards only its start before closing both sockets.

- The cut call fails, saying the server could not resume its answer and that it may have run; the next
  call uses the same ``Mcp-Session-Id`` (seen on the relay and by the server) and the session's state.
- Only a server that forgot the session (HTTP 404 after a restart) gets a new one, and ``on_session_lost``
  is told.
- A read-only or idempotent tool whose answer was cut is run once more (logged, and on the call's span);
  any other tool never is (the server's own counter shows it ran once); ``retry_idempotent=False`` turns
  the retry off.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from opentelemetry.trace import SpanKind

import mcp_litellm as ml
from tests.helpers.servers import ROOT, free_port, start_http_server, stop_process
from tests.helpers.spans import Spans
from tests.relay import CuttingRelay

SERVERS = Path(__file__).resolve().parent.parent / "servers"
TYPESCRIPT_SDK = ROOT / "tests/thirdparty/node_modules/@modelcontextprotocol/sdk/package.json"


@dataclass
class Served:
    """A session server subprocess behind a cutting relay; ``restart()`` starts a fresh process (no sessions)
    on the same port, as a server restarted by its operator."""

    command: list[str]
    port: int
    relay: CuttingRelay
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = start_http_server(self.command, self.port)

    def restart(self) -> None:
        assert self.process is not None
        stop_process(self.process)
        self.start()

    def stats(self, client: ml.Client) -> dict[str, int]:
        counts: dict[str, int] = json.loads(client.execute_tool("stats").text)
        return counts


def _command(kind: str, port: int) -> list[str]:
    if kind == "python":
        return [sys.executable, str(SERVERS / "session_server.py"), "streamable-http", "--port", str(port)]
    if not TYPESCRIPT_SDK.exists():
        pytest.fail(f"the TypeScript SDK is not installed at {TYPESCRIPT_SDK.parent}; "
                    "run: npm ci --prefix tests/thirdparty")
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH")
    return [node, str(SERVERS / "session_server.mjs"), str(port)]


@pytest.fixture(params=["python", pytest.param("typescript", marks=pytest.mark.thirdparty)])
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    with CuttingRelay() as relay:  # listening first: the server's free port cannot be the relay's
        relay.upstream = port = free_port()
        server = Served(_command(request.param, port), port, relay)
        server.start()
        try:
            yield server
        finally:
            if server.process is not None:
                stop_process(server.process)


def _client(served: Served, **options: object) -> ml.Client:
    # the 2025 handshake era: a 2026-07-28 connection has no MCP session (the Python server would speak it)
    return ml.client("sessions", "streamable", {"url": served.relay.url()}, protocol="legacy", request_timeout=20,
                     **options)


def _new_sessions(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if "reconnecting" in r.getMessage() or "re-initialising" in r.getMessage()]


# -- the session is kept ------------------------------------------------------------------------------


def test_a_cut_answer_fails_its_call_and_the_next_call_keeps_the_session(served, caplog):
    caplog.set_level(logging.INFO, logger="mcp_litellm")
    with _client(served) as client:
        session = client.execute_tool("whoami").text
        assert session and session != "(no session)"
        client.execute_tool("remember", {"value": "the page I opened"})
        served.relay.cut("bump")
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("bump")
        message = str(info.value)
        assert "'sessions'" in message and "could not resume it" in message, message
        assert "may or may not have run on the server" in message and "session is kept" in message
        assert info.value.http_status is None
        assert client.is_alive()

        assert client.execute_tool("whoami").text == session, "the server saw another session"
        assert client.execute_tool("recall").text == "the page I opened", "the session's state was lost"
        assert set(served.relay.sessions()) == {session}, "a call named another Mcp-Session-Id"
        assert [s.rpc_method for s in served.relay.seen].count("initialize") == 1
        assert served.stats(client)["bump"] == 1, "a tool without hints must not be retried"
        assert len(served.relay.calls("bump")) == 1
    assert not _new_sessions(caplog), _new_sessions(caplog)


async def test_a_cut_answer_among_concurrent_calls_fails_only_its_own(served, caplog):
    # eight calls in flight on one session, one of them cut: the other seven answer, on the same session
    caplog.set_level(logging.INFO, logger="mcp_litellm")
    async with ml.client("sessions", "streamable", {"url": served.relay.url()}, protocol="legacy",
                         request_timeout=20, start=False) as client:
        session = (await client.aexecute_tool("whoami")).text
        await client.aexecute_tool("remember", {"value": "kept"})
        served.relay.cut("bump")
        calls = [client.aexecute_tool("bump")] + [client.aexecute_tool(name) for name in ("whoami", "recall") * 2]
        calls += [client.aexecute_tool("put", {"key": f"k{i}", "value": "v"}) for i in range(3)]
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert isinstance(results[0], ml.TransportError) and "could not resume it" in str(results[0])
        answers = [r.text for r in results[1:] if not isinstance(r, BaseException)]
        assert answers == [session, "kept", session, "kept", "stored", "stored", "stored"], results
        assert set(served.relay.sessions()) == {session}
        assert json.loads((await client.aexecute_tool("stats")).text)["bump"] == 1
    assert not _new_sessions(caplog), _new_sessions(caplog)


def test_a_connection_dropped_before_the_answer_started_fails_its_call_and_keeps_the_session(served, caplog):
    # before the fix the SDK's transport died of it ("Server disconnected without sending a response")
    caplog.set_level(logging.INFO, logger="mcp_litellm")
    with _client(served) as client:
        session = client.execute_tool("whoami").text
        served.relay.cut("bump", nothing=True)
        with pytest.raises(ml.TransportError, match="could not resume it") as info:
            client.execute_tool("bump")
        assert "RemoteProtocolError" in str(info.value)
        assert client.is_alive() and client.execute_tool("whoami").text == session
        assert served.stats(client)["bump"] == 1
    assert not _new_sessions(caplog), _new_sessions(caplog)


def test_a_cut_json_answer_on_a_2026_session_fails_its_call_and_the_session_goes_on(caplog):
    # protocol="auto" against MCPServer: 2026-07-28, whose answers are JSON bodies; before the fix the SDK's
    # transport died of the cut body (RemoteProtocolError out of its POST task) and took the session along
    caplog.set_level(logging.INFO, logger="mcp_litellm")
    with CuttingRelay() as relay:
        relay.upstream = port = free_port()
        process = start_http_server(_command("python", port), port)
        try:
            with ml.client("modern", "streamable", {"url": relay.url()}, protocol="auto", request_timeout=20) as client:
                assert client.protocol_version == "2026-07-28"
                relay.cut("bump")
                with pytest.raises(ml.TransportError, match="could not resume it") as info:
                    client.execute_tool("bump")
                assert "RemoteProtocolError" in str(info.value)
                assert client.is_alive()
                assert client.execute_tool("recall").text == "(nothing)"
                assert json.loads(client.execute_tool("stats").text)["bump"] == 1
                assert [s.rpc_method for s in relay.seen].count("server/discover") == 1, "a new connection was made"
        finally:
            stop_process(process)
    assert not _new_sessions(caplog), _new_sessions(caplog)


def test_a_forgotten_session_starts_a_new_one_and_on_session_lost_is_told(served, caplog):
    told: list[tuple[str, str]] = []
    heard = threading.Event()

    def session_lost(server: str, reason: str) -> None:
        told.append((server, reason))
        heard.set()

    with _client(served, on_session_lost=session_lost) as client:
        session = client.execute_tool("whoami").text
        client.execute_tool("remember", {"value": "state"})
        served.restart()  # the new process knows no session: it answers the old id with 404
        assert client.execute_tool("whoami").text != session
        assert heard.wait(10), "on_session_lost was not called"
        assert told == [("sessions", "the server forgot the MCP session (HTTP 404)")]
        assert client.execute_tool("recall").text == "(nothing)"
    assert any("forgot the MCP session (HTTP 404)" in r.getMessage() and "may be gone" in r.getMessage()
               and r.levelno == logging.WARNING for r in caplog.records)


def test_on_session_lost_reaches_every_client_of_a_group(served):
    told: list[str] = []
    heard = threading.Event()

    async def session_lost(server: str, reason: str) -> None:
        told.append(server)
        heard.set()

    config = {"mcpServers": {"sessions": {"url": served.relay.url(), "protocol": "legacy"}}}
    with ml.ClientGroup(config, on_session_lost=session_lost) as group:
        group.execute_tool("whoami")
        served.restart()
        group.execute_tool("whoami")
        assert heard.wait(10) and told == ["sessions"]


def test_on_session_lost_is_told_once_for_a_lost_connection_however_many_reconnects_fail(served):
    told: list[str] = []
    heard = threading.Event()

    def session_lost(server: str, reason: str) -> None:
        told.append(reason)
        heard.set()

    direct = f"http://127.0.0.1:{served.port}/mcp"  # no relay: the server itself goes away
    with ml.client("sessions", "streamable", {"url": direct}, protocol="legacy", request_timeout=20,
                   on_session_lost=session_lost) as client:
        client.execute_tool("whoami")
        assert served.process is not None
        stop_process(served.process)
        for _ in range(3):  # the first fails on the lost connection, each later one tries to reconnect once
            with pytest.raises(ml.TransportError):
                client.execute_tool("bump")
        served.start()
        assert client.execute_tool("bump").text == "1"
        assert client.is_alive()
    assert heard.wait(10) and told == ["the connection was lost"]


# -- one retry of read-only and idempotent tools ----------------------------------------------------


@pytest.mark.parametrize(("tool", "arguments", "kind"), [("peek", {}, "read-only"),
                                                          ("put", {"key": "k", "value": "v"}, "idempotent")])
def test_a_read_only_or_idempotent_tool_whose_answer_was_cut_is_retried_once(served, caplog, tool, arguments, kind):
    with _client(served) as client:
        session = client.execute_tool("whoami").text
        served.relay.cut(tool)
        result = client.execute_tool(tool, arguments)
        assert not result.is_error and result.text in ("peeked 2", "stored"), result.text
        calls = served.relay.calls(tool)
        assert [c.cut for c in calls] == [True, False]
        assert {c.session for c in calls} == {session}, "the retry must use the same session"
        assert served.stats(client)[tool] == 2
    retried = [r for r in caplog.records if "retrying" in r.getMessage()]
    assert len(retried) == 1 and retried[0].levelno == logging.WARNING
    assert f"the {kind} tool {tool!r}" in retried[0].getMessage() and "'sessions'" in retried[0].getMessage()


def test_a_read_only_call_cut_as_the_server_restarts_is_retried_on_a_new_session(served):
    told = threading.Event()
    with _client(served, on_session_lost=lambda server, reason: told.set()) as client:
        session = client.execute_tool("whoami").text
        served.relay.cut("peek", before=served.restart)  # the server restarts while the answer is in flight
        assert client.execute_tool("peek").text == "peeked 1"  # the new process ran it once
        calls = served.relay.calls("peek")
        assert len(calls) == 3 and calls[0].session == calls[1].session == session != calls[2].session
        assert told.wait(10)


def test_a_tool_without_hints_whose_answer_was_cut_is_not_retried(served, caplog):
    with _client(served) as client:
        served.relay.cut("bump")
        with pytest.raises(ml.TransportError, match="may or may not have run"):
            client.execute_tool("bump")
        assert served.stats(client)["bump"] == 1
        assert len(served.relay.calls("bump")) == 1
    assert not [r for r in caplog.records if "retrying" in r.getMessage()]


@pytest.mark.parametrize("how", ["client", "config"])
def test_retry_idempotent_false_turns_the_retry_off(served, caplog, how):
    if how == "client":
        runner: ml.Client | ml.ClientGroup = _client(served, retry_idempotent=False)
    else:
        runner = ml.ClientGroup({"mcpServers": {"sessions": {"url": served.relay.url(), "protocol": "legacy",
                                                          "retryIdempotent": False}}})
    with runner:
        served.relay.cut("peek")
        with pytest.raises(ml.TransportError, match="could not resume it"):
            runner.execute_tool("peek")
        assert json.loads(runner.execute_tool("stats").text)["peek"] == 1
    assert not [r for r in caplog.records if "retrying" in r.getMessage()]


def test_the_retry_is_recorded_on_the_calls_span(spans: Spans):
    with CuttingRelay() as relay:
        relay.upstream = port = free_port()
        process = start_http_server(_command("python", port), port)
        try:
            with ml.client("sessions", "streamable", {"url": relay.url()}, protocol="legacy",
                           request_timeout=20) as client:
                relay.cut("peek")
                assert client.execute_tool("peek").text == "peeked 2"
        finally:
            stop_process(process)
    span = spans.one("tools/call peek", SpanKind.CLIENT)
    assert span.attributes is not None and span.attributes["mcp_litellm.tool.retries"] == 1
    events = [event for event in span.events if event.name == "mcp_litellm.retry"]
    assert len(events) == 1 and events[0].attributes is not None
    assert events[0].attributes["mcp_litellm.retry.reason"] == "answer_lost"
    assert "error.type" not in span.attributes, "the call succeeded on its retry"


def test_retry_idempotent_must_be_true_or_false():
    with pytest.raises(ml.ConfigError, match="retry_idempotent must be True or False, got 'no'"):
        ml.client("x", "streamable", {"url": "http://127.0.0.1:9/mcp"}, retry_idempotent="no", start=False)
    with pytest.raises(ml.ConfigError, match="server 'x', key 'retryIdempotent': must be true or false"):
        ml.load_config({"mcpServers": {"x": {"url": "http://127.0.0.1:9/mcp", "retryIdempotent": "no"}}})
    loaded = ml.load_config({"mcpServers": {"x": {"url": "http://127.0.0.1:9/mcp", "retry_idempotent": False}}})
    assert loaded["x"].client().retry_idempotent is False
