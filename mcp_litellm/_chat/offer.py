"""What a chat offers the model in each request: every tool definition, or (tool search) a compact
catalog; and the chat's built-in tools (``search_tools``, ``read_result``, code mode's ``run_code``), each
under the name :mod:`~mcp_litellm._chat.builtin_names` gives it (its own, unless a tool of the chat has it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from mcp_litellm import _llm
from mcp_litellm._chat.builtin_names import READ_RESULT_TOOL, RUN_CODE, SEARCH_TOOL, BuiltinNames
from mcp_litellm._chat.code_mode import CodeModeOffer, RunInner
from mcp_litellm._chat.message import ToolCall, parse_arguments
from mcp_litellm._chat.results import ResultStore, apply_budget
from mcp_litellm._chat.tool_embedding import FUSED, EmbeddingRanker, embedding_settings, fuse, tool_text
from mcp_litellm._chat.tool_search import (
    BROWSE_LIMIT,
    Entry,
    ToolIndex,
    entry,
    read_result_definition,
    search_answer,
    search_tool_definition,
    server_answer,
    server_named,
    server_summary,
    server_text,
)
from mcp_litellm._chat.toolbox import ToolBox, server_of
from mcp_litellm._client.tool import Tool, ToolResult
from mcp_litellm._core.errors import ConfigError

ToolSearchMode = Literal["auto"] | bool

MAX_TOOLS = 128  # OpenAI rejects more tools than this in one request; we keep to it for every provider
DEFAULT_TOOL_BUDGET = 2_000  # tokens of definitions, when LiteLLM does not know the model's input window
TOOL_SHARE = 0.05  # ... otherwise this share of its input window
UNKNOWN_WINDOW = 16_000  # the input window assumed for a model LiteLLM does not know
RESULT_SHARE = 0.25  # the default result budget: this share of the window left after the prompt
MIN_RESULT_BUDGET = 500
SEARCH_LIMIT = 5  # tools one search_tools answer names (and loads): the ranking benchmark measures the top 5


def check_settings(tool_search: Any, tool_budget: Any, result_budget: Any) -> None:
    """Raise :class:`ConfigError` for settings Chat cannot use."""
    if tool_search not in ("auto", True, False) or (isinstance(tool_search, int) and not isinstance(tool_search, bool)):
        raise ConfigError(f"tool_search must be 'auto', True or False, got {tool_search!r}")
    for name, value in (("tool_budget", tool_budget), ("result_budget", result_budget)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise ConfigError(f"{name} must be a whole number of tokens > 0 (or None for the default), got {value!r}")


class Offer:
    """Per chat: which definitions go in each request, what the model found, and the cut results held."""

    def __init__(self, tools: ToolBox, tool_search: ToolSearchMode, tool_budget: int | None,
                 result_budget: int | None, embedding: Any = None) -> None:
        check_settings(tool_search, tool_budget, result_budget)
        settings = embedding_settings(embedding)
        self.embedding = EmbeddingRanker(settings) if settings else None
        self.tools = tools
        self.names = BuiltinNames(tools)  # the names the built-in tools are offered under
        self.mode = tool_search
        self.tool_budget = tool_budget
        self.result_budget = result_budget
        self.results = ResultStore()
        self.found: dict[str, None] = {}  # tool names search_tools answered with, oldest first
        self.searching = False  # whether the last request offered the catalog
        self._index: tuple[int, ToolIndex, list[str]] | None = None
        self._sizes: dict[tuple[int, str], int] = {}
        self.code: CodeModeOffer | None = None  # code mode: run_code instead of the tools (set by the Chat)

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
        """Whether the next request gets the catalog instead of every definition."""
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

    def definitions(self, model: str, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tool definitions for the next request."""
        self.searching = self.use_search(model)
        extra = [read_result_definition(self.names.offered(READ_RESULT_TOOL))] if len(self.results) else []
        if self.code is not None:  # code mode: one run_code tool, its description listing (or finding) the tools
            self.searching = False
            return [self.code.definition(self, model, self.names.offered(RUN_CODE)), *extra]
        if not self.searching:
            return [*self.tools.definitions(model), *extra] if len(self.tools) else extra
        wanted = self._loaded(messages, MAX_TOOLS - 1 - len(extra))
        pairs = zip(self.tools.ordered(), self.tools.definitions(model), strict=True)
        chosen = [definition for tool, definition in pairs if tool.name in wanted]
        servers = sorted({s for s in (server_of(t) for t in self.tools) if s})
        return [search_tool_definition(len(self.tools), servers, self.names.offered(SEARCH_TOOL)), *extra, *chosen]

    def _loaded(self, messages: Sequence[dict[str, Any]], room: int) -> set[str]:
        """Names of the tools to define: those called in the conversation, then the most recently found."""
        used = [c.get("function", {}).get("name") for m in messages if m.get("role") == "assistant"
                for c in m.get("tool_calls") or []]
        names = list(dict.fromkeys(n for n in reversed(used) if isinstance(n, str) and self.tools.get(n)))
        for name in reversed(self.found):
            if name not in names:
                names.append(name)
        return set(names[:room])

    # -- the built-in tools ------------------------------------------------------------------------------

    def handles(self, name: str) -> bool:
        """Whether a call to ``name`` is one of ours (search while searching, read while results are held,
        ``run_code`` in code mode), by the name each is offered under: never a name a tool of the chat has."""
        builtin = self.names.builtin(name)
        return ((builtin == RUN_CODE and self.code is not None) or (builtin == SEARCH_TOOL and self.searching)
                or (builtin == READ_RESULT_TOOL and len(self.results) > 0))

    def index(self) -> ToolIndex:
        """The search index of the current tools (rebuilt when they change)."""
        return self._built()[0]

    def _built(self) -> tuple[ToolIndex, list[str]]:
        if self._index is None or self._index[0] != self.tools.version:
            entries, texts = [], []
            servers: dict[int, str] = {}
            for t in self.tools.ordered():
                description = (t.description if isinstance(t, Tool) else
                               str(t.definition["function"].get("description") or ""))
                schema = t.input_schema if isinstance(t, Tool) else t.definition["function"].get("parameters")
                where = servers.setdefault(id(t.client), server_text(t)) if isinstance(t, Tool) else ""
                entries.append(entry(t.name, server_of(t), description, schema, where))
                texts.append(tool_text(entries[-1], description))
            self._index = (self.tools.version, ToolIndex(entries), texts)
        return self._index[1], self._index[2]

    async def run_builtin(self, call: ToolCall, model: str, budget: int,
                          run_inner: RunInner | None = None) -> ToolResult:
        """Answer a call to ``search_tools``, ``read_result`` or (code mode) ``run_code``, whose program runs
        each of its tool calls through ``run_inner`` (the chat's single-call path)."""
        builtin = self.names.builtin(call.name)
        if builtin == RUN_CODE and self.code is not None and run_inner is not None:
            return await self.code.run(call, self, model, budget, run_inner)
        try:
            arguments = parse_arguments(call.arguments)
        except ValueError as exc:
            return ToolResult.error(f"Error: could not call {call.name}: {exc}.", call.name)
        if builtin == READ_RESULT_TOOL:
            answer = self.results.read(arguments, budget, model, call.name)
            return _text(answer, call.name, error=answer.startswith("Error"))
        answer = await self._search(arguments.get("query"), arguments.get("server"), call.name)
        return _text(answer, call.name, error=answer.startswith("Error"))

    async def _ranked(self, query: str, server: str | None = None) -> list[Entry]:
        """The best tools for ``query``: by meaning and by words together (reciprocal rank fusion) when an
        embedding model is set and answers, else by words."""
        index, texts = self._built()
        if self.embedding is not None and len(index):
            near = await self.embedding.search(index.entries, texts, query, FUSED, server)
            if near is not None:
                return fuse(index.search(query, FUSED, floor=0.0, server=server), near, SEARCH_LIMIT)
        return index.search(query, SEARCH_LIMIT, server=server)

    async def _search(self, query: Any, server: Any, tool: str) -> str:
        index = self.index()
        servers = self.servers()
        names = [name for name, _ in servers]
        if isinstance(query, str):
            query = query[:1_000]  # a query, not a book
        if server in (None, "") and isinstance(query, str):
            server = server_named(query, names)
            query = None if server else query
        if server not in (None, ""):
            if server not in names:
                return (f"Error: there is no server {server!r}; the servers are {', '.join(names) or '(none)'}. "
                        "Give one of them, or leave 'server' out to search every server.")
            query = query if isinstance(query, str) and query.strip() else None
            mine = [e for e in index.entries if e.server == server]
            listed = await self._ranked(query, server) if query else mine[:BROWSE_LIMIT]
            self._remember(listed)
            return server_answer(str(server), listed, len(mine), query, tool)
        found = await self._ranked(query) if isinstance(query, str) and query.strip() else []
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
            if isinstance(tool, Tool):
                tools.setdefault(server_of(tool), []).append(tool)
        return [(name, server_summary(mine)) for name, mine in sorted(tools.items()) if name]

    # -- result budgets ----------------------------------------------------------------------------------

    def result_budget_for(self, model: str, prompt_tokens: int, calls: int) -> int:
        """Tokens one of ``calls`` results of this round may take."""
        if self.result_budget is not None:
            return self.result_budget
        window = _llm.input_window(model) or UNKNOWN_WINDOW
        left = max(0, window - prompt_tokens)
        return max(MIN_RESULT_BUDGET, int(left * RESULT_SHARE) // max(1, calls))

    def cut(self, result: ToolResult, model: str, budget: int) -> ToolResult:
        """``result`` within ``budget`` tokens (the rest readable with ``read_result``, under its offered name)."""
        return apply_budget(result, budget, model, self.results, self.names.name(READ_RESULT_TOOL))


def _text(text: str, name: str, *, error: bool = False) -> ToolResult:
    from mcp_types import TextContent

    return ToolResult(content=[TextContent(type="text", text=text)], is_error=error, tool_name=name)
