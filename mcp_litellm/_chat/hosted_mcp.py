"""Hosted MCP tools: a remote MCP server the provider calls itself (``chat.with_hosted_mcp``).

The chat offers the server to the model as a native Responses API tool (``{"type": "mcp", "server_label",
"server_url", "allowed_tools", "require_approval", "headers"}``); the provider lists its tools and calls
them without a round trip through the user's process. LiteLLM's completion-to-Responses bridge passes
such a tool on but drops the ``mcp_call``, ``mcp_list_tools`` and ``mcp_approval_request`` items of the
answer, so a chat with hosted servers sends its requests through ``litellm.aresponses`` itself:

- the history (``chat.messages``) goes out as Responses input items (LiteLLM's own converter), except
  the provider's MCP items, which are replayed as they came (an ``mcp_list_tools`` item spares a listing);
- each ``mcp_call`` the provider made fires the chat's ``tool_call`` / ``tool_result`` hooks (context
  ``origin="provider"``) and, when streaming, ``tool_start`` / ``tool_end`` events, and enters the
  history as an assistant message with those tool calls (its ``mcp_items`` the raw items) and one tool
  message per call, as local calls do;
- each ``mcp_approval_request`` goes to the user's approval handler (the client's ``human_in_the_loop``,
  else ``ml.config``'s); the ``mcp_approval_response`` rides in the next request, until the model answers.
  A denied call enters the history as a call answered "Tool call was denied: REASON".

Function calls to the chat's own tools in the same answer are run by the tool loop as usual.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Final

from mcp_litellm import _llm
from mcp_litellm._chat.hooks import ToolContext
from mcp_litellm._chat.loop_host import LoopHost
from mcp_litellm._chat.message import Chunk, Message, ToolCall, parse_arguments
from mcp_litellm._chat.responses_api import plain_model
from mcp_litellm._client.tool import ToolResult
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, ToolLoopLimitError
from mcp_litellm.handlers._approval import decide_tool_call

logger = logging.getLogger("mcp_litellm")

MCP_ITEMS = "mcp_items"
"""The key of an assistant message holding the provider's raw MCP items (replayed as they came)."""
PROVIDERS = ("openai", "azure")
"""Providers whose Responses API calls MCP servers itself, through LiteLLM."""
ORIGIN: Final = "provider"
""":attr:`ToolContext.origin` of a call the provider made to a hosted server."""


def hosted_model(chat: LoopHost) -> str:
    """The model to send hosted-MCP requests to (``provider/model``), or a :class:`ConfigError` saying why
    the chat's model cannot call MCP servers itself."""
    if chat.router is not None:
        raise ConfigError("with_hosted_mcp() sends requests through litellm.aresponses, not a Router: give the Chat "
                          "the deployment's model, api_base and api_key instead of router=")
    name, provider = _llm.llm_provider(plain_model(chat.model))
    if provider not in PROVIDERS:
        raise ConfigError(
            f"hosted MCP servers need a provider that calls MCP servers itself through LiteLLM: OpenAI's (or "
            f"Azure's) Responses API; {chat.model!r} is {provider or 'of no provider LiteLLM knows'}. (LiteLLM "
            "1.106.2 passes Anthropic's MCP connector in the request but drops its mcp_tool_use/mcp_tool_result "
            "blocks from the answer, so the chat could not show or approve those calls.) Offer the server's tools "
            "with chat.with_tools(client) instead")
    return f"{provider}/{name}"


# -- the history as Responses input ------------------------------------------------------------------------


def responses_input(messages: Sequence[dict[str, Any]]) -> tuple[list[Any], str | None]:
    """The input items and instructions for ``messages``: LiteLLM's converter for the chat's own messages,
    the provider's MCP items as they came (and the tool messages answering hosted calls left out)."""
    items: list[Any] = []
    instructions: list[str] = []
    run: list[dict[str, Any]] = []
    hosted: set[str] = set()

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
            items.extend(message[MCP_ITEMS])
            hosted.update(call["id"] for call in message.get("tool_calls") or [])
            continue
        run.append(message)
    flush()
    return items, " ".join(instructions) or None


def _plain(item: Any) -> dict[str, Any]:
    """An output item as a plain dict (LiteLLM gives OpenAI SDK objects, its own objects or dicts)."""
    if isinstance(item, dict):
        return item
    dump = getattr(item, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else dict(vars(item))


def _kind(event: Any) -> str:
    kind = getattr(event, "type", None)
    return str(getattr(kind, "value", kind))


# -- one step: requests until the model answers without pending approvals ----------------------------------


@dataclass
class _Answer:
    """One response, sorted: the part up to its last MCP item (replayed raw) and the rest."""

    head: list[dict[str, Any]]
    calls: list[dict[str, Any]]  # mcp_call items
    approvals: list[dict[str, Any]]  # mcp_approval_request items
    text: str
    function_calls: list[ToolCall]
    reasoning: list[dict[str, Any]]
    usage: Any
    model: str | None


def _sort(response: Any) -> _Answer:
    output = [_plain(item) for item in getattr(response, "output", None) or []]
    last = max((i for i, item in enumerate(output) if str(item.get("type", "")).startswith("mcp_")), default=-1)
    kinds = {item.get("type") for item in output}
    if "mcp_approval_request" in kinds and "function_call" not in kinds:
        last = len(output) - 1  # the model answers after the approvals: all of this is replayed as it came
    head = [item for item in output[:last + 1] if item.get("type") != "function_call"]
    tail = [item for item in output if item not in head]
    function_calls = [ToolCall(id=str(item.get("call_id") or item.get("id")), name=str(item.get("name", "")),
                               arguments=str(item.get("arguments") or ""), index=n)
                      for n, item in enumerate(i for i in tail if i.get("type") == "function_call")]
    reasoning = [{"id": item.get("id", ""), "type": "reasoning", "encrypted_content": item.get("encrypted_content"),
                  "summary": item.get("summary") or []} for item in tail if item.get("type") == "reasoning"]
    return _Answer(head, [i for i in head if i.get("type") == "mcp_call"],
                   [i for i in head if i.get("type") == "mcp_approval_request"], _text(tail), function_calls,
                   reasoning, getattr(response, "usage", None), getattr(response, "model", None))


def _text(items: Sequence[dict[str, Any]]) -> str:
    return "".join(str(part.get("text") or "") for item in items if item.get("type") == "message"
                   for part in item.get("content") or [] if isinstance(part, dict))


def _message(answer: _Answer, *, final: bool) -> Message:
    """The assistant :class:`Message` of ``answer`` (its text, function calls and usage)."""
    usage = answer.usage
    details = getattr(usage, "input_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    extra: dict[str, Any] = {"reasoning_items": answer.reasoning} if answer.reasoning and final else {}
    return Message(role="assistant", content=answer.text if final else "", tool_calls=answer.function_calls,
                   model=answer.model, finish_reason="tool_calls" if answer.function_calls else "stop",
                   input_tokens=getattr(usage, "input_tokens", None),
                   output_tokens=getattr(usage, "output_tokens", None),
                   cache_read_tokens=cached if isinstance(cached, int) else None, extra=extra)


def _result(item: dict[str, Any]) -> ToolResult:
    """What a hosted ``mcp_call`` returned (or its error), as a :class:`ToolResult`."""
    from mcp_types import TextContent

    name = str(item.get("name", ""))
    if item.get("error"):
        error = item["error"]
        return ToolResult.error(f"Error: {error if isinstance(error, str) else json.dumps(error)}", name)
    output = item.get("output")
    text = output if isinstance(output, str) else "" if output is None else json.dumps(output)
    return ToolResult(content=[TextContent(type="text", text=text)], tool_name=name)


class HostedStep:
    """One step of a chat with hosted servers: requests to ``litellm.aresponses`` until the model answers
    with text or with calls to the chat's own tools (approval requests answered in between)."""

    def __init__(self, chat: LoopHost, count: Callable[[Message], None]) -> None:
        self.chat = chat
        self.count = count  # adds an intermediate request's usage to the turn's and the chat's
        self.servers = {server.label: server for server in chat._hosted}
        self.reported: set[str] = set()  # ids of the calls whose hooks ran (streaming reports them early)

    async def run(self, stream: bool) -> AsyncGenerator[Chunk | Message, None]:
        """Yields chunks (text, tool events) and, last, the assistant :class:`Message` for the tool loop."""
        requests = 0
        while True:
            requests += 1
            answer: _Answer | None = None
            shown: list[str] = []
            try:
                async with aclosing(self._request(stream)) as pieces:  # leaving early closes the provider's stream
                    async for piece in pieces:
                        if isinstance(piece, _Answer):
                            answer = piece
                        else:
                            shown.append(piece.content)
                            yield piece
            except (GeneratorExit, asyncio.CancelledError):  # the caller left mid-answer: keep the text shown
                if "".join(shown):
                    partial = Message(role="assistant", content="".join(shown), model=self.chat.model)
                    self.chat.messages.append(partial.to_dict())
                    self.chat.last_message = partial
                raise
            assert answer is not None
            calls: list[tuple[ToolCall, ToolResult]] = []
            for item in answer.calls:
                call, result = self._call_of(item), _result(item)
                if call.id not in self.reported:
                    for chunk in await self._report(call, result, item.get("server_label"), emit=stream):
                        yield chunk
                calls.append((call, result))
            responses: list[dict[str, Any]] = []
            for request in answer.approvals:
                denial = await self._decide(request)
                response = {"type": "mcp_approval_response", "approval_request_id": request["id"],
                            "approve": denial is None}
                if denial is not None:
                    response["reason"] = denial
                    call, result = self._call_of(request), ToolResult.error(f"Tool call was denied: {denial}",
                                                                          str(request.get("name", "")))
                    for chunk in await self._report(call, result, request.get("server_label"), emit=stream):
                        yield chunk
                    calls.append((call, result))
                responses.append(response)
            if answer.head:
                self._remember(answer, calls, responses)
            pending = bool(answer.approvals) and not answer.function_calls
            message = _message(answer, final=not pending)
            if not pending:
                yield message
                return
            self.count(message)  # the model has not answered yet: ask again, with the approval responses
            if requests > self.chat.max_tool_rounds:
                raise ToolLoopLimitError(self.chat.max_tool_rounds, message)

    async def _request(self, stream: bool) -> AsyncGenerator[Chunk | _Answer, None]:
        chat = self.chat
        await chat._tools.refresh()
        items, instructions = responses_input(chat.messages)
        own = chat._offer.definitions(chat._provider_model(), chat.messages)
        tools = [*_llm.responses_tools(own),
                 *[await server.definition() for server in self.servers.values()]]
        params = dict(chat.params)
        if "max_tokens" in params:
            params.setdefault("max_output_tokens", params.pop("max_tokens"))
        kwargs: dict[str, Any] = {**params, "model": hosted_model(chat), "input": items, "tools": tools}
        if instructions:
            kwargs["instructions"] = instructions
        if not stream:
            yield _sort(await _llm.aresponses(**kwargs))
            return
        completed: Any = None
        async for event in await _llm.aresponses(**kwargs, stream=True):
            kind = _kind(event)
            if kind == "response.output_text.delta":
                yield Chunk(content=str(getattr(event, "delta", "") or ""), raw=event)
            elif kind == "response.output_item.done":
                item = _plain(getattr(event, "item", None) or {})
                if item.get("type") == "mcp_call":  # the provider's call is done: tell the hooks now
                    call = self._call_of(item)
                    for chunk in await self._report(call, _result(item), item.get("server_label"), emit=True):
                        yield chunk
                elif item.get("type") == "function_call":
                    call = ToolCall(id=str(item.get("call_id") or item.get("id")), name=str(item.get("name", "")),
                                    arguments=str(item.get("arguments") or ""))
                    yield Chunk(event="tool_call", tool_calls={call.id: call}, raw=event)
            elif kind in ("response.completed", "response.incomplete"):
                completed = getattr(event, "response", None)
            elif kind in ("response.failed", "error"):
                raise MCPLiteLLMError(f"the provider's response failed: {_plain(event)}")
        if completed is None:
            raise MCPLiteLLMError("the provider's stream ended without a completed response")
        yield _sort(completed)

    @staticmethod
    def _call_of(item: dict[str, Any]) -> ToolCall:
        return ToolCall(id=str(item.get("id", "")), name=str(item.get("name", "")),
                        arguments=str(item.get("arguments") or ""))

    async def _report(self, call: ToolCall, result: ToolResult, label: Any, *, emit: bool) -> list[Chunk]:
        """Run the ``tool_call`` and ``tool_result`` hooks for a call the provider made (or was denied);
        the ``tool_start`` / ``tool_end`` events to yield when streaming."""
        self.reported.add(call.id)
        server = self.servers.get(str(label)) if label is not None else None
        tool = await server.tool(call.name) if server is not None else None
        context = ToolContext(chat=self.chat, call=call, tool_name=call.name, server=str(label) if label else None,
                              tool=tool, origin=ORIGIN)
        await self.chat._hooks.tool_call(call, context)
        await self.chat._hooks.tool_result(result, context)
        if not emit:
            return []
        return [Chunk(event="tool_start", tool_call=call), Chunk(event="tool_end", tool_call=call, tool_result=result)]

    async def _decide(self, request: dict[str, Any]) -> str | None:
        """The approval handler's verdict on a call the provider asks to make: a denial reason or ``None``."""
        label = str(request.get("server_label", ""))
        server = self.servers.get(label)
        spec = server.approval_spec() if server is not None else None
        name = str(request.get("name", ""))
        if spec is None:
            logger.warning("the provider asks to approve %s on hosted server %r, but no approval handler is set: "
                           "denied", name, label)
            return ("no approval handler is set (client.on_human_in_the_loop(...) or "
                    "ml.configure(human_in_the_loop=...))")
        try:
            arguments = parse_arguments(request.get("arguments"))
        except ValueError as exc:
            return f"the provider sent arguments that are not a JSON object ({exc})"
        tool = await server.tool(name) if server is not None else None
        return await decide_tool_call(spec, tool if tool is not None else _Named(name), arguments, label)

    def _remember(self, answer: _Answer, calls: list[tuple[ToolCall, ToolResult]],
                  responses: list[dict[str, Any]]) -> None:
        """Add the provider's MCP items to the history: one assistant message with its calls (and the raw
        items, replayed in later requests), then one tool message per call."""
        chat = self.chat
        message = Message(role="assistant", content=_text(answer.head), tool_calls=[call for call, _ in calls],
                          model=answer.model, extra={MCP_ITEMS: [*answer.head, *responses]})
        chat.messages.append(message.to_dict())
        if calls:
            chat.messages.extend(ToolResult.batch_messages([(c.id, r) for c, r in calls],
                                                           model=chat._provider_model()))


@dataclass(frozen=True)
class _Named:
    """What an approval handler sees of a tool the chat has no :class:`Tool` for (a server given by URL)."""

    mcp_name: str
    annotations: Any = None
    client: Any = None


__all__ = ["HostedStep", "hosted_model", "responses_input"]
