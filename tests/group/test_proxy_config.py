"""load_config on a LiteLLM Proxy config.yaml: its mcp_servers entries become the same connections.

The format is the proxy's own (litellm 1.106.2, ``MCPServerConfig`` in
``litellm/proxy/_experimental/mcp_server/mcp_server_manager.py``); the tests that run a real proxy
with such a file are in tests/proxy. Here: the mapping, from real YAML and JSON files, checked by
connecting to real servers with the result.
"""

from __future__ import annotations

import base64
import json
import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

import mcp_litellm as ml
from tests.helpers.servers import FIXTURE_SERVER, UvicornThread
from tests.servers.fixture_server import build_server

TOKEN = "tok-s3cr3t-123"


class HeaderRecorder:
    """ASGI wrapper around the fixture server's streamable HTTP app: keeps each request's headers."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.headers: list[dict[str, str]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.headers.append({k.decode().lower(): v.decode() for k, v in scope["headers"]})
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def recorded_server() -> Iterator[tuple[str, HeaderRecorder]]:
    recorder = HeaderRecorder(build_server().streamable_http_app())
    with UvicornThread(recorder) as server:
        yield f"{server.url}/mcp", recorder


def proxy_config(url: str) -> dict[str, Any]:
    """A LiteLLM Proxy config as a proxy user has it: models, settings and MCP servers."""
    return {
        "model_list": [{"model_name": "gpt", "litellm_params": {"model": "openai/gpt-4o-mini",
                                                                "api_key": "os.environ/OPENAI_API_KEY"}}],
        "general_settings": {"master_key": "sk-1234"},
        "litellm_settings": {"mcp_aliases": {"fx": "fixture"}},
        "mcp_servers": {
            "fixture": {
                "transport": "stdio", "command": sys.executable, "args": [str(FIXTURE_SERVER)],
                "env": {"FIXTURE_BANNER": "os.environ/BANNER"},
                "description": "the test suite's server", "access_groups": ["dev"], "allow_all_keys": True,
                "disallowed_tools": ["crash", "fixture-fail"],
            },
            "remote": {
                "url": url,  # no transport: the proxy's default, streamable HTTP
                "auth_type": "bearer_token", "authentication_token": "os.environ/REMOTE_TOKEN",
                "static_headers": {"X-Team": "blue"}, "extra_headers": ["x-user-id"],
                "allowed_tools": ["add", "remote-echo"], "timeout": 12.5, "mcp_info": {"server_name": "Remote"},
            },
            "events": {"transport": "sse", "url": "https://events.example.com/sse", "alias": "ev",
                       "auth_type": "api_key", "auth_value": "key-1"},
            "github": {"transport": "http", "url": "https://api.example.com/mcp", "auth_type": "oauth2",
                       "client_id": "abc", "client_secret": "os.environ/GH_SECRET", "scopes": ["repo"]},
            "petstore": {"spec_path": "/specs/petstore.json", "url": "https://petstore.example.com"},
        },
    }


# GH_SECRET is not set: a secret only the proxy uses (the OAuth client secret) is not needed here
ENVIRON = {"OPENAI_API_KEY": "sk-openai", "BANNER": "from the proxy config", "REMOTE_TOKEN": TOKEN}


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_proxy_config_file_loads_as_the_same_servers(tmp_path, recorded_server, suffix, caplog):
    url, _ = recorded_server
    path = tmp_path / f"config{suffix}"
    data = proxy_config(url)
    path.write_text(yaml.safe_dump(data, sort_keys=False) if suffix == ".yaml" else json.dumps(data))
    with caplog.at_level(logging.DEBUG, logger="mcp_litellm"):
        servers = ml.load_config(path, environ=ENVIRON)
    assert list(servers) == ["fixture", "remote", "events", "github"], "the OpenAPI-spec entry is skipped"

    fixture = servers["fixture"]
    assert fixture.transport_type == "stdio"
    assert fixture.config == {"command": sys.executable, "args": [str(FIXTURE_SERVER)],
                              "env": {"FIXTURE_BANNER": "from the proxy config"}}
    assert set(fixture.exclude_tools) >= {"crash", "fail"}, "the proxy matches with and without the prefix"

    remote = servers["remote"]
    assert remote.transport_type == "streamable"
    assert remote.config["headers"] == {"Authorization": f"Bearer {TOKEN}", "X-Team": "blue"}
    assert remote.request_timeout == 12.5
    assert remote.include_tools is not None and {"add", "echo"} <= set(remote.include_tools)

    events = servers["events"]
    assert (events.transport_type, events.config["headers"]) == ("sse", {"X-API-Key": "key-1"})

    github = servers["github"]
    assert github.disabled, "an OAuth flow the proxy runs itself cannot be reproduced from the entry"
    assert not github.config.get("headers")

    messages = [r.getMessage() for r in caplog.records]
    assert any("'github'" in m and "disabled" in m and "oauth2" in m for m in messages), messages
    assert any("'petstore'" in m and "spec_path" in m for m in messages), messages
    ignored = next(m for m in messages if "'fixture'" in m and "ignoring LiteLLM Proxy settings" in m)
    assert "access_groups" in ignored and "allow_all_keys" in ignored
    assert any("'remote'" in m and "extra_headers" in m and "mcp_info" in m for m in messages), messages
    assert not any(secret in m for m in messages for secret in (TOKEN, "gh-secret", "sk-openai")), messages
    assert TOKEN not in repr(servers)


def test_the_loaded_servers_connect_with_the_headers_the_proxy_would_send(tmp_path, recorded_server):
    url, recorder = recorded_server
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(proxy_config(url), sort_keys=False))
    servers = ml.load_config(path, environ=ENVIRON)
    recorder.headers.clear()
    with ml.establish_connection({k: v for k, v in servers.items() if k in ("fixture", "remote")}) as group:
        assert sorted(tool.name for tool in group["remote"].tools()) == ["add", "echo"]
        assert group["remote"].execute_tool("add", {"a": 2, "b": 3}).text == "5"
        names = {tool.name for tool in group["fixture"].tools()}
        assert "add" in names and "crash" not in names and "fail" not in names
        assert group["fixture"].execute_tool("add", {"a": 1, "b": 1}).text == "2"
    assert recorder.headers, "the remote server was not contacted"
    assert all(h.get("authorization") == f"Bearer {TOKEN}" and h.get("x-team") == "blue" for h in recorder.headers)


@pytest.mark.parametrize(("auth_type", "token", "header"), [
    ("bearer_token", "abc", ("Authorization", "Bearer abc")),
    ("bearer_token", "Bearer abc", ("Authorization", "Bearer abc")),
    ("oauth2", "abc", ("Authorization", "Bearer abc")),
    ("basic", "user:pw", ("Authorization", "Basic " + base64.b64encode(b"user:pw").decode())),
    ("basic", "Basic dXNlcjpwdw==", ("Authorization", "Basic dXNlcjpwdw==")),
    ("api_key", "k-1", ("X-API-Key", "k-1")),
    ("authorization", "Custom xyz", ("Authorization", "Custom xyz")),
    ("token", "ghp_1", ("Authorization", "token ghp_1")),
])
def test_auth_types_map_to_the_proxys_headers(auth_type, token, header):
    servers = ml.load_config({"mcp_servers": {"s": {"url": "https://x.test/mcp", "transport": "http",
                                                    "auth_type": auth_type, "authentication_token": token}}})
    assert servers["s"].config["headers"] == dict([header])
    assert not servers["s"].disabled


def test_static_auth_type_without_a_token_is_loaded_disabled(caplog):
    servers = ml.load_config({"model_list": [], "mcp_servers": {"s": {"url": "https://x.test/mcp",
                                                                      "auth_type": "bearer_token"}}})
    assert servers["s"].disabled
    assert any("'s'" in r.getMessage() and "authentication_token" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("transport", ["websocket", "streamable-http", 3])
def test_unknown_transport_in_a_proxy_file_is_a_clear_error(tmp_path, transport):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"model_list": [], "mcp_servers": {
        "broken": {"transport": transport, "url": "https://x.test/mcp"}}}))
    with pytest.raises(ml.ConfigError) as info:
        ml.load_config(path)
    message = str(info.value)
    assert str(path) in message and "'broken'" in message and "'transport'" in message
    assert "'stdio', 'http'" in message and "'sse'" in message


def test_a_wrongly_typed_tool_list_is_named_as_the_user_wrote_it():
    with pytest.raises(ml.ConfigError) as info:
        ml.load_config({"general_settings": {}, "mcp_servers": {"s": {"url": "https://x.test/mcp",
                                                                      "disallowed_tools": "crash"}}})
    assert "'s'" in str(info.value) and "'disallowed_tools'" in str(info.value) and "list" in str(info.value)


def test_unknown_auth_type_is_a_clear_error():
    with pytest.raises(ml.ConfigError) as info:
        ml.load_config({"mcp_servers": {"s": {"url": "https://x.test/mcp", "auth_type": "kerberos",
                                              "authentication_token": TOKEN}}})
    assert "'kerberos'" in str(info.value) and "'s'" in str(info.value) and "bearer_token" in str(info.value)
    assert TOKEN not in str(info.value)


def test_missing_os_environ_variable_is_named_without_values(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"general_settings": {}, "mcp_servers": {
        "s": {"url": "https://x.test/mcp", "auth_type": "bearer_token",
              "authentication_token": "os.environ/NOT_SET_ANYWHERE"}}}))
    with pytest.raises(ml.ConfigError) as info:
        ml.load_config(path, environ={})
    assert "'NOT_SET_ANYWHERE'" in str(info.value) and "'s'" in str(info.value)


def test_our_own_mcp_servers_files_are_not_read_as_proxy_files():
    # without the proxy's sections or keys, mcp_servers is this library's format (streamable-http, URL rules)
    servers = ml.load_config({"mcp_servers": {"a": {"transport": "streamable-http", "url": "https://x.test/mcp"},
                                              "b": {"url": "https://x.test/sse"}}})
    assert servers["a"].transport_type == "streamable"
    assert servers["b"].transport_type == "sse"
