"""The streamable HTTP and (legacy) SSE transports.

Headers, timeouts and ``auth`` (any ``httpx2.Auth``, such as the SDK's ``OAuthClientProvider``)
are set on the ``httpx2.AsyncClient`` the SDK's transports use. ``"auth": "oauth"`` or an
``"oauth": {...}`` mapping builds mcp_litellm's own OAuth 2.1 auth (:mod:`.oauth`), once per client: the
client's transport object holds it, so its tokens and discovered metadata survive a reconnect, and each
client's provider is built from that client's own settings.

The SDK turns an HTTP error status into a JSON-RPC error and drops the status. To say what went
wrong (401: credentials, 404: URL or expired session, 5xx: the server), the streamable transport's
HTTP client gets a response hook that writes each POST's status into the :class:`HttpObserver` of
the request that caused it. The SDK runs every POST in a copy of the sending task's context, so a
context variable set around one request reaches exactly the POSTs of that request.

Every answer is bounded by the client's ``max_message_size``, decompressed (:mod:`.http_limits`): an
answer over it fails its own call and the session goes on, and so does an answer cut off by a dropped
connection (:mod:`.lost_answers`). The legacy SSE transport uses our own
client (:mod:`.sse_client`), since the SDK's fixes a 1 MiB limit per event.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client

from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.redact import redact_url, remember_secrets, url_secrets
from mcp_litellm._core.sdk_compat import SESSION_TERMINATION_FAILED_LOG
from mcp_litellm._transports.base import ExitReport, Transport, TransportTarget
from mcp_litellm._transports.cancel_lane import CancelLane, SessionHeaders
from mcp_litellm._transports.common import check_keys, check_type
from mcp_litellm._transports.endpoint_policy import cleartext_problem
from mcp_litellm._transports.error_body import read_error_body
from mcp_litellm._transports.http_limits import OversizedEventErrors, body_bound
from mcp_litellm._transports.lost_answers import AnswerKeepingClient
from mcp_litellm._transports.oauth.settings import OAuthProblem, oauth_settings
from mcp_litellm._transports.observer import HttpObserver, HttpStatus, http_observer
from mcp_litellm._transports.redirects import without_foreign_credentials
from mcp_litellm._transports.sse_client import sse_streams

_AUTH_FINAL = "mcp_litellm.auth_final"
"""Set by the OAuth flow on a request it will not retry (see ``oauth.AUTH_FINAL``)."""


def _is_oauth(auth: httpx2.Auth) -> bool:
    from mcp_litellm._transports.oauth.provider import is_oauth

    return is_oauth(auth)


def _watch_auth_failures(auth: Any, callback: Any) -> Any:
    watch = auth.watch_failures
    return watch(callback)


_HTTP_KEYS = {"headers", "timeout", "sse_read_timeout", "auth", "oauth", "allow_http"}
_SESSION_HEADER = "mcp-session-id"


__all__ = ["HttpObserver", "HttpStatus", "SseTransport", "StreamableTransport", "http_observer", "http_status_advice"]


def _response_observer(credentials: bool) -> Callable[[httpx2.Response], Awaitable[None]]:
    """The response hook writing each POST's answer into the request's :class:`HttpObserver`;
    ``credentials``: whether the config sends any (``headers``, ``auth``, ``oauth``)."""

    async def observe(response: httpx2.Response) -> None:
        await _observe_response(response, credentials)

    return observe


async def _observe_response(response: httpx2.Response, credentials: bool | None = None) -> None:
    observer = http_observer.get()
    request = response.request
    if observer is None or request.method != "POST":
        return
    with_session = _SESSION_HEADER in request.headers
    # The SDK reads the body only when it parses as a JSON-RPC error with an id; TypeScript servers answer
    # an unknown session with an error whose id is missing, and a server refusing access (403) says why in
    # plain text, so read it here (it stays cached for the SDK).
    body = await read_error_body(response) if response.status_code >= 400 else None
    observer.last = HttpStatus(response.status_code, response.reason_phrase, with_session, body, credentials)


def http_status_advice(status: int, *, with_session: bool = False, credentials: bool | None = None) -> str:
    """What an HTTP error status from an MCP endpoint most likely means, and what to do about it.

    ``credentials``: whether the server's config sends any (``None``: not known); a 403 to a request that
    carried none is the server's own rule (an allowed host or network, say), not a credentials problem."""
    if status == 401:
        return ("authentication failed: check the credentials in the server's 'headers' (for example "
                "Authorization) or its 'auth' (\"auth\": \"oauth\" signs in to OAuth-protected servers)")
    if status == 403:
        if credentials is False:
            return ("the server refused access; no credentials are configured for it, so this is the server's own "
                    "rule (its reason, when it gave one, is quoted above); if it does need credentials, set "
                    "them in 'headers' or 'auth'")
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


class ExpiredSessionDeleteFilter(logging.Filter):
    """The SDK warns when the DELETE that closes a session fails: the server already forgot it (404, or
    400 from TypeScript servers) or is unreachable (a restart, an outage; the session is gone with it).
    Closing is best effort and nothing is left to do: say it at DEBUG."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and str(record.msg).startswith(SESSION_TERMINATION_FAILED_LOG):
            if not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
                return False
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True



def _check(transport: str, config: Mapping[str, Any]) -> None:
    check_keys(transport, config, required={"url"}, optional=_HTTP_KEYS)
    url = config["url"]
    check_type(transport, "url", url, str, "a string")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"config key 'url' of the {transport!r} transport must start with http:// or https://")
    check_type(transport, "headers", config.get("headers"), Mapping, "a mapping of header names to values")
    for name, value in (config.get("headers") or {}).items():
        problem = header_problem(str(name), str(value))
        if problem is not None:
            raise ConfigError(f"config key 'headers' of the {transport!r} transport: {problem}")
    check_type(transport, "timeout", config.get("timeout"), int | float, "a number of seconds")
    check_type(transport, "sse_read_timeout", config.get("sse_read_timeout"), int | float, "a number of seconds")
    auth = config.get("auth")
    if auth is not None and not isinstance(auth, httpx2.Auth | str):
        raise ConfigError(
            f"config key 'auth' of the {transport!r} transport must be \"oauth\" or an httpx2.Auth "
            f"(for example mcp.client.auth.OAuthClientProvider), got {type(auth).__name__}"
        )
    check_type(transport, "allow_http", config.get("allow_http"), bool, "true or false")
    try:
        oauth_settings(config)
    except OAuthProblem as exc:
        raise ConfigError(f"config key {exc.key!r} of the {transport!r} transport: {exc.problem}") from None
    credentials = bool(config.get("headers")) or config.get("auth") is not None or config.get("oauth") is not None
    problem = cleartext_problem(url, credentials=credentials, allow_http=config.get("allow_http") is True)
    if problem is not None:
        raise ConfigError(f"{transport} server at {redact_url(url)}: {problem}")


_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def header_problem(name: str, value: str) -> str | None:
    """What makes a header invalid in HTTP, naming the header but never showing its value (a credential):
    HTTP would refuse it on the first request, in an error that quotes the value."""
    if not _TOKEN.fullmatch(name):
        bad = re.search(r"[^!#$%&'*+\-.^_`|~0-9A-Za-z]", name)
        where = f"{name[:bad.start()]!r} followed by {name[bad.start()]!r}" if bad else "an empty name"
        return (f"a header name must be letters, digits and !#$%&'*+-.^_`|~ only, got {where} (the rest is not "
                "shown: it may hold a credential); put the value in the header's value, not its name")
    if _CONTROL.search(value):
        return (f"the value of header {name!r} contains a line break or another control character, which HTTP "
                "does not allow (the value is not shown: it may be a credential); remove it (a secret read from a "
                "file or an environment variable often ends with a newline: strip it)")
    return None


def _headers(config: Mapping[str, Any], owner: Transport) -> dict[str, str]:
    headers = {str(k): str(v) for k, v in (config.get("headers") or {}).items()}
    remember_secrets([*headers.values(), *url_secrets(config["url"])], owner)
    return headers


class _HttpTransport(Transport):
    """What both HTTP transports share: the config check, the headers, the timeouts and the auth, which is
    built once, on the first connect, and reused for every session of this client."""

    http = True

    def __init__(self, config: Mapping[str, Any], options: Any) -> None:
        super().__init__(config, options)
        self._auth: httpx2.Auth | None = None
        self._auth_built = False

    def check(self) -> None:
        _check(self.name, self.config)

    def sends_credentials(self) -> bool:
        """Whether this server's config sends credentials: any header, an ``auth`` or ``oauth`` setting."""
        config = self.config
        return bool(config.get("headers")) or config.get("auth") is not None or config.get("oauth") is not None

    def auth(self) -> httpx2.Auth | None:
        """The config's own ``httpx2.Auth``, our OAuth provider for ``oauth`` settings (built once), or ``None``."""
        if not self._auth_built:
            self._auth = self._build_auth()
            self._auth_built = True
        return self._auth

    def _build_auth(self) -> httpx2.Auth | None:
        auth = self.config.get("auth")
        if isinstance(auth, httpx2.Auth):
            return auth
        settings = oauth_settings(self.config)
        if settings is None:
            return None
        from mcp_litellm._transports.oauth.factory import oauth_auth

        return oauth_auth(self.config["url"], settings, transport=self.name, server=self.options.server)

    def _timeout(self) -> httpx2.Timeout:
        config = self.config
        return httpx2.Timeout(float(config.get("timeout") or 30.0), read=float(config.get("sse_read_timeout") or 300.0))


class StreamableTransport(_HttpTransport):
    """The ``streamable`` transport: config ``url``, ``headers``, ``timeout``, ``sse_read_timeout``, ``auth``,
    ``oauth``."""

    name = "streamable"

    def open(self, report: ExitReport) -> TransportTarget:
        self.check()
        auth = self.auth()
        timeout = self._timeout()
        url, limit, config = self.config["url"], self.options.max_message_size, self.config
        credentials = self.sends_credentials()

        @asynccontextmanager
        async def connect() -> AsyncIterator[Any]:
            headers = _headers(config, self)
            session = SessionHeaders()
            http = AnswerKeepingClient(  # an answer cut off fails its call, not the session
                headers=headers,
                timeout=timeout,
                auth=auth,
                event_hooks={"request": [without_foreign_credentials(url, headers), session],
                             "response": [body_bound(limit), _response_observer(credentials)]},
            )
            transport = streamable_http_client(url, http_client=http, max_sse_event_size=limit)
            async with http, transport as (read_stream, write_stream), anyio.create_task_group() as cancels:
                try:  # a cancellation never holds back the requests after it (see cancel_lane)
                    yield OversizedEventErrors(read_stream, limit), CancelLane(write_stream, http, url, session,
                                                                               cancels)
                finally:
                    cancels.cancel_scope.cancel()

        return connect()


class SseTransport(_HttpTransport):
    """The ``sse`` transport (the 2024-11-05 HTTP+SSE transport): ``url``, ``headers``, ``auth``, ...

    The client is ours (:mod:`.sse_client`: the SDK's fixes a 1 MiB limit per event), bounded by
    ``max_message_size``. Its writer, like the SDK's, stops for good at the first POST the server
    rejects, which would leave the pending request waiting for its timeout and later ones writing into
    the void. The messages are relayed through a stream of our own that ends at such a rejection, so
    the session ends at once and the pending request fails with the HTTP status.
    """

    name = "sse"

    def open(self, report: ExitReport) -> TransportTarget:
        self.check()
        auth = self.auth()
        ours = auth is not None and _is_oauth(auth)
        timeout = self._timeout()
        url, limit, label, config = self.config["url"], self.options.max_message_size, self.options.server, self.config
        credentials = self.sends_credentials()

        @asynccontextmanager
        async def connect() -> AsyncIterator[Any]:
            relay_send, relay_receive = anyio.create_memory_object_stream[Any](0)

            async def on_response(response: httpx2.Response) -> None:
                await _observe_response(response, credentials)
                if response.request.method == "POST" and response.status_code >= 400:
                    if (ours and response.status_code in (401, 403)
                            and not response.request.extensions.get(_AUTH_FINAL)):
                        return  # OAuth answers this one (and marks the retry final)
                    relay_send.close()

            headers = _headers(config, self)
            http = httpx2.AsyncClient(
                headers=headers or None,
                timeout=timeout,
                auth=auth,
                event_hooks={"request": [without_foreign_credentials(url, headers)],
                             "response": [body_bound(limit), on_response]},
            )
            transport = sse_streams(url, http, limit=limit, label=label)
            # An OAuth failure the transport cannot see (the authorization server unreachable in the middle
            # of a POST, which the writer swallows) ends the relay, and so the session, at once.
            stop_watching = _watch_auth_failures(auth, relay_send.close) if ours else None
            try:
                async with http, transport as (read_stream, write_stream), anyio.create_task_group() as relays:

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
            finally:
                if stop_watching is not None:
                    stop_watching()

        return connect()
