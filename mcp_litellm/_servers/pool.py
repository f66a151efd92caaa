"""``ClientPool``: the servers of one config, connected per user of a web app.

Each user gets a :class:`ClientGroup` of their own, connected on first use and reused by their later
requests. A server marked ``"per_user": true`` gets a connection (for stdio: a process) per user;
every other server has one connection that all users' groups share. A user's group stops after
``idle_timeout`` seconds unused, and the least recently used one when ``max_users`` is reached; the
requests it has in flight finish first. Everything runs on the loop that owns the MCP sessions.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any

from mcp_litellm._client.client import Client
from mcp_litellm._client.loop import run_async, run_sync
from mcp_litellm._core.errors import AuthError, ConfigError
from mcp_litellm._core.naming import distinct_prefixes
from mcp_litellm._servers.config_file import ServerConfig
from mcp_litellm._servers.group import ClientGroup, select_configs

logger = logging.getLogger("mcp_litellm")

_REMOTE = ("streamable", "sse")
_POLL = 0.05


class ClientPool:
    """The servers of a config file or mapping, connected per user: one :class:`ClientGroup` per user.

    Made once when a web app starts (in its lifespan), closed when it stops; each request asks for
    its user's group::

        pool = ml.ClientPool("mcp.json", max_users=500, idle_timeout=600)
        clients = await pool.afor_user(user_id, headers={"Authorization": f"Bearer {user_token}"})
        tools = await clients.atools()

    A server whose config says ``"per_user": true`` gets a connection of its own for each user (a
    stdio server: a process of its own). Every other server is shared: one connection, made on
    first use, serves all users. Servers that use OAuth are per user unless they say
    ``"per_user": false``: each user authorizes once, and their tokens and client registration are
    stored under their user id as well as the server (``oauth.user``), so a user's token is only ever
    sent on that user's connection. An ``authorize`` callable taking two arguments is called as
    ``authorize(url, user_id)``; without one, :meth:`for_user` raises :class:`AuthError` whose
    ``authorization_url`` is where to send that user.

    Args:
        config: a config file path (JSON or YAML, see :func:`load_config`), a config mapping, or
            ``load_config``'s result.
        max_users: how many users may have a group at once; the least recently used user's group is
            stopped to make room (``None``: no limit).
        idle_timeout: seconds after which a user's group that was not used is stopped (``None``: never).
            A group with a request in flight, or held by :meth:`borrow`, is in use.
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
        config: str | os.PathLike[str] | Mapping[str, Any],
        *,
        max_users: int | None = 1000,
        idle_timeout: float | None = 900.0,
        drain_timeout: float = 30.0,
        strict: bool = True,
        with_prefix: bool | None = None,
        servers: Iterable[str] | None = None,
        **client_options: Any,
    ) -> None:
        if not isinstance(config, str | os.PathLike | Mapping):
            raise ConfigError(f"ClientPool takes a config file path or a config mapping, got {type(config).__name__}; "
                              "per-user connections are made from server configs, not from clients")
        if max_users is not None and (not isinstance(max_users, int) or isinstance(max_users, bool) or max_users < 1):
            raise ConfigError(f"max_users must be a positive integer or None, got {max_users!r}")
        for name, value in (("idle_timeout", idle_timeout), ("drain_timeout", drain_timeout)):
            if value is not None and (not isinstance(value, int | float) or isinstance(value, bool) or value <= 0):
                raise ConfigError(f"{name} must be a positive number of seconds, got {value!r}")
        if with_prefix not in (None, True, False):
            raise ConfigError(f"with_prefix must be True, False or None, got {with_prefix!r}")
        configs = select_configs(config, servers)
        self.max_users = max_users
        """The most users with a group at once (``None``: no limit)."""
        self.idle_timeout = idle_timeout
        """Seconds unused after which a user's group stops (``None``: never)."""
        self.drain_timeout = float(drain_timeout)
        self.strict = strict
        self.with_prefix = with_prefix
        self.disabled: list[str] = [name for name, c in configs.items() if c.disabled]
        """Servers the config marks ``disabled``: never started."""
        self.configs: dict[str, ServerConfig] = {name: c for name, c in configs.items() if not c.disabled}
        """The config of each server of the pool."""
        self.per_user: list[str] = [name for name, c in self.configs.items() if _is_per_user(c)]
        """The servers each user gets a connection of their own to."""
        self.shared: list[str] = [name for name in self.configs if name not in self.per_user]
        """The servers one connection of which serves all users."""
        self._client_options = client_options
        self._users: OrderedDict[str, _User] = OrderedDict()
        self._shared_group: ClientGroup | None = None
        self._shared_lock: asyncio.Lock | None = None
        self._reaper: asyncio.Task[None] | None = None
        self._retiring: set[asyncio.Task[None]] = set()
        self._closed = False

    # -- users ---------------------------------------------------------------------------------------

    @property
    def users(self) -> list[str]:
        """The ids of the users who have a group now, least recently used first."""
        return list(self._users)

    def for_user(self, user_id: str, headers: Mapping[str, str] | None = None) -> ClientGroup:
        """The group of ``user_id``: connected on first use, then reused by the user's later requests.

        ``headers`` (a user's own API key, say) go to this user's per-user remote servers, merged over
        the configured headers (a header given here wins, names compared case-insensitively), and to no
        other connection. Given again with different values, the user's per-user connections are
        replaced (the old ones close once their requests in flight finished); left out, the user's
        existing connections are reused as they are.

        The group is the pool's: do not stop it; the pool stops it when the user is idle or evicted.
        """
        return run_sync(self._for_user(user_id, headers))

    async def afor_user(self, user_id: str, headers: Mapping[str, str] | None = None) -> ClientGroup:
        """Async twin of :meth:`for_user`."""
        return await run_async(self._for_user(user_id, headers))

    @contextmanager
    def borrow(self, user_id: str, headers: Mapping[str, str] | None = None) -> Iterator[ClientGroup]:
        """:meth:`for_user`, held for a block: ``with pool.borrow(user_id) as clients: ...``.

        While the block runs, the user's group is in use even between MCP requests (a request of the web
        app waiting on its model for longer than ``idle_timeout``): it is neither stopped as idle nor
        chosen to make room for another user, and an eviction waits for the block to end (up to
        ``drain_timeout``)."""
        entry = run_sync(self._hold(user_id, headers))
        try:
            yield entry.group
        finally:
            run_sync(self._release(entry))

    @asynccontextmanager
    async def aborrow(self, user_id: str, headers: Mapping[str, str] | None = None) -> AsyncIterator[ClientGroup]:
        """Async twin of :meth:`borrow`: ``async with pool.aborrow(user_id) as clients: ...``."""
        entry = await run_async(self._hold(user_id, headers))
        try:
            yield entry.group
        finally:
            await run_async(self._release(entry))

    async def _hold(self, user_id: str, headers: Mapping[str, str] | None) -> _User:
        await self._for_user(user_id, headers)
        entry = self._users[user_id]
        entry.holds += 1
        entry.released.clear()
        return entry

    async def _release(self, entry: _User) -> None:
        entry.holds -= 1
        entry.last_used = time.monotonic()
        if not entry.holds:
            entry.released.set()

    def evict(self, user_id: str) -> bool:
        """Stop ``user_id``'s group now (after its requests in flight); ``False`` if the user had none."""
        return run_sync(self._evict_and_wait(user_id))

    async def aevict(self, user_id: str) -> bool:
        """Async twin of :meth:`evict`."""
        return await run_async(self._evict_and_wait(user_id))

    async def _for_user(self, user_id: str, headers: Mapping[str, str] | None) -> ClientGroup:
        if not isinstance(user_id, str) or not user_id:
            raise ConfigError(f"for_user() needs a user id (a non-empty str), got {type(user_id).__name__}")
        wanted = _checked_headers(headers)
        self._check_open()
        shared = await self._ensure_shared()
        self._check_open()
        entry = self._users.get(user_id)
        if entry is not None and wanted is not None and wanted != entry.headers and self._takes_headers():
            logger.debug("user %r gave new headers; replacing their per-user connections", user_id)
            self._evict(user_id)
            entry = None
        if entry is None:
            while self.max_users is not None and len(self._users) >= self.max_users:
                # the least recently used user not holding their group (borrow), else the least recently used
                oldest = next((u for u, e in self._users.items() if not e.holds), next(iter(self._users)))
                logger.debug("%d users have connections (max_users); stopping the least recently used, %r",
                             len(self._users), oldest)
                self._evict(oldest)
            entry = self._new_user(user_id, wanted, shared)
        entry.last_used = time.monotonic()
        self._users.move_to_end(user_id)
        self._ensure_reaper()
        try:
            await asyncio.shield(entry.starting)
        except BaseException:
            if entry.starting.done() and self._users.get(user_id) is entry:
                del self._users[user_id]
            raise
        entry.last_used = time.monotonic()  # unused from when it is handed over, not from when it began to connect
        return entry.group

    def _takes_headers(self) -> bool:
        return any(self.configs[name].transport_type in _REMOTE for name in self.per_user)

    def _new_user(self, user_id: str, headers: dict[str, str] | None, shared: ClientGroup) -> _User:
        own = {name: self._user_config(self.configs[name], user_id, headers) for name in self.per_user}
        group = _UserGroup(own, list(self.configs), shared, self.strict, self.with_prefix, self._client_options)
        starting = asyncio.get_running_loop().create_task(group._start(), name=f"mcp-litellm:user:{user_id}")
        starting.add_done_callback(_retrieve)
        entry = _User(group, headers, starting)
        self._users[user_id] = entry
        return entry

    @staticmethod
    def _user_config(server: ServerConfig, user_id: str, headers: dict[str, str] | None) -> ServerConfig:
        """A user's copy of a per-user server's config: their headers merged in, and for OAuth their user id
        (so their tokens are stored apart) and, without an ``authorize`` callable, one that raises
        :class:`AuthError` with the authorization URL."""
        if server.transport_type not in _REMOTE:
            return server
        config = dict(server.config)
        if headers:
            configured = {k: v for k, v in (config.get("headers") or {}).items()
                          if k.lower() not in {name.lower() for name in headers}}
            config["headers"] = {**configured, **headers}
        if _uses_oauth(server):
            oauth = dict(config.get("oauth") or {})
            oauth["user"] = user_id
            if oauth.get("authorize") is None:
                oauth["authorize"] = _not_authorized(server.name)
            config["oauth"] = oauth
        return replace(server, config=config)

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

    def _evict(self, user_id: str) -> None:
        entry = self._users.pop(user_id, None)
        if entry is None:
            return
        task = asyncio.get_running_loop().create_task(self._retire(entry), name=f"mcp-litellm:evict:{user_id}")
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)
        entry.retired = task

    async def _evict_and_wait(self, user_id: str) -> bool:
        entry = self._users.get(user_id)
        if entry is None:
            return False
        self._evict(user_id)
        if entry.retired is not None:
            await asyncio.shield(entry.retired)
        return True

    async def _retire(self, entry: _User) -> None:
        """Stop a user's group once its start settled and its requests in flight finished (bounded)."""
        await asyncio.gather(entry.starting, return_exceptions=True)
        with suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.gather(entry.group._settled(), entry.released.wait()), self.drain_timeout)
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
                if not entry.starting.done() or entry.holds or entry.group._in_flight():
                    entry.last_used = now
                    self._users.move_to_end(user_id)
                elif now - entry.last_used >= idle_timeout:
                    logger.debug("user %r unused for %ss; stopping their connections", user_id, idle_timeout)
                    self._evict(user_id)
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

    def close(self) -> None:
        """Stop every user's group (after their requests in flight) and the shared connections."""
        run_sync(self._close())

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        await run_async(self._close())

    async def _close(self) -> None:
        self._closed = True
        reaper, self._reaper = self._reaper, None
        if reaper is not None:
            reaper.cancel()
            await asyncio.gather(reaper, return_exceptions=True)
        for user_id in list(self._users):
            self._evict(user_id)
        if self._retiring:
            await asyncio.gather(*list(self._retiring), return_exceptions=True)
        shared, self._shared_group = self._shared_group, None
        if shared is not None:
            await shared._stop()

    def __enter__(self) -> ClientPool:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    async def __aenter__(self) -> ClientPool:
        return await self.astart()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        state = ", closed" if self._closed else ""
        return (f"ClientPool(shared={self.shared}, per_user={self.per_user}, users={len(self._users)}, "
                f"max_users={self.max_users}, idle_timeout={self.idle_timeout}{state})")


def _released() -> asyncio.Event:
    event = asyncio.Event()
    event.set()
    return event


@dataclass(eq=False)
class _User:
    """One user's group, the headers it was made with, and when it was last asked for."""

    group: _UserGroup
    headers: dict[str, str] | None = field(repr=False)  # a user's credential: never in a repr
    starting: asyncio.Task[None] = field(repr=False)
    last_used: float = field(default_factory=time.monotonic)
    retired: asyncio.Task[None] | None = None
    holds: int = 0  # blocks of borrow() running now
    released: asyncio.Event = field(default_factory=_released, repr=False)  # set while no block holds the group


class _UserGroup(ClientGroup):
    """A user's group: their own connections plus the pool's shared ones, which it never starts or stops."""

    def __init__(self, own: Mapping[str, ServerConfig], order: list[str], shared: ClientGroup, strict: bool,
                 with_prefix: bool | None, client_options: Mapping[str, Any]) -> None:
        super().__init__(dict(own), strict=strict, with_prefix=with_prefix, **client_options)
        self._order = order
        self._shared = shared
        self._own: list[Client] = list(self._clients.values())

    async def _start(self) -> None:
        await super()._start()  # the user's own servers; on a failure (strict) they are stopped again
        self._own = list(self._clients.values())
        clients = {**self._clients, **self._shared._clients}
        self._clients = {name: clients[name] for name in self._order if name in clients}
        self.configs = {**self.configs, **self._shared.configs}
        self.failed.update(self._shared.failed)
        self._prefixes = distinct_prefixes(list(self._clients))

    async def _stop(self) -> None:
        results = await asyncio.gather(*(c.astop() for c in self._own), return_exceptions=True)
        for client, result in zip(self._own, results, strict=True):
            if isinstance(result, BaseException):
                logger.warning("stopping server %r failed: %s", client.name, result)

    def _in_flight(self) -> int:
        """Requests in flight on the user's own connections."""
        return sum(client._in_flight() for client in self._own)

    async def _settled(self) -> None:
        """Return once no request is in flight on the user's own connections."""
        await asyncio.gather(*(client._settled() for client in self._own))


def _is_per_user(server: ServerConfig) -> bool:
    return server.per_user if server.per_user is not None else _uses_oauth(server)


def _uses_oauth(server: ServerConfig) -> bool:
    return server.config.get("auth") == "oauth" or server.config.get("oauth") is not None


def _not_authorized(name: str) -> Callable[[str, str], str]:
    """The ``authorize`` of a per-user OAuth server without one: the user has to be sent to ``url``."""

    def authorize(url: str, user: str) -> str:
        error = AuthError(f"user {user!r} has not authorized server {name!r} yet: send them to the authorization "
                          f"URL (AuthError.authorization_url), or give the server an oauth.authorize(url, user) "
                          f"callable that does; the URL: {url}", http_status=None)
        error.authorization_url = url
        raise error

    return authorize


def _checked_headers(headers: Mapping[str, str] | None) -> dict[str, str] | None:
    if headers is None:
        return None
    if not isinstance(headers, Mapping):
        raise ConfigError(f"headers must be a mapping of header names to strings, got {type(headers).__name__}")
    for name, value in headers.items():
        if not isinstance(name, str) or not isinstance(value, str):  # never quote a value: it may be a token
            raise ConfigError(f"headers must map header names (str) to values (str); header {name!r} has a "
                              f"{type(value).__name__} value" if isinstance(name, str) else
                              f"headers must map header names (str) to values (str), got a {type(name).__name__} name")
    return dict(headers)


def _retrieve(task: asyncio.Task[None]) -> None:
    """Mark a start's failure as seen (its waiters get it; a start nobody waits for any more is logged at debug)."""
    if not task.cancelled() and task.exception() is not None:
        logger.debug("a user's servers failed to start: %s", task.exception())
