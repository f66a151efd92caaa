"""The user agent of an OAuth authorization: who takes the user to the authorization server and brings
the redirect back.

:class:`UserAgent` is the SDK's ``redirect_handler`` / ``callback_handler`` pair. It opens the browser on
the authorization URL and receives the redirect on a one-shot loopback listener (:class:`_Listener`),
or, where no browser can open, prints the URL and reads the redirected URL from stdin, or hands the URL
to the user's ``authorize`` callable. The wait is bounded by ``oauth.timeout``, and the deadline of the
request that started the flow is suspended meanwhile (:func:`request_clock_paused`).
"""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import sys
import webbrowser
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from html import escape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.to_thread
from mcp.client.auth import AuthorizationCodeResult

from mcp_litellm._core.clean_text import clean
from mcp_litellm._core.errors import AuthError
from mcp_litellm._core.redact import remember_secrets
from mcp_litellm._core.user_code import call_user_code
from mcp_litellm._transports.oauth.settings import OAuthSettings, takes_user
from mcp_litellm._transports.observer import http_observer

NO_BROWSER_ENV = "MCP_LITELLM_NO_BROWSER"
"""Set to 1 to never open a browser: print the authorization URL and read the redirect from stdin."""

CALLBACK_PATH = "/callback"
"""The path of the default loopback redirect URI."""

# -- the user wait -----------------------------------------------------------------------------------


@contextmanager
def request_clock_paused() -> Iterator[None]:
    """Suspend the deadline of the request whose auth flow this is while a person authorizes; the
    wait is bounded by ``oauth.timeout`` instead."""
    observer = http_observer.get()
    scope = observer.deadline if observer is not None else None
    if scope is None:
        yield
        return
    pause = observer.pause if observer is not None else None
    with pause() if pause is not None else nullcontext(), _paused(scope):  # the call's own deadline stops too
        yield


@contextmanager
def _paused(scope: Any) -> Iterator[None]:
    """Suspend the timeout ``scope`` (an ``asyncio.Timeout`` or an anyio ``CancelScope``) while the block runs."""
    if hasattr(scope, "reschedule"):  # asyncio.Timeout (3.11+)
        loop = asyncio.get_running_loop()
        when = scope.when()
        if when is None or scope.expired():
            yield
            return
        remaining = when - loop.time()
        scope.reschedule(None)
        try:
            yield
        finally:
            scope.reschedule(loop.time() + max(remaining, 0.0))
    else:  # anyio.CancelScope (3.10)
        remaining = scope.deadline - anyio.current_time()
        scope.deadline = float("inf")
        try:
            yield
        finally:
            scope.deadline = anyio.current_time() + max(remaining, 0.0)


def browser_available() -> bool:
    if os.environ.get(NO_BROWSER_ENV, "").strip() not in ("", "0"):
        return False
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class _Listener:
    """A one-shot HTTP listener on the loopback interface that receives the authorization redirect."""

    def __init__(self, redirect_uri: str, label: str) -> None:
        parts = urlsplit(redirect_uri)
        # What the URI names: for "localhost" both loopback families, so no other local user can take the
        # port on the family the browser may try first and receive the code.
        self.hosts = {"::1": ["::1"], "localhost": ["127.0.0.1", "::1"]}.get(parts.hostname or "", ["127.0.0.1"])
        self.port = parts.port
        self.path = parts.path or "/"
        self.redirect_uri = redirect_uri
        self.label = label
        self.result: asyncio.Future[str] | None = None
        self.state: str | None = None
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        self.result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._serve, self.hosts, self.port)
        except OSError as exc:
            if len(self.hosts) > 1 and exc.errno == errno.EADDRNOTAVAIL:  # no IPv6 here: nobody can bind ::1
                self.hosts = self.hosts[:1]
                return await self.start()
            raise AuthError(f"OAuth with {self.label}: cannot listen for the browser's redirect on "
                            f"{' and '.join(self.hosts)} port {self.port} ({exc.strerror or exc}); close what uses "
                            "the port or set "
                            "oauth.redirect_uri to a loopback URL with a free port (and register it with the "
                            "authorization server if your client is pre-registered)") from None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            with anyio.move_on_after(10):
                head = await reader.readuntil(b"\r\n\r\n")
                line = head.split(b"\r\n", 1)[0].decode("latin-1")
                method, _, rest = line.partition(" ")
                target = rest.rpartition(" ")[0] or rest
                if method != "GET" or urlsplit(target).path != self.path or self.result is None or self.result.done():
                    await self._answer(writer, 404, "Not found", "This is mcp-litellm's OAuth redirect listener.")
                    return
                query = parse_qs(urlsplit(target).query)
                if self.state is not None and query.get("state", [None])[0] != self.state:
                    # Not the answer to this authorization (a stale tab, or a forged request from a web
                    # page): ignored, so it can neither finish nor abort the flow.
                    await self._answer(writer, 400, "Not this authorization",
                                       "This redirect does not belong to the authorization mcp-litellm is waiting "
                                       "for. Use the browser tab it opened, or start again.")
                    return
                parts = urlsplit(self.redirect_uri)
                self.result.set_result(f"{parts.scheme}://{parts.netloc}{target}")
                if "error" in query:
                    await self._answer(writer, 200, "Authorization failed",
                                       f"The authorization server said: {clean(query['error'][0])}. You can close "
                                       "this tab.")
                else:
                    await self._answer(writer, 200, "Authorization received",
                                       "mcp-litellm received the authorization. You can close this tab.")
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _answer(self, writer: asyncio.StreamWriter, status: int, title: str, text: str) -> None:
        body = (f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title></head>"
                f"<body><h1>{escape(title)}</h1><p>{escape(text)}</p></body></html>").encode()
        reason = {200: "OK", 400: "Bad Request"}.get(status, "Not Found")
        writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        await writer.drain()

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with anyio.move_on_after(2):
                await server.wait_closed()


class UserAgent:
    """The SDK's ``redirect_handler`` / ``callback_handler`` pair: whoever takes the user to the
    authorization server and brings the redirect back."""

    def __init__(self, settings: OAuthSettings, redirect_uri: str, label: str, server: str | None = None) -> None:
        self.settings = settings
        self.redirect_uri = redirect_uri
        self.label = label
        self.server = server
        """The name of the client this agent authorizes (``None``: only ``label`` is shown)."""
        self._url: str | None = None
        self._state: str | None = None
        self._listener: _Listener | None = None
        self._pasted: asyncio.Future[str] | None = None

    async def redirect(self, authorization_url: str) -> None:
        self._url = authorization_url
        self._state = parse_qs(urlsplit(authorization_url).query).get("state", [None])[0]
        self._pasted = None
        if self.settings.authorize is not None:
            return
        if browser_available():
            self._listener = _Listener(self.redirect_uri, self.label)
            self._listener.state = self._state
            await self._listener.start()
            opened = False
            with anyio.move_on_after(15):  # a browser launcher that never returns must not stall the flow
                try:
                    opened = await anyio.to_thread.run_sync(webbrowser.open, authorization_url,
                                                            abandon_on_cancel=True)
                except Exception:
                    opened = False
            if opened:
                print(f"mcp-litellm: opened your browser to authorize access to {self._who()}; if it did not open, "
                      f"visit:\n  {authorization_url}", file=sys.stderr, flush=True)
                return
            await self._listener.close()
            self._listener = None
        # No browser here: the user opens the URL anywhere and pastes back where it redirected to (the
        # loopback page fails to load on another machine, but its URL holds the code). No listener then:
        # stdin is the one way back, so no reader thread is left behind waiting for a line.
        stdin = sys.stdin
        if stdin is None or stdin.closed:
            raise AuthError(f"OAuth with {self.label}: no browser can open here and there is no stdin to paste the "
                            "redirected URL into; run where a browser can open, or pass oauth.authorize")
        print(f"mcp-litellm: to authorize access to {self._who()}, open this URL in a browser:\n  {authorization_url}\n"
              f"then paste here the URL the browser was redirected to (it starts with {self.redirect_uri}) "
              "and press Enter:", file=sys.stderr, flush=True)
        self._pasted = asyncio.ensure_future(self._read_stdin())

    def _who(self) -> str:
        name = self.server
        return f"server {name!r} ({self.label})" if name and name != "server" else self.label

    async def _read_stdin(self) -> str:
        line: str = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        if not line:
            raise AuthError(f"OAuth with {self.label}: no redirect URL was pasted (stdin closed); run where you can "
                            "paste it or where a browser can open, or pass oauth.authorize")
        return line.strip()

    async def _authorize_hook(self, url: str) -> str:
        hook = self.settings.authorize
        assert hook is not None
        try:
            if takes_user(hook):
                result = await call_user_code(hook, url, self.settings.user)
            else:
                result = await call_user_code(hook, url)
        except AuthError:
            raise
        except Exception as exc:
            raise AuthError(f"OAuth with {self.label}: the authorize callable raised {type(exc).__name__}; fix it, "
                            "it must return the URL the browser was redirected to") from None
        if not isinstance(result, str) or not result:
            raise AuthError(f"OAuth with {self.label}: the authorize callable returned {type(result).__name__}; it "
                            "must return the URL the browser was redirected to (a string)")
        return result

    async def _wait(self) -> str:
        if self.settings.authorize is not None:
            assert self._url is not None
            return await self._authorize_hook(self._url)
        if self._pasted is not None:
            return await self._pasted
        assert self._listener is not None and self._listener.result is not None
        return await self._listener.result

    async def callback(self) -> AuthorizationCodeResult:
        try:
            with request_clock_paused():
                try:
                    with anyio.fail_after(self.settings.timeout):
                        redirected = await self._wait()
                except TimeoutError:
                    raise AuthError(f"OAuth with {self.label}: timed out after {self.settings.timeout:g}s waiting for "
                                    "the authorization in the browser; try again, or raise oauth.timeout") from None
        finally:
            if self._pasted is not None:
                self._pasted.cancel()
            if self._listener is not None:
                await self._listener.close()
                self._listener = None
        return self._parse(redirected)

    def _parse(self, redirected: str) -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(redirected.strip()).query)

        def first(key: str) -> str | None:
            values = query.get(key)
            return values[0] if values else None

        error = first("error")
        if error is not None:
            described = clean(first("error_description") or "")  # the server's text, on the user's terminal
            said = f": {described[:200]}" if described else ""
            if error == "access_denied":
                fix = "authorization was denied; authorize again and approve the request"
            else:
                fix = "the authorization server refused the request; check the OAuth settings (scopes, client)"
            raise AuthError(f"OAuth with {self.label}: the redirect carried error={error!r}{said}; {fix}")
        state = first("state")
        if self._state is not None and state != self._state:
            raise AuthError(f"OAuth with {self.label}: the redirect's state does not match the authorization request "
                            "(a stale, foreign or forged redirect); start the authorization again")
        code = first("code")
        if code:
            remember_secrets([code])  # masked wherever it shows up later (an error body in a DEBUG log line)
        if not code:
            raise AuthError(f"OAuth with {self.label}: the redirect URL carries no authorization code; give the full "
                            "URL the browser was redirected to")
        return AuthorizationCodeResult(code=code, state=state, iss=first("iss"))
