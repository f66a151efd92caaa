"""Mocking a model at the HTTP level with respx, so LiteLLM's real request and response code runs.

``litellm_respx()`` makes LiteLLM's calls visible to a respx router; on it, :class:`ScriptedLLM` answers each
request with the next :class:`~tests.scripted_llm.openai.Turn` (as JSON or as an SSE stream), and
:class:`QueuedLLM` with the next queued completion body (then a default one).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import respx

from tests.scripted_llm.openai import Turn, completion, completion_body, sse, stream_chunks

API_BASE = "http://llm.test/v1"
MODEL = "openai/gpt-4o-mini"


@contextmanager
def litellm_respx() -> Iterator[respx.MockRouter]:
    """A respx router that sees LiteLLM's sync and async HTTP calls.

    LiteLLM's async calls go through an aiohttp transport respx cannot see unless it is disabled, and
    clients LiteLLM cached earlier (with the other transport) must be flushed before and after.
    """
    from mcp_litellm._llm import litellm_module

    litellm = litellm_module()
    litellm.disable_aiohttp_transport = True
    litellm.in_memory_llm_clients_cache.flush_cache()
    try:
        with respx.mock(assert_all_called=False) as router:
            yield router
    finally:
        litellm.in_memory_llm_clients_cache.flush_cache()


class ScriptedLLM:
    """Answers ``POST {API_BASE}/chat/completions`` from a script of turns; records the request bodies."""

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


class QueuedLLM:
    """Answers ``POST {API_BASE}/chat/completions`` with queued bodies and records every request body."""

    def __init__(self, router: respx.MockRouter) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[tuple[int, dict[str, Any]]] = []
        self.default: tuple[int, dict[str, Any]] = (200, completion())
        self._lock = threading.Lock()
        router.post(f"{API_BASE}/chat/completions").mock(side_effect=self._answer)

    def reply(self, body: dict[str, Any], status: int = 200) -> QueuedLLM:
        """Queue one reply (used in order; then the default)."""
        self.replies.append((status, body))
        return self

    def _answer(self, request: Any) -> httpx.Response:
        with self._lock:
            self.requests.append(json.loads(request.content))
            status, body = self.replies.pop(0) if self.replies else self.default
        return httpx.Response(status, json=body)

    @property
    def last(self) -> dict[str, Any]:
        assert self.requests, "the LLM was never called"
        return self.requests[-1]
