"""``resources()``, ``resource_templates()``, ``read_resource()`` and friends of a client (the objects are in
``resource``)."""

from __future__ import annotations

import mcp_types
from mcp_types import ReadResourceResult

from mcp_litellm._client.core import ClientCore
from mcp_litellm._client.primitives.resource import Resource, ResourceTemplate
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._core.clean_text import clean_fields
from mcp_litellm._core.content import contents_value
from mcp_litellm._core.deprecation import keyword_only


class ResourcesMixin(ClientCore):
    """``resources()``, ``resource_templates()``, ``read_resource()`` and friends of :class:`mcp_litellm.Client`."""


    # -- resources ---------------------------------------------------------------------------------------

    async def _list_resources(self, refresh: bool | None) -> list[Resource]:
        def convert(item: mcp_types.Resource) -> Resource:
            shown = clean_fields(self.name, "resource", str(item.uri), title=item.title, description=item.description)
            return Resource(uri=str(item.uri), name=item.name, client=self,
                            mime_type=item.mime_type, size=item.size, annotations=item.annotations, **shown)

        return await self._listings.fetch("resources", "resources/list", "resources",
                                       lambda c, cursor: c.list_resources(cursor=cursor), convert, refresh)

    @keyword_only("refresh")
    def resources(self, *, refresh: bool = False) -> list[Resource]:
        """The server's resources (fetched once, then cached until ``refresh=True``, a list_changed, or the
        server's ``ttlMs`` runs out)."""
        return run_sync(self._list_resources(refresh), home=self._session_loop())

    @keyword_only("refresh")
    async def aresources(self, *, refresh: bool = False) -> list[Resource]:
        """Async twin of :meth:`resources`."""
        return await run_async(self._list_resources(refresh), home=self._session_loop())

    async def _find_resource(self, name: str, refresh: bool) -> Resource:
        found: Resource = await self._listings.find("resource", name, refresh, self._list_resources,
                                           lambda r: (r.name, r.uri, r.title or r.name))
        return found

    @keyword_only("refresh")
    def resource(self, name: str, *, refresh: bool = False) -> Resource:
        """The resource called ``name`` (or with that uri or title); ``NotFoundError`` if absent."""
        return run_sync(self._find_resource(name, refresh), home=self._session_loop())

    @keyword_only("refresh")
    async def aresource(self, name: str, *, refresh: bool = False) -> Resource:
        """Async twin of :meth:`resource`."""
        return await run_async(self._find_resource(name, refresh), home=self._session_loop())

    async def _read(self, uri: str, refresh: bool) -> ReadResourceResult:
        cache = self._catalog_cache
        if not refresh and uri in cache.contents:
            return cache.contents[uri]
        connection = await self._connected()
        self._listings.require_capability(connection, "resources", "resources")
        meta = self._request_meta()
        generation = cache.content_generations.get(uri, 0)
        result: ReadResourceResult = await connection.request(
            "resources/read", lambda c: c.read_resource(uri, meta=meta), self._timeout(None))  # type: ignore[arg-type]
        if cache.content_generations.get(uri, 0) == generation:
            cache.contents[uri] = result
        return result

    async def _read_value(self, uri: str) -> str | bytes:
        return contents_value((await self._read(str(uri), True)).contents)

    def read_resource(self, uri: str) -> str | bytes:
        """Read the resource at ``uri`` now: ``str`` for text, ``bytes`` for blobs (several parts are joined)."""
        return run_sync(self._read_value(uri), home=self._session_loop())

    async def aread_resource(self, uri: str) -> str | bytes:
        """Async twin of :meth:`read_resource`."""
        return await run_async(self._read_value(uri), home=self._session_loop())

    # -- templates ---------------------------------------------------------------------------------------

    async def _list_templates(self, refresh: bool | None) -> list[ResourceTemplate]:
        def convert(item: mcp_types.ResourceTemplate) -> ResourceTemplate:
            shown = clean_fields(self.name, "resource template", item.uri_template, title=item.title,
                                 description=item.description)
            return ResourceTemplate(uri_template=item.uri_template, name=item.name, client=self,
                                    mime_type=item.mime_type, annotations=item.annotations, **shown)

        return await self._listings.fetch("resource_templates", "resources/templates/list", "resource_templates",
                                       lambda c, cursor: c.list_resource_templates(cursor=cursor), convert, refresh)

    @keyword_only("refresh")
    def resource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        """The server's resource templates (cached like :meth:`resources`)."""
        return run_sync(self._list_templates(refresh), home=self._session_loop())

    @keyword_only("refresh")
    async def aresource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        """Async twin of :meth:`resource_templates`."""
        return await run_async(self._list_templates(refresh), home=self._session_loop())

    async def _find_template(self, name: str, refresh: bool) -> ResourceTemplate:
        found: ResourceTemplate = await self._listings.find("resource template", name, refresh, self._list_templates,
                                                   lambda t: (t.name, t.uri_template, t.title or t.name))
        return found

    @keyword_only("refresh")
    def resource_template(self, name: str, *, refresh: bool = False) -> ResourceTemplate:
        """The template called ``name`` (or with that URI template); ``NotFoundError`` if absent."""
        return run_sync(self._find_template(name, refresh), home=self._session_loop())

    @keyword_only("refresh")
    async def aresource_template(self, name: str, *, refresh: bool = False) -> ResourceTemplate:
        """Async twin of :meth:`resource_template`."""
        return await run_async(self._find_template(name, refresh), home=self._session_loop())


__all__ = ["ResourcesMixin"]
