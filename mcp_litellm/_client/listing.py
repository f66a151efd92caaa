"""Shared plumbing for what a server lists: pagination and a per-kind cache.

The cache holds one converted list per kind (``"tools"``, ``"resources"``, ``"resource_templates"``,
``"prompts"``) plus resource contents (``"contents"``). A list_changed notification drops its kind;
a fetch that was in flight while the kind was dropped does not write its (stale) result back.

On 2026-07-28 connections a list result says how long it may be cached (``ttlMs``; 0: not at all):
listing again after that fetches it anew. Looking one item up by name (to call a tool, read a resource)
takes any cached copy, so a server that says 0 is not asked for its whole list before every call.
``cacheScope`` needs nothing here: these caches are private to one client, which both scopes allow.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from mcp_litellm._core.errors import NotFoundError, UnsupportedFeature

if TYPE_CHECKING:
    from mcp_litellm._client.connection import Connection

logger = logging.getLogger("mcp_litellm")
T = TypeVar("T")

_CAPABILITIES = {"tools": "tools", "resources": "resources", "resource_templates": "resources", "prompts": "prompts"}
"""The server capability each listed kind needs."""

MAX_PAGES = 1000
"""A server that keeps returning cursors is cut off after this many pages."""


async def paginate(fetch: Callable[[str | None], Awaitable[Any]], items: str, *, server: str) -> list[Any]:
    """Collect every page of a list call, stopping on a repeated cursor or after ``MAX_PAGES``."""
    collected: list[Any] = []
    seen: set[str] = set()
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        collected.extend(getattr(page, items))
        cursor = page.next_cursor
        if cursor is None:
            return collected
        if cursor in seen:
            logger.warning("server %r repeated pagination cursor %r for %s; stopping", server, cursor, items)
            return collected
        seen.add(cursor)
    logger.warning("server %r returned more than %d pages of %s; stopping", server, MAX_PAGES, items)
    return collected


class ListingMixin:
    """Cached, paginated list calls; part of :class:`mcp_litellm.Client` (via ``CatalogMixin``)."""

    name: str
    _catalog_cache: dict[str, Any]

    if TYPE_CHECKING:  # provided by the client core
        def _require_connection(self) -> Connection: ...
        async def _connected(self) -> Connection: ...
        def _timeout(self, timeout: float | None) -> float: ...

    def _invalidate(self, kind: str | None = None) -> None:
        generations: dict[str, int] = self._catalog_cache.setdefault("_generation", {})
        if kind is None:
            self._catalog_cache.clear()
            self._catalog_cache["_generation"] = {k: v + 1 for k, v in generations.items()}
            return
        self._catalog_cache.pop(kind, None)
        generations[kind] = generations.get(kind, 0) + 1

    def _require_capability(self, connection: Connection, capability: str, what: str) -> None:
        """``UnsupportedFeature`` unless the server advertised ``capability`` (``"tools"``, ``"prompts"``...)."""
        if getattr(connection.client.server_capabilities, capability, None) is None:
            raise UnsupportedFeature(
                f"server {self.name!r} does not offer {what}: it did not advertise the {capability!r} capability; "
                "check the server (or use a ClientGroup, whose listings skip servers without it)")

    async def _cached_list(self, kind: str, method: str, items: str, call: Callable[[Any, str | None], Awaitable[Any]],
                           convert: Callable[[Any], T], refresh: bool | None,
                           finish: Callable[[list[T]], list[T]] | None = None) -> list[T]:
        """The cached list of ``kind``, fetched page by page with ``call(sdk_client, cursor)`` when needed.

        ``refresh``: ``True`` fetches anew; ``False`` uses the cached list while the server's ``ttlMs``
        allows; ``None`` (a lookup by name) uses any cached list. ``finish`` post-processes the whole
        converted list before it is cached.
        """
        cached = self._catalog_cache.get(kind)
        expires: float | None = self._catalog_cache.get(f"{kind}:expires")
        fresh = expires is None or time.monotonic() < expires
        if cached is not None and (refresh is None or (refresh is False and fresh)):
            return list(cached)
        connection = await self._connected()
        self._require_capability(connection, _CAPABILITIES[kind], kind.replace("_", " "))
        timeout = self._timeout(None)
        generation = self._catalog_cache.setdefault("_generation", {}).get(kind, 0)

        ttls: list[int] = []

        async def fetch(cursor: str | None) -> Any:
            page = await connection.request(method, lambda c: call(c, cursor), timeout)
            if "ttl_ms" in getattr(page, "model_fields_set", ()):  # said by the server (2026-07-28)
                ttls.append(int(page.ttl_ms))
            return page

        converted = [convert(item) for item in await paginate(fetch, items, server=self.name)]
        if finish is not None:
            converted = finish(converted)
        if self._catalog_cache.setdefault("_generation", {}).get(kind, 0) == generation:
            self._catalog_cache[kind] = converted
            if ttls:
                self._catalog_cache[f"{kind}:expires"] = time.monotonic() + min(ttls) / 1000
            else:
                self._catalog_cache.pop(f"{kind}:expires", None)
        return list(converted)

    async def _find(self, label: str, name: str, refresh: bool,
                    listing: Callable[[bool | None], Awaitable[list[Any]]],
                    keys: Callable[[Any], tuple[str, ...]] = lambda item: (item.name,)) -> Any:
        """The item of ``listing`` whose keys include ``name``; re-lists once before ``NotFoundError``."""
        items = await listing(True if refresh else None)
        for item in items:  # the common case first: the item's own (first) key
            if keys(item)[0] == name:
                return item
        for position in range(1, max((len(keys(i)) for i in items), default=0)):
            for item in items:
                item_keys = keys(item)
                if position < len(item_keys) and item_keys[position] == name:
                    return item
        if not refresh:  # the list may be stale: look once more before giving up
            return await self._find(label, name, True, listing, keys)
        raise NotFoundError(label, name, [keys(i)[0] for i in items], server=self.name)
