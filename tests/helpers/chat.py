"""A chat on the scripted model (tests/scripted_llm) and the history rule providers enforce."""

from __future__ import annotations

from typing import Any

import mcp_litellm as ml
from tests.scripted_llm.respx_mock import API_BASE, MODEL

LLM = {"api_base": API_BASE, "api_key": "sk-test-chat-key"}


def new_chat(**kwargs: Any) -> ml.Chat:
    return ml.Chat(MODEL, **{**LLM, **kwargs})


def assert_history_valid(messages: list[dict[str, Any]]) -> None:
    """Every assistant tool call is answered by exactly one tool message right after it (what providers demand)."""
    i = 0
    while i < len(messages):
        message = messages[i]
        calls = [c["id"] for c in message.get("tool_calls") or []] if message["role"] == "assistant" else []
        i += 1
        if calls:
            answered = []
            while i < len(messages) and messages[i]["role"] == "tool":
                answered.append(messages[i]["tool_call_id"])
                i += 1
            assert sorted(answered) == sorted(calls), f"tool calls {calls} answered by {answered}"
        elif message["role"] == "tool":
            raise AssertionError(f"tool message without a preceding tool call: {message}")
