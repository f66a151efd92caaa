"""``Prompts``: a client's prompts, listed, found and got, and argument completion (the :class:`Prompt` objects are
in ``primitives/prompt``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import mcp_types

from mcp_litellm._client.cached_lists import Listings
from mcp_litellm._client.primitives.prompt import Completion, Prompt, PromptArgument, PromptOwner, _argument_text
from mcp_litellm._client.session.owner import SessionOwner
from mcp_litellm._core.clean_text import clean_fields
from mcp_litellm._core.errors import ConfigError, UnsupportedFeature

if TYPE_CHECKING:
    import mcp


class Prompts:
    """The prompts of one client's server and its argument completion (``client.prompts()`` and friends).

    Built with what it needs: the client the prompts belong to (``owner``), the session's owner, the cached
    listings, the ``_meta`` stamped on a request and the client's ``timeout`` rule.
    """

    def __init__(self, owner: PromptOwner, session: SessionOwner, *, listings: Listings,
                 meta: Callable[[], dict[str, Any] | None], timeout: Callable[[float | None], float]) -> None:
        self._owner = owner
        self._session = session
        self._listings = listings
        self._meta = meta
        self._timeout = timeout

    async def list_prompts(self, refresh: bool | None) -> list[Prompt]:
        def convert(item: mcp_types.Prompt) -> Prompt:
            shown = clean_fields(self._owner.name, "prompt", item.name, title=item.title, description=item.description,
                                 arguments=[(a.description, bool(a.required)) for a in item.arguments or []])
            arguments = [PromptArgument(a.name, description, required) for a, (description, required)
                         in zip(item.arguments or [], shown.pop("arguments"), strict=True)]
            return Prompt(name=item.name, client=self._owner, arguments=arguments, **shown)

        return await self._listings.fetch("prompts", "prompts/list", "prompts",
                                       lambda c, cursor: c.list_prompts(cursor=cursor), convert, refresh)

    async def find_prompt(self, name: str, refresh: bool) -> Prompt:
        found: Prompt = await self._listings.find("prompt", name, refresh, self.list_prompts)
        return found

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        connection = await self._session.connected()
        self._listings.require_capability(connection, "prompts", "prompts")
        meta = self._meta()
        return await connection.request("prompts/get", lambda c: c.get_prompt(name, arguments, meta=meta),  # type: ignore[arg-type]
                                        self._timeout(None))

    async def complete(self, ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference,
                        argument: str, value: str, context: Mapping[str, str] | None) -> Completion:
        connection = await self._session.connected()
        if connection.client.server_capabilities.completions is None:
            raise UnsupportedFeature(f"server {self._owner.name!r} does not offer argument completion")
        if not isinstance(argument, str) or not isinstance(value, str):
            raise ConfigError("complete() takes the argument name and the partial value as strings")
        context_arguments = {str(k): _argument_text(v) for k, v in (context or {}).items()} or None

        async def call(client: mcp.Client) -> Any:
            return await client.complete(ref, {"name": argument, "value": value}, context_arguments)

        result = await connection.request("completion/complete", call, self._timeout(None))
        completion = result.completion
        return Completion(values=list(completion.values), total=completion.total, has_more=bool(completion.has_more))


__all__ = ["Prompts"]
