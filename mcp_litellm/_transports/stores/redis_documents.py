"""A document under one Redis key (``redis://``, ``rediss://`` or ``unix://`` URL), with a Redis lock.

The lock is ``SET NX PX`` beside the key (released by its owner only). Connections are made per operation
with ``redis.asyncio``, so a store is not bound to one event loop, holds no socket between uses, and never
blocks the calling loop. The Python client is the ``redis`` package (``mcp-litellm[redis]``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from mcp_litellm._core.documents import Wording
from mcp_litellm._transports.stores.files import LOCK_TIMEOUT

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["RedisDocument", "redis_keys", "shown_url"]


def shown_url(url: str) -> str:
    """A Redis URL without its user name and password."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return f"unix://{parts.path}"
    host = parts.hostname or "localhost"
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"


def _without_password(text: str) -> str:
    return text.split("@")[-1] if "://" in text else text


@contextlib.asynccontextmanager
async def _connection(url: str, wording: Wording) -> AsyncIterator[Redis]:
    try:
        import redis.asyncio
        from redis.exceptions import RedisError
    except ImportError:
        raise wording.fail(f"{wording.redis or wording.what} in Redis needs the redis package: "
                           'pip install "mcp-litellm[redis]"') from None
    client = redis.asyncio.Redis.from_url(url, socket_connect_timeout=10, socket_timeout=10)
    try:
        yield client
    except (RedisError, OSError) as exc:
        raise wording.fail(f"{wording.redis or 'the Redis storage of ' + wording.what} failed "
                           f"({type(exc).__name__}: {_without_password(str(exc))}); check that Redis is up at "
                           f"{shown_url(url)}") from None
    finally:
        await client.aclose()


class RedisDocument:
    """The document under ``key`` in the Redis at ``url``."""

    path = None

    def __init__(self, url: str, key: str, wording: Wording) -> None:
        self.url = url
        self.key = key
        self.wording = wording
        self.where = f"in Redis (key {key})"

    def __repr__(self) -> str:
        return f"RedisDocument({shown_url(self.url)!r}, {self.key!r})"

    async def read(self) -> str | None:
        async with _connection(self.url, self.wording) as client:
            value = await client.get(self.key)
        return value.decode("utf-8") if isinstance(value, bytes) else value

    async def write(self, text: str) -> None:
        async with _connection(self.url, self.wording) as client:
            await client.set(self.key, text.encode("utf-8"))

    async def delete(self) -> bool:
        async with _connection(self.url, self.wording) as client:
            return bool(await client.delete(self.key))

    @contextlib.asynccontextmanager
    async def lock(self) -> AsyncIterator[None]:
        from redis.exceptions import LockError

        async with _connection(self.url, self.wording) as client:
            lock = client.lock(self.key + ":lock", timeout=LOCK_TIMEOUT, blocking_timeout=LOCK_TIMEOUT)
            if not await lock.acquire():
                raise self.wording.fail(f"another process has held the Redis lock on {self.wording.what} for "
                                        f"{LOCK_TIMEOUT:g}s")
            try:
                yield
            finally:
                with contextlib.suppress(LockError):  # expired meanwhile: another process may hold it now
                    await lock.release()


async def redis_keys(url: str, prefix: str, wording: Wording) -> list[str]:
    """The keys of the Redis at ``url`` that start with ``prefix`` (without their ``:lock`` keys)."""
    async with _connection(url, wording) as client:
        found = [key.decode("utf-8") if isinstance(key, bytes) else str(key)
                 async for key in client.scan_iter(match=_glob_escaped(prefix) + "*")]
    return sorted(key for key in found if not key.endswith(":lock"))


def _glob_escaped(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
