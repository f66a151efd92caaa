"""``mcp-litellm chat``: an interactive LiteLLM chat with every configured server's tools.

Text streams to stdout as it arrives; each tool call shows as a ``using tool NAME {arguments}`` line;
tool progress notifications draw a bar on stderr. ``--approve`` asks before each tool call,
elicitation requests become questions in the terminal, and ``--allow-sampling`` lets servers sample
through the same model. Type ``/exit`` (or end the input) to leave, ``/tools`` to list the tools.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
from collections.abc import Callable
from typing import Any

from mcp_litellm._cli.commands import EXIT_FAILED, EXIT_OK, PROG, connect
from mcp_litellm._cli.render import ProgressBar, first_line, signature
from mcp_litellm._core.errors import MCPLiteLLMError
from mcp_litellm._servers.group import ClientGroup
from mcp_litellm.handlers import Decision, Elicitation, accept, cancel, decline

_ARGS_SHOWN = 200


class Terminal:
    """Serialises what the chat, tool hooks, progress callbacks and handler threads print."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.progress = ProgressBar(sys.stderr)
        self._mid_line = False

    def text(self, delta: str) -> None:
        """Streamed model text, printed as it arrives."""
        if not delta:
            return
        with self.lock:
            self.progress.end()
            sys.stdout.write(delta)
            sys.stdout.flush()
            self._mid_line = not delta.endswith("\n")

    def line(self, text: str) -> None:
        """A line of its own (a tool being used, a notice), after any partial text line."""
        with self.lock:
            self.progress.end()
            self.end_text()
            print(text, flush=True)

    def end_text(self) -> None:
        """End a partial line of streamed text."""
        with self.lock:
            if self._mid_line:
                sys.stdout.write("\n")
                sys.stdout.flush()
                self._mid_line = False

    def ask(self, question: str) -> str | None:
        """Ask on the terminal; ``None`` when the input ended."""
        with self.lock:
            self.progress.end()
            self.end_text()
            try:
                answer = input(question)
            except EOFError:
                return None
            if question and not sys.stdin.isatty():
                print(flush=True)  # piped input is not echoed: end the question's line
            return answer


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


# -- client-side handlers (run in worker threads, never on the background loop) ---------------------


def _approval_handler(term: Terminal, server: str,
                      names: dict[tuple[str, str], str]) -> Callable[[str, dict[str, Any]], bool | str]:
    """Ask before each tool call of ``server``, naming the tool as the model knows it.

    The client hands the server's own tool name; ``names`` maps ``(server, that name)`` to the tool's
    name in the group (``a__lookup``), so two servers' tools of the same name are told apart.
    """
    def approve(tool_name: str, parameters: dict[str, Any]) -> bool | str:
        shown = names.get((server, tool_name), tool_name)
        answer = term.ask(f"  allow tool {shown} {_short_json(parameters or {})}? [y/N] ")
        if (answer or "").strip().lower() in ("y", "yes"):
            return True
        term.line(f"  denied {shown}")
        return "the user denied it in the terminal"

    return approve


def _parse_field(value: str, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "boolean":
        lowered = value.strip().lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if kind == "integer":
        return int(value)
    if kind == "number":
        return float(value)
    if kind == "array":
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def ask_form(term: Terminal, message: str, schema: dict[str, Any]) -> dict[str, Any] | str:
    """Ask a form's fields in the terminal; returns the content, or ``"decline"`` / ``"cancel"``."""
    term.line(f"  {message}")
    answer = term.ask("  answer? [Y]es / [n]o (decline) / [c]ancel: ")
    if answer is None or answer.strip().lower() in ("c", "cancel"):
        return "cancel"
    if answer.strip().lower() in ("n", "no", "decline"):
        return "decline"
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    content: dict[str, Any] = {}
    for key, field_schema in properties.items():
        label = field_schema.get("title") or key
        hints = [str(field_schema.get("type", "string"))]
        choices = field_schema.get("enum") or [o.get("const") for o in field_schema.get("oneOf", []) if "const" in o]
        if choices:
            hints = ["one of " + ", ".join(map(str, choices))]
        if "default" in field_schema:
            hints.append(f"default {field_schema['default']}")
        if key not in required:
            hints.append("optional")
        description = f" - {field_schema['description']}" if field_schema.get("description") else ""
        while True:
            raw = term.ask(f"    {label} ({', '.join(hints)}){description}: ")
            if raw is None:
                return "cancel"
            if not raw.strip():
                if "default" in field_schema:
                    content[key] = field_schema["default"]
                    break
                if key not in required:
                    break
                term.line("    this field is required")
                continue
            try:
                value = _parse_field(raw, field_schema)
            except ValueError as exc:
                term.line(f"    {exc}")
                continue
            if choices and value not in choices:
                term.line(f"    choose one of: {', '.join(map(str, choices))}")
                continue
            content[key] = value
            break
    return content


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
        result = ask_form(term, f"{server} asks: {elicitation.message}", dict(elicitation.requested_schema or {}))
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
        term.progress.update(tool_name, value, total, message)

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


def run_chat(args: argparse.Namespace) -> int:
    """The interactive loop; returns the exit code."""
    from mcp_litellm._chat.chat import Chat
    from mcp_litellm._llm import litellm_module

    litellm_module().suppress_debug_info = True  # no "Give Feedback / Get Help" banners in the chat
    term = Terminal()
    client_options = _sampling_options(args) if args.allow_sampling else {}
    tool_names: dict[tuple[str, str], str] = {}
    with connect(args, prepare=lambda group: _prepare(group, args, term, tool_names), **client_options) as group:
        tools = group.tools()
        tool_names.update({(tool.client.name, tool.mcp_name): tool.name for tool in tools})
        kwargs: dict[str, Any] = {k: v for k, v in (("api_base", args.api_base), ("api_key", args.api_key)) if v}
        if args.max_tool_rounds is not None:
            kwargs["max_tool_rounds"] = args.max_tool_rounds
        chat = Chat(model=args.model, **kwargs).with_tools(*tools)
        if args.system:
            chat.with_instructions(args.system)
        chat.on_tool_call(lambda call: term.line("  using tool {} {}".format(*map(str, _format_call(call)))))
        interactive = sys.stdin.isatty()
        failed = False
        if interactive:
            names = ", ".join(group.names)
            print(f"{PROG} chat with {args.model}; {len(tools)} tools from {names}. /tools lists them, /exit quits.",
                  file=sys.stderr)
        while True:
            question = term.ask("you> " if interactive else "")
            if question is None or question.strip() in ("/exit", "/quit"):
                break
            if not question.strip():
                continue
            if question.strip() == "/tools":
                for tool in tools:
                    term.line(f"  {signature(tool.name, tool.input_schema)}  {first_line(tool.description, 60)}")
                continue
            try:
                for chunk in chat.stream(question):
                    term.text(getattr(chunk, "content", None) or "")
            except KeyboardInterrupt:
                if not interactive:
                    raise
                term.line("(interrupted)")
            except Exception as exc:  # a model/provider failure: report it and keep the session
                failed = True
                term.end_text()
                print(f"{PROG}: error: {_one_line(exc, args.api_key)}", file=sys.stderr, flush=True)
            term.end_text()
        failed = failed or bool(group.failed)  # as the other commands: a server that did not start fails it
    return EXIT_FAILED if failed else EXIT_OK


def _one_line(exc: BaseException, secret: str | None) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if secret:
        text = text.replace(secret, "***")
    if len(text) > 300:
        text = text[:299] + "…"
    return text if isinstance(exc, MCPLiteLLMError) else f"{type(exc).__name__}: {text}"


def _format_call(call: Any) -> tuple[str, str]:
    name, arguments = _call_parts(call)
    return name, _short_json(arguments)
