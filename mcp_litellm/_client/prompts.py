"""``prompts()``, ``prompt()`` and argument completion of a client (the :class:`Prompt` objects are in ``prompt``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types

from mcp_litellm._client.core import ClientCore
from mcp_litellm._client.primitives.prompt import Completion, Prompt, PromptArgument, _argument_text
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._core.clean_text import clean_fields
from mcp_litellm._core.deprecation import keyword_only
from mcp_litellm._core.errors import ConfigError, UnsupportedFeature

if TYPE_CHECKING:
    import mcp


class PromptsMixin(ClientCore):
    """``prompts()``, ``prompt()`` and completion requests of :class:`mcp_litellm.Client`."""


    async def _list_prompts(self, refresh: bool | None) -> list[Prompt]:
        def convert(item: mcp_types.Prompt) -> Prompt:
            shown = clean_fields(self.name, "prompt", item.name, title=item.title, description=item.description,
                                 arguments=[(a.description, bool(a.required)) for a in item.arguments or []])
            arguments = [PromptArgument(a.name, description, required) for a, (description, required)
                         in zip(item.arguments or [], shown.pop("arguments"), strict=True)]
            return Prompt(name=item.name, client=self, arguments=arguments, **shown)

        return await self._listings.fetch("prompts", "prompts/list", "prompts",
                                       lambda c, cursor: c.list_prompts(cursor=cursor), convert, refresh)

    @keyword_only("refresh")
    def prompts(self, *, refresh: bool = False) -> list[Prompt]:
        """The server's prompts (fetched once, then cached until ``refresh=True``, a list_changed, or the
        server's ``ttlMs`` runs out)."""
        return run_sync(self._list_prompts(refresh), home=self._session_loop())

    @keyword_only("refresh")
    async def aprompts(self, *, refresh: bool = False) -> list[Prompt]:
        """Async twin of :meth:`prompts`."""
        return await run_async(self._list_prompts(refresh), home=self._session_loop())

    async def _find_prompt(self, name: str, refresh: bool) -> Prompt:
        found: Prompt = await self._listings.find("prompt", name, refresh, self._list_prompts)
        return found

    @keyword_only("refresh")
    def prompt(self, name: str, *, refresh: bool = False) -> Prompt:
        """The prompt called ``name``; ``NotFoundError`` if absent."""
        return run_sync(self._find_prompt(name, refresh), home=self._session_loop())

    @keyword_only("refresh")
    async def aprompt(self, name: str, *, refresh: bool = False) -> Prompt:
        """Async twin of :meth:`prompt`."""
        return await run_async(self._find_prompt(name, refresh), home=self._session_loop())

    async def _get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        connection = await self._connected()
        self._listings.require_capability(connection, "prompts", "prompts")
        meta = self._request_meta()
        return await connection.request("prompts/get", lambda c: c.get_prompt(name, arguments, meta=meta),  # type: ignore[arg-type]
                                        self._timeout(None))

    async def _complete(self, ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference,
                        argument: str, value: str, context: Mapping[str, str] | None) -> Completion:
        connection = await self._connected()
        if connection.client.server_capabilities.completions is None:
            raise UnsupportedFeature(f"server {self.name!r} does not offer argument completion")
        if not isinstance(argument, str) or not isinstance(value, str):
            raise ConfigError("complete() takes the argument name and the partial value as strings")
        context_arguments = {str(k): _argument_text(v) for k, v in (context or {}).items()} or None

        async def call(client: mcp.Client) -> Any:
            return await client.complete(ref, {"name": argument, "value": value}, context_arguments)

        result = await connection.request("completion/complete", call, self._timeout(None))
        completion = result.completion
        return Completion(values=list(completion.values), total=completion.total, has_more=bool(completion.has_more))


__all__ = ["PromptsMixin"]
