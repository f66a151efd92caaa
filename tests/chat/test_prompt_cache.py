"""Prompt caching at the HTTP level: the breakpoints an Anthropic request carries, a prefix that stays
byte-identical through a tool loop and a tool-search reveal, and the cache tokens in usage and cost."""

from __future__ import annotations

import json

import httpx
import pytest

import mcp_litellm as ml
from mcp_litellm import _llm
from tests.chat.caching_llm import AnthropicCache, OpenAICache, anthropic_text, anthropic_tool_use
from tests.helpers.chat import LLM
from tests.scripted_llm.respx_mock import API_BASE, litellm_respx

CLAUDE = "anthropic/claude-sonnet-4-5"
ANTHROPIC = {"api_base": "http://anthropic.test", "api_key": "sk-ant-test"}


@pytest.fixture
def http():
    with litellm_respx() as router:
        yield router


@pytest.fixture
def client(make_client):
    return make_client("memory")


def marks(body):
    """Where a Messages API request carries cache_control: 'tool:<name>', 'system', '<role>' per message."""
    found = [f"tool:{t['name']}" for t in body.get("tools") or [] if "cache_control" in t]
    found += ["system" for b in body.get("system") or [] if isinstance(b, dict) and "cache_control" in b]
    for message in body["messages"]:
        content = message["content"]
        found += [message["role"] for b in (content if isinstance(content, list) else [])
                  if isinstance(b, dict) and "cache_control" in b]
    return found


def without_marks(tools):
    return json.dumps([{k: v for k, v in t.items() if k != "cache_control"} for t in tools])


def test_an_anthropic_tool_loop_marks_tools_system_and_latest_turn(http, client):
    server = AnthropicCache([anthropic_tool_use("add", {"a": 2, "b": 3}), anthropic_text("5")])
    http.post(url__regex=r"http://anthropic\.test/.*").mock(side_effect=server)
    chat = ml.Chat(CLAUDE, **ANTHROPIC).with_instructions("You add numbers.")
    reply = chat.with_tools(client.tool("add"), client.tool("echo")).ask("2+3?")
    assert reply.content == "5"
    first, second = server.requests
    last_tool = first["tools"][-1]["name"]
    assert marks(first) == [f"tool:{last_tool}", "system", "user"]
    assert marks(second) == [f"tool:{last_tool}", "system", "user"]  # the tool result is the latest turn
    assert second["messages"][-1]["content"][0]["type"] == "tool_result"
    assert all(len(marks(body)) <= 4 for body in server.requests)  # Anthropic's limit
    assert json.dumps(first["tools"]) == json.dumps(second["tools"])  # byte-identical through the loop
    assert json.dumps(first["system"]) == json.dumps(second["system"])
    # the second request read the first one's prefix from the cache
    assert server.usage[1]["cache_read_input_tokens"] > 0


def test_usage_counts_cache_reads_and_writes_and_prices_them(http, client):
    server = AnthropicCache([anthropic_tool_use("add", {"a": 1, "b": 1}), anthropic_text("2")])
    http.post(url__regex=r"http://anthropic\.test/.*").mock(side_effect=server)
    chat = ml.Chat(CLAUDE, **ANTHROPIC).with_tools(client.tool("add"))
    reply = chat.ask("1+1?")
    read = sum(u["cache_read_input_tokens"] for u in server.usage)
    written = sum(u["cache_creation_input_tokens"] for u in server.usage)
    assert read > 0 and written > 0
    assert (chat.usage.cache_read_tokens, chat.usage.cache_write_tokens) == (read, written)
    assert (reply.usage.cache_read_tokens, reply.usage.cache_write_tokens) == (read, written)
    assert chat.last_message.cache_read_tokens == server.usage[1]["cache_read_input_tokens"]
    # the cost is LiteLLM's, at the cache prices: reading is cheaper than the same tokens uncached
    plain = sum(sum(_llm.litellm_module().cost_per_token(
        model=CLAUDE, prompt_tokens=u["input_tokens"] + u["cache_read_input_tokens"]
        + u["cache_creation_input_tokens"], completion_tokens=u["output_tokens"])) for u in server.usage)
    cached = sum(sum(_llm.litellm_module().cost_per_token(
        model=CLAUDE, prompt_tokens=u["input_tokens"] + u["cache_read_input_tokens"]
        + u["cache_creation_input_tokens"], completion_tokens=u["output_tokens"],
        cache_read_input_tokens=u["cache_read_input_tokens"],
        cache_creation_input_tokens=u["cache_creation_input_tokens"])) for u in server.usage)
    assert chat.usage.cost == pytest.approx(cached) and cached != pytest.approx(plain)


def _anthropic_stream(server, text):
    """A streamed Anthropic answer whose message_start carries the cache usage the server accounts."""
    def answer(request):
        body = json.loads(request.content)
        server.requests.append(body)
        usage = server.account(body)
        events = [
            {"type": "message_start", "message": {"id": "msg_s", "type": "message", "role": "assistant",
                                                  "model": "claude-sonnet-4-5", "content": [], "stop_reason": None,
                                                  "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}},
            {"type": "message_stop"},
        ]
        data = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
        return httpx.Response(200, content=data, headers={"content-type": "text/event-stream"})
    return answer


async def test_a_streamed_turn_reports_cache_tokens(http, client):
    server = AnthropicCache()
    http.post(url__regex=r"http://anthropic\.test/.*").mock(side_effect=_anthropic_stream(server, "hello"))
    chat = ml.Chat(CLAUDE, **ANTHROPIC).with_instructions("Be brief.").with_tools(client.tool("add"))
    first = "".join([c.content async for c in chat.astream("hi")])
    second = "".join([c.content async for c in chat.astream("again")])
    assert first == second == "hello"
    assert marks(server.requests[0]) and marks(server.requests[1])
    assert server.usage[1]["cache_read_input_tokens"] > 0
    assert chat.usage.cache_read_tokens == server.usage[1]["cache_read_input_tokens"]
    # a streamed Anthropic turn is counted at all (LiteLLM gives its usage only when asked)
    assert chat.usage.prompt_tokens == sum(u["input_tokens"] + u["cache_read_input_tokens"]
                                           + u["cache_creation_input_tokens"] for u in server.usage)
    assert chat.usage.cache_write_tokens == sum(u["cache_creation_input_tokens"] for u in server.usage)


def test_prompt_cache_false_marks_nothing(http, client):
    server = AnthropicCache()
    http.post(url__regex=r"http://anthropic\.test/.*").mock(side_effect=server)
    chat = ml.Chat(CLAUDE, prompt_cache=False, **ANTHROPIC).with_instructions("x").with_tools(client.tool("add"))
    chat.ask("hi")
    assert marks(server.requests[0]) == []
    chat.prompt_cache = "auto"  # switched on between turns
    chat.ask("again")
    assert marks(server.requests[1]) != []


def test_the_users_own_injection_points_win(http, client):
    server = AnthropicCache()
    http.post(url__regex=r"http://anthropic\.test/.*").mock(side_effect=server)
    chat = ml.Chat(CLAUDE, cache_control_injection_points=[{"location": "message", "role": "system"}], **ANTHROPIC)
    chat.with_instructions("x").with_tools(client.tool("add")).ask("hi")
    assert marks(server.requests[0]) == ["system"]


def test_an_openai_request_carries_no_marks_and_its_cached_tokens_count(http, client):
    server = OpenAICache([lambda body: {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}]},
        lambda body: {"role": "assistant", "content": "3"}])
    http.post(f"{API_BASE}/chat/completions").mock(side_effect=server)
    chat = ml.Chat("openai/gpt-4o-mini", **LLM).with_instructions("Add. " * 1200).with_tools(client.tool("add"))
    assert chat.ask("1+2?").content == "3"
    assert "cache_control" not in json.dumps(server.requests)
    assert server.usage[1]["prompt_tokens_details"]["cached_tokens"] > 0
    assert chat.usage.cache_read_tokens == server.usage[1]["prompt_tokens_details"]["cached_tokens"]
    assert chat.usage.cache_write_tokens == 0


def test_tools_revealed_by_search_are_appended_after_those_already_sent(http, client):
    server = AnthropicCache([
        lambda body: {"content": [{"type": "tool_use", "id": "toolu_s", "name": "search_tools",
                                   "input": {"query": "add two numbers"}}], "stop_reason": "tool_use"},
        anthropic_tool_use("add", {"a": 1, "b": 2}, "toolu_a"),
        anthropic_text("3"),
    ])
    http.post(url__regex=r"http://anthropic\.test/.*").mock(side_effect=server)
    chat = ml.Chat(CLAUDE, tool_search=True, **ANTHROPIC).with_tools(client.tools())
    assert chat.ask("1+2?").content == "3"
    sent = [[t["name"] for t in body["tools"]] for body in server.requests]
    assert sent[0] == ["search_tools"] and "add" in sent[1]
    for earlier, later in zip(server.requests, server.requests[1:], strict=False):  # each list extends the last
        before = json.loads(without_marks(earlier["tools"]))
        assert json.loads(without_marks(later["tools"]))[:len(before)] == before
    assert server.usage[2]["cache_read_input_tokens"] > 0


def test_a_bad_setting_says_what_is_allowed():
    with pytest.raises(ml.ConfigError, match="prompt_cache must be 'auto', True or False"):
        ml.Chat(CLAUDE, prompt_cache="always")
    chat = ml.Chat(CLAUDE)
    with pytest.raises(ml.ConfigError, match="prompt_cache"):
        chat.prompt_cache = "on"  # type: ignore[assignment]
    assert chat.prompt_cache == "auto"


def test_usage_adds_cache_fields():
    total = ml.Usage(10, 2, None, 1, 6, 4) + ml.Usage(5, 1, None, 1, 3, 0)
    assert (total.cache_read_tokens, total.cache_write_tokens, total.prompt_tokens) == (9, 4, 15)
    assert ml.Usage().cache_read_tokens == 0 and ml.Usage().cache_write_tokens == 0
