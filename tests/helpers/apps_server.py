"""An MCP Apps test server (SDK ``MCPServer``): a tool with an interface, an app-only tool, its ``ui://`` resource.

Run it as ``python -m tests.helpers.apps_server [stdio|http PORT]`` (from the repository root), or import
:func:`build_server` for the in-memory transport.

- ``show_counter(start=0)``: visible to the model and the app; its ``_meta.ui.resourceUri`` is
  ``ui://counter/app.html``.
- ``increment(value)``: visible to the app only (``_meta.ui.visibility == ["app"]``).
- ``ui://counter/app.html``: ``text/html;profile=mcp-app``, the HTML of ``apps_ui/counter.html``, with a CSP hint.
- ``apps_supported``: "yes" when the client advertised the extension with the app MIME type.
- hostile extras for tests: ``show_broken`` names a ``ui://`` resource that is plain text, ``show_remote`` a
  non-``ui://`` resource URI.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp.server.apps import client_supports_apps
from mcp.server.mcpserver import Context, MCPServer

APP_MIME_TYPE = "text/html;profile=mcp-app"
COUNTER_URI = "ui://counter/app.html"
COUNTER_HTML = Path(__file__).resolve().parent / "apps_ui" / "counter.html"
COUNTER_CSP = {"connectDomains": [], "resourceDomains": ["https://cdn.example.com"]}


def build_server(name: str = "apps") -> MCPServer:
    server = MCPServer(name)

    @server.tool(description="Show a counter the user can click, starting at `start`.",
                 meta={"ui": {"resourceUri": COUNTER_URI, "visibility": ["model", "app"]}})
    def show_counter(start: int = 0) -> str:
        return json.dumps({"count": start})

    @server.tool(description="Add one to the counter (called by the counter's app).",
                 meta={"ui": {"resourceUri": COUNTER_URI, "visibility": ["app"]}})
    def increment(value: int) -> str:
        return json.dumps({"count": value + 1})

    @server.tool(description="A tool whose interface is not HTML.",
                 meta={"ui": {"resourceUri": "ui://broken/app.txt"}})
    def show_broken() -> str:
        return "broken"

    @server.tool(description="A tool whose interface is not a ui:// resource.",
                 meta={"ui/resourceUri": "https://example.com/app.html"})
    def show_remote() -> str:
        return "remote"

    @server.tool(description="Whether this client negotiated MCP Apps (yes/no).")
    def apps_supported(ctx: Context) -> str:
        return "yes" if client_supports_apps(ctx) else "no"

    @server.resource(COUNTER_URI, name="counter", mime_type=APP_MIME_TYPE,
                     meta={"ui": {"csp": COUNTER_CSP, "prefersBorder": True}})
    def counter_html() -> str:
        return COUNTER_HTML.read_text(encoding="utf-8")

    @server.resource("ui://broken/app.txt", name="broken", mime_type="text/plain")
    def broken_ui() -> str:
        return "not html"

    return server


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    server = build_server()
    if not args or args[0] == "stdio":
        server.run()
    elif args[0] == "http":
        port = int(args[1]) if len(args) > 1 else 8000
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        raise SystemExit("usage: python -m tests.helpers.apps_server [stdio|http PORT]")


if __name__ == "__main__":
    main()
