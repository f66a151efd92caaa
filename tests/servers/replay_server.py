"""An MCP server that offers a real server's saved catalog (``benchmarks/search_catalogs/<name>.json``: the
tools' names, descriptions and input schemas as the real server listed them), for tool-search tests that need
real wording without installing the real server. Every call answers with a line naming the tool and its
arguments, so a test can see which one ran.

Built on the SDK's low-level ``Server``; serve it in memory: ``ml.client(name, "memory", {"server":
build_server("git")})``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

CATALOGS = Path(__file__).resolve().parents[2] / "benchmarks" / "search_catalogs"


def saved_tools(name: str) -> list[Tool]:
    """The tools of the saved catalog ``name``."""
    saved = json.loads((CATALOGS / f"{name}.json").read_text())
    return [Tool(name=t["name"], description=t.get("description"), input_schema=t.get("inputSchema") or {
        "type": "object"}) for t in saved["tools"]]


def build_server(name: str) -> Server[Any]:
    """A server offering the saved catalog ``name`` (named after it)."""
    tools = saved_tools(name)

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        arguments = json.dumps(params.arguments or {}, sort_keys=True)
        return CallToolResult(content=[TextContent(type="text", text=f"{params.name} ran with {arguments}")])

    return Server(name, version="0.1", on_list_tools=list_tools, on_call_tool=call_tool)
