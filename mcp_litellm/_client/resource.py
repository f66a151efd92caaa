"""Resources and resource templates: listing, reading, subscribing, and LiteLLM user messages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp_types import ReadResourceResult, ResourceTemplateReference

from mcp_litellm._client.listing import ListingMixin
from mcp_litellm._client.loop import run_async, run_sync
from mcp_litellm._client.prompt import Completion
from mcp_litellm._core.clean_text import clean_fields
from mcp_litellm._core.content import contents_value, resource_contents_parts, simplify
from mcp_litellm._core.deprecation import keyword_only
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.uri_template import TemplateError, Variable, expand_template, parse_template

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client


def _heading(kind: str, label: str, uri: str, description: str | None) -> str:
    about = f" ({description})" if description else ""
    return f"{kind} {label} <{uri}>{about}:"


@dataclass(eq=False)
class Resource:
    """A resource the server offers.

    ``content()`` reads it (``str`` for text, ``bytes`` for binary data) and keeps the value until the
    server reports the resource updated (``notifications/resources/updated``, see :meth:`subscribe`)
    or ``refresh=True`` is passed.
    """

    uri: str
    name: str
    client: Client = field(repr=False)
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Any = field(default=None, repr=False)

    async def _content(self, refresh: bool) -> str | bytes:
        return contents_value((await self.client._read(self.uri, refresh)).contents)

    def content(self, refresh: bool = False) -> str | bytes:
        """The resource's content: ``str`` for text, ``bytes`` for blobs (cached; see the class docs)."""
        return run_sync(self._content(refresh))

    async def acontent(self, refresh: bool = False) -> str | bytes:
        """Async twin of :meth:`content`."""
        return await run_async(self._content(refresh))

    async def _to_message(self, refresh: bool) -> dict[str, Any]:
        result = await self.client._read(self.uri, refresh)
        heading = _heading("Resource", self.title or self.name, self.uri, self.description)
        return {"role": "user", "content": simplify(resource_contents_parts(result.contents, heading=heading))}

    def to_message(self, refresh: bool = False) -> dict[str, Any]:
        """A LiteLLM user message with the resource: text, an image part for images, or a note for other binary data."""
        return run_sync(self._to_message(refresh))

    async def ato_message(self, refresh: bool = False) -> dict[str, Any]:
        """Async twin of :meth:`to_message`."""
        return await run_async(self._to_message(refresh))

    def include(self, chat: Any) -> Any:
        """Add this resource to ``chat`` as context (same as ``chat.with_resource(resource)``); returns the chat."""
        return chat.with_resource(self)

    def subscribe(self) -> None:
        """Ask the server to report changes of this resource (``UnsupportedFeature`` if it cannot).

        Each change drops the cached content and calls the client's ``on_resource_updated`` handlers.
        """
        run_sync(self.client._subscription(self.uri, True))

    async def asubscribe(self) -> None:
        """Async twin of :meth:`subscribe`."""
        await run_async(self.client._subscription(self.uri, True))

    def unsubscribe(self) -> None:
        """Stop the updates :meth:`subscribe` asked for."""
        run_sync(self.client._subscription(self.uri, False))

    async def aunsubscribe(self) -> None:
        """Async twin of :meth:`unsubscribe`."""
        await run_async(self.client._subscription(self.uri, False))


@dataclass(eq=False)
class ResourceTemplate:
    """A parameterised resource (an RFC 6570 URI template such as ``logs://{date}/{level}``)."""

    uri_template: str
    name: str
    client: Client = field(repr=False)
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    annotations: Any = field(default=None, repr=False)

    @property
    def variables(self) -> list[str]:
        """The template's variable names, in order (``ConfigError`` for a malformed template)."""
        return [variable.name for variable in self._parsed()]

    def _parsed(self) -> list[Variable]:
        try:
            return parse_template(self.uri_template)
        except TemplateError as exc:
            raise ConfigError(f"resource template {self.name!r} has an invalid URI template "
                              f"{self.uri_template!r}: {exc}") from None

    def expand(self, arguments: Mapping[str, Any] | None = None) -> str:
        """The URI for ``arguments`` (RFC 6570, all four levels: ``{var:3}``, ``{?list*}``, ``{+path}`` ...).

        ``ConfigError`` for a missing variable (query variables ``{?q}``/``{&q}`` may be left out), a value
        that does not fit (a list for a ``:N`` prefix, an object), or a malformed template.
        """
        arguments = dict(arguments or {})
        missing = [v.name for v in self._parsed() if not v.optional and arguments.get(v.name) is None]
        if missing:
            raise ConfigError(f"resource template {self.name!r} ({self.uri_template}) needs "
                              f"{', '.join(repr(m) for m in dict.fromkeys(missing))}; "
                              f"got {sorted(arguments) or 'no arguments'}")
        try:
            return expand_template(self.uri_template, arguments)
        except TemplateError as exc:
            raise ConfigError(f"resource template {self.name!r} ({self.uri_template}): {exc}") from None

    async def _to_content(self, arguments: Mapping[str, Any] | None) -> str | bytes:
        return contents_value((await self.client._read(self.expand(arguments), True)).contents)

    def to_content(self, arguments: Mapping[str, Any] | None = None) -> str | bytes:
        """Expand the template with ``arguments`` and read the result (``str`` for text, ``bytes`` for blobs)."""
        return run_sync(self._to_content(arguments))

    async def ato_content(self, arguments: Mapping[str, Any] | None = None) -> str | bytes:
        """Async twin of :meth:`to_content`."""
        return await run_async(self._to_content(arguments))

    async def _to_message(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        uri = self.expand(arguments)
        result = await self.client._read(uri, True)
        heading = _heading("Resource", self.title or self.name, uri, self.description)
        return {"role": "user", "content": simplify(resource_contents_parts(result.contents, heading=heading))}

    def to_message(self, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Expand, read, and return a LiteLLM user message with the content (like ``Resource.to_message``)."""
        return run_sync(self._to_message(arguments))

    async def ato_message(self, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Async twin of :meth:`to_message`."""
        return await run_async(self._to_message(arguments))

    def include(self, chat: Any, arguments: Mapping[str, Any] | None = None) -> Any:
        """Expand, read and add to ``chat`` as context (same as ``chat.with_resource_template``); returns the chat."""
        return chat.with_resource_template(self, arguments)

    def complete(self, argument: str, value: str, context: Mapping[str, str] | None = None) -> Completion:
        """Values the server suggests for variable ``argument`` starting from ``value``.

        ``context`` holds variables already chosen. ``UnsupportedFeature`` if the server offers no completions.
        """
        return run_sync(self.client._complete(ResourceTemplateReference(type="ref/resource", uri=self.uri_template),
                                              argument, value, context))

    async def acomplete(self, argument: str, value: str, context: Mapping[str, str] | None = None) -> Completion:
        """Async twin of :meth:`complete`."""
        return await run_async(self.client._complete(
            ResourceTemplateReference(type="ref/resource", uri=self.uri_template), argument, value, context))


class ResourcesMixin(ListingMixin):
    """``resources()``, ``resource_templates()``, ``read_resource()`` and friends of :class:`mcp_litellm.Client`."""

    if TYPE_CHECKING:
        async def _complete(self, ref: Any, argument: str, value: str,
                            context: Mapping[str, str] | None) -> Completion: ...
        async def _subscription(self, uri: str, subscribe: bool) -> None: ...
        def _request_meta(self) -> dict[str, Any] | None: ...

    # -- resources ---------------------------------------------------------------------------------------

    async def _list_resources(self, refresh: bool | None) -> list[Resource]:
        def convert(item: Any) -> Resource:
            shown = clean_fields(self.name, "resource", str(item.uri), title=item.title, description=item.description)
            return Resource(uri=str(item.uri), name=item.name, client=self,  # type: ignore[arg-type]
                            mime_type=item.mime_type, size=item.size, annotations=item.annotations, **shown)

        return await self._cached_list("resources", "resources/list", "resources",
                                       lambda c, cursor: c.list_resources(cursor=cursor), convert, refresh)

    @keyword_only("refresh")
    def resources(self, *, refresh: bool = False) -> list[Resource]:
        """The server's resources (fetched once, then cached until ``refresh=True``, a list_changed, or the
        server's ``ttlMs`` runs out)."""
        return run_sync(self._list_resources(refresh))

    @keyword_only("refresh")
    async def aresources(self, *, refresh: bool = False) -> list[Resource]:
        """Async twin of :meth:`resources`."""
        return await run_async(self._list_resources(refresh))

    async def _find_resource(self, name: str, refresh: bool) -> Resource:
        found: Resource = await self._find("resource", name, refresh, self._list_resources,
                                           lambda r: (r.name, r.uri, r.title or r.name))
        return found

    @keyword_only("refresh")
    def resource(self, name: str, *, refresh: bool = False) -> Resource:
        """The resource called ``name`` (or with that uri or title); ``NotFoundError`` if absent."""
        return run_sync(self._find_resource(name, refresh))

    @keyword_only("refresh")
    async def aresource(self, name: str, *, refresh: bool = False) -> Resource:
        """Async twin of :meth:`resource`."""
        return await run_async(self._find_resource(name, refresh))

    async def _read(self, uri: str, refresh: bool) -> ReadResourceResult:
        cache = self._catalog_cache
        if not refresh and uri in cache.contents:
            return cache.contents[uri]
        connection = await self._connected()
        self._require_capability(connection, "resources", "resources")
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
        return run_sync(self._read_value(uri))

    async def aread_resource(self, uri: str) -> str | bytes:
        """Async twin of :meth:`read_resource`."""
        return await run_async(self._read_value(uri))

    # -- templates ---------------------------------------------------------------------------------------

    async def _list_templates(self, refresh: bool | None) -> list[ResourceTemplate]:
        def convert(item: Any) -> ResourceTemplate:
            shown = clean_fields(self.name, "resource template", item.uri_template, title=item.title,
                                 description=item.description)
            return ResourceTemplate(uri_template=item.uri_template, name=item.name, client=self,  # type: ignore[arg-type]
                                    mime_type=item.mime_type, annotations=item.annotations, **shown)

        return await self._cached_list("resource_templates", "resources/templates/list", "resource_templates",
                                       lambda c, cursor: c.list_resource_templates(cursor=cursor), convert, refresh)

    @keyword_only("refresh")
    def resource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        """The server's resource templates (cached like :meth:`resources`)."""
        return run_sync(self._list_templates(refresh))

    @keyword_only("refresh")
    async def aresource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        """Async twin of :meth:`resource_templates`."""
        return await run_async(self._list_templates(refresh))

    async def _find_template(self, name: str, refresh: bool) -> ResourceTemplate:
        found: ResourceTemplate = await self._find("resource template", name, refresh, self._list_templates,
                                                   lambda t: (t.name, t.uri_template, t.title or t.name))
        return found

    @keyword_only("refresh")
    def resource_template(self, name: str, *, refresh: bool = False) -> ResourceTemplate:
        """The template called ``name`` (or with that URI template); ``NotFoundError`` if absent."""
        return run_sync(self._find_template(name, refresh))

    @keyword_only("refresh")
    async def aresource_template(self, name: str, *, refresh: bool = False) -> ResourceTemplate:
        """Async twin of :meth:`resource_template`."""
        return await run_async(self._find_template(name, refresh))
