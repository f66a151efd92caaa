"""A listing the server answers with "Method not found" (-32601) is an empty listing, for the client, the
group and everything built on them (one rule, ``_client.listing.lists_nothing``), said at DEBUG.

Real servers: a low-level SDK server that declares ``resources`` without a templates handler (the shape
of server-postgres and mcp-server-duckdb) over stdio in both eras, and the fixture server behind a
gateway that answers -32601 to one listing at a time (streamable HTTP on 127.0.0.1)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

import mcp_litellm as ml
from tests.helpers.servers import UvicornThread
from tests.servers.fixture_server import build_server
from tests.servers.gateway_app import Answer, GatewayApp, jsonrpc_error

NO_TEMPLATES = Path(__file__).resolve().parent.parent / "servers" / "no_templates_server.py"
CONFIG = {"command": sys.executable, "args": [str(NO_TEMPLATES)]}


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_server_without_a_templates_handler_lists_no_templates(protocol, caplog):
    caplog.set_level(logging.DEBUG, logger="mcp_litellm")
    with ml.client("bare", "stdio", CONFIG, protocol=protocol) as client:
        assert client.capabilities.resources is not None  # it declares resources...
        assert client.resource_templates() == []  # ...but answers -32601 to their templates
        assert [str(r.uri) for r in client.resources()] == ["bare://readme"]
        assert client.execute_tool("ping_back").text == "pong"
    said = [r for r in caplog.records if "resources/templates/list" in r.getMessage()]
    assert said and all(r.levelno == logging.DEBUG for r in said)
    assert "method not found" in said[0].getMessage()


async def test_the_group_lists_no_templates_of_it_either():
    config = {"mcpServers": {"bare": CONFIG, "demo": {"server": build_server("demo")}}}
    async with ml.ClientGroup(config, strict=True) as group:
        templates = await group.aresource_templates()
        assert {t.client.name for t in templates} == {"demo"}
        assert await group["bare"].aresource_templates() == []


LISTINGS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
            "resources/templates/list": "resource_templates"}


@pytest.mark.parametrize("method", list(LISTINGS))
def test_method_not_found_on_any_listing_is_an_empty_listing(method):
    app = GatewayApp(build_server("gw"))
    app.answers[method] = Answer(200, jsonrpc_error(-32601, f"Method not found: {method}"))
    with UvicornThread(app) as served, ml.client("gw", "streamable", {"url": f"{served.url}/mcp"}) as client:
        assert getattr(client, LISTINGS[method])() == []
        others = [kind for kind in LISTINGS.values() if kind != LISTINGS[method]]
        assert all(getattr(client, kind)() for kind in others)  # the fixture server offers some of each
        with ml.ClientGroup({"mcpServers": {"gw": {"url": f"{served.url}/mcp"}}}, strict=True) as group:
            assert getattr(group, LISTINGS[method])() == []


def test_another_error_on_a_listing_still_raises():
    app = GatewayApp(build_server("gw"))
    app.answers["prompts/list"] = Answer(200, jsonrpc_error(-32603, "the prompt store is down"))
    with (UvicornThread(app) as served, ml.client("gw", "streamable", {"url": f"{served.url}/mcp"}) as client,
          pytest.raises(ml.ServerError, match="the prompt store is down")):
        client.prompts()
