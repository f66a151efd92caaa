"""Result budgets: a tool result larger than its budget reaches the model cut, and the chat keeps the
whole text (bounded) so the model can read on with ``read_result``.

:class:`ResultBudget` is the wrapper toolset that does it: the results of the model's calls through it are
cut to the round's budget (a code-mode program's calls are not: the program reads their results whole), and
while it holds cut results it offers the ``read_result`` tool and answers it."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

from mcp_litellm import _llm
from mcp_litellm._chat.builtin_names import READ_RESULT_TOOL, BuiltinNames, BuiltinTool, text_result
from mcp_litellm._chat.tool_search.index import read_result_definition
from mcp_litellm._chat.tool_search.toolset import check_tokens
from mcp_litellm._chat.toolbox import ChatToolset
from mcp_litellm._client.primitives.tool import ToolResult
from mcp_litellm._client.primitives.toolset import CallContext, ToolDef
from mcp_litellm._core.content import is_media

MAX_RESULTS = 32  # cut results a chat keeps for read_result (the oldest are dropped first)
MAX_CHARS = 8_000_000  # and at most this much text in all
UNKNOWN_WINDOW = 16_000  # the input window assumed for a model LiteLLM does not know
RESULT_SHARE = 0.25  # the default result budget: this share of the window left after the prompt
MIN_RESULT_BUDGET = 500


class ResultBudget:
    """The chat's result budget around ``inner`` (a :class:`ChatToolset`; ``inner`` may be swapped, the cut
    results held stay). ``model`` gives the chat's provider model; :meth:`start_round` sets the budget of
    each result of the round about to run."""

    def __init__(self, inner: ChatToolset, names: BuiltinNames, result_budget: int | None, *,
                 model: Callable[[], str]) -> None:
        check_tokens("result_budget", result_budget)
        self.inner = inner
        self.names = names
        self.result_budget = result_budget
        self.model = model
        self.results = ResultStore()
        self.per_result = MIN_RESULT_BUDGET
        """Tokens one result of the current round may take (set by :meth:`start_round`)."""

    def for_round(self, model: str, prompt_tokens: int, calls: int) -> int:
        """Tokens one of ``calls`` results of a round may take, after a prompt of ``prompt_tokens``."""
        if self.result_budget is not None:
            return self.result_budget
        window = _llm.input_window(model) or UNKNOWN_WINDOW
        left = max(0, window - prompt_tokens)
        return max(MIN_RESULT_BUDGET, int(left * RESULT_SHARE) // max(1, calls))

    def start_round(self, prompt_tokens: int, calls: int) -> None:
        """Set :attr:`per_result` for a round of ``calls`` calls after a prompt of ``prompt_tokens``."""
        self.per_result = self.for_round(self.model(), prompt_tokens, calls)

    def offered(self, inner: Sequence[ToolDef]) -> list[ToolDef]:
        """``inner``, and ``read_result`` while cut results are held."""
        if not len(self.results):
            return list(inner)
        return [*inner, BuiltinTool(read_result_definition(self.names.offered(READ_RESULT_TOOL)))]

    async def list_tools(self) -> list[ToolDef]:
        """The inner tools, and ``read_result`` while cut results are held."""
        return self.offered(await self.inner.list_tools())

    def listed_now(self) -> list[ToolDef]:
        """:meth:`list_tools` with the live sources' tools as last listed."""
        return self.offered(self.inner.listed_now())

    async def call_tool(self, name: str, arguments: dict[str, object], ctx: CallContext) -> ToolResult:
        """Answer ``read_result`` (while results are held); pass other calls on, and cut what the model's
        calls give back to the round's budget."""
        if len(self.results) and self.names.builtin(name) == READ_RESULT_TOOL:
            answer = self.results.read(arguments, self.per_result, self.model(), name)
            return text_result(answer, name, error=answer.startswith("Error"))
        result = await self.inner.call_tool(name, arguments, ctx)
        return self.cut(result) if ctx.origin == "model" else result

    def cut(self, result: ToolResult) -> ToolResult:
        """``result`` within the round's budget (the rest readable with ``read_result``, under its offered
        name)."""
        return apply_budget(result, self.per_result, self.model(), self.results,
                            self.names.name(READ_RESULT_TOOL))


class ResultStore:
    """The full text of cut results, by id, in bounded memory; dropped with the chat."""

    def __init__(self, max_results: int = MAX_RESULTS, max_chars: int = MAX_CHARS) -> None:
        self._texts: OrderedDict[str, str] = OrderedDict()
        self._next = 1
        self.max_results = max_results
        self.max_chars = max_chars

    def __len__(self) -> int:
        return len(self._texts)

    def keep(self, text: str) -> str:
        """Store ``text``; returns its id."""
        result_id = f"r{self._next}"
        self._next += 1
        self._texts[result_id] = text
        while self._texts and (len(self._texts) > self.max_results
                               or sum(map(len, self._texts.values())) > self.max_chars):
            self._texts.popitem(last=False)
        return result_id

    def read(self, arguments: Mapping[str, object], budget: int, model: str, reader: str = "read_result") -> str:
        """The ``read_result`` answer: what fits ``budget`` tokens of result ``id`` from ``offset``, with a
        marker (naming ``reader``, the name ``read_result`` is offered under)."""
        result_id, offset = arguments.get("id"), arguments.get("offset", 0)
        if isinstance(offset, str) and offset.strip().isdigit():
            offset = int(offset)
        if not isinstance(result_id, str) or result_id not in self._texts:
            held = ", ".join(self._texts) or "none"
            return f"Error: no cut result with id {result_id!r} is held (held: {held}); use the id its marker names."
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            return f"Error: offset must be a whole number >= 0, got {offset!r}."
        text = self._texts[result_id]
        self._texts.move_to_end(result_id)
        if offset >= len(text):
            return f"[result {result_id} has {len(text)} characters; offset {offset} is past its end]"
        page = text[offset: offset + budget * 4]  # a token is rarely more than four characters
        end = offset + chars_within(page, budget, model)
        return text[offset:end] + marker(result_id, offset, end, len(text), reader)


def marker(result_id: str, start: int, end: int, total: int, reader: str = "read_result") -> str:
    """The note after a cut piece of a result: what was shown and how to read on (with the tool ``reader``,
    the name ``read_result`` is offered under)."""
    if end >= total:
        return f"\n[end of result {result_id}: characters {start}-{end} of {total}]"
    return (f"\n[... result {result_id} cut: characters {start}-{end} of {total} shown, {total - end} more. "
            f"Call {reader} with id=\"{result_id}\" and offset={end} to read on.]")


def chars_within(text: str, budget: int, model: str) -> int:
    """How many leading characters of ``text`` fit in ``budget`` tokens (all of it when it fits).

    Only a prefix of about eight characters per budget token is counted (a token rarely spans more), so
    a result of many megabytes costs no more to cut than one a little over the budget.
    """
    if len(text) <= budget:  # a token is at least one character
        return len(text)
    sample = text[: budget * 8]
    tokens = _llm.count_tokens(model, text=sample)
    if tokens <= budget and len(sample) == len(text):
        return len(text)
    if tokens <= budget:  # a prefix of very long tokens (whitespace runs): keep the prefix counted
        return len(sample)
    return max(1, int(len(sample) * budget / tokens * 0.95))


def apply_budget(result: ToolResult, budget: int, model: str, store: ResultStore,
                 reader: str = "read_result") -> ToolResult:
    """``result`` itself when its text fits ``budget`` tokens; otherwise a copy whose text is cut with a
    marker saying how to read the rest with ``reader`` (the full text kept in ``store``). Images and audio
    stay."""
    from mcp_types import TextContent

    text = result.text
    keep = chars_within(text, budget, model)
    if keep >= len(text):
        return result
    result_id = store.keep(text)
    media = [b for b in result.content if is_media(b)]
    cut = TextContent(type="text", text=text[:keep] + marker(result_id, 0, keep, len(text), reader))
    return ToolResult(content=[cut, *media], structured=None, is_error=result.is_error, tool_name=result.tool_name,
                      truncated_chars=result.truncated_chars + len(text) - keep)
