"""The tool loop of a chat: ask the model, run the tools it calls, ask again, until it answers in text.

One turn (``ToolLoop.run``) is a sequence of steps; a step (``ToolLoop.step``) is one model request
(``ToolLoop.generate``: streamed or not, it gives the chunks and the assistant :class:`Message`) and,
when the model asked for tools, one round of them (``ToolLoop.run_round``): the round's calls run
concurrently in a task group, each answered by one tool message. Every call, whoever makes it (the model,
or its program in code mode), goes through ``ToolLoop.run_one_call``: ``tool_call`` hooks, the
``tool_start`` event, ``toolset.call_tool(name, arguments, ctx)`` on the chat's one toolset (its tools and
built-ins, see ``_chat/chat_tools.py``) with an explicit :class:`CallContext`, ``tool_result`` hooks, the
``tool_end`` event.

A call always ends in a :class:`ToolResult`, whatever goes wrong: unknown names, arguments that are not
JSON or do not fit, a tool that fails, times out or whose server died all become error results the model
can read, so the conversation carries on and every call gets its answer.

What a turn leaves in ``chat.messages``: if the model fails before answering, the messages of this turn
(its question) are removed, so the question can simply be asked again. If the caller leaves a stream
while the model is writing, the text shown so far stays as the model's answer. Tool calls left without
an answer (the caller left mid-round, ``max_tool_rounds`` reached) get an error tool message each, so
the history stays valid for every provider.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing, suppress
from dataclasses import dataclass
from typing import Any

import anyio

from mcp_litellm import _llm
from mcp_litellm._chat import hosted
from mcp_litellm._chat.apps import AppView, app_view
from mcp_litellm._chat.chat_tools import ChatTools
from mcp_litellm._chat.hooks import CallOrigin, ChatView, Hooks, MessageContext, ToolContext
from mcp_litellm._chat.hosted.turn import HostedChat
from mcp_litellm._chat.message import Chunk, Message, ToolCall, Usage, parse_arguments
from mcp_litellm._chat.prompt_cache import mark_breakpoints
from mcp_litellm._chat.responses_api import check_api, request_model
from mcp_litellm._chat.stream import TurnAssembler, message_from_response
from mcp_litellm._client.tool import ToolResult
from mcp_litellm._client.toolset import CallContext
from mcp_litellm._core import telemetry
from mcp_litellm._core.code_run import CodeRun
from mcp_litellm._core.errors import MCPLiteLLMError, ToolLoopLimitError

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

logger = logging.getLogger("mcp_litellm")

Emit = Callable[[Chunk], None]
"""Where ``tool_start`` / ``tool_end`` events go (``None``: nowhere, when the answer is not streamed)."""

INTERRUPTED = "Tool call was not run: the conversation was interrupted before it ran."


@dataclass
class _Turn:
    """What one turn has done so far."""

    stream: bool
    rounds: int = 0
    done: bool = False


class ToolLoop:
    """Runs the turns of one chat: its conversation, limits and usage (``chat``, a :class:`ChatView`), its
    tools (``tools``: every call goes to ``tools.toolset``), its ``hooks``, and ``provider_model`` (the model
    whose provider rules apply) and ``check_params`` (the chat's LiteLLM keywords, checked before a request).

    ``host`` is the chat as the hosted MCP room reads it (``_chat/hosted/``: its servers, hooks and model)."""

    def __init__(self, chat: ChatView, *, tools: ChatTools, hooks: Hooks, provider_model: Callable[[], str],
                 check_params: Callable[[], None], host: HostedChat) -> None:
        self.chat = chat
        self.tools = tools
        self.hooks = hooks
        self.provider_model = provider_model
        self.check_params = check_params
        self.host = host
        self.turn_usage = Usage()
        """Tokens and cost of the model requests of the current (or last) turn."""
        self._last_prompt_tokens = 0
        self._emit: Emit | None = None  # the events of the round under way (a code-mode program's calls too)
        self.app_views: dict[str, AppView] = {}
        """The views of the calls of tools with an interface (MCP Apps), by tool call id."""

    def traced(self, chunks: AsyncGenerator[Chunk, None], secrets: tuple[str, ...]) -> AsyncGenerator[Chunk, None]:
        """``chunks`` (one turn) inside an ``invoke_agent`` span when tracing (see ``_core.telemetry``);
        ``secrets``: parameter values no attribute may show."""
        if not telemetry.enabled():
            return chunks
        chat = self.chat
        span = telemetry.start("invoke_agent", {"gen_ai.operation.name": "invoke_agent",
                                                "gen_ai.request.model": chat.model})

        def describe(span: Any) -> None:
            usage, last = self.turn_usage, chat.last_message
            span.set_attributes({"gen_ai.usage.input_tokens": usage.prompt_tokens,
                                 "gen_ai.usage.output_tokens": usage.completion_tokens})
            if usage.cost is not None:
                span.set_attribute("mcp_litellm.usage.cost_usd", usage.cost)
            if last is not None and last.finish_reason:
                span.set_attribute("gen_ai.response.finish_reasons", [last.finish_reason])

        return telemetry.steps(span, chunks, describe, secrets)

    # -- a turn ------------------------------------------------------------------------------------

    async def run(self, stream: bool, start: int) -> AsyncGenerator[Chunk, None]:
        """Steps until the model answers in text; yields chunks (when ``stream``) and tool events.

        ``start`` is where this turn's messages (its question) begin in ``chat.messages``.
        """
        chat = self.chat
        asked = len(chat.messages)
        self.turn_usage = Usage()
        turn = _Turn(stream)
        try:
            # LiteLLM's first-use work, off the loop; its tokenizer only where tokens are counted: for tools,
            # and for a streamed answer (LiteLLM counts the tokens of a stream that reports no usage)
            await _llm.prepare(self.provider_model(), chat.router, tokens=stream or len(self.tools.box) > 0)
            self.check_params()  # LiteLLM's parameters are known now: a keyword it does not know stops here
            while not turn.done:
                async with aclosing(self.step(turn)) as chunks:
                    async for chunk in chunks:
                        yield chunk
        finally:
            if len(chat.messages) == asked:  # the model never answered: undo the question so it can be asked again
                del chat.messages[start:]
            else:
                answer_unanswered(chat.messages, INTERRUPTED)

    async def step(self, turn: _Turn) -> AsyncGenerator[Chunk, None]:
        """One model request; when the answer calls tools, one round of them (``turn.done`` when it does not).

        With hosted MCP servers, the provider's approval requests are answered in the round too
        (``_chat/hosted/``), and its own calls reported: one round, counted once, whoever calls."""
        message: Message | None = None
        async with aclosing(self.generate(turn.stream)) as pieces:
            async for piece in pieces:
                if isinstance(piece, Message):
                    message = piece
                else:
                    yield piece
        assert message is not None
        limit = self.chat.max_tool_rounds
        stopped = f"Error: not run: the chat stopped after max_tool_rounds={limit} rounds."
        provider = message.provider
        if provider is not None:
            rounds_left = turn.rounds < limit
            async with aclosing(hosted.settle(self.host, provider, stopped=None if rounds_left else stopped,
                                              emit=turn.stream)) as events:
                async for event in events:
                    yield event
        if hosted.only_provider(message):
            self.count_usage(message)  # the provider's message holds the answer: the model goes on after it
        else:
            await self._add_answer(message, turn.rounds)
        if not message.tool_calls and not (provider is not None and provider.approvals):
            turn.done = True
            return
        if turn.rounds >= limit:
            answer_unanswered(self.chat.messages, stopped)
            raise ToolLoopLimitError(limit, message)
        turn.rounds += 1
        if not message.tool_calls:
            return
        async with aclosing(self.run_round(message.tool_calls, events=turn.stream)) as events:
            async for event in events:
                yield event

    # -- one model request -------------------------------------------------------------------------

    async def generate(self, stream: bool) -> AsyncGenerator[Chunk | Message, None]:
        """One model request: its chunks when ``stream``, then the assistant :class:`Message` (last).

        If the caller leaves while a streamed answer is being written, the text received so far is added
        to the conversation as the model's answer (``chat.last_message``)."""
        provider_items = bool(self.host._hosted)  # hosted MCP servers: Responses items (_chat/hosted/)
        if not stream:
            answer = await self._complete(stream=False)
            yield hosted.read_response(answer) if provider_items else message_from_response(answer)
            return
        assembler = hosted.HostedAssembler() if provider_items else TurnAssembler()
        response = await self._complete(stream=True)
        try:
            async for raw in response:
                for chunk in assembler.add(raw):
                    yield chunk
        except (GeneratorExit, asyncio.CancelledError):  # the caller left mid-answer
            partial = assembler.partial()
            if partial is not None:
                self.chat.messages.append(partial.to_dict())
                self.chat.last_message = partial
            raise
        yield assembler.message()

    async def _complete(self, stream: bool) -> Any:
        chat = self.chat
        model = request_model(chat.model, check_api(chat.api), routed=chat.router is not None)
        kwargs: dict[str, Any] = {**chat.params, "model": model, "messages": list(chat.messages)}
        tools = await self.tools.request_definitions(self.provider_model())  # live sources: their tools now
        if self.host._hosted:  # with hosted MCP servers: the provider's own Responses API (_chat/hosted/)
            return await hosted.request(self.host, tools, stream=stream)
        if tools:
            kwargs["tools"] = tools
        mark_breakpoints(kwargs, self.provider_model(), chat.prompt_cache)
        if stream:
            kwargs["stream"] = True
            if "stream_options" not in kwargs and _llm.streams_usage(self.provider_model()):
                kwargs["stream_options"] = {"include_usage": True}  # else LiteLLM drops the stream's usage
        return await _llm.acompletion(router=chat.router, **kwargs)

    async def _add_answer(self, message: Message, rounds: int) -> None:
        """Count the request's usage, add the answer to the conversation, and tell ``new_message`` hooks."""
        chat = self.chat
        self.count_usage(message)
        chat.messages.append(message.to_dict())
        chat.last_message = message
        await self.hooks.new_message(message, MessageContext(chat, rounds))

    def count_usage(self, message: Message) -> None:
        """Add the usage of the request that wrote ``message`` to the turn's and the chat's (and set
        ``message.usage`` to the turn's so far)."""
        chat = self.chat
        prompt, completion = message.input_tokens or 0, message.output_tokens or 0
        cache_read, cache_write = message.cache_read_tokens or 0, message.cache_write_tokens or 0
        cost = _llm.completion_cost(self.provider_model(), message.raw, prompt_tokens=prompt,
                                    completion_tokens=completion, cache_read_tokens=cache_read,
                                    cache_write_tokens=cache_write)
        request = Usage(prompt, completion, cost, 1, cache_read, cache_write)
        self.turn_usage = self.turn_usage + request
        chat.usage = chat.usage + request
        message.usage = self.turn_usage
        self._last_prompt_tokens = prompt + completion

    # -- one round of tools ------------------------------------------------------------------------

    async def run_round(self, calls: list[ToolCall], *, events: bool) -> AsyncGenerator[Chunk, None]:
        """Run one round of tool calls concurrently and append their tool messages; with ``events``, yield
        each call's ``tool_start`` and ``tool_end`` as they happen.

        The round runs in a task group of its own (in a task of its own when it has events to yield, so
        that no task group is held open across a ``yield``); leaving early cancels it."""
        if not events:
            results = await self.answer_round(calls, None)
        else:
            send, receive = anyio.create_memory_object_stream[Chunk](math.inf)

            def emit(chunk: Chunk) -> None:
                with suppress(anyio.BrokenResourceError):  # the caller left: nobody reads the events
                    send.send_nowait(chunk)

            async def answer() -> list[ToolResult]:
                with send:  # closed when the round is over, which ends the events below
                    return await self.answer_round(calls, emit)

            round_task = asyncio.ensure_future(answer())
            try:
                with receive:
                    async for event in receive:
                        yield event
                results = await round_task
            finally:
                if not round_task.done():  # the caller left or was cancelled: so is the round
                    round_task.cancel()
                    await asyncio.wait([round_task])
        self.chat.messages.extend(ToolResult.batch_messages(
            [(c.id, r) for c, r in zip(calls, results, strict=True)], model=self.provider_model()))

    async def answer_round(self, calls: list[ToolCall], emit: Emit | None) -> list[ToolResult]:
        """The results of one round's ``calls``, run concurrently, in the order of the calls."""
        model = self.provider_model()
        prompt = self._last_prompt_tokens or _llm.count_tokens(model, messages=self.chat.messages)
        self.tools.budget.start_round(prompt, len(calls))
        self._emit = emit
        results: dict[int, ToolResult] = {}

        async def answer(index: int, call: ToolCall) -> None:
            ctx = CallContext(origin="model", tool_call_id=call.id, timeout=self.chat.tool_timeout)
            results[index] = await self.run_one_call(call, ctx)

        try:
            async with anyio.create_task_group() as group:
                for index, call in enumerate(calls):
                    group.start_soon(answer, index, call)
        except BaseExceptionGroup as failed:  # a call failed outside its result (a bug): raise it as itself
            if len(failed.exceptions) == 1:
                raise failed.exceptions[0] from None
            raise
        return [results[index] for index in range(len(calls))]

    async def run_one_call(self, call: ToolCall, ctx: CallContext) -> ToolResult:
        """Run one tool call the way every call runs: ``tool_call`` hooks, a ``tool_start`` event,
        ``toolset.call_tool(call.name, arguments, ctx)``, ``tool_result`` hooks, a ``tool_end`` event. Never
        raises for the tool's sake: failures are error results.

        ``ctx`` says who made the call (the hooks' :attr:`ToolContext.origin`), its id and code-mode run;
        the events go to the round's (none when the answer is not streamed)."""
        emit = self._emit
        tool = self.tools.box.mcp_tool(call.name)
        context = ToolContext(chat=self.chat, call=call, tool_name=call.name,
                              server=tool.server if tool is not None else None, tool=tool, origin=_origin(ctx),
                              code_run=ctx.code_run, call_context=ctx)
        with CodeRun.serving(ctx.code_run):  # the deprecated CodeRun.current() answers in the hooks
            await self.hooks.tool_call(call, context)
        if emit is not None:
            emit(Chunk(event="tool_start", tool_call=call))
        result = await self._execute(call, ctx)
        with CodeRun.serving(ctx.code_run):
            await self.hooks.tool_result(result, context)
        if emit is not None:
            emit(Chunk(event="tool_end", tool_call=call, tool_result=result))
        view = app_view(tool, call.id, call.arguments, result)
        if view is not None:
            self.app_views[call.id] = view
            if emit is not None:
                emit(Chunk(event="app", app=view))
        return result

    async def _execute(self, call: ToolCall, ctx: CallContext) -> ToolResult:
        """The call's arguments parsed, then the chat's toolset: every failure an error result."""
        try:
            arguments = parse_arguments(call.arguments)
        except ValueError as exc:
            return ToolResult.error(f"Error: could not call {call.name}: {exc}. Call it again with the arguments "
                                    "as one JSON object.", call.name)
        try:
            return await self.tools.toolset.call_tool(call.name, arguments, ctx)
        except MCPLiteLLMError as exc:
            return ToolResult.error(f"Error: the tool {call.name} failed: {exc}", call.name)
        except Exception as exc:
            logger.warning("tool %s raised %s: %s", call.name, type(exc).__name__, exc)
            return ToolResult.error(f"Error: the tool {call.name} raised {type(exc).__name__}: {exc}", call.name)


def _origin(ctx: CallContext) -> CallOrigin:
    """Who made a call, as the hooks see it (a chat's calls come from the model, its program or the provider)."""
    return "code" if ctx.origin == "code" else "provider" if ctx.origin == "provider" else "model"


def answer_unanswered(messages: list[dict[str, Any]], text: str) -> None:
    """Give every tool call of the last assistant message that has no tool message an error answer."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "assistant":
            break
    else:
        return
    calls = message.get("tool_calls") or []
    answered = {m.get("tool_call_id") for m in messages[index + 1:] if m.get("role") == "tool"}
    missing = [{"role": "tool", "tool_call_id": c["id"], "content": text} for c in calls if c["id"] not in answered]
    if missing:  # tool messages go right after the assistant message and its other tool messages
        position = index + 1
        while position < len(messages) and messages[position].get("role") == "tool":
            position += 1
        messages[position:position] = missing
