"""Which server of a group owns a resource URI: one decision for ``ClientGroup.read_resource`` and the
command line's ``read``.

A server that lists the URI owns it; failing that, a server with a resource template the URI fits
(RFC 6570, ``_core.uri_template``). When several servers qualify, the read is ambiguous and raises
``ConfigError`` naming them (reading from an arbitrary one could return another server's data). A
URI no server lists or fits is still tried on the one server that offers resources, when there is
just one (servers need not list everything); otherwise it is ``NotFoundError``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, NotFoundError
from mcp_litellm._core.uri_template import template_matches

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client

logger = logging.getLogger("mcp_litellm")

__all__ = ["find_one", "offers", "resource_owner"]

_Item = TypeVar("_Item")


def offers(client: Client, capability: str) -> bool:
    """Whether the server advertised ``capability`` (``True`` when unknown: the call then reports)."""
    try:
        capabilities = client.capabilities
    except MCPLiteLLMError:
        return True
    return getattr(capabilities, capability, None) is not None


def _distinct(clients: Iterable[Client]) -> list[Client]:
    return list({id(client): client for client in clients}.values())


def resource_owner(uri: str, resources: Sequence[Any], templates: Sequence[Any], clients: Iterable[Client], *,
                   choose: str) -> tuple[Client, bool]:
    """The client to read ``uri`` from, and whether a server lists it (as a resource or a template fit).

    ``resources``/``templates`` are the group's merged lists (each item keeps its ``client``); ``clients``
    the running servers; ``choose`` tells the caller how to pick one server when several qualify.
    """
    offering = _distinct(r.client for r in resources if str(r.uri) == uri)
    if not offering:
        offering = _distinct(t.client for t in templates if template_matches(str(t.uri_template), uri))
    if len(offering) > 1:
        servers = ", ".join(repr(client.name) for client in offering)
        raise ConfigError(f"resource {uri!r} is offered by several servers ({servers}); {choose}")
    if offering:
        return offering[0], True
    readable = [client for client in clients if offers(client, "resources")]
    if len(readable) == 1:
        return readable[0], False
    raise NotFoundError("resource", uri, [str(r.uri) for r in resources] + [str(t.uri_template) for t in templates])


async def find_one(clients: Iterable[Client], find: Callable[[Client], Awaitable[_Item]], what: str, capability: str,
                   name: str, *, strict: bool, listed: Callable[[], Awaitable[Sequence[object]]]) -> _Item:
    """The one server's ``what`` (a resource, a prompt) that ``find`` finds by ``name``, for ``group.resource()``
    and ``group.prompt()``: ``NotFoundError`` (naming what ``listed()`` lists) when no server has it,
    ``ConfigError`` naming the servers when several do. A server that fails to answer raises (``strict``) or
    is logged and passed over."""
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{what}() needs a name (a non-empty str), got {type(name).__name__}")
    found: list[tuple[Client, _Item]] = []
    for client in [c for c in clients if offers(c, capability)]:
        try:
            found.append((client, await find(client)))
        except NotFoundError:
            continue
        except MCPLiteLLMError as exc:
            if strict:
                raise
            logger.warning("looking up %s %r on server %r failed: %s", what, name, client.name, exc)
    if len(found) == 1:
        return found[0][1]
    if found:
        servers = ", ".join(repr(client.name) for client, _ in found)
        raise ConfigError(f"{what} {name!r} is offered by several servers ({servers}); "
                          f"ask one of them: group[server].{what}({name!r})")
    raise NotFoundError(what, name, [str(getattr(item, "name", "")) for item in await listed()])
