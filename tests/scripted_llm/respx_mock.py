"""Mocking a model at the HTTP level with respx, so LiteLLM's real request and response code runs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import respx


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
