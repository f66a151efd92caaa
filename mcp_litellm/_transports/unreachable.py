"""What to tell a user whose HTTP server could not be reached at all (refused, timed out, unknown host,
TLS failure): the URL (secrets masked) and what to check, instead of httpx's bare "All connection
attempts failed"."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx2

from mcp_litellm._core.redact import redact_url

_DNS_WORDS = ("name or service not known", "nodename nor servname", "getaddrinfo", "name resolution",
              "no address associated", "temporary failure in name")
_TLS_WORDS = ("ssl", "certificate", "tls")


def connect_failure(error: BaseException) -> httpx2.ConnectError | httpx2.ConnectTimeout | None:
    """The httpx connect failure in ``error`` (itself, or inside exception groups), if there is one."""
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop(0)
        if isinstance(current, httpx2.ConnectError | httpx2.ConnectTimeout):
            return current
        pending += getattr(current, "exceptions", ())
    return None


def unreachable(url: str, failure: BaseException) -> str:
    """``at URL (the exception): what happened; what to check`` for a connection that was never made."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = None
    said = str(failure).strip()
    what = f"{type(failure).__name__}: {said}" if said else type(failure).__name__
    lowered = said.lower()
    if any(word in lowered for word in _DNS_WORDS):
        advice = f"the host name {host!r} could not be resolved; check the host in the server's 'url'"
    elif any(word in lowered for word in _TLS_WORDS):
        advice = ("the TLS handshake failed; check the server's certificate, and that the 'url' uses https:// "
                  "only for a server that serves TLS")
    elif isinstance(failure, httpx2.ConnectTimeout):
        advice = (f"nothing answered on {host} port {port} in time; check that the server is running and "
                  "reachable from here (a firewall, a proxy), and the host and port in the server's 'url'")
    else:
        advice = (f"nothing accepted the connection on {host} port {port}; check that the server is running "
                  "and listening on that host and port, and the server's 'url'")
    return f"at {redact_url(url)} ({what}): {advice}"
