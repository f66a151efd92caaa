"""Servers that send garbage, malformed or oversized messages, endless pagination or HTTP errors."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest
from mcp.server.lowlevel.server import Server
from mcp_types import ListToolsResult, Tool
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import mcp_litellm as ml
from tests.helpers.entries import bad_server
from tests.helpers.servers import UvicornThread


def test_garbage_lines_on_stdout_are_skipped_and_calls_still_work():
    client = bad_server("garbage", request_timeout=5)
    try:
        started = time.monotonic()
        results = [client.execute_tool("add", {"a": i, "b": 1}).text for i in range(5)]
        assert results == ["1", "2", "3", "4", "5"]
        assert time.monotonic() - started < 5
        # an unsolicited response with an unknown id did not confuse request matching
        assert client.is_alive() and client.ping()
    finally:
        client.stop()


def test_garbage_lines_give_one_short_warning_each_without_a_traceback(caplog):
    caplog.set_level(logging.DEBUG, logger="mcp_litellm.stdio")
    client = bad_server("garbage", request_timeout=5)
    try:
        assert [client.execute_tool("add", {"a": i, "b": 1}).text for i in range(3)] == ["1", "2", "3"]
    finally:
        client.stop()
    records = [r for r in caplog.records if r.name == "mcp_litellm.stdio"]
    # 4 garbage lines before each of at least 5 messages (blank lines are skipped without a word)
    assert len(records) >= 4 * 5, "every skipped line is still reported (at DEBUG after the first few)"
    assert all(r.exc_info is None and r.exc_text is None and r.levelno <= logging.WARNING for r in records)
    warned = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    assert 1 <= len(warned) <= 5
    assert all("'bad-garbage'" in m and "ignored" in m and "\n" not in m for m in warned), warned
    assert "not JSON" in warned[0] and "Server starting" in warned[0], warned[0]


def test_malformed_result_is_a_clear_server_error_not_a_hang():
    client = bad_server("invalid", request_timeout=5)
    try:
        with pytest.raises(ml.ServerError, match="malformed tools/call result") as info:
            client.execute_tool("add", {"a": 1, "b": 2})
        assert info.value.code == -32603
        assert client.is_alive(), "one bad answer must not kill the session"
        assert [t.name for t in client.tools()] == ["add"]
    finally:
        client.stop()


def test_oversized_message_is_received_whole():
    client = bad_server("oversized", request_timeout=20)
    try:
        result = client.execute_tool("add", {"a": 1, "b": 2})
        assert len(result.text) == 8_000_000 and set(result.text) == {"y"}
    finally:
        client.stop()


def test_oversized_message_is_cut_by_max_result_chars():
    client = bad_server("oversized", request_timeout=20, max_result_chars=1000)
    try:
        result = client.execute_tool("add", {"a": 1, "b": 2})
        assert result.text.startswith("y" * 1000) and len(result.text) < 1200
        assert result.truncated_chars == 7_999_000
    finally:
        client.stop()


def test_result_violating_its_output_schema_becomes_an_error_result():
    client = bad_server("schema", request_timeout=5)
    try:
        assert client.tool("add").output_schema is not None
        result = client.execute_tool("add", {"a": 1, "b": 2})
        assert result.is_error
        assert "output schema" in result.text
        message = result.to_message("call_1")
        assert message["role"] == "tool" and message["content"].startswith("Error")
        assert client.execute_tool("add", {"a": 1, "b": 2}).is_error  # still answering, still consistent
    finally:
        client.stop()


def repeating_cursor_server(calls: list[str | None]) -> Server:
    async def list_tools(ctx, params) -> ListToolsResult:  # type: ignore[no-untyped-def]
        calls.append(params.cursor if params else None)
        tool = Tool(name=f"tool_{len(calls)}", description="one page", input_schema={"type": "object"})
        return ListToolsResult(tools=[tool], next_cursor="same-cursor-forever")

    return Server("looping", on_list_tools=list_tools)


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_pagination_cursor_repeated_forever_ends(protocol, caplog):
    calls: list[str | None] = []
    client = ml.client("looping", "memory", {"server": repeating_cursor_server(calls)}, protocol=protocol,
                       request_timeout=5)
    try:
        started = time.monotonic()
        tools = client.tools()
        assert time.monotonic() - started < 5
        assert calls[:2] == [None, "same-cursor-forever"] and len(calls) == 2
        assert [t.name for t in tools] == ["tool_1", "tool_2"]
        assert any("repeated pagination cursor" in r.getMessage() for r in caplog.records)
    finally:
        client.stop()


# -- HTTP errors ------------------------------------------------------------------------------------


async def answer_with_status(request: Request) -> JSONResponse:
    status = int(request.path_params["status"])
    return JSONResponse({"error": f"status {status}"}, status_code=status)


@pytest.fixture(scope="module")
def status_server() -> Iterator[str]:
    """A plain HTTP app on 127.0.0.1 that answers every request to /<status>/mcp with that status."""
    app = Starlette(routes=[Route("/{status:int}/mcp", answer_with_status, methods=["GET", "POST", "DELETE"])])
    with UvicornThread(app, lifespan="off") as server:
        yield server.url


@pytest.mark.parametrize("status", [401, 404, 500])
@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_http_error_status_is_a_prompt_transport_error(status_server, status, protocol):
    started = time.monotonic()
    with pytest.raises(ml.TransportError) as info:
        ml.client("statusy", "streamable", {"url": f"{status_server}/{status}/mcp"}, protocol=protocol,
                  request_timeout=10)
    assert time.monotonic() - started < 5, "an HTTP error must fail the connect at once, not at the timeout"
    assert "statusy" in str(info.value)


ADVICE = {401: "authentication failed", 404: "wrong URL", 500: "the server failed"}


@pytest.mark.parametrize("status", [401, 404, 500])
@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_http_error_status_is_named_in_the_error_with_what_to_do(status_server, status, protocol):
    with pytest.raises(ml.TransportError) as info:
        ml.client("statusy", "streamable", {"url": f"{status_server}/{status}/mcp"}, protocol=protocol,
                  request_timeout=10)
    message = str(info.value)
    assert f"HTTP {status}" in message and ADVICE[status] in message, message
    assert info.value.http_status == status


@pytest.mark.parametrize("status", [401, 404, 500])
def test_http_error_status_on_the_legacy_sse_transport(status_server, status):
    with pytest.raises(ml.TransportError) as info:
        ml.client("sse-statusy", "sse", {"url": f"{status_server}/{status}/mcp"}, request_timeout=10)
    message = str(info.value)
    assert "'sse-statusy'" in message and f"HTTP {status}" in message and ADVICE[status] in message, message
    assert info.value.http_status == status


def test_secret_header_not_leaked_on_http_errors(status_server, caplog):
    secret = "tok-" + "9f8e7d6c5b4a" * 2
    caplog.set_level(logging.DEBUG)
    headers = {"Authorization": f"Bearer {secret}", "X-Api-Key": secret}
    for status in (401, 500):
        with pytest.raises(ml.TransportError) as info:
            ml.client("secretive", "streamable", {"url": f"{status_server}/{status}/mcp", "headers": headers},
                      request_timeout=5)
        rendered = [str(info.value), repr(info.value), str(info.value.__cause__), repr(info.value.__cause__)]
        assert all(secret not in text for text in rendered)
    client = ml.client("secretive", "streamable", {"url": f"{status_server}/401/mcp", "headers": headers},
                       start=False)
    assert secret not in repr(client) and secret not in str(client)
    leaked = [r.name for r in caplog.records
              if secret in r.getMessage() or secret in str(r.args) or secret in str(r.exc_info)]
    assert leaked == []
