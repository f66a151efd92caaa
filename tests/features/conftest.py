"""Fixtures for client-feature tests: a fake OpenAI-compatible LLM at the HTTP level (respx), so
sampling really goes through LiteLLM, and a clean ``ml.config`` for every test."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import respx
from httpx import Response

import mcp_litellm as ml
from tests.scripted_llm.respx_mock import litellm_respx

API_BASE = "http://llm.test/v1"
MODEL = "openai/gpt-4o-mini"
LLM = {"api_base": API_BASE, "api_key": "sk-test-secret-value"}


def completion(text: str | None = "Hello from the model", *, finish_reason: str = "stop",
               tool_calls: list[dict[str, Any]] | None = None, model: str = "gpt-4o-mini-2024-07-18") -> dict[str, Any]:
    """An OpenAI chat completion body."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {"id": c.get("id", f"call_{i}"), "type": "function",
             "function": {"name": c["name"], "arguments": c["arguments"] if isinstance(c["arguments"], str)
                          else json.dumps(c["arguments"])}}
            for i, c in enumerate(tool_calls)]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}


class FakeLLM:
    """Answers ``POST {API_BASE}/chat/completions`` with queued bodies and records every request body."""

    def __init__(self, router: respx.MockRouter) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[tuple[int, dict[str, Any]]] = []
        self.default: tuple[int, dict[str, Any]] = (200, completion())
        self._lock = threading.Lock()
        router.post(f"{API_BASE}/chat/completions").mock(side_effect=self._answer)

    def reply(self, body: dict[str, Any], status: int = 200) -> FakeLLM:
        """Queue one reply (used in order; then the default)."""
        self.replies.append((status, body))
        return self

    def _answer(self, request: Any) -> Response:
        with self._lock:
            self.requests.append(json.loads(request.content))
            status, body = self.replies.pop(0) if self.replies else self.default
        return Response(status, json=body)

    @property
    def last(self) -> dict[str, Any]:
        assert self.requests, "the LLM was never called"
        return self.requests[-1]


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    """The fake LLM; also makes LiteLLM's async calls visible to respx."""
    with litellm_respx() as router:
        yield FakeLLM(router)


@pytest.fixture(autouse=True)
def clean_config() -> Iterator[None]:
    """Every test starts and ends with the built-in defaults."""
    ml.config.reset()
    yield
    ml.config.reset()


def sampling(**extra: Any) -> dict[str, Any]:
    """Sampling settings that reach the fake LLM."""
    return {"enabled": True, "default_model": MODEL, "completion_kwargs": dict(LLM), **extra}


@pytest.fixture(params=["legacy", "auto"])
def protocol(request: pytest.FixtureRequest) -> str:
    """Both protocol eras: 2025-11-25 push requests ("legacy") and 2026-07-28 input-required rounds."""
    return str(request.param)


def result_json(result: Any) -> Any:
    assert not result.is_error, result.text
    return json.loads(result.text)


Make = Callable[..., ml.Client]


def refusal(client: ml.Client, tool: str, arguments: dict[str, Any] | None = None) -> str:
    """Call a tool whose server request the client refuses; the text of the resulting error.

    The fixture server does not catch the refusal: on 2025-11-25 its tool call fails with the
    client's JSON-RPC error; on 2026-07-28 the SDK ends the call when an input request is refused.
    Either way the caller sees a ``ServerError``, or a ``ConfigError`` when the refusal was the SDK's
    own for a feature this client has off (saying what to enable); an error *result* is accepted too.
    """
    try:
        result = client.execute_tool(tool, arguments or {})
    except ml.ServerError as exc:
        return exc.message
    except ml.ConfigError as exc:
        assert "which is not enabled on it" in str(exc) and "enable it with" in str(exc), exc
        return str(exc)
    assert result.is_error, f"expected a refusal, got {result.text!r}"
    return result.text
