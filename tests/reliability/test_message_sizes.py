"""Issue 28: ``max_message_size`` governs every transport, after decompression, and a result nested too
deeply fails its own call only.

Real servers on 127.0.0.1: the SDK's MCPServer over streamable HTTP (SSE answers and plain JSON answers)
and over the legacy SSE transport; and a hostile raw server (tests/servers/hostile_http_server.py) that
sends gzip bombs and 100,000-deep results. Before the fix, anything over 1 MiB over HTTP failed with a
``TransportError`` and dropped the session; a 1.5 GB bomb grew the client's memory by gigabytes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

import mcp_litellm as ml
from mcp_litellm._transports.wire.framing import EventFramer, Oversized
from mcp_litellm._transports.wire.messages import oversized_id
from tests.helpers.servers import UvicornThread
from tests.servers.hostile_http_server import build_app

MiB = 1 << 20
HOSTILE_STDIO = Path(__file__).resolve().parent.parent / "servers" / "hostile_stdio_server.py"


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 in a thread; yields its base URL."""
    with UvicornThread(app, timeout_graceful_shutdown=1) as server:
        yield server.url


def blob_server() -> MCPServer:
    server = MCPServer("blobs")

    @server.tool(description="Return size bytes of text.")
    def blob(size: int) -> str:
        return "b" * size

    return server


@pytest.fixture(scope="module", params=["sse-answers", "json-answers", "legacy-sse"])
def sdk_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, dict[str, str]]]:
    """The SDK's MCPServer over one HTTP transport: ``(transport type, config)``. The tests connect
    with the 2025 handshake, whose streamable HTTP answers come as SSE events unless ``json_response``."""
    server = blob_server()
    if request.param == "legacy-sse":
        with serve(server.sse_app()) as base:
            yield "sse", {"url": f"{base}/sse"}
    else:
        app = server.streamable_http_app(json_response=request.param == "json-answers")
        with serve(app) as base:
            yield "streamable", {"url": f"{base}/mcp"}


def test_a_20_mib_result_arrives_over_every_http_transport(sdk_server):
    kind, config = sdk_server
    with ml.client("blobs", kind, config, request_timeout=60, protocol="legacy") as client:
        assert len(client.execute_tool("blob", {"size": 20 * MiB}).text) == 20 * MiB
        assert client.execute_tool("blob", {"size": 3}).text == "bbb"


def test_a_result_over_max_message_size_fails_its_call_and_the_session_goes_on(sdk_server):
    kind, config = sdk_server
    with ml.client("blobs", kind, config, request_timeout=30, max_message_size=2 * MiB, protocol="legacy") as client:
        started = time.monotonic()
        with pytest.raises(ml.ServerError, match=r"max_message_size \(2097152 bytes\).*max_message_size=") as info:
            client.execute_tool("blob", {"size": 3 * MiB})
        assert time.monotonic() - started < 10, "failed at once, not at the 30 s timeout"
        # the client refused the answer: the error does not read as one the server sent
        assert str(info.value).startswith("tools/call failed: the server's answer"), str(info.value)
        assert info.value.server == "blobs" and info.value.method == "tools/call"
        assert client.is_alive()
        # the text comes twice (as content and as structured content): 512 KiB make about 1 MiB
        assert client.execute_tool("blob", {"size": MiB // 2}).text == "b" * (MiB // 2)
        assert client.ping()


# -- the hostile server: bombs and deep nesting ------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_base() -> Iterator[str]:
    with serve(build_app()) as base:
        yield base


HOSTILE_ROUTES = {"json": ("streamable", "/json/mcp"), "sse": ("streamable", "/sse/mcp"),
                  "legacy": ("sse", "/legacy/sse?gzip=1")}


def hostile(base: str, route: str, **kwargs: Any) -> ml.Client:
    kind, path = HOSTILE_ROUTES[route]
    return ml.client(f"hostile-{route}", kind, {"url": base + path}, protocol="legacy", **kwargs)


def peak_rss_reset() -> None:
    """Reset this process's peak RSS (VmHWM), so the next reading is the peak since now."""
    Path("/proc/self/clear_refs").write_text("5")


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the peak RSS from /proc")
@pytest.mark.parametrize("route", ["json", "sse", "legacy"])
def test_a_compression_bomb_fails_its_call_fast_with_bounded_memory(hostile_base, route):
    client = hostile(hostile_base, route, request_timeout=60, max_message_size=10 * MiB)
    try:
        assert client.execute_tool("run", {"kind": "ok"}).text == "ran"
        before = rss_mb()
        peak_rss_reset()
        started = time.monotonic()
        with pytest.raises(ml.ServerError, match=r"max_message_size \(10485760 bytes\).*max_message_size="):
            client.execute_tool("run", {"kind": "bomb", "size": 1500 * MiB})  # 1.5 MB on the wire
        took = time.monotonic() - started
        grown = peak_rss_mb() - before
        assert took < 10, f"took {took:.1f}s: the bomb must fail within seconds, not at the timeout"
        assert grown < 10 + 300, f"peak memory grew by {grown:.0f} MB for a 10 MiB limit"
        if route != "legacy":
            assert client.is_alive()
        # over legacy SSE the bomb rides the session's one event stream: past 4x the limit it is closed
        # rather than inflated for minutes, and this call opens a new session
        assert client.execute_tool("run", {"kind": "ok"}).text == "ran"
        assert client.ping()
    finally:
        client.stop()


@pytest.mark.parametrize("route", ["json", "sse", "legacy"])
def test_a_result_nested_100000_deep_fails_its_call_only_over_http(hostile_base, route):
    client = hostile(hostile_base, route, request_timeout=30)
    try:
        started = time.monotonic()
        with pytest.raises(ml.ServerError):
            client.execute_tool("run", {"kind": "deep", "size": 100_000})
        assert time.monotonic() - started < 10, "failed at once, not at the 30 s timeout"
        assert client.ping()
        assert client.execute_tool("run", {"kind": "ok"}).text == "ran"
    finally:
        client.stop()


def test_a_result_nested_100000_deep_fails_its_call_only_over_stdio():
    config = {"command": sys.executable, "args": [str(HOSTILE_STDIO), "deep"]}
    client = ml.client("hostile-deep", "stdio", config, protocol="legacy", request_timeout=30)
    try:
        started = time.monotonic()
        with pytest.raises(ml.ServerError, match="nested") as info:
            client.execute_tool("run", {"size": 100_000})
        assert not str(info.value).startswith("server error"), str(info.value)
        assert time.monotonic() - started < 10, "failed at once, not at the 30 s timeout"
        assert client.ping(), "the session goes on"
        assert client.execute_tool("run", {"a": 2}).text == "ran 2"
    finally:
        client.stop()


def test_an_oversized_answer_with_its_id_last_fails_its_call_over_stdio():
    """TypeScript-SDK servers write the id last; such an answer over the limit waited for its timeout."""
    config = {"command": sys.executable, "args": [str(HOSTILE_STDIO), "hugelast"]}
    client = ml.client("hostile-last", "stdio", config, protocol="legacy", request_timeout=30,
                       max_message_size=1_000_000)
    try:
        started = time.monotonic()
        with pytest.raises(ml.ServerError, match=r"2000\d+ bytes, more than max_message_size \(1000000 bytes\)"):
            client.execute_tool("run", {"size": 2_000_000})
        assert time.monotonic() - started < 10, "failed at once, not at the 30 s timeout"
        assert client.execute_tool("run", {"size": 10}).text == "z" * 10
    finally:
        client.stop()


def test_event_framing_bounds_each_event_and_reports_an_oversized_one_early_and_at_its_end():
    framer = EventFramer(limit=100)
    stream = (b"event: endpoint\r\ndata: /messages?session_id=1\r\n\r\n: keep-alive\n\n"
              b'event: message\ndata: {"id": 1}\n\n'
              b'event: message\ndata: {"result": "' + b"z" * 1000 + b'", "jsonrpc": "2.0", "id": 2}\n\n'
              b"data: a\ndata: b\n\n")
    events = [event for i in range(0, len(stream), 7) for event in framer.feed(stream[i:i + 7])]
    assert events[:2] == [("endpoint", b"/messages?session_id=1"), ("message", b'{"id": 1}')]
    early, late = events[2][1], events[3][1]
    assert isinstance(early, Oversized) and not early.complete and early.head.startswith(b'{"result": "zzz')
    assert isinstance(late, Oversized) and late.complete and late.size >= 1000
    assert late.tail.endswith(b'"jsonrpc": "2.0", "id": 2}') and oversized_id(late.head, late.tail) == 2
    assert events[4:] == [("message", b"a\nb")]


def test_an_id_at_the_end_is_read_only_when_it_closes_the_message():
    assert oversized_id(b'{"result": {"text": "zz', b'zz"}, "jsonrpc": "2.0", "id": 7}\n') == 7
    assert oversized_id(b'{"result": {"text": "zz', b'zz", "x": {"id": 7}}}') is None, "a nested id is not ours"
    assert oversized_id(b'{"method": "sampling/createMessage", "params": {"x": "zz', b'zz"}, "id": 7}') is None


@pytest.mark.parametrize("route", ["json", "sse", "legacy"])
def test_a_big_result_from_the_hostile_server_arrives(hostile_base, route):
    with hostile(hostile_base, route, request_timeout=60) as client:
        assert len(client.execute_tool("run", {"kind": "big", "size": 20 * MiB}).text) == 20 * MiB
