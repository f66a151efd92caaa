"""``Chat.tool_search_reason()``: whether the next request offers the ``search_tools`` catalog, and why, in words."""

from __future__ import annotations

import re

import mcp_litellm as ml
from tests.helpers.chat import LLM
from tests.servers.catalog_server import build_server

UNKNOWN_MODEL = "openai/my-local-model"  # LiteLLM knows no input window for it


def test_the_reason_names_the_tools_the_tokens_and_where_the_budget_comes_from(make_client):
    tools = make_client("memory").tools()
    count = len(tools)
    assert ml.Chat("openai/gpt-4o-mini", **LLM).with_tools(tools).tool_search_reason() is None  # under 6,400
    reason = ml.Chat("openai/gpt-4o-mini", tool_budget=50, **LLM).with_tools(tools).tool_search_reason()
    assert re.fullmatch(rf"{count} tools \([\d,]+ tokens of definitions\) exceed the 50-token tool budget for "
                        r"openai/gpt-4o-mini \(as set\)", reason or ""), reason
    reason = ml.Chat("openai/gpt-4o-mini", tool_budget=50, tool_search=False, **LLM).with_tools(tools)
    assert reason.tool_search_reason() is None
    assert ml.Chat("m", tool_search=True).with_tools(tools[:1]).tool_search_reason() == \
        "tool search is always on (1 tool)"
    assert ml.Chat("m", tool_search=True).tool_search_reason() is None  # no tools, nothing to search


def test_a_model_litellm_does_not_know_gets_the_default_budget():
    with ml.client("catalog", "memory", {"server": build_server(100)}) as client:
        chat = ml.Chat(UNKNOWN_MODEL, **LLM).with_tools(client.tools())
        reason = chat.tool_search_reason()
        assert re.fullmatch(rf"100 tools \([\d,]+ tokens of definitions\) exceed the 2,000-token tool budget for "
                            rf"{UNKNOWN_MODEL} \(the default for a model whose input window LiteLLM does not know\)",
                            reason or ""), reason
        assert [d["function"]["name"] for d in chat.tool_definitions()] == ["search_tools"]

    def lookup(term: str) -> str:
        return term

    lookup.__doc__ = "Look a term up in the glossary. " * 1_000  # about 7,000 tokens, over 5% of 128,000
    known = ml.Chat("openai/gpt-4o-mini", **LLM).with_tools(lookup)
    reason = known.tool_search_reason()
    assert (reason or "").endswith("exceed the 6,400-token tool budget for openai/gpt-4o-mini (5% of its 128,000-token "
                                   "input window)"), reason
    with ml.client("catalog", "memory", {"server": build_server(200)}) as client:
        chat = ml.Chat("openai/gpt-4o-mini", tool_budget=10**9, **LLM).with_tools(client.tools())
        assert chat.tool_search_reason() == "200 tools are more than the 128 one request may carry"


def test_the_reason_is_known_before_the_first_request_for_a_live_group():
    with ml.ClientGroup({"mcpServers": {"catalog": {"server": build_server(200)}}}) as group:
        chat = ml.Chat("openai/gpt-4o-mini", tool_budget=10**9, **LLM).with_tools(group)
        assert chat.tool_search_reason() == "200 tools are more than the 128 one request may carry"
    with ml.client("catalog", "memory", {"server": build_server(3)}) as client:
        chat = ml.Chat("openai/gpt-4o-mini", tool_search=True, **LLM).with_tools(client)
        assert chat.tool_search_reason() == "tool search is always on (3 tools)"
