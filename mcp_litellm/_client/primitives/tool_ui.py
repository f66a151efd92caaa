"""A tool's interface as its ``_meta.ui`` declares it (MCP Apps): :class:`ToolUI` (read by ``apps.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

UI_EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
UI_SCHEME = "ui://"
"""The scheme of an interface's resource URI (only these are read; their pins sit beside the tools')."""
VISIBILITIES = ("model", "app")


def _mapping(value: object) -> Mapping[str, object]:
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
    csp: Mapping[str, object] = field(default_factory=dict)
    permissions: Mapping[str, object] = field(default_factory=dict)
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
        shown: tuple[str, ...]
        if visibility is None:
            shown = VISIBILITIES
        else:  # a single string counts as a one-item list; anything else malformed shows the tool to no one
            given = (visibility,) if isinstance(visibility, str) else visibility
            shown = tuple(item for item in VISIBILITIES if item in given) if isinstance(given, (list, tuple)) else ()
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


__all__ = ["APP_MIME_TYPE", "UI_EXTENSION", "UI_SCHEME", "VISIBILITIES", "ToolUI", "model_visible"]
