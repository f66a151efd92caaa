"""The interface's cache (with the tools listing and the read's ttlMs), and pins: they cover a tool's interface,
its ``_meta.ui`` (with the tool's definition) and its ``ui://`` resource (the first read pins it; a changed one
is withheld until ``pin_ui`` accepts it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.server.caching import CacheHint
from mcp.server.mcpserver import MCPServer

import mcp_litellm as ml

URI = "ui://pinned/app.html"


def _server(html: str, uri: str = URI) -> MCPServer:
    server = MCPServer("pinned")

    @server.tool(meta={"ui": {"resourceUri": uri}})
    def show() -> str:
        return "shown"

    @server.resource(URI, mime_type="text/html;profile=mcp-app")
    def page() -> str:
        return html

    return server


def _client(server: MCPServer, pins: Path) -> ml.Client:
    return ml.client("pinned", "memory", {"server": server}, tool_pins=pins)


def test_changed_interface_is_withheld_until_accepted(tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    with _client(_server("<p>one</p>"), pins) as client:
        assert client.read_ui("show").html == "<p>one</p>"  # pinned on first read
    with _client(_server("<p>one</p>"), pins) as client:
        assert client.read_ui("show").html == "<p>one</p>"
    with _client(_server("<p>two</p>"), pins) as client:
        with pytest.raises(ml.ToolChangedError, match=r"interface .ui://.* is withheld: .*client\.pin_ui\(tool\)"):
            client.read_ui("show")
        assert client.pin_ui("show").html == "<p>two</p>"
        assert client.read_ui("show").html == "<p>two</p>"
        client.pin_tools()  # accepting every tool keeps the interface's pin
    with _client(_server("<p>one</p>"), pins) as client, pytest.raises(ml.ToolChangedError):
        client.read_ui("show")


def test_changed_resource_uri_withholds_the_tool(tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    with _client(_server("<p>one</p>"), pins) as client:
        assert [tool.name for tool in client.tools()] == ["show"]
    with _client(_server("<p>one</p>", uri="ui://elsewhere/app.html"), pins) as client:
        assert client.tools() == []
        with pytest.raises(ml.ToolChangedError, match="interface"):
            client.tool("show")


def test_pin_ui_needs_tool_pins() -> None:
    with ml.client("pinned", "memory", {"server": _server("x")}) as client, \
            pytest.raises(ml.ConfigError, match="no tool_pins"):
        client.pin_ui("show")


@pytest.mark.parametrize("ttl_ms", [600_000, 0])
def test_read_ui_is_cached_with_the_tools_listing_and_its_ttl(ttl_ms: int) -> None:
    reads: list[int] = []
    server = MCPServer("cached", cache_hints={"resources/read": CacheHint(ttl_ms=ttl_ms)})

    @server.tool(meta={"ui": {"resourceUri": URI}})
    def show() -> str:
        return "shown"

    @server.resource(URI, mime_type="text/html;profile=mcp-app")
    def page() -> str:
        reads.append(1)
        return f"<p>{len(reads)}</p>"

    with ml.client("cached", "memory", {"server": server}) as client:
        first = client.read_ui("show")
        if ttl_ms == 0:  # the server says not to keep it
            assert client.read_ui("show").html == "<p>2</p>"
            return
        assert client.read_ui("show") is first and len(reads) == 1
        client.tools(refresh=True)  # a new listing: the interface is read anew
        assert client.read_ui("show").html == "<p>2</p>"


def test_the_pins_command_counts_interfaces_apart_from_tools(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``mcp-litellm pins`` counted a pinned ``ui://`` resource as one more pinned tool."""
    import json
    import sys

    from mcp_litellm._cli.main import main
    from tests.helpers.servers import ROOT

    entry = {"command": sys.executable, "args": ["-m", "tests.helpers.apps_server"], "cwd": str(ROOT)}
    pins = tmp_path / "pins.json"
    with ml.client("counter", "stdio", entry, tool_pins=pins, apps=True) as client:
        tools = client.tools()
        client.read_ui("show_counter")  # the first read pins the interface
    stored = json.loads(pins.read_text())["servers"]["counter"]["tools"]
    assert any(key.startswith("ui://") for key in stored)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"tool_pins": "pins.json", "mcpServers": {"counter": {**entry, "apps": True}}}))

    assert main(["pins", "-c", str(config)]) == 0
    out = capsys.readouterr().out
    listed = len(stored) - 1
    assert f"counter: {listed} pinned, 0 withheld, 1 interface (pins: " in out
    assert listed >= len(tools)  # the app-only tool is pinned too (withheld from chats, not from pins)
    assert "ui://counter/app.html: interface pinned" in out and "no longer offered" not in out
