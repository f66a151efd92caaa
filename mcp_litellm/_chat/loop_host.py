"""What the hosted MCP path (``hosted_mcp.py``'s ``HostedStep``) reads of the chat it runs, as a Protocol (a
:class:`Chat` is one). The tool loop itself takes its dependencies explicitly; this stays only until the
hosted path joins the loop."""

from __future__ import annotations

from typing import Protocol

from mcp_litellm._chat.chat_tools import ChatTools
from mcp_litellm._chat.hooks import ChatView, Hooks
from mcp_litellm._chat.hosted_server import HostedServer
from mcp_litellm._chat.toolbox import ToolBox


class LoopHost(ChatView, Protocol):
    """What the hosted MCP path reads of the chat (a :class:`Chat` is one)."""

    _tools: ToolBox
    _hooks: Hooks
    _hosted: list[HostedServer]

    @property
    def _offer(self) -> ChatTools: ...

    def _provider_model(self) -> str: ...

    def _check_params(self) -> None: ...


__all__ = ["LoopHost"]
