"""What a chat hands back: ``Message`` (one turn of the history), ``ToolCall`` and streamed ``Chunk``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from mcp_litellm._chat.apps import AppView
from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._core.usage import Usage

__all__ = ["Chunk", "ChunkEvent", "Message", "ToolCall", "Usage", "parse_arguments"]

ChunkEvent = Literal["content", "tool_call", "tool_start", "tool_end", "app"]


def parse_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    """The arguments of a tool call as a dict; empty text is ``{}``.

    Raises ``ValueError`` with a message the model can act on when the text is not a JSON object.
    """
    if isinstance(raw, dict):
        return raw
    if raw is None or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        shown = raw if len(raw) <= 200 else raw[:200] + "..."
        raise ValueError(f"the arguments are not valid JSON ({exc.msg} at position {exc.pos}): {shown}") from None
    if not isinstance(value, dict):
        raise ValueError(f"the arguments must be a JSON object, got {type(value).__name__}: {raw[:200]}")
    return value


@dataclass
class ToolCall:
    """A tool call the model asked for.

    Attributes:
        id: the call id that the tool message answering it must carry.
        name: the tool name the model used.
        arguments: the arguments as JSON text, exactly as the model sent them (while streaming: the
            text received so far).
        index: the position of the call within its turn.
    """

    id: str
    name: str
    arguments: str = ""
    index: int = 0

    @property
    def args(self) -> dict[str, Any]:
        """The arguments parsed into a dict (``ValueError`` when the model sent invalid JSON)."""
        return parse_arguments(self.arguments)

    def to_dict(self) -> dict[str, Any]:
        """The OpenAI/LiteLLM form used in an assistant message's ``tool_calls``."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


Item: TypeAlias = "dict[str, object]"
"""One Responses API input or output item, as plain JSON."""

@dataclass
class ProviderCall:
    """A call the provider made to a hosted server (or asked to make and was denied), and its result."""

    call: ToolCall
    result: ToolResult
    label: str | None


@dataclass
class ProviderItems:
    """The provider-side part of one answer: everything up to its last MCP item, replayed as it came."""

    head: list[Item]
    calls: list[ProviderCall]
    """The ``mcp_call`` items: calls the provider made, with what they returned."""
    approvals: list[Item]
    """The ``mcp_approval_request`` items: calls the provider asks the user's approval for."""
    text: str = ""
    """The text the model wrote among them."""
    reported: set[str] = field(default_factory=set)
    """Ids of the calls whose hooks and events already ran (while the answer streamed)."""


@dataclass
class Message:
    """One message of a conversation; ``str(message)`` is its text.

    Attributes:
        role: ``"assistant"``, ``"user"``, ``"tool"`` or ``"system"``.
        content: the text (``""`` when there is none).
        tool_calls: the tool calls an assistant message asked for.
        tool_call_id: for tool messages, the call they answer.
        model: the model that wrote an assistant message, as the provider reported it.
        finish_reason: why the model stopped (``"stop"``, ``"length"``, ``"tool_calls"``, ...).
        input_tokens, output_tokens: token usage of the request that wrote this message, when the
            provider reported it.
        cache_read_tokens, cache_write_tokens: of that request's input tokens, how many the provider read
            from and wrote to its prompt cache, when it said (see :class:`Usage`).
        usage: for the assistant messages of an ``ask``: :class:`Usage` summed over every model request
            of the turn so far (the final answer's covers the whole turn, tool rounds included).
        raw: the LiteLLM response object the message came from (``None`` for streamed turns).
        provider: for an answer from a chat with hosted MCP servers, its provider-side part (the calls the
            provider made, the approvals it asks for); ``None`` otherwise.
    """

    role: str
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    model: str | None = None
    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    raw: Any = field(default=None, repr=False)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    usage: Usage | None = field(default=None, repr=False)
    cache_read_tokens: int | None = field(default=None, repr=False)
    cache_write_tokens: int | None = field(default=None, repr=False)
    provider: ProviderItems | None = field(default=None, repr=False, compare=False)

    @property
    def text(self) -> str:
        """The message text (same as ``str(message)``)."""
        return self.content

    def __str__(self) -> str:
        return self.content

    def to_dict(self) -> dict[str, Any]:
        """The message as LiteLLM takes it in ``messages``."""
        message: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            message["content"] = self.content or None
            message["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            message["tool_call_id"] = self.tool_call_id
        message.update(self.extra)
        return message


@dataclass
class Chunk:
    """One piece of a streamed answer.

    Attributes:
        content: new text (``""`` when this chunk carries none).
        event: ``"content"`` (text), ``"tool_call"`` (a tool call's name or arguments grew),
            ``"tool_start"`` (a tool is about to run), ``"tool_end"`` (it finished), ``"app"`` (right after
            the ``tool_end`` of a tool with an interface, MCP Apps: ``app`` says what a host renders).
        tool_calls: the tool calls of the current turn so far, keyed by call id, each with the name
            and the argument text received until now.
        tool_call: for ``tool_start`` / ``tool_end``, the call concerned.
        tool_result: for ``tool_end``, what the tool returned.
        reasoning: new reasoning text, for models that stream it.
        raw: the LiteLLM stream chunk (``None`` for tool events).
        app: for ``app``, the :class:`~mcp_litellm.AppView` of the call.
    """

    content: str = ""
    event: ChunkEvent = "content"
    tool_calls: dict[str, ToolCall] = field(default_factory=dict)
    tool_call: ToolCall | None = None
    tool_result: ToolResult | None = None
    reasoning: str = ""
    raw: Any = field(default=None, repr=False)
    app: AppView | None = None

    @property
    def is_app(self) -> bool:
        """True when a tool with an interface ran (``app`` says which; MCP Apps)."""
        return self.event == "app"

    @property
    def is_tool_call(self) -> bool:
        """True when this chunk carries tool-call fragments from the model."""
        return self.event == "tool_call"

    @property
    def is_tool_start(self) -> bool:
        """True when a tool is about to run (``tool_call`` says which)."""
        return self.event == "tool_start"

    @property
    def is_tool_end(self) -> bool:
        """True when a tool finished (``tool_call`` and ``tool_result`` say which and what)."""
        return self.event == "tool_end"

    def __str__(self) -> str:
        return self.content
