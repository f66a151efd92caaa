"""Converted tools and results go through LiteLLM's real request code (HTTP mocked with respx)."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

import mcp_litellm as ml
from tests.helpers.schemas import COMPLEX

API_BASE = "http://llm.test/v1"


@pytest.fixture(scope="module")
def litellm():
    import litellm

    return litellm


def openai_reply(tool_calls=None, text=None) -> dict:
    message = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def test_openai_receives_our_tools_as_sent_and_the_results_round_trip(make_client, litellm):
    client = make_client("memory")
    tools = ml.to_litellm_tools([client.tool("add"), client.tool("store_person"), client.tool("picture")])
    call = {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 40}'}}
    with respx.mock(assert_all_called=True) as mock:
        route = mock.post(f"{API_BASE}/chat/completions").mock(side_effect=[
            httpx.Response(200, json=openai_reply([call])), httpx.Response(200, json=openai_reply(text="42"))])
        messages = [{"role": "user", "content": "add 2 and 40"}]
        response = litellm.completion(model="openai/gpt-4o-mini", api_base=API_BASE, api_key="sk-test",
                                      messages=messages, tools=tools)
        sent = json.loads(route.calls[0].request.content)
        assert sent["tools"] == tools, "LiteLLM must send the definitions exactly as we built them"

        tool_call = response.choices[0].message.tool_calls[0]
        result = client.execute_tool(tool_call.function.name, json.loads(tool_call.function.arguments))
        picture = client.execute_tool("picture")
        follow_up = [*messages, response.choices[0].message.model_dump(exclude_none=True),
                     *ml.ToolResult.batch_messages([(tool_call.id, result)], model="openai/gpt-4o-mini")]
        follow_up += picture.to_messages("call_2")[1:]  # the media message alone, as a user turn
        final = litellm.completion(model="openai/gpt-4o-mini", api_base=API_BASE, api_key="sk-test",
                                   messages=follow_up, tools=tools)
        assert final.choices[0].message.content == "42"
        second = json.loads(route.calls[1].request.content)
        assert {"role": "tool", "tool_call_id": "call_1", "content": "42"} in second["messages"]
        media = second["messages"][-1]
        assert media["role"] == "user" and media["content"][1]["type"] == "image_url"


def test_gemini_request_keeps_the_prepared_schema(make_client, litellm):
    client = make_client("memory")
    model = "gemini/gemini-2.0-flash"
    tool = client.tool("store_person")
    order = ml.Tool(name="order", mcp_name="order", description="Place an order.", input_schema=COMPLEX,
                    client=client)
    reply = {"candidates": [{"content": {"parts": [{"text": "ok"}], "role": "model"}, "finishReason": "STOP"}],
             "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
    with respx.mock(assert_all_called=True) as mock:
        route = mock.post(url__regex=r"https://generativelanguage\.googleapis\.com/.*").mock(
            return_value=httpx.Response(200, json=reply))
        response = litellm.completion(model=model, api_key="test-key", messages=[{"role": "user", "content": "hi"}],
                                      tools=ml.to_litellm_tools([tool, order], model=model))
    assert response.choices[0].message.content == "ok"
    body = json.loads(route.calls[0].request.content)
    declarations = {d["name"]: d for d in body["tools"][0]["function_declarations"]}
    declaration = declarations["store_person"]
    person = declaration["parameters"]["properties"]["person"]
    address = person["properties"]["addresses"]["items"]
    assert set(address["properties"]) == {"street", "zip"} and address["type"].lower() == "object"
    assert "$ref" not in json.dumps(declaration)
    order_props = declarations["order"]["parameters"]["properties"]
    assert order_props["kind"]["enum"] == ["order"], "const survives as a one-value enum"
    assert len(order_props["payment"]["anyOf"]) == 2, "oneOf survives as anyOf"
    assert "One of: 1, 2, 3." in order_props["priority"]["description"]
    assert "additionalProperties" not in json.dumps(declarations["order"])


def test_anthropic_request_carries_tool_schema_and_image_tool_results(make_client, litellm):
    client = make_client("memory")
    model = "anthropic/claude-3-5-sonnet-latest"
    tools = ml.to_litellm_tools([client.tool("picture"), client.tool("add")], model=model)
    picture = client.execute_tool("picture")
    messages = [
        {"role": "user", "content": "show me"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "picture", "arguments": "{}"}}]},
        *picture.to_messages("toolu_1", model=model),
    ]
    reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-3-5-sonnet-latest",
             "content": [{"type": "text", "text": "a pixel"}], "stop_reason": "end_turn",
             "usage": {"input_tokens": 1, "output_tokens": 1}}
    with respx.mock(assert_all_called=True) as mock:
        route = mock.post("https://api.anthropic.com/v1/messages").mock(return_value=httpx.Response(200, json=reply))
        response = litellm.completion(model=model, api_key="sk-ant-test", messages=messages, tools=tools)
    assert response.choices[0].message.content == "a pixel"
    body = json.loads(route.calls[0].request.content)
    sent_tools = {t["name"]: t for t in body["tools"]}
    assert sent_tools["add"]["input_schema"]["properties"] == tools[1]["function"]["parameters"]["properties"]
    tool_result = body["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == "toolu_1"
    kinds = [block["type"] for block in tool_result["content"]]
    assert kinds == ["text", "image"], "the image travels inside the tool result"
    assert tool_result["content"][1]["source"]["media_type"] == "image/png"
