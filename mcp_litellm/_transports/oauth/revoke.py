"""Revoking stored OAuth tokens at the authorization server (RFC 7009), on logout.

Best effort: for each authorization server the store holds tokens from, its metadata (RFC 8414, else
OpenID Connect discovery) is read; where it names a ``revocation_endpoint``, the refresh token and then
the access token are revoked there, authenticated as the client that holds them. Nothing here raises:
what could not be revoked is logged, and the tokens are deleted locally all the same.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

import httpx2

from mcp_litellm._transports.oauth.settings import OAuthSettings
from mcp_litellm._transports.oauth.storage import TokenStore

__all__ = ["revoke_stored"]

logger = logging.getLogger("mcp_litellm.oauth")

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _metadata_urls(issuer: str) -> list[str]:
    parts = urlsplit(issuer)
    origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    return [f"{origin}/.well-known/oauth-authorization-server{path}",
            f"{origin}{path}/.well-known/openid-configuration"]


def _safe(url: str) -> bool:
    """Tokens go only over https, or plain http to this machine."""
    parts = urlsplit(url)
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOOPBACK)


async def _revocation_endpoint(http: httpx2.AsyncClient, issuer: str) -> str | None:
    for url in _metadata_urls(issuer):
        try:
            response = await http.get(url)
            if response.status_code == 200:
                endpoint = response.json().get("revocation_endpoint")
                return endpoint if isinstance(endpoint, str) and _safe(endpoint) else None
        except (httpx2.HTTPError, ValueError, AttributeError) as exc:
            logger.debug("reading %s for token revocation failed: %s", url, type(exc).__name__)
    return None


def _client(entry: dict[str, Any], settings: OAuthSettings | None) -> tuple[str, str | None, str | None] | None:
    found = entry.get("client_info")
    info: dict[str, Any] = found if isinstance(found, dict) else {}
    client_id = (settings.client_id if settings is not None else None) or info.get("client_id")
    if not client_id:
        return None
    secret = (settings.client_secret if settings is not None and settings.client_id else None) or info.get(
        "client_secret")
    method = (settings.token_endpoint_auth_method if settings is not None else None) or info.get(
        "token_endpoint_auth_method")
    return client_id, secret, method


async def revoke_stored(store: TokenStore, settings: OAuthSettings | None = None, *, timeout: float = 10.0) -> int:
    """Revoke the tokens ``store`` holds where their authorization server offers revocation; returns how many
    tokens the servers accepted. Never raises for a server that is down or refuses."""
    try:
        entries = await store.aentries()
    except Exception as exc:  # unreadable: nothing to revoke with
        logger.info("OAuth with %s: cannot read the stored tokens to revoke them (%s)", store.server,
                    type(exc).__name__)
        return 0
    revoked = 0
    async with httpx2.AsyncClient(timeout=timeout, follow_redirects=False) as http:
        for issuer, entry in entries.items():
            tokens = entry.get("tokens")
            client = _client(entry, settings)
            if not isinstance(tokens, dict) or not issuer or client is None:
                continue
            endpoint = await _revocation_endpoint(http, issuer)
            if endpoint is None:
                logger.info("OAuth with %s: %s offers no token revocation; the tokens are only deleted here",
                            store.server, issuer)
                continue
            client_id, secret, method = client
            for kind in ("refresh_token", "access_token"):
                value = tokens.get(kind)
                if not isinstance(value, str) or not value:
                    continue
                form = {"token": value, "token_type_hint": kind, "client_id": client_id}
                auth: Any = None
                if secret and method != "client_secret_post":
                    auth = httpx2.BasicAuth(client_id, secret)
                elif secret:
                    form["client_secret"] = secret
                try:
                    response = await http.post(endpoint, data=form, auth=auth)
                except httpx2.HTTPError as exc:
                    logger.info("OAuth with %s: revoking the %s failed (%s)", store.server, kind.replace("_", " "),
                                type(exc).__name__)
                    continue
                if response.status_code == 200:
                    revoked += 1
                else:
                    logger.info("OAuth with %s: the authorization server refused to revoke the %s (HTTP %s)",
                                store.server, kind.replace("_", " "), response.status_code)
    return revoked
