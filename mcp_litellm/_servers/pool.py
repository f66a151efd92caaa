"""``ClientPool``: the servers of one config, connected per user of a web app.

Each user gets a :class:`ClientGroup` of their own, connected on first use and reused by their later
requests. A server marked ``"per_user": true`` gets a connection (for stdio: a process) per user;
every other server has one connection that all users' groups share. A user's group stops after
``idle_timeout`` seconds unused, and the least recently used idle one when ``max_users`` is reached; a
user whose group is in use is never stopped to make room: a new user waits for a slot instead (up to
``wait_timeout``, then :class:`PoolFullError`), first come first served. Everything runs on the loop that
owns the MCP sessions.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import warnings
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager, suppress
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from mcp_litellm._client.options import GroupClientOptions
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._core.errors import ConfigError, PoolFullError
from mcp_litellm._core.option_checks import positive_seconds
from mcp_litellm._servers.config_file import ServerConfig, select_configs
from mcp_litellm._servers.group import ClientGroup
from mcp_litellm._servers.pool_grants import Handing
from mcp_litellm._servers.pool_users import (
    REMOTE,
    Grant,
    PoolUser,
    UserGroup,
    Waiter,
    checked_headers,
    is_per_user,
    pool_source,
    retire,
    stopped_message,
    user_config,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

logger = logging.getLogger("mcp_litellm")

_POLL = 0.05
FAIL_AT_ONCE = "fail at once with PoolFullError when every user's group is in use"


class ClientPool(Handing):
    """The servers of a config file or mapping, connected per user: one :class:`ClientGroup` per user.

    Made once when a web app starts (in its lifespan), closed when it stops; each request borrows
    its user's group::

        pool = ml.ClientPool("mcp.json", max_users=500, idle_timeout=600)
        async with pool.aborrow(user_id, headers={"Authorization": f"Bearer {user_token}"}) as clients:
            tools = await clients.atools()

    A server whose config says ``"per_user": true`` gets a connection of its own for each user (a
    stdio server: a process of its own). Every other server is shared: one connection, made on
    first use, serves all users. Servers that use OAuth are per user unless they say
    ``"per_user": false``: each user authorizes once, and their tokens and client registration are
    stored under their user id as well as the server (``oauth.user``), so a user's token is only ever
    sent on that user's connection. An ``authorize`` callable taking two arguments is called as
    ``authorize(url, user_id)``; without one, :meth:`for_user` raises :class:`AuthError` whose
    ``authorization_url`` is where to send that user.

    A user's group is *in use* while it starts, while a :meth:`borrow` block holds it, while a request
    is in flight on the user's own connections, and from when :meth:`for_user` hands it over until a
    request is made through it. A group in use is never stopped to make room for another user: when
    ``max_users`` users all have a group in use, a new user waits for one of them to become idle (first
    come, first served) for at most ``wait_timeout`` seconds, then gets :class:`PoolFullError`.

    Args:
        source: a config file path (JSON or YAML, see :func:`load_config`), a config mapping, or
            ``load_config``'s result (named ``source`` as for :class:`ClientGroup`; the old keyword
            ``config=`` still works, with a ``DeprecationWarning``).
        max_users: how many users may have a group at once; the least recently used idle user's group is
            stopped to make room (``None``: no limit).
        idle_timeout: seconds after which a user's group that was not used is stopped (``None``: never).
        wait_timeout: at most this many seconds a new user waits for a slot when every user's group is in
            use; then :class:`PoolFullError` (each call can give its own). ``0``: do not wait, fail at once.
        drain_timeout: at most this many seconds a stopping group waits for its requests in flight.
        strict: as for :class:`ClientGroup`: a server that fails to start fails the user's request
            (``True``), or is left out of that user's group and recorded in its ``failed`` (``False``).
        with_prefix: as for :class:`ClientGroup`.
        servers: use only these servers (names from the config).
        **client_options: keyword arguments for every client (for example ``request_timeout``); a
            server's own settings win.
    """

    def __init__(
        self,
        source: str | os.PathLike[str] | Mapping[str, Any] | None = None,
        *,
        max_users: int | None = 1000,
        idle_timeout: float | None = 900.0,
        wait_timeout: float = 30.0,
        drain_timeout: float = 30.0,
        strict: bool = True,
        with_prefix: bool | None = None,
        servers: Iterable[str] | None = None,
        **client_options: Unpack[GroupClientOptions],
    ) -> None:
        options: dict[str, object] = dict(client_options)
        source = pool_source(source, options)
        if max_users is not None and (not isinstance(max_users, int) or isinstance(max_users, bool) or max_users < 1):
            raise ConfigError(f"max_users must be a positive integer or None, got {max_users!r}")
        positive_seconds(idle_timeout, "idle_timeout", none="for never stopping a group that is not used")
        positive_seconds(wait_timeout, "wait_timeout", zero=FAIL_AT_ONCE)
        positive_seconds(drain_timeout, "drain_timeout")
        if with_prefix not in (None, True, False):
            raise ConfigError(f"with_prefix must be True, False or None, got {with_prefix!r}")
        configs = select_configs(source, servers)
        self.max_users = max_users
        """The most users with a group at once (``None``: no limit)."""
        self.idle_timeout = idle_timeout
        """Seconds unused after which a user's group stops (``None``: never)."""
        self.wait_timeout = float(wait_timeout)
        """Seconds a new user waits for a slot when every user's group is in use, before :class:`PoolFullError`."""
        self.drain_timeout = float(drain_timeout)
        self.strict = strict
        self.with_prefix = with_prefix
        self.disabled: list[str] = [name for name, c in configs.items() if c.disabled]
        """Servers the config marks ``disabled``: never started."""
        self.configs: dict[str, ServerConfig] = {name: c for name, c in configs.items() if not c.disabled}
        """The config of each server of the pool."""
        self.per_user: list[str] = [name for name, c in self.configs.items() if is_per_user(c)]
        """The servers each user gets a connection of their own to."""
        self.shared: list[str] = [name for name in self.configs if name not in self.per_user]
        """The servers one connection of which serves all users."""
        self._client_options = cast("GroupClientOptions", options)  # its names checked above
        self._users: OrderedDict[str, PoolUser] = OrderedDict()
        self._waiters: deque[Waiter] = deque()
        self._shared_group: ClientGroup | None = None
        self._shared_lock: asyncio.Lock | None = None
        self._reaper: asyncio.Task[None] | None = None
        self._waker: asyncio.Task[None] | None = None
        self._retiring: set[asyncio.Task[None]] = set()
        self._closed = False

    # -- users ---------------------------------------------------------------------------------------

    @property
    def users(self) -> list[str]:
        """The ids of the users who have a group now, least recently used first."""
        return list(self._users)

    def for_user(self, user_id: str, headers: Mapping[str, str] | None = None, *,
                 wait_timeout: float | None = None) -> ClientGroup:
        """The group of ``user_id``: connected on first use, then reused by the user's later requests.

        ``headers`` (a user's own API key, say) go to this user's per-user remote servers, merged over
        the configured headers (a header given here wins, names compared case-insensitively), and to no
        other connection. Given again with different values, the user's per-user connections are
        replaced (the old ones close once their requests in flight finished); left out, the user's
        existing connections are reused as they are.

        The group is in use from when it is handed over until a request is made through it, and then while
        a request is in flight on it; between requests it is idle and may be stopped to make room for
        another user (a later request then fails, saying so). To keep it for several requests (a chat's turn, whose
        model thinks between them), use :meth:`borrow`. When ``max_users`` users all have a group in use,
        a new user waits for a slot for at most ``wait_timeout`` seconds (``None``: the pool's; ``0``: fail at
        once), then :class:`PoolFullError` is raised.

        The group is the pool's: do not stop it; the pool stops it when the user is idle or evicted. Once it is
        stopped, a request on it raises :class:`TransportError` saying why and to call ``for_user`` again; it
        cannot be started again outside the pool.
        """
        return self._take_sync(user_id, headers, wait_timeout, Grant(hold=False)).group

    async def afor_user(self, user_id: str, headers: Mapping[str, str] | None = None, *,
                        wait_timeout: float | None = None) -> ClientGroup:
        """Async twin of :meth:`for_user`."""
        return (await self._take(user_id, headers, wait_timeout, Grant(hold=False))).group

    @contextmanager
    def borrow(self, user_id: str, headers: Mapping[str, str] | None = None, *,
               wait_timeout: float | None = None) -> Iterator[ClientGroup]:
        """:meth:`for_user`, held for a block: ``with pool.borrow(user_id) as clients: ...``.

        While the block runs, the user's group is in use even between MCP requests (a request of the web
        app waiting on its model for longer than ``idle_timeout``): it is neither stopped as idle nor
        chosen to make room for another user, and an eviction waits for the block to end (up to
        ``drain_timeout``). Entering waits for a slot as :meth:`for_user` does (``wait_timeout``,
        :class:`PoolFullError`); end the block as soon as its request is done, so that waiting users get in."""
        grant = Grant(hold=True)
        entry = self._take_sync(user_id, headers, wait_timeout, grant)
        try:
            yield entry.group
        finally:
            run_sync(self._give_back_now(grant))

    @asynccontextmanager
    async def aborrow(self, user_id: str, headers: Mapping[str, str] | None = None, *,
                      wait_timeout: float | None = None) -> AsyncIterator[ClientGroup]:
        """Async twin of :meth:`borrow`: ``async with pool.aborrow(user_id) as clients: ...``."""
        grant = Grant(hold=True)
        entry = await self._take(user_id, headers, wait_timeout, grant)
        try:
            yield entry.group
        finally:
            await run_async(self._give_back_now(grant))

    def evict(self, user_id: str) -> bool:
        """Stop ``user_id``'s group now (after its requests in flight); ``False`` if the user had none."""
        return run_sync(self._evict_and_wait(user_id))

    async def aevict(self, user_id: str) -> bool:
        """Async twin of :meth:`evict`."""
        return await run_async(self._evict_and_wait(user_id))

    async def _for_user(self, user_id: str, headers: Mapping[str, str] | None, wait_timeout: float | None,
                        hold: bool) -> PoolUser:
        if not isinstance(user_id, str) or not user_id:
            raise ConfigError(f"for_user() needs a user id (a non-empty str), got {type(user_id).__name__}")
        wanted = checked_headers(headers)
        positive_seconds(wait_timeout, "wait_timeout", zero=FAIL_AT_ONCE,
                         none=f"for the pool's wait_timeout ({self.wait_timeout:g}s)")
        self._check_open()
        shared = await self._ensure_shared()
        self._check_open()
        entry = self._users.get(user_id)
        if entry is not None and self._replaces(entry, wanted):
            logger.debug("user %r gave new headers; replacing their per-user connections", user_id)
            self._evict(user_id, "replaced: a later request gave the user new headers")
            entry = None
        if entry is not None:
            entry.pending += 1
        elif not self._waiters and self._make_room():
            entry = self._new_user(user_id, wanted, shared)  # comes with a pending for this call
        else:
            timeout = self.wait_timeout if wait_timeout is None else wait_timeout
            entry = await self._wait_for_room(user_id, wanted, timeout)
        if self._users.get(user_id) is entry:  # (a start that failed at once is already gone)
            self._users.move_to_end(user_id)
        self._ensure_reaper()
        try:
            await asyncio.shield(entry.starting)
            self._check_open()  # closed while the user's servers started: their group is being stopped
        except BaseException:
            entry.pending -= 1
            raise
        entry.hand_over(hold)
        return entry

    def _replaces(self, entry: PoolUser, wanted: dict[str, str] | None) -> bool:
        """Whether ``wanted`` headers differ from those ``entry`` was made with, in a way its connections carry."""
        return wanted is not None and wanted != entry.headers and self._takes_headers()

    def _takes_headers(self) -> bool:
        return any(self.configs[name].transport_type in REMOTE for name in self.per_user)

    def _new_user(self, user_id: str, headers: dict[str, str] | None, shared: ClientGroup) -> PoolUser:
        own = {name: user_config(self.configs[name], user_id, headers) for name in self.per_user}
        group = UserGroup(own, list(self.configs), shared, self.strict, self.with_prefix, self._client_options)
        starting = asyncio.get_running_loop().create_task(group._start(), name=f"mcp-litellm:user:{user_id}")
        entry = PoolUser(group, headers, starting, pending=1)
        starting.add_done_callback(lambda task: self._started(user_id, entry, task))
        self._users[user_id] = entry
        return entry

    def _started(self, user_id: str, entry: PoolUser, task: asyncio.Task[None]) -> None:
        """A user's start settled: on a failure, nothing is kept for them (their next call tries again), and the
        slot goes to the next user waiting for one."""
        if task.cancelled() or task.exception() is not None:
            if not task.cancelled():
                logger.debug("user %r's servers failed to start: %s", user_id, task.exception())
            if self._users.get(user_id) is entry:
                del self._users[user_id]
        self._admit()

    # -- slots ---------------------------------------------------------------------------------------

    def _make_room(self) -> bool:
        """Whether a new user fits now, stopping the least recently used idle user's group if that makes room."""
        if self.max_users is None or len(self._users) < self.max_users:
            return True
        idle = next((user_id for user_id, entry in self._users.items() if not entry.in_use()), None)
        if idle is None:
            return False
        logger.debug("%d users have connections (max_users); stopping the least recently used idle one, %r",
                     len(self._users), idle)
        self._evict(idle, "evicted as the least recently used idle user, to make room for another (max_users)")
        return True

    async def _wait_for_room(self, user_id: str, headers: dict[str, str] | None, timeout: float) -> PoolUser:
        """Queue for a slot; the user's entry (with a pending for this call) once it is their turn."""
        waiter = Waiter(user_id, headers, asyncio.get_running_loop().create_future())
        self._waiters.append(waiter)
        logger.debug("every user's group is in use (max_users=%s); user %r waits for a slot", self.max_users, user_id)
        self._ensure_waker()
        began = time.monotonic()
        try:
            return await asyncio.wait_for(asyncio.shield(waiter.admitted), timeout)
        except asyncio.TimeoutError:
            self._admit()  # a group may have become idle since the last look
            if waiter.admitted.done() and not waiter.admitted.cancelled():
                return waiter.admitted.result()  # admitted as the time ran out
            waiter.admitted.cancel()
            busy = sum(1 for entry in self._users.values() if entry.in_use())
            raise PoolFullError(user_id, busy, self.max_users or 0, time.monotonic() - began) from None
        except BaseException:
            if waiter.admitted.done() and not waiter.admitted.cancelled() and waiter.admitted.exception() is None:
                waiter.admitted.result().pending -= 1  # admitted, but the caller is gone: the slot goes on
                self._admit()
            waiter.admitted.cancel()
            raise

    def _admit(self) -> None:
        """Give the users waiting for a slot theirs, in order, while there is room (or their group exists)."""
        while self._waiters and not self._closed:
            waiter = self._waiters[0]
            if waiter.admitted.done():  # timed out or cancelled
                self._waiters.popleft()
                continue
            entry = self._users.get(waiter.user_id)
            if entry is not None and self._replaces(entry, waiter.headers):
                self._evict(waiter.user_id, "replaced: a later request gave the user new headers")
                entry = None
            if entry is not None:
                entry.pending += 1
            elif self._shared_group is not None and self._make_room():
                try:
                    entry = self._new_user(waiter.user_id, waiter.headers, self._shared_group)
                except Exception as exc:  # the user's config is bad (a ConfigError): theirs to see, nobody else's
                    self._waiters.popleft()
                    waiter.admitted.set_exception(exc)
                    continue
            else:
                return
            self._waiters.popleft()
            waiter.admitted.set_result(entry)

    def _ensure_waker(self) -> None:
        """Watch for a user's group becoming idle (a request ending, a handed-over group used) while users wait."""
        if self._waker is None or self._waker.done():
            self._waker = asyncio.get_running_loop().create_task(self._wake(), name="mcp-litellm:pool-waiting")

    async def _wake(self) -> None:
        while self._waiters and not self._closed:
            self._admit()
            await asyncio.sleep(_POLL)

    async def _ensure_shared(self) -> ClientGroup:
        if self._shared_group is not None:
            return self._shared_group
        if self._shared_lock is None:
            self._shared_lock = asyncio.Lock()
        async with self._shared_lock:
            if self._shared_group is None:
                group = ClientGroup({name: self.configs[name] for name in self.shared}, strict=self.strict,
                                    with_prefix=self.with_prefix, **self._client_options)
                await group._start()
                self._shared_group = group
            return self._shared_group

    # -- stopping users ------------------------------------------------------------------------------

    def _evict(self, user_id: str, why: str) -> None:
        entry = self._users.pop(user_id, None)
        if entry is None:
            return
        message = stopped_message(user_id, why)
        task = asyncio.get_running_loop().create_task(self._retire(entry, message), name=f"mcp-litellm:evict:{user_id}")
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)
        entry.retired = task

    async def _evict_and_wait(self, user_id: str) -> bool:
        entry = self._users.get(user_id)
        if entry is None:
            return False
        self._evict(user_id, "evicted by pool.evict()")
        self._admit()
        if entry.retired is not None:
            await asyncio.shield(entry.retired)
        return True

    async def _retire(self, entry: PoolUser, message: str) -> None:
        """Stop a user's group once its start settled and its requests in flight finished (bounded); later
        requests on it say why (``message``) and that a new group is to be asked of the pool."""
        await asyncio.gather(entry.starting, return_exceptions=True)
        with suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.gather(entry.group._settled(), entry.released.wait()), self.drain_timeout)
        entry.group._retire(message)
        await entry.group._stop()

    def _ensure_reaper(self) -> None:
        if self.idle_timeout is None or (self._reaper is not None and not self._reaper.done()):
            return
        self._reaper = asyncio.get_running_loop().create_task(self._reap(self.idle_timeout),
                                                              name="mcp-litellm:pool-idle")

    async def _reap(self, idle_timeout: float) -> None:
        """Stop the groups of users idle for ``idle_timeout`` seconds; ends when no user is left."""
        while self._users:
            now = time.monotonic()
            for user_id, entry in list(self._users.items()):
                if not entry.starting.done() or entry.holds or entry.pending or entry.group._in_flight():
                    entry.last_used = now
                    self._users.move_to_end(user_id)
                elif now - entry.last_used >= idle_timeout:  # a group handed over and never used too
                    logger.debug("user %r unused for %ss; stopping their connections", user_id, idle_timeout)
                    self._evict(user_id, f"unused for {idle_timeout:g}s (idle_timeout)")
            self._admit()
            if not self._users:
                return
            wake = min(entry.last_used for entry in self._users.values()) + idle_timeout
            await asyncio.sleep(max(wake - time.monotonic(), _POLL))

    # -- lifecycle -----------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise ConfigError("this ClientPool is closed; make a new one")

    def start(self) -> ClientPool:
        """Connect the shared servers now (otherwise the first :meth:`for_user` does), so a bad config
        fails when the app starts. Returns the pool."""
        run_sync(self._start())
        return self

    async def astart(self) -> ClientPool:
        """Async twin of :meth:`start`."""
        await run_async(self._start())
        return self

    async def _start(self) -> None:
        self._check_open()
        await self._ensure_shared()

    def stop(self) -> None:
        """Stop every user's group (after their requests in flight) and the shared connections (``stop``, as
        for ``Client`` and ``ClientGroup``)."""
        run_sync(self._close())

    async def astop(self) -> None:
        """Async twin of :meth:`stop`."""
        await run_async(self._close())

    def close(self) -> None:
        """Deprecated name of :meth:`stop`."""
        warnings.warn("ClientPool.close() is deprecated; use stop(), as for Client and ClientGroup",
                      DeprecationWarning, stacklevel=2)
        self.stop()

    async def aclose(self) -> None:
        """Deprecated name of :meth:`astop`."""
        warnings.warn("ClientPool.aclose() is deprecated; use astop(), as for Client and ClientGroup",
                      DeprecationWarning, stacklevel=2)
        await self.astop()

    async def _close(self) -> None:
        self._closed = True
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.admitted.done():
                waiter.admitted.set_exception(ConfigError(
                    f"this ClientPool was closed while user {waiter.user_id!r} waited for a slot; make a new one"))
        for task in (self._reaper, self._waker):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        self._reaper = self._waker = None
        for user_id in list(self._users):
            self._evict(user_id, "the pool was closed")
        if self._retiring:
            await asyncio.gather(*list(self._retiring), return_exceptions=True)
        shared, self._shared_group = self._shared_group, None
        if shared is not None:
            retire(list(shared._clients.values()), "this client is one of a ClientPool's shared connections, and "
                   "the pool was closed; make a new pool")
            await shared._stop()

    def __enter__(self) -> ClientPool:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> ClientPool:
        return await self.astart()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.astop()

    def __repr__(self) -> str:
        state = ", closed" if self._closed else ""
        return (f"ClientPool(shared={self.shared}, per_user={self.per_user}, users={len(self._users)}, "
                f"max_users={self.max_users}, idle_timeout={self.idle_timeout}{state})")
