"""What a chat with hosted servers does in its tool loop's step: the request, and the provider's part of
the answer.

- :func:`request` is the step's model request: ``litellm.aresponses`` with the history as Responses
  input, the chat's own tools and one ``{"type": "mcp"}`` tool per server (LiteLLM's bridge cannot carry
  the provider's MCP items: see :mod:`.items`); a streamed answer passes through :func:`_watched`, which
  runs the hooks of each call the provider finished as its event passes, and turns a failed or cut
  stream into LiteLLM's exception, as the chat path raises;
- :func:`settle` answers the provider's part of the answer (``message.provider``) in the round: the hooks of
  the calls not yet reported (``tool_call`` / ``tool_result`` with ``origin="provider"``, and when
  streaming ``tool_start`` / ``tool_end``), each approval request asked of the server's approval handler
  (its ``mcp_approval_response`` rides in the next request), and the history: one assistant message with
  the provider's calls (its ``mcp_items`` the raw items, replayed as they came), one tool message per call.
  A denied call enters the history as a call answered "Tool call was denied: REASON".
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterable, Mapping, Sequence
from typing import Final, Protocol

from mcp_litellm import _llm
from mcp_litellm._chat.hooks import ChatView, Hooks, ToolContext
from mcp_litellm._chat.hosted.items import (
    MCP_ITEMS,
    Item,
    ProviderCall,
    ProviderItems,
    call_of,
    kind,
    plain,
    provider_call,
    responses_input,
    text_of,
)
from mcp_litellm._chat.hosted.server import HostedServer
from mcp_litellm._chat.message import Chunk, Message, parse_arguments
from mcp_litellm._chat.responses_api import RESPONSES_PROVIDERS, plain_model
from mcp_litellm._client.primitives.tool import Tool, ToolResult
from mcp_litellm._core.errors import ConfigError
from mcp_litellm.handlers import decide_tool_call

logger = logging.getLogger("mcp_litellm")

ORIGIN: Final = "provider"
""":attr:`ToolContext.origin` of a call the provider made to a hosted server."""
NO_HANDLER = "no approval handler is set (client.on_human_in_the_loop(...) or ml.configure(human_in_the_loop=...))"


class HostedChat(ChatView, Protocol):
    """What this room needs of the chat (a :class:`Chat` is one)."""

    _hosted: list[HostedServer]
    _hooks: Hooks

    def _provider_model(self) -> str: ...


def hosted_model(chat: ChatView) -> str:
    """The model to send hosted-MCP requests to (``provider/model``), or a :class:`ConfigError` saying why
    the chat's model cannot call MCP servers itself."""
    if chat.router is not None:
        raise ConfigError("with_hosted_mcp() sends requests through litellm.aresponses, not a Router: give the Chat "
                          "the deployment's model, api_base and api_key instead of router=")
    name, provider = _llm.llm_provider(plain_model(chat.model))
    if provider not in RESPONSES_PROVIDERS:
        raise ConfigError(
            f"hosted MCP servers need a provider that calls MCP servers itself through LiteLLM: OpenAI's (or "
            f"Azure's) Responses API; {chat.model!r} is {provider or 'of no provider LiteLLM knows'}. (LiteLLM "
            "1.106.2 passes Anthropic's MCP connector in the request but drops its mcp_tool_use/mcp_tool_result "
            "blocks from the answer, so the chat could not show or approve those calls.) Offer the server's tools "
            "with chat.with_tools(client) instead")
    return f"{provider}/{name}"


# -- the request ---------------------------------------------------------------------------------------------


async def request(chat: HostedChat, tools: Sequence[Mapping[str, object]], *, stream: bool) -> object:
    """One Responses request for the chat's history, offering ``tools`` (its own, as chat-completion
    definitions) and its hosted servers: the response, or (``stream``) its events."""
    items, instructions = responses_input(chat.messages)
    params = dict(chat.params)
    if "max_tokens" in params:
        params.setdefault("max_output_tokens", params.pop("max_tokens"))
    offered = [*_llm.responses_tools([dict(tool) for tool in tools]),
               *[await server.definition() for server in chat._hosted]]
    kwargs: dict[str, object] = {**params, "model": hosted_model(chat), "input": items, "tools": offered}
    if instructions:
        kwargs["instructions"] = instructions
    if not stream:
        response: object = await _llm.aresponses(**kwargs)
        error = getattr(response, "error", None)
        if error or getattr(response, "status", None) == "failed":
            raise _failure(kwargs, f"Error in response: {plain(error) if error is not None else 'failed'}")
        return response
    return _watched(chat, await _llm.aresponses(**kwargs, stream=True), kwargs)


async def _watched(chat: HostedChat, events: AsyncIterable[object],
                   kwargs: Mapping[str, object]) -> AsyncGenerator[object, None]:
    """The events of a streamed answer, as they come; the hooks of a call the provider finished run as its
    event passes. A failed or cut stream raises LiteLLM's exception (LiteLLM raises most of those itself)."""
    ended = False
    async for event in events:
        happened = kind(event)
        if happened == "response.output_item.done":
            item = plain(getattr(event, "item", None) or {})
            if item.get("type") == "mcp_call":
                await _report(chat, provider_call(item))
        elif happened in ("response.completed", "response.incomplete"):
            ended = True
        elif happened in ("response.failed", "error"):
            raise _failure(kwargs, f"the provider's response failed: {plain(event)}")
        yield event
    if not ended:
        raise _failure(kwargs, "the provider closed the responses stream before any terminal event "
                               "(response.completed, response.incomplete or response.failed)")


def _failure(kwargs: Mapping[str, object], said: str) -> Exception:
    """LiteLLM's ``APIConnectionError`` (as its bridge raises for a failed response on the chat path),
    explained as :func:`_llm.acompletion` explains failures."""
    model = str(kwargs.get("model", ""))
    name, provider = _llm.llm_provider(model)
    error: Exception = _llm.litellm_module().APIConnectionError(message=said, llm_provider=provider or "",
                                                                model=name)
    _llm.explain_failure(error, dict(kwargs))
    return error


# -- the provider's part of an answer ------------------------------------------------------------------------


def only_provider(message: Message) -> bool:
    """Whether the answer is all provider items (approval requests to answer, nothing else): the history
    holds it in the provider's message, and the model has not answered yet."""
    return message.provider is not None and bool(message.provider.approvals) and not (
        message.content or message.tool_calls)


async def settle(chat: HostedChat, provider: ProviderItems, *, stopped: str | None,
                 emit: bool) -> AsyncGenerator[Chunk, None]:
    """Report the provider's calls, answer its approval requests (or, ``stopped``, refuse them with that
    error: the round limit), and add its part of the answer to the history; yields the tool events when
    ``emit``."""
    calls = list(provider.calls)
    for done in provider.calls:
        if done.call.id not in provider.reported:
            await _report(chat, done)
            if emit:
                yield Chunk(event="tool_start", tool_call=done.call)
                yield Chunk(event="tool_end", tool_call=done.call, tool_result=done.result)
    responses: list[Item] = []
    for asked in provider.approvals:
        denial = await _decide(chat, asked) if stopped is None else stopped.removeprefix("Error: ")
        response: Item = {"type": "mcp_approval_response", "approval_request_id": asked["id"],
                          "approve": denial is None}
        if denial is not None:
            response["reason"] = denial
            text = f"Tool call was denied: {denial}" if stopped is None else stopped
            denied = ProviderCall(call_of(asked), ToolResult.error(text, str(asked.get("name", ""))),
                                  str(asked.get("server_label", "")))
            if stopped is None:
                await _report(chat, denied)
                if emit:
                    yield Chunk(event="tool_start", tool_call=denied.call)
                    yield Chunk(event="tool_end", tool_call=denied.call, tool_result=denied.result)
            calls.append(denied)
        responses.append(response)
    message = Message(role="assistant", content=text_of(provider.head), tool_calls=[c.call for c in calls],
                      extra={MCP_ITEMS: [*provider.head, *responses]})
    chat.messages.append(message.to_dict())
    if calls:
        chat.messages.extend(ToolResult.batch_messages([(c.call.id, c.result) for c in calls],
                                                       model=chat._provider_model()))


def _server(chat: HostedChat, label: str | None) -> HostedServer | None:
    return next((server for server in chat._hosted if server.label == label), None)


async def _report(chat: HostedChat, done: ProviderCall) -> None:
    """Run the ``tool_call`` and ``tool_result`` hooks for a call the provider made (or was denied)."""
    server = _server(chat, done.label)
    tool = await server.tool(done.call.name) if server is not None else None
    context = ToolContext(chat=chat, call=done.call, tool_name=done.call.name, server=done.label or None,
                          tool=tool if isinstance(tool, Tool) else None, origin=ORIGIN)
    await chat._hooks.tool_call(done.call, context)
    await chat._hooks.tool_result(done.result, context)


async def _decide(chat: HostedChat, asked: Item) -> str | None:
    """The approval handler's verdict on a call the provider asks to make: a denial reason or ``None``."""
    label = str(asked.get("server_label", ""))
    server = _server(chat, label)
    spec = server.approval() if server is not None else None
    name = str(asked.get("name", ""))
    if server is None or spec is None:
        logger.warning("the provider asks to approve %s on hosted server %r, but no approval handler is set: "
                       "denied", name, label)
        return NO_HANDLER
    arguments = asked.get("arguments")
    try:
        parsed = parse_arguments(arguments if isinstance(arguments, str | dict) else None)
    except ValueError as exc:
        return f"the provider sent arguments that are not a JSON object ({exc})"
    return await decide_tool_call(spec, await server.tool(name), parsed, label)


__all__ = ["HostedChat", "hosted_model", "only_provider", "request", "settle"]
