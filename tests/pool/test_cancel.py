"""ClientPool: a caller cancelled just as it is granted its user's group (asyncio.wait_for running out, a web
client disconnecting) leaves no slot taken; the group of an evicted user says so and cannot be restarted."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

import mcp_litellm as ml


def _wait_until(condition: Any, what: str, timeout: float = 60.0) -> None:
    """Block this thread (and the loop it runs) until ``condition()``; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


@pytest.mark.parametrize("how", ["aborrow", "afor_user"])
async def test_a_caller_cancelled_as_its_slot_is_granted_leaves_the_slot_free(pool_http, how):
    config = {"mcpServers": {"api": {"url": pool_http, "per_user": True}}}
    async with ml.ClientPool(config, max_users=1, idle_timeout=None, wait_timeout=60) as pool:
        inside, leave = threading.Event(), threading.Event()

        def hold() -> None:  # alice holds the only slot, from a thread, so that this loop can be blocked below
            with pool.borrow("alice"):
                inside.set()
                leave.wait(60)

        holder = threading.Thread(target=hold)
        holder.start()
        await asyncio.to_thread(inside.wait, 60)

        async def request() -> None:
            if how == "aborrow":
                async with pool.aborrow("bob"):
                    pytest.fail("the cancelled caller never gets in")
            else:
                await pool.afor_user("bob")
                pytest.fail("the cancelled caller never gets the group")

        task = asyncio.ensure_future(request())
        deadline = time.monotonic() + 30
        while not pool._waiters and time.monotonic() < deadline:  # bob waits for the slot
            await asyncio.sleep(0.01)
        assert pool._waiters

        # This loop is blocked from here on: the pool's loop grants bob the slot, but the answer cannot reach
        # the caller before it is cancelled (the race of a client disconnecting as it gets its slot).
        leave.set()

        def granted() -> bool:
            entry = pool._users.get("bob")
            return entry is not None and entry.starting.done() and not entry.pending
        _wait_until(granted, "bob's group to be handed over")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.to_thread(holder.join, 30)

        # bob never got the group: the slot is free for the next user at once (it was held for ever)
        async with pool.aborrow("carol", wait_timeout=15) as servers:
            assert (await servers.aexecute_tool("echo", {"text": "carol"})).text == "carol"
        assert pool.users == ["carol"]
