"""One JSON document under one key, kept in memory, in a file or in Redis: the protocol its stores share.

OAuth tokens (``_transports/oauth/storage.py``) and tool pins (``_client/pins.py``) each keep their state
as such a document. The stores (``_transports/stores/``) are async (nothing they do blocks the loop that
carries the sessions), give a lock held around a read-modify-write (across processes for a file or
Redis), and leave the document's shape and sealing to their user. A store's failures are worded by a
:class:`Wording`, so each user's messages name what is stored and how to fix it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol, TypeAlias

__all__ = ["REDIS_SCHEMES", "DocumentStore", "JSONObject", "JSONValue", "Wording"]

JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"
"""A value as ``json.loads`` gives it."""
JSONObject: TypeAlias = "dict[str, JSONValue]"

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
"""The URL schemes that name a Redis server as a store."""


class DocumentStore(Protocol):
    """The text of one document under one key."""

    where: str
    """Where the document is, for messages (``"in memory"``, ``"in /path"``, ``"in Redis (key K)"``)."""

    async def read(self) -> str | None:
        """The document's text, or ``None`` when there is none."""

    async def write(self, text: str) -> None:
        """Replace the document (atomically: a reader sees the old text or the new one)."""

    async def delete(self) -> bool:
        """Remove the document; ``True`` when there was one."""

    def lock(self) -> AbstractAsyncContextManager[None]:
        """Held around a read-modify-write, so that two writers (two processes, for a file or Redis) never
        interleave."""


@dataclass(frozen=True)
class Wording:
    """How a store's failures read: the error raised and the phrases that name what is stored.

    ``what``: the stored thing (``"the OAuth tokens for 'crm'"``); ``file``: its file, without the path
    (``"the OAuth token file"``); ``fix``: the remedy after a failed read, write or lock; ``refused``:
    the remedy after a file refused as unsafe; ``redis``: the Redis storage of it (``"the Redis token
    storage for 'crm'"``).
    """

    error: Callable[[str], Exception]
    what: str
    file: str
    fix: str
    refused: str = "remove it, or keep it in a directory of your own"
    redis: str = ""

    def fail(self, message: str) -> Exception:
        """The error to raise with ``message``."""
        return self.error(message)
