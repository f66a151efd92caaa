"""Shared plumbing for what a server lists: pagination and a per-kind cache.

The cache (:class:`CatalogCache`) holds one :class:`Listing` per kind (``tools``, ``resources``,
``resource_templates``, ``prompts``) plus resource contents by uri. A list_changed notification drops
its kind; a fetch that was in flight while the kind was dropped does not write its (stale) result back.

On 2026-07-28 connections a list result says how long it may be cached (``ttlMs``; 0: not at all):
listing again after that fetches it anew. Looking one item up by name (to call a tool, read a resource)
takes any cached copy, so a server that says 0 is not asked for its whole list before every call.
``cacheScope`` needs nothing here: these caches are private to one client, which both scopes allow.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mcp_types import METHOD_NOT_FOUND

from mcp_litellm._core.errors import ServerError

if TYPE_CHECKING:
    from mcp_types import ReadResourceResult

    from mcp_litellm._client.primitives.prompt import Prompt
    from mcp_litellm._client.primitives.resource import Resource, ResourceTemplate
    from mcp_litellm._client.primitives.tool import Tool

logger = logging.getLogger("mcp_litellm")
T = TypeVar("T")

CAPABILITIES = {"tools": "tools", "resources": "resources", "resource_templates": "resources", "prompts": "prompts"}
"""The server capability each listed kind needs."""

MAX_PAGES = 1000
"""A server that keeps returning cursors is cut off after this many pages."""


def index_by_keys(items: Sequence[T], keys: Callable[[T], tuple[str, ...]]) -> dict[str, T]:
    """Items by each of their ``keys``: the one rule of which item a name finds. An item's first key wins
    over any item's second one, and earlier items over later ones, as in a scan of the list."""
    index: dict[str, T] = {}
    rows = [keys(item) for item in items]
    for position in range(max((len(row) for row in rows), default=0)):
        for item, row in zip(items, rows, strict=True):
            if position < len(row):
                index.setdefault(row[position], item)
    return index


@dataclass
class Listing(Generic[T]):
    """One kind's cached list: the converted items (``None``: not fetched, or dropped), when the server's
    ``ttlMs`` says they stop being fresh, and a generation that each drop bumps (a fetch started under an
    older generation does not store its result)."""

    items: list[T] | None = None
    expires: float | None = None
    generation: int = 0
    _index: dict[str, T] | None = field(default=None, repr=False)

    def lookup(self, name: str, keys: Callable[[T], tuple[str, ...]]) -> T | None:
        """The cached item one of whose ``keys`` is ``name`` (``None``: not cached, or no such item), by
        :func:`index_by_keys`; the index is built once per stored list, so a call by name costs the same
        with five tools as with five hundred."""
        if self.items is None:
            return None
        index = self._index
        if index is None:
            index = self._index = index_by_keys(self.items, keys)
        return index.get(name)

    def fresh(self) -> bool:
        """Whether the items may be served to a listing (the server gave no ``ttlMs``, or it has not run out)."""
        return self.expires is None or time.monotonic() < self.expires

    def drop(self) -> None:
        self.items, self.expires, self._index = None, None, None
        self.generation += 1

    def store(self, items: list[T], generation: int, ttls: list[int]) -> None:
        """Keep ``items`` fetched under ``generation`` (unless dropped since), fresh for the shortest ``ttls``."""
        if generation != self.generation:
            return
        self.items, self._index = items, None
        self.expires = time.monotonic() + min(ttls) / 1000 if ttls else None


@dataclass
class CatalogCache:
    """What one client caches of its server: a :class:`Listing` per kind and resource contents by uri."""

    tools: Listing[Tool] = field(default_factory=Listing)
    resources: Listing[Resource] = field(default_factory=Listing)
    resource_templates: Listing[ResourceTemplate] = field(default_factory=Listing)
    prompts: Listing[Prompt] = field(default_factory=Listing)
    contents: dict[str, ReadResourceResult] = field(default_factory=dict)
    content_generations: dict[str, int] = field(default_factory=dict)
    """Bumped when a uri's content is dropped, so a read in flight does not store a stale result."""

    def listing(self, kind: str) -> Listing[Any]:
        """The listing of ``kind`` (``"tools"``, ``"resources"``, ``"resource_templates"``, ``"prompts"``)."""
        if kind not in CAPABILITIES:
            raise KeyError(kind)
        listing: Listing[Any] = getattr(self, kind)
        return listing

    def drop(self, kind: str | None = None) -> None:
        """Drop the listing of ``kind``, or (``None``) everything."""
        for name in (CAPABILITIES if kind is None else (kind,)):
            self.listing(name).drop()
        if kind is None:
            for uri in list(self.contents) + list(self.content_generations):
                self.drop_content(uri)

    def drop_content(self, uri: str) -> None:
        self.contents.pop(uri, None)
        self.content_generations[uri] = self.content_generations.get(uri, 0) + 1


def lists_nothing(error: BaseException) -> bool:
    """The one rule for a listing the server does not implement: a JSON-RPC "method not found" (-32601) to
    ``tools/list``, ``prompts/list``, ``resources/list`` or ``resources/templates/list`` means it lists
    nothing (server-postgres and mcp-server-duckdb declare ``resources`` but have no templates handler).
    The client then returns an empty listing (and says so at DEBUG); the group, ``doctor`` and the CLI
    see that empty listing, as every other caller does."""
    return isinstance(error, ServerError) and error.code == METHOD_NOT_FOUND


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
