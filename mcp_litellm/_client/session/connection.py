"""One live MCP session, opened and closed by a single owner task on the loop it was opened on.

The owner task enters the transport and ``mcp.Client`` and then waits for a stop request, so the
anyio cancel scopes are always entered and exited by the same task, whoever asks for the close.
Every request goes through :meth:`Connection.request`, which applies the timeout and translates
SDK and transport failures into mcp_litellm's exceptions in one place (the mapping: :mod:`.failures`).
That loop (``Connection.loop``) is the connection's home: a request or close made on another loop
crosses over to it (see ``loop.py``); once it has closed, the connection is ``stranded``.

A streamable HTTP server may forget a session (idle expiry, restart): it then answers 404 to the
session's id (TypeScript-SDK servers answer 400; see ``_forgot_session`` for when a 400 counts). The
connection re-initialises once, on a fresh transport, and retries the request; if the new session is
forgotten right away too, the request fails with ``TransportError``.

A streamable HTTP answer cut off mid-response (a proxy's idle timeout, a network blip) fails only its
own request (``AnswerLost``, a ``TransportError``): the server did not say it forgot the session, so
the session is kept and the next request uses the same ``Mcp-Session-Id``. Only the server's word (a
404, or a session-related 400) or a connection that is gone starts a new session, and then
``on_session_lost`` is told, since what the server kept in the old session may be gone.

An HTTP connection that was lost (the server was unreachable, the transport ended) is not final either:
the next request opens a new session first, one attempt per request, and fails with
``TransportError`` if the server is still unreachable. ``alive`` is False from the failure until a
reconnect succeeds. Stdio and in-memory sessions end with their process or object: ``restart()``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import mcp

from mcp_litellm._client.session.call_context import CallContexts
from mcp_litellm._client.session.deadline import Deadline
from mcp_litellm._client.session.era import both_failed
from mcp_litellm._client.session.failures import (
    AnswerLost,
    SessionExpired,
    http_error,
    name_the_request,
    translate,
)
from mcp_litellm._client.session.loop import run_on
from mcp_litellm._client.session.mcp_session import _CLOSE_GRACE, SessionOptions, _Session
from mcp_litellm._core.errors import (
    ConfigError,
    MCPLiteLLMError,
    RequestTimeoutError,
    TransportError,
    reason,
)
from mcp_litellm._transports import Transport
from mcp_litellm._transports.http import HttpObserver, http_observer

T = TypeVar("T")


logger = logging.getLogger("mcp_litellm")


# The deadline around each request: asyncio's own (3.11+) costs a timer and a task.cancel(); anyio's
# cancel scope, needed on 3.10, does more bookkeeping per request. Both raise builtins.TimeoutError.
if sys.version_info >= (3, 11):
    _request_deadline = asyncio.timeout
else:  # pragma: no cover - Python 3.10

    @asynccontextmanager
    async def _request_deadline(timeout: float | None) -> AsyncIterator[Any]:
        with anyio.fail_after(timeout) as scope:
            yield scope


class Connection:
    """A started session. Create with :meth:`open`; it is alive until closed or the peer goes away.

    ``on_reinitialised`` (set by the owner of the connection) runs after an expired or lost HTTP
    session was replaced by a new one, before the request that needed it runs. ``on_session_lost``
    (likewise) is called with the reason as the replacement starts: it must not block (it may spawn).
    """

    def __init__(self, name: str, transport: Transport, options: SessionOptions) -> None:
        self.name = name
        self.loop = asyncio.get_running_loop()
        """The loop the session lives on (its owner task, the SDK's streams)."""
        self._transport = transport
        self._options = options
        self._session = _Session(name, transport, options)
        self._reinit_lock = asyncio.Lock()
        self._closing = False
        self._retiring: dict[asyncio.Task[None], _Session] = {}
        self._observe_http = transport.http
        self._renew_failure: MCPLiteLLMError | None = None
        self._renewals = 0
        """How many times the session was replaced: a request that saw another number lost no race."""
        self.on_reinitialised: Callable[[], Awaitable[None]] | None = None
        self.on_session_lost: Callable[[str], None] | None = None
        self._loss_told = False
        self._restoring: asyncio.Task[Any] | None = None
        """The task running ``on_reinitialised`` (it holds the renewal lock): its requests never renew."""
        self.calls = CallContexts()
        """The contexts of the requests in flight, for answering the server's requests in them."""

    # -- lifecycle (all of these run on the connection's loop) -------------------------------------

    async def open(self, timeout: float | None) -> None:
        """Start the owner task and wait until the handshake finished or failed; with ``protocol="auto"``,
        a server that refused the probe's fallback handshake gets one fresh handshake-only try (``era``)."""
        started = self.loop.time()
        try:
            await self._session.open(timeout)
        except MCPLiteLLMError as auto:
            if self._options.protocol != "auto" or not self._session.refused_after_probe():
                raise
            logger.info("server %r refused the handshake after the 2026-07-28 probe (%s); connecting again with "
                        "the handshake only (set protocol=\"legacy\" for it to skip the probe)", self.name, auto)
            self._options = dataclasses.replace(self._options, protocol="legacy")
            self._session = _Session(self.name, self._transport, self._options)
            left = None if timeout is None else max(timeout - (self.loop.time() - started), 1.0)
            try:
                await self._session.open(left)
            except MCPLiteLLMError as legacy:
                raise both_failed(self.name, auto, legacy) from legacy.__cause__

    async def close(self) -> None:
        """Ask the owner task to leave the session, and wait (bounded) until it did."""
        self._closing = True
        if asyncio.get_running_loop() is not self.loop:
            if self.stranded:  # its loop cancelled the owner task as it ended (a stdio server was ended then)
                logger.debug("server %r: the session's event loop has closed; nothing left to close", self.name)
                return
            await run_on(self.loop, self.close())
            return
        await self._session.close()
        for retiring, old in list(self._retiring.items()):
            await old.close()
            retiring.cancel()

    async def reconnect(self, timeout: float | Deadline | None) -> None:
        """Reconnect a lost HTTP session now (one attempt); a no-op while the session is alive."""
        if not self._session.alive and self.reconnects:
            if asyncio.get_running_loop() is not self.loop:
                await run_on(self.loop, self.reconnect(timeout))
                return
            await self._renew(self._renewals, timeout, why="lost")

    async def _renew(self, seen: int, timeout: float | Deadline | None, *, why: str) -> _Session:
        """Replace a session the server forgot (``why``: "HTTP 404"/"HTTP 400") or that was lost
        (``why``: "lost") by a new one. ``seen`` is ``_renewals`` as the caller found it: one attempt is
        made by whichever caller gets here first, and callers that arrived while it ran share its outcome."""
        lost = why == "lost"
        async with self._reinit_lock:
            current = self._session
            if self._renewals != seen:  # another request renewed the session while this one waited
                if current.alive:
                    return current
                failure = self._renew_failure
                raise TransportError(f"server {self.name!r} is not connected (a reconnect just failed: "
                                     f"{failure or 'no details'})",
                                     http_status=getattr(failure, "http_status", None))
            if self._closing:
                raise TransportError(f"server {self.name!r} is closing; its session was not renewed")
            if lost:
                logger.warning("server %r: the connection was lost; reconnecting (with a new MCP session: what "
                               "the server kept in the old one may be gone)", self.name)
            else:
                logger.warning("server %r forgot the MCP session (%s); re-initialising (what the server kept in "
                               "the old session may be gone)", self.name, why)
            told = self.on_session_lost
            if told is not None and not self._loss_told:  # once per lost session, not per reconnect attempt
                self._loss_told = True
                told("the connection was lost" if lost else f"the server forgot the MCP session ({why})")
            old = current
            fresh = _Session(self.name, self._transport, self._options)
            self._session = fresh
            # Requests still running on the old session get their 404 too and retry on the new one;
            # closing the old transport under them would fail them instead.
            grace = min(_seconds(timeout) or _CLOSE_GRACE, 60.0)
            retiring = asyncio.get_running_loop().create_task(old.retire(grace))
            self._retiring[retiring] = old
            retiring.add_done_callback(lambda task: self._retiring.pop(task, None))
            try:
                await _open_within(fresh, timeout)
            except MCPLiteLLMError as exc:
                self._renew_failure = exc
                self._renewals += 1  # after the attempt: requests that came meanwhile share this outcome
                if isinstance(exc, RequestTimeoutError) and isinstance(timeout, Deadline) and timeout.expired:
                    raise timeout.error(self.name, "a reconnect") from None  # the call's time ran out
                status = getattr(exc, "http_status", None)
                if lost:
                    what = "is unreachable" if status is None else "refused the new connection"
                    raise TransportError(
                        f"server {self.name!r} {what}: reconnecting failed ({exc}); the next request "
                        "tries again (or call restart())", http_status=status) from exc
                raise TransportError(
                    f"server {self.name!r} forgot the MCP session and re-initialising failed: {exc}",
                    http_status=status,
                ) from exc
            except BaseException:
                self._renewals += 1
                raise
            self._renew_failure = None
            self._loss_told = False
            self._renewals += 1
            if lost:
                logger.info("server %r: reconnected", self.name)
            hook = self.on_reinitialised
            if hook is not None:
                self._restoring = asyncio.current_task()
                try:
                    await hook()
                except Exception:
                    logger.warning("server %r: restoring state on the new session failed", self.name, exc_info=True)
                finally:
                    self._restoring = None
            return fresh

    # -- state ---------------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """True while the session is usable (for HTTP: False from a lost connection until a reconnect)."""
        return self._session.alive and not self.loop.is_closed()

    @property
    def modern(self) -> bool:
        """Whether the session speaks a 2026-era protocol (``_core.protocol.is_modern``), read once per session."""
        return self._session.modern

    @property
    def stranded(self) -> bool:
        """True once the loop the session lived on has closed (``asyncio.run`` returned): it is over."""
        return self.loop.is_closed()

    @property
    def reconnects(self) -> bool:
        """True when a request on a lost session reconnects first (HTTP transports, not while closing)."""
        return self._observe_http and not self._closing and not self._in_restore_hook()

    def _in_restore_hook(self) -> bool:
        """Whether the current code is the ``on_reinitialised`` hook (which holds the renewal lock)."""
        return self._restoring is not None and asyncio.current_task() is self._restoring

    @property
    def client(self) -> mcp.Client:
        """The SDK client; raises ``TransportError`` when the session is gone."""
        return self._session.client

    # -- requests ------------------------------------------------------------------------------------

    def request(self, method: str, call: Callable[[mcp.Client], Awaitable[T]],
                timeout: float | Deadline | None) -> Coroutine[Any, Any, T]:
        """Run ``call(client)`` with ``timeout`` and translate failures, on the connection's loop (await it).

        ``timeout`` is seconds for this request, or the :class:`Deadline` of the call it is part of: then
        the request, and a reconnect or re-initialisation it needs, get what is left of the call's time.

        An expired HTTP session is re-initialised once and the call retried on the new session; a
        lost HTTP session is reconnected (once) before the call. Every error raised here names this
        server and ``method`` in its ``server``/``method`` attributes (the one place requests are made).
        A plain function returning the coroutine, so a request on the session's own loop (the common
        case) is one coroutine less.
        """
        if asyncio.get_running_loop() is not self.loop and not self.stranded:  # work begun elsewhere
            return run_on(self.loop, self._request(method, call, timeout))
        return self._request(method, call, timeout)

    async def _request(self, method: str, call: Callable[[mcp.Client], Awaitable[T]],
                       timeout: float | Deadline | None) -> T:
        try:
            session, seen = self._session, self._renewals
            if not session.alive and self.reconnects:
                session = await self._renew(seen, timeout, why="lost")
            else:
                try:
                    return await self._attempt(session, method, call, timeout)
                except SessionExpired as expired:
                    if self._closing or self._in_restore_hook():
                        raise
                    why = f"HTTP {expired.http_status}"
                session = await self._renew(seen, timeout, why=why)
            try:
                return await self._attempt(session, method, call, timeout)
            except SessionExpired as again:
                if again.http_status == 400:
                    # The server accepted this brand-new session a moment ago, so this 400 is about the
                    # request itself: report it as the rejected request it is and keep the session.
                    raise http_error(400, "Bad Request", lead=f"server {self.name!r} answered {method} with",
                                     detail=again.detail) from again.__cause__
                session.mark_dead()
                raise TransportError(
                    f"server {self.name!r} forgot the MCP session again right after it was re-initialised (HTTP 404 "
                    f"to {method}), so it does not keep sessions; if it runs behind a load balancer, enable session "
                    "affinity. The client is disconnected; the next request tries again (or call restart())",
                    http_status=404,
                ) from again.__cause__
        except MCPLiteLLMError as exc:
            name_the_request(exc, self.name, method)
            raise

    async def _attempt(
        self, session: _Session, method: str, call: Callable[[mcp.Client], Awaitable[T]],
        timeout: float | Deadline | None
    ) -> T:
        client = session.client
        observer = HttpObserver() if self._observe_http else None
        token = http_observer.set(observer)
        session.begin_request()
        entered = self.calls.enter()
        seconds: float | None
        if isinstance(timeout, Deadline):
            call_deadline, seconds = timeout, timeout.remaining()
        else:
            call_deadline, seconds = None, timeout
        try:
            if call_deadline is not None and call_deadline.expired:
                raise call_deadline.error(self.name, method)
            async with _request_deadline(seconds) as deadline:
                if observer is not None:
                    observer.deadline = deadline  # OAuth suspends it while a person authorizes
                if call_deadline is None:
                    return await call(client)
                if observer is not None:
                    observer.pause = call_deadline.paused
                with call_deadline.timing(deadline):  # progress may move it (reset_timeout_on_progress)
                    return await call(client)
        except BaseException as exc:
            mapped = translate(exc, server=self.name, method=method, timeout=_seconds(timeout), http=observer)
            if mapped is None or mapped is exc:
                raise
            if call_deadline is not None and isinstance(mapped, RequestTimeoutError):
                mapped = call_deadline.error(self.name, method)
            if isinstance(mapped, TransportError) and mapped.http_status is None and not isinstance(mapped, AnswerLost):
                session.mark_dead()  # the transport failed; a cut answer fails only its own request
            if isinstance(mapped, RequestTimeoutError):
                raise mapped from None  # the cause is only the deadline that fired; the message says it all
            raise mapped from reason(exc)
        finally:
            self.calls.leave(entered)
            session.end_request()
            http_observer.reset(token)


def _seconds(timeout: float | Deadline | None) -> float | None:
    """A request's timeout in seconds: the call's own timeout for a :class:`Deadline` (for messages)."""
    return timeout.timeout if isinstance(timeout, Deadline) else timeout


async def _open_within(session: _Session, timeout: float | Deadline | None) -> None:
    """Open ``session`` within ``timeout`` (a call's deadline: what is left of it)."""
    if isinstance(timeout, Deadline):
        if timeout.expired:
            raise RequestTimeoutError("no time left to reconnect")
        await session.open(timeout.remaining())
    else:
        await session.open(timeout)



__all__ = ["ConfigError", "Connection", "SessionOptions", "translate"]
