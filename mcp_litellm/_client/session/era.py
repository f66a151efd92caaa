"""``protocol="auto"`` against servers the 2026-07-28 probe breaks: one fresh handshake-only attempt.

With ``protocol="auto"`` the SDK sends ``server/discover`` first and, on any JSON-RPC error answer to it
(not only "method not found"), falls back to the ``initialize`` handshake on the same connection. A
bridge that initialises its upstream lazily breaks that: the probe makes it initialise (supergateway's
``--streamableHttp URL`` bridge connects its own client when the first message is not ``initialize``), so
the fallback handshake is refused ("Invalid Request: Server already initialized"). A fresh connection
that starts with the handshake works. So when the server *answered* the connect with a JSON-RPC error
(no auth problem, no outage, not the "modern-only, no common version" verdict), the connection is
opened once more with ``protocol="legacy"``, and later reconnects use it too. When that fails as well,
the error says both were tried.
"""

from __future__ import annotations

from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, UNSUPPORTED_PROTOCOL_VERSION

from mcp_litellm._core.errors import MCPLiteLLMError, TransportError, reason
from mcp_litellm._core.sdk_compat import CONNECTION_CLOSED_MESSAGE
from mcp_litellm._transports.observer import HttpObserver

_NOT_ABOUT_THE_ERA = (401, 403, 404, 405, 406, 415, 429)
"""HTTP statuses that say the connect failed for another reason: credentials, the URL, the transport,
a rate limit (5xx too: the server failed). A fresh handshake-only attempt would fail the same way."""


def refused_after_probe(error: BaseException | None, handshake: HttpObserver) -> bool:
    """Whether a failed ``protocol="auto"`` connect was the server answering the probe or the fallback
    handshake with a JSON-RPC error, which a fresh handshake-only connection may not get."""
    if error is None or isinstance(handshake.auth_error, Exception):
        return False
    error = reason(error)
    if not isinstance(error, MCPError) or error.code in (UNSUPPORTED_PROTOCOL_VERSION, REQUEST_TIMEOUT):
        return False
    if error.code == CONNECTION_CLOSED and error.message == CONNECTION_CLOSED_MESSAGE:
        return False  # the server went away (a process that exited): not an answer
    failure = handshake.failure()
    return failure is None or (failure.status not in _NOT_ABOUT_THE_ERA and failure.status < 500)


def both_failed(server: str, auto: MCPLiteLLMError, legacy: MCPLiteLLMError) -> MCPLiteLLMError:
    """The error for a server that refused ``protocol="auto"`` and then a fresh ``protocol="legacy"`` connect:
    both attempts, said in full (the legacy one is the error's type and status)."""
    said = (f"server {server!r} refused both ways to connect. With protocol=\"auto\" (the 2026-07-28 probe, then "
            f"the handshake): {auto}. With protocol=\"legacy\" (a fresh connection, the handshake only): {legacy}. "
            "If it is a bridge or proxy, check the server behind it")
    if type(legacy) is not TransportError:
        return legacy
    error = TransportError(said, http_status=legacy.http_status)
    error.server = server
    return error
