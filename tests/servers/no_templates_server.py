"""An MCP server that declares ``resources`` but has no ``resources/templates/list`` handler, as
server-postgres and mcp-server-duckdb do: it answers "Method not found" (-32601) to that listing.

Built on the SDK's low-level ``Server``, which advertises what its handlers cover and answers -32601 for
the rest. One tool (``ping_back``) and one resource (``bare://readme``).

Run: ``python no_templates_server.py [stdio|streamable-http] [--port N]``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp_types import (
    CallToolResult,
    ListResourcesResult,
    ListToolsResult,
    ReadResourceResult,
    Resource,
    TextContent,
    TextResourceContents,
    Tool,
)


def build_server(name: str = "no-templates") -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="ping_back", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="pong")])

    async def list_resources(ctx: Any, params: Any) -> ListResourcesResult:
        return ListResourcesResult(resources=[Resource(uri="bare://readme", name="readme")])

    async def read_resource(ctx: Any, params: Any) -> ReadResourceResult:
        return ReadResourceResult(contents=[TextResourceContents(uri=params.uri, text="hello")])

    return Server(name, version="0.1", on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_read_resource=read_resource)


def main() -> None:
    import argparse

    import anyio

    parser = argparse.ArgumentParser()
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "streamable-http"])
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    server = build_server()
    if args.transport == "stdio":
        from mcp.server.stdio import stdio_server

        async def serve() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(serve)
    else:
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    main()
