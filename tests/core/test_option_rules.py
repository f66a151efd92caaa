"""A server's settings are described once (§5.4) and "a number of seconds" is one rule (§5.8).

Every door a setting comes through (``Client(...)``, a config file, ``Chat``, ``ClientPool``, the handlers)
refuses and accepts the same values; the ``TypedDict``\\ s users annotate configs with hold exactly the
keys the transports' specs accept; the transport names and their aliases are one table.
"""

from __future__ import annotations

import math
import pathlib

import pytest
from mcp.server.mcpserver import MCPServer

import mcp_litellm as ml
from mcp_litellm import handlers
from mcp_litellm._client.options import ClientOptions
from mcp_litellm._transports.specs import TRANSPORT_ALIASES, TRANSPORT_KEYS, HttpSpec, MemorySpec, StdioSpec

STDIO = {"command": "unused"}


def _client(**options: object) -> ml.Client:
    return ml.Client("x", "stdio", STDIO, start=False, **options)  # type: ignore[arg-type]


def _file(**entry: object) -> ml.ServerConfig:
    return ml.load_config({"mcpServers": {"x": {**STDIO, **entry}}})["x"]


def _remote(**entry: object) -> ml.ServerConfig:
    return ml.load_config({"mcpServers": {"x": {"url": "https://x.test/mcp", **entry}}})["x"]


# door name -> (how a value goes in, whether infinity means "no limit" there)
DOORS = {
    "Client(request_timeout=)": (lambda v: _client(request_timeout=v), True),
    "Client(max_total_timeout=)": (lambda v: _client(max_total_timeout=v), False),
    "Chat(tool_timeout=)": (lambda v: ml.Chat("openai/gpt-4o-mini", tool_timeout=v), True),
    "file request_timeout": (lambda v: _file(request_timeout=v), True),
    "file maxTotalTimeout": (lambda v: _file(maxTotalTimeout=v), False),
    "file timeout (HTTP)": (lambda v: _remote(timeout=v), True),
    "file sse_read_timeout (HTTP)": (lambda v: _remote(sse_read_timeout=v), True),
    "defer(timeout=)": (lambda v: handlers.defer(v), True),
    "elicitation timeout": (lambda v: _client(elicitation={"timeout": v}), True),
    "ClientPool(idle_timeout=)": (lambda v: ml.ClientPool({"mcpServers": {}}, idle_timeout=v), False),
    "ClientPool(wait_timeout=)": (lambda v: ml.ClientPool({"mcpServers": {}}, wait_timeout=v), False),
    "ClientPool(drain_timeout=)": (lambda v: ml.ClientPool({"mcpServers": {}}, drain_timeout=v), False),
}


@pytest.mark.parametrize("door", sorted(DOORS))
@pytest.mark.parametrize("value", [True, False, math.nan, -1, 0, "5"], ids=repr)
def test_no_door_takes_a_bool_nan_or_non_positive_value_as_seconds(door, value):
    give, _ = DOORS[door]
    if door == "ClientPool(wait_timeout=)" and value == 0 and value is not False:
        give(value)  # 0: fail at once when no slot is free
        return
    with pytest.raises(ml.ConfigError, match="number of seconds"):
        give(value)


@pytest.mark.parametrize("door", sorted(DOORS))
def test_infinity_is_no_limit_only_where_nothing_else_says_so(door):
    give, allow_inf = DOORS[door]
    if allow_inf:
        give(math.inf)
    else:
        with pytest.raises(ml.ConfigError, match="infinity"):
            give(math.inf)


@pytest.mark.parametrize("door", sorted(DOORS))
def test_every_door_takes_a_positive_number_of_seconds(door):
    give, _ = DOORS[door]
    give(2.5)


async def test_a_calls_timeout_follows_the_same_rule():
    server = MCPServer("rules")

    @server.tool()
    def ping() -> str:
        return "pong"

    async with ml.Client("rules", "memory", {"server": server}) as client:
        for bad in (True, math.nan, 0):
            with pytest.raises(ml.ConfigError, match="timeout must be a positive number of seconds"):
                await client.aexecute_tool("ping", {}, timeout=bad)
        assert (await client.aexecute_tool("ping", {}, timeout=math.inf)).text == "pong"


@pytest.mark.parametrize(("option", "value"), [
    ("max_result_chars", True), ("max_result_chars", 0), ("max_message_size", 1023), ("max_message_size", True),
    ("protocol", "v9"), ("protocol", 2025), ("with_prefix", 1), ("retry_idempotent", "no"),
    ("reset_timeout_on_progress", "yes"), ("request_timeout", True),
])
def test_client_and_config_file_refuse_the_same_option_values(option, value):
    with pytest.raises(ml.ConfigError, match=f"^{option} must be"):
        _client(**{option: value})
    with pytest.raises(ml.ConfigError, match=f"key '{option}': must be"):
        _file(**{option: value})


def test_client_and_config_file_read_options_into_the_same_client_options():
    given = {"request_timeout": 7, "max_total_timeout": 20, "protocol": "legacy", "max_result_chars": 500,
             "max_message_size": 4096, "retry_idempotent": False, "reset_timeout_on_progress": True}
    by_file = _file(**given).client()
    by_code = _client(**given)
    for option in given:
        assert getattr(by_file, option) == getattr(by_code, option) == ClientOptions.checked(given).__dict__[option]


def test_the_protocol_rule_and_the_message_size_minimum_are_written_once():
    package = pathlib.Path(ml.__file__).parent
    protocol_rule = [p.relative_to(package).as_posix() for p in package.rglob("*.py")
                     if "[:4].isdigit()" in p.read_text(encoding="utf-8")]
    assert protocol_rule == ["_client/options.py"]
    minimum = [p.relative_to(package).as_posix() for p in package.rglob("*.py")
               if "1024" in p.read_text(encoding="utf-8") and "MIN_MESSAGE_SIZE" in p.read_text(encoding="utf-8")]
    assert minimum == ["_core/option_checks.py"]


@pytest.mark.parametrize(("typed", "transport"), [
    (ml.StdioConfig, "stdio"), (ml.StreamableConfig, "streamable"), (ml.SseConfig, "sse"), (ml.MemoryConfig, "memory"),
])
def test_the_typed_configs_hold_exactly_the_keys_the_specs_accept(typed, transport):
    keys = set(typed.__required_keys__) | set(typed.__optional_keys__)
    assert keys - {"transport"} == set(TRANSPORT_KEYS[transport])


@pytest.mark.parametrize("alias", sorted(TRANSPORT_ALIASES))
def test_every_transport_alias_means_the_same_in_code_and_in_a_config_file(alias):
    canonical = TRANSPORT_ALIASES[alias]
    config = {"server": MCPServer("x")} if canonical == "memory" else {"url": "https://x.test/mcp"}
    assert ml.Client("x", alias, config, start=False).transport_type == canonical
    assert ml.load_config({"mcpServers": {"x": {"type": alias, **config}}})["x"].transport_type == canonical


def test_a_config_file_checks_an_in_memory_server_like_a_memory_one():
    with pytest.raises(ml.ConfigError, match="key 'url': unknown key for a memory server"):
        ml.load_config({"mcpServers": {"x": {"type": "in_memory", "server": MCPServer("x"), "url": "https://x"}}})


def test_client_and_config_file_build_the_same_transport_spec():
    stdio = {"command": "python", "args": ["-m", "server", 3], "env": {"LEVEL": "2"}}
    assert _client_spec("stdio", stdio) == ml.load_config({"mcpServers": {"x": stdio}})["x"].spec
    assert isinstance(_client_spec("stdio", stdio), StdioSpec)
    remote = {"url": "https://x.test/mcp", "headers": {"X-Key": "k"}, "timeout": 5, "allow_http": True}
    assert _client_spec("streamable", remote) == ml.load_config({"mcpServers": {"x": remote}})["x"].spec
    assert _client_spec("streamable", remote) == HttpSpec("https://x.test/mcp", "streamable", {"X-Key": "k"}, 5.0,
                                                          None, None, None, True)
    assert isinstance(_client_spec("memory", {"server": MCPServer("x")}), MemorySpec)
    with pytest.raises(ml.ConfigError, match="client 'x', config key 'allow_http': must be True or False, got 'yes'"):
        _client_spec("streamable", {**remote, "allow_http": "yes"})


def _client_spec(transport: str, config: dict[str, object]) -> object:
    return ml.Client("x", transport, config, start=False).spec  # type: ignore[arg-type]
