"""``establish_connection`` / ``aestablish_connection``: the reference design's entry point
(RubyLLM::MCP.establish_connection), a block around ``ClientGroup(...)``: ``with establish_connection(src)`` is
``with ClientGroup(src)``. Kept, not deprecated: it is the name users of the reference design look for, and the
README's first example."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from mcp_litellm._core.deprecation import keyword_only
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._servers.group import ClientGroup, GroupSource

__all__ = ["aestablish_connection", "establish_connection"]


def _group(source: GroupSource | ClientGroup, strict: bool, options: dict[str, Any]) -> ClientGroup:
    if isinstance(source, ClientGroup):
        if options or not strict:
            raise ConfigError("pass options when creating the ClientGroup, not with an existing group")
        return source
    return ClientGroup(source, strict=strict, **options)


@contextmanager
@keyword_only("strict")
def establish_connection(
    source: GroupSource | ClientGroup, *, strict: bool = True, **options: Any
) -> Iterator[ClientGroup]:
    """Start a :class:`ClientGroup` for ``source`` and stop all its servers when the block ends.

    The same as ``with ClientGroup(source, ...) as group:``; ``strict`` is keyword-only, as for ``ClientGroup``.

    ``source`` is a config file path, a config mapping, ``load_config``'s result, or clients.
    ``options`` are those of :class:`ClientGroup` (``with_prefix``, ``servers``, client options)::

        with ml.establish_connection("mcp.json") as clients:
            chat = ml.Chat(model="gpt-4o-mini").with_tools(*clients.tools())
    """
    group = _group(source, strict, options)
    with group:
        yield group


@asynccontextmanager
@keyword_only("strict")
async def aestablish_connection(
    source: GroupSource | ClientGroup, *, strict: bool = True, **options: Any
) -> AsyncIterator[ClientGroup]:
    """Async twin of :func:`establish_connection` (``async with ClientGroup(...) as group:``)."""
    group = _group(source, strict, options)
    async with group:
        yield group

