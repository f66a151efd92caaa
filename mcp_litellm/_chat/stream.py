"""Turning LiteLLM responses into ``Message`` objects, and streamed deltas into ``Chunk`` objects.

Tool-call fragments are assembled here rather than with ``litellm.stream_chunk_builder``: the
fragments are keyed by ``index`` with a fallback to ``id``, and a new ``id`` arriving on an index
that already holds a different call starts a new call (some providers number every parallel call
0), so parallel calls are never merged and text streamed before the calls is kept. A name that
arrives in pieces is joined (a piece repeating the name so far is ignored).
"""

from __future__ import annotations

import uuid
from collections.abc import Container
from dataclasses import replace
from typing import Any

from mcp_litellm._chat.message import Chunk, Message, ToolCall

_GENERATED = "call_mcpl_"


def _get(obj: object, name: str) -> Any:
    """An attribute of a LiteLLM object or a key of a plain dict (both appear in responses)."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _new_call_id() -> str:
    return _GENERATED + uuid.uuid4().hex[:16]


def _usage(response: object) -> tuple[int | None, int | None]:
    usage = _get(response, "usage")
    return _get(usage, "prompt_tokens"), _get(usage, "completion_tokens")


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cache_tokens(response: object) -> tuple[int | None, int | None]:
    """The prompt tokens a response says were read from and written to the provider's prompt cache.

    LiteLLM reports Anthropic's and Bedrock's as ``cache_read_input_tokens`` / ``cache_creation_input_tokens``
    and every provider's reads as ``prompt_tokens_details.cached_tokens`` (OpenAI, DeepSeek, Gemini)."""
    usage = _get(response, "usage")
    if usage is None:
        return None, None
    details = _get(usage, "prompt_tokens_details")
    read = _count(_get(usage, "cache_read_input_tokens")) or _count(_get(details, "cached_tokens"))
    written = _count(_get(usage, "cache_creation_input_tokens")) or _count(_get(details, "cache_creation_tokens"))
    return read, written


def _extra_fields(message: Any) -> dict[str, Any]:
    """Provider fields that must go back in the history: Anthropic's thinking blocks before tool use, the
    Responses API's reasoning items."""
    extra: dict[str, Any] = {}
    for name in ("thinking_blocks", "reasoning_items"):  # Anthropic's; the Responses API's (through LiteLLM)
        value = _get(message, name)
        if value:
            extra[name] = list(value)
    return extra


def message_from_response(response: object) -> Message:
    """The assistant :class:`Message` of a non-streamed LiteLLM ``ModelResponse``."""
    choices = _get(response, "choices") or []
    if not choices:
        raise ValueError("the model's response has no choices")
    choice = choices[0]
    message = _get(choice, "message")
    calls: list[ToolCall] = []
    for index, raw_call in enumerate(_get(message, "tool_calls") or []):
        function = _get(raw_call, "function")
        arguments = _get(function, "arguments")
        call_id = _distinct_id(_get(raw_call, "id") or _new_call_id(), {call.id for call in calls})
        calls.append(ToolCall(id=call_id, name=_get(function, "name") or "",
                              arguments=arguments if isinstance(arguments, str) else _dump(arguments), index=index))
    input_tokens, output_tokens = _usage(response)
    cache_read, cache_write = cache_tokens(response)
    return Message(role="assistant", content=_text(_get(message, "content")), tool_calls=calls,
                   model=_get(response, "model"), finish_reason=_get(choice, "finish_reason"),
                   input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cache_read,
                   cache_write_tokens=cache_write, raw=response, extra=_extra_fields(message))


def _distinct_id(call_id: str, taken: Container[str]) -> str:
    """``call_id``, or ``call_id_2``, ``_3``... when the model gave one id to several calls of a turn (some
    providers reject a history that repeats a tool-call id)."""
    if call_id not in taken:
        return call_id
    n = 2
    while f"{call_id}_{n}" in taken:
        n += 1
    return f"{call_id}_{n}"


def _dump(arguments: object) -> str:
    import json

    return "" if arguments is None else json.dumps(arguments)


def _text(content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(_get(part, "text") or "") for part in content)
    return str(content)


def _grown_name(name: str, fragment: str) -> str:
    """A tool-call name after one more streamed ``fragment``: most providers send the name once, some
    repeat it whole in later fragments, some send it whole again grown, and some split it in pieces."""
    if fragment == name:
        return name  # a repeat
    if fragment.startswith(name):
        return fragment  # the whole name so far, grown
    return name + fragment  # the next piece


class TurnAssembler:
    """Collects one streamed assistant turn: text, reasoning, tool calls, finish reason and usage."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: list[ToolCall] = []
        self._by_index: dict[int, ToolCall] = {}
        self._by_id: dict[str, ToolCall] = {}
        self.finish_reason: str | None = None
        self.model: str | None = None
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None
        self.cache_read_tokens: int | None = None
        self.cache_write_tokens: int | None = None
        self.thinking_blocks: list[object] = []
        self.reasoning_items: list[object] = []

    def add(self, raw: object) -> list[Chunk]:
        """Take one LiteLLM stream chunk; return the :class:`Chunk` objects to show for it."""
        self.model = self.model or _get(raw, "model")
        input_tokens, output_tokens = _usage(raw)
        if input_tokens is not None or output_tokens is not None:
            self.input_tokens, self.output_tokens = input_tokens, output_tokens
            self.cache_read_tokens, self.cache_write_tokens = cache_tokens(raw)
        choices = _get(raw, "choices") or []
        if not choices:
            return []
        choice = choices[0]
        self.finish_reason = _get(choice, "finish_reason") or self.finish_reason
        delta = _get(choice, "delta")
        if delta is None:
            return []
        shown: list[Chunk] = []
        text = _get(delta, "content")
        reasoning = _get(delta, "reasoning_content")
        if text or reasoning:
            if text:
                self.content.append(text)
            shown.append(Chunk(content=text or "", reasoning=reasoning or "", raw=raw))
        self.thinking_blocks.extend(_get(delta, "thinking_blocks") or [])
        self.reasoning_items.extend(_get(delta, "reasoning_items") or [])
        fragments = _get(delta, "tool_calls") or []
        for fragment in fragments:
            self._merge(fragment)
        if fragments:
            shown.append(Chunk(event="tool_call", tool_calls=self.snapshot(), raw=raw))
        return shown

    def _merge(self, fragment: object) -> None:
        index = _get(fragment, "index")
        call_id = _get(fragment, "id") or None
        function = _get(fragment, "function")
        name = _get(function, "name")
        arguments = _get(function, "arguments")
        call: ToolCall | None = None
        if index is not None:  # the index says which call a fragment grows; ids may repeat across calls
            current = self._by_index.get(index)
            reused = (current is not None and call_id is not None and not current.id.startswith(_GENERATED)
                      and current.id != call_id and call_id not in self._by_id)  # one index for every call
            call = None if reused else current
        elif call_id is not None and call_id in self._by_id:
            call = self._by_id[call_id]
        elif call_id is None and self.calls:
            call = self.calls[-1]
        if call is None:
            call = ToolCall(id=_distinct_id(call_id or _new_call_id(), self._by_id), name="", index=len(self.calls))
            self.calls.append(call)
        elif call_id is not None and call.id.startswith(_GENERATED):
            del self._by_id[call.id]
            call.id = _distinct_id(call_id, self._by_id)
        self._by_id[call.id] = call
        if index is not None:
            self._by_index[index] = call
        if name:
            call.name = _grown_name(call.name, name)
        if arguments:
            call.arguments += arguments if isinstance(arguments, str) else _dump(arguments)

    def snapshot(self) -> dict[str, ToolCall]:
        """Copies of the tool calls so far, keyed by id."""
        return {call.id: replace(call) for call in self.calls}

    def partial(self) -> Message | None:
        """The text received so far as an assistant :class:`Message` (for a stream left early), or
        ``None`` when no text came; tool calls still forming are left out, as they never run."""
        if not self.content:
            return None
        return Message(role="assistant", content="".join(self.content), model=self.model)

    def message(self) -> Message:
        """The assistant :class:`Message` the stream amounted to."""
        extra: dict[str, Any] = {"thinking_blocks": self.thinking_blocks} if self.thinking_blocks else {}
        if self.reasoning_items:
            extra["reasoning_items"] = self.reasoning_items
        return Message(role="assistant", content="".join(self.content), tool_calls=list(self.calls),
                       model=self.model, finish_reason=self.finish_reason, input_tokens=self.input_tokens,
                       output_tokens=self.output_tokens, cache_read_tokens=self.cache_read_tokens,
                       cache_write_tokens=self.cache_write_tokens, extra=extra)
