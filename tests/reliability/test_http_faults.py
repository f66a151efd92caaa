"""HTTP servers that forget sessions or cut a response stream in the middle.

The server is the real fixture MCPServer (streamable HTTP or legacy SSE app) served by uvicorn on
127.0.0.1 in a thread, behind a small ASGI middleware that can make it forget sessions (through the
protocol's own DELETE, so the server really drops them and answers 404 afterwards) and close a
response stream that is still being written.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest

import mcp_litellm as ml
from tests.helpers.servers import FIXTURE_SERVER, UvicornThread, free_port, start_http_server, stop_process
from tests.servers.fixture_server import build_server

Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]


class FaultyHTTP:
    """ASGI middleware around a real MCP server app.

    - ``forget_sessions()``: the sessions handed out so far are deleted on the server as soon as a
      request names one of them, so that request (and every later one) gets the server's own 404.
    - ``forget_new_sessions``: the same for every session, right after the server created it.
    - ``forget_with``: answer requests naming a forgotten session with this ``(status, json body)``
      instead, as TypeScript-SDK servers do after a restart (400, ``"No valid session ID provided"``).
    - ``answer_initialize_with``: answer each ``initialize`` POST with this HTTP status.
    - ``answer_calls_with``: answer each ``tools/call`` POST with this HTTP status and
      ``answer_calls_body`` (plain text; JSON when it starts with ``{``).
    - ``cut`` (an event): close every streaming response in flight (a ``tools/call`` POST, or the
      legacy SSE stream) without finishing it; ``cut_mode`` ``"end"`` ends the body cleanly,
      ``"abort"`` drops the connection.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sessions: list[str] = []
        self.initializes = 0
        self.forget_new_sessions = False
        self.forget_with: tuple[int, bytes] | None = None
        self.answer_calls_with: int | None = None
        self.answer_initialize_with: int | None = None
        self.answer_calls_body = b"no"
        self.calls_answered = 0
        self.cut = threading.Event()
        self.cut_mode = "end"
        self._doomed: set[str] = set()
        self._deleted: set[str] = set()
        self._lock: anyio.Lock | None = None

    def forget_sessions(self) -> None:
        self._doomed.update(self.sessions)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = b""
        if scope["method"] == "POST":
            more = True
            while more:
                message = await receive()
                body += message.get("body", b"")
                more = message.get("more_body", False)
            receive = _replay(body, receive)
        rpc = _json(body)
        if isinstance(rpc, dict) and rpc.get("method") == "initialize":
            self.initializes += 1
            if self.answer_initialize_with is not None:
                await _answer(send, self.answer_initialize_with, b"no")
                return
        session = dict(scope["headers"]).get(b"mcp-session-id", b"").decode()
        if session and (session in self._doomed or self.forget_new_sessions) and session not in self._deleted:
            if self.forget_with is not None:
                status, payload = self.forget_with
                await _answer(send, status, payload)
                return
            await self._delete(scope, session)

        async def recording_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                for key, value in message.get("headers", []):
                    if key.lower() == b"mcp-session-id":
                        self.sessions.append(value.decode())
            await send(message)

        if self.answer_calls_with is not None and isinstance(rpc, dict) and rpc.get("method") == "tools/call":
            self.calls_answered += 1
            await _answer(send, self.answer_calls_with, self.answer_calls_body)
            return
        streaming = (scope["method"] == "GET" and scope["path"].endswith("/sse")) or (
            isinstance(rpc, dict) and rpc.get("method") == "tools/call")
        if streaming:
            await self._cuttable(scope, receive, recording_send)
        else:
            await self.app(scope, receive, recording_send)

    async def _delete(self, scope: Scope, session: str) -> None:
        """Terminate ``session`` on the server with an MCP DELETE, as a client ending it would."""
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            if session in self._deleted:
                return
            self._deleted.add(session)
            headers = [(k, v) for k, v in scope["headers"] if k.lower() not in (b"content-length", b"content-type")]
            status: list[int] = []

            async def no_body() -> dict[str, Any]:
                return {"type": "http.request", "body": b"", "more_body": False}

            async def keep_status(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    status.append(int(message["status"]))

            await self.app({**scope, "method": "DELETE", "headers": headers}, no_body, keep_status)
            assert status == [200], f"the server refused to delete session {session}: {status}"

    async def _cuttable(self, scope: Scope, receive: Receive, send: Send) -> None:
        lock = anyio.Lock()
        state = {"started": False, "closed": False}
        aborted = False

        async def guarded_send(message: dict[str, Any]) -> None:
            async with lock:
                if state["closed"]:
                    return
                state["started"] = state["started"] or message["type"] == "http.response.start"
                await send(message)

        async with anyio.create_task_group() as group:

            async def watch() -> None:
                nonlocal aborted
                while not self.cut.is_set():
                    await anyio.sleep(0.02)
                async with lock:
                    state["closed"] = True
                    if self.cut_mode == "abort" and state["started"]:
                        aborted = True
                    else:
                        if not state["started"]:
                            await send({"type": "http.response.start", "status": 200,
                                        "headers": [(b"content-type", b"text/event-stream")]})
                        await send({"type": "http.response.body", "body": b"", "more_body": False})
                group.cancel_scope.cancel()

            group.start_soon(watch)
            await self.app(scope, receive, guarded_send)
            group.cancel_scope.cancel()
        if aborted:
            raise ConnectionAbortedError("test server dropped the connection mid-response")


async def _answer(send: Send, status: int, body: bytes) -> None:
    kind = b"application/json" if body.startswith(b"{") else b"text/plain"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _json(body: bytes) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return None


@contextmanager
def serve(transport: str) -> Iterator[tuple[str, FaultyHTTP]]:
    """The fixture MCPServer over ``transport`` ("streamable" or "sse") behind FaultyHTTP, in a thread."""
    server = build_server()
    app = server.streamable_http_app() if transport == "streamable" else server.sse_app()
    faulty = FaultyHTTP(app)
    with UvicornThread(faulty, timeout_graceful_shutdown=1) as server:
        yield f"{server.url}{'/mcp' if transport == 'streamable' else '/sse'}", faulty


@pytest.fixture
def faulty_streamable() -> Iterator[tuple[str, FaultyHTTP]]:
    with serve("streamable") as served:
        yield served


# -- sessions that expire ---------------------------------------------------------------------------


def test_expired_session_is_reinitialised_once_and_the_call_succeeds(faulty_streamable, caplog):
    url, faulty = faulty_streamable
    client = ml.client("expiring", "streamable", {"url": url}, protocol="legacy", request_timeout=5)
    try:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        first_session = faulty.sessions[-1]
        assert faulty.initializes == 1
        faulty.forget_sessions()
        started = time.monotonic()
        assert client.execute_tool("add", {"a": 2, "b": 3}).text == "5"
        assert time.monotonic() - started < 3
        assert faulty.initializes == 2, "expected exactly one re-initialisation"
        assert faulty.sessions[-1] != first_session
        assert client.is_alive()
        assert any("forgot the MCP session" in r.getMessage() and r.levelno == logging.WARNING
                   for r in caplog.records)
        # later expiries are handled the same way: it is "right away" that fails, not "ever again"
        assert client.execute_tool("echo", {"message": "still here"}).text == "still here"
        faulty.forget_sessions()
        assert {"add", "echo", "slow"} <= {t.name for t in client.tools(refresh=True)}
        assert faulty.initializes == 3
        assert client.ping()
    finally:
        client.stop()


def test_session_forgotten_again_right_away_fails_clearly(faulty_streamable):
    url, faulty = faulty_streamable
    client = ml.client("amnesiac", "streamable", {"url": url}, protocol="legacy", request_timeout=5)
    try:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        faulty.forget_new_sessions = True
        faulty.forget_sessions()
        started = time.monotonic()
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("add", {"a": 1, "b": 2})
        assert time.monotonic() - started < 3
        message = str(info.value)
        assert "'amnesiac'" in message and "again" in message and "404" in message
        assert info.value.http_status == 404
        assert faulty.initializes == 2, "re-initialise once, not in a loop"
        assert not client.is_alive()
        faulty.forget_new_sessions = False
        client.restart()
        assert client.execute_tool("add", {"a": 4, "b": 4}).text == "8"
    finally:
        client.stop()


async def test_concurrent_calls_on_an_expired_session_share_one_reinitialisation(faulty_streamable):
    url, faulty = faulty_streamable
    client = ml.client("busy", "streamable", {"url": url}, protocol="legacy", request_timeout=5, start=False)
    await client.astart()
    try:
        await client.atools()
        faulty.forget_sessions()
        results = await asyncio.gather(*(client.aexecute_tool("add", {"a": i, "b": 1}) for i in range(8)))
        assert [r.text for r in results] == [str(i + 1) for i in range(8)]
        assert faulty.initializes == 2
    finally:
        await client.astop()


def test_expired_session_restores_subscriptions(faulty_streamable):
    url, faulty = faulty_streamable
    client = ml.client("subscriber", "streamable", {"url": url}, protocol="legacy", request_timeout=5)
    try:
        updated = threading.Event()
        client.on_resource_updated(lambda uri: updated.set())
        client.resource("readme").subscribe()
        faulty.forget_sessions()
        assert client.execute_tool("touch", {"uri": "file:///docs/readme.md"}).text.startswith("touched")
        assert faulty.initializes == 2
        events = client.execute_tool("server_events").structured
        assert events["result"].count("subscribe file:///docs/readme.md") == 2, events
        assert updated.wait(3), "no update arrived on the new session"
    finally:
        client.stop()


# -- sessions forgotten the TypeScript way: HTTP 400 ---------------------------------------------------

# What server-everything (TypeScript SDK) answers a session it does not know: 400, a JSON-RPC error
# without an id (so the SDK cannot parse it and makes up a generic error).
NO_VALID_SESSION = b'{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}'


@pytest.mark.parametrize("body", [NO_VALID_SESSION, b"Invalid or expired session", b""],
                         ids=["typescript-json", "plain-text", "empty"])
def test_session_forgotten_with_http_400_is_reinitialised_once_and_the_call_succeeds(faulty_streamable, body,
                                                                                    caplog):
    url, faulty = faulty_streamable
    faulty.forget_with = (400, body)
    client = ml.client("ts-like", "streamable", {"url": url}, protocol="legacy", request_timeout=5)
    try:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        faulty.forget_sessions()
        started = time.monotonic()
        assert client.execute_tool("add", {"a": 2, "b": 3}).text == "5"
        assert time.monotonic() - started < 3
        assert faulty.initializes == 2, "expected exactly one re-initialisation"
        assert client.is_alive()
        assert any("forgot the MCP session (HTTP 400)" in r.getMessage() for r in caplog.records)
        assert client.execute_tool("echo", {"message": "again"}).text == "again"
        assert faulty.initializes == 2
    finally:
        client.stop()


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
@pytest.mark.parametrize(("body", "error"), [
    (b"Bad Request: unsupported protocol version", ml.TransportError),
    (b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: unsupported protocol version"}}',
     ml.ServerError),
], ids=["plain-text", "json-rpc"])
def test_http_400_about_something_else_is_a_rejected_request_not_an_expired_session(faulty_streamable, protocol,
                                                                                    body, error):
    url, faulty = faulty_streamable
    client = ml.client("strict400", "streamable", {"url": url}, protocol=protocol, request_timeout=5)
    try:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        initializes = faulty.initializes
        faulty.answer_calls_with, faulty.answer_calls_body = 400, body
        with pytest.raises(error) as info:
            client.execute_tool("add", {"a": 1, "b": 2})
        assert "unsupported protocol version" in str(info.value) or isinstance(info.value, ml.TransportError)
        if isinstance(info.value, ml.TransportError):
            assert info.value.http_status == 400 and "'strict400'" in str(info.value)
        assert faulty.initializes == initializes, "a 400 that is not about the session must not re-initialise"
        assert faulty.calls_answered == 1
        assert client.is_alive()
        faulty.answer_calls_with = None
        assert client.execute_tool("add", {"a": 2, "b": 2}).text == "4"
    finally:
        client.stop()


def test_bare_http_400_that_persists_on_a_new_session_is_reported_and_keeps_the_client(faulty_streamable):
    # no text to go by: counted as a forgotten session once; the same 400 on the brand-new session
    # shows it was the request, so the call fails with HTTP 400 and the client stays connected
    url, faulty = faulty_streamable
    client = ml.client("bare400", "streamable", {"url": url}, protocol="legacy", request_timeout=5)
    try:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        faulty.answer_calls_with, faulty.answer_calls_body = 400, b""
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("add", {"a": 1, "b": 2})
        assert info.value.http_status == 400
        assert "'bare400'" in str(info.value) and "HTTP 400" in str(info.value)
        assert "again right after" not in str(info.value)
        assert faulty.initializes == 2 and faulty.calls_answered == 2, "one re-initialisation, one retry"
        assert client.is_alive()
        faulty.answer_calls_with = None
        assert client.execute_tool("add", {"a": 2, "b": 2}).text == "4"
        assert faulty.initializes == 2
    finally:
        client.stop()


def test_a_400_body_that_echoes_credentials_does_not_leak_them_into_the_error(faulty_streamable):
    url, faulty = faulty_streamable
    secret = "s3cr3t-token-9f8e7d"
    client = ml.client("echoing", "streamable", {"url": url, "headers": {"Authorization": f"Bearer {secret}"}},
                       protocol="legacy", request_timeout=5)
    try:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        faulty.answer_calls_with = 400
        faulty.answer_calls_body = f"session rejected for Authorization: Bearer {secret}".encode()
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("add", {"a": 1, "b": 2})
        assert info.value.http_status == 400 and "session rejected" in str(info.value)
        assert secret not in str(info.value)
        assert client.is_alive()
    finally:
        client.stop()


def test_request_without_a_session_answered_400_is_not_taken_for_an_expired_session(faulty_streamable):
    # protocol 2026-07-28 sends no mcp-session-id: a 400 there can only be about the request
    url, faulty = faulty_streamable
    client = ml.client("sessionless", "streamable", {"url": url}, protocol="auto", request_timeout=5)
    try:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        initializes = faulty.initializes
        faulty.answer_calls_with, faulty.answer_calls_body = 400, b"Invalid or expired session"
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("add", {"a": 1, "b": 2})
        assert info.value.http_status == 400
        assert faulty.initializes == initializes and faulty.calls_answered == 1
        assert client.is_alive()
    finally:
        client.stop()


def test_lost_connection_whose_reconnect_is_refused_names_the_status_and_recovers_later():
    # the server goes away (the connection is lost); when it is back, it refuses the credentials. (An answer
    # merely cut off loses no connection: see test_dropped_answers.py.)
    faulty = FaultyHTTP(build_server().streamable_http_app())
    served = UvicornThread(faulty, timeout_graceful_shutdown=1).start()
    client = ml.client("revoked", "streamable", {"url": f"{served.url}/mcp"}, protocol="legacy", request_timeout=10)
    try:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        served.stop()
        with pytest.raises(ml.TransportError):
            client.execute_tool("add", {"a": 1, "b": 2})
        assert not client.is_alive()
        faulty.app = build_server().streamable_http_app()  # a restarted server: a new app, no sessions
        faulty.answer_initialize_with = 401
        served = UvicornThread(faulty, port=served.port, timeout_graceful_shutdown=1).start()
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("add", {"a": 1, "b": 2})
        assert info.value.http_status == 401
        assert "'revoked' refused the new connection" in str(info.value) and "authentication" in str(info.value)
        assert not client.is_alive()
        faulty.answer_initialize_with = None
        assert client.execute_tool("add", {"a": 2, "b": 2}).text == "4"
        assert client.is_alive()
    finally:
        client.stop()
        served.stop()


# -- HTTP errors on a working session ---------------------------------------------------------------


@pytest.mark.parametrize("status", [401, 500])
@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_http_error_answering_a_call_names_the_status_and_keeps_the_session(faulty_streamable, status, protocol):
    url, faulty = faulty_streamable
    client = ml.client("flaky", "streamable", {"url": url}, protocol=protocol, request_timeout=5)
    try:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        faulty.answer_calls_with = status
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("add", {"a": 1, "b": 2})
        assert info.value.http_status == status
        assert "'flaky'" in str(info.value) and f"HTTP {status}" in str(info.value)
        assert ("authentication failed" if status == 401 else "the server failed") in str(info.value)
        assert client.is_alive(), "one rejected request is not a lost connection"
        faulty.answer_calls_with = None
        assert client.execute_tool("add", {"a": 2, "b": 2}).text == "4"
    finally:
        client.stop()


@pytest.mark.parametrize("status", [401, 500])
def test_sse_message_post_rejected_fails_the_call_at_once_and_restart_recovers(status):
    # the SDK's SSE writer stops at a rejected POST: the session must end now, not at the call's timeout
    with serve("sse") as (url, faulty):
        client = ml.client("sse-flaky", "sse", {"url": url}, protocol="legacy", request_timeout=10)
        try:
            assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
            faulty.answer_calls_with = status
            started = time.monotonic()
            with pytest.raises(ml.TransportError) as info:
                client.execute_tool("add", {"a": 1, "b": 2})
            assert time.monotonic() - started < 1.0
            assert info.value.http_status == status
            assert "'sse-flaky'" in str(info.value) and f"HTTP {status}" in str(info.value)
            assert not client.is_alive()
            faulty.answer_calls_with = None
            client.restart()
            assert client.execute_tool("add", {"a": 2, "b": 2}).text == "4"
        finally:
            client.stop()


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_json_rpc_errors_sent_with_an_http_error_status_stay_server_errors(faulty_streamable, protocol):
    # a 2026-07-28 server sends "unknown resource" (-32602) with HTTP 400: that is the server's answer
    url, _ = faulty_streamable
    client = ml.client("strict", "streamable", {"url": url}, protocol=protocol, request_timeout=5)
    try:
        with pytest.raises(ml.ServerError) as info:
            client.read_resource("file:///nothing")
        assert info.value.code == -32602
        assert client.is_alive()
    finally:
        client.stop()


# -- a response stream that ends before the answer ------------------------------------------------


@pytest.mark.parametrize("mode", ["end", "abort"])
@pytest.mark.parametrize(("transport", "protocol"), [("streamable", "legacy"), ("streamable", "auto"),
                                                     ("sse", "legacy")])
def test_stream_closed_mid_response_fails_within_a_second_and_restart_recovers(transport, protocol, mode):
    with serve(transport) as (url, faulty):
        faulty.cut_mode = mode
        client = ml.client("cut", transport, {"url": url}, protocol=protocol, request_timeout=15)
        try:
            assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
            progressed = threading.Event()
            outcome: dict[str, Any] = {}

            def pending() -> None:
                try:
                    outcome["result"] = client.execute_tool("slow", {"seconds": 10, "steps": 10},
                                                            on_progress=lambda *_: progressed.set())
                except BaseException as exc:
                    outcome["error"] = exc
                outcome["at"] = time.monotonic()

            caller = threading.Thread(target=pending)
            caller.start()
            assert progressed.wait(5), "the response stream never started"
            cut_at = time.monotonic()
            faulty.cut.set()
            caller.join(timeout=10)
            assert not caller.is_alive(), "the pending call hung after the stream was closed"
            assert isinstance(outcome.get("error"), ml.TransportError), outcome
            assert "'cut'" in str(outcome["error"])
            assert outcome["at"] - cut_at < 1.0
            faulty.cut.clear()
            client.restart()
            assert client.execute_tool("add", {"a": 2, "b": 2}).text == "4"
        finally:
            client.stop()


def test_server_restarted_on_the_same_port_gets_a_new_session_transparently():
    port = free_port()
    command = [sys.executable, str(FIXTURE_SERVER), "streamable-http", "--port", str(port)]
    process = start_http_server(command, port)
    try:
        client = ml.client("phoenix", "streamable", {"url": f"http://127.0.0.1:{port}/mcp"}, protocol="legacy",
                           request_timeout=5)
        try:
            first_pid = int(client.execute_tool("pid").text)
            stop_process(process)
            process = start_http_server(command, port)
            started = time.monotonic()
            second_pid = int(client.execute_tool("pid").text)
            assert time.monotonic() - started < 3
            assert second_pid == process.pid != first_pid
            assert client.is_alive()
        finally:
            client.stop()
    finally:
        stop_process(process)
