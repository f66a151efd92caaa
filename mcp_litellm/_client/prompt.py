"""Prompts (listing, rendering to LiteLLM messages) and argument completion."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp_types import PromptReference

from mcp_litellm._client.listing import ListingMixin
from mcp_litellm._client.loop import run_async, run_sync
from mcp_litellm._core.clean_text import clean_fields
from mcp_litellm._core.content import prompt_message
from mcp_litellm._core.deprecation import keyword_only
from mcp_litellm._core.errors import ConfigError, UnsupportedFeature

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client


@dataclass(frozen=True)
class Completion:
    """Suggested values for an argument of a prompt or resource template.

    Attributes:
        values: the suggestions (at most 100, as the server sent them).
        total: how many suggestions exist in all, if the server said.
        has_more: True when there are more suggestions than ``values``.
    """

    values: list[str]
    total: int | None = None
    has_more: bool = False


@dataclass(frozen=True)
class PromptArgument:
    """One argument of a :class:`Prompt`."""

    name: str
    description: str | None = None
    required: bool = False


def _argument_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


@dataclass(eq=False)
class Prompt:
    """A prompt template the server offers; :meth:`messages` renders it as LiteLLM messages."""

    name: str
    client: Client = field(repr=False)
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] = field(default_factory=list)

    def _check(self, arguments: Mapping[str, Any] | None) -> dict[str, str]:
        if arguments is not None and not isinstance(arguments, Mapping):
            raise ConfigError(f"prompt arguments must be a mapping, got {type(arguments).__name__}")
        given = {str(k): v for k, v in (arguments or {}).items() if v is not None}
        missing = [a.name for a in self.arguments if a.required and a.name not in given]
        if missing:
            raise ConfigError(f"prompt {self.name!r} needs argument(s) {', '.join(repr(m) for m in missing)}"
                              f" ({self._signature()})")
        known = {a.name for a in self.arguments}
        unknown = sorted(set(given) - known)
        if unknown:
            raise ConfigError(f"prompt {self.name!r} has no argument(s) {', '.join(repr(u) for u in unknown)}"
                              f" ({self._signature()})")
        return {k: _argument_text(v) for k, v in given.items()}

    def _signature(self) -> str:
        if not self.arguments:
            return "it takes no arguments"
        return "arguments: " + ", ".join(f"{a.name}{'' if a.required else '?'}" for a in self.arguments)

    async def _messages(self, arguments: Mapping[str, Any] | None) -> list[dict[str, Any]]:
        checked = self._check(arguments)
        result = await self.client._get_prompt(self.name, checked)
        return [prompt_message(m.role, m.content) for m in result.messages]

    def messages(self, arguments: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """The prompt rendered with ``arguments`` as LiteLLM messages.

        Text stays text; images become ``image_url`` parts (audio ``input_audio``) of user messages;
        embedded resources become their text (an image part for images, a note for other binary
        data). A missing required argument (or an unknown one) raises ``ConfigError`` before any
        request; non-string values are sent as JSON text.
        """
        return run_sync(self._messages(arguments))

    async def amessages(self, arguments: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Async twin of :meth:`messages`."""
        return await run_async(self._messages(arguments))

    def include(self, chat: Any, arguments: Mapping[str, Any] | None = None) -> Any:
        """Append this prompt's messages to ``chat`` (same as ``chat.with_prompt(prompt, arguments)``)."""
        return chat.with_prompt(self, arguments)

    def complete(self, argument: str, value: str, context: Mapping[str, str] | None = None) -> Completion:
        """Values the server suggests for ``argument`` starting from ``value`` (``context``: arguments already chosen).

        ``UnsupportedFeature`` if the server offers no completions.
        """
        return run_sync(self.client._complete(PromptReference(type="ref/prompt", name=self.name),
                                              argument, value, context))

    async def acomplete(self, argument: str, value: str, context: Mapping[str, str] | None = None) -> Completion:
        """Async twin of :meth:`complete`."""
        return await run_async(self.client._complete(PromptReference(type="ref/prompt", name=self.name),
                                                     argument, value, context))


class PromptsMixin(ListingMixin):
    """``prompts()``, ``prompt()`` and completion requests of :class:`mcp_litellm.Client`."""

    if TYPE_CHECKING:
        def _request_meta(self) -> dict[str, Any] | None: ...

    async def _list_prompts(self, refresh: bool | None) -> list[Prompt]:
        def convert(item: Any) -> Prompt:
            shown = clean_fields(self.name, "prompt", item.name, title=item.title, description=item.description,
                                 arguments=[(a.description, bool(a.required)) for a in item.arguments or []])
            arguments = [PromptArgument(a.name, description, required) for a, (description, required)
                         in zip(item.arguments or [], shown.pop("arguments"), strict=True)]
            return Prompt(name=item.name, client=self, arguments=arguments, **shown)  # type: ignore[arg-type]

        return await self._cached_list("prompts", "prompts/list", "prompts",
                                       lambda c, cursor: c.list_prompts(cursor=cursor), convert, refresh)

    @keyword_only("refresh")
    def prompts(self, *, refresh: bool = False) -> list[Prompt]:
        """The server's prompts (fetched once, then cached until ``refresh=True``, a list_changed, or the
        server's ``ttlMs`` runs out)."""
        return run_sync(self._list_prompts(refresh))

    @keyword_only("refresh")
    async def aprompts(self, *, refresh: bool = False) -> list[Prompt]:
        """Async twin of :meth:`prompts`."""
        return await run_async(self._list_prompts(refresh))

    async def _find_prompt(self, name: str, refresh: bool) -> Prompt:
        found: Prompt = await self._find("prompt", name, refresh, self._list_prompts)
        return found

    @keyword_only("refresh")
    def prompt(self, name: str, *, refresh: bool = False) -> Prompt:
        """The prompt called ``name``; ``NotFoundError`` if absent."""
        return run_sync(self._find_prompt(name, refresh))

    @keyword_only("refresh")
    async def aprompt(self, name: str, *, refresh: bool = False) -> Prompt:
        """Async twin of :meth:`prompt`."""
        return await run_async(self._find_prompt(name, refresh))

    async def _get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        connection = await self._connected()
        self._require_capability(connection, "prompts", "prompts")
        meta = self._request_meta()
        return await connection.request("prompts/get", lambda c: c.get_prompt(name, arguments, meta=meta),  # type: ignore[arg-type]
                                        self._timeout(None))

    async def _complete(self, ref: Any, argument: str, value: str, context: Mapping[str, str] | None) -> Completion:
        connection = await self._connected()
        if connection.client.server_capabilities.completions is None:
            raise UnsupportedFeature(f"server {self.name!r} does not offer argument completion")
        if not isinstance(argument, str) or not isinstance(value, str):
            raise ConfigError("complete() takes the argument name and the partial value as strings")
        context_arguments = {str(k): _argument_text(v) for k, v in (context or {}).items()} or None

        async def call(client: Any) -> Any:
            return await client.complete(ref, {"name": argument, "value": value}, context_arguments)

        result = await connection.request("completion/complete", call, self._timeout(None))
        completion = result.completion
        return Completion(values=list(completion.values), total=completion.total, has_more=bool(completion.has_more))


__all__ = ["Completion", "Prompt", "PromptArgument", "PromptsMixin"]
