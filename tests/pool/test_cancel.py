"""ClientPool: a caller cancelled just as it is granted its user's group (asyncio.wait_for running out, a web
client disconnecting) leaves no slot taken; the group of an evicted user says so and cannot be restarted."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.entries import pool_entry
from tests.helpers.processes import processes_with, wait_no_processes


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


async def test_an_evicted_users_group_says_the_pool_stopped_it_and_cannot_be_restarted_outside_it(marker):
    config = {"mcpServers": {"own": pool_entry(marker, per_user=True)}}
    async with ml.ClientPool(config, max_users=1) as pool:
        alice = await pool.afor_user("alice")
        assert (await alice.aexecute_tool("echo", {"text": "a"})).text == "a"
        bob = await pool.afor_user("bob")  # alice is idle: her group is stopped to make room
        assert (await bob.aexecute_tool("echo", {"text": "b"})).text == "b"
        await asyncio.to_thread(_wait_until, lambda: len(processes_with(marker)) == 1, "alice's process to end")
        with pytest.raises(ml.TransportError) as info:
            await alice.aexecute_tool("echo", {"text": "a"})
        message = str(info.value)
        assert "the pool stopped user 'alice''s connections (evicted as the least recently used idle user" in message
        assert "call pool.for_user('alice') or pool.borrow('alice')" in message and "start()" not in message
        for restart in (alice.astart, alice["own"].astart):
            with pytest.raises(ml.TransportError, match="the pool stopped user 'alice'"):
                await restart()
        assert len(processes_with(marker)) == 1 and pool.users == ["bob"]  # no process started outside the pool
        alice = await pool.afor_user("alice")  # a new group for her, from the pool
        assert (await alice.aexecute_tool("echo", {"text": "a2"})).text == "a2"
    assert not await asyncio.to_thread(wait_no_processes, marker)
    with pytest.raises(ml.TransportError, match=r"the pool stopped user 'alice''s connections \(the pool was closed\)"):
        await alice.aexecute_tool("echo", {"text": "a"})

