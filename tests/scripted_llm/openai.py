"""OpenAI chat-completions bodies for scripted models: a :class:`Turn` (one answer) as a JSON completion or
as stream chunks split the way providers split them; used by the respx models (``respx_mock``) and the
scripted server (``server``) alike."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Turn:
    """One scripted model answer: text and/or tool calls ``(id, name, arguments)`` (arguments: a dict, or raw
    text sent as it is). ``raw_chunks``: stream deltas used as they are; ``delay``: seconds before the answer
    (a slow model; the scripted server only); a ``status`` other than 200 answers with an OpenAI-style error
    (the server's message is ``content``)."""

    content: str = ""
    tool_calls: list[tuple[str, str, Any]] = field(default_factory=list)
    raw_chunks: list[dict[str, Any]] | None = None
    delay: float = 0.0
    status: int = 200


def _arguments(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def completion_body(turn: Turn, model: str = "gpt-4o-mini", usage: tuple[int, int] = (7, 3)) -> dict[str, Any]:
    """The JSON completion answering with ``turn`` (``usage``: prompt and completion tokens)."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.content or None}
    if turn.tool_calls:
        message["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": _arguments(a)}}
                                 for i, n, a in turn.tool_calls]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if turn.tool_calls else "stop"}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}}


def chunk(delta: dict[str, Any], finish: str | None = None, model: str = "gpt-4o-mini") -> dict[str, Any]:
    """One stream chunk carrying ``delta``."""
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def stream_chunks(turn: Turn, model: str = "gpt-4o-mini") -> list[dict[str, Any]]:
    """``turn`` as stream chunks: its text word by word, each tool call's arguments in two fragments."""
    if turn.raw_chunks is not None:
        return turn.raw_chunks
    chunks = [chunk({"role": "assistant", "content": ""}, model=model)]
    words = turn.content.split(" ") if turn.content else []
    chunks += [chunk({"content": word if i == 0 else " " + word}, model=model) for i, word in enumerate(words)]
    for index, (call_id, name, arguments) in enumerate(turn.tool_calls):
        text = _arguments(arguments)
        half = len(text) // 2
        chunks.append(chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                             "function": {"name": name, "arguments": text[:half]}}]}, model=model))
        chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": text[half:]}}]}, model=model))
    chunks.append(chunk({}, "tool_calls" if turn.tool_calls else "stop", model=model))
    return chunks


def sse(chunks: list[dict[str, Any]]) -> bytes:
    """Chunks as a server-sent-events body, ``[DONE]`` last."""
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


def completion(text: str | None = "Hello from the model", *, finish_reason: str = "stop",
               tool_calls: list[dict[str, Any]] | None = None, model: str = "gpt-4o-mini-2024-07-18") -> dict[str, Any]:
    """An OpenAI chat completion body, written out (tool calls as ``{"name", "arguments"[, "id"]}``)."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {"id": c.get("id", f"call_{i}"), "type": "function",
             "function": {"name": c["name"], "arguments": _arguments(c["arguments"])}}
            for i, c in enumerate(tool_calls)]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}
