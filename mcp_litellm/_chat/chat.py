"""``Chat``: a LiteLLM conversation that runs MCP tools, reads resources and uses prompts.

The conversation is a list of LiteLLM message dicts (``chat.messages``). Asking appends the question,
calls the model, runs the tool calls it asks for (concurrently, each answered by one tool message),
and calls the model again until it answers in text or ``max_tool_rounds`` is reached.

Sync methods run the async ones on the library's background loop (like every blocking call of
mcp_litellm); async methods call the model on the caller's loop, the way ``litellm.acompletion`` does.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, TypeAlias, overload

from mcp_litellm import _llm
from mcp_litellm._chat.message import Chunk, Message, ToolCall, Usage
from mcp_litellm._chat.offer import Offer, ToolSearchMode
from mcp_litellm._chat.stream import TurnAssembler, message_from_response
from mcp_litellm._chat.tool_loop import LocalTool, ToolBox, run_call
from mcp_litellm._client.loop import iterate_sync, run_sync
from mcp_litellm._client.prompt import Prompt
from mcp_litellm._client.resource import Resource, ResourceTemplate
from mcp_litellm._client.tool import Tool, ToolResult
from mcp_litellm._core import telemetry
from mcp_litellm._core.errors import ConfigError, ToolLoopLimitError
from mcp_litellm._core.redact import secret_params
from mcp_litellm._core.types import HookResult
from mcp_litellm._core.user_code import call_user_code

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client
    from mcp_litellm._servers.group import ClientGroup

logger = logging.getLogger("mcp_litellm")

Hook = Callable[..., HookResult]
Question = str | list[dict[str, Any]] | None

ToolCallHook: TypeAlias = "Callable[[ToolCall], HookResult]"
"""``fn(tool_call)``, sync or async."""
ChunkHook: TypeAlias = "Callable[[Chunk], HookResult]"
"""``fn(chunk)``, sync or async."""
ToolSpec: TypeAlias = ("Tool | Client | ClientGroup | Callable[..., Any] | tuple[Mapping[str, Any], Callable[..., Any]]"
                       " | Mapping[str, Any]")
"""A tool for :meth:`Chat.with_tools`: an MCP :class:`Tool`, a :class:`Client` or :class:`ClientGroup` (offered
with its current tools), a Python function, a ``(tool_dict, function)`` pair, or a LiteLLM tool dict with a
``"callable"``."""

_INTERRUPTED = "Tool call was not run: the conversation was interrupted before it ran."


def _arity(fn: Callable[..., Any]) -> int:
    """How many positional arguments ``fn`` takes (2 when it takes ``*args``)."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return 1
    if any(p.kind == p.VAR_POSITIONAL for p in parameters):
        return 2
    return len([p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                and p.default is p.empty])


async def _call(fn: Callable[..., Any], *args: Any) -> None:
    """Call a user hook (sync or async) with as many of ``args`` as it takes; a failing hook is logged.

    A sync hook runs on the worker pool (``call_user_code``), never on the loop, which may carry every
    MCP session: one slow hook must not stall the other chats and clients."""
    try:
        await call_user_code(fn, *args[: _arity(fn)])
    except Exception:
        logger.exception("chat hook %r failed", getattr(fn, "__name__", fn))


class Chat:
    """A conversation with a LiteLLM model that can use MCP tools, resources and prompts.

    ``Chat(model, **litellm_kwargs)``: keyword arguments go to every ``litellm.acompletion`` call
    (``api_base``, ``api_key``, ``temperature``, ...). ``router=`` sends the calls through a
    ``litellm.Router`` instead (``model`` is then one of its model names).

    Args:
        model: the LiteLLM model string (``"gpt-4o-mini"``, ``"anthropic/claude-..."``) or Router alias.
        router: an optional ``litellm.Router``.
        max_tool_rounds: how many rounds of tool calls one question may take (default 10); beyond it
            the chat raises :class:`ToolLoopLimitError`, with every call answered.
        tool_timeout: seconds per tool call, for MCP tools and local functions alike (default: each
            client's ``request_timeout``; no limit for local functions). A local async function that
            runs over is cancelled; a sync one is left to finish in its thread, unwaited.
        tool_search: ``"auto"`` (default): when the tools' definitions exceed ``tool_budget`` tokens or
            there are more than 128 tools, the model gets a compact catalog instead: a ``search_tools``
            tool (a ``query`` in the user's words, or a ``server`` whose tools to list) plus the tools it
            already found or used; ``True`` always, ``False`` never.
        tool_budget: tokens of tool definitions per request before tool search starts (default: 5% of
            the model's input window from LiteLLM's model info, 2,000 when LiteLLM does not know it).
        result_budget: tokens one tool result may take; a larger one reaches the model cut, with a
            marker saying how to read on with ``read_result`` (default: a quarter of the input window
            left after the prompt, shared by the round's results).
        tool_search_embedding: an embedding model for ``search_tools`` (``"openai/text-embedding-3-small"``,
            or a dict of ``litellm.aembedding`` arguments with a ``"model"``, e.g. its ``api_base``): tools
            are then ranked by meaning, each tool embedded once per process; when the embedding call
            fails, by words. Default ``None``: by words only (no network).
    """

    def __init__(self, model: str, *, router: Any = None, max_tool_rounds: int = 10,
                 tool_timeout: float | None = None, tool_search: ToolSearchMode = "auto",
                 tool_budget: int | None = None, result_budget: int | None = None,
                 tool_search_embedding: str | Mapping[str, Any] | None = None,
                 **litellm_kwargs: Any) -> None:
        if not isinstance(model, str) or not model:
            raise ConfigError(f"Chat needs a model name (a LiteLLM model string or Router alias), got {model!r}")
        if isinstance(max_tool_rounds, bool) or not isinstance(max_tool_rounds, int) or max_tool_rounds < 0:
            raise ConfigError(f"max_tool_rounds must be a whole number >= 0, got {max_tool_rounds!r}")
        if tool_timeout is not None and (not isinstance(tool_timeout, int | float) or tool_timeout <= 0):
            raise ConfigError(f"tool_timeout must be a positive number of seconds, got {tool_timeout!r}")
        for reserved in ("messages", "tools", "stream"):
            if reserved in litellm_kwargs:
                raise ConfigError(f"{reserved}= is managed by the chat; use with_tools()/ask()/stream() instead")
        self.model = model
        self.router = router
        self.max_tool_rounds = max_tool_rounds
        self.tool_timeout = tool_timeout
        self.params: dict[str, Any] = dict(litellm_kwargs)
        self.messages: list[dict[str, Any]] = []
        self.last_message: Message | None = None
        self._tools = ToolBox()
        self._offer = Offer(self._tools, tool_search, tool_budget, result_budget, tool_search_embedding)
        self.usage = Usage()
        """Tokens and cost of every model request of this chat (a :class:`Usage`)."""
        self._turn_usage = Usage()
        self._last_prompt_tokens = 0
        self._hooks: dict[str, list[Hook]] = {"tool_call": [], "tool_result": [], "new_message": []}
        _llm.warm_up(self._provider_model(), router)  # a head start for the first ask, in a worker thread

    def __repr__(self) -> str:
        via = " via router" if self.router is not None else ""
        return f"<Chat model={self.model!r}{via} tools={len(self._tools)} messages={len(self.messages)}>"

    # -- setting up ---------------------------------------------------------------------------------

    @property
    def tools(self) -> list[Tool | LocalTool]:
        """The tools offered to the model (MCP :class:`Tool` objects and local tools)."""
        return list(self._tools)

    def with_tools(self, *tools: ToolSpec | Sequence[ToolSpec], replace: bool = False) -> Chat:
        """Offer ``tools`` to the model: MCP tools, Python functions, ``(tool_dict, function)`` pairs or
        tool dicts with a ``"callable"``; lists are flattened. ``replace=True`` drops the earlier ones.

        A :class:`Client` or :class:`ClientGroup` (instead of a list of its tools) is offered live: each
        model request carries its tools as they are then (after a list_changed, the new list; never a
        tool its ``tool_pins`` withhold)."""
        if replace:
            self._tools.clear()
        self._tools.add(tools)
        return self

    def with_tool(self, tool: ToolSpec) -> Chat:
        """Offer one tool (see :meth:`with_tools`)."""
        return self.with_tools(tool)

    def with_instructions(self, text: str, *, append: bool = False) -> Chat:
        """Set the system message (``append=True`` adds another one instead of replacing)."""
        message = {"role": "system", "content": text}
        if append:
            index = max((i + 1 for i, m in enumerate(self.messages) if m.get("role") == "system"), default=0)
            self.messages.insert(index, message)
        else:
            self.messages = [m for m in self.messages if m.get("role") != "system"]
            self.messages.insert(0, message)
        return self

    def with_model(self, model: str, **litellm_kwargs: Any) -> Chat:
        """Switch the model (and update LiteLLM keyword arguments); the history is kept."""
        self.model = model
        self.params.update(litellm_kwargs)
        return self

    def with_params(self, **litellm_kwargs: Any) -> Chat:
        """Add LiteLLM keyword arguments (``temperature=0.2``, ``max_tokens=500``, ...)."""
        self.params.update(litellm_kwargs)
        return self

    def with_temperature(self, temperature: float) -> Chat:
        """Set the sampling temperature."""
        return self.with_params(temperature=temperature)

    def add_message(self, message: Mapping[str, Any] | Message | None = None, /, **fields: Any) -> Chat:
        """Append a message (a LiteLLM dict, a :class:`Message`, or ``role=..., content=...``)."""
        if isinstance(message, Message):
            self.messages.append(message.to_dict())
        else:
            entry = {**dict(message or {}), **fields}
            if "role" not in entry:
                raise ConfigError("a message needs a role ('user', 'assistant', 'system' or 'tool')")
            self.messages.append(entry)
        return self

    def reset(self) -> Chat:
        """Forget the conversation (keeps the system message, tools and settings)."""
        self.messages = [m for m in self.messages if m.get("role") == "system"]
        self.last_message = None
        self._offer.found.clear()
        return self

    def with_resource(self, resource: Resource) -> Chat:
        """Add a resource's content to the conversation as context (text inline, images as image parts)."""
        self.messages.append(resource.to_message())
        return self

    def with_resources(self, *resources: Resource | Sequence[Resource]) -> Chat:
        """Add several resources (see :meth:`with_resource`); lists are flattened."""
        for resource in resources:
            if isinstance(resource, Sequence):
                self.with_resources(*resource)
            else:
                self.with_resource(resource)
        return self

    def with_resource_template(self, template: ResourceTemplate, arguments: Mapping[str, Any] | None = None) -> Chat:
        """Expand ``template`` with ``arguments``, read it, and add it as context."""
        self.messages.append(template.to_message(arguments))
        return self

    def with_prompt(self, prompt: Prompt, arguments: Mapping[str, Any] | None = None) -> Chat:
        """Append the messages of an MCP prompt rendered with ``arguments``."""
        self.messages.extend(prompt.messages(arguments))
        return self

    # -- hooks --------------------------------------------------------------------------------------

    def on_tool_call(self, fn: ToolCallHook) -> Chat:
        """Call ``fn(tool_call)`` before each tool runs (sync or async)."""
        self._hooks["tool_call"].append(fn)
        return self

    @overload
    def on_tool_result(self, fn: Callable[[ToolResult], HookResult]) -> Chat: ...
    @overload
    def on_tool_result(self, fn: Callable[[ToolCall, ToolResult], HookResult]) -> Chat: ...
    def on_tool_result(self, fn: Hook) -> Chat:
        """Call ``fn(result)`` (or ``fn(tool_call, result)``) after each tool ran."""
        self._hooks["tool_result"].append(fn)
        return self

    @overload
    def on_new_message(self, fn: Callable[[Message], HookResult]) -> Chat: ...
    @overload
    def on_new_message(self, fn: Callable[[], HookResult]) -> Chat: ...
    def on_new_message(self, fn: Hook) -> Chat:
        """Call ``fn(message)`` (or ``fn()``) each time the model's answer is complete, before its tools run."""
        self._hooks["new_message"].append(fn)
        return self

    def off_tool_call(self, fn: ToolCallHook) -> Chat:
        """Stop calling ``fn`` (undoes :meth:`on_tool_call`; an unknown ``fn`` is a no-op)."""
        return self._unhook("tool_call", fn)

    def off_tool_result(self, fn: Hook) -> Chat:
        """Stop calling ``fn`` (undoes :meth:`on_tool_result`; an unknown ``fn`` is a no-op)."""
        return self._unhook("tool_result", fn)

    def off_new_message(self, fn: Hook) -> Chat:
        """Stop calling ``fn`` (undoes :meth:`on_new_message`; an unknown ``fn`` is a no-op)."""
        return self._unhook("new_message", fn)

    def _unhook(self, event: str, fn: Any) -> Chat:
        self._hooks[event] = [hook for hook in self._hooks[event] if hook != fn]
        return self

    # -- asking -------------------------------------------------------------------------------------

    def ask(self, question: Question = None, *, on_chunk: ChunkHook | None = None) -> Message:
        """Ask ``question`` (text or content parts; ``None`` continues the conversation) and return the
        model's final :class:`Message`. With ``on_chunk``, the answer is streamed to it."""
        return run_sync(self.aask(question, on_chunk=on_chunk))

    async def aask(self, question: Question = None, *, on_chunk: ChunkHook | None = None) -> Message:
        """Async twin of :meth:`ask`."""
        start = len(self.messages)
        self._add_question(question)
        return await self._finish(self._traced(self._run(on_chunk is not None, start)), on_chunk)

    def ask_prompt(self, prompt: Prompt, arguments: Mapping[str, Any] | None = None, *,
                   on_chunk: ChunkHook | None = None) -> Message:
        """Append an MCP prompt's messages and ask the model to answer them."""
        return run_sync(self.aask_prompt(prompt, arguments, on_chunk=on_chunk))

    async def aask_prompt(self, prompt: Prompt, arguments: Mapping[str, Any] | None = None, *,
                          on_chunk: ChunkHook | None = None) -> Message:
        """Async twin of :meth:`ask_prompt`."""
        start = len(self.messages)
        self.messages.extend(await prompt.amessages(arguments))
        return await self._finish(self._traced(self._run(on_chunk is not None, start)), on_chunk)

    def stream(self, question: Question = None) -> Iterator[Chunk]:
        """Ask ``question`` and yield :class:`Chunk` objects as the answer forms: text, tool-call
        fragments, and tool start/end events. ``chat.last_message`` holds the final answer."""
        return iterate_sync(self.astream(question))

    async def astream(self, question: Question = None) -> AsyncIterator[Chunk]:
        """Async twin of :meth:`stream`."""
        start = len(self.messages)
        self._add_question(question)
        async with aclosing(self._traced(self._run(True, start))) as chunks:
            async for chunk in chunks:
                yield chunk

    async def _finish(self, chunks: AsyncGenerator[Chunk, None], on_chunk: ChunkHook | None) -> Message:
        async with aclosing(chunks):
            async for chunk in chunks:
                if on_chunk is not None:
                    await call_user_code(on_chunk, chunk)  # a sync one on the worker pool, in order
        assert self.last_message is not None
        return self.last_message

    def _add_question(self, question: Question) -> None:
        if question is None:
            if not self.messages:
                raise ConfigError("nothing to answer: pass a question (the conversation is empty)")
            return
        if not isinstance(question, str | list):
            raise ConfigError(f"a question is text or a list of content parts, got {type(question).__name__}")
        self.messages.append({"role": "user", "content": question})

    # -- the loop -----------------------------------------------------------------------------------

    def _traced(self, chunks: AsyncGenerator[Chunk, None]) -> AsyncGenerator[Chunk, None]:
        """``chunks`` (one turn) inside an ``invoke_agent`` span when tracing (see ``_core.telemetry``)."""
        if not telemetry.enabled():
            return chunks
        span = telemetry.start("invoke_agent", {"gen_ai.operation.name": "invoke_agent",
                                                "gen_ai.request.model": self.model})

        def describe(span: Any) -> None:
            usage, last = self._turn_usage, self.last_message
            span.set_attributes({"gen_ai.usage.input_tokens": usage.prompt_tokens,
                                 "gen_ai.usage.output_tokens": usage.completion_tokens})
            if usage.cost is not None:
                span.set_attribute("mcp_litellm.usage.cost_usd", usage.cost)
            if last is not None and last.finish_reason:
                span.set_attribute("gen_ai.response.finish_reasons", [last.finish_reason])

        return telemetry.steps(span, chunks, describe, tuple(secret_params(self.params)))

    def _provider_model(self) -> str:
        """The model whose provider rules apply to tool schemas and tool-result images."""
        if self.router is not None:
            for entry in getattr(self.router, "model_list", None) or []:
                if isinstance(entry, dict) and entry.get("model_name") == self.model:
                    underlying = (entry.get("litellm_params") or {}).get("model")
                    if underlying:
                        return str(underlying)
        provider = self.params.get("custom_llm_provider")
        return f"{provider}/{self.model}" if provider and "/" not in self.model else self.model

    @property
    def tool_search(self) -> ToolSearchMode:
        """The ``tool_search`` setting (``"auto"``, ``True`` or ``False``)."""
        return self._offer.mode

    def tool_search_reason(self) -> str | None:
        """Why the next request offers the ``search_tools`` catalog instead of every tool definition, in a
        phrase (``"54 tools (9,120 tokens of definitions) exceed the 2,000-token tool budget for ..."``);
        ``None`` when it offers every definition."""
        return self._offer.search_reason(self._provider_model())

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The tool definitions the next model request will carry (the catalog when tool search is on)."""
        self._tools.refresh_now()
        return self._offer.definitions(self._provider_model(), self.messages)

    async def _complete(self, stream: bool) -> Any:
        await self._tools.refresh()  # clients and groups given to with_tools(): their tools as they are now
        kwargs: dict[str, Any] = {**self.params, "model": self.model, "messages": list(self.messages)}
        tools = self._offer.definitions(self._provider_model(), self.messages)
        if tools:
            kwargs["tools"] = tools
        if stream:
            kwargs["stream"] = True
            if "stream_options" not in kwargs and _llm.streams_usage(self._provider_model()):
                kwargs["stream_options"] = {"include_usage": True}  # else LiteLLM drops the stream's usage
        return await _llm.acompletion(router=self.router, **kwargs)

    async def _run(self, stream: bool, start: int) -> AsyncGenerator[Chunk, None]:
        """Model turns and tool rounds until the model answers in text; yields chunks and tool events.

        If the model fails before answering, the messages from ``start`` on (this turn's question)
        are removed, so the question can simply be asked again. If the caller leaves a stream while
        the model is writing, the text shown so far stays in the history as the model's answer.
        """
        answered = False
        rounds = 0
        self._turn_usage = Usage()
        try:
            # LiteLLM's first-use work, off the loop; its tokenizer only where tokens are counted: for tools,
            # and for a streamed answer (LiteLLM counts the tokens of a stream that reports no usage)
            await _llm.prepare(self._provider_model(), self.router, tokens=stream or len(self._tools) > 0)
            while True:
                if stream:
                    assembler = TurnAssembler()
                    response = await self._complete(stream=True)
                    try:
                        async for raw in response:
                            for chunk in assembler.add(raw):
                                yield chunk
                    except (GeneratorExit, asyncio.CancelledError):  # the caller left mid-answer
                        answered = self._keep_partial(assembler) or answered
                        raise
                    message = assembler.message()
                else:
                    message = message_from_response(await self._complete(stream=False))
                self._count_usage(message)
                self.messages.append(message.to_dict())
                self.last_message = message
                answered = True
                for hook in self._hooks["new_message"]:
                    await _call(hook, message)
                if not message.tool_calls:
                    return
                if rounds >= self.max_tool_rounds:
                    error = f"Error: not run: the chat stopped after max_tool_rounds={self.max_tool_rounds} rounds."
                    self._answer_unanswered(error)
                    raise ToolLoopLimitError(self.max_tool_rounds, message)
                rounds += 1
                async with aclosing(self._run_tools(message.tool_calls, events=stream)) as events:
                    async for event in events:
                        yield event
        finally:
            if not answered:  # the model never answered: undo this turn's question so it can be asked again
                del self.messages[start:]
            else:
                self._answer_unanswered(_INTERRUPTED)

    def _count_usage(self, message: Message) -> None:
        """Add one model request's tokens and cost to the turn's and the chat's usage."""
        prompt, completion = message.input_tokens or 0, message.output_tokens or 0
        model = self._provider_model()
        cost = _llm.completion_cost(model, message.raw, prompt_tokens=prompt, completion_tokens=completion)
        request = Usage(prompt, completion, cost, 1)
        self._turn_usage = self._turn_usage + request
        self.usage = self.usage + request
        message.usage = self._turn_usage
        self._last_prompt_tokens = prompt + completion

    async def _run_tools(self, calls: list[ToolCall], events: bool) -> AsyncGenerator[Chunk, None]:
        """Run one round of tool calls concurrently, append their messages, and yield start/end events."""
        queue: asyncio.Queue[Chunk] | None = asyncio.Queue() if events else None
        model = self._provider_model()
        prompt = self._last_prompt_tokens or _llm.count_tokens(model, messages=self.messages)
        budget = self._offer.result_budget_for(model, prompt, len(calls))

        async def run(call: ToolCall) -> ToolResult:
            for hook in self._hooks["tool_call"]:
                await _call(hook, call)
            if queue is not None:
                queue.put_nowait(Chunk(event="tool_start", tool_call=call))
            if self._offer.handles(call.name):
                result = await self._offer.run_builtin(call, model, budget)
            else:
                result = self._offer.cut(await run_call(self._tools, call, timeout=self.tool_timeout), model, budget)
            for hook in self._hooks["tool_result"]:
                await _call(hook, result, call) if _arity(hook) < 2 else await _call(hook, call, result)
            if queue is not None:
                queue.put_nowait(Chunk(event="tool_end", tool_call=call, tool_result=result))
            return result

        gathered = asyncio.gather(*(run(call) for call in calls))
        waiter: asyncio.Future[Chunk] | None = None
        try:
            if queue is not None:
                while not gathered.done() or not queue.empty():
                    if not queue.empty():
                        yield queue.get_nowait()
                        continue
                    waiter = asyncio.ensure_future(queue.get())
                    await asyncio.wait([waiter, gathered], return_when=asyncio.FIRST_COMPLETED)  # type: ignore[type-var]
                    if waiter.done():
                        yield waiter.result()
                    else:
                        waiter.cancel()
            results = await gathered
        finally:
            if waiter is not None and not waiter.done():  # left mid-wait (cancelled, or the caller stopped):
                waiter.cancel()  # a pending queue.get() task would be reported as destroyed at exit
            if not gathered.done():
                gathered.cancel()
                await asyncio.gather(gathered, return_exceptions=True)
        self.messages.extend(ToolResult.batch_messages([(c.id, r) for c, r in zip(calls, results, strict=True)],
                                                       model=self._provider_model()))

    def _keep_partial(self, assembler: TurnAssembler) -> bool:
        """Append the text of an interrupted streamed turn as the assistant message; True if there was any."""
        partial = assembler.partial()
        if partial is None:
            return False
        self.messages.append(partial.to_dict())
        self.last_message = partial
        return True

    def _answer_unanswered(self, text: str) -> None:
        """Give every tool call of the last assistant message that has no tool message an error answer."""
        for index in range(len(self.messages) - 1, -1, -1):
            message = self.messages[index]
            if message.get("role") == "assistant":
                break
        else:
            return
        calls = message.get("tool_calls") or []
        answered = {m.get("tool_call_id") for m in self.messages[index + 1:] if m.get("role") == "tool"}
        missing = [{"role": "tool", "tool_call_id": c["id"], "content": text} for c in calls if c["id"] not in answered]
        if missing:  # tool messages go right after the assistant message and its other tool messages
            position = index + 1
            while position < len(self.messages) and self.messages[position].get("role") == "tool":
                position += 1
            self.messages[position:position] = missing
