"""The tool list of a group: every server's tools under names unique in the group, then the caller's
``include`` / ``exclude`` filters.

A tool keeps its own name unless another server offers the same one; then both get their server's
prefix (``"{server}__{tool}"``), or a ``ConfigError`` when prefixes are turned off for one of them
(``with_prefix=False``). Names that still clash after prefixing (server ``a``'s tool ``b__c`` and server
``a__b``'s tool ``c``) are told apart with a short hash. The filters are tool names or globs, matched as
``_core.naming.tool_matches`` does (``"{server}__{glob}"`` included).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.naming import hashed_name, safe_tool_name, tool_matches

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client
    from mcp_litellm._client.primitives.tool import Tool

logger = logging.getLogger("mcp_litellm")

__all__ = ["merge_tools"]


def merge_tools(listed: Iterable[tuple[Client, list[Tool]]], prefixes: Mapping[str, str],
                prefix_mode: Callable[[Client], bool | None], include: Sequence[str] | None,
                exclude: Sequence[str] | None) -> list[Tool]:
    """The servers' tools (``listed``, in server order) as one list with unique names, filtered.

    ``prefixes`` maps each server to its distinct prefix in the group; ``prefix_mode(client)`` is ``True``
    (always prefix), ``False`` (never: a collision is an error) or ``None`` (prefix on collision).
    """
    entries: list[_Entry] = []
    for client, tools in listed:
        mode = prefix_mode(client)
        prefix = prefixes[client.name]
        for tool in tools:  # a client from a config already left out the tools its config excludes
            prefixed = _prefixed(tool, prefix)
            entries.append(_Entry(tool, prefixed if mode or client.with_prefix else tool.name, mode, prefixed))
    merged = [tool if tool.name == name else dataclasses.replace(tool, name=name)
              for tool, name in _resolve_collisions(entries)]
    if include is not None:
        include = _patterns("include", include)
        merged = [t for t in merged if tool_matches(include, t.client.name, t.name, t.mcp_name)]
    if exclude is not None:
        exclude = _patterns("exclude", exclude)
        merged = [t for t in merged if not tool_matches(exclude, t.client.name, t.name, t.mcp_name)]
    return merged


def _patterns(what: str, patterns: Sequence[str]) -> list[str]:
    if isinstance(patterns, str):
        return [patterns]
    if not all(isinstance(p, str) for p in patterns):
        raise ConfigError(f"{what} must be a list of tool names or globs")
    return list(patterns)


class _Entry(NamedTuple):
    """A tool on its way into the group's list: its name so far, its server's prefix mode, its prefixed name."""

    tool: Tool
    name: str
    mode: bool | None
    prefixed: str


def _resolve_collisions(entries: list[_Entry]) -> list[tuple[Tool, str]]:
    servers_by_name: dict[str, set[str]] = {}
    for entry in entries:
        servers_by_name.setdefault(entry.name, set()).add(entry.tool.client.name)
    resolved = []
    for tool, name, mode, prefixed in entries:
        servers = servers_by_name[name]
        if len(servers) > 1 and name != prefixed:
            if mode is False:
                others = ", ".join(repr(s) for s in sorted(servers - {tool.client.name}))
                raise ConfigError(
                    f"tool name {name!r} of server {tool.client.name!r} is also offered by server(s) {others}, "
                    "and prefixes are turned off for it (with_prefix=False); enable with_prefix or exclude one tool"
                )
            name = prefixed
        resolved.append((tool, name))
    return _separate_clashes(resolved)


def _separate_clashes(resolved: list[tuple[Tool, str]]) -> list[tuple[Tool, str]]:
    """Names that two servers' tools still share after prefixing clash by construction (server ``a``'s tool
    ``b__c`` and server ``a__b``'s tool ``c`` both become ``a__b__c``). The tool of the server whose name is
    the whole prefix keeps the name; the others get a short hash of their server and tool, so every tool
    stays reachable and the other servers' names do not change."""
    by_name: dict[str, list[Tool]] = {}
    for tool, name in resolved:
        by_name.setdefault(name, []).append(tool)
    renamed: dict[int, str] = {}
    for name, tools in by_name.items():
        if len(tools) < 2:
            continue
        keeper = max(tools, key=lambda tool: (len(tool.client.name), tool.client.name))
        for tool in tools:
            if tool is not keeper:
                renamed[id(tool)] = hashed_name(name, f"{tool.client.name}\0{tool.mcp_name}")
                logger.info("tool %r of server %r would be named %r like tool %r of server %r; it is %r instead",
                            tool.mcp_name, tool.client.name, name, keeper.mcp_name, keeper.client.name,
                            renamed[id(tool)])
    return [(tool, renamed.get(id(tool), name)) for tool, name in resolved]


def _prefixed(tool: Tool, prefix: str) -> str:
    """The tool's name with ``prefix``, its server's distinct prefix in the group."""
    if tool.client.with_prefix:  # the client prefixed it with its own name already
        if prefix == safe_tool_name(tool.client.name):
            return tool.name
        return safe_tool_name(tool.mcp_name, prefix)
    if tool.name == safe_tool_name(tool.mcp_name):
        return safe_tool_name(tool.mcp_name, prefix)
    return safe_tool_name(tool.name, prefix)  # a name made distinct on its own server
