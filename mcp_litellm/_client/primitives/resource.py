"""Resources and resource templates: reading, subscribing, and LiteLLM user messages; the client's resource
calls are in ``resources``."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from mcp_types import PromptReference, ReadResourceResult, ResourceTemplateReference

from mcp_litellm._client.primitives.prompt import Completion
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._core.content import contents_value, resource_contents_parts, simplify
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.uri_template import TemplateError, Variable, expand_template, parse_template


def _heading(kind: str, label: str, uri: str, description: str | None) -> str:
    about = f" ({description})" if description else ""
    return f"{kind} {label} <{uri}>{about}:"


class ResourceOwner(Protocol):
    """What a :class:`Resource` or :class:`ResourceTemplate` needs of the client it came from (a
    :class:`~mcp_litellm.Client` is one)."""

    def _session_loop(self) -> asyncio.AbstractEventLoop | None: ...

    @property
    def name(self) -> str: ...

    async def _read(self, uri: str, refresh: bool) -> ReadResourceResult: ...
    async def _subscription(self, uri: str, subscribe: bool) -> None: ...
    async def _complete(self, ref: PromptReference | ResourceTemplateReference, argument: str, value: str,
                        context: Mapping[str, str] | None) -> Completion: ...


@dataclass(eq=False)
class Resource:
    """A resource the server offers.

    ``content()`` reads it (``str`` for text, ``bytes`` for binary data) and keeps the value until the
    server reports the resource updated (``notifications/resources/updated``, see :meth:`subscribe`)
    or ``refresh=True`` is passed.
    """

    uri: str
    name: str
    client: ResourceOwner = field(repr=False)
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Any = field(default=None, repr=False)

    async def _content(self, refresh: bool) -> str | bytes:
        return contents_value((await self.client._read(self.uri, refresh)).contents)

    def content(self, refresh: bool = False) -> str | bytes:
        """The resource's content: ``str`` for text, ``bytes`` for blobs (cached; see the class docs)."""
        return run_sync(self._content(refresh), home=self.client._session_loop())

    async def acontent(self, refresh: bool = False) -> str | bytes:
        """Async twin of :meth:`content`."""
        return await run_async(self._content(refresh), home=self.client._session_loop())

    async def _to_message(self, refresh: bool) -> dict[str, Any]:
        result = await self.client._read(self.uri, refresh)
        heading = _heading("Resource", self.title or self.name, self.uri, self.description)
        return {"role": "user", "content": simplify(resource_contents_parts(result.contents, heading=heading))}

    def to_message(self, refresh: bool = False) -> dict[str, Any]:
        """A LiteLLM user message with the resource: text, an image part for images, or a note for other binary data."""
        return run_sync(self._to_message(refresh), home=self.client._session_loop())

    async def ato_message(self, refresh: bool = False) -> dict[str, Any]:
        """Async twin of :meth:`to_message`."""
        return await run_async(self._to_message(refresh), home=self.client._session_loop())

    def include(self, chat: Any) -> Any:
        """Add this resource to ``chat`` as context (same as ``chat.with_resource(resource)``); returns the chat."""
        return chat.with_resource(self)

    def subscribe(self) -> None:
        """Ask the server to report changes of this resource (``UnsupportedFeature`` if it cannot).

        Each change drops the cached content and calls the client's ``on_resource_updated`` handlers.
        """
        run_sync(self.client._subscription(self.uri, True), home=self.client._session_loop())

    async def asubscribe(self) -> None:
        """Async twin of :meth:`subscribe`."""
        await run_async(self.client._subscription(self.uri, True), home=self.client._session_loop())

    def unsubscribe(self) -> None:
        """Stop the updates :meth:`subscribe` asked for."""
        run_sync(self.client._subscription(self.uri, False), home=self.client._session_loop())

    async def aunsubscribe(self) -> None:
        """Async twin of :meth:`unsubscribe`."""
        await run_async(self.client._subscription(self.uri, False), home=self.client._session_loop())


@dataclass(eq=False)
class ResourceTemplate:
    """A parameterised resource (an RFC 6570 URI template such as ``logs://{date}/{level}``)."""

    uri_template: str
    name: str
    client: ResourceOwner = field(repr=False)
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

    def expand(self, arguments: Mapping[str, object] | None = None) -> str:
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

    async def _to_content(self, arguments: Mapping[str, object] | None) -> str | bytes:
        return contents_value((await self.client._read(self.expand(arguments), True)).contents)

    def to_content(self, arguments: Mapping[str, object] | None = None) -> str | bytes:
        """Expand the template with ``arguments`` and read the result (``str`` for text, ``bytes`` for blobs)."""
        return run_sync(self._to_content(arguments), home=self.client._session_loop())

    async def ato_content(self, arguments: Mapping[str, object] | None = None) -> str | bytes:
        """Async twin of :meth:`to_content`."""
        return await run_async(self._to_content(arguments), home=self.client._session_loop())

    async def _to_message(self, arguments: Mapping[str, object] | None) -> dict[str, Any]:
        uri = self.expand(arguments)
        result = await self.client._read(uri, True)
        heading = _heading("Resource", self.title or self.name, uri, self.description)
        return {"role": "user", "content": simplify(resource_contents_parts(result.contents, heading=heading))}

    def to_message(self, arguments: Mapping[str, object] | None = None) -> dict[str, Any]:
        """Expand, read, and return a LiteLLM user message with the content (like ``Resource.to_message``)."""
        return run_sync(self._to_message(arguments), home=self.client._session_loop())

    async def ato_message(self, arguments: Mapping[str, object] | None = None) -> dict[str, Any]:
        """Async twin of :meth:`to_message`."""
        return await run_async(self._to_message(arguments), home=self.client._session_loop())

    def include(self, chat: Any, arguments: Mapping[str, object] | None = None) -> Any:
        """Expand, read and add to ``chat`` as context (same as ``chat.with_resource_template``); returns the chat."""
        return chat.with_resource_template(self, arguments)

    def complete(self, argument: str, value: str, context: Mapping[str, str] | None = None) -> Completion:
        """Values the server suggests for variable ``argument`` starting from ``value``.

        ``context`` holds variables already chosen. ``UnsupportedFeature`` if the server offers no completions.
        """
        ref = ResourceTemplateReference(type="ref/resource", uri=self.uri_template)
        return run_sync(self.client._complete(ref, argument, value, context), home=self.client._session_loop())

    async def acomplete(self, argument: str, value: str, context: Mapping[str, str] | None = None) -> Completion:
        """Async twin of :meth:`complete`."""
        ref = ResourceTemplateReference(type="ref/resource", uri=self.uri_template)
        return await run_async(self.client._complete(ref, argument, value, context), home=self.client._session_loop())


__all__ = ["Resource", "ResourceTemplate"]
