"""ClientPool at max_users under concurrent load: a user whose group is starting or in use is never stopped
under itself; a new user waits for a slot (first come, first served) and gets PoolFullError after wait_timeout."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import mcp_litellm as ml
from tests.helpers.entries import pool_entry
from tests.helpers.processes import alive, processes_with, wait_dead, wait_no_processes

FULL = re.compile(r"ClientPool is full: user '[^']+' waited \d+\.\ds \(wait_timeout\) for a slot, but "
                  r"(all \d+ users' groups|1 user's group) stayed in use \(max_users=\d+: .*\); raise max_users or "
                  r"wait_timeout, and release borrowed "
                  r"groups")
"""The documented message of PoolFullError: the only error these tests accept besides none."""


async def test_two_users_at_max_users_1_the_second_waits_then_gets_its_own_group(marker):
    config = {"mcpServers": {"own": pool_entry(marker, per_user=True)}}
    async with ml.ClientPool(config, max_users=1, wait_timeout=60) as pool:
        events: list[str] = []
        pids: dict[str, int] = {}

        async def request(user: str) -> str:  # both start at once: bob arrives while alice is still connecting
            async with pool.aborrow(user) as servers:
                events.append(f"{user} in")
                pids[user] = int((await servers.aexecute_tool("pid")).text)
                answer = (await servers.aexecute_tool("echo", {"text": user, "delay": 0.3})).text
                assert pool.users == [user]
                events.append(f"{user} out")
                return answer

        assert await asyncio.gather(request("alice"), request("bob")) == ["alice", "bob"]
        assert events == ["alice in", "alice out", "bob in", "bob out"]
        assert pids["alice"] != pids["bob"]
        assert await asyncio.to_thread(wait_dead, pids["alice"]) and alive(pids["bob"])

        # the same with afor_user: a group it hands over is not stopped before its caller used it
        async def handed(user: str) -> str:
            servers = await pool.afor_user(user)
            await asyncio.sleep(0.5)  # the web request does something else first: the group is not idle yet
            return (await servers.aexecute_tool("echo", {"text": user})).text

        assert await asyncio.gather(handed("carol"), handed("dave")) == ["carol", "dave"]
        assert pool.users == ["dave"]

        # every slot busy for longer than a user can wait: PoolFullError, and the busy user keeps their group
        inside, leave = asyncio.Event(), asyncio.Event()

        async def hold() -> str:
            async with pool.aborrow("erin") as servers:
                inside.set()
                await leave.wait()
                return (await servers.aexecute_tool("echo", {"text": "erin"})).text

        holder = asyncio.ensure_future(hold())
        await inside.wait()
        started = time.monotonic()
        with pytest.raises(ml.PoolFullError) as info:
            async with pool.aborrow("frank", wait_timeout=0.5):
                pass
        assert time.monotonic() - started >= 0.5
        assert FULL.match(str(info.value)), str(info.value)
        assert "user 'frank' waited " in str(info.value) and "but 1 user's group stayed in use" in str(info.value)
        assert "handed over by for_user() and not used yet" in str(info.value)
        assert (info.value.user, info.value.busy, info.value.max_users) == ("frank", 1, 1)
        assert info.value.waited >= 0.5
        with pytest.raises(ml.PoolFullError):
            await pool.afor_user("frank", wait_timeout=0.5)
        started = time.monotonic()
        with pytest.raises(ml.PoolFullError) as info:  # 0: no waiting, full at once
            await pool.afor_user("frank", wait_timeout=0)
        assert info.value.waited < 5 and time.monotonic() - started < 10
        assert pool.users == ["erin"]
        leave.set()
        assert await holder == "erin"

        # closing the pool wakes a user waiting for a slot with a clear error, and nothing hangs
        inside.clear()
        leave.clear()
        holder = asyncio.ensure_future(hold())
        await inside.wait()
        waiting = asyncio.ensure_future(pool.afor_user("grace"))
        deadline = time.monotonic() + 30
        while not pool._waiters and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        closing = asyncio.ensure_future(pool.astop())
        with pytest.raises(ml.ConfigError, match="closed while user 'grace' waited for a slot"):
            await waiting
        leave.set()  # the borrowed group stops once its block ends
        assert await holder == "erin"
        await closing
    assert await asyncio.to_thread(wait_no_processes, marker) == []


async def test_a_user_whose_servers_fail_to_start_frees_the_slot_for_the_next(pool_http):
    config = {"mcpServers": {"api": {"url": pool_http, "per_user": True}}}
    async with ml.ClientPool(config, max_users=1, wait_timeout=60) as pool:
        broken = {"X-Broken": "caf\u0100"}  # not ASCII: this user's connection cannot start
        alice, bob = await asyncio.gather(pool.afor_user("alice", headers=broken),
                                          pool.afor_user("bob", headers={"Authorization": "Bearer bob"}),
                                          return_exceptions=True)
        assert isinstance(alice, ml.TransportError) and "could not connect to server 'api'" in str(alice), alice
        # bob waited for alice's slot, and got it when her start failed (not after wait_timeout: PoolFullError)
        assert isinstance(bob, ml.ClientGroup), bob
        assert (await bob.aexecute_tool("whoami")).text == "Bearer bob"
        assert pool.users == ["bob"]


async def test_50_users_through_max_users_5_every_answer_is_its_own_users(pool_http):
    """50 users, each making two requests at once (100 tasks), through 5 slots: half borrow, half use afor_user
    for one request; every user's per-user connection carries their own credential."""
    config = {"mcpServers": {"api": {"url": pool_http, "per_user": True}}}
    users = [f"user-{i:02d}" for i in range(50)]
    holding: set[str] = set()
    most = 0
    async with ml.ClientPool(config, max_users=5, wait_timeout=120) as pool:

        async def request(user: str, borrow: bool) -> str:
            nonlocal most
            headers = {"Authorization": f"Bearer {user}"}
            if not borrow:
                servers = await pool.afor_user(user, headers=headers)
                return (await servers.aexecute_tool("whoami")).text
            async with pool.aborrow(user, headers=headers) as servers:
                holding.add(user)
                most = max(most, len(holding))
                assert len(pool.users) <= 5
                first = (await servers.aexecute_tool("whoami")).text
                await servers.aexecute_tool("echo", {"text": user, "delay": 0.05})  # the model thinks
                second = (await servers.aexecute_tool("whoami")).text
                holding.discard(user)
                return first if first == second else f"{first} then {second}"

        tasks = [(user, i % 2 == 0) for user in users for i in range(2)]
        results = await asyncio.gather(*(request(user, borrow) for user, borrow in tasks), return_exceptions=True)
        full = [r for r in results if isinstance(r, ml.PoolFullError)]
        for (user, _), result in zip(tasks, results, strict=True):
            if isinstance(result, ml.PoolFullError):
                assert FULL.match(str(result)), str(result)
            else:
                assert result == f"Bearer {user}", (user, result)
        assert full == []  # wait_timeout is generous: under any sane load every user gets a slot
        assert 1 <= most <= 5 and len(pool.users) <= 5
        groups = [entry.group for entry in pool._users.values()]
    assert all(not group["api"].is_alive() for group in groups)


async def test_stdio_users_through_max_users_3_keep_their_process_and_none_is_left(marker):
    config = {"mcpServers": {"own": pool_entry(marker, per_user=True)}}
    holders: dict[str, int] = {}
    async with ml.ClientPool(config, max_users=3, wait_timeout=120) as pool:

        async def request(user: str) -> str:
            async with pool.aborrow(user) as servers:
                pid = int((await servers.aexecute_tool("pid")).text)
                assert pid not in holders.values(), "two users at once on one process"
                holders[user] = pid
                answer = (await servers.aexecute_tool("echo", {"text": user, "delay": 0.1})).text
                assert int((await servers.aexecute_tool("pid")).text) == pid  # not stopped under the user
                del holders[user]
                return answer

        users = [f"user-{i}" for i in range(10)]
        assert await asyncio.gather(*(request(user) for user in users)) == users
        assert len(pool.users) == 3
        deadline = time.monotonic() + 10  # the evicted users' processes ended; only the 3 users' are left
        while len(await asyncio.to_thread(processes_with, marker)) > 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert len(processes_with(marker)) == 3
    assert await asyncio.to_thread(wait_no_processes, marker) == []


def test_sync_borrow_from_threads_waits_for_a_slot(pool_http):
    config = {"mcpServers": {"api": {"url": pool_http, "per_user": True}}}
    with ml.ClientPool(config, max_users=2, wait_timeout=120) as pool:

        def request(i: int) -> str:  # a sync endpoint runs in a worker thread
            user = f"user-{i % 6}"
            with pool.borrow(user, headers={"X-API-Key": user}) as servers:
                assert len(pool.users) <= 2
                answer = servers.execute_tool("whoami").text
                servers.execute_tool("echo", {"text": user, "delay": 0.05})
                return answer if answer == user else f"{user} got {answer}"

        with ThreadPoolExecutor(12) as threads:
            answers = list(threads.map(request, range(24)))
        assert answers == [f"user-{i % 6}" for i in range(24)]

        inside, leave = threading.Event(), threading.Event()

        def hold(user: str) -> None:
            with pool.borrow(user):
                inside.set()
                leave.wait(60)

        holders = [threading.Thread(target=hold, args=(user,)) for user in ("a", "b")]
        for thread in holders:
            inside.clear()
            thread.start()
            assert inside.wait(60)
        with pytest.raises(ml.PoolFullError, match=FULL):
            pool.for_user("c", wait_timeout=0.3)
        leave.set()
        for thread in holders:
            thread.join(60)
        assert pool.for_user("c").execute_tool("whoami").text == "anonymous"


async def test_waiting_users_get_in_first_come_first_served_and_a_cancelled_one_keeps_no_slot(pool_http):
    config = {"mcpServers": {"api": {"url": pool_http, "per_user": True}}}
    async with ml.ClientPool(config, max_users=1, wait_timeout=60) as pool:
        order: list[str] = []
        inside, leave = asyncio.Event(), asyncio.Event()

        async def request(user: str, hold: bool = False) -> str:
            async with pool.aborrow(user, headers={"X-API-Key": user}) as servers:
                order.append(user)
                if hold:
                    inside.set()
                    await leave.wait()
                return (await servers.aexecute_tool("whoami")).text

        async def queue(user: str) -> asyncio.Future[str]:
            waiting = len(pool._waiters)
            task = asyncio.ensure_future(request(user))
            deadline = time.monotonic() + 30
            while len(pool._waiters) == waiting and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            return task

        holder = asyncio.ensure_future(request("alice", hold=True))
        await inside.wait()
        bob, carol, dave, erin = [await queue(user) for user in ("bob", "carol", "dave", "erin")]
        carol.cancel()  # the web request went away while it waited: it takes no slot
        with pytest.raises(asyncio.CancelledError):
            await carol
        leave.set()
        assert await asyncio.gather(holder, bob, dave, erin) == ["alice", "bob", "dave", "erin"]
        assert order == ["alice", "bob", "dave", "erin"] and pool.users == ["erin"]
