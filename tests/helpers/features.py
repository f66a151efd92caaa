"""Client-feature helpers: sampling settings that reach the queued model, a tool result as JSON, a refused server
request's text, and a form answer that passes every field of the fixture server's elicitation."""

from __future__ import annotations

import json
from typing import Any

import mcp_litellm as ml
from tests.scripted_llm.respx_mock import API_BASE, MODEL

LLM = {"api_base": API_BASE, "api_key": "sk-test-secret-value"}


def sampling(**extra: Any) -> dict[str, Any]:
    """Sampling settings that reach the fake LLM."""
    return {"enabled": True, "default_model": MODEL, "completion_kwargs": dict(LLM), **extra}


def result_json(result: Any) -> Any:
    assert not result.is_error, result.text
    return json.loads(result.text)


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


GOOD = {"name": "Ada", "email": "ada@example.com", "homepage": "https://ada.example", "birthday": "1815-12-10",
        "age": 36, "height": 1.65, "subscribe": True, "color": "green", "size": "s", "pet": "cat",
        "toppings": ["cheese", "ham"], "tags": ["a", "b"]}
