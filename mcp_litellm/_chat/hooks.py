"""A chat's hooks (``on_tool_call``, ``on_tool_result``, ``on_new_message``) and how they are called.

Registered with ``context=True``, a hook has one fixed signature, ``fn(subject, context)``: the call,
result or message, then a frozen :class:`ToolContext` or :class:`MessageContext` saying where it comes
from (the chat, the server, the tool, who made the call). Nothing about the function is guessed.

Registered without it, a hook keeps the forms the chat has always accepted, told apart by how many
positional parameters the function requires: ``on_tool_result`` takes ``fn(result)`` or
``fn(call, result)``, ``on_new_message`` takes ``fn(message)`` or ``fn()``. These guessed forms are
deprecated (a ``DeprecationWarning`` when such a hook is registered): register with ``context=True``.

Every hook, sync or async, is called through ``call_user_code`` (a sync one on the worker pool, never on
the loop that may carry every MCP session); a failing hook is logged and the conversation goes on.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from mcp_litellm._chat.message import Message, ToolCall
from mcp_litellm._chat.prompt_cache import PromptCache
from mcp_litellm._chat.responses_api import ChatAPI
from mcp_litellm._client.primitives.tool import Tool, ToolResult
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._core.code_run import CodeRun
from mcp_litellm._core.deprecation import deprecated_form
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.usage import Usage
from mcp_litellm._core.user_code import call_user_code

logger = logging.getLogger("mcp_litellm")

HookEvent = Literal["tool_call", "tool_result", "new_message"]
CallOrigin = Literal["model", "code", "provider"]
"""Who made a tool call a chat ran: the model in its answer, the model's program in code mode, or the
provider (a hosted MCP server's call)."""


class ChatView(Protocol):
    """What a hook's context shows of the chat (a :class:`Chat` is one): its conversation, model, settings
    and usage. Typed by what it holds rather than by the class, so that the modules below ``chat.py`` (the
    hooks, the tool loop) need not import it."""

    model: str
    router: object
    api: ChatAPI
    params: dict[str, Any]
    max_tool_rounds: int
    tool_timeout: float | None
    messages: list[dict[str, Any]]
    last_message: Message | None
    usage: Usage

    @property
    def prompt_cache(self) -> PromptCache: ...


@dataclass(frozen=True)
class ToolContext:
    """Where a tool call comes from and what it goes to: the second argument of ``on_tool_call`` and
    ``on_tool_result`` hooks registered with ``context=True``.

    Attributes:
        chat: the :class:`Chat` running the call (typed as a :class:`ChatView`: its conversation, model,
            settings and usage).
        call: the :class:`ToolCall` as the model made it.
        tool_name: the name the model called (``call.name``).
        server: the name of the MCP server offering the tool; ``None`` for a local Python function, a
            built-in tool of the chat (``search_tools``, ``read_result``, ``run_code``, or the
            ``mcp_litellm_``-prefixed name one is offered under when a tool has its name) or a name no tool
            has.
        tool: the MCP :class:`Tool` the name stands for; ``None`` when ``server`` is.
        origin: who made the call (:data:`CallOrigin`): ``"model"`` for a call the model asked for in its
            answer; ``"code"`` for a call the model's program made in code mode (:meth:`Chat.with_code_mode`),
            its ``code_run`` the run; ``"provider"`` for a call the provider made to a hosted MCP server
            (:meth:`Chat.with_hosted_mcp`), reported once it ran (or was denied), its ``server`` the server's
            label.
        code_run: the code-mode run the call comes from (``origin == "code"``), else ``None``.
        call_context: the :class:`~mcp_litellm._client.primitives.toolset.CallContext` the call runs with (its tool
            call id, origin, code run and timeout); ``None`` for a provider's call.
    """

    chat: ChatView = field(repr=False)
    call: ToolCall
    tool_name: str
    server: str | None = None
    tool: Tool | None = field(default=None, repr=False)
    origin: CallOrigin = "model"
    code_run: CodeRun | None = field(default=None, repr=False)
    call_context: CallContext | None = field(default=None, repr=False)


@dataclass(frozen=True)
class MessageContext:
    """Where a model's answer comes from: the second argument of ``on_new_message`` hooks registered with
    ``context=True``.

    Attributes:
        chat: the :class:`Chat` the message was added to (it is ``chat.last_message`` by then; typed as a
            :class:`ChatView`).
        round: how many rounds of tool calls this turn had run before the model wrote it (``0`` for
            the first answer to a question).
    """

    chat: ChatView = field(repr=False)
    round: int = 0


def arity(fn: Callable[..., object]) -> int:
    """How many positional arguments ``fn`` requires (2 when it takes ``*args``; 1 when it cannot be told):
    only for the hook forms registered without ``context=True``."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return 1
    if any(p.kind == p.VAR_POSITIONAL for p in parameters):
        return 2
    return len([p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                and p.default is p.empty])


_FORMS: dict[HookEvent, tuple[str, str]] = {
    "tool_call": ("on_tool_call", "fn(call, context)"),
    "tool_result": ("on_tool_result", "fn(result, context)"),
    "new_message": ("on_new_message", "fn(message, context)"),
}


_SUBJECT: dict[HookEvent, str] = {"tool_call": "fn(call)", "tool_result": "fn(result)", "new_message": "fn(message)"}


@dataclass(frozen=True)
class _Hook:
    fn: Callable[..., object]
    context: bool


class Hooks:
    """The hooks of one chat, in the order they were registered, per event."""

    def __init__(self) -> None:
        self._hooks: dict[HookEvent, list[_Hook]] = {"tool_call": [], "tool_result": [], "new_message": []}

    def add(self, event: HookEvent, fn: Callable[..., object], *, context: bool) -> None:
        """Register ``fn`` for ``event`` (``context=True``: the fixed ``fn(subject, context)`` form)."""
        if not callable(fn):
            raise ConfigError(f"a chat hook must be a function (sync or async), got {type(fn).__name__}")
        if not context and arity(fn) != 1:  # fn(subject) is the plain form; the others are guessed
            method, form = _FORMS[event]
            deprecated_form(f"{method}({getattr(fn, '__name__', 'fn')}) guesses how to call the hook from its "
                            f"parameters; this form is deprecated: take the one argument ({_SUBJECT[event]}), or "
                            f"register it with {method}(fn, context=True) and write it as {form}", stacklevel=4)
        self._hooks[event].append(_Hook(fn, bool(context)))

    def remove(self, event: HookEvent, fn: Callable[..., object]) -> None:
        """Forget every registration of ``fn`` for ``event`` (an unknown ``fn`` is a no-op)."""
        self._hooks[event] = [hook for hook in self._hooks[event] if hook.fn != fn]

    async def tool_call(self, call: ToolCall, context: ToolContext) -> None:
        """Before a tool runs: ``fn(call, context)``, or today's ``fn(call)``."""
        for hook in self._hooks["tool_call"]:
            await (_call(hook.fn, call, context) if hook.context else _call_guessed(hook.fn, call))

    async def tool_result(self, result: ToolResult, context: ToolContext) -> None:
        """After a tool ran: ``fn(result, context)``, or today's ``fn(result)`` / ``fn(call, result)``."""
        for hook in self._hooks["tool_result"]:
            if hook.context:
                await _call(hook.fn, result, context)
            elif arity(hook.fn) < 2:
                await _call_guessed(hook.fn, result)
            else:
                await _call_guessed(hook.fn, context.call, result)

    async def new_message(self, message: Message, context: MessageContext) -> None:
        """After the model's answer was added: ``fn(message, context)``, or today's ``fn(message)`` / ``fn()``."""
        for hook in self._hooks["new_message"]:
            await (_call(hook.fn, message, context) if hook.context else _call_guessed(hook.fn, message))


async def _call_guessed(fn: Callable[..., object], *args: object) -> None:
    """A hook registered without ``context=True``: called with as many of ``args`` as it requires."""
    await _call(fn, *args[: arity(fn)])


async def _call(fn: Callable[..., object], *args: object) -> None:
    """Call a hook (sync or async) with ``args``; a failing hook is logged, never raised into the chat.

    A sync hook runs on the worker pool (``call_user_code``), never on the loop, which may carry every
    MCP session: one slow hook must not stall the other chats and clients."""
    try:
        await call_user_code(fn, *args)
    except Exception:
        logger.exception("chat hook %r failed", getattr(fn, "__name__", fn))
