"""One group started once (as in an ASGI app's lifespan) serving many concurrent requests."""

from __future__ import annotations

import asyncio
import time

import pytest

import mcp_litellm as ml
from tests.helpers.entries import pool_entry

REQUESTS = 200
DELAY = 0.25


@pytest.mark.parametrize("transport", ["streamable", "stdio"])
async def test_200_concurrent_requests_on_one_group_no_cross_talk_not_serialised(transport, pool_http, marker):
    entry = {"url": pool_http} if transport == "streamable" else pool_entry(marker)
    async with ml.aestablish_connection({"mcpServers": {"echo": entry}}) as group:

        async def request(i: int) -> tuple[str, str]:  # one web request: its own task, its own argument
            await asyncio.sleep(0)
            result = await group.aexecute_tool("echo", {"text": f"request-{i}", "delay": DELAY})
            return f"request-{i}", result.text

        started = time.monotonic()
        answers = await asyncio.gather(*(asyncio.ensure_future(request(i)) for i in range(REQUESTS)))
        elapsed = time.monotonic() - started
        for sent, received in answers:
            assert received == sent
        assert len({received for _, received in answers}) == REQUESTS
        # serialised, they would take REQUESTS * DELAY = 50 s; concurrently, a few DELAYs
        assert elapsed < REQUESTS * DELAY / 5, elapsed
        # nothing is kept per finished request: the calls in flight are all gone
        connection = group["echo"]._connection
        assert connection is not None and connection.calls.in_flight == 0


async def test_requests_from_many_threads_share_one_group(pool_http):
    async with ml.aestablish_connection({"mcpServers": {"echo": {"url": pool_http}}}) as group:

        def request(i: int) -> str:  # a sync endpoint runs in a worker thread
            return group.execute_tool("echo", {"text": f"thread-{i}", "delay": 0.1}).text

        answers = await asyncio.gather(*(asyncio.to_thread(request, i) for i in range(32)))
        assert answers == [f"thread-{i}" for i in range(32)]
