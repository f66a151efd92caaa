"""Result budgets: a tool result larger than its budget reaches the model cut, and the chat keeps the
whole text (bounded) so the model can read on with ``read_result``."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from mcp_litellm import _llm
from mcp_litellm._client.tool import ToolResult
from mcp_litellm._core.content import is_media

MAX_RESULTS = 32  # cut results a chat keeps for read_result (the oldest are dropped first)
MAX_CHARS = 8_000_000  # and at most this much text in all


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

    def read(self, arguments: dict[str, Any], budget: int, model: str, reader: str = "read_result") -> str:
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
