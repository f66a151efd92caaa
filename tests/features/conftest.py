"""Fixtures for client-feature tests: a fake OpenAI-compatible LLM at the HTTP level (respx), so
sampling really goes through LiteLLM, and a clean ``ml.config`` for every test (helpers: tests/helpers/features.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mcp_litellm as ml
from tests.scripted_llm.respx_mock import QueuedLLM, litellm_respx


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


@pytest.fixture(params=["legacy", "auto"])
def protocol(request: pytest.FixtureRequest) -> str:
    """Both protocol eras: 2025-11-25 push requests ("legacy") and 2026-07-28 input-required rounds."""
    return str(request.param)
