"""The third-party reference server (@modelcontextprotocol/server-everything) over stdio and HTTP."""

from __future__ import annotations

import pytest

import mcp_litellm as ml
from tests.helpers.servers import free_port, start_http_server, stop_process

pytestmark = pytest.mark.thirdparty


def test_everything_over_stdio(everything_js):
    client = ml.client("everything", "stdio", {"command": "node", "args": [str(everything_js), "stdio"]})
    try:
        assert client.protocol_version == "2025-11-25"
        assert client.server_info.name == "mcp-servers/everything"
        assert client.ping()
        names = {t.name for t in client.tools()}
        assert {"echo", "get-sum", "get-tiny-image"} <= names
        assert client.execute_tool("get-sum", {"a": 2, "b": 3}).text == "The sum of 2 and 3 is 5."
    finally:
        client.stop()
    assert not client.is_alive()


def test_everything_over_streamable_http(everything_js):
    port = free_port()
    process = start_http_server(["node", str(everything_js), "streamableHttp"], port, env={"PORT": str(port)})
    try:
        with ml.client("everything-http", "streamable", {"url": f"http://127.0.0.1:{port}/mcp"}) as client:
            assert client.ping()
            assert "echo" in {t.name for t in client.tools()}
            assert "hello" in client.execute_tool("echo", {"message": "hello"}).text
        assert not client.is_alive()
    finally:
        stop_process(process)
