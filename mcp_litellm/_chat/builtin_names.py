"""The names a chat offers its built-in tools under, when a tool of the chat already has one of them.

The chat adds tools of its own: ``search_tools`` (tool search's catalog), ``read_result`` (reading on in a
cut result) and ``run_code`` (code mode). A server may have a tool of the same name (fastmcp's stock
``BM25SearchTransform`` gives servers a ``search_tools``); the user does not own it and cannot rename it.
So the chat's tool gives way, by one rule for every built-in: it keeps its name while no tool of the chat
has it, and is otherwise offered as ``mcp_litellm_<name>`` (``mcp_litellm_<name>_2``, ``_3``, ... should
that be taken too). The tool of that name keeps it and gets the calls to it; the built-in's definition,
description and answers use the name it was offered under, and one WARNING says so, once per chat. A
code-mode program follows the same rule: a tool whose Python name is ``search_tools`` keeps it, and the
program's own search is then ``mcp_litellm_search_tools``.
"""

from __future__ import annotations

import logging
from collections.abc import Container
from dataclasses import dataclass
from typing import Any

from mcp_litellm._chat.toolbox import ToolBox, server_of
from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._client.primitives.toolset import DefinedTool

__all__ = ["BUILTIN_TOOLS", "READ_RESULT_TOOL", "RENAMED_PREFIX", "RUN_CODE", "SEARCH_TOOL", "BuiltinNames",
           "BuiltinTool", "builtin_name", "text_result"]

logger = logging.getLogger("mcp_litellm")

SEARCH_TOOL = "search_tools"
READ_RESULT_TOOL = "read_result"
RUN_CODE = "run_code"
BUILTIN_TOOLS = (SEARCH_TOOL, READ_RESULT_TOOL, RUN_CODE)
RENAMED_PREFIX = "mcp_litellm_"


def builtin_name(builtin: str, taken: Container[str]) -> str:
    """The name built-in tool ``builtin`` is offered under when the chat's tools have the names ``taken``:
    its own, else ``mcp_litellm_<builtin>``, else that with ``_2``, ``_3``, ... (the first one free)."""
    if builtin not in taken:
        return builtin
    name, number = RENAMED_PREFIX + builtin, 2
    while name in taken:
        name, number = f"{RENAMED_PREFIX}{builtin}_{number}", number + 1
    return name


class BuiltinNames:
    """Per chat: the name each built-in tool is offered under (for the chat's current tools), which built-in
    an offered name stands for, and the one warning per renamed built-in."""

    def __init__(self, tools: ToolBox) -> None:
        self.tools = tools
        self._names: tuple[int, dict[str, str]] | None = None  # per toolbox version: built-in -> offered name
        self._warned: set[tuple[str, str]] = set()

    def _current(self) -> dict[str, str]:
        if self._names is None or self._names[0] != self.tools.version:
            taken = set(self.tools.names)
            self._names = (self.tools.version, {b: builtin_name(b, taken) for b in BUILTIN_TOOLS})
        return self._names[1]

    def name(self, builtin: str) -> str:
        """The name ``builtin`` is offered under (its own unless a tool of the chat has it)."""
        return self._current()[builtin]

    def builtin(self, name: str) -> str | None:
        """The built-in tool offered as ``name``, or ``None`` (a tool of the chat, or no tool)."""
        for builtin, offered in self._current().items():
            if offered == name:
                return builtin
        return None

    def offered(self, builtin: str) -> str:
        """:meth:`name`, for a definition going to the model: the first time a built-in is offered under
        another name (for a given clash) the log says which tool has its name and what it is called."""
        name = self.name(builtin)
        if name != builtin and (builtin, name) not in self._warned:
            self._warned.add((builtin, name))
            tool = self.tools.get(builtin)
            server = server_of(tool) if tool is not None else ""
            owner = f"tool {builtin!r} of server {server!r}" if server else f"the local tool {builtin!r}"
            logger.warning("%s has the name of a built-in tool of the chat: the chat offers its own %r to the "
                           "model as %r, and calls to %r go to the %s", owner, builtin, name, builtin,
                           f"server {server!r}" if server else "local tool")
        return name


@dataclass(frozen=True)
class BuiltinTool(DefinedTool):
    """A built-in tool of the chat as its wrapper lists it (a :class:`~mcp_litellm._client.primitives.toolset.ToolDef`):
    its LiteLLM definition, under the name it is offered as."""

    definition: dict[str, Any]

    def renamed(self, name: str) -> BuiltinTool:
        """The same tool offered as ``name``."""
        return BuiltinTool(self.definition_named(name))


def text_result(text: str, name: str, *, error: bool = False) -> ToolResult:
    """A built-in tool's answer: ``text`` (an error when ``error``)."""
    from mcp_types import TextContent

    return ToolResult(content=[TextContent(type="text", text=text)], is_error=error, tool_name=name)
