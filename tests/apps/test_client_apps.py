"""MCP Apps, the client side: the extension advertised, Tool.ui, read_ui and its refusals (real servers)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import mcp_litellm as ml
from tests.helpers.apps_server import COUNTER_CSP, COUNTER_HTML, COUNTER_URI


def test_apps_true_advertises_the_extension(apps_client: Callable[..., ml.Client], apps_transport: str) -> None:
    assert str(apps_client(apps_transport).execute_tool("apps_supported", {})) == "yes"


def test_apps_off_by_default(apps_client: Callable[..., ml.Client]) -> None:
    assert str(apps_client("stdio", apps=False).execute_tool("apps_supported", {})) == "no"


def test_tool_ui_from_meta(apps_client: Callable[..., ml.Client], apps_transport: str) -> None:
    tools = {tool.name: tool for tool in apps_client(apps_transport).tools()}
    assert tools["show_counter"].ui == ml.ToolUI(resource_uri=COUNTER_URI, visibility=("model", "app"))
    assert tools["increment"].ui is not None and tools["increment"].ui.visibility == ("app",)
    assert tools["increment"].ui.model_visible is False
    assert tools["show_remote"].ui is not None
    assert tools["show_remote"].ui.resource_uri == "https://example.com/app.html"  # the older ui/resourceUri key
    assert tools["apps_supported"].ui is None


def test_tool_ui_parsing_rules() -> None:
    assert ml.ToolUI.from_meta(None) is None
    assert ml.ToolUI.from_meta({"ui": {}}) is None
    ui = ml.ToolUI.from_meta({"ui": {"resourceUri": "ui://a", "visibility": ["app", "bogus"], "prefersBorder": False,
                                     "csp": {"connectDomains": ["https://x"]}, "permissions": {"camera": {}}}})
    assert ui == ml.ToolUI("ui://a", ("app",), {"connectDomains": ["https://x"]}, {"camera": {}}, False)
    # a single string is a one-item list; anything else malformed shows the tool to no one (fails closed)
    assert ml.ToolUI.from_meta({"ui": {"resourceUri": "ui://a", "visibility": "app"}}).visibility == ("app",)
    for garbage in ([42], 42, {"app": True}, True):
        hidden = ml.ToolUI.from_meta({"ui": {"resourceUri": "ui://a", "visibility": garbage}})
        assert hidden is not None and not hidden.model_visible and not hidden.app_visible, garbage


def test_an_interface_past_the_limit_is_refused() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("huge")

    @server.tool(meta={"ui": {"resourceUri": "ui://huge/app.html"}})
    def show() -> str:
        return "shown"

    @server.resource("ui://huge/app.html", mime_type="text/html;profile=mcp-app")
    def html() -> str:
        return "<p>" + "x" * 10_000_001

    with ml.client("huge", "memory", {"server": server}, apps=True) as client, pytest.raises(
            ml.AppResourceError, match=r"10,000,00\d characters of HTML; the largest interface"):
        client.read_ui("show")


def test_read_ui(apps_client: Callable[..., ml.Client], apps_transport: str) -> None:
    client = apps_client(apps_transport)
    app = client.read_ui("show_counter")
    assert isinstance(app, ml.AppResource)
    assert (app.uri, app.mime_type, app.server) == (COUNTER_URI, "text/html;profile=mcp-app", "apps")
    assert app.html == COUNTER_HTML.read_text(encoding="utf-8")
    assert app.csp == COUNTER_CSP and app.prefers_border is True
    assert client.read_ui(client.tool("show_counter")) == app


async def test_aread_ui(apps_client: Callable[..., ml.Client]) -> None:
    client = apps_client("stdio")
    async with client:
        app = await client.aread_ui("show_counter")
    assert app.uri == COUNTER_URI and "<button" in app.html


@pytest.mark.parametrize(("tool", "says"), [
    ("show_broken", "text/plain, not an MCP App"),
    ("show_remote", "only ui:// resources are read"),
    ("apps_supported", "has no interface"),
])
def test_read_ui_refusals(apps_client: Callable[..., ml.Client], tool: str, says: str) -> None:
    with pytest.raises(ml.AppResourceError, match=says):
        apps_client("stdio").read_ui(tool)


def test_read_ui_of_a_missing_tool(apps_client: Callable[..., ml.Client]) -> None:
    with pytest.raises(ml.NotFoundError):
        apps_client("stdio").read_ui("no_such_tool")
