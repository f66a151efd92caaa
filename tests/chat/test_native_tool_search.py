"""What LiteLLM 1.106.2 does with Anthropic's native tool search, measured at the HTTP level.

These tests pin the measurement behind the decision not to offer native tool search (see
``mcp_litellm/_chat/tool_search.py``): LiteLLM passes ``defer_loading`` and the tool-search tool types
through to Anthropic's request body, but hands the server-side search back as an ordinary tool call
(``server_tool_use`` becomes a ``tool_calls`` entry) and drops the ``tool_search_tool_result`` block, so a
chat replaying its history would send a tool_use without its result. LiteLLM 1.110 keeps the server-side
search on the server's side (``provider_specific_fields["server_tool_calls"]``, not a tool call) and replays
the ``tool_search_tool_result`` block, so with it the decision can be revisited; the tests pin both
behaviours, each on its version.
"""

from __future__ import annotations

import json
from importlib.metadata import version

import httpx
import pytest
from packaging.version import Version

from mcp_litellm._llm import litellm_module
from tests.scripted_llm.respx_mock import litellm_respx

ROUND_TRIPS = Version(version("litellm")) >= Version("1.110")
"""LiteLLM 1.110 passes Anthropic's server-side tool search through both ways (1.106.2 did not)."""


@pytest.fixture
def anthropic():
    requests: list[dict] = []
    headers: list[httpx.Headers] = []
    with litellm_respx() as router:
        def answer(request: httpx.Request) -> httpx.Response:
            requests.append(json.loads(request.content))
            headers.append(request.headers)
            return httpx.Response(200, json={
                "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 50, "output_tokens": 9},
                "content": [
                    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
                     "input": {"query": "weather"}},
                    {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
                     "content": {"type": "tool_search_tool_search_result",
                                 "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]}},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}]})

        router.post(url__regex=r"http://anthropic\.test/.*").mock(side_effect=answer)
        yield requests, headers


TOOLS = [
    {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    {"type": "function", "defer_loading": True, "function": {
        "name": "get_weather", "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
]


def test_litellm_passes_deferred_tools_and_the_search_tool_to_anthropic(anthropic):
    requests, headers = anthropic
    response = litellm_module().completion(model="anthropic/claude-sonnet-4-5", api_base="http://anthropic.test",
                                           api_key="sk-ant-test", messages=[{"role": "user", "content": "hi"}],
                                           tools=TOOLS)
    sent = {t["name"]: t for t in requests[0]["tools"]}
    assert sent["tool_search_tool_bm25"]["type"] == "tool_search_tool_bm25_20251119"
    assert sent["get_weather"].get("defer_loading") is True
    assert "advanced-tool-use-2025-11-20" in headers[0].get("anthropic-beta", "")
    calls = [(c.id, c.function.name) for c in response.choices[0].message.tool_calls]
    if ROUND_TRIPS:  # the server's search stays the server's: not a call the client must run
        assert calls == [("toolu_1", "get_weather")]
        server_calls = response.choices[0].message.provider_specific_fields["server_tool_calls"]
        assert [call["id"] for call in server_calls] == ["srvtoolu_1"]
    else:  # 1.106.2: the server-side search comes back as a tool call the client would have to run
        assert ("srvtoolu_1", "tool_search_tool_bm25") in calls and ("toolu_1", "get_weather") in calls


def test_the_search_result_block_is_lost_on_the_way_back(anthropic):
    requests, _ = anthropic
    litellm = litellm_module()
    first = litellm.completion(model="anthropic/claude-sonnet-4-5", api_base="http://anthropic.test",
                               api_key="sk-ant-test", messages=[{"role": "user", "content": "hi"}], tools=TOOLS)
    assistant = first.choices[0].message.model_dump()
    history = [{"role": "user", "content": "hi"}, assistant,
               {"role": "tool", "tool_call_id": "toolu_1", "content": "sunny"}]
    litellm.completion(model="anthropic/claude-sonnet-4-5", api_base="http://anthropic.test", api_key="sk-ant-test",
                       messages=history, tools=TOOLS)
    replayed = requests[1]["messages"][1]["content"]
    if ROUND_TRIPS:  # the turn goes back as Anthropic sent it
        assert [block["type"] for block in replayed] == ["server_tool_use", "tool_search_tool_result", "tool_use"]
        assert replayed[1]["tool_use_id"] == "srvtoolu_1" and replayed[0]["id"] == "srvtoolu_1"
        return
    assert "tool_search_tool_result" not in json.dumps(replayed)  # what Anthropic needs with the server_tool_use
    # the server's search goes back as a client tool_use that no tool_result answers
    assert {"type": "tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
            "input": {"query": "weather"}} in replayed
