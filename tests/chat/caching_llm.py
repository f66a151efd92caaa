"""Scripted model endpoints that cache prompt prefixes the way the providers do (at the HTTP level, respx).

``AnthropicCache`` speaks the Messages API: a request's blocks are its tools, its system blocks and its
messages' content blocks, in that order; a block marked ``cache_control`` ends a prefix that is written to
the cache, and a later request whose marked prefix was written before reads it (the longest such prefix).
``OpenAICache`` speaks Chat Completions and caches on its own: the longest prefix (of the tools, then the
messages) shared with an earlier request is read, in 128-token steps from 1,024 tokens on.

Tokens are counted as characters / 4 of each block's JSON, which is all a ratio needs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import httpx


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _plain(block: Any) -> str:
    if isinstance(block, dict):
        block = {k: v for k, v in block.items() if k != "cache_control"}
    return json.dumps(block, sort_keys=True)


def anthropic_blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """``(block JSON without its mark, marked)`` for every cacheable block of a Messages API request."""
    blocks: list[tuple[str, bool]] = []
    for tool in body.get("tools") or []:
        blocks.append((_plain(tool), "cache_control" in tool))
    system = body.get("system") or []
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system:
        blocks.append((_plain(block), "cache_control" in block))
    for message in body.get("messages") or []:
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            blocks.append((message["role"] + _plain(part), isinstance(part, dict) and "cache_control" in part))
    return blocks


Answer = Callable[[dict[str, Any]], dict[str, Any]]
"""A scripted answer: the request's body in, the reply's fields out."""


class _CachingEndpoint:
    """A respx side effect: records each request's body, counts its usage (``account``) and answers with the
    next scripted answer (or ``default``); ``response`` shapes the provider's reply."""

    def __init__(self, answers: list[Answer] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.usage: list[dict[str, Any]] = []
        self.answers = answers or []

    def account(self, body: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def default(self) -> dict[str, Any]:
        raise NotImplementedError

    def response(self, body: dict[str, Any], reply: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        usage = self.account(body)
        reply = self.answers.pop(0)(body) if self.answers else self.default()
        return httpx.Response(200, json=self.response(body, reply, usage))


class AnthropicCache(_CachingEndpoint):
    """Answers Messages API requests from a script, reporting cache reads and writes as Anthropic does."""

    def __init__(self, answers: list[Answer] | None = None) -> None:
        super().__init__(answers)
        self._written: set[str] = set()

    def account(self, body: dict[str, Any]) -> dict[str, Any]:
        blocks = anthropic_blocks(body)
        digest = hashlib.sha256()
        sizes, marks, total = [], [], 0
        for index, (text, marked) in enumerate(blocks):
            digest.update(text.encode())
            total += _tokens(text)
            sizes.append((digest.hexdigest(), total))
            if marked:
                marks.append(index)
        read = max((sizes[i][1] for i in marks if sizes[i][0] in self._written), default=0)
        written = sizes[marks[-1]][1] - read if marks and sizes[marks[-1]][0] not in self._written else 0
        self._written.update(sizes[i][0] for i in marks)
        usage = {"input_tokens": total - read - written, "cache_read_input_tokens": read,
                 "cache_creation_input_tokens": written, "output_tokens": 5}
        self.usage.append(usage)
        return usage

    def default(self) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn"}

    def response(self, body: dict[str, Any], reply: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
        return {"id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant",
                "model": body.get("model", "claude"), "stop_sequence": None, **reply, "usage": usage}


class OpenAICache(_CachingEndpoint):
    """Answers Chat Completions requests, reporting ``cached_tokens`` for the longest prefix seen before."""

    def __init__(self, answers: list[Answer] | None = None) -> None:
        super().__init__(answers)
        self._seen: list[list[str]] = []

    def account(self, body: dict[str, Any]) -> dict[str, Any]:
        parts = [_plain(t) for t in body.get("tools") or []] + [_plain(m) for m in body.get("messages") or []]
        total = sum(_tokens(p) for p in parts)
        best = 0
        for earlier in self._seen:
            shared = 0
            for mine, theirs in zip(parts, earlier, strict=False):
                if mine != theirs:
                    break
                shared += _tokens(mine)
            best = max(best, shared)
        self._seen.append(parts)
        cached = best // 128 * 128 if best >= 1024 else 0
        usage = {"prompt_tokens": total, "completion_tokens": 5, "total_tokens": total + 5,
                 "prompt_tokens_details": {"cached_tokens": cached}}
        self.usage.append(usage)
        return usage

    def default(self) -> dict[str, Any]:
        return {"role": "assistant", "content": "done"}

    def response(self, body: dict[str, Any], reply: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
        finish = "tool_calls" if reply.get("tool_calls") else "stop"
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body.get("model", "gpt"),
                "usage": usage, "choices": [{"index": 0, "message": reply, "finish_reason": finish}]}


def anthropic_tool_use(name: str, arguments: dict[str, Any], call_id: str = "toolu_1") -> Answer:
    """A scripted answer calling one tool."""
    return lambda body: {"content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}],
                         "stop_reason": "tool_use"}


def anthropic_text(text: str) -> Answer:
    """A scripted answer in text."""
    return lambda body: {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
