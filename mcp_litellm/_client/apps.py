"""MCP Apps (SEP-1865, extension ``io.modelcontextprotocol/ui``), the client side: a tool's interface.

``ToolUI`` is what a tool's ``_meta.ui`` says (its ``ui://`` resource, who may see the tool, CSP and
permission hints); ``AppResource`` is that resource as read (its HTML and hints); ``UIExtension``
advertises the extension in the client capabilities; ``Interfaces`` reads, keeps and pins them for a client
(``client.read_ui``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp.client.extension import ClientExtension

from mcp_litellm._client.pins import ToolPins, digest
from mcp_litellm._client.primitives.tool_ui import (
    APP_MIME_TYPE,
    UI_EXTENSION,
    UI_SCHEME,
    ToolUI,
    _mapping,
    model_visible,
)
from mcp_litellm._core.documents import JSONValue
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, ServerError

if TYPE_CHECKING:
    from mcp_types import ReadResourceResult

    from mcp_litellm._client.listing import CatalogCache
    from mcp_litellm._client.primitives.tool import Tool

class AppResourceError(MCPLiteLLMError, ValueError):
    """A tool's interface cannot be given to a host: the tool has none, its resource is not ``ui://``, not
    the app MIME type (``text/html;profile=mcp-app``), not found, or not text."""


class UIExtension(ClientExtension):
    """Advertises ``io.modelcontextprotocol/ui`` with the MIME types this client's hosts render."""

    identifier = UI_EXTENSION

    def settings(self) -> dict[str, Any]:
        return {"mimeTypes": [APP_MIME_TYPE]}


@dataclass(frozen=True)
class AppResource:
    """A tool's interface as read from its server: the app's ``html`` and the hints a host needs.

    ``csp`` (``connectDomains``, ``resourceDomains``, ``frameDomains``, ``baseUriDomains``),
    ``permissions``, ``prefers_border`` and ``domain`` come from the resource's ``_meta.ui`` (the read
    contents first, then the listing). ``server``: the server the app belongs to (its calls go there).
    """

    uri: str
    html: str
    mime_type: str
    server: str
    csp: Mapping[str, object] = field(default_factory=dict)
    permissions: Mapping[str, object] = field(default_factory=dict)
    prefers_border: bool | None = None
    domain: str | None = None

    def to_dict(self) -> dict[str, object]:
        """A JSON-safe dict of this resource (for a web page)."""
        return {"uri": self.uri, "html": self.html, "mimeType": self.mime_type, "server": self.server,
                "csp": dict(self.csp), "permissions": dict(self.permissions),
                "prefersBorder": self.prefers_border, "domain": self.domain}


MAX_APP_HTML_CHARS = 10_000_000
"""The largest interface :meth:`Client.read_ui` accepts (an app bundled into one file is rarely past 3 MB)."""


def app_resource(server: str, uri: str, result: ReadResourceResult, listed_meta: object = None) -> AppResource:
    """The :class:`AppResource` in a ``resources/read`` result; :class:`AppResourceError` if it is no app."""
    for content in result.contents:
        if str(content.uri) != uri:
            continue
        mime = content.mime_type or ""
        if mime.replace(" ", "").lower() != APP_MIME_TYPE:
            raise AppResourceError(f"resource {uri!r} of server {server!r} is {mime or 'of no MIME type'!s}, "
                                   f"not an MCP App ({APP_MIME_TYPE}); refused")
        text = getattr(content, "text", None)
        if not isinstance(text, str):
            raise AppResourceError(f"resource {uri!r} of server {server!r} is not text; an MCP App is HTML")
        if len(text) > MAX_APP_HTML_CHARS:
            raise AppResourceError(f"resource {uri!r} of server {server!r} is {len(text):,} characters of HTML; "
                                   f"the largest interface read is {MAX_APP_HTML_CHARS:,}: refused")
        ui = {**_mapping(_mapping(listed_meta).get("ui")), **_mapping(_mapping(content.meta).get("ui"))}
        border, domain = ui.get("prefersBorder"), ui.get("domain")
        return AppResource(uri=uri, html=text, mime_type=APP_MIME_TYPE, server=server,
                           csp=dict(_mapping(ui.get("csp"))), permissions=dict(_mapping(ui.get("permissions"))),
                           prefers_border=border if isinstance(border, bool) else None,
                           domain=domain if isinstance(domain, str) else None)
    raise AppResourceError(f"server {server!r} sent no contents for {uri!r}")


def checked_ui_uri(tool: Tool, server: str) -> str:
    """The ``ui://`` URI of ``tool``'s interface; :class:`AppResourceError` when it has none or another scheme."""
    ui = tool.ui
    if ui is None or not ui.resource_uri:
        raise AppResourceError(f"tool {tool.mcp_name!r} of server {server!r} has no interface (_meta.ui.resourceUri)")
    if not ui.resource_uri.startswith(UI_SCHEME):
        raise AppResourceError(f"tool {tool.mcp_name!r} of server {server!r} names {ui.resource_uri!r} as its "
                               "interface; only ui:// resources are read")
    return ui.resource_uri


def interface_pin(app: AppResource) -> dict[str, JSONValue]:
    """What a pin covers of an interface: its HTML and the hints the host applies."""
    hints = json.loads(json.dumps({"csp": app.csp, "permissions": app.permissions}, default=str))
    return {"digest": digest({"uri": app.uri, "html": app.html, "domain": app.domain, **hints})}


class Interfaces:
    """The interfaces (MCP Apps) of one client's tools: read from the server, kept with the tools listing they
    were read under (and their ``ttlMs``), and pinned with the client's ``tool_pins``.

    Built with what it needs: the server's name, the catalog's tool lookup (``find``), the resources' read
    (``read``), the catalog cache (whose tools listing scopes what is kept), and the client's pins (``pins``,
    read at each use: a group may set them after the client was made).
    """

    def __init__(self, name: str, *, find: Callable[[str, bool], Awaitable[Tool]],
                 read: Callable[[str, bool], Awaitable[ReadResourceResult]], cache: CatalogCache,
                 pins: Callable[[], ToolPins | None]) -> None:
        self._name = name
        self._find = find
        self._read = read
        self._cache = cache
        self._pins = pins
        self._kept: dict[str, tuple[object, float | None, AppResource]] = {}
        """Interfaces read, by URI: the tools listing they were read under, when their ttlMs ends, the resource."""

    async def _tool(self, tool: str | Tool) -> Tool:
        if isinstance(tool, str):
            return await self._find(tool, False)
        if hasattr(tool, "mcp_name") and hasattr(tool, "ui"):  # a Tool (not imported here: tool.py imports this)
            return tool
        raise ConfigError(f"read_ui() takes a tool or a tool name, got {type(tool).__name__}")

    async def read_ui(self, tool: str | Tool) -> AppResource:
        """The interface of ``tool`` (see :meth:`mcp_litellm.Client.read_ui`)."""
        found = await self._tool(tool)
        uri = checked_ui_uri(found, self._name)
        listing = self._cache.tools.items  # a new listing (refresh, list_changed, ttlMs, reconnect) reads anew
        kept = self._kept.get(uri)
        if kept is not None and kept[0] is listing and (kept[1] is None or time.monotonic() < kept[1]):
            return kept[2]
        try:
            result = await self._read(uri, True)
        except ServerError as error:
            raise AppResourceError(f"server {self._name!r} could not read {uri!r}, the interface of tool "
                                   f"{found.mcp_name!r}: {error}") from error
        app = app_resource(self._name, uri, result)
        await self._check_pin(app)
        ttl = result.ttl_ms if "ttl_ms" in result.model_fields_set else None
        self._kept[uri] = (listing, None if ttl is None else time.monotonic() + ttl / 1000, app)
        return app

    async def _check_pin(self, app: AppResource) -> None:
        """With ``tool_pins``: the first read of an interface pins it; a later one that differs is withheld
        (:class:`~mcp_litellm.ToolChangedError`) until :meth:`pin_ui` accepts it."""
        pins = self._pins()
        if pins is not None:
            await pins.check_interface(app.uri, interface_pin(app))

    async def pin_ui(self, tool: str | Tool) -> AppResource:
        """Accept the current interface of ``tool`` (see :meth:`mcp_litellm.Client.pin_ui`)."""
        pins = self._pins()
        if pins is None:
            raise ConfigError(f"client {self._name!r} has no tool_pins: create it with tool_pins=PATH to pin "
                              "interfaces")
        found = await self._tool(tool)
        uri = checked_ui_uri(found, self._name)
        app = app_resource(self._name, uri, await self._read(uri, True))
        await pins.accept_interface(uri, interface_pin(app))
        self._kept.pop(uri, None)
        return app


__all__ = ["APP_MIME_TYPE", "UI_EXTENSION", "AppResource", "AppResourceError", "Interfaces", "ToolUI",
           "UIExtension", "app_resource", "checked_ui_uri", "model_visible"]
