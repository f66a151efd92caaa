"""Where credentials may go: no secrets in cleartext off the machine, no OAuth requests to just any host.

Two rules, each a small function used where the request is made:

- **Cleartext.** Configured credentials (``headers``, OAuth) are not sent over ``http://`` to a host
  other than the loopback interface unless the server's config says ``"allow_http": true``. A plain
  server without credentials on an internal ``http://`` address keeps working.
- **OAuth endpoints.** The metadata, registration and token requests of an OAuth flow go only over HTTPS
  (``http://`` to loopback, or with ``allow_http``), to the MCP server's host or the configured
  ``oauth.issuer``'s host (so to a private address only when the MCP server itself is on one).
  A client holding a secret or key is held to the issuer's origin or the server's own (ports included). A
  malicious or compromised MCP server cannot send the client's secret, its code verifier or its refresh
  token to a host of its choosing.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain"}


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` names this machine: ``localhost``, 127.0.0.0/8 or ``::1``."""
    if not host:
        return False
    address = _address(host)
    return address.is_loopback if address is not None else host.lower().rstrip(".") in _LOOPBACK_NAMES


def cleartext_problem(url: str, *, credentials: bool, allow_http: bool) -> str | None:
    """Why configured credentials must not go to ``url``, or ``None`` when they may."""
    parts = urlsplit(url)
    if not credentials or allow_http or parts.scheme != "http" or is_loopback(parts.hostname):
        return None
    return (f"refusing to send the configured credentials ('headers' or 'oauth') in cleartext over http:// to "
            f"{parts.hostname}: use an https:// URL, or set \"allow_http\": true in this server's config if the "
            "network path is trusted")


def origin(url: str) -> tuple[str, str]:
    """``url``'s scheme and host with port, lowercased: what two URLs share when they are one origin."""
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def endpoint_problem(url: str, *, server_url: str, issuer: str | None, allow_http: bool,
                     credentials: bool = False) -> str | None:
    """Why an OAuth flow must not send a request to ``url`` (discovery, registration, token, revocation),
    or ``None`` when it may. A client holding a secret or key (``credentials``) is held tighter: only to the
    issuer's origin or the MCP server's own, ports included."""
    target, server = urlsplit(url), urlsplit(server_url)
    host = (target.hostname or "").lower()
    if target.scheme != "https" and not (target.scheme == "http" and (is_loopback(host) or allow_http)):
        return (f"the authorization server's endpoint {target.scheme}://{host}{target.path} is not HTTPS; OAuth "
                "codes, verifiers and tokens go only over https:// (or to this machine); set \"allow_http\": true "
                "in the server's config to allow it")
    allowed = {(server.hostname or "").lower()}
    if issuer:
        allowed.add((urlsplit(issuer).hostname or "").lower())
    if host not in allowed:  # private addresses included: only the server's own host or the issuer's
        return (f"the MCP server sent the OAuth flow to {host}, which is neither the server's host nor the "
                "configured issuer; if that authorization server is the right one, set oauth.issuer to its URL "
                f"(for example \"https://{host}\")")
    trusted = {origin(server_url)} | ({origin(issuer)} if issuer else set())
    if credentials and origin(url) not in trusted:
        return (f"the MCP server sent the OAuth flow to {'://'.join(origin(url))}, neither its own origin nor "
                "oauth.issuer's, and this client holds a secret or key; set oauth.issuer to that authorization "
                "server's URL if it is the one your credentials belong to")
    return None


__all__ = ["cleartext_problem", "endpoint_problem", "is_loopback", "origin"]
