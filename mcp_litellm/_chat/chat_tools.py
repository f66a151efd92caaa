"""A chat's tools as one :class:`~mcp_litellm._client.primitives.toolset.Toolset`: the :class:`ToolBox` (local
functions, MCP clients, groups and tools) wrapped by the chat's built-in tools, each a wrapper of its own:

- without code mode: ``SearchToolset(ResultBudget(ToolBox))``: tool search offers the catalog and answers
  ``search_tools``; the result budget cuts what the model's calls give back and answers ``read_result``;
- with code mode: ``ResultBudget(CodeModeToolset(ToolBox))``: the model gets ``run_code`` (its output cut to
  the budget), and the program's calls reach the tools whole; its ``search_tools`` ranks with the same
  :class:`SearchToolset`.

Every call the tool loop makes goes to :attr:`ChatTools.toolset` by name, with its :class:`CallContext`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mcp_litellm._chat.builtin_names import BuiltinNames
from mcp_litellm._chat.code_mode import CodeMode, CodeModeToolset, RunInner
from mcp_litellm._chat.results import ResultBudget
from mcp_litellm._chat.tool_search.embedding import embedding_settings
from mcp_litellm._chat.tool_search.toolset import SearchToolset, ToolSearchMode
from mcp_litellm._chat.toolbox import ChatToolset, ToolBox

__all__ = ["ChatTools"]

Messages = Sequence[Mapping[str, object]]


class ChatTools:
    """The tools of one chat and the wrappers around them (see the module); ``model`` and ``messages`` give
    the chat's provider model and conversation when a request is made."""

    def __init__(self, tool_search: ToolSearchMode, tool_budget: int | None, result_budget: int | None,
                 embedding: object, *, model: Callable[[], str], messages: Callable[[], Messages]) -> None:
        self.model = model
        self.box = ToolBox()
        self.names = BuiltinNames(self.box)  # the names the built-in tools are offered under
        self.budget = ResultBudget(self.box, self.names, result_budget, model=model)
        self.search = SearchToolset(self.budget, self.box, self.names, tool_search, tool_budget,
                                    embedding_settings(embedding), model=model, messages=messages)
        self.code: CodeModeToolset | None = None
        self.run_inner: RunInner | None = None
        """Where a code-mode program's calls go: the tool loop's single-call path (set by the chat)."""

    def set_code_mode(self, settings: CodeMode | None) -> None:
        """Turn code mode on (with ``settings``) or off (``None``) for the next requests."""
        if settings is None:
            self.code = None
            self.budget.inner = self.box
        else:
            self.code = CodeModeToolset(settings, self.box, self.names, self.search, model=self.model,
                                        run_inner=self.run_inner)
            self.budget.inner = self.code

    @property
    def toolset(self) -> ChatToolset:
        """The toolset every call of the chat goes to (see the module)."""
        return self.budget if self.code is not None else self.search

    async def request_definitions(self, model: str) -> list[dict[str, Any]]:
        """The tool definitions of the next request for ``model`` (the live sources listed now)."""
        return [self.box.definition(tool, model) for tool in await self.toolset.list_tools()]

    def definitions(self, model: str, messages: Messages | None = None) -> list[dict[str, Any]]:
        """:meth:`request_definitions` with the live sources' tools as last listed (``messages``: unused,
        the conversation is the chat's; the parameter stays for the hosted MCP path until it moves)."""
        return [self.box.definition(tool, model) for tool in self.toolset.listed_now()]
