"""What a request to another origin than the MCP server's may carry: none of the configured credentials.

The SDK's transports (and ours for SSE) follow a redirect only within the endpoint's origin. This request
hook holds the same line for anything else sent on the client's ``httpx2.AsyncClient``, whatever follows
the redirect: a request whose origin is not the configured URL's (same scheme, host and port; or the
upgrade from ``http`` to ``https`` on the same host with default ports) goes without the headers from
``headers``, without a configured ``Authorization`` and without an OAuth bearer token. A ``Basic``
``Authorization`` an OAuth flow puts on a request to its authorization server is that flow's own and stays.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping

import httpx2

from mcp_litellm._core.redact import redact_url

logger = logging.getLogger("mcp_litellm")

__all__ = ["same_origin", "without_foreign_credentials"]

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: httpx2.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def same_origin(endpoint: httpx2.URL, url: httpx2.URL) -> bool:
    """Whether ``url`` is on ``endpoint``'s origin (or its ``https`` upgrade on the same host, default ports)."""
    if _origin(endpoint) == _origin(url):
        return True
    return (endpoint.scheme, url.scheme) == ("http", "https") and endpoint.host == url.host and \
        _origin(endpoint)[2] == 80 and _origin(url)[2] == 443


def without_foreign_credentials(url: str, headers: Mapping[str, str]) -> Callable[[httpx2.Request], Awaitable[None]]:
    """An ``httpx2`` request hook: requests off ``url``'s origin lose the configured ``headers``, the
    ``Authorization`` header (unless it is an OAuth client's own ``Basic`` credentials for its
    authorization server, which no configured header provides) and any bearer token."""
    endpoint = httpx2.URL(url)
    configured = {name.lower(): value for name, value in headers.items()}

    async def hook(request: httpx2.Request) -> None:
        if same_origin(endpoint, request.url):
            return
        removed = [name for name in configured if name in request.headers and name != "authorization"]
        for name in removed:
            del request.headers[name]
        authorization = request.headers.get("authorization")
        if authorization is not None and (authorization.lower().startswith("bearer ") or
                                          "authorization" in configured):
            del request.headers["authorization"]
            removed.append("authorization")
        if removed:
            logger.warning("a request to %s (another origin than the MCP server's) was sent without the "
                           "credentials configured for the server (%s)", redact_url(str(request.url.copy_with(
                               query=None, fragment=None))), ", ".join(sorted(removed)))

    return hook
