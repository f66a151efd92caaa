"""``mcp-litellm chat``: an interactive LiteLLM chat with every configured server's tools.

Text streams to stdout as it arrives; each tool call shows as a ``using tool NAME {arguments}`` line
(with ``--approve``, once the call is allowed); tool progress notifications draw a bar on stderr.
With stdout piped, everything but the answers goes to stderr. Elicitation requests become questions
in the terminal, and ``--allow-sampling`` lets servers sample through the same model. When the tools
are too many for the model's tool budget (or ``--tool-search`` is given), the model gets one
``search_tools`` tool to find them with: the banner says so, and why. Lines that
start with ``/`` are commands answered here, never sent to the model (``/help`` lists them).
Ctrl-C at the prompt clears the line; while a question is being answered it stops the model or
the tool call and returns to the prompt; Ctrl-D (end of input) or ``/exit`` leaves.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mcp_litellm._cli.commands import EXIT_FAILED, EXIT_OK, PROG, UsageError, connect
from mcp_litellm._cli.forms import ask_form
from mcp_litellm._cli.render import first_line, signature
from mcp_litellm._cli.terminal import Interrupted, Terminal
from mcp_litellm._core.errors import MCPLiteLLMError
from mcp_litellm._core.redact import redact_text
from mcp_litellm._servers.group import ClientGroup
from mcp_litellm.handlers import Decision, Elicitation, accept, cancel, decline

if TYPE_CHECKING:
    from mcp_litellm._chat.chat import Chat
    from mcp_litellm._client.primitives.tool import Tool

_ARGS_SHOWN = 200
_MIN_MASKED = 6
"""A secret shorter than this is not masked in messages: it would mangle ordinary words."""

COMMANDS = {
    "/help": "this list",
    "/tools": "the tools the model can use",
    "/clear": "forget the conversation so far",
    "/usage": "tokens and cost of the conversation so far",
    "/exit": "leave (also /quit, or Ctrl-D)",
}


def _short_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _ARGS_SHOWN else text[: _ARGS_SHOWN - 1] + "…"


def _call_parts(call: Any) -> tuple[str, Any]:
    """(name, arguments) of whatever the chat hands its tool-call hook."""
    if isinstance(call, dict):
        function = call.get("function") or {}
        name = call.get("name") or function.get("name") or "?"
        arguments = call.get("arguments", function.get("arguments"))
    else:
        function = getattr(call, "function", None)
        name = getattr(call, "name", None) or getattr(function, "name", None) or "?"
        arguments = getattr(call, "arguments", None)
        if arguments is None and function is not None:
            arguments = getattr(function, "arguments", None)
    if isinstance(arguments, str):
        with contextlib.suppress(json.JSONDecodeError):
            arguments = json.loads(arguments)
    return str(name), arguments if arguments is not None else {}


def mask_secrets(text: str, secrets: Sequence[str | None]) -> str:
    """``text`` with each whole occurrence of a secret (6 characters or more) replaced by ``***``.

    "Whole" means not inside a longer word: a secret ``abcdef`` is masked in ``key abcdef.`` but not in
    ``abcdefgh``. Shorter secrets are left alone (``--api-key on`` must not turn "Connection" into
    "C***necti***"); the library's own redaction (remembered secrets, secret URL query values) applies too.
    """
    for secret in secrets:
        if secret and len(secret) >= _MIN_MASKED:
            text = re.sub(rf"(?<![\w-]){re.escape(secret)}(?![\w-])", "***", text)
    return redact_text(text)


# -- client-side handlers (run in worker threads, never on the background loop) ---------------------


def _approval_handler(term: Terminal, server: str,
                      names: dict[tuple[str, str], str]) -> Callable[[str, dict[str, Any]], bool | str]:
    """Ask before each tool call of ``server``, naming the tool as the model knows it; say ``using tool``
    once it is allowed.

    The client hands the server's own tool name; ``names`` maps ``(server, that name)`` to the tool's
    name in the group (``a__lookup``), so two servers' tools of the same name are told apart.
    """
    def approve(tool_name: str, parameters: dict[str, Any]) -> bool | str:
        shown = names.get((server, tool_name), tool_name)
        arguments = _short_json(parameters or {})
        answer = term.ask(f"  allow tool {shown} {arguments}? [y/N] ")
        if (answer or "").strip().lower() in ("y", "yes"):
            term.line(f"  using tool {shown} {arguments}")
            return True
        if answer is not None:
            term.line(f"  denied {shown}")
        return "the user denied it in the terminal"

    return approve


def _elicitation_handler(term: Terminal) -> Callable[[Elicitation], Decision]:
    def elicit(elicitation: Elicitation) -> Decision:
        server = f"server {elicitation.server_name!r}"
        if elicitation.mode == "url":
            term.line(f"  {server} asks you to open: {elicitation.url}\n  ({elicitation.message})")
            answer = term.ask("  done? [y]es / [n]o (decline) / [c]ancel: ")
            choice = (answer or "c").strip().lower()
            if choice in ("y", "yes"):
                return accept()
            return decline("declined in the terminal") if choice in ("n", "no") else cancel("cancelled")
        result = ask_form(term.ask, term.line, f"{server} asks: {elicitation.message}",
                          dict(elicitation.requested_schema or {}))
        if isinstance(result, dict):
            errors = elicitation.validate(result)
            if errors:
                term.line(f"  not sent: {'; '.join(errors)}")
                return cancel("the answers did not match the form")
            return accept(result)
        return decline("declined in the terminal") if result == "decline" else cancel("cancelled in the terminal")

    return elicit


# -- the chat -------------------------------------------------------------------------------------------


def _prepare(group: ClientGroup, args: argparse.Namespace, term: Terminal,
             names: dict[tuple[str, str], str]) -> None:
    """Register the terminal's handlers on every client before it starts (capabilities are fixed then).

    ``names`` maps ``(server, server's tool name)`` to the tool's name in the group, filled once listed.
    """

    def progress(value: float, total: float | None, message: str | None, tool_name: str) -> None:
        term.show_progress(tool_name, value, total, message)

    for client in group:
        if args.approve:
            client.on_human_in_the_loop(_approval_handler(term, client.name, names))
        client.on_elicitation(_elicitation_handler(term))
        client.on_progress(progress)


def _sampling_options(args: argparse.Namespace) -> dict[str, Any]:
    sampling: dict[str, Any] = {"enabled": True, "preferred_model": args.model}
    completion = {k: v for k, v in (("api_base", args.api_base), ("api_key", args.api_key)) if v}
    if completion:
        sampling["completion_kwargs"] = completion
    return {"sampling": sampling}


def _command(line: str, term: Terminal, chat: Chat, tools: Sequence[Tool]) -> bool:
    """Answer a ``/command``; False for ``/exit``."""
    word = line.split()[0].lower()
    if word in ("/exit", "/quit"):
        return False
    if word == "/help":
        for name, what in COMMANDS.items():
            term.line(f"  {name:<8} {what}")
        term.line("  Start a message with // to send a line that begins with /. Ctrl-C stops an answer or a "
                  "tool call.")
    elif word == "/tools":
        for tool in tools:
            term.line(f"  {signature(tool.name, tool.input_schema)}  {first_line(tool.description, 60)}")
    elif word == "/clear":
        chat.reset()
        term.line("  (the conversation is forgotten)")
    elif word == "/usage":
        usage = chat.usage
        cost = f", ${usage.cost:.4f}" if usage.cost is not None else ""
        term.line(f"  {usage.requests} model requests, {usage.prompt_tokens} prompt + {usage.completion_tokens} "
                  f"completion tokens{cost}")
    else:
        term.line(f"  unknown command {word}; /help lists the commands (start with // to send it to the model)")
    return True


def run_chat(args: argparse.Namespace) -> int:
    """The interactive loop; returns the exit code."""
    from mcp_litellm._chat.chat import Chat
    from mcp_litellm._llm import litellm_module

    if args.tool_budget is not None and args.tool_search is not None:
        raise UsageError("--tool-budget only applies when tool search is automatic (without --tool-search or "
                         "--no-tool-search)")
    litellm_module().suppress_debug_info = True  # no "Give Feedback / Get Help" banners in the chat
    term = Terminal(words=[*COMMANDS, "/quit"])
    client_options = _sampling_options(args) if args.allow_sampling else {}
    tool_names: dict[tuple[str, str], str] = {}
    try:
        with connect(args, prepare=lambda group: _prepare(group, args, term, tool_names), **client_options) as group:
            tools = group.tools()
            tool_names.update({(tool.client.name, tool.mcp_name): tool.name for tool in tools})
            approved = set(tool_names.values()) if args.approve else set()  # these say "using tool" when allowed
            kwargs: dict[str, Any] = {k: v for k, v in (("api_base", args.api_base), ("api_key", args.api_key)) if v}
            for option in ("max_tool_rounds", "tool_search", "tool_budget"):
                if getattr(args, option) is not None:
                    kwargs[option] = getattr(args, option)
            if getattr(args, "code_mode", False):
                kwargs["code_mode"] = True
            chat = Chat(model=args.model, **kwargs).with_tools(*tools)
            if args.system:
                chat.with_instructions(args.system)

            def announce(call: Any) -> None:
                name, arguments = _call_parts(call)
                if name not in approved:
                    term.line(f"  using tool {name} {_short_json(arguments)}")

            chat.on_tool_call(announce)
            if term.interactive:
                term.line(_banner(args, chat, len(tools), group.names))
            with term.ctrl_c_watch():
                failed = _loop(term, chat, tools, args)
            failed = failed or bool(group.failed)  # as the other commands: a server that did not start fails it
    finally:
        term.save_history()
    return EXIT_FAILED if failed else EXIT_OK


def _banner(args: argparse.Namespace, chat: Chat, count: int, servers: Sequence[str]) -> str:
    """What the chat says first: the model, the tools, and whether (and why) the model must search for them."""
    from mcp_litellm._chat.tool_search import MAX_TOOLS

    tools = f"{count} tool{'s' if count != 1 else ''}"
    lines = [f"{PROG} chat with {args.model}; {tools} from {', '.join(servers)}."]
    reason = chat.tool_search_reason()
    if reason is not None and args.tool_search:
        lines.append(f"Tool search is on (--tool-search): the model gets a search_tools tool and finds the {tools} "
                     "with it.")
    elif reason is not None:
        change = "--no-tool-search offers every tool"
        if count <= MAX_TOOLS:
            change += ", --tool-budget N sets the budget"
        lines.append(f"Tool search is on: {reason}. The model gets a search_tools tool and finds the others with it "
                     f"({change}).")
    if chat.code_mode is not None:
        lines.append("Code mode is on (--code-mode): the model writes Python programs over the tools, run in a "
                     "sandbox; each tool call they make is shown as it runs.")
    lines.append("/help lists the commands, Ctrl-D quits.")
    return "\n".join(lines)


def _loop(term: Terminal, chat: Chat, tools: Sequence[Tool], args: argparse.Namespace) -> bool:
    """Ask and answer until the input ends; True if a question failed."""
    failed = False
    while True:
        try:
            question = term.prompt("you> " if term.interactive else "")
        except KeyboardInterrupt:  # Ctrl-C at the prompt: drop the line, ask again
            term.line("")
            continue
        if question is None:
            return failed
        text = question.strip()
        if not text:
            continue
        if text.startswith("/") and not text.startswith("//"):
            if not _command(text, term, chat, tools):
                return failed
            continue
        if text.startswith("//"):
            question = question.lstrip()[1:]

        async def answer(question: str = question) -> None:
            async with contextlib.aclosing(chat.astream(question)) as chunks:  # type: ignore[type-var]
                async for chunk in chunks:
                    term.post_text(getattr(chunk, "content", None) or "")

        try:
            term.run(answer)
        except Interrupted:
            if not term.interactive:
                raise KeyboardInterrupt from None
            term.line("(interrupted)")
        except KeyboardInterrupt:
            if not term.interactive:
                raise
            term.line("(interrupted)")
        except Exception as exc:  # a model/provider failure: report it and keep the session
            failed = True
            term.end_text()
            print(f"{PROG}: error: {_one_line(exc, args.api_key)}", file=sys.stderr, flush=True)
        term.end_text()


def _one_line(exc: BaseException, secret: str | None) -> str:
    text = mask_secrets(" ".join(str(exc).split()) or type(exc).__name__, [secret])
    if len(text) > 300:
        text = text[:299] + "…"
    # our errors, and a model error the library explained (its text names the type already), read as they are
    said = isinstance(exc, MCPLiteLLMError) or getattr(exc, "_mcp_litellm_explained", False)
    return text if said else f"{type(exc).__name__}: {text}"
