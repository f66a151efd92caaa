"""MCP Apps (SEP-1865, extension ``io.modelcontextprotocol/ui``), the client side: a tool's interface.

``ToolUI`` is what a tool's ``_meta.ui`` says (its ``ui://`` resource, who may see the tool, CSP and
permission hints); ``AppResource`` is that resource as read (its HTML and hints); ``UIExtension``
advertises the extension in the client capabilities; ``AppsMixin`` gives a client ``read_ui``/``aread_ui``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp.client.extension import ClientExtension

from mcp_litellm._client.loop import run_async, run_sync
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, ServerError

if TYPE_CHECKING:
    import asyncio

    from mcp_types import ReadResourceResult

    from mcp_litellm._client.tool import Tool

UI_EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
VISIBILITIES = ("model", "app")


class AppResourceError(MCPLiteLLMError, ValueError):
    """A tool's interface cannot be given to a host: the tool has none, its resource is not ``ui://``, not
    the app MIME type (``text/html;profile=mcp-app``), not found, or not text."""


class UIExtension(ClientExtension):
    """Advertises ``io.modelcontextprotocol/ui`` with the MIME types this client's hosts render."""

    identifier = UI_EXTENSION

    def settings(self) -> dict[str, Any]:
        return {"mimeTypes": [APP_MIME_TYPE]}


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class ToolUI:
    """A tool's interface as its ``_meta.ui`` declares it (MCP Apps).

    ``resource_uri``: the ``ui://`` resource holding the app's HTML. ``visibility``: who may see the tool,
    ``"model"`` and/or ``"app"`` (both when the server says nothing); an app-only tool is never offered
    to the model but an app can call it through :class:`~mcp_litellm.AppBridge`. ``csp``,
    ``permissions`` and ``prefers_border``: the server's hints for the host (``_meta.ui`` of the tool; the
    resource's own hints are on :class:`AppResource`).
    """

    resource_uri: str
    visibility: tuple[str, ...] = VISIBILITIES
    csp: Mapping[str, Any] = field(default_factory=dict)
    permissions: Mapping[str, Any] = field(default_factory=dict)
    prefers_border: bool | None = None

    @property
    def model_visible(self) -> bool:
        """Whether the model may see (and call) the tool."""
        return "model" in self.visibility

    @property
    def app_visible(self) -> bool:
        """Whether an app of the same server may call the tool."""
        return "app" in self.visibility

    @classmethod
    def from_meta(cls, meta: object) -> ToolUI | None:
        """The interface a tool's ``_meta`` declares (``_meta.ui``, or the older ``_meta["ui/resourceUri"]``);
        ``None`` without one."""
        meta = _mapping(meta)
        ui = _mapping(meta.get("ui"))
        uri = ui.get("resourceUri", meta.get("ui/resourceUri"))
        visibility = ui.get("visibility")
        if isinstance(visibility, (list, tuple)):
            shown = tuple(item for item in VISIBILITIES if item in visibility)
        else:
            shown = VISIBILITIES
        if not isinstance(uri, str) or not uri:
            if shown == VISIBILITIES:
                return None
            uri = ""  # a visibility without an interface (an app-only helper tool) still counts
        border = ui.get("prefersBorder")
        return cls(resource_uri=uri, visibility=shown, csp=dict(_mapping(ui.get("csp"))),
                   permissions=dict(_mapping(ui.get("permissions"))),
                   prefers_border=border if isinstance(border, bool) else None)


def model_visible(tool: object) -> bool:
    """Whether ``tool`` may be offered to the model (anything without an app-only :class:`ToolUI` may)."""
    ui = getattr(tool, "ui", None)
    return not isinstance(ui, ToolUI) or ui.model_visible


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
    csp: Mapping[str, Any] = field(default_factory=dict)
    permissions: Mapping[str, Any] = field(default_factory=dict)
    prefers_border: bool | None = None
    domain: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of this resource (for a web page)."""
        return {"uri": self.uri, "html": self.html, "mimeType": self.mime_type, "server": self.server,
                "csp": dict(self.csp), "permissions": dict(self.permissions),
                "prefersBorder": self.prefers_border, "domain": self.domain}


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
    if not ui.resource_uri.startswith("ui://"):
        raise AppResourceError(f"tool {tool.mcp_name!r} of server {server!r} names {ui.resource_uri!r} as its "
                               "interface; only ui:// resources are read")
    return ui.resource_uri


class AppsMixin:
    """``read_ui``/``aread_ui`` of :class:`mcp_litellm.Client`."""

    name: str

    if TYPE_CHECKING:  # the client's own
        def _session_loop(self) -> asyncio.AbstractEventLoop | None: ...
        async def _find_tool(self, name: str, refresh: bool) -> Tool: ...
        async def _read(self, uri: str, refresh: bool) -> ReadResourceResult: ...

    async def _read_ui(self, tool: str | Tool) -> AppResource:
        if isinstance(tool, str):
            found = await self._find_tool(tool, False)
        elif hasattr(tool, "mcp_name") and hasattr(tool, "ui"):  # a Tool (not imported here: tool.py imports this)
            found = tool
        else:
            raise ConfigError(f"read_ui() takes a tool or a tool name, got {type(tool).__name__}")
        uri = checked_ui_uri(found, self.name)
        try:
            result = await self._read(uri, False)
        except ServerError as error:
            raise AppResourceError(f"server {self.name!r} could not read {uri!r}, the interface of tool "
                                   f"{found.mcp_name!r}: {error}") from error
        return app_resource(self.name, uri, result)

    def read_ui(self, tool: str | Tool) -> AppResource:
        """The interface of ``tool`` (a :class:`Tool` or a tool name): its ``ui://`` resource as an
        :class:`AppResource`, cached like the server's resources. :class:`AppResourceError` when the tool
        has no interface, or it is not a ``ui://`` resource of MIME type ``text/html;profile=mcp-app``."""
        return run_sync(self._read_ui(tool), home=self._session_loop())

    async def aread_ui(self, tool: str | Tool) -> AppResource:
        """Async twin of :meth:`read_ui`."""
        return await run_async(self._read_ui(tool), home=self._session_loop())


__all__ = ["APP_MIME_TYPE", "UI_EXTENSION", "AppResource", "AppResourceError", "AppsMixin", "ToolUI",
           "UIExtension", "app_resource", "checked_ui_uri", "model_visible"]
