"""The start of an HTTP error answer's body, read to quote the server's reason in our error (a 403's
"Access is only allowed at ...") and to tell a forgotten session from a rejected request; and whether a
request carried credentials (a 403 to one that carried none is the server's own rule)."""

from __future__ import annotations

import httpx2

from mcp_litellm._core.redact import redact_text

__all__ = ["read_body", "read_error_body", "sent_credentials"]

_PLAIN_HEADERS = {"accept", "accept-encoding", "connection", "content-length", "content-type", "host",
                  "user-agent", "mcp-session-id", "mcp-protocol-version", "cache-control", "last-event-id"}
"""Headers every MCP request may carry: none of them is a credential."""
_MAX_ERROR_BODY = 16_384
"""Bytes of an error answer's body read; larger bodies, and bodies of undeclared length, are not read."""
_KEPT = 2000
"""Characters of the body kept."""


def _masked(text: str, request: httpx2.Request) -> str:
    """``text`` with the request's header values (credentials) masked: it may reach an error message."""
    return redact_text(text, [v for k, v in request.headers.items() if k.lower() not in _PLAIN_HEADERS])


async def read_error_body(response: httpx2.Response) -> str | None:
    """The start of an error answer's body (at most 2000 characters; only a body of declared, bounded
    length is read, and it stays cached on ``response``), with the request's header values (credentials)
    masked; ``None`` when there is none or it is not read."""
    try:
        if 0 < int(response.headers.get("content-length", "0")) <= _MAX_ERROR_BODY:
            return _masked((await response.aread()).decode("utf-8", "replace")[:_KEPT], response.request)
    except (ValueError, httpx2.HTTPError):
        return None
    return None


def read_body(response: httpx2.Response) -> str | None:
    """What :func:`read_error_body` read of ``response`` (``None`` if it was not read)."""
    try:
        content = response.content
    except httpx2.ResponseNotRead:
        return None
    return _masked(content.decode("utf-8", "replace")[:_KEPT], response.request) if content else None


def sent_credentials(request: httpx2.Request) -> bool:
    """Whether ``request`` carried credentials: any header besides the ones every MCP request has."""
    return any(key.lower() not in _PLAIN_HEADERS for key in request.headers)
