"""The tool loop of a chat: ask the model, run the tools it calls, ask again, until it answers in text.

One turn (``ToolLoop.run``) is a sequence of steps; a step (``ToolLoop.step``) is one model request
(``ToolLoop.generate``: streamed or not, it gives the chunks and the assistant :class:`Message`) and,
when the model asked for tools, one round of them (``ToolLoop.run_round``): the round's calls run
concurrently in a task group, each answered by one tool message. Every call, whoever makes it, goes
through ``ToolLoop.run_one_call``: ``tool_call`` hooks, the ``tool_start`` event, the tool or built-in,
the result budget (not for a code-mode program's calls: it reads their results whole), ``tool_result``
hooks, the ``tool_end`` event.

``run_call`` turns one :class:`ToolCall` into a :class:`ToolResult`, whatever goes wrong: unknown
names, arguments that are not JSON, a tool that fails, times out or whose server died all become error
results the model can read, so the conversation carries on and every call gets its answer.

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
from mcp_litellm._chat.hooks import MessageContext, ToolContext
from mcp_litellm._chat.hosted_mcp import HostedStep
from mcp_litellm._chat.loop_host import LoopHost
from mcp_litellm._chat.message import Chunk, Message, ToolCall, Usage, parse_arguments
from mcp_litellm._chat.prompt_cache import mark_breakpoints
from mcp_litellm._chat.responses_api import check_api, request_model
from mcp_litellm._chat.stream import TurnAssembler, message_from_response
from mcp_litellm._chat.toolbox import LocalTool, ToolBox
from mcp_litellm._client.tool import Tool, ToolResult
from mcp_litellm._client.toolset import CallContext
from mcp_litellm._core import telemetry
from mcp_litellm._core.code_run import CodeRun
from mcp_litellm._core.errors import MCPLiteLLMError, ToolLoopLimitError
from mcp_litellm._core.user_code import is_async_callable

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

logger = logging.getLogger("mcp_litellm")

Emit = Callable[[Chunk], None]
"""Where ``tool_start`` / ``tool_end`` events go (``None``: nowhere, when the answer is not streamed)."""

_NAME_LIMIT = 30  # how many tool names an "unknown tool" answer lists
INTERRUPTED = "Tool call was not run: the conversation was interrupted before it ran."


@dataclass
class _Turn:
    """What one turn has done so far."""

    stream: bool
    rounds: int = 0
    done: bool = False


class ToolLoop:
    """Runs the turns of one :class:`Chat`: its messages, tools, hooks, limits and usage are the chat's."""

    def __init__(self, chat: LoopHost) -> None:
        self.chat = chat
        self.turn_usage = Usage()
        """Tokens and cost of the model requests of the current (or last) turn."""
        self._last_prompt_tokens = 0

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
            await _llm.prepare(chat._provider_model(), chat.router, tokens=stream or len(chat._tools) > 0)
            chat._check_params()  # LiteLLM's parameters are known now: a keyword it does not know stops here
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
        """One model request; when the answer calls tools, one round of them (``turn.done`` when it does not)."""
        message: Message | None = None
        async with aclosing(self.generate(turn.stream)) as pieces:
            async for piece in pieces:
                if isinstance(piece, Message):
                    message = piece
                else:
                    yield piece
        assert message is not None
        await self._add_answer(message, turn.rounds)
        if not message.tool_calls:
            turn.done = True
            return
        limit = self.chat.max_tool_rounds
        if turn.rounds >= limit:
            error = f"Error: not run: the chat stopped after max_tool_rounds={limit} rounds."
            answer_unanswered(self.chat.messages, error)
            raise ToolLoopLimitError(limit, message)
        turn.rounds += 1
        async with aclosing(self.run_round(message.tool_calls, events=turn.stream)) as events:
            async for event in events:
                yield event

    # -- one model request -------------------------------------------------------------------------

    async def generate(self, stream: bool) -> AsyncGenerator[Chunk | Message, None]:
        """One model request: its chunks when ``stream``, then the assistant :class:`Message` (last).

        If the caller leaves while a streamed answer is being written, the text received so far is added
        to the conversation as the model's answer (``chat.last_message``)."""
        if self.chat._hosted:  # hosted MCP servers: the chat's own Responses API path (_chat/hosted_mcp.py)
            async with aclosing(HostedStep(self.chat, self.count_usage).run(stream)) as pieces:
                async for piece in pieces:
                    yield piece
            return
        if not stream:
            yield message_from_response(await self._complete(stream=False))
            return
        assembler = TurnAssembler()
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
        await chat._tools.refresh()  # clients and groups given to with_tools(): their tools as they are now
        model = request_model(chat.model, check_api(chat.api), routed=chat.router is not None)
        kwargs: dict[str, Any] = {**chat.params, "model": model, "messages": list(chat.messages)}
        tools = chat._offer.definitions(chat._provider_model(), chat.messages)
        if tools:
            kwargs["tools"] = tools
        mark_breakpoints(kwargs, chat._provider_model(), chat.prompt_cache)
        if stream:
            kwargs["stream"] = True
            if "stream_options" not in kwargs and _llm.streams_usage(chat._provider_model()):
                kwargs["stream_options"] = {"include_usage": True}  # else LiteLLM drops the stream's usage
        return await _llm.acompletion(router=chat.router, **kwargs)

    async def _add_answer(self, message: Message, rounds: int) -> None:
        """Count the request's usage, add the answer to the conversation, and tell ``new_message`` hooks."""
        chat = self.chat
        self.count_usage(message)
        chat.messages.append(message.to_dict())
        chat.last_message = message
        await chat._hooks.new_message(message, MessageContext(chat, rounds))

    def count_usage(self, message: Message) -> None:
        """Add the usage of the request that wrote ``message`` to the turn's and the chat's (and set
        ``message.usage`` to the turn's so far)."""
        chat = self.chat
        prompt, completion = message.input_tokens or 0, message.output_tokens or 0
        cache_read, cache_write = message.cache_read_tokens or 0, message.cache_write_tokens or 0
        cost = _llm.completion_cost(chat._provider_model(), message.raw, prompt_tokens=prompt,
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
            [(c.id, r) for c, r in zip(calls, results, strict=True)], model=self.chat._provider_model()))

    async def answer_round(self, calls: list[ToolCall], emit: Emit | None) -> list[ToolResult]:
        """The results of one round's ``calls``, run concurrently, in the order of the calls."""
        model = self.chat._provider_model()
        prompt = self._last_prompt_tokens or _llm.count_tokens(model, messages=self.chat.messages)
        budget = self.chat._offer.result_budget_for(model, prompt, len(calls))
        results: dict[int, ToolResult] = {}

        async def answer(index: int, call: ToolCall) -> None:
            results[index] = await self.run_one_call(call, emit=emit, budget=budget)

        try:
            async with anyio.create_task_group() as group:
                for index, call in enumerate(calls):
                    group.start_soon(answer, index, call)
        except BaseExceptionGroup as failed:  # a call failed outside its result (a bug): raise it as itself
            if len(failed.exceptions) == 1:
                raise failed.exceptions[0] from None
            raise
        return [results[index] for index in range(len(calls))]

    async def run_one_call(self, call: ToolCall, *, emit: Emit | None, budget: int | None,
                           origin: str = "model", code_run: CodeRun | None = None) -> ToolResult:
        """Run one tool call the way every call runs: ``tool_call`` hooks, a ``tool_start`` event, the tool
        (or the chat's built-in tool of that name), the result cut to ``budget`` tokens, ``tool_result``
        hooks, a ``tool_end`` event. Never raises for the tool's sake: failures are error results.

        ``emit`` receives the events (``None``: no events); ``origin`` says who made the call (the hooks'
        :attr:`ToolContext.origin`). ``budget=None``: the result is not cut (a call a code-mode program
        made: the program reads it whole; only what it prints is for the model, and is cut then)."""
        chat = self.chat
        tool = chat._tools.get(call.name)
        mcp_tool = tool if isinstance(tool, Tool) else None
        context = ToolContext(chat=chat, call=call, tool_name=call.name,
                              server=mcp_tool.client.name if mcp_tool else None, tool=mcp_tool, origin=origin)
        with CodeRun.serving(code_run):  # the deprecated CodeRun.current() answers in the hooks
            await chat._hooks.tool_call(call, context)
        if emit is not None:
            emit(Chunk(event="tool_start", tool_call=call))
        result = await self._execute(call, emit=emit, budget=budget, code_run=code_run)
        with CodeRun.serving(code_run):
            await chat._hooks.tool_result(result, context)
        if emit is not None:
            emit(Chunk(event="tool_end", tool_call=call, tool_result=result))
        return result

    async def _execute(self, call: ToolCall, *, emit: Emit | None, budget: int | None,
                       code_run: CodeRun | None = None) -> ToolResult:
        """The one place a call is routed: to a built-in tool of the chat, or to the tool of that name."""
        chat = self.chat
        model = chat._provider_model()
        if chat._offer.handles(call.name) and budget is not None:
            async def run_inner(inner: ToolCall, run: CodeRun) -> ToolResult:  # code mode: each call, whole
                return await self.run_one_call(inner, emit=emit, budget=None, origin="code", code_run=run)

            return await chat._offer.run_builtin(call, model, budget, run_inner)
        result = await run_call(chat._tools, call, timeout=chat.tool_timeout, code_run=code_run)
        return result if budget is None else chat._offer.cut(result, model, budget)


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


async def _run_local(tool: LocalTool, arguments: dict[str, Any], timeout: float | None) -> ToolResult:
    """Run a local tool for at most ``timeout`` seconds; then an error result says it timed out.

    An async function is cancelled; a sync one cannot be stopped, so its thread is left to finish alone.
    """
    with anyio.move_on_after(timeout):
        return await tool.arun(arguments)
    stopped = "it was cancelled" if is_async_callable(tool.function) else "the chat stopped waiting for it"
    return ToolResult.error(f"Error: the tool {tool.name} timed out after {timeout:g}s; {stopped}.", tool.name)


async def run_call(toolbox: ToolBox, call: ToolCall, *, timeout: float | None = None,
                   code_run: CodeRun | None = None) -> ToolResult:
    """Run one tool call; every failure becomes an error :class:`ToolResult` addressed to the model.

    ``timeout`` bounds MCP tools and local functions alike (``None``: the client's request timeout for
    MCP tools, no limit for local functions).
    """
    tool = toolbox.get(call.name)
    if tool is None:
        names = toolbox.names
        shown = ", ".join(names[:_NAME_LIMIT]) + (" ..." if len(names) > _NAME_LIMIT else "")
        return ToolResult.error(f"Error: there is no tool named {call.name!r}. Available tools: {shown or 'none'}.",
                                call.name)
    try:
        arguments = parse_arguments(call.arguments)
    except ValueError as exc:
        return ToolResult.error(f"Error: could not call {call.name}: {exc}. Call it again with the arguments as "
                                "one JSON object.", call.name)
    try:
        if isinstance(tool, Tool):  # the MCP tool's span names the model's call; its approval sees the code run
            ctx = CallContext(origin="code" if code_run is not None else "model", tool_call_id=call.id,
                              code_run=code_run, timeout=timeout)
            return await tool.client.call_tool(tool, arguments, ctx)
        with telemetry.span(f"execute_tool {tool.name}", {"gen_ai.operation.name": "execute_tool",
                                                          "gen_ai.tool.name": tool.name, "gen_ai.tool.type": "function",
                                                          "gen_ai.tool.call.id": call.id}) as span:
            result = await _run_local(tool, arguments, timeout)
            if result.is_error:
                telemetry.fail(span, "tool_error")
            return result
    except MCPLiteLLMError as exc:
        return ToolResult.error(f"Error: the tool {call.name} failed: {exc}", call.name)
    except Exception as exc:
        if isinstance(exc, TypeError) and isinstance(tool, LocalTool) and "argument" in str(exc):
            return ToolResult.error(f"Error: wrong arguments for {call.name}: {exc}", call.name)
        logger.warning("tool %s raised %s: %s", call.name, type(exc).__name__, exc)
        return ToolResult.error(f"Error: the tool {call.name} raised {type(exc).__name__}: {exc}", call.name)
