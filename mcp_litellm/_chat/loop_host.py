"""What the tool loop needs of the chat it runs, as a Protocol (a :class:`Chat` is one), so that the modules
below ``chat.py`` (the tool loop, hosted MCP) need not import it."""

from __future__ import annotations

from typing import Protocol

from mcp_litellm._chat.hooks import ChatView, Hooks
from mcp_litellm._chat.hosted import HostedServer
from mcp_litellm._chat.offer import Offer
from mcp_litellm._chat.toolbox import ToolBox


class LoopHost(ChatView, Protocol):
    """What the tool loop needs of the chat it runs (a :class:`Chat` is one): the conversation and settings
    every hook sees, plus the chat's tools, what it offers the model, its hooks, and the model whose provider
    rules apply. Typed by what it holds, so that this module need not import ``chat.py``."""

    _tools: ToolBox
    _offer: Offer
    _hooks: Hooks
    _hosted: list[HostedServer]

    def _provider_model(self) -> str: ...

    def _check_params(self) -> None: ...


__all__ = ["LoopHost"]
