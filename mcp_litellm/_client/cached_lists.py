"""The list calls of a client: cached (in its :class:`~mcp_litellm._client.listing.CatalogCache`), paginated,
looked up by name. :class:`Listings` is a component a :class:`~mcp_litellm.Client` holds, built with what it
needs: the server's name, the cache, the connection (``connected``) and the client's timeout."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp

from mcp_litellm._client.listing import CAPABILITIES, CatalogCache, index_by_keys, lists_nothing, paginate
from mcp_litellm._client.session.connection import Connection
from mcp_litellm._client.session.deadline import Deadline
from mcp_litellm._core.errors import NotFoundError, ServerError, UnsupportedFeature

T = TypeVar("T")
logger = logging.getLogger("mcp_litellm")


class Listings:
    """The cached, paginated list calls of one client (its tools, resources, templates, prompts)."""

    def __init__(self, name: str, cache: CatalogCache, connected: Callable[[Deadline | None], Awaitable[Connection]],
                 timeout: Callable[[], float]) -> None:
        self.name = name
        self.cache = cache
        self._connected = connected
        self._timeout = timeout

    def invalidate(self, kind: str | None = None) -> None:
        """Drop the cached listing of ``kind``, or (``None``) everything the client cached."""
        self.cache.drop(kind)

    def require_capability(self, connection: Connection, capability: str, what: str) -> None:
        """``UnsupportedFeature`` unless the server advertised ``capability`` (``"tools"``, ``"prompts"``...)."""
        if getattr(connection.client.server_capabilities, capability, None) is None:
            raise UnsupportedFeature(
                f"server {self.name!r} does not offer {what}: it did not advertise the {capability!r} capability; "
                "check the server (or use a ClientGroup, whose listings skip servers without it)")

    async def fetch(self, kind: str, method: str, items: str,
                           call: Callable[[mcp.Client, str | None], Awaitable[Any]],
                           convert: Callable[[Any], T], refresh: bool | None,
                           finish: Callable[[list[T], list[Any]], Awaitable[list[T]]] | None = None, *,
                           deadline: Deadline | None = None) -> list[T]:
        """The cached list of ``kind``, fetched page by page with ``call(sdk_client, cursor)`` when needed.

        ``refresh``: ``True`` fetches anew; ``False`` uses the cached list while the server's ``ttlMs``
        allows; ``None`` (a lookup by name) uses any cached list. ``finish`` post-processes the whole
        converted list, given the items as the server sent them too, before it is cached. ``deadline``: the
        call this listing is made for (a tool call resolving a name), whose time the listing shares; ``None``:
        the client's ``request_timeout``.
        """
        listing = self.cache.listing(kind)
        cached = listing.items
        if cached is not None and (refresh is None or (refresh is False and listing.fresh())):
            return list(cached)
        connection = await self._connected(deadline)
        self.require_capability(connection, CAPABILITIES[kind], kind.replace("_", " "))
        timeout: float | Deadline = self._timeout() if deadline is None else deadline
        generation = listing.generation

        ttls: list[int] = []

        async def fetch(cursor: str | None) -> Any:
            page = await connection.request(method, lambda c: call(c, cursor), timeout)
            if "ttl_ms" in getattr(page, "model_fields_set", ()):  # said by the server (2026-07-28)
                ttls.append(int(page.ttl_ms))
            return page

        try:
            fetched = await paginate(fetch, items, server=self.name)
        except ServerError as error:
            if not lists_nothing(error):
                raise
            logger.debug("server %r answered %s with method not found (%s): listing no %s", self.name, method,
                         error.message, kind.replace("_", " "))
            fetched = []
        converted = [convert(item) for item in fetched]
        if finish is not None:
            converted = await finish(converted, fetched)
        listing.store(converted, generation, ttls)
        return list(converted)

    async def find(self, label: str, name: str, refresh: bool,
                    listing: Callable[[bool | None], Awaitable[list[Any]]],
                    keys: Callable[[Any], tuple[str, ...]] = lambda item: (item.name,)) -> Any:
        """The item of ``listing`` whose keys include ``name``; re-lists once before ``NotFoundError``."""
        items = await listing(True if refresh else None)
        found = index_by_keys(items, keys).get(name)  # the precedence Listing.lookup follows too
        if found is not None:
            return found
        if not refresh:  # the list may be stale: look once more before giving up
            return await self.find(label, name, True, listing, keys)
        raise NotFoundError(label, name, [keys(i)[0] for i in items], server=self.name)


__all__ = ["Listings"]
