"""``SessionOwner``: the session side of one client: its connection on its home loop, started, stopped, restarted
and caught up before a request.

A :class:`~mcp_litellm.Client` holds one. The owner knows nothing of tools, listings or notifications: what the
client does at the session's edges (make a connection, empty its caches and resume notifications after a connect,
stop the listen stream before a close, send settings recorded meanwhile) comes in as :class:`SessionHooks`, given
explicitly when the client is built. Every coroutine here runs on the session's home loop
(:attr:`SessionOwner.home`): the client's public methods say so at the call site
(``run_sync(self._session.start(), home=self._session.home)``).
"""

from __future__ import annotations

import asyncio
import builtins
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from mcp_litellm._client.session.connection import Connection
from mcp_litellm._client.session.deadline import Deadline
from mcp_litellm._client.session.loop import run_on
from mcp_litellm._core.errors import MCPLiteLLMError, RequestTimeoutError, TransportError

if TYPE_CHECKING:
    import mcp

logger = logging.getLogger("mcp_litellm")


@dataclass(frozen=True)
class SessionHooks:
    """What the client around a session does at its edges (bound methods of the client's parts)."""

    new_connection: Callable[[], Connection]
    """A connection to open: the client's transport, session options and callbacks."""
    after_connect: Callable[[], Awaitable[None]]
    """After a (re)connect, on the home loop: per-session caches emptied; log level, listen stream, subscriptions."""
    before_stop: Callable[[], Awaitable[None]]
    """Before a close, while the session is still up: stop the listen stream."""
    pending_settings: Callable[[], bool]
    """Whether settings were recorded since the session started (a log level) that the next request sends."""
    apply_pending_settings: Callable[[], Awaitable[None]]
    """Send them."""
    missing_capabilities: Callable[[], frozenset[str]]
    """Client features registered since the session started, which it does not advertise yet."""
    opened: Callable[[], None]
    """The session is up (the client counts among the live ones)."""
    closed: Callable[[], None]
    """The session is closed (its transport's secrets are no longer masked; the client is no longer live)."""
    request_timeout: Callable[[], float]
    """The client's ``request_timeout`` now (a connect's and a reconnect's timeout)."""


class SessionOwner:
    """The connection of one client, on its home loop (see the module's docstring)."""

    def __init__(self, name: str, hooks: SessionHooks) -> None:
        self.name = name
        self.hooks = hooks
        self.connection: Connection | None = None
        self.connect_on_first_use = False
        """Created inside a running loop (or stranded): the next call connects first."""
        self.retired: str | None = None
        """Why the owner (a ClientPool) stopped this client for good."""
        self._start_lock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    @property
    def home(self) -> asyncio.AbstractEventLoop | None:
        """The loop the session lives on (the ``home=`` of the client's work), None while there is none."""
        connection = self.connection
        return None if connection is None else connection.loop

    def alive(self) -> bool:
        connection = self.connection
        return connection is not None and connection.alive

    # -- start, stop -------------------------------------------------------------------------------------

    def _lifecycle_lock(self) -> asyncio.Lock:
        """The lock that serialises connects and re-initialisations (one per owner loop)."""
        loop = asyncio.get_running_loop()
        if self._start_lock is None or self._start_lock[0] is not loop:
            self._start_lock = (loop, asyncio.Lock())
        return self._start_lock[1]

    async def start(self) -> None:
        """Connect, one start at a time (concurrent first calls and ``astart()`` share one connect)."""
        if self.retired is not None:
            raise TransportError(self.retired)
        async with self._lifecycle_lock():
            await self._start_now()
        self.connect_on_first_use = False

    async def _start_now(self) -> None:
        if self.connection is not None and self.connection.alive:
            return
        if self.connection is not None:
            await self.connection.close()
        connection = self.connection = self.hooks.new_connection()
        await connection.open(self.hooks.request_timeout())
        self.hooks.opened()
        await self.hooks.after_connect()
        logger.debug("connected to server %r (protocol %s)", self.name, connection.client.protocol_version)

    async def stop(self) -> None:
        self.connect_on_first_use = False
        if self.connection is not None and not self.connection.stranded:
            await self.hooks.before_stop()  # while the session is still up
        connection, self.connection = self.connection, None
        if connection is not None:
            await connection.close()
        self.hooks.closed()

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    async def _advertise_what_was_registered(self) -> None:
        """Re-initialise a live session that misses a capability registered since it started.

        ``on_sampling``/``on_elicitation`` only record the setting (registration does no I/O, so it
        neither blocks nor raises on any loop); the next request lands here, on the owner loop.
        Concurrent requests share one re-initialisation.
        """
        if not self.hooks.missing_capabilities():
            return
        async with self._lifecycle_lock():
            missing = self.hooks.missing_capabilities()
            if not missing or not self.alive():
                return
            logger.info("client %r re-initialises its session to advertise %s", self.name, ", ".join(sorted(missing)))
            await self.stop()
            await self._start_now()

    # -- before a request --------------------------------------------------------------------------------

    def stranded(self) -> bool:
        """True when the loop the session ran on has closed (the next call reconnects, on this loop)."""
        connection = self.connection
        if connection is None or not connection.stranded:
            return False
        logger.info("client %r: the event loop its session ran on has closed; reconnecting", self.name)
        self.connect_on_first_use = True  # calls that come meanwhile wait for that connect too
        return True

    def require(self) -> Connection:
        """The live connection; ``TransportError`` when there is none."""
        connection = self.connection
        if connection is None:
            if self.retired is not None:
                raise TransportError(self.retired)
            if self.connect_on_first_use:
                raise TransportError(
                    f"client {self.name!r} was created inside a running event loop, so it connects on "
                    "'async with client', 'await client.astart()' or its first call; none has happened yet")
            raise TransportError(f"client {self.name!r} is not started; call start() or use 'with client:'")
        return connection

    async def connected(self, deadline: Deadline | None = None) -> Connection:
        """The connection, after reconnecting it if it was a lost HTTP session (one attempt).

        A client created inside a running event loop connects here, on its first call, and one whose
        session's loop has closed (``asyncio.run`` returned) reconnects here (on the background loop).
        With a call's ``deadline``, all of that happens within what is left of the call's time.
        """
        connection = self.connection
        if (connection is not None and connection.alive and not self.hooks.pending_settings()
                and not self.hooks.missing_capabilities()):
            return connection  # the common case: a live session with nothing to catch up on
        if deadline is None:
            return await self._catch_up(None)
        if deadline.expired:
            raise deadline.error(self.name, "the connection")
        try:
            with anyio.fail_after(deadline.remaining()):
                return await self._catch_up(deadline)
        except builtins.TimeoutError:
            raise deadline.error(self.name, "the connection") from None
        except RequestTimeoutError as exc:
            if deadline.expired:
                raise deadline.error(self.name, "the connection") from exc
            raise

    async def _catch_up(self, deadline: Deadline | None) -> Connection:
        """The slow path of :meth:`connected`: (re)connect and send what was recorded meanwhile."""
        if self.connect_on_first_use or self.stranded():
            await self.start()
        self.require()
        await self._advertise_what_was_registered()
        connection = self.require()
        await connection.reconnect(self.hooks.request_timeout() if deadline is None else deadline)
        await self.hooks.apply_pending_settings()
        return connection

    async def ping(self, timeout: float) -> bool:
        """Whether the server answers (connecting or reconnecting first, one attempt); never raises for a dead one."""
        if self.connect_on_first_use or self.stranded():
            try:
                await self.start()
            except MCPLiteLLMError as exc:
                logger.debug("ping to server %r failed: %s", self.name, exc)
                return False
        connection = self.connection
        if connection is None or not (connection.alive or connection.reconnects):
            return False

        async def call(client: mcp.Client) -> Any:
            if connection.modern:
                return await client.session.discover()
            return await client.session.send_ping()

        try:
            await connection.request("ping", call, timeout)
        except MCPLiteLLMError as exc:
            logger.debug("ping to server %r failed: %s", self.name, exc)
            return False
        return True

    # -- what a pool asks ---------------------------------------------------------------------------------

    def in_flight(self) -> int:
        """How many requests are in flight on the session now."""
        connection = self.connection
        return 0 if connection is None else connection.calls.in_flight

    def requests_made(self) -> tuple[int, int]:
        """Which connection this is and how many requests were made on it."""
        connection = self.connection
        return (0, 0) if connection is None else (id(connection), connection.calls.made)

    async def settled(self) -> None:
        """Return once no request is in flight on the session."""
        connection = self.connection
        if connection is not None and not connection.stranded:
            if connection.loop is not asyncio.get_running_loop():
                await run_on(connection.loop, connection.calls.settled())
            else:
                await connection.calls.settled()


__all__ = ["SessionHooks", "SessionOwner"]
