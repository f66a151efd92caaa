"""Registering a handler does no I/O: ``on_sampling``/``on_elicitation``/``on_logging`` called from async code
neither stall the caller's loop nor raise (also after ``ml.use_running_loop()``); the next request
re-initialises the session on the loop that owns it, and the server's request reaches the new handler."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import mcp_litellm as ml
from tests.helpers.features import GOOD, result_json
from tests.helpers.servers import FIXTURE_SERVER

STDIO = {"command": sys.executable, "args": [str(FIXTURE_SERVER)]}


@asynccontextmanager
async def longest_gap() -> AsyncIterator[list[float]]:
    """Measure the longest time the running loop went without running a 5 ms ticker (seconds)."""
    gaps = [0.0]
    stop = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps[0] = max(gaps[0], now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.02)  # the ticker is running
    try:
        yield gaps
    finally:
        stop.set()
        await ticker


async def _register_then_sample(client: ml.Client, register: Callable[[], Any],
                                request: Callable[[], Awaitable[Any]]) -> tuple[float, float, Any]:
    """(longest loop gap while registering, seconds the next request took, its result)."""
    async with longest_gap() as gap:
        register()
        await asyncio.sleep(0.05)
    started = time.perf_counter()
    result = await request()
    return gap[0], time.perf_counter() - started, result


async def test_on_sampling_from_async_code_does_not_block_the_loop(llm) -> None:
    async with ml.client("fixture", "stdio", STDIO, protocol="legacy", start=False) as client:
        pid = (await client.aexecute_tool("pid")).text
        gap, next_request, result = await _register_then_sample(
            client, lambda: client.on_sampling(lambda sample: "from the new handler"),
            lambda: client.aexecute_tool("sample_text", {"prompt": "x"}))
        assert result_json(result)["content"][0]["text"] == "from the new handler"
        assert (await client.aexecute_tool("pid")).text != pid, "the next request should re-initialise the session"
        # the re-initialisation (a new stdio process) happened in the next request, not while registering
        assert gap < next_request / 2, f"registering stalled the loop {gap:.3f}s (the restart took {next_request:.3f}s)"


def test_on_sampling_and_on_elicitation_after_use_running_loop_neither_raise_nor_block(llm) -> None:
    async def main() -> tuple[float, float, Any, float, Any]:
        ml.use_running_loop()
        async with ml.client("fixture", "stdio", STDIO, start=False) as client:
            await client.aexecute_tool("pid")
            gap, took, sampled = await _register_then_sample(
                client, lambda: client.on_sampling(lambda sample: "answered on my loop"),
                lambda: client.aexecute_tool("sample_text", {"prompt": "x"}))
            gap2, _took2, elicited = await _register_then_sample(
                client, lambda: client.on_elicitation(lambda e: dict(GOOD)),
                lambda: client.aexecute_tool("elicit_form"))
        return gap, took, sampled, gap2, elicited

    gap, took, sampled, gap2, elicited = asyncio.run(main())
    assert result_json(sampled)["content"][0]["text"] == "answered on my loop"
    assert result_json(elicited)["action"] == "accept"
    assert max(gap, gap2) < took / 2, f"registering stalled the loop ({gap:.3f}s, {gap2:.3f}s; restart {took:.3f}s)"


def test_on_logging_after_use_running_loop_records_and_the_next_request_sets_the_level() -> None:
    async def main() -> tuple[list[str], str]:
        ml.use_running_loop()
        seen: list[str] = []
        async with ml.client("fixture", "stdio", STDIO, protocol="legacy", start=False) as client:
            await client.aexecute_tool("pid")
            client.on_logging(lambda level, name, data: seen.append(level), level="warning")  # no I/O: no raise
            await client.aexecute_tool("chatty")
            events = (await client.aexecute_tool("server_events")).structured["result"]
            for _ in range(200):
                if len(seen) >= 2:
                    break
                await asyncio.sleep(0.01)
        return sorted(seen), events

    seen, events = asyncio.run(main())
    assert seen == ["error", "warning"]
    assert "log level warning" in events
