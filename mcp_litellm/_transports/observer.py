"""What the HTTP layer saw while one request ran, shared between the connection, the transports and OAuth.

The connection sets a fresh :class:`HttpObserver` in :data:`http_observer` around each request (and
one for the handshake). The SDK runs every POST in a copy of the sending task's context, so the
transport's response hook and the OAuth flow of exactly that request's POSTs reach the same object.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

__all__ = ["HttpObserver", "HttpStatus", "http_observer"]


@dataclass(frozen=True)
class HttpStatus:
    """The answer to one POST: its status, reason phrase, whether it named an MCP session, the start of an
    error answer's body (it tells a forgotten session from a rejected request, and says why a server refused),
    secrets masked, and whether the config sends credentials."""

    status: int
    reason: str
    with_session: bool
    body: str | None = None
    credentials: bool | None = None
    """Whether the server's config sends credentials (``None``: not known)."""


class HttpObserver:
    """What the HTTP layer answered while one request (or the handshake) ran: the last POST's status.

    OAuth fills in the rest: ``auth_error`` is why authorizing failed (the connection raises it instead
    of the HTTP error that follows), and ``deadline`` is the request's timeout scope (an
    ``asyncio.Timeout`` or an anyio ``CancelScope``), suspended while a person authorizes; ``pause``, when
    set, is the pause of the deadline of the whole call the request is part of (a context manager factory),
    entered for that time too.
    """

    __slots__ = ("auth_error", "deadline", "last", "pause")

    def __init__(self) -> None:
        self.last: HttpStatus | None = None
        self.auth_error: Exception | None = None
        self.deadline: object = None
        self.pause: Callable[[], AbstractContextManager[None]] | None = None

    def failure(self) -> HttpStatus | None:
        """The last POST's answer when it was an HTTP error (status >= 400), else ``None``."""
        last = self.last
        return last if last is not None and last.status >= 400 else None


http_observer: contextvars.ContextVar[HttpObserver | None] = contextvars.ContextVar(
    "mcp_litellm_http_observer", default=None
)
"""Set by the connection around each request; read by the response hook and the OAuth flow."""
