"""Issue 28: results of 1, 5 and 20 MiB from a server written with the official TypeScript SDK
(tests/servers/big_results_server.mjs, on @modelcontextprotocol/sdk 1.32.2 from tests/thirdparty), over
streamable HTTP and the legacy SSE transport. Before the fix, anything over 1 MiB failed with a
``TransportError`` and dropped the session (1000 KiB worked, 1030 KiB did not)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import mcp_litellm as ml
from tests.helpers.servers import ROOT, free_port, start_http_server, stop_process

pytestmark = pytest.mark.thirdparty

SERVER = Path(__file__).resolve().parent.parent / "servers" / "big_results_server.mjs"
SDK = ROOT / "tests/thirdparty/node_modules/@modelcontextprotocol/sdk/package.json"
MiB = 1 << 20


@pytest.fixture(scope="module")
def typescript_server() -> Iterator[str]:
    if not SDK.exists():
        pytest.fail(f"the TypeScript SDK is not installed at {SDK.parent}; run: npm ci --prefix tests/thirdparty")
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH")
    port = free_port()
    process = start_http_server([node, str(SERVER), str(port)], port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(process)


@pytest.mark.parametrize(("kind", "path"), [("streamable", "/mcp"), ("sse", "/sse")])
def test_results_of_1_5_and_20_mib_arrive(typescript_server, kind, path):
    with ml.client("big", kind, {"url": typescript_server + path}, request_timeout=60) as client:
        for size in (MiB, 5 * MiB, 20 * MiB):
            assert len(client.execute_tool("blob", {"size": size}).text) == size
        assert client.is_alive()


@pytest.mark.parametrize(("kind", "path"), [("streamable", "/mcp"), ("sse", "/sse")])
def test_a_result_over_max_message_size_fails_its_call_and_the_session_goes_on(typescript_server, kind, path):
    with ml.client("big", kind, {"url": typescript_server + path}, request_timeout=30,
                   max_message_size=2 * MiB) as client:
        with pytest.raises(ml.ServerError, match=r"max_message_size \(2097152 bytes\).*max_message_size="):
            client.execute_tool("blob", {"size": 5 * MiB})
        assert client.is_alive()
        assert len(client.execute_tool("blob", {"size": MiB}).text) == MiB
