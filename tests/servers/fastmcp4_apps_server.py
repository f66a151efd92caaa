"""An MCP Apps server written with fastmcp 4.x's ``app=`` tools, run by the interpreter of a separate virtualenv
(fastmcp 4 conflicts with this project's pins): ``python tests/servers/fastmcp4_apps_server.py [stdio|http PORT]``.

Tools: ``show_board(size)`` (model and app, interface ``ui://board/app.html``), ``move(cell)`` (app only).
"""

from __future__ import annotations

import json
import sys

from fastmcp import FastMCP
from fastmcp.apps import AppConfig, ResourceCSP

BOARD_URI = "ui://board/app.html"
BOARD_HTML = "<!doctype html><html><body><div id='board'>board</div></body></html>"

mcp = FastMCP("board")


@mcp.tool(app=AppConfig(resourceUri=BOARD_URI, visibility=["model", "app"]))
def show_board(size: int = 3) -> str:
    """Show a board of size x size cells."""
    return json.dumps({"size": size})


@mcp.tool(app=AppConfig(resourceUri=BOARD_URI, visibility=["app"]))
def move(cell: int) -> str:
    """Play a cell (called by the board's app)."""
    return json.dumps({"played": cell})


@mcp.resource(BOARD_URI, app=AppConfig(csp=ResourceCSP(resourceDomains=["https://cdn.example.com"]),
                                       prefersBorder=True))
def board_html() -> str:
    return BOARD_HTML


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] == "stdio":
        mcp.run(show_banner=False)
    else:
        mcp.run("http", host="127.0.0.1", port=int(args[1]), show_banner=False)
