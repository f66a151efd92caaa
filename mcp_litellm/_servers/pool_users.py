"""The parts of a :class:`~mcp_litellm.ClientPool` that belong to one user: their group, its state, and
the users waiting for a slot."""

from __future__ import annotations

import asyncio
import logging
import os
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from mcp_litellm._client.client import Client
from mcp_litellm._client.options import GroupClientOptions, check_option_names
from mcp_litellm._core.errors import AuthError, ConfigError, TransportError
from mcp_litellm._core.naming import distinct_prefixes
from mcp_litellm._servers.config_file import ServerConfig
from mcp_litellm._servers.group import ClientGroup

logger = logging.getLogger("mcp_litellm")

REMOTE = ("streamable", "sse")
"""The transports a user's own headers go to."""


def _set_event() -> asyncio.Event:
    """An event that is set (no block holds the group)."""
    event = asyncio.Event()
    event.set()
    return event


@dataclass(eq=False)
class PoolUser:
    """One user's group, the headers it was made with, and what keeps it in use.

    A user is *in use* (never stopped to make room for another user) while their group starts, while a
    :meth:`ClientPool.borrow` block holds it, while a request is in flight on their own connections, and
    from when :meth:`ClientPool.for_user` hands the group over until a request is made through it."""

    group: UserGroup
    headers: dict[str, str] | None = field(repr=False)  # a user's credential: never in a repr
    starting: asyncio.Task[None] = field(repr=False)
    last_used: float = field(default_factory=time.monotonic)
    retired: asyncio.Task[None] | None = None
    holds: int = 0  # blocks of borrow() running now
    pending: int = 0  # for_user()/borrow() calls waiting for the group's start, to be handed it
    handed: tuple[tuple[int, int], ...] | None = None  # the requests made when for_user() handed it over
    handovers: int = 0  # for_user() calls that were handed the group at ``handed`` and did not use it yet
    released: asyncio.Event = field(default_factory=_set_event, repr=False)  # set while no block holds the group

    def in_use(self) -> bool:
        """Whether stopping this user's group now could break a request or a caller holding it."""
        if not self.starting.done() or self.holds or self.pending or self.group._in_flight():
            return True
        if self.handed is not None and self.handed == self.group._requests_made():
            return True  # handed over by for_user(), not used yet
        self.handed = None
        self.handovers = 0
        return False

    def hand_over(self, hold: bool) -> None:
        """Give the group to one caller: held by a borrow() block, or (for_user) in use until it is used."""
        self.pending -= 1
        if hold:
            self.holds += 1
            self.released.clear()
        elif self.group._own:
            made = self.group._requests_made()
            if self.handed != made:
                self.handovers = 0
            self.handed = made
            self.handovers += 1
        self.last_used = time.monotonic()  # unused from when it is handed over, not from when it began to connect

    def hand_back(self, hold: bool) -> None:
        """Undo one :meth:`hand_over`: a borrow() block ended, or a caller never got the group handed to it."""
        self.last_used = time.monotonic()
        if hold:
            self.holds -= 1
            if not self.holds:
                self.released.set()
        elif self.handed is not None:
            self.handovers -= 1
            if self.handovers <= 0:
                self.handed = None
                self.handovers = 0


@dataclass(eq=False)
class Grant:
    """One caller's claim on a user's group, made on the pool's loop and delivered to the caller's.

    A caller cancelled just as the group is handed to it (``asyncio.wait_for`` running out, a web client
    disconnecting) never receives it: the pool then takes it back (:meth:`ClientPool._give_back`), whichever
    comes first on the pool's loop, the grant or the caller's giving up."""

    hold: bool
    entry: PoolUser | None = None
    given_back: bool = False


@dataclass(eq=False)
class Waiter:
    """A new user's call waiting for a slot; ``admitted`` gets their :class:`PoolUser` (with a ``pending`` for it)."""

    user_id: str
    headers: dict[str, str] | None = field(repr=False)
    admitted: asyncio.Future[PoolUser]


class UserGroup(ClientGroup):
    """A user's group: their own connections plus the pool's shared ones, which it never starts or stops."""

    def __init__(self, own: Mapping[str, ServerConfig], order: list[str], shared: ClientGroup, strict: bool,
                 with_prefix: bool | None, client_options: GroupClientOptions) -> None:
        super().__init__(dict(own), strict=strict, with_prefix=with_prefix, **client_options)
        self._order = order
        self._shared = shared
        self._own: list[Client] = list(self._clients.values())
        self._retired: str | None = None

    def _retire(self, message: str) -> None:
        """Make the group and the user's own clients refuse to start again, with ``message`` (the pool stops
        them next): restarted outside the pool, they would be connections nobody ever stops."""
        self._retired = message
        retire(self._own, message)

    async def _start(self) -> None:
        if self._retired is not None:
            raise TransportError(self._retired)
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

    def _requests_made(self) -> tuple[tuple[int, int], ...]:
        """How many requests were made on each of the user's own connections so far."""
        return tuple(client._requests_made() for client in self._own)

    async def _settled(self) -> None:
        """Return once no request is in flight on the user's own connections."""
        await asyncio.gather(*(client._settled() for client in self._own))


def retire(clients: list[Client], message: str) -> None:
    """Make ``clients`` raise :class:`TransportError` with ``message`` on any later request or start."""
    for client in clients:
        client._retired = message


def stopped_message(user_id: str, why: str) -> str:
    """What a request on a user's group says once the pool stopped it, and ``why``."""
    return (f"the pool stopped user {user_id!r}'s connections ({why}); call pool.for_user({user_id!r}) or "
            f"pool.borrow({user_id!r}) (or their async twins) again for a group that works: this one cannot be "
            "restarted outside the pool")


def is_per_user(server: ServerConfig) -> bool:
    """Whether each user gets a connection of their own to ``server`` (the config says so, or it uses OAuth)."""
    return server.per_user if server.per_user is not None else uses_oauth(server)


def uses_oauth(server: ServerConfig) -> bool:
    """Whether ``server`` authorizes with OAuth."""
    return server.config.get("auth") == "oauth" or server.config.get("oauth") is not None


def not_authorized(name: str) -> Callable[[str, str], str]:
    """The ``authorize`` of a per-user OAuth server without one: the user has to be sent to ``url``."""

    def authorize(url: str, user: str) -> str:
        error = AuthError(f"user {user!r} has not authorized server {name!r} yet: send them to the authorization "
                          f"URL (AuthError.authorization_url), or give the server an oauth.authorize(url, user) "
                          f"callable that does; the URL: {url}", http_status=None)
        error.authorization_url = url
        raise error

    return authorize


def user_config(server: ServerConfig, user_id: str, headers: dict[str, str] | None) -> ServerConfig:
    """A user's copy of a per-user server's config: their headers merged in, and for OAuth their user id
    (so their tokens are stored apart) and, without an ``authorize`` callable, one that raises
    :class:`AuthError` with the authorization URL."""
    if server.transport_type not in REMOTE:
        return server
    config = dict(server.config)
    if headers:
        configured = {k: v for k, v in (config.get("headers") or {}).items()
                      if k.lower() not in {name.lower() for name in headers}}
        config["headers"] = {**configured, **headers}
    if uses_oauth(server):
        oauth = dict(config.get("oauth") or {})
        oauth["user"] = user_id
        if oauth.get("authorize") is None:
            oauth["authorize"] = not_authorized(server.name)
        config["oauth"] = oauth
    return replace(server, config=config)


def checked_headers(headers: Mapping[str, str] | None) -> dict[str, str] | None:
    """``headers`` as a dict, or a :class:`ConfigError` that quotes no value (it may be a token)."""
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


def pool_source(source: object, options: dict[str, object]) -> str | os.PathLike[str] | Mapping[str, object]:
    """``ClientPool``'s servers: ``source``, or the deprecated ``config=`` (taken out of ``options``, with a
    ``DeprecationWarning``); ``ConfigError`` for anything but a config path or mapping, or for an unknown
    client option in ``options`` (naming the closest)."""
    if "config" in options:  # the first parameter's old name
        if source is not None:
            raise ConfigError("give ClientPool its servers once: as source (config= is its old name)")
        warnings.warn("ClientPool(config=...) is deprecated; the first parameter is named source, as for "
                      "ClientGroup: ClientPool(source) or ClientPool(source=...)", DeprecationWarning, stacklevel=3)
        source = options.pop("config")
    if not isinstance(source, str | os.PathLike | Mapping):
        raise ConfigError(f"ClientPool takes a config file path or a config mapping, got {type(source).__name__}; "
                          "per-user connections are made from server configs, not from clients")
    check_option_names(options, "ClientPool")
    return source
