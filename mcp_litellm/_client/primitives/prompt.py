"""A server's prompts (rendering to LiteLLM messages) and argument completions; the client's prompt calls are in
``prompts``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from mcp_types import PromptReference, ResourceTemplateReference

from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._core.content import prompt_message
from mcp_litellm._core.errors import ConfigError


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


def _argument_text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


class PromptOwner(Protocol):
    """What a :class:`Prompt` needs of the client it came from (a :class:`~mcp_litellm.Client` is one)."""

    def _session_loop(self) -> asyncio.AbstractEventLoop | None: ...

    @property
    def name(self) -> str: ...

    async def _get_prompt(self, name: str, arguments: dict[str, str]) -> Any: ...
    async def _complete(self, ref: PromptReference | ResourceTemplateReference, argument: str, value: str,
                        context: Mapping[str, str] | None) -> Completion: ...


@dataclass(eq=False)
class Prompt:
    """A prompt template the server offers; :meth:`messages` renders it as LiteLLM messages."""

    name: str
    client: PromptOwner = field(repr=False)
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] = field(default_factory=list)

    def _check(self, arguments: Mapping[str, object] | None) -> dict[str, str]:
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

    async def _messages(self, arguments: Mapping[str, object] | None) -> list[dict[str, Any]]:
        checked = self._check(arguments)
        result = await self.client._get_prompt(self.name, checked)
        return [prompt_message(m.role, m.content) for m in result.messages]

    def messages(self, arguments: Mapping[str, object] | None = None) -> list[dict[str, Any]]:
        """The prompt rendered with ``arguments`` as LiteLLM messages.

        Text stays text; images become ``image_url`` parts (audio ``input_audio``) of user messages;
        embedded resources become their text (an image part for images, a note for other binary
        data). A missing required argument (or an unknown one) raises ``ConfigError`` before any
        request; non-string values are sent as JSON text.
        """
        return run_sync(self._messages(arguments), home=self.client._session_loop())

    async def amessages(self, arguments: Mapping[str, object] | None = None) -> list[dict[str, Any]]:
        """Async twin of :meth:`messages`."""
        return await run_async(self._messages(arguments), home=self.client._session_loop())

    def include(self, chat: Any, arguments: Mapping[str, object] | None = None) -> Any:
        """Append this prompt's messages to ``chat`` (same as ``chat.with_prompt(prompt, arguments)``)."""
        return chat.with_prompt(self, arguments)

    def complete(self, argument: str, value: str, context: Mapping[str, str] | None = None) -> Completion:
        """Values the server suggests for ``argument`` starting from ``value`` (``context``: arguments already chosen).

        ``UnsupportedFeature`` if the server offers no completions.
        """
        return run_sync(self.client._complete(PromptReference(type="ref/prompt", name=self.name),
                                              argument, value, context), home=self.client._session_loop())

    async def acomplete(self, argument: str, value: str, context: Mapping[str, str] | None = None) -> Completion:
        """Async twin of :meth:`complete`."""
        return await run_async(self.client._complete(PromptReference(type="ref/prompt", name=self.name),
                                                     argument, value, context), home=self.client._session_loop())


__all__ = ["Completion", "Prompt", "PromptArgument", "PromptOwner"]
