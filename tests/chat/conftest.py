"""A scripted OpenAI-compatible model at the HTTP level (respx), answering in JSON or as an SSE stream.

LiteLLM's real request and response code runs; only the HTTP exchange is scripted. Each request
takes the next :class:`Turn`; streamed answers split text into words and tool-call arguments into
fragments the way providers do (or use ``Turn.raw_chunks`` for hand-made deltas).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import respx

import mcp_litellm as ml
from tests.scripted_llm.respx_mock import litellm_respx

API_BASE = "http://llm.test/v1"
MODEL = "openai/gpt-4o-mini"
LLM = {"api_base": API_BASE, "api_key": "sk-test-chat-key"}


@dataclass
class Turn:
    """One model answer: text and/or tool calls ``(id, name, arguments)`` (arguments: dict or raw text)."""

    content: str = ""
    tool_calls: list[tuple[str, str, Any]] = field(default_factory=list)
    raw_chunks: list[dict[str, Any]] | None = None  # stream deltas, used as they are
    status: int = 200


def _arguments(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def completion_body(turn: Turn, model: str = "gpt-4o-mini") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.content or None}
    if turn.tool_calls:
        message["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": _arguments(a)}}
                                 for i, n, a in turn.tool_calls]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if turn.tool_calls else "stop"}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}


def chunk(delta: dict[str, Any], finish: str | None = None, model: str = "gpt-4o-mini") -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def stream_chunks(turn: Turn) -> list[dict[str, Any]]:
    if turn.raw_chunks is not None:
        return turn.raw_chunks
    chunks = [chunk({"role": "assistant", "content": ""})]
    words = turn.content.split(" ") if turn.content else []
    chunks += [chunk({"content": word if i == 0 else " " + word}) for i, word in enumerate(words)]
    for index, (call_id, name, arguments) in enumerate(turn.tool_calls):
        text = _arguments(arguments)
        half = len(text) // 2
        chunks.append(chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                             "function": {"name": name, "arguments": text[:half]}}]}))
        chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": text[half:]}}]}))
    chunks.append(chunk({}, "tool_calls" if turn.tool_calls else "stop"))
    return chunks


def sse(chunks: list[dict[str, Any]]) -> bytes:
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


class ScriptedLLM:
    """Answers ``POST {API_BASE}/chat/completions`` from a script; records the request bodies."""

    def __init__(self, router: respx.MockRouter) -> None:
        self.script: list[Turn] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.route = router.post(f"{API_BASE}/chat/completions").mock(side_effect=self._answer)

    def then(self, *turns: Turn) -> ScriptedLLM:
        self.script.extend(turns)
        return self

    def _answer(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        with self._lock:
            self.requests.append(body)
            turn = self.script.pop(0) if self.script else None
        if turn is None:
            return httpx.Response(500, json={"error": {"message": "the script has no more turns"}})
        if turn.status != 200:
            return httpx.Response(turn.status, json={"error": {"message": f"scripted failure {turn.status}"}})
        if body.get("stream"):
            return httpx.Response(200, content=sse(stream_chunks(turn)), headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=completion_body(turn))

    def tool_messages(self, index: int) -> list[dict[str, Any]]:
        return [m for m in self.requests[index]["messages"] if m["role"] == "tool"]


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
