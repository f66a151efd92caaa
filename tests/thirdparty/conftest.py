"""Fixtures the server-everything tests share with the suites they came from (client features: a
queued scripted model and a clean global config for each test)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mcp_litellm as ml
from tests.scripted_llm.respx_mock import QueuedLLM, litellm_respx


@pytest.fixture
def llm() -> Iterator[QueuedLLM]:
    """The queued model of tests/features (LiteLLM's async calls visible to respx)."""
    with litellm_respx() as router:
        yield QueuedLLM(router)


@pytest.fixture(autouse=True)
def clean_config() -> Iterator[None]:
    """Every test starts and ends with the built-in defaults."""
    ml.config.reset()
    yield
    ml.config.reset()
