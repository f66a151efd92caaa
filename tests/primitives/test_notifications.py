"""Logging and the change-notification listener on both protocol eras and every transport."""

from __future__ import annotations

import logging
import threading

import pytest

import mcp_litellm as ml


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_on_logging_receives_messages_at_or_above_the_level(make_client, transport, protocol):
    client = make_client(transport, protocol=protocol)
    received: list[tuple] = []
    done = threading.Event()

    def on_log(level, logger_name, data):
        received.append((level, logger_name, data))
        if len(received) >= 2:  # each handler call is a task of its own (a thread for a sync one): any order
            done.set()

    assert client.on_logging(on_log, level="warning") is client
    assert client.execute_tool("chatty").text == "logged"
    assert done.wait(10), f"no log messages arrived ({protocol})"
    assert sorted(received) == [("error", "chatty", "error message"), ("warning", "chatty", "warning message")]
    if protocol == "legacy":
        assert "log level warning" in client.execute_tool("server_events").structured["result"]


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_without_handlers_server_logs_go_to_the_mcp_litellm_logger(make_client, caplog, protocol):
    client = make_client("memory", protocol=protocol)
    with caplog.at_level(logging.DEBUG, logger="mcp_litellm"):
        client.execute_tool("chatty")
        assert client.ping()
    records = [(r.levelno, r.getMessage()) for r in caplog.records if "chatty" in r.getMessage()]
    assert (logging.WARNING, "server 'fixture' [chatty]: warning message") in records
    assert (logging.ERROR, "server 'fixture' [chatty]: error message") in records
    assert (logging.DEBUG, "server 'fixture' [chatty]: debug message") in records


def test_without_handlers_modern_requests_ask_for_what_the_logger_shows(make_client, caplog):
    """On 2026-07-28 the level rides on each request: the mcp_litellm logger's level decides it."""
    client = make_client("memory", protocol="auto")
    with caplog.at_level(logging.WARNING, logger="mcp_litellm"):
        client.execute_tool("chatty")
        assert client.ping()
    records = [r.levelno for r in caplog.records if "[chatty]" in r.getMessage()]
    assert sorted(records) == [logging.WARNING, logging.ERROR], "the server should send warning and above only"


def test_legacy_log_level_and_subscriptions_raise_no_sdk_deprecation_warnings(everything_js):
    import warnings

    from mcp.shared.exceptions import MCPDeprecationWarning

    client = ml.client("everything", "stdio", {"command": "node", "args": [str(everything_js), "stdio"]})
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            client.on_logging(lambda *args: None, level="info")
            resource = client.resources()[0]
            resource.subscribe()
            resource.unsubscribe()
        assert client.protocol_version.startswith("2025")
        assert not [w for w in caught if issubclass(w.category, MCPDeprecationWarning)], \
            [str(w.message) for w in caught]
    finally:
        client.stop()


async def test_async_handlers_and_aon_logging(make_client):
    client = make_client("memory")
    import asyncio

    seen: list[str] = []
    finished = asyncio.Event()
    loop = asyncio.get_running_loop()

    async def on_log(level, logger_name, data):
        seen.append(data)
        if level == "error":
            loop.call_soon_threadsafe(finished.set)

    with pytest.warns(DeprecationWarning, match=r"use client.on_logging\(\)"):
        await client.aon_logging(on_log, level="error")
    await client.aexecute_tool("chatty")
    await asyncio.wait_for(finished.wait(), 10)
    assert seen == ["error message"]


def test_on_logging_records_from_async_code_too_and_applies_at_the_next_request(make_client):
    import asyncio

    client = make_client("memory")
    seen: list[str] = []

    async def main() -> None:
        assert client.on_logging(lambda level, name, data: seen.append(data), level="error") is client
        await client.aexecute_tool("chatty")
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.05)
        client.off_logging(seen.append)  # an unknown handler: a no-op, in async code as in sync

    asyncio.run(main())
    assert seen == ["error message"]
    with pytest.warns(DeprecationWarning, match=r"use client.off_logging\(\)"):
        asyncio.run(client.aoff_logging(print))


def test_bad_handlers_and_levels_are_config_errors(make_client):
    client = make_client("memory")
    with pytest.raises(ml.ConfigError, match="log level"):
        client.on_logging(print, level="loud")
    with pytest.raises(ml.ConfigError):
        client.on_list_changed("not callable")  # type: ignore[arg-type]


def test_a_failing_handler_does_not_break_the_session(make_client, caplog):
    client = make_client("memory")
    called = threading.Event()

    def broken(kind):
        called.set()
        raise RuntimeError("handler bug")

    client.on_list_changed(broken)
    with caplog.at_level(logging.ERROR, logger="mcp_litellm"):
        client.execute_tool("grow")
        assert called.wait(10)
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"


def test_the_listener_runs_on_modern_connections_and_stops_with_the_client(make_client, transport):
    client = make_client(transport)
    assert client.protocol_version == "2026-07-28"
    listener = client._notifications.listener
    assert listener is not None and not listener.done()
    client.stop()
    assert client._notifications.listener is None and listener.done()
    client.start()
    assert client._notifications.listener is not None and client._notifications.listener is not listener
    legacy = make_client(transport, protocol="legacy")
    assert legacy._notifications.listener is None, "2025-era servers push notifications; no listen stream"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_progress_is_delivered_in_order_before_the_call_returns(make_client, transport, kind):
    """The SDK runs each progress callback as a task of its own; slow handlers must still all have run,
    in the server's order, when ``execute_tool`` returns."""
    import asyncio
    import time

    client = make_client(transport)
    seen: list[tuple[float, str]] = []
    per_call: list[float] = []

    if kind == "sync":
        def handler(progress, total, message, tool):
            time.sleep(0.05)
            seen.append((progress, tool))
    else:
        async def handler(progress, total, message, tool):
            await asyncio.sleep(0.05)
            seen.append((progress, tool))

    client.on_progress(handler)
    result = client.execute_tool("slow", {"seconds": 0, "steps": 5}, on_progress=lambda p, t, m: per_call.append(p))
    assert result.text == "slept 0.0"
    assert seen == [(float(i), "slow") for i in range(1, 6)]
    assert per_call == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_off_progress_off_list_changed_and_off_logging_undo_their_registrations(make_client):
    client = make_client("memory", protocol="legacy")
    removed: list[object] = []
    kept: list[object] = []
    logs_done = threading.Event()
    changed = threading.Event()

    def gone(*args):
        removed.append(args)

    def keep_log(level, name, data):
        kept.append(data)
        if len(kept) >= 2:
            logs_done.set()

    client.on_progress(gone)
    assert client.off_progress(gone) is client
    assert client.off_progress(gone) is client  # unknown: a no-op
    client.execute_tool("slow", {"seconds": 0, "steps": 2})

    client.on_list_changed(gone).on_list_changed(lambda kind: kind == "prompts" and changed.set())
    assert client.off_list_changed(gone) is client
    client.execute_tool("grow")
    assert changed.wait(10)

    client.on_resource_updated(gone)
    assert client.off_resource_updated(gone) is client

    assert client.on_logging(gone, level="debug").on_logging(keep_log, level="warning") is client
    assert client.off_logging(gone) is client
    client.execute_tool("chatty")
    assert logs_done.wait(10)
    assert removed == []
    # with the debug handler gone, the server was told the remaining handler's level
    assert "log level warning" in client.execute_tool("server_events").structured["result"]
