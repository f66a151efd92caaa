"""Whether an OAuth-protected server in a config file holds usable tokens (for ``servers``, ``login``, ``logout``)."""

from __future__ import annotations

from typing import Any

from mcp_litellm._servers.config_file import ServerConfig
from mcp_litellm._transports.oauth import TokenStore, oauth_settings, token_store

__all__ = ["NEEDS_LOGIN", "auth_status", "needs_login", "oauth_store"]

NEEDS_LOGIN = ("not authorized", "expired")
"""Token states that need a person (an expired token with a refresh token renews itself)."""


def oauth_store(server: ServerConfig) -> Any:
    """The token store of an HTTP server that uses OAuth; ``None`` for every other server."""
    if server.transport_type not in ("streamable", "sse"):
        return None
    settings = oauth_settings(server.config)
    if settings is None:
        return None
    return token_store(server.config["url"], settings, label=f"server {server.name!r}")


def auth_status(server: ServerConfig) -> str | None:
    """``"authorized"``, ``"expired, refreshable"``, ``"expired"``, ``"not authorized"``, ``"in memory"``
    (tokens are not kept between runs), or ``None`` for a server without OAuth."""
    store = oauth_store(server)
    if store is None:
        return None
    if not isinstance(store, TokenStore):
        return "custom storage"
    if not store.shared:
        return "in memory"
    return store.status()


def needs_login(server: ServerConfig) -> bool:
    """True for a server that would ask a person to authorize when started (client-credentials
    grants fetch their tokens by themselves)."""
    if auth_status(server) not in NEEDS_LOGIN:
        return False
    settings = oauth_settings(server.config)
    return settings is not None and settings.grant == "authorization_code"
