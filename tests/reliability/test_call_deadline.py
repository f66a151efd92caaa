"""A call's ``timeout=`` covers everything the call waits for, and a timed-out call does not delay the next.

Against a real SDK server over streamable HTTP on 127.0.0.1 (tests/servers/slow_server.py) whose listing
can be slow and which acknowledges a cancellation late (as a server busy with the cancelled work does).
Margins are generous (CI is a loaded 2-core machine): each test tells "about the timeout" from "the
timeout plus the slow step", which are seconds apart.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.chat import LLM, assert_history_valid
from tests.helpers.servers import UvicornThread
from tests.scripted_llm.openai import Turn
from tests.scripted_llm.respx_mock import MODEL, ScriptedLLM
from tests.servers.slow_server import Settings, SlowServer

MARGIN = 1.5
"""Seconds a call may run past its timeout here (the slow steps below take 3 s or more)."""


@pytest.fixture(scope="module")
def slow() -> Iterator[tuple[Settings, str]]:
    settings = Settings()
    with UvicornThread(SlowServer(settings).app()) as served:
        yield settings, f"{served.url}/mcp"


@pytest.fixture
def server(slow: tuple[Settings, str]) -> Iterator[tuple[Settings, str]]:
    settings, url = slow
    yield settings, url
    settings.list_delay = settings.cancel_ack_delay = 0.0
    settings.cancellations.clear()


@pytest.fixture
def clients() -> Iterator[list[ml.Client]]:
    made: list[ml.Client] = []
    yield made
    for client in made:
        client.stop()


def connect(clients: list[ml.Client], url: str, **options: Any) -> ml.Client:
    client = ml.client("slow", config={"url": url}, **options)
    clients.append(client)
    return client


def timed(call: Any) -> tuple[Any, float]:
    """``(result or exception, seconds it took)``."""
    started = time.monotonic()
    try:
        outcome = call()
    except Exception as exc:
        outcome = exc
    return outcome, time.monotonic() - started


def test_a_slow_listing_counts_against_the_calls_timeout(server, clients):
    settings, url = server
    client = connect(clients, url, request_timeout=30)
    settings.list_delay = 4.0  # the call must list to find the tool: before the fix, 4 s + the call's 2 s
    outcome, took = timed(lambda: client.execute_tool("sleep", {"seconds": 10}, timeout=2))
    assert isinstance(outcome, ml.RequestTimeoutError), outcome
    assert took < 2 + MARGIN, f"timeout=2 took {took:.1f}s"
    assert "timed out after 2.0s" in str(outcome) and "tools/list" in str(outcome)


def test_a_call_after_a_timed_out_one_is_not_held_back_by_its_cancellation(server, clients):
    settings, url = server
    client = connect(clients, url, request_timeout=30, protocol="legacy")  # 2025-era: a cancellation is a POST
    client.tools()
    settings.cancel_ack_delay = 5.0
    outcome, took = timed(lambda: client.execute_tool("sleep", {"seconds": 30}, timeout=2))
    assert isinstance(outcome, ml.RequestTimeoutError) and took < 2 + MARGIN, (outcome, took)
    outcome, took = timed(lambda: client.execute_tool("sleep", {"seconds": 0.1}, timeout=3))
    assert isinstance(outcome, ml.ToolResult) and outcome.text == "slept", outcome
    assert took < 1.5, f"the next call waited {took:.1f}s behind the cancellation"
    assert len(settings.cancellations) == 1 and b'"requestId"' in settings.cancellations[0]  # it was still sent


def test_the_chat_tool_timeout_holds_turn_after_turn(server, clients, llm: ScriptedLLM):
    settings, url = server
    client = connect(clients, url, request_timeout=30, protocol="legacy")
    settings.cancel_ack_delay = 6.0
    chat = ml.Chat(MODEL, **LLM, tool_timeout=2).with_tools(*client.tools())
    llm.then(Turn(content="Hello."),  # LiteLLM's first request in a process is slow: not part of the timing
             Turn(tool_calls=[("long", "sleep", {"seconds": 30})]), Turn(content="It timed out."),
             Turn(tool_calls=[("short", "sleep", {"seconds": 0.1})]), Turn(content="Done."))
    assert chat.ask("hello").content == "Hello."
    reply, took = timed(lambda: chat.ask("sleep long"))
    assert reply.content == "It timed out." and took < 2 + MARGIN, (reply, took)
    assert "timed out after 2" in llm.tool_messages(2)[-1]["content"]
    reply, took = timed(lambda: chat.ask("sleep briefly"))  # before the fix: 2 s behind the cancellation, then
    assert reply.content == "Done." and took < 2 + MARGIN, (reply, took)  # an error for the model
    assert llm.tool_messages(4)[-1]["content"] == "slept", "the second turn's call was held back"
    assert_history_valid(chat.messages)


def test_progress_restarts_the_timeout_when_asked(server, clients):
    _, url = server
    client = connect(clients, url, request_timeout=30)
    client.tools()
    tick = {"seconds": 3.2, "every": 0.4}  # progress every 0.4 s for 3.2 s
    outcome, took = timed(lambda: client.execute_tool("tick", tick, timeout=1.5))
    assert isinstance(outcome, ml.RequestTimeoutError) and took < 1.5 + MARGIN, (outcome, took)
    result = client.execute_tool("tick", tick, timeout=1.5, reset_timeout_on_progress=True)
    assert result.text == "ticked"
    outcome, took = timed(lambda: client.execute_tool("tick", tick, timeout=1.5, reset_timeout_on_progress=True,
                                                      max_total_timeout=2.0))
    assert isinstance(outcome, ml.RequestTimeoutError) and took < 2.0 + MARGIN, (outcome, took)
    assert "total limit of 2.0s" in str(outcome)


async def test_progress_resets_set_on_the_client_and_in_a_config_entry(server, clients):
    _, url = server
    tick = {"seconds": 3.2, "every": 0.4}
    client = connect(clients, url, request_timeout=1.5, reset_timeout_on_progress=True, start=False)
    await client.astart()
    assert (await client.aexecute_tool("tick", tick)).text == "ticked"
    tool = await client.atool("tick")
    with pytest.raises(ml.RequestTimeoutError):  # the call's own option wins over the client's
        await tool.aexecute(tick, reset_timeout_on_progress=False)
    capped = connect(clients, url, request_timeout=1.5, reset_timeout_on_progress=True, max_total_timeout=2.0,
                     start=False)
    await capped.astart()
    with pytest.raises(ml.RequestTimeoutError, match="total limit"):
        await capped.aexecute_tool("tick", tick)
    configs = ml.load_config({"mcpServers": {"slow": {"url": url, "requestTimeout": 1.5,
                                                      "resetTimeoutOnProgress": True}}})
    async with ml.ClientGroup(configs) as group:
        assert (await group.aexecute_tool("tick", tick)).text == "ticked"
        with pytest.raises(ml.RequestTimeoutError, match="total limit"):
            await group.aexecute_tool("tick", tick, max_total_timeout=2.0)


@pytest.mark.parametrize(("options", "problem"), [
    ({"reset_timeout_on_progress": "yes"}, "reset_timeout_on_progress must be True or False"),
    ({"max_total_timeout": 0}, "max_total_timeout must be a positive number"),
    ({"max_total_timeout": True}, "max_total_timeout must be a positive number"),
])
def test_bad_progress_timeout_options_are_refused(options, problem):
    with pytest.raises(ml.ConfigError, match=problem):
        ml.client("x", config={"command": "unused"}, start=False, **options)


@pytest.mark.parametrize(("entry", "problem"), [
    ({"resetTimeoutOnProgress": "true"}, "key 'resetTimeoutOnProgress': must be true or false, got str"),
    ({"max_total_timeout": -1}, "key 'max_total_timeout': must be a positive number of seconds"),
    ({"maxTotalTimeout": "60"}, "key 'maxTotalTimeout': must be a positive number of seconds"),
])
def test_bad_progress_timeout_keys_in_a_config_file_are_refused(entry, problem):
    with pytest.raises(ml.ConfigError, match=problem):
        ml.load_config({"mcpServers": {"s": {"command": "x", **entry}}})


def test_a_bad_per_call_option_is_refused(server, clients):
    _, url = server
    client = connect(clients, url)
    with pytest.raises(ml.ConfigError, match="reset_timeout_on_progress must be True or False"):
        client.execute_tool("sleep", {"seconds": 0}, reset_timeout_on_progress=1)  # type: ignore[arg-type]
    with pytest.raises(ml.ConfigError, match="timeout must be a positive number"):
        client.execute_tool("sleep", {"seconds": 0}, timeout=True)


def test_a_reconnect_counts_against_the_calls_timeout(clients):
    served = UvicornThread(SlowServer(Settings()).app(), timeout_graceful_shutdown=0.5).start()
    client = connect(clients, f"{served.url}/mcp", request_timeout=30)
    assert client.execute_tool("sleep", {"seconds": 0}).text == "slept"
    served.stop()
    with pytest.raises(ml.TransportError):  # the server is gone: the session is lost
        client.execute_tool("sleep", {"seconds": 0}, timeout=5)
    with socket.socket() as silent:  # back on the same port, but it never answers
        silent.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        silent.bind(("127.0.0.1", served.port))
        silent.listen(16)
        outcome, took = timed(lambda: client.execute_tool("sleep", {"seconds": 0}, timeout=2))
    assert isinstance(outcome, ml.RequestTimeoutError), outcome  # before: the reconnect took request_timeout
    assert took < 2 + MARGIN, f"timeout=2 took {took:.1f}s"


async def test_a_groups_lookup_counts_against_the_calls_timeout(server):
    settings, url = server
    async with ml.ClientGroup({"mcpServers": {"slow": {"url": url, "request_timeout": 30}}}) as group:
        settings.list_delay = 4.0
        started = time.monotonic()
        with pytest.raises(ml.RequestTimeoutError, match=r"timed out after 2\.0s"):
            await group.aexecute_tool("sleep", {"seconds": 10}, timeout=2)
        assert time.monotonic() - started < 2 + MARGIN
