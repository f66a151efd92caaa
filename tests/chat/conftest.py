"""The chat tests' scripted model (``llm``: a :class:`~tests.scripted_llm.respx_mock.ScriptedLLM`, at the HTTP
level, so LiteLLM's real request and response code runs) and their helpers.

Each request takes the next :class:`Turn`; streamed answers split text into words and tool-call arguments
into fragments the way providers do (or use ``Turn.raw_chunks`` for hand-made deltas)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import mcp_litellm as ml
from tests.scripted_llm.openai import Turn, chunk, completion_body, sse, stream_chunks
from tests.scripted_llm.respx_mock import API_BASE, MODEL, ScriptedLLM, litellm_respx

__all__ = ["API_BASE", "LLM", "MODEL", "ScriptedLLM", "Turn", "assert_history_valid", "chunk", "completion_body",
           "llm", "new_chat", "sse", "stream_chunks"]

LLM = {"api_base": API_BASE, "api_key": "sk-test-chat-key"}


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    """The scripted model (LiteLLM's async HTTP made visible to respx, client caches flushed)."""
    with litellm_respx() as router:
        yield ScriptedLLM(router)


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
