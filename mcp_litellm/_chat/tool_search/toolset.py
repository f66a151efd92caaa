"""Tool search as a wrapper toolset: :class:`SearchToolset` decides, per request, whether the model gets every
definition of the tools it wraps or the compact catalog (the ``search_tools`` tool plus the tools already found
or used), and answers ``search_tools`` itself; every other call goes to the tools. Its ranker
(:meth:`SearchToolset.ranked`: words, fused with an embedding model's ranking when one is set) is the one code
mode's in-program ``search_tools`` uses too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from mcp_litellm import _llm
from mcp_litellm._chat.builtin_names import SEARCH_TOOL, BuiltinNames, BuiltinTool, text_result
from mcp_litellm._chat.tool_search.embedding import EmbeddingRanker, EmbeddingSettings, fuse_scores, tool_text
from mcp_litellm._chat.tool_search.index import (
    BROWSE_LIMIT,
    Entry,
    ToolIndex,
    entry,
    search_answer,
    search_tool_definition,
    server_answer,
    server_named,
    server_summary,
    server_text,
)
from mcp_litellm._chat.toolbox import ChatToolset, ToolBox, server_of
from mcp_litellm._client.primitives.tool import Tool
from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._client.primitives.toolset import CallContext, ToolDef
from mcp_litellm._core.errors import ConfigError

__all__ = ["MAX_TOOLS", "SEARCH_LIMIT", "SearchToolset", "ToolSearchMode", "check_search_settings"]

ToolSearchMode = Literal["auto"] | bool
Messages = Sequence[Mapping[str, object]]

MAX_TOOLS = 128  # OpenAI rejects more tools than this in one request; we keep to it for every provider
DEFAULT_TOOL_BUDGET = 2_000  # tokens of definitions, when LiteLLM does not know the model's input window
TOOL_SHARE = 0.05  # ... otherwise this share of its input window
SEARCH_LIMIT = 5  # tools one search names (and loads), in the chat and in a code-mode program: the ranking
#                   benchmark measures the top 5


def check_search_settings(tool_search: object, tool_budget: object) -> None:
    """Raise :class:`ConfigError` for tool-search settings a chat cannot use."""
    if tool_search not in ("auto", True, False) or (isinstance(tool_search, int) and not isinstance(tool_search, bool)):
        raise ConfigError(f"tool_search must be 'auto', True or False, got {tool_search!r}")
    check_tokens("tool_budget", tool_budget)


def check_tokens(name: str, value: object) -> None:
    """Raise :class:`ConfigError` unless ``value`` is a whole number of tokens > 0 or ``None``."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
        raise ConfigError(f"{name} must be a whole number of tokens > 0 (or None for the default), got {value!r}")


class SearchToolset:
    """Tool search over the tools of ``inner`` (the chat's :class:`ToolBox`, maybe wrapped: ``tools`` is the
    box, whose size and definitions decide whether to search).

    ``model`` and ``messages`` give the chat's provider model and conversation at each request (the tools the
    conversation used stay defined)."""

    def __init__(self, inner: ChatToolset, tools: ToolBox, names: BuiltinNames, mode: ToolSearchMode,
                 tool_budget: int | None, embedding: EmbeddingSettings | None, *, model: Callable[[], str],
                 messages: Callable[[], Messages]) -> None:
        check_search_settings(mode, tool_budget)
        self.inner = inner
        self.tools = tools
        self.names = names
        self.mode: ToolSearchMode = mode
        self.tool_budget = tool_budget
        self.embedding = EmbeddingRanker(embedding) if embedding else None
        self.model = model
        self.messages = messages
        self.found: dict[str, None] = {}  # tool names search_tools answered with, oldest first
        self.searching = False  # whether the last listing offered the catalog
        self._index: tuple[int, ToolIndex, list[str]] | None = None
        self._sizes: dict[tuple[int, str], int] = {}

    # -- deciding ----------------------------------------------------------------------------------------

    def budget(self, model: str) -> int:
        """The tool-definition budget in tokens for ``model``."""
        if self.tool_budget is not None:
            return self.tool_budget
        window = _llm.input_window(model)
        return int(window * TOOL_SHARE) if window else DEFAULT_TOOL_BUDGET

    def definition_tokens(self, model: str) -> int:
        """Tokens that every tool definition costs for ``model`` (cached per toolbox version)."""
        key = (self.tools.version, model)
        if key not in self._sizes:
            self._sizes[key] = _llm.count_tokens(model, tools=self.tools.definitions(model)) if len(self.tools) else 0
        return self._sizes[key]

    def use_search(self, model: str) -> bool:
        """Whether a request for ``model`` gets the catalog instead of every definition."""
        if self.mode is False or not len(self.tools):
            return False
        if self.mode is True:
            return True
        return len(self.tools) > MAX_TOOLS or self.definition_tokens(model) > self.budget(model)

    def search_reason(self, model: str) -> str | None:
        """Why requests for ``model`` offer the catalog instead of every definition, in a phrase; ``None``
        when they offer every definition."""
        if not self.use_search(model):
            return None
        count = f"{len(self.tools)} tool{'s' if len(self.tools) != 1 else ''}"
        if self.mode is True:
            return f"tool search is always on ({count})"
        if len(self.tools) > MAX_TOOLS:
            return f"{count} are more than the {MAX_TOOLS} one request may carry"
        window = _llm.input_window(model)
        source = ("as set" if self.tool_budget is not None else
                  f"{TOOL_SHARE:.0%} of its {window:,}-token input window" if window else
                  "the default for a model whose input window LiteLLM does not know")
        return (f"{count} ({self.definition_tokens(model):,} tokens of definitions) exceed the "
                f"{self.budget(model):,}-token tool budget for {model} ({source})")

    # -- the Toolset interface ---------------------------------------------------------------------------

    def offered(self, inner: Sequence[ToolDef]) -> list[ToolDef]:
        """What a request offers of ``inner`` (the wrapped tools as listed): all of them, or the catalog,
        the other built-ins of the chat (never hidden) and the tools the conversation used or found."""
        self.searching = self.use_search(self.model())
        if not self.searching:
            return list(inner)
        builtins = [t for t in inner if t.server is None and self.names.builtin(t.name) is not None]
        wanted = self._loaded(self.messages(), MAX_TOOLS - 1 - len(builtins))
        chosen = [t for t in inner if t.name in wanted and t not in builtins]
        servers = sorted({s for s in (server_of(t) for t in self.tools) if s})
        catalog = search_tool_definition(len(self.tools), servers, self.names.offered(SEARCH_TOOL))
        return [BuiltinTool(catalog), *builtins, *chosen]

    def _loaded(self, messages: Messages, room: int) -> set[str]:
        """Names of the tools to define: those called in the conversation, then the most recently found."""
        used = [_called(call) for m in messages if m.get("role") == "assistant" for call in _calls(m)]
        names = list(dict.fromkeys(n for n in reversed(used) if n is not None and self.tools.get(n)))
        for name in reversed(self.found):
            if name not in names:
                names.append(name)
        return set(names[:room])

    async def list_tools(self) -> list[ToolDef]:
        """What the next request offers (see :meth:`offered`)."""
        return self.offered(await self.inner.list_tools())

    def listed_now(self) -> list[ToolDef]:
        """:meth:`list_tools` with the live sources' tools as last listed."""
        return self.offered(self.inner.listed_now())

    async def call_tool(self, name: str, arguments: dict[str, object], ctx: CallContext) -> ToolResult:
        """Answer ``search_tools`` (under the name it is offered as, while the catalog is offered); pass every
        other call on."""
        if not self.searching or self.names.builtin(name) != SEARCH_TOOL:
            return await self.inner.call_tool(name, arguments, ctx)
        answer = await self._search(arguments.get("query"), arguments.get("server"), name)
        return text_result(answer, name, error=answer.startswith("Error"))

    # -- the ranker --------------------------------------------------------------------------------------

    def index(self) -> ToolIndex:
        """The search index of the current tools (rebuilt when they change)."""
        return self._built()[0]

    def _built(self) -> tuple[ToolIndex, list[str]]:
        if self._index is None or self._index[0] != self.tools.version:
            entries, texts = [], []
            servers: dict[str, str] = {}
            for tool in self.tools.ordered():
                mcp = self.tools.mcp_tool(tool.name)
                where = servers.setdefault(mcp.server, server_text(mcp)) if mcp is not None else ""
                entries.append(entry(tool.name, server_of(tool), tool.description, tool.input_schema, where))
                texts.append(tool_text(entries[-1], tool.description))
            self._index = (self.tools.version, ToolIndex(entries), texts)
        return self._index[1], self._index[2]

    async def ranked(self, query: str, server: str | None = None) -> list[Entry]:
        """The best :data:`SEARCH_LIMIT` tools for ``query``: by meaning and by words together (their scores
        fused: :func:`~mcp_litellm._chat.tool_search.embedding.fuse_scores`) when an embedding model is set and
        answers, else by words."""
        index, texts = self._built()
        if self.embedding is not None and len(index):
            near = await self.embedding.similarities(index.entries, texts, query, server)
            if near is not None:
                return fuse_scores(index.entries, index.scores(query), near, SEARCH_LIMIT, server)
        return index.search(query, SEARCH_LIMIT, server=server)

    async def _search(self, query: object, server: object, tool: str) -> str:
        index = self.index()
        servers = self.servers()
        names = [name for name, _ in servers]
        if isinstance(query, str):
            query = query[:1_000]  # a query, not a book
        if server in (None, "") and isinstance(query, str):
            server = server_named(query, names)
            query = None if server else query
        if server not in (None, ""):
            if not isinstance(server, str) or server not in names:
                return (f"Error: there is no server {server!r}; the servers are {', '.join(names) or '(none)'}. "
                        "Give one of them, or leave 'server' out to search every server.")
            text = query if isinstance(query, str) and query.strip() else None
            mine = [e for e in index.entries if e.server == server]
            listed = await self.ranked(text, server) if text else mine[:BROWSE_LIMIT]
            self._remember(listed)
            return server_answer(server, listed, len(mine), text, tool)
        found = await self.ranked(query) if isinstance(query, str) and query.strip() else []
        self._remember(found)
        return search_answer(query, found, len(index), servers, tool)

    def _remember(self, found: Sequence[Entry]) -> None:
        for hit in found:
            self.found.pop(hit.name, None)
            self.found[hit.name] = None
        while len(self.found) > MAX_TOOLS:
            self.found.pop(next(iter(self.found)))

    def servers(self) -> list[tuple[str, str]]:
        """The chat's servers, by name, each with a one-line summary (what it says of itself, then a few
        of its tools)."""
        tools: dict[str, list[Tool]] = {}
        for tool in self.tools.ordered():
            mcp = self.tools.mcp_tool(tool.name)
            if mcp is not None:
                tools.setdefault(mcp.server, []).append(mcp)
        return [(name, server_summary(mine)) for name, mine in sorted(tools.items()) if name]


def _calls(message: Mapping[str, object]) -> list[object]:
    calls = message.get("tool_calls")
    return list(calls) if isinstance(calls, list) else []


def _called(call: object) -> str | None:
    function = call.get("function") if isinstance(call, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    return name if isinstance(name, str) else None

