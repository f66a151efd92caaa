"""Client features (sampling, elicitation, roots, human-in-the-loop) as part of ``Client``.

Placeholder defaults; the full features live here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_litellm._connection import SessionOptions
    from mcp_litellm._tool import Tool


class FeaturesMixin:
    """Hooks the client core calls: option intake, session callbacks, tool-call approval."""

    def _base_session_options(self) -> SessionOptions: ...  # pragma: no cover

    def _init_features(self, options: dict[str, Any]) -> None:
        """Consume the options this mixin owns from ``options`` (what is left is reported unknown)."""

    def _session_options(self) -> SessionOptions:
        """What the next session is built with (capabilities are fixed at initialisation)."""
        return self._base_session_options()

    async def _approve_tool_call(self, tool: Tool, arguments: dict[str, Any]) -> str | None:
        """Return a denial reason, or ``None`` to let the call run."""
        return None

    def _request_meta(self) -> dict[str, Any] | None:
        """``_meta`` to stamp on requests (e.g. the log level on 2026-07-28 connections)."""
        return None
