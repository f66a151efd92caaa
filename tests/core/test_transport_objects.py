"""Transports as objects: one per client, holding its config, its frozen options and its auth.

- a client's OAuth provider is built once, from that client's own settings, and kept across restarts;
  two clients never share one, however many clients there are (no cache keyed by object identity);
- per-client options (the client's name, ``max_message_size``) reach the transport in a frozen object;
- a factory registered as ``factory(config)`` is still called with the config alone, once per session;
- the typed configs' ``transport`` key names the transport of a built-in, and must agree with ``transport_type``.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
import uuid
from typing import Any

import pytest

import mcp_litellm as ml
from mcp_litellm._transports import TransportOptions
from tests.helpers.servers import FIXTURE_SERVER
from tests.servers.fixture_server import build_server

OAUTH = {"url": "https://mcp.example.com/mcp", "oauth": {"storage": "memory", "authorize": lambda url: url}}


def test_a_clients_oauth_provider_is_built_once_and_is_its_own():
    first = ml.client("first", "streamable", dict(OAUTH), start=False)
    provider = first._transport_object().auth()
    assert provider is not None and provider is first._transport_object().auth()  # every session gets it
    # Clients with equal settings, hundreds of them: each has its own provider, and the first keeps its.
    others = [ml.client(f"other{i}", "streamable", dict(OAUTH), start=False) for i in range(300)]
    providers = {id(other._transport_object().auth()) for other in others}
    assert len(providers) == 300 and id(provider) not in providers
    assert first._transport_object().auth() is provider
    assert "first" in repr(first._transport_object())


def test_a_replaced_config_gets_a_new_transport_and_changed_options_keep_the_auth():
    client = ml.client("swap", "streamable", dict(OAUTH), start=False)
    transport = client._transport_object()
    provider = transport.auth()
    client.max_message_size = 4096
    resized = client._transport_object()
    assert resized.options.max_message_size == 4096 and resized.auth() is provider
    client.config = {**OAUTH, "headers": {"X-Trace": "1"}}
    assert client._transport_object().auth() is not provider


def test_transport_options_are_frozen():
    options = TransportOptions(server="notes", max_message_size=4096)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_message_size = 1  # type: ignore[misc]


def test_the_clients_name_and_size_limit_reach_the_stdio_transport(caplog):
    caplog.set_level(logging.WARNING, logger="mcp_litellm.stdio")
    with ml.client("named-by-options", "stdio", {"command": sys.executable, "args": [str(FIXTURE_SERVER)]},
                   max_message_size=4096) as client:
        with pytest.raises(ml.ServerError, match=r"max_message_size \(4096 bytes\)"):
            client.tools()  # the fixture server's tool list is larger than that
        client.restart()  # a new session on the same transport object: the options hold
        with pytest.raises(ml.ServerError, match=r"max_message_size \(4096 bytes\)"):
            client.tools()
    assert [r.getMessage() for r in caplog.records].count(
        next(r.getMessage() for r in caplog.records if "server 'named-by-options' sent a message of" in r.getMessage())
    ) == 2


def test_a_registered_factory_gets_the_config_alone_once_per_session():
    seen: list[Any] = []

    def factory(config):
        seen.append(config)
        return build_server(config["name"])  # a server object is a target too (as the memory transport's)

    name = f"factory-{uuid.uuid4().hex[:6]}"
    ml.register_transport(name, factory)
    config = {"name": "made-by-factory", "transport": "kept for the factory"}
    with ml.client("mine", name, config) as client:
        assert client.server_info.name == "made-by-factory"
        client.restart()
        assert client.execute_tool("add", {"a": 2, "b": 2}).text == "4"
    assert seen == [config, config]  # a factory's own keys (even 'transport') reach it untouched


def test_the_transport_key_of_a_typed_config_names_the_transport():
    config: ml.MemoryConfig = {"transport": "memory", "server": build_server()}
    with ml.client("typed", config=config) as client:
        assert client.transport_type == "memory" and "transport" not in client.config
        assert client.execute_tool("add", {"a": 20, "b": 22}).text == "42"
    sse: ml.SseConfig = {"transport": "sse", "url": "http://127.0.0.1:9/events"}
    assert ml.client("legacy", config=sse, start=False).transport_type == "sse"
    stdio: ml.StdioConfig = {"transport": "stdio", "command": "x"}
    with pytest.raises(ml.ConfigError, match="config key 'transport' is 'stdio' but the transport is 'sse'"):
        ml.client("clash", "sse", stdio, start=False)  # type: ignore[arg-type]
