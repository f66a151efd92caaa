"""Responses API output items as the chat's messages, and the chat's messages as Responses input items.

LiteLLM's completion-to-Responses bridge (``_chat/responses_api.py``) passes a ``{"type": "mcp"}`` tool on
but drops the ``mcp_call``, ``mcp_list_tools`` and ``mcp_approval_request`` items of the answer (its output
converter knows messages, reasoning and function calls only) and cannot replay them, so a chat with hosted
servers reads the Responses API's own answer here:

- :func:`read_response` (a whole response) and :class:`HostedAssembler` (a stream of events) give the
  assistant :class:`Message` of the request, as the chat path's reader and assembler do; the part of the
  answer up to its last MCP item rides on it as :class:`ProviderItems` (``message.provider``): the raw items
  (replayed as they came), the calls the provider made and the approvals it asks for;
- :func:`responses_input` turns the history back into input items: LiteLLM's converter for the chat's own
  messages, the provider's items as they came (the tool messages answering hosted calls left out).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from mcp_types import TextContent

from mcp_litellm import _llm
from mcp_litellm._chat.message import Chunk, Item, Message, ProviderCall, ProviderItems, ToolCall
from mcp_litellm._client.primitives.tool import ToolResult

MCP_ITEMS = "mcp_items"
"""The key of an assistant message holding the provider's raw MCP items (replayed as they came)."""


def plain(item: object) -> Item:
    """An item or event as a plain dict (LiteLLM gives OpenAI SDK objects, its own objects or dicts)."""
    if isinstance(item, dict):
        return {str(key): value for key, value in item.items()}
    dump = getattr(item, "model_dump", None)
    value = dump(exclude_none=True) if callable(dump) else vars(item)
    return {str(key): v for key, v in value.items()} if isinstance(value, Mapping) else {}


def kind(event: object) -> str:
    """The ``type`` of a stream event (an enum's value or a string)."""
    value = getattr(event, "type", None)
    if value is None and isinstance(event, Mapping):
        value = event.get("type")
    return str(getattr(value, "value", value))


def text_of(items: Sequence[Item]) -> str:
    """The text of the ``message`` items among ``items``."""
    return "".join(str(part.get("text") or "") for item in items if item.get("type") == "message"
                   for part in _list(item.get("content")) if isinstance(part, dict))


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def call_of(item: Item) -> ToolCall:
    """The :class:`ToolCall` of an ``mcp_call`` or ``mcp_approval_request`` item."""
    return ToolCall(id=str(item.get("id", "")), name=str(item.get("name", "")),
                    arguments=str(item.get("arguments") or ""))


def function_call_of(item: Item, index: int = 0) -> ToolCall:
    """The :class:`ToolCall` of a ``function_call`` item (a call to one of the chat's own tools)."""
    return ToolCall(id=str(item.get("call_id") or item.get("id")), name=str(item.get("name", "")),
                    arguments=str(item.get("arguments") or ""), index=index)


def result_of(item: Item) -> ToolResult:
    """What a hosted ``mcp_call`` returned (or its error), as a :class:`ToolResult`."""
    name = str(item.get("name", ""))
    error = item.get("error")
    if error:
        return ToolResult.error(f"Error: {error if isinstance(error, str) else json.dumps(error)}", name)
    output = item.get("output")
    text = output if isinstance(output, str) else "" if output is None else json.dumps(output)
    return ToolResult(content=[TextContent(type="text", text=text)], tool_name=name)


def provider_call(item: Item) -> ProviderCall:
    label = item.get("server_label")
    return ProviderCall(call_of(item), result_of(item), str(label) if label is not None else None)


def read_response(response: object) -> Message:
    """The assistant :class:`Message` of one Responses API answer: its text, function calls and usage, and
    (``message.provider``) its part up to the last MCP item."""
    output = [plain(item) for item in _list(getattr(response, "output", None))]
    last = max((i for i, item in enumerate(output) if str(item.get("type", "")).startswith("mcp_")), default=-1)
    kinds = {item.get("type") for item in output}
    if "mcp_approval_request" in kinds and "function_call" not in kinds:
        last = len(output) - 1  # the model answers after the approvals: all of this is replayed as it came
    head = [item for item in output[:last + 1] if item.get("type") != "function_call"]
    tail = [item for item in output if item not in head]
    calls = [function_call_of(item, n) for n, item in enumerate(i for i in tail if i.get("type") == "function_call")]
    reasoning = [{"id": item.get("id", ""), "type": "reasoning", "encrypted_content": item.get("encrypted_content"),
                  "summary": item.get("summary") or []} for item in tail if item.get("type") == "reasoning"]
    usage = getattr(response, "usage", None)
    cached = getattr(getattr(usage, "input_tokens_details", None), "cached_tokens", None)
    input_tokens, output_tokens = getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", None)
    model = getattr(response, "model", None)
    message = Message(role="assistant", content=text_of(tail), tool_calls=calls,
                      model=model if isinstance(model, str) else None,
                      finish_reason="tool_calls" if calls else "stop",
                      input_tokens=input_tokens if isinstance(input_tokens, int) else None,
                      output_tokens=output_tokens if isinstance(output_tokens, int) else None,
                      cache_read_tokens=cached if isinstance(cached, int) else None,
                      extra={"reasoning_items": reasoning} if reasoning else {})
    if head:
        message.provider = ProviderItems(
            head, [provider_call(i) for i in head if i.get("type") == "mcp_call"],
            [i for i in head if i.get("type") == "mcp_approval_request"], text_of(head))
    return message


class HostedAssembler:
    """Builds the assistant :class:`Message` of a streamed Responses answer, as the chat path's
    ``TurnAssembler`` does for a completion stream: ``add`` each event (it gives the chunks to show),
    ``partial`` when the caller left, ``message`` at the end. A finished ``mcp_call`` shows as a
    ``tool_start`` / ``tool_end`` pair where it happened (its hooks ran as the event passed)."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reported: set[str] = set()
        self.completed: object = None
        self.model: str | None = None

    def add(self, event: object) -> list[Chunk]:
        happened = kind(event)
        if happened == "response.output_text.delta":
            delta = str(getattr(event, "delta", "") or "")
            self.text.append(delta)
            return [Chunk(content=delta, raw=event)]
        if happened == "response.output_item.done":
            item = plain(getattr(event, "item", None) or {})
            if item.get("type") == "mcp_call":
                done = provider_call(item)
                self.reported.add(done.call.id)
                return [Chunk(event="tool_start", tool_call=done.call),
                        Chunk(event="tool_end", tool_call=done.call, tool_result=done.result)]
            if item.get("type") == "function_call":
                call = function_call_of(item)
                return [Chunk(event="tool_call", tool_calls={call.id: call}, raw=event)]
        elif happened == "response.created":
            model = getattr(getattr(event, "response", None), "model", None)
            self.model = model if isinstance(model, str) else None
        elif happened in ("response.completed", "response.incomplete"):
            self.completed = getattr(event, "response", None)
        return []

    def partial(self) -> Message | None:
        """The text shown so far, as the model's answer (``None`` when there is none)."""
        shown = "".join(self.text)
        return Message(role="assistant", content=shown, model=self.model) if shown else None

    def message(self) -> Message:
        message = read_response(self.completed)
        if message.provider is not None:
            message.provider.reported |= self.reported
        return message


# -- the history as Responses input ------------------------------------------------------------------------


def responses_input(messages: Sequence[Mapping[str, object]]) -> tuple[list[object], str | None]:
    """The input items and instructions for ``messages``: LiteLLM's converter for the chat's own messages,
    the provider's MCP items as they came (and the tool messages answering hosted calls left out)."""
    items: list[object] = []
    instructions: list[str] = []
    run: list[dict[str, object]] = []
    hosted: set[object] = set()

    def flush() -> None:
        if run:
            converted, said = _llm.responses_input(list(run))
            items.extend(converted)
            if said:
                instructions.append(said)
            run.clear()

    for message in messages:
        if message.get("role") == "tool" and message.get("tool_call_id") in hosted:
            continue
        if message.get("role") == "assistant" and MCP_ITEMS in message:
            flush()
            items.extend(_list(message[MCP_ITEMS]))
            hosted.update(call.get("id") for call in _list(message.get("tool_calls")) if isinstance(call, dict))
            continue
        run.append(dict(message))
    flush()
    return items, " ".join(instructions) or None


__all__ = ["MCP_ITEMS", "HostedAssembler", "Item", "ProviderCall", "ProviderItems", "plain", "read_response",
           "responses_input"]
