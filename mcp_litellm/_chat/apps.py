"""MCP Apps in a chat: the :class:`AppView` a turn carries when a tool with an interface ran.

A host renders the view where the call happened: ``view.to_dict()`` is what its page needs (the tool's
input and its MCP-shaped result); :meth:`~mcp_litellm.Client.read_ui` gives the HTML of
``view.resource_uri``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from mcp_litellm._client.primitives.tool import Tool
from mcp_litellm._client.primitives.tool_result import ToolResult


def result_dict(result: ToolResult) -> dict[str, object]:
    """``result`` as an MCP ``CallToolResult`` (``content``, ``structuredContent``, ``isError``), JSON-safe."""
    shaped: dict[str, object] = {"content": [block.model_dump(by_alias=True, mode="json", exclude_none=True)
                                          for block in result.content],
                              "isError": result.is_error}
    if result.structured is not None:
        shaped["structuredContent"] = result.structured
    return shaped


@dataclass(frozen=True)
class AppView:
    """A tool call whose tool has an interface (MCP Apps), as a host shows it.

    ``tool_call_id``: the model's call id; ``server``: the server the app belongs to (its calls go there);
    ``tool``: the server's name of the tool; ``resource_uri``: the ``ui://`` resource of the interface;
    ``input``: the call's arguments; ``result``: what the tool returned.
    """

    tool_call_id: str
    server: str
    tool: str
    resource_uri: str
    input: Mapping[str, object] = field(default_factory=dict)
    result: ToolResult | None = None

    def to_dict(self) -> dict[str, object]:
        """A JSON-safe dict for a web page: ``toolCallId``, ``server``, ``tool``, ``resourceUri``, ``input``,
        and ``result`` shaped as MCP's ``CallToolResult`` (``content``, ``structuredContent``, ``isError``)."""
        return {"toolCallId": self.tool_call_id, "server": self.server, "tool": self.tool,
                "resourceUri": self.resource_uri, "input": dict(self.input),
                "result": result_dict(self.result) if self.result is not None else None}


def app_view(tool: object, call_id: str, arguments: str | Mapping[str, object] | None,
             result: ToolResult) -> AppView | None:
    """The :class:`AppView` of a call of ``tool`` (``arguments``: as the model sent them); ``None`` when the
    tool has no interface, or its client was made without ``apps=True``."""
    if not isinstance(tool, Tool) or tool.ui is None or not tool.ui.resource_uri:
        return None
    if getattr(tool.client, "apps", False) is not True:  # a client that did not ask for apps shows none
        return None
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            arguments = {}
    given = dict(arguments) if isinstance(arguments, Mapping) else {}
    return AppView(tool_call_id=call_id, server=tool.server, tool=tool.mcp_name, resource_uri=tool.ui.resource_uri,
                   input=given, result=result)


__all__ = ["AppView", "app_view", "result_dict"]
