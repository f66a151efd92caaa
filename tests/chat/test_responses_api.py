"""Chat(api="responses"): the same chat over the Responses API, scripted at the HTTP level (``/v1/responses``
in JSON and as server-sent events), with a real MCP server's tools."""

from __future__ import annotations

import json

import pytest

import mcp_litellm as ml
from tests.helpers.responses import LLM, REASONING, answer_responses, call, text
from tests.scripted_llm.respx_mock import litellm_respx


@pytest.fixture
def scripted():
    """``scripted(outputs, stream=False)``: answer each /responses request with the next output list."""
    with litellm_respx() as router:
        requests: list[dict] = []
        yield lambda outputs, stream=False: answer_responses(router, outputs, stream, requests)


def test_a_tool_loop_over_the_responses_api(scripted, make_client):
    client = make_client("memory")
    requests = scripted([[REASONING, call("call_1", "add", {"a": 2, "b": 40}), call("call_2", "add", {"a": 1, "b": 1})],
                         [text("42 and 2.")]])
    chat = ml.Chat("openai/gpt-4o", api="responses", **LLM).with_instructions("Add.").with_tools(client.tool("add"))
    reply = chat.ask("2+40 and 1+1?")
    assert reply.content == "42 and 2." and chat.api == "responses"
    first, second = requests
    assert first["instructions"] == "Add." and [t["name"] for t in first["tools"]] == ["add"]
    assert first["tools"][0]["type"] == "function" and first["tools"][0]["parameters"]["required"] == ["a", "b"]
    kinds = [item["type"] for item in second["input"]]
    # the reasoning item goes back before the calls it led to, as reasoning models require
    assert kinds == ["message", "reasoning", "function_call", "function_call", "function_call_output",
                     "function_call_output"]
    assert second["input"][1]["encrypted_content"] == "ENCRYPTED-THOUGHTS"
    outputs = {item["call_id"]: json.dumps(item["output"]) for item in second["input"]
               if item["type"] == "function_call_output"}
    calls = {item["call_id"] for item in second["input"] if item["type"] == "function_call"}
    assert set(outputs) == calls and sorted("42" in o or "2" in o for o in outputs.values()) == [True, True]
    assert chat.usage.requests == 2 and chat.usage.prompt_tokens == 80 and chat.usage.cache_read_tokens == 32
    assert chat.usage.cost is not None and chat.usage.cost > 0  # priced as gpt-4o, not "responses/gpt-4o"


async def test_streaming_over_the_responses_api_shows_calls_as_they_form(scripted, make_client):
    client = make_client("memory")
    requests = scripted([[REASONING, call("call_9", "add", {"a": 4, "b": 5})], [text("It is 9.")]], stream=True)
    chat = ml.Chat("openai/gpt-4o", api="responses", **LLM).with_tools(client.tool("add"))
    chunks = [chunk async for chunk in chat.astream("4+5?")]
    forming = [c for c in chunks if c.event == "tool_call"]
    assert forming and all(c.tool_calls for c in forming)
    grown = [next(iter(c.tool_calls.values())).arguments for c in forming]
    assert grown[-1] == json.dumps({"a": 4, "b": 5}) and len(set(grown)) > 1  # arguments grew piece by piece
    assert [c.event for c in chunks if c.event in ("tool_start", "tool_end")] == ["tool_start", "tool_end"]
    assert next(c for c in chunks if c.event == "tool_end").tool_result.text == "9"
    assert "".join(c.content for c in chunks) == "It is 9."
    assert any(item["type"] == "reasoning" for item in requests[1]["input"])
    assert chat.usage.prompt_tokens == 80


def test_a_model_the_bridge_does_not_serve_is_refused_with_what_to_do(scripted):
    scripted([])
    chat = ml.Chat("anthropic/claude-sonnet-4-5", api="responses", api_key="sk-ant")
    with pytest.raises(ml.ConfigError, match="api='responses' serves OpenAI and Azure models"):
        chat.ask("hi")
    assert chat.messages == []  # the question was rolled back: it can be asked again
    with pytest.raises(ml.ConfigError, match="api must be 'chat'"):
        ml.Chat("gpt-4o", api="completions")


def test_a_router_is_told_to_name_the_bridge_in_its_model_list():
    router = ml._llm.litellm_module().Router(model_list=[{"model_name": "m", "litellm_params": {"model": "gpt-4o"}}])
    with pytest.raises(ml.ConfigError, match="openai/responses/<model>"):
        ml.Chat("m", router=router, api="responses")
