"""What gateways and proxies in front of MCP servers answer, and what the user then sees: a 500 whose body
echoes the request URL (a secret in its query must show nowhere in the traceback), a 403 whose body says
why (the reason must be quoted). Real parts: the fixture server (a real SDK ``MCPServer``) behind
:class:`~tests.servers.gateway_app.GatewayApp`, served by uvicorn on 127.0.0.1."""

from __future__ import annotations

import traceback
from collections.abc import Iterator

import pytest

import mcp_litellm as ml
from tests.helpers.servers import UvicornThread
from tests.servers.fixture_server import build_server
from tests.servers.gateway_app import Answer, GatewayApp, jsonrpc_error

SECRET = "sk-live-SECRET-0123456789"
ECHO = "upstream failed: POST {url} returned 502"


def shown(error: BaseException) -> str:
    return "".join(traceback.format_exception(error))


@pytest.fixture
def gateway() -> Iterator[tuple[GatewayApp, str]]:
    app = GatewayApp(build_server("behind-gateway"))
    with UvicornThread(app) as served:
        yield app, f"{served.url}/mcp"


@pytest.mark.parametrize("body", [jsonrpc_error(-32603, ECHO), {"error": ECHO}])
def test_a_500_that_echoes_the_url_shows_no_query_secret_in_the_traceback_of_a_call(gateway, body):
    """The SDK's ``MCPError`` keeps the server's text in its ``ErrorData``: masked there too (it is what the
    chained exception prints), whatever the body's shape."""
    app, url = gateway
    with ml.client("gw", "streamable", {"url": f"{url}?api_key={SECRET}"}) as client:
        app.answers["tools/call"] = Answer(500, body)
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("echo", {"message": "hello"})
        assert info.value.http_status == 500
        text = shown(info.value)
        assert SECRET not in text and "api_key=***" in text  # the server's text is quoted, masked
        assert SECRET not in repr(info.value.__cause__) and SECRET not in str(info.value.__cause__)
        cause = info.value.__cause__
        assert SECRET not in str(getattr(cause, "error", "")) and SECRET not in str(getattr(cause, "data", ""))


def test_a_500_that_echoes_the_url_shows_no_query_secret_in_the_traceback_of_a_connect(gateway):
    app, url = gateway
    app.answers["*"] = Answer(500, jsonrpc_error(-32603, ECHO))
    with pytest.raises(ml.TransportError) as info:
        ml.client("gw", "streamable", {"url": f"{url}?api_key={SECRET}"})
    text = shown(info.value)
    assert "HTTP 500" in text and SECRET not in text


def test_a_secret_echoed_alone_is_masked_too(gateway):
    """A gateway that quotes the key's value alone (decoded) in its error: the value was remembered as a
    secret when the URL was configured."""
    app, url = gateway
    with ml.client("gw", "streamable", {"url": f"{url}?api_key={SECRET}"}) as client:
        app.answers["tools/call"] = Answer(500, jsonrpc_error(-32603, f"the key {SECRET} is not allowed here"))
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("echo", {"message": "hello"})
    assert SECRET not in shown(info.value)


REFUSAL = "Access is only allowed at localhost:4390"


def test_a_403_without_credentials_quotes_the_servers_reason_and_blames_no_credentials(gateway):
    app, url = gateway
    app.answers["*"] = Answer(403, f"\x1b[31m{REFUSAL}\x1b[0m\r\n")
    with pytest.raises(ml.TransportError) as info:
        ml.client("gw", "streamable", {"url": url})
    message = str(info.value)
    assert info.value.http_status == 403
    assert f"(the server said: {REFUSAL})" in message
    assert "no credentials are configured" in message and "lack permission" not in message
    assert "\x1b" not in message and "\r" not in message


def test_a_403_to_a_call_quotes_the_reason_too(gateway):
    app, url = gateway
    with ml.client("gw", "streamable", {"url": url}) as client:
        app.answers["tools/call"] = Answer(403, REFUSAL)
        with pytest.raises(ml.TransportError) as info:
            client.execute_tool("echo", {"message": "hello"})
    assert f"(the server said: {REFUSAL})" in str(info.value) and "no credentials are configured" in str(info.value)


def test_a_403_with_credentials_keeps_the_credentials_hint_and_quotes_the_reason_masked(gateway):
    """The server's reason may repeat the credential it refused: masked."""
    app, url = gateway
    app.answers["*"] = Answer(403, f"token {SECRET} may not use this server; {REFUSAL}")
    with pytest.raises(ml.TransportError) as info:
        ml.client("gw", "streamable", {"url": url, "headers": {"Authorization": f"Bearer {SECRET}"}})
    message = str(info.value)
    assert "lack permission" in message and REFUSAL in message
    assert SECRET not in shown(info.value) and "token *** may not use" in message


def test_a_long_reason_is_cut(gateway):
    app, url = gateway
    app.answers["*"] = Answer(403, "<html><body><h1>Forbidden</h1><p>" + "no. " * 2000 + "</p></body></html>",
                              content_type="text/html")
    with pytest.raises(ml.TransportError) as info:
        ml.client("gw", "streamable", {"url": url})
    said = str(info.value).split("the server said: ", 1)[1]
    assert said.startswith("Forbidden no. no.") and "<" not in said and len(said.split(")")[0]) <= 301


async def _refuse_everything(scope, receive, send):
    """A server in front of which every request, GET or POST, is refused with 403 and a reason."""
    if scope["type"] != "http":
        return
    body = REFUSAL.encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


@pytest.mark.parametrize(("transport", "path"), [("sse", "/sse"), ("streamable", "/mcp")])
@pytest.mark.parametrize("credentials", [False, True])
def test_a_403_on_either_http_transport_quotes_the_reason(transport, path, credentials):
    config = {"url": None, **({"headers": {"X-Api-Key": SECRET}} if credentials else {})}
    with UvicornThread(_refuse_everything) as served:
        config["url"] = served.url + path
        with pytest.raises(ml.TransportError) as info:
            ml.client("refused", transport, config)
    message = str(info.value)
    assert info.value.http_status == 403 and f"(the server said: {REFUSAL})" in message
    assert ("lack permission" in message) is credentials
    assert ("no credentials are configured" in message) is not credentials
    assert SECRET not in shown(info.value)
