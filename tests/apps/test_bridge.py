"""ml.AppBridge: the app's JSON-RPC requests answered for the host (real servers; hostile apps refused)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.apps_server import COUNTER_URI
from tests.helpers.chat import new_chat

VIEW = {"toolCallId": "c1", "server": "apps", "tool": "show_counter", "resourceUri": COUNTER_URI}


def _request(method: str, params: dict[str, Any] | None = None, id: int = 7) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, **({"params": params} if params is not None else {})}


def _chat_with_view(*clients: ml.Client) -> ml.Chat:
    """A chat whose turn showed the counter app (call c1), as a streamed turn leaves ``chat.app_views``."""
    chat = new_chat().with_tools(*clients)
    chat.app_views["c1"] = ml.AppView(tool_call_id="c1", server="apps", tool="show_counter",
                                      resource_uri=COUNTER_URI)
    return chat


@pytest.fixture
def bridge(apps_client: Callable[..., ml.Client]) -> ml.AppBridge:
    return ml.AppBridge(_chat_with_view(apps_client("stdio")))


def test_tools_call_of_an_app_only_tool(bridge: ml.AppBridge) -> None:
    answer = bridge.handle(VIEW, _request("tools/call", {"name": "increment", "arguments": {"value": 4}}))
    assert answer["id"] == 7 and "error" not in answer
    assert answer["result"]["content"][0]["text"] == '{"count": 5}'
    assert answer["result"]["isError"] is False


def test_tools_call_through_a_client_and_an_app_view(apps_client: Callable[..., ml.Client]) -> None:
    view = ml.AppView(tool_call_id="c1", server="apps", tool="show_counter", resource_uri=COUNTER_URI)
    answer = ml.AppBridge(apps_client("stdio")).handle(view, _request("tools/call", {"name": "show_counter",
                                                                                      "arguments": {"start": 2}}))
    assert json.loads(answer["result"]["content"][0]["text"]) == {"count": 2}


def test_tools_call_of_a_model_only_tool_is_refused_and_never_runs(tmp_path: Any) -> None:
    ran: list[int] = []

    from mcp.server.mcpserver import MCPServer

    server = MCPServer("mixed")

    @server.tool(meta={"ui": {"resourceUri": "ui://mixed/app.html", "visibility": ["model"]}})
    def secret(value: int) -> str:
        ran.append(value)
        return "ran"

    client = ml.client("mixed", "memory", {"server": server})
    try:
        answer = ml.AppBridge(client).handle({"server": "mixed"}, _request("tools/call", {"name": "secret",
                                                                                          "arguments": {"value": 1}}))
    finally:
        client.stop()
    assert answer["error"]["code"] == -32602 and "not visible to apps" in answer["error"]["message"]
    assert ran == []


def test_tools_call_of_another_servers_tool_is_refused(apps_client: Callable[..., ml.Client]) -> None:
    other = ml.client("other", "memory", {"server": _other_server()})
    try:
        chat = _chat_with_view(apps_client("stdio"), other)
        answer = ml.AppBridge(chat).handle(VIEW, _request("tools/call", {"name": "other_tool", "arguments": {}}))
    finally:
        other.stop()
    assert answer["error"]["code"] == -32602 and "has no tool 'other_tool'" in answer["error"]["message"]
    assert _other_server.ran == []  # type: ignore[attr-defined]


def _other_server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("other")
    _other_server.ran = []  # type: ignore[attr-defined]

    @server.tool()
    def other_tool() -> str:
        _other_server.ran.append(1)  # type: ignore[attr-defined]
        return "ran"

    return server


def test_unknown_server_is_refused(apps_client: Callable[..., ml.Client]) -> None:
    answer = ml.AppBridge(apps_client("stdio")).handle({**VIEW, "server": "nope"}, _request(
        "tools/call", {"name": "increment", "arguments": {"value": 1}}))
    assert answer["error"]["code"] == -32602 and "no server 'nope'" in answer["error"]["message"]


def test_a_chat_answers_only_the_views_it_gave(apps_client: Callable[..., ml.Client]) -> None:
    other = ml.client("other", "memory", {"server": _other_server()})
    try:
        bridge = ml.AppBridge(_chat_with_view(apps_client("stdio"), other))
        for forged in ({**VIEW, "server": "other"}, {**VIEW, "toolCallId": "c9"}, {"server": "apps"}):
            answer = bridge.handle(forged, _request("tools/call", {"name": "other_tool", "arguments": {}}))
            assert answer["error"]["code"] == -32602, forged
            assert "no app of this chat has tool call id" in answer["error"]["message"]
    finally:
        other.stop()
    assert _other_server.ran == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(("view", "request_", "code", "says"), [
    (None, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, -32602, "not NoneType"),
    ([VIEW], {"jsonrpc": "2.0", "id": 1, "method": "ping"}, -32602, "not list"),
    (VIEW, {"jsonrpc": "2.0", "method": "ping"}, -32600, "needs an id"),
    (VIEW, {"jsonrpc": "2.0", "id": 1}, -32600, "needs a method"),
    (VIEW, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1]}, -32602, "params must be an object"),
    (VIEW, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "increment", "arguments": [1]}},
     -32602, "arguments object"),
])
def test_malformed_requests_get_an_error_never_an_exception(bridge: ml.AppBridge, view: Any, request_: Any,
                                                            code: int, says: str) -> None:
    answer = bridge.handle(view, request_)
    assert answer["error"]["code"] == code and says in answer["error"]["message"], answer


def test_resources_read_of_the_same_server(bridge: ml.AppBridge) -> None:
    answer = bridge.handle(VIEW, _request("resources/read", {"uri": COUNTER_URI}))
    content = answer["result"]["contents"][0]
    assert content["mimeType"] == "text/html;profile=mcp-app" and "<button" in content["text"]


def test_ui_message_joins_the_chat(apps_client: Callable[..., ml.Client]) -> None:
    chat = _chat_with_view(apps_client("stdio"))
    answer = ml.AppBridge(chat).handle(VIEW, _request("ui/message", {"role": "user",
                                                                     "content": [{"type": "text", "text": "Count 5"}]}))
    assert answer == {"jsonrpc": "2.0", "id": 7, "result": {}}
    assert chat.messages[-1] == {"role": "user", "content": "Count 5"}


def test_huge_ui_message_is_refused(apps_client: Callable[..., ml.Client]) -> None:
    chat = _chat_with_view(apps_client("stdio"))
    bridge = ml.AppBridge(chat, max_request_bytes=10_000)
    answer = bridge.handle(VIEW, _request("ui/message", {"role": "user",
                                                         "content": [{"type": "text", "text": "x" * 20_000}]}))
    assert answer["error"]["code"] == -32600 and "limit is 10000" in answer["error"]["message"]
    assert chat.messages == []


def test_ping_and_unknown_methods(bridge: ml.AppBridge) -> None:
    assert bridge.handle(VIEW, _request("ping")) == {"jsonrpc": "2.0", "id": 7, "result": {}}
    answer = bridge.handle(VIEW, _request("sampling/createMessage", {}))
    assert answer["error"]["code"] == -32601


async def test_ahandle(apps_client: Callable[..., ml.Client]) -> None:
    client = apps_client("stdio")
    async with client:
        answer = await ml.AppBridge(client).ahandle(VIEW, _request("tools/call", {"name": "increment",
                                                                                   "arguments": {"value": 0}}))
    assert answer["result"]["content"][0]["text"] == '{"count": 1}'
