"""``Resources``: a client's resources and resource templates, listed, found and read (the objects are in
``primitives/resource``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types
from mcp_types import ReadResourceResult

from mcp_litellm._client.cached_lists import Listings
from mcp_litellm._client.listing import CatalogCache
from mcp_litellm._client.primitives.resource import Resource, ResourceOwner, ResourceTemplate
from mcp_litellm._client.session.owner import SessionOwner
from mcp_litellm._core.clean_text import clean_fields
from mcp_litellm._core.content import contents_value


class Resources:
    """The resources and resource templates of one client's server (``client.resources()`` and friends).

    Built with what it needs: the client the objects it makes belong to (``owner``), the session's owner, the
    cached listings and catalog cache, the ``_meta`` stamped on a request and the client's ``timeout`` rule.
    """

    def __init__(self, owner: ResourceOwner, session: SessionOwner, *, listings: Listings, cache: CatalogCache,
                 meta: Callable[[], dict[str, Any] | None], timeout: Callable[[float | None], float]) -> None:
        self._owner = owner
        self._session = session
        self._listings = listings
        self._cache = cache
        self._meta = meta
        self._timeout = timeout

    # -- resources ---------------------------------------------------------------------------------------

    async def list_resources(self, refresh: bool | None) -> list[Resource]:
        def convert(item: mcp_types.Resource) -> Resource:
            shown = clean_fields(self._owner.name, "resource", str(item.uri), title=item.title,
                                 description=item.description)
            return Resource(uri=str(item.uri), name=item.name, client=self._owner,
                            mime_type=item.mime_type, size=item.size, annotations=item.annotations, **shown)

        return await self._listings.fetch("resources", "resources/list", "resources",
                                       lambda c, cursor: c.list_resources(cursor=cursor), convert, refresh)

    async def find_resource(self, name: str, refresh: bool) -> Resource:
        found: Resource = await self._listings.find("resource", name, refresh, self.list_resources,
                                           lambda r: (r.name, r.uri, r.title or r.name))
        return found

    async def read(self, uri: str, refresh: bool) -> ReadResourceResult:
        cache = self._cache
        if not refresh and uri in cache.contents:
            return cache.contents[uri]
        connection = await self._session.connected()
        self._listings.require_capability(connection, "resources", "resources")
        meta = self._meta()
        generation = cache.content_generations.get(uri, 0)
        result: ReadResourceResult = await connection.request(
            "resources/read", lambda c: c.read_resource(uri, meta=meta), self._timeout(None))  # type: ignore[arg-type]
        if cache.content_generations.get(uri, 0) == generation:
            cache.contents[uri] = result
        return result

    async def read_value(self, uri: str) -> str | bytes:
        return contents_value((await self.read(str(uri), True)).contents)

    # -- templates ---------------------------------------------------------------------------------------

    async def list_templates(self, refresh: bool | None) -> list[ResourceTemplate]:
        def convert(item: mcp_types.ResourceTemplate) -> ResourceTemplate:
            shown = clean_fields(self._owner.name, "resource template", item.uri_template, title=item.title,
                                 description=item.description)
            return ResourceTemplate(uri_template=item.uri_template, name=item.name, client=self._owner,
                                    mime_type=item.mime_type, annotations=item.annotations, **shown)

        return await self._listings.fetch("resource_templates", "resources/templates/list", "resource_templates",
                                       lambda c, cursor: c.list_resource_templates(cursor=cursor), convert, refresh)

    async def find_template(self, name: str, refresh: bool) -> ResourceTemplate:
        found: ResourceTemplate = await self._listings.find("resource template", name, refresh, self.list_templates,
                                                   lambda t: (t.name, t.uri_template, t.title or t.name))
        return found


__all__ = ["Resources"]
