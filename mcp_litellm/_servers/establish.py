"""The deprecated doors to a group: ``establish_connection`` / ``aestablish_connection`` are
``with ClientGroup(...) as group:`` under a second name; they keep working, with a ``DeprecationWarning``."""

from __future__ import annotations

import warnings
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

    Deprecated: it is ``with ClientGroup(source, ...) as group:`` under a second name (a
    ``DeprecationWarning`` says so); ``strict`` is keyword-only, as for ``ClientGroup``.

    ``source`` is a config file path, a config mapping, ``load_config``'s result, or clients.
    ``options`` are those of :class:`ClientGroup` (``with_prefix``, ``servers``, client options)::

        with ml.establish_connection("mcp.json") as clients:
            chat = ml.Chat(model="gpt-4o-mini").with_tools(*clients.tools())
    """
    _deprecated("establish_connection", "with")
    group = _group(source, strict, options)
    with group:
        yield group


@asynccontextmanager
@keyword_only("strict")
async def aestablish_connection(
    source: GroupSource | ClientGroup, *, strict: bool = True, **options: Any
) -> AsyncIterator[ClientGroup]:
    """Async twin of :func:`establish_connection` (deprecated: ``async with ClientGroup(...) as group:``)."""
    _deprecated("aestablish_connection", "async with")
    group = _group(source, strict, options)
    async with group:
        yield group


def _deprecated(name: str, block: str) -> None:
    warnings.warn(f"{name}(source, ...) is deprecated; write {block} ClientGroup(source, ...) as group: "
                  "(the same group, started and stopped by the block)", DeprecationWarning, stacklevel=4)
