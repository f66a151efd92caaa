"""A transport as an object: one per client, holding its config, its per-client options and its auth.

A client builds its :class:`Transport` once (``registry.make_transport``) and asks it for a fresh connect
target for every session (:meth:`Transport.open`): the first connect, a restart, a reconnect after the
server forgot the session. What lives as long as the client lives on the object, so an OAuth provider
(its tokens, its discovered metadata) is built once per client from that client's own settings and
survives every reconnect. Per-client options travel in a frozen :class:`TransportOptions`; what belongs to
one session (the :class:`ExitReport` of a stdio server) is handed to :meth:`Transport.open`, and what
belongs to one request (the HTTP observer) stays a context variable (:mod:`.observer`).

A factory registered with ``register_transport(name, factory)`` keeps its documented shape,
``factory(config)``: :class:`FactoryTransport` wraps it and calls it once per session.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from mcp_litellm._core.redact import redact_text
from mcp_litellm._transports.wire.messages import DEFAULT_MAX_MESSAGE_SIZE

__all__ = ["ExitReport", "FactoryTransport", "Transport", "TransportOptions", "TransportTarget", "UserFactory"]

TransportTarget: TypeAlias = Any
"""What a transport opens: an async context manager of ``(read, write)`` streams, or a server object."""

UserFactory: TypeAlias = Callable[[Mapping[str, object]], Any]
"""A factory given to ``register_transport``: ``factory(config)`` returns a :data:`TransportTarget`."""


@dataclass(frozen=True)
class TransportOptions:
    """The client's settings every transport honours (frozen: a transport never changes them)."""

    server: str = "server"
    """The client's name: tags the server's stderr lines, log records and OAuth prompts."""
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    """Bytes one message from the server may take (the client option of that name)."""


class ExitReport:
    """What a stdio server left behind, for the error when it fails to start: its exit status and the
    last lines of its stderr (which are also logged to ``mcp_litellm.server`` as they arrive). One per
    session; the stdio transport fills it in."""

    TAIL_LINES = 3
    LINE_CHARS = 200

    def __init__(self) -> None:
        self.tail: collections.deque[str] = collections.deque(maxlen=self.TAIL_LINES)
        self.stderr_ended = threading.Event()
        self.secrets: tuple[str, ...] = ()
        self.exit_status: int | None = None

    def describe(self) -> str | None:
        """``"it exited with status 3; its stderr ended with: ..."`` (secrets masked), or ``None`` when
        nothing is known."""
        parts = []
        if self.exit_status is not None:
            parts.append(f"it exited with status {self.exit_status}")
        if self.tail:
            lines = [redact_text(line, self.secrets) for line in self.tail]
            lines = [line if len(line) <= self.LINE_CHARS else line[: self.LINE_CHARS - 1] + "…" for line in lines]
            parts.append(f"its stderr ended with: {' | '.join(lines)}")
        return "; ".join(parts) or None


class Transport:
    """How one client reaches its server. Subclasses implement :meth:`check` and :meth:`open`."""

    name: str = ""
    """The canonical transport name (``"stdio"``, ``"streamable"``, ...)."""
    http: bool = False
    """True for the HTTP transports: requests are observed (:mod:`.observer`) and a lost session reconnects."""

    def __init__(self, config: Mapping[str, Any], options: TransportOptions) -> None:
        self.config = config
        self.options = options

    @property
    def url(self) -> str | None:
        """The server's URL (HTTP transports), for error messages; ``None`` otherwise."""
        url = self.config.get("url") if self.http else None
        return url if isinstance(url, str) else None

    def check(self) -> None:
        """Raise ``ConfigError`` when the config cannot work (no I/O)."""

    def open(self, report: ExitReport) -> TransportTarget:
        """A fresh connect target for one session (validates the config first)."""
        raise NotImplementedError

    def with_options(self, options: TransportOptions) -> Transport:
        """This transport with other options, sharing what it holds (its auth); ``self`` when unchanged."""
        if options == self.options:
            return self
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.options = options
        return other

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} for {self.options.server!r}>"


class FactoryTransport(Transport):
    """A transport registered as ``factory(config)``: the factory is called once per session."""

    def __init__(self, name: str, factory: UserFactory, config: Mapping[str, object],
                 options: TransportOptions) -> None:
        super().__init__(config, options)
        self.name = name
        self.factory = factory
        self.http = name in ("streamable", "sse")  # a user's replacement of a built-in HTTP name is observed too

    def open(self, report: ExitReport) -> TransportTarget:
        return self.factory(self.config)
