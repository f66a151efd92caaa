"""ClientPool against real servers: per-user credentials, shared connections, eviction by idle time and max_users."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

import mcp_litellm as ml
from tests.helpers.entries import pool_entry
from tests.helpers.processes import alive, processes_with, wait_dead, wait_no_processes


async def test_each_user_sees_only_their_own_credential(pool_http):
    config = {"mcpServers": {
        "api": {"url": pool_http, "per_user": True, "headers": {"Authorization": "Bearer configured"}},
        "public": {"url": pool_http},
    }}
    async with ml.ClientPool(config) as pool:
        assert pool.per_user == ["api"] and pool.shared == ["public"]
        alice = await pool.afor_user("alice", headers={"authorization": "Bearer alice-token"})
        bob = await pool.afor_user("bob", headers={"Authorization": "Bearer bob-token"})
        carol = await pool.afor_user("carol")

        async def whoami(group: ml.ClientGroup, tool: str) -> str:
            return (await group.aexecute_tool(tool)).text

        calls = [(group, tool) for _ in range(20) for group in (alice, bob, carol)
                 for tool in ("api__whoami", "public__whoami")]
        answers = await asyncio.gather(*(whoami(group, tool) for group, tool in calls))
        expected = {(id(alice), "api__whoami"): "Bearer alice-token", (id(bob), "api__whoami"): "Bearer bob-token",
                    (id(carol), "api__whoami"): "Bearer configured"}
        for (group, tool), answer in zip(calls, answers, strict=True):
            # the shared server never gets a user's credential (nor the per-user server's configured one)
            assert answer == expected.get((id(group), tool), "anonymous")
        # later requests reuse the user's group; the shared server is one connection for all users
        assert await pool.afor_user("alice") is alice
        assert alice["public"] is bob["public"] is carol["public"]
        assert len({id(alice["api"]), id(bob["api"]), id(carol["api"])}) == 3
        assert pool.users == ["bob", "carol", "alice"]
        # new headers for a user: their per-user connection is replaced, and carries the new credential
        alice2 = await pool.afor_user("alice", headers={"Authorization": "Bearer alice-new"})
        assert alice2 is not alice and (await whoami(alice2, "api__whoami")) == "Bearer alice-new"
        assert alice2["public"] is bob["public"]
        # a new user's first requests, all at once, share one connect
        dave = {"Authorization": "Bearer d"}
        daves = await asyncio.gather(*(pool.afor_user("dave", headers=dave) for _ in range(10)))
        assert all(group is daves[0] for group in daves)
        assert "Bearer" not in repr(pool) and "Bearer" not in repr(pool._users["dave"])
    assert not alice2["api"].is_alive() and not bob["api"].is_alive() and not bob["public"].is_alive()


def test_per_user_stdio_gets_a_process_per_user_and_shared_is_one(marker):
    config = {"mcpServers": {"own": pool_entry(f"{marker}-own", per_user=True),
                             "common": pool_entry(f"{marker}-common")}}
    with ml.ClientPool(config, max_users=2) as pool:
        alice, bob = pool.for_user("alice"), pool.for_user("bob")
        pids = {name: int(group.execute_tool("own__pid").text) for name, group in (("alice", alice), ("bob", bob))}
        assert pids["alice"] != pids["bob"]
        assert alice.execute_tool("common__pid").text == bob.execute_tool("common__pid").text
        assert len(processes_with(f"{marker}-own")) == 2 and len(processes_with(f"{marker}-common")) == 1
        # a third user: the least recently used (alice) is stopped, her process ends
        pool.for_user("carol")
        assert pool.users == ["bob", "carol"]
        assert wait_dead(pids["alice"]) and alive(pids["bob"])
        assert not alice["own"].is_alive() and alice["common"].is_alive()
        assert len(processes_with(f"{marker}-common")) == 1
    assert wait_no_processes(marker) == []
    assert pool.users == []


async def test_an_idle_user_is_stopped_and_a_busy_one_is_not(marker):
    config = {"mcpServers": {"own": pool_entry(marker, per_user=True)}}
    async with ml.ClientPool(config, idle_timeout=1.5) as pool:
        alice = await pool.afor_user("alice")
        alice_pid = int((await alice.aexecute_tool("pid")).text)
        bob = await pool.afor_user("bob")
        bob_pid = int((await bob.aexecute_tool("pid")).text)
        # bob's request runs longer than idle_timeout: he is in use until it ends
        answer = await bob.aexecute_tool("echo", {"text": "still here", "delay": 4.0})
        assert answer.text == "still here"
        assert pool.users == ["bob"] and alive(bob_pid)
        assert await asyncio.to_thread(wait_dead, alice_pid) and not alice["own"].is_alive()
        deadline = time.monotonic() + 10
        while pool.users and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert pool.users == []
        assert await asyncio.to_thread(wait_dead, bob_pid)
        # a user coming back gets a new connection
        again = await pool.afor_user("alice")
        assert again is not alice and int((await again.aexecute_tool("pid")).text) not in (alice_pid, bob_pid)
    assert await asyncio.to_thread(wait_no_processes, marker) == []


async def test_a_borrowed_group_outlives_idle_timeout_between_requests(marker):
    """A web request that waits on its model longer than idle_timeout keeps its user's group (borrow)."""
    config = {"mcpServers": {"own": pool_entry(marker, per_user=True)}}
    async with ml.ClientPool(config, idle_timeout=0.5, max_users=1) as pool:
        async with pool.aborrow("alice") as alice:
            pid = int((await alice.aexecute_tool("pid")).text)
            await asyncio.sleep(1.5)  # no MCP request in flight: the model is thinking
            assert pool.users == ["alice"] and alice["own"].is_alive()
            assert int((await alice.aexecute_tool("pid")).text) == pid  # the same connection, still there
        deadline = time.monotonic() + 10  # released: idle from now on
        while pool.users and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert pool.users == [] and await asyncio.to_thread(wait_dead, pid)

        def in_a_thread() -> tuple[str, bool]:
            with pool.borrow("carol") as carol:
                time.sleep(1.0)
                return carol.execute_tool("echo", {"text": "sync"}).text, "carol" in pool.users

        assert await asyncio.to_thread(in_a_thread) == ("sync", True)


async def test_an_evicted_users_requests_in_flight_finish_first(marker):
    config = {"mcpServers": {"own": pool_entry(marker, per_user=True)}}
    async with ml.ClientPool(config, max_users=1) as pool:
        alice = await pool.afor_user("alice")
        pid = int((await alice.aexecute_tool("pid")).text)
        call = asyncio.ensure_future(alice.aexecute_tool("echo", {"text": "finished", "delay": 1.0}))
        await asyncio.sleep(0.3)
        await pool.afor_user("bob")  # max_users=1: alice is evicted while her call runs
        assert pool.users == ["bob"]
        assert (await call).text == "finished"
        assert await asyncio.to_thread(wait_dead, pid)


def test_bad_settings_say_what_to_do(pool_http):
    per_user = ml.ClientPool({"mcpServers": {"remote": {"url": pool_http, "auth": "oauth"}}})
    assert per_user.per_user == ["remote"] and per_user.shared == []  # OAuth: per user by default
    shared = ml.ClientPool({"mcpServers": {"remote": {"url": pool_http, "auth": "oauth", "per_user": False}}})
    assert shared.shared == ["remote"] and shared.per_user == []
    config = {"mcpServers": {"api": {"url": pool_http, "per_user": True}}}
    for bad in ({"max_users": 0}, {"idle_timeout": -1}, {"max_users": True}, {"wait_timeout": -1},
                {"wait_timeout": None}, {"idle_timeout": 0}, {"drain_timeout": 0}):
        with pytest.raises(ml.ConfigError, match=next(iter(bad))):
            ml.ClientPool(config, **bad)
    for name in ("wait_timeout", "idle_timeout", "drain_timeout"):  # nan and infinity are no number of seconds
        for value in (float("nan"), float("inf")):
            with pytest.raises(ml.ConfigError, match=f"{name} must be .* got {value!r} \\(nan and infinity are not"):
                ml.ClientPool(config, **{name: value})
    with pytest.raises(ml.ConfigError, match=r"wait_timeout must be a number of seconds, 0 or more \(0 to fail at once"
                                             r".*got None \(None is not accepted here\)"):
        ml.ClientPool(config, wait_timeout=None)  # type: ignore[arg-type]
    with pytest.raises(ml.ConfigError, match=r"None means no limit"):
        ml.ClientPool(config, idle_timeout=float("inf"))
    with pytest.raises(ml.ConfigError, match="per_user"):
        ml.ClientPool({"mcpServers": {"api": {"url": pool_http, "per_user": "yes"}}})
    with ml.ClientPool(config) as pool:
        with pytest.raises(ml.ConfigError) as info:
            pool.for_user("alice", headers={"Authorization": 12345})  # type: ignore[dict-item]
        assert "12345" not in str(info.value) and "Authorization" in str(info.value)
        with pytest.raises(ml.ConfigError):
            pool.for_user("")
        for value in (-1, float("nan"), float("inf")):  # None here: the pool's own wait_timeout
            with pytest.raises(ml.ConfigError, match=r"wait_timeout must be a number of seconds, 0 or more \(0 to fail "
                                                     r"at once .*; None for the pool's wait_timeout \(30s\)\)"):
                pool.for_user("alice", wait_timeout=value)
    with pytest.raises(ml.ConfigError, match="closed"):
        pool.for_user("alice")


def test_pool_is_exported_and_documented():
    assert ml.ClientPool.__doc__ and "per_user" in ml.ClientPool.__doc__
    assert "ClientPool" in ml.__all__
    assert os.environ.get("PYTEST_CURRENT_TEST")


async def test_evict_now_and_a_server_that_fails_to_start(pool_http, tmp_path):
    config = {"mcpServers": {"api": {"url": pool_http, "per_user": True},
                             "broken": {"command": str(tmp_path / "no-such-server"), "per_user": True,
                                        "disabled": True}}}
    async with ml.ClientPool(config) as pool:
        assert pool.disabled == ["broken"] and pool.per_user == ["api"]
        alice = await pool.afor_user("alice", headers={"X-API-Key": "alice-key"})
        assert (await alice.aexecute_tool("whoami")).text == "alice-key"
        assert await pool.aevict("alice") is True and pool.users == [] and not alice["api"].is_alive()
        assert await pool.aevict("alice") is False
    broken = {"mcpServers": {"own": {"command": str(tmp_path / "no-such-server"), "per_user": True}}}
    with ml.ClientPool(broken) as pool:
        with pytest.raises(ml.MCPLiteLLMError) as info:
            pool.for_user("alice")
        assert "no-such-server" in str(info.value)
        assert pool.users == []  # nothing kept for a user whose servers did not start; the next call tries again
        with pytest.raises(ml.MCPLiteLLMError):
            pool.for_user("alice")


def test_per_user_is_read_from_the_config_and_a_group_ignores_it(pool_http):
    configs = ml.load_config({"mcpServers": {"a": {"url": pool_http, "per_user": True},
                                             "b": {"url": pool_http, "perUser": False}, "c": {"url": pool_http}}})
    assert [c.per_user for c in configs.values()] == [True, False, None]
    with ml.establish_connection(configs) as group:  # a plain group connects each server once
        assert group.execute_tool("a__whoami").text == "anonymous"
