"""Fixtures for client-feature tests: a fake OpenAI-compatible LLM at the HTTP level (respx), so
sampling really goes through LiteLLM, and a clean ``ml.config`` for every test."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import mcp_litellm as ml
from tests.scripted_llm.openai import completion
from tests.scripted_llm.respx_mock import API_BASE, MODEL, QueuedLLM, litellm_respx

__all__ = ["API_BASE", "LLM", "MODEL", "FakeLLM", "completion", "llm", "protocol", "refusal", "result_json",
           "sampling"]

LLM = {"api_base": API_BASE, "api_key": "sk-test-secret-value"}
FakeLLM = QueuedLLM


@pytest.fixture
def llm() -> Iterator[QueuedLLM]:
    """The fake LLM; also makes LiteLLM's async calls visible to respx."""
    with litellm_respx() as router:
        yield QueuedLLM(router)


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
