"""``Chat``: a LiteLLM conversation that runs MCP tools, reads resources and uses prompts.

The conversation is a list of LiteLLM message dicts (``chat.messages``). Asking appends the question,
calls the model, runs the tool calls it asks for (concurrently, each answered by one tool message),
and calls the model again until it answers in text or ``max_tool_rounds`` is reached: the loop itself
is ``_chat/tool_loop.py``, the hooks ``_chat/hooks.py``, the tools ``_chat/toolbox.py``.

Sync methods run the async ones on the library's background loop (like every blocking call of
mcp_litellm); async methods call the model on the caller's loop, the way ``litellm.acompletion`` does.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, overload

from mcp_litellm import _llm
from mcp_litellm._chat.apps import AppView
from mcp_litellm._chat.chat_options import check_keywords, provider_model
from mcp_litellm._chat.chat_tools import ChatTools
from mcp_litellm._chat.code_mode import CodeMode, code_mode_settings
from mcp_litellm._chat.hooks import Hooks, MessageContext, ToolContext
from mcp_litellm._chat.hosted import HostedServer, RequireApproval, hosted_model, hosted_server
from mcp_litellm._chat.message import Chunk, Message, ToolCall, Usage
from mcp_litellm._chat.prompt_cache import PromptCache, check_prompt_cache
from mcp_litellm._chat.responses_api import ChatAPI, check_api, request_model
from mcp_litellm._chat.tool_loop import ToolLoop
from mcp_litellm._chat.tool_search import ToolSearchMode
from mcp_litellm._chat.toolbox import LocalTool
from mcp_litellm._chat.turn_lock import TurnLock
from mcp_litellm._client.primitives.prompt import Prompt
from mcp_litellm._client.primitives.resource import Resource, ResourceTemplate
from mcp_litellm._client.primitives.tool import Tool, ToolResult
from mcp_litellm._client.session.loop import iterate_sync, run_sync
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.option_checks import COUNT, checked, positive_seconds
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
ToolCallContextHook: TypeAlias = "Callable[[ToolCall, ToolContext], HookResult]"
"""``fn(tool_call, context)``, sync or async (``on_tool_call(fn, context=True)``)."""
ToolResultContextHook: TypeAlias = "Callable[[ToolResult, ToolContext], HookResult]"
"""``fn(result, context)``, sync or async (``on_tool_result(fn, context=True)``)."""
MessageContextHook: TypeAlias = "Callable[[Message, MessageContext], HookResult]"
"""``fn(message, context)``, sync or async (``on_new_message(fn, context=True)``)."""
ChunkHook: TypeAlias = "Callable[[Chunk], HookResult]"
"""``fn(chunk)``, sync or async."""
ToolSpec: TypeAlias = ("Tool | Client | ClientGroup | Callable[..., object] | tuple[Mapping[str, object], "
                       "Callable[..., object]] | Mapping[str, object]")
"""A tool for :meth:`Chat.with_tools`: an MCP :class:`Tool`, a :class:`Client` or :class:`ClientGroup` (offered
with its current tools), a Python function, a ``(tool_dict, function)`` pair, or a LiteLLM tool dict with a
``"callable"``."""

class Chat:
    """A conversation with a LiteLLM model that can use MCP tools, resources and prompts.

    ``Chat(model, **litellm_kwargs)``: keyword arguments besides the chat's own options go to every
    ``litellm.acompletion`` call (``api_base``, ``api_key``, ``temperature``, ...); one that is not a
    parameter of ``litellm.completion`` is a :class:`ConfigError` naming the closest option (at the latest
    at the first request, when LiteLLM was not imported yet). ``router=`` sends the calls through a
    ``litellm.Router`` instead (``model`` is then one of its model names).

    Args:
        model: the LiteLLM model string (``"gpt-4o-mini"``, ``"anthropic/claude-..."``) or Router alias.
        router: an optional ``litellm.Router``.
        max_tool_rounds: how many rounds of tool calls one question may take (default 10); beyond it
            the chat raises :class:`ToolLoopLimitError`, with every call answered.
        tool_timeout: seconds per tool call, for MCP tools and local functions alike (default: each
            client's ``request_timeout``; no limit for local functions). A local async function that
            runs over is cancelled; a sync one is left to finish in its thread, unwaited. For an MCP tool it
            is the call's ``timeout=``: one deadline for all the call waits for (with the client's
            ``reset_timeout_on_progress`` / ``max_total_timeout``).
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
        prompt_cache: ``"auto"`` (default): for providers that cache a prompt prefix only where the request
            marks it (Claude on Anthropic, Bedrock, Vertex AI, Azure AI), mark the end of the tool
            definitions, of the system prompt and the latest message as cacheable, through LiteLLM's
            ``cache_control_injection_points``; other providers cache on their own and get nothing added.
            ``False``: mark nothing. Points given in the chat's params win. Tokens read from and written to
            the cache show in :attr:`usage` (``cache_read_tokens``, ``cache_write_tokens``).
        api: ``"chat"`` (default): requests go through ``litellm.acompletion``; ``"responses"``: through the
            Responses API (``litellm.aresponses``, by LiteLLM's own bridge), for OpenAI and Azure models; the
            tool loop, streaming, approval, usage, resources and prompts work the same, and the reasoning
            items a model returns are sent back with the history.
        code_mode: ``True`` or a :class:`CodeMode` (its limits): the model gets one tool, ``run_code``, and
            writes a short Python program over the tools, run in a sandbox (needs ``mcp-litellm[code]``);
            only what the program prints comes back to it. Switch it between turns with :meth:`with_code_mode`.
        completion_kwargs: keyword arguments for ``litellm.acompletion`` passed as they are, unchecked: for a
            parameter only the provider knows (``extra_body={...}`` puts fields in the request body).
    """

    def __init__(self, model: str, *, router: Any = None, max_tool_rounds: int = 10,
                 tool_timeout: float | None = None, tool_search: ToolSearchMode = "auto",
                 tool_budget: int | None = None, result_budget: int | None = None,
                 tool_search_embedding: str | Mapping[str, object] | None = None,
                 prompt_cache: PromptCache = "auto", api: ChatAPI = "chat",
                 code_mode: bool | CodeMode | None = None, completion_kwargs: Mapping[str, object] | None = None,
                 **litellm_kwargs: object) -> None:
        if not isinstance(model, str) or not model:
            raise ConfigError(f"Chat needs a model name (a LiteLLM model string or Router alias), got {model!r}")
        self.max_tool_rounds = checked("max_tool_rounds", max_tool_rounds, COUNT)
        self.tool_timeout = positive_seconds(tool_timeout, "tool_timeout", none="for each client's request_timeout",
                                             allow_inf=True)
        self.model = model
        self.router = router
        self.params: dict[str, Any] = {}
        self._unchecked: set[str] = set()  # keywords LiteLLM's list could not be read for yet
        self.with_params(completion_kwargs=completion_kwargs, **litellm_kwargs)
        self._prompt_cache = check_prompt_cache(prompt_cache)
        self.api: ChatAPI = check_api(api)
        """The API requests go through: ``"chat"`` or ``"responses"``."""
        if self.api == "responses" and router is not None:
            request_model(model, self.api, routed=True)  # says what to do instead
        self.messages: list[dict[str, Any]] = []
        self.last_message: Message | None = None
        self._chat_tools = ChatTools(tool_search, tool_budget, result_budget, tool_search_embedding,
                                     model=self._provider_model, messages=lambda: self.messages)
        self._tools = self._chat_tools.box
        self._hosted: list[HostedServer] = []
        self.usage = Usage()
        """Tokens and cost of every model request of this chat (a :class:`Usage`)."""
        self._hooks = Hooks()
        self._loop = ToolLoop(self, tools=self._chat_tools, hooks=self._hooks, provider_model=self._provider_model,
                              check_params=self._check_params, host=self)
        self._chat_tools.run_inner = self._loop.run_one_call  # a code-mode program's calls: the same path
        self.with_code_mode(code_mode)
        self._turns = TurnLock()  # one turn at a time, whichever loop or thread asks
        _llm.warm_up(self._provider_model(), router)  # a head start for the first ask, in a worker thread

    def __repr__(self) -> str:
        via = " via router" if self.router is not None else ""
        return f"<Chat model={self.model!r}{via} tools={len(self._tools)} messages={len(self.messages)}>"

    # -- setting up ---------------------------------------------------------------------------------

    @property
    def tools(self) -> list[Tool | LocalTool]:
        """The tools offered to the model (MCP :class:`Tool` objects and local tools)."""
        return list(self._tools)

    @property
    def app_views(self) -> dict[str, AppView]:
        """The views of the calls of tools with an interface (MCP Apps) so far, by tool call id."""
        return self._loop.app_views

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

    def with_hosted_mcp(self, client_or_url: Client | str, *, label: str | None = None,
                        headers: Mapping[str, str] | None = None, allowed_tools: Sequence[str] | None = None,
                        require_approval: RequireApproval | None = None) -> Chat:
        """Offer a remote MCP server to the provider as a native tool: the provider lists and calls its tools
        itself, without a round trip through this process (OpenAI's and Azure's Responses API; the chat then
        sends its requests through ``litellm.aresponses``, and :attr:`api` becomes ``"responses"``).

        What leaves this machine: the server's URL and ``headers``, nothing else (a client's own auth headers
        stay here unless passed in ``headers``). The calls the provider made appear in :attr:`messages` as
        tool calls with their results, and reach the ``on_tool_call`` / ``on_tool_result`` hooks (context
        ``origin="provider"``) and, streaming, ``tool_start`` / ``tool_end`` chunks.

        Args:
            client_or_url: an :class:`Client` of a streamable HTTP or SSE server (its URL, and its name as the
                label) or the server's URL.
            label: the server's label for the provider (default: the client's name, or the URL's host).
            headers: HTTP headers the provider sends to the server (e.g. ``{"Authorization": "Bearer ..."}``).
            allowed_tools: the tools the provider may call. For a client, they default to the tools it offers
                after its include/exclude filters and tool pins (named as the server names them), and a name
                it withholds is a :class:`ConfigError`; for a URL, every tool of the server.
            require_approval: the provider's ``"always"``, ``"never"`` or ``{"never": {"tool_names": [...]}}``.
                Default: ``"always"`` when an approval handler is set (the client's ``human_in_the_loop``; for
                a URL, ``ml.config``'s as it is now), ``"never"`` otherwise. The handler decides each approval
                request (it sees the tool name, the arguments and, as ``client_name``, the label); with none, it
                is denied.
        """
        server = hosted_server(client_or_url, label=label, headers=headers, allowed_tools=allowed_tools,
                               require_approval=require_approval)
        hosted_model(self)  # says now when the model (or a router) cannot call MCP servers itself
        self._hosted = [s for s in self._hosted if s.label != server.label] + [server]
        self.api = "responses"
        return self

    def with_code_mode(self, code_mode: bool | CodeMode | None = True) -> Chat:
        """Turn code mode on (``True``, or a :class:`CodeMode` with its limits) or off (``False``/``None``) for the
        next turns; the history is kept. Raises :class:`ConfigError` when the sandbox (``mcp-litellm[code]``)
        is not installed."""
        self._chat_tools.set_code_mode(code_mode_settings(code_mode))
        return self

    @property
    def code_mode(self) -> CodeMode | None:
        """The code-mode settings in use (``None``: off); see :meth:`with_code_mode`."""
        return self._chat_tools.code.settings if self._chat_tools.code is not None else None

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
        self.with_params(**litellm_kwargs)
        self.model = model
        return self

    def with_params(self, *, completion_kwargs: Mapping[str, object] | None = None,
                    **litellm_kwargs: object) -> Chat:
        """Add LiteLLM keyword arguments (``temperature=0.2``, ...; checked as in :class:`Chat`) and
        ``completion_kwargs`` (a dict passed as it is, for a parameter only the provider knows)."""
        if completion_kwargs is not None and not isinstance(completion_kwargs, Mapping):
            raise ConfigError(f"completion_kwargs must be a dict of keyword arguments for litellm.completion, "
                              f"got {type(completion_kwargs).__name__}")
        given = {**litellm_kwargs, **(completion_kwargs or {})}
        for reserved in ("messages", "tools", "stream"):
            if reserved in given:
                raise ConfigError(f"{reserved}= is managed by the chat; use with_tools()/ask()/stream() instead")
        pending = check_keywords(litellm_kwargs, _own_options())
        self.params.update(given)
        self._unchecked = (self._unchecked | pending) - set(completion_kwargs or ())
        return self

    def _check_params(self) -> None:  # before a request: the keywords given before LiteLLM's list was known
        if self._unchecked:
            self._unchecked = check_keywords(sorted(self._unchecked & set(self.params)), _own_options())

    def with_temperature(self, temperature: float) -> Chat:
        """Set the sampling temperature."""
        return self.with_params(temperature=temperature)

    def add_message(self, message: Mapping[str, object] | Message | None = None, /, **fields: object) -> Chat:
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
        self._chat_tools.search.found.clear()
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

    def with_resource_template(self, template: ResourceTemplate, arguments: Mapping[str, object] | None = None) -> Chat:
        """Expand ``template`` with ``arguments``, read it, and add it as context."""
        self.messages.append(template.to_message(arguments))
        return self

    def with_prompt(self, prompt: Prompt, arguments: Mapping[str, object] | None = None) -> Chat:
        """Append the messages of an MCP prompt rendered with ``arguments``."""
        self.messages.extend(prompt.messages(arguments))
        return self

    # -- hooks --------------------------------------------------------------------------------------

    # Registered with context=True, a hook gets the fixed form fn(subject, context); without it, today's forms.

    @overload
    def on_tool_call(self, fn: ToolCallHook, *, context: Literal[False] = False) -> Chat: ...
    @overload
    def on_tool_call(self, fn: ToolCallContextHook, *, context: Literal[True]) -> Chat: ...
    def on_tool_call(self, fn: Hook, *, context: bool = False) -> Chat:
        """Call ``fn(tool_call)`` before each tool runs (sync or async).

        With ``context=True``: ``fn(tool_call, context)``, ``context`` a :class:`ToolContext` (the chat, the
        server, the tool, who made the call)."""
        self._hooks.add("tool_call", fn, context=context)
        return self

    @overload
    def on_tool_result(self, fn: Callable[[ToolResult], HookResult], *, context: Literal[False] = False) -> Chat: ...
    @overload
    def on_tool_result(self, fn: Callable[[ToolCall, ToolResult], HookResult], *,
                       context: Literal[False] = False) -> Chat: ...
    @overload
    def on_tool_result(self, fn: ToolResultContextHook, *, context: Literal[True]) -> Chat: ...
    def on_tool_result(self, fn: Hook, *, context: bool = False) -> Chat:
        """Call ``fn(result)`` (or ``fn(tool_call, result)``, told apart by how many parameters ``fn``
        requires) after each tool ran.

        With ``context=True``: ``fn(result, context)``, ``context`` a :class:`ToolContext` (its ``call`` is
        the tool call); nothing about ``fn`` is guessed."""
        self._hooks.add("tool_result", fn, context=context)
        return self

    @overload
    def on_new_message(self, fn: Callable[[Message], HookResult], *, context: Literal[False] = False) -> Chat: ...
    @overload
    def on_new_message(self, fn: Callable[[], HookResult], *, context: Literal[False] = False) -> Chat: ...
    @overload
    def on_new_message(self, fn: MessageContextHook, *, context: Literal[True]) -> Chat: ...
    def on_new_message(self, fn: Hook, *, context: bool = False) -> Chat:
        """Call ``fn(message)`` (or ``fn()``) each time the model's answer is complete, before its tools run.

        With ``context=True``: ``fn(message, context)``, ``context`` a :class:`MessageContext` (the chat, and
        how many rounds of tools this turn had run)."""
        self._hooks.add("new_message", fn, context=context)
        return self

    def off_tool_call(self, fn: Hook) -> Chat:
        """Stop calling ``fn`` (undoes :meth:`on_tool_call`; an unknown ``fn`` is a no-op)."""
        self._hooks.remove("tool_call", fn)
        return self

    def off_tool_result(self, fn: Hook) -> Chat:
        """Stop calling ``fn`` (undoes :meth:`on_tool_result`; an unknown ``fn`` is a no-op)."""
        self._hooks.remove("tool_result", fn)
        return self

    def off_new_message(self, fn: Hook) -> Chat:
        """Stop calling ``fn`` (undoes :meth:`on_new_message`; an unknown ``fn`` is a no-op)."""
        self._hooks.remove("new_message", fn)
        return self

    # -- asking -------------------------------------------------------------------------------------

    def ask(self, question: Question = None, *, on_chunk: ChunkHook | None = None) -> Message:
        """Ask ``question`` (text or content parts; ``None`` continues the conversation) and return the
        model's final :class:`Message`. With ``on_chunk``, the answer is streamed to it.

        A chat is one conversation, so its turns take turns: an ask (sync or async, from any thread or
        loop; also :meth:`ask_prompt` and :meth:`stream`) made while another is under way waits until that
        one is over, then runs, in the order they were made; nothing is lost or mixed. A stream holds the
        turn until it is consumed or closed. For conversations that really run at once, use one chat each.
        (An ask made from inside the chat's own turn, by a hook or a local tool, would wait for itself.)"""
        self._turns.refuse_reading_thread()
        return run_sync(self.aask(question, on_chunk=on_chunk))

    async def aask(self, question: Question = None, *, on_chunk: ChunkHook | None = None) -> Message:
        """Async twin of :meth:`ask` (a turn of its own, waiting for the one under way: see :meth:`ask`)."""
        async with self._turns.hold():
            start = len(self.messages)
            self._add_question(question)
            return await self._finish(self._traced(self._loop.run(on_chunk is not None, start)), on_chunk)

    def ask_prompt(self, prompt: Prompt, arguments: Mapping[str, object] | None = None, *,
                   on_chunk: ChunkHook | None = None) -> Message:
        """Append an MCP prompt's messages and ask the model to answer them."""
        self._turns.refuse_reading_thread()
        return run_sync(self.aask_prompt(prompt, arguments, on_chunk=on_chunk))

    async def aask_prompt(self, prompt: Prompt, arguments: Mapping[str, object] | None = None, *,
                          on_chunk: ChunkHook | None = None) -> Message:
        """Async twin of :meth:`ask_prompt`."""
        async with self._turns.hold():
            start = len(self.messages)
            self.messages.extend(await prompt.amessages(arguments))
            return await self._finish(self._traced(self._loop.run(on_chunk is not None, start)), on_chunk)

    def stream(self, question: Question = None) -> Iterator[Chunk]:
        """Ask ``question`` and yield :class:`Chunk` objects as the answer forms: text, tool-call
        fragments, and tool start/end events. ``chat.last_message`` holds the final answer.

        The stream holds the chat's turn (see :meth:`ask`) from its first item until it is consumed or
        closed: leave a ``for`` loop with ``break``, or close it, before asking again elsewhere."""
        return self._turns.reading(iterate_sync(self.astream(question)))

    async def astream(self, question: Question = None) -> AsyncIterator[Chunk]:
        """Async twin of :meth:`stream`."""
        async with self._turns.hold():
            start = len(self.messages)
            self._add_question(question)
            async with aclosing(self._traced(self._loop.run(True, start))) as chunks:
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
        return self._loop.traced(chunks, tuple(secret_params(self.params)))

    def _provider_model(self) -> str:
        """The model whose provider rules apply to tool schemas and tool-result images."""
        return provider_model(self.model, self.router, self.params)

    @property
    def prompt_cache(self) -> PromptCache:
        """Whether requests mark prompt-cache breakpoints (``"auto"``, ``True``, ``False``); settable between
        turns."""
        return self._prompt_cache

    @prompt_cache.setter
    def prompt_cache(self, value: PromptCache) -> None:
        self._prompt_cache = check_prompt_cache(value)

    @property
    def tool_search(self) -> ToolSearchMode:
        """The ``tool_search`` setting (``"auto"``, ``True`` or ``False``)."""
        return self._chat_tools.search.mode

    def tool_search_reason(self) -> str | None:
        """Why the next request offers the ``search_tools`` catalog instead of every tool definition, in a
        phrase (``"54 tools (9,120 tokens of definitions) exceed the 2,000-token tool budget for ..."``);
        ``None`` when it offers every definition. A live :class:`Client` or :class:`ClientGroup` given to
        :meth:`with_tools` is listed now (no model request needed; inside a running event loop, its tools as
        of the last request)."""
        self._tools.refresh_now()
        return self._chat_tools.search.search_reason(self._provider_model())

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The tool definitions the next model request will carry (the catalog when tool search is on).

        A live :class:`Client` or :class:`ClientGroup` given to :meth:`with_tools` is listed now; inside a
        running event loop, where this cannot wait, its tools as of the last request: use
        :meth:`atool_definitions` there."""
        self._tools.refresh_now()
        return self._chat_tools.definitions(self._provider_model())

    async def atool_definitions(self) -> list[dict[str, Any]]:
        """Async twin of :meth:`tool_definitions`: the live clients and groups are listed now, on any loop."""
        return await self._chat_tools.request_definitions(self._provider_model())


@functools.cache
def _own_options() -> tuple[str, ...]:
    """The chat's own keyword options (for the closest one to a misspelt keyword)."""
    return tuple(name for name, p in inspect.signature(Chat.__init__).parameters.items() if p.kind is p.KEYWORD_ONLY)
