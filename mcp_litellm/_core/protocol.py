"""Which era of the MCP protocol a connection speaks: the one decision every module asks.

2024/2025 revisions start a session with the ``initialize`` handshake and push notifications;
2026-07-28 ("modern") sends a per-request envelope, has no ``roots/list_changed`` nor
``logging/setLevel``, and shapes tasks differently. The SDK's own registry (``mcp_types.version``)
says which revisions are modern; anything else, including an unknown or missing version, is treated
as the handshake era, as the SDK itself does.
"""

from __future__ import annotations

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["is_modern"]


def is_modern(version: str | None) -> bool:
    """True for a 2026-era (per-request envelope) protocol version; False for the handshake era,
    and for ``None`` or a version the SDK does not know."""
    return version in MODERN_PROTOCOL_VERSIONS
