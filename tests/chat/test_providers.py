"""Non-OpenAI providers with their own wire formats (mocked at the HTTP level): Anthropic and Gemini
accept our tools, tool results and images, and a streamed Anthropic turn runs the tool loop."""

from __future__ import annotations

import json

import httpx
import pytest

import mcp_litellm as ml
from tests.scripted_llm.respx_mock import litellm_respx


@pytest.fixture
def http():
    with litellm_respx() as router:
        yield router


def scripted(router, pattern, bodies):
    requests = []

    def answer(request):
        requests.append(json.loads(request.content))
        body = bodies.pop(0)
        if isinstance(body, bytes):
            return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=body)

    router.post(url__regex=pattern).mock(side_effect=answer)
    return requests


def anthropic_message(content, stop_reason):
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}


def test_anthropic_gets_tools_and_image_tool_results(http, make_client):
    client = make_client("memory")
    requests = scripted(http, r"http://anthropic\.test/.*", [
        anthropic_message([{"type": "text", "text": "Looking."},
                           {"type": "tool_use", "id": "toolu_1", "name": "picture", "input": {}},
                           {"type": "tool_use", "id": "toolu_2", "name": "add", "input": {"a": 1, "b": 2}}],
                          "tool_use"),
        anthropic_message([{"type": "text", "text": "A pixel, and 3."}], "end_turn"),
    ])
    chat = ml.Chat("anthropic/claude-sonnet-4-5", api_base="http://anthropic.test", api_key="sk-ant-test")
    reply = chat.with_tools(client.tool("picture"), client.tool("add")).ask("show and add")
    assert reply.content == "A pixel, and 3." and reply.finish_reason == "stop"
    first, second = requests
    assert {t["name"] for t in first["tools"]} == {"picture", "add"}
    add = next(t for t in first["tools"] if t["name"] == "add")["input_schema"]  # tools go by server, then name
    assert add["required"] == ["a", "b"] and {k: v["type"] for k, v in add["properties"].items()} == {"a": "integer",
                                                                                                     "b": "integer"}
    results = [block for m in second["messages"] if m["role"] == "user" and isinstance(m["content"], list)
               for block in m["content"] if block.get("type") == "tool_result"]
    by_id = {r["tool_use_id"]: r for r in results}
    assert set(by_id) == {"toolu_1", "toolu_2"}
    picture = by_id["toolu_1"]["content"]
    assert any(b.get("type") == "image" and b["source"]["media_type"] == "image/png" for b in picture)
    assert "3" in json.dumps(by_id["toolu_2"]["content"])
    assistant = next(m for m in second["messages"] if m["role"] == "assistant")
    assert [b["type"] for b in assistant["content"]] == ["text", "tool_use", "tool_use"]


def _anthropic_stream(events):
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def test_anthropic_streamed_tool_use(http, make_client):
    client = make_client("memory")
    start = {"type": "message_start", "message": {**anthropic_message([], None), "usage": {"input_tokens": 3,
                                                                                            "output_tokens": 1}}}
    tool_turn = _anthropic_stream([
        start,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Adding."}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1,
         "content_block": {"type": "tool_use", "id": "toolu_9", "name": "add", "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"a": 4,'}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ' "b": 5}'}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ])
    text_turn = _anthropic_stream([
        start,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "It is 9."}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ])
    requests = scripted(http, r"http://anthropic\.test/.*", [tool_turn, text_turn])
    chat = ml.Chat("anthropic/claude-sonnet-4-5", api_base="http://anthropic.test", api_key="sk-ant-test")
    chunks = list(chat.with_tools(client.tool("add")).stream("4+5"))
    assert "".join(c.content for c in chunks) == "Adding.It is 9."
    assert chat.messages[1]["tool_calls"][0]["id"] == "toolu_9"
    assert json.loads(chat.messages[1]["tool_calls"][0]["function"]["arguments"]) == {"a": 4, "b": 5}
    results = [b for m in requests[1]["messages"] if isinstance(m["content"], list) for b in m["content"]
               if b.get("type") == "tool_result"]
    assert results[0]["tool_use_id"] == "toolu_9" and "9" in json.dumps(results[0]["content"])


def gemini_reply(parts, finish="STOP"):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
            "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 2, "totalTokenCount": 6},
            "modelVersion": "gemini-2.0-flash"}


def test_gemini_gets_cleaned_schemas_tool_results_and_images(http, make_client):
    client = make_client("memory")
    requests = scripted(http, r"https://generativelanguage\.googleapis\.com/.*", [
        gemini_reply([{"functionCall": {"name": "store_person", "args": {"person": {"name": "Ada", "age": 36,
                                                                                  "addresses": []}}}},
                      {"functionCall": {"name": "picture", "args": {}}}]),
        gemini_reply([{"text": "Stored Ada; the picture is red."}]),
    ])
    chat = ml.Chat("gemini/gemini-2.0-flash", api_key="gm-test-key")
    reply = chat.with_tools(client.tool("store_person"), client.tool("picture")).ask("store and show")
    assert reply.content == "Stored Ada; the picture is red."
    first, second = requests
    declarations = {d["name"]: d for d in first["tools"][0]["function_declarations"]}
    person = json.dumps(declarations["store_person"]["parameters"])
    assert "$ref" not in person and "$defs" not in person and "additionalProperties" not in person
    responses = [p["function_response"] if "function_response" in p else p.get("functionResponse")
                 for c in second["contents"] for p in c["parts"] if "function_response" in p or "functionResponse" in p]
    assert {r["name"] for r in responses} == {"store_person", "picture"}
    assert "Ada" in json.dumps(responses)
    picture = next(r for r in responses if r["name"] == "picture")
    inline = [p.get("inline_data") or p.get("inlineData") for p in picture.get("parts", [])]
    assert inline and inline[0]["mime_type"] == "image/png", "the tool's image did not reach Gemini"
    assert chat.messages[1]["tool_calls"][0]["function"]["name"] == "store_person"


def _story_server():
    """An in-process server whose tool answers with images between its texts, referring to "the image above"."""
    import base64

    from mcp.server.mcpserver import MCPServer
    from mcp_types import ImageContent, TextContent

    from tests.servers.fixture_server import PNG

    server = MCPServer("story")
    png = base64.b64encode(PNG).decode()

    @server.tool(description="Two pictures, each with a caption below it.", structured_output=False)
    def story() -> list:
        return [ImageContent(type="image", data=png, mime_type="image/png"),
                TextContent(type="text", text="the image above is red"),
                ImageContent(type="image", data=png, mime_type="image/gif"),
                TextContent(type="text", text="the one above is blue")]

    return ml.client("story", config={"server": server})


def test_anthropic_tool_results_keep_text_and_images_in_the_servers_order(http):
    client = _story_server()
    try:
        requests = scripted(http, r"http://anthropic\.test/.*", [
            anthropic_message([{"type": "tool_use", "id": "toolu_1", "name": "story", "input": {}}], "tool_use"),
            anthropic_message([{"type": "text", "text": "Red, then blue."}], "end_turn"),
        ])
        chat = ml.Chat("anthropic/claude-sonnet-4-5", api_base="http://anthropic.test", api_key="sk-ant-test")
        assert chat.with_tools(*client.tools()).ask("describe").content == "Red, then blue."
        result = next(b for m in requests[1]["messages"] if isinstance(m["content"], list)
                      for b in m["content"] if b.get("type") == "tool_result")
        assert [(b["type"], b.get("text") or b["source"]["media_type"]) for b in result["content"]] == [
            ("image", "image/png"), ("text", "the image above is red"),
            ("image", "image/gif"), ("text", "the one above is blue")]
    finally:
        client.stop()


def test_gemini_tool_results_mark_where_each_image_stood(http):
    client = _story_server()
    try:
        requests = scripted(http, r"https://generativelanguage\.googleapis\.com/.*", [
            gemini_reply([{"functionCall": {"name": "story", "args": {}}}]),
            gemini_reply([{"text": "Red, then blue."}]),
        ])
        chat = ml.Chat("gemini/gemini-2.0-flash", api_key="gm-test-key")
        assert chat.with_tools(*client.tools()).ask("describe").content == "Red, then blue."
        wire = json.dumps(requests[1])
        marks = [wire.find(s) for s in ("[image 1 (image/png), attached]", "the image above is red",
                                        "[image 2 (image/gif), attached]", "the one above is blue")]
        assert -1 not in marks and marks == sorted(marks), wire[:2000]
        parts = [part for content in requests[1]["contents"] for outer in content["parts"]
                 for part in (outer, *(outer.get("function_response") or {}).get("parts", []))]
        inline = [found for p in parts if (found := p.get("inline_data") or p.get("inlineData"))]
        assert [i["mime_type"] for i in inline] == ["image/png", "image/gif"]
    finally:
        client.stop()
