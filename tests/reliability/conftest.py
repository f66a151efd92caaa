"""Fixtures of the reliability suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.chat.conftest import ScriptedLLM
from tests.scripted_llm.respx_mock import litellm_respx


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    """The scripted model of tests/chat (its fixture lives in that folder's conftest)."""
    with litellm_respx() as router:
        yield ScriptedLLM(router)
