"""Bad client configuration gets precise errors; secrets stay out of reprs, messages and logs."""

from __future__ import annotations

import logging
import sys
import traceback
from contextlib import asynccontextmanager

import pytest
from mcp import StdioServerParameters, stdio_client

import mcp_litellm as ml
from tests.helpers.servers import FIXTURE_SERVER, free_port

SECRET = "sk-live-SECRET-0123456789"


@pytest.mark.parametrize(
    ("transport_type", "config", "message"),
    [
        ("websocket", {"url": "ws://x"}, "unknown transport_type 'websocket'; valid choices: .*stdio.*streamable"),
        ("stdio", {}, "config key 'command': is required for a stdio server"),
        ("stdio", {"command": "x", "argz": []}, "'argz': unknown key .*'args'.*valid keys: args, command"),
        ("stdio", {"command": "x", "args": "not-a-list"}, "'args': .* list of strings"),
        ("streamable", {}, "config key 'url': is required for a streamable server"),
        ("streamable", {"url": "localhost:8000/mcp"}, "must start with http"),
        ("sse", {"url": "http://x/sse", "headers": ["a"]}, "'headers': .* mapping"),
        ("http", {"url": "http://x/mcp", "auth": "Bearer x"}, "httpx2.Auth"),
        ("memory", {"server": object()}, "MCPServer"),
    ],
)
def test_bad_transport_config(transport_type, config, message):
    with pytest.raises(ml.ConfigError, match=message):
        ml.client("bad", transport_type, config)


def test_a_config_passed_as_the_transport_type_is_named_and_its_secrets_masked():
    """``ml.client("demo", {...})``: the config lands where the transport type goes; the error says so,
    says how to pass it, and shows the config with its env values masked (nothing has remembered them yet)."""
    config = {"command": "npx", "args": ["-y", "some-server"], "env": {"API_KEY": SECRET, "DEBUG_LEVEL": "verbose"}}
    with pytest.raises(ml.ConfigError) as info:
        ml.client("demo", config)
    shown = "".join(traceback.format_exception(info.value))
    assert SECRET not in shown and SECRET not in repr(info.value)
    assert "looks like a server's config" in str(info.value)
    assert "client(name, config={...})" in str(info.value) and "'stdio'" in str(info.value)
    assert "'API_KEY': '***'" in str(info.value) and "'command': 'npx'" in str(info.value)
    url_config = {"url": f"https://example.com/mcp?api_key={SECRET}", "headers": {"X-Token": SECRET}}
    with pytest.raises(ml.ConfigError) as info:
        ml.client("demo", url_config)
    assert SECRET not in str(info.value) and "'streamable'" in str(info.value)


def test_a_wrong_value_quoted_in_an_error_is_masked():
    """Messages that quote the wrong value mask what could be a credential in it."""
    from mcp_litellm._core.redact import shown_value

    assert SECRET not in shown_value({"nested": {"token": SECRET}, "url": f"http://h/?key={SECRET}"})
    with pytest.raises(ml.ConfigError) as info:
        ml.client("bad", "stdio", {"command": "x"}, start=False, request_timeout={"api_key": SECRET})
    assert SECRET not in str(info.value) and "request_timeout must be" in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"request_timeout": 0}, "request_timeout must be a positive number"),
        ({"request_timeout": "5"}, "request_timeout must be a positive number"),
        ({"protocol": "newest"}, "protocol must be"),
        ({"max_result_chars": -1}, "max_result_chars"),
        ({"no_such_option": 1}, "unknown option\\(s\\) for client 'bad': no_such_option"),
    ],
)
def test_bad_client_arguments(kwargs, message):
    with pytest.raises(ml.ConfigError, match=message):
        ml.client("bad", "stdio", {"command": "x"}, start=False, **kwargs)


def test_errors_form_one_hierarchy():
    for error in (ml.ConfigError, ml.TransportError, ml.TimeoutError, ml.ServerError, ml.UnsupportedFeature,
                  ml.NotFoundError):
        assert issubclass(error, ml.MCPLiteLLMError)
    server_error = ml.ServerError(-32602, "Invalid params", {"field": "a"}, method="tools/call")
    assert (server_error.code, server_error.message, server_error.data) == (-32602, "Invalid params", {"field": "a"})


def test_client_is_ml_client_alias():
    client = ml.client("same", "stdio", {"command": "x"}, start=False)
    assert isinstance(client, ml.Client)


def test_registered_transport_is_used(make_client):
    opened: list[str] = []

    def factory(config):
        opened.append(config["script"])
        return stdio_client(StdioServerParameters(command=sys.executable, args=[config["script"]]))

    ml.register_transport("my-stdio", factory)
    client = ml.client("custom", "my-stdio", {"script": str(FIXTURE_SERVER)})
    try:
        assert client.execute_tool("add", {"a": 20, "b": 22}).text == "42"
        assert opened == [str(FIXTURE_SERVER)]
    finally:
        client.stop()


def test_registered_async_context_manager_factory():
    @asynccontextmanager
    async def factory(config):
        async with stdio_client(StdioServerParameters(command=sys.executable, args=[str(FIXTURE_SERVER)])) as s:
            yield s

    ml.register_transport("cm-stdio", lambda config: factory(config))
    with ml.client("cm", "cm-stdio", {}) as client:
        assert client.ping()


def test_register_transport_rejects_bad_input():
    with pytest.raises(ml.ConfigError):
        ml.register_transport("", lambda c: None)
    with pytest.raises(ml.ConfigError):
        ml.register_transport("x", "not callable")  # type: ignore[arg-type]


def test_header_secrets_never_shown(fixture_http, caplog):
    caplog.set_level(logging.DEBUG)
    headers = {"Authorization": f"Bearer {SECRET}", "X-Api-Key": SECRET}
    client = ml.client("secret", "streamable", {"url": fixture_http["streamable-http"], "headers": headers})
    try:
        assert client.execute_tool("echo", {"message": "hello"}).text == "hello"
        assert SECRET not in repr(client)
        assert "Authorization" in repr(client)
    finally:
        client.stop()
    with pytest.raises(ml.TransportError) as info:
        ml.client("secret-down", "streamable", {"url": f"http://127.0.0.1:{free_port()}/mcp", "headers": headers})
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    leaked = [r.getMessage() for r in caplog.records if SECRET in r.getMessage() or SECRET in str(r.args)]
    assert leaked == []


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
def test_url_query_secrets_never_shown(fixture_http, caplog, transport):
    caplog.set_level(logging.DEBUG)
    url = f"{fixture_http[transport]}?api_key={SECRET}&access_token={SECRET}&region=eu"
    client = ml.client("secret", "sse" if transport == "sse" else "streamable", {"url": url})
    try:
        assert client.execute_tool("echo", {"message": "hello"}).text == "hello"
        assert SECRET not in repr(client) and "api_key=***&access_token=***&region=eu" in repr(client)
    finally:
        client.stop()
    config = ml.load_config({"mcpServers": {"s": {"url": url}}})
    assert SECRET not in repr(config) and SECRET not in repr(ml.ClientGroup(config))
    assert any("api_key=***" in r.getMessage() for r in caplog.records)  # the URL is logged, masked
    leaked = [r.getMessage() for r in caplog.records if SECRET in r.getMessage() or SECRET in str(r.args)]
    assert leaked == []


def test_redact_url_masks_secret_query_values_only():
    from mcp_litellm._core.redact import redact_url

    assert redact_url("https://h/mcp?key=a&token=b&secret=c&password=d&apiKey=e&page=2") == (
        "https://h/mcp?key=***&token=***&secret=***&password=***&apiKey=***&page=2")
    assert redact_url("failed: POST https://h/x?q=1&api-key=abc 'done'") == (
        "failed: POST https://h/x?q=1&api-key=*** 'done'")
    assert redact_url("https://h/mcp") == "https://h/mcp"


def test_env_secrets_not_in_repr():
    client = ml.client("env", "stdio", {"command": "x", "env": {"API_KEY": SECRET}}, start=False)
    assert SECRET not in repr(client)


@pytest.mark.parametrize(("text", "shown"), [
    ("(the server said: bad /mcp?api_key=S3CRET); the server", "(the server said: bad /mcp?api_key=***); the server"),
    ("see x?api_key=S3CRET&page=2 now", "see x?api_key=***&page=2 now"),
    ("at x?token=S3CRET.", "at x?token=***."),
    ("(x?token=S3CRET)", "(x?token=***)"),
])
def test_a_masked_url_query_secret_keeps_the_punctuation_after_it(text, shown):
    from mcp_litellm._core.redact import redact_text

    assert redact_text(text) == shown
