"""The streamable HTTP and (legacy) SSE transports.

Headers, timeouts and ``auth`` (any ``httpx2.Auth``, such as the SDK's ``OAuthClientProvider``)
are set on the ``httpx2.AsyncClient`` the SDK's transports use.

The SDK turns an HTTP error status into a JSON-RPC error and drops the status. To say what went
wrong (401: credentials, 404: URL or expired session, 5xx: the server), the streamable transport's
HTTP client gets a response hook that writes each POST's status into the :class:`HttpObserver` of
the request that caused it. The SDK runs every POST in a copy of the sending task's context, so a
context variable set around one request reaches exactly the POSTs of that request.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.redact import redact_text, remember_secrets
from mcp_litellm._transports.common import check_keys, check_type

_HTTP_KEYS = {"headers", "timeout", "sse_read_timeout", "auth"}
_SESSION_HEADER = "mcp-session-id"


@dataclass(frozen=True)
class HttpStatus:
    """The answer to one POST: its status, reason phrase, whether it named an MCP session, and (for
    a 400 to a request that named one) the start of the error body, which tells a forgotten session
    from a rejected request."""

    status: int
    reason: str
    with_session: bool
    body: str | None = None


class HttpObserver:
    """What the HTTP layer answered while one request (or the handshake) ran: the last POST's status."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: HttpStatus | None = None

    def failure(self) -> HttpStatus | None:
        """The last POST's answer when it was an HTTP error (status >= 400), else ``None``."""
        last = self.last
        return last if last is not None and last.status >= 400 else None


http_observer: contextvars.ContextVar[HttpObserver | None] = contextvars.ContextVar(
    "mcp_litellm_http_observer", default=None
)
"""Set by the connection around each request; read by the response hook below."""


_PLAIN_HEADERS = {"accept", "accept-encoding", "connection", "content-length", "content-type", "host",
                  "user-agent", _SESSION_HEADER, "mcp-protocol-version"}
_MAX_ERROR_BODY = 16_384
"""Bytes of a 400 answer's body read for the session check (larger bodies are not read here)."""


async def _observe_response(response: httpx2.Response) -> None:
    observer = http_observer.get()
    request = response.request
    if observer is None or request.method != "POST":
        return
    with_session = _SESSION_HEADER in request.headers
    body = None
    if response.status_code == 400 and with_session:
        # The SDK reads the body only when it parses as a JSON-RPC error with an id; TypeScript servers
        # answer an unknown session with an error whose id is missing, so read it here (it stays cached
        # for the SDK). Only small bodies: the length must be declared and bounded.
        try:
            if 0 < int(response.headers.get("content-length", "0")) <= _MAX_ERROR_BODY:
                text = (await response.aread()).decode("utf-8", "replace")[:2000]
                # it may reach an error message: mask the request's header values (credentials) in it
                body = redact_text(text, [v for k, v in request.headers.items() if k.lower() not in _PLAIN_HEADERS])
        except (ValueError, httpx2.HTTPError):
            body = None
    observer.last = HttpStatus(response.status_code, response.reason_phrase, with_session, body)


def http_status_advice(status: int, *, with_session: bool = False) -> str:
    """What an HTTP error status from an MCP endpoint most likely means, and what to do about it."""
    if status == 401:
        return ("authentication failed: check the credentials in the server's 'headers' (for example "
                "Authorization) or its 'auth'")
    if status == 403:
        return "access denied: the credentials in 'headers' or 'auth' lack permission for this server"
    if status == 404 or (status == 400 and with_session):
        if with_session:
            return "the server no longer knows the MCP session (it expired or the server restarted)"
        return "wrong URL: check the server's 'url' (the MCP endpoint path, often /mcp, or /sse for the sse transport)"
    if status in (405, 406, 415):
        return "the URL does not serve MCP over this transport: check 'url' and the transport type"
    if status == 429:
        return "rate limited by the server; retry later"
    if status >= 500:
        return "the server failed while handling the request; see the server's own logs"
    return "the server rejected the request"


class _ExpiredSessionDeleteFilter(logging.Filter):
    """The SDK warns when the DELETE that closes a session fails: the server already forgot it (404, or
    400 from TypeScript servers) or is unreachable (a restart, an outage; the session is gone with it).
    Closing is best effort and nothing is left to do: say it at DEBUG."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and str(record.msg).startswith("Session termination failed:"):
            if not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
                return False
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True


logging.getLogger("mcp.client.streamable_http").addFilter(_ExpiredSessionDeleteFilter())


def _check(transport: str, config: Mapping[str, Any]) -> None:
    check_keys(transport, config, required={"url"}, optional=_HTTP_KEYS)
    url = config["url"]
    check_type(transport, "url", url, str, "a string")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"config key 'url' of the {transport!r} transport must start with http:// or https://")
    check_type(transport, "headers", config.get("headers"), Mapping, "a mapping of header names to values")
    check_type(transport, "timeout", config.get("timeout"), int | float, "a number of seconds")
    check_type(transport, "sse_read_timeout", config.get("sse_read_timeout"), int | float, "a number of seconds")
    auth = config.get("auth")
    if auth is not None and not isinstance(auth, httpx2.Auth):
        raise ConfigError(
            f"config key 'auth' of the {transport!r} transport must be an httpx2.Auth "
            f"(for example mcp.client.auth.OAuthClientProvider), got {type(auth).__name__}"
        )


def _headers(config: Mapping[str, Any]) -> dict[str, str]:
    headers = {str(k): str(v) for k, v in (config.get("headers") or {}).items()}
    remember_secrets(headers.values())
    return headers


def open_streamable(config: Mapping[str, Any]) -> Any:
    """Transport factory for ``streamable``: config ``url``, ``headers``, ``timeout``, ``auth``."""
    _check("streamable", config)
    timeout = float(config.get("timeout") or 30.0)
    read_timeout = float(config.get("sse_read_timeout") or 300.0)

    @asynccontextmanager
    async def connect() -> AsyncIterator[Any]:
        http = httpx2.AsyncClient(
            headers=_headers(config),
            timeout=httpx2.Timeout(timeout, read=read_timeout),
            auth=config.get("auth"),
            event_hooks={"response": [_observe_response]},
        )
        async with http, streamable_http_client(config["url"], http_client=http) as streams:
            yield streams

    return connect()


def open_sse(config: Mapping[str, Any]) -> Any:
    """Transport factory for ``sse`` (the 2024-11-05 HTTP+SSE transport): ``url``, ``headers``, ``auth``.

    The SDK's SSE writer stops for good at the first POST the server rejects, which would leave the
    pending request waiting for its timeout and later ones writing into the void. The messages are
    relayed through a stream of our own that ends at such a rejection, so the session ends at once
    and the pending request fails with the HTTP status.
    """
    _check("sse", config)

    @asynccontextmanager
    async def connect() -> AsyncIterator[Any]:
        relay_send, relay_receive = anyio.create_memory_object_stream[Any](0)

        async def on_response(response: httpx2.Response) -> None:
            await _observe_response(response)
            if response.request.method == "POST" and response.status_code >= 400:
                relay_send.close()

        def http_client(
            headers: dict[str, str] | None = None,
            timeout: httpx2.Timeout | None = None,
            auth: httpx2.Auth | None = None,
        ) -> httpx2.AsyncClient:
            return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth,
                                      event_hooks={"response": [on_response]})

        transport = sse_client(
            config["url"],
            headers=_headers(config) or None,
            timeout=float(config.get("timeout") or 30.0),
            sse_read_timeout=float(config.get("sse_read_timeout") or 300.0),
            auth=config.get("auth"),
            httpx_client_factory=http_client,
        )
        async with transport as (read_stream, write_stream), anyio.create_task_group() as relays:

            async def relay() -> None:
                with relay_send:
                    async for item in read_stream:
                        try:
                            await relay_send.send(item)
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            return

            relays.start_soon(relay)
            try:
                yield relay_receive, write_stream
            finally:
                relays.cancel_scope.cancel()

    return connect()
