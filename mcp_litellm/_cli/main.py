"""The ``mcp-litellm`` command: list what MCP servers offer, run one operation, or chat with their tools.

Options may stand anywhere: the global ones (``--config``, ``--command``, ``--url``, ``--server``,
``--timeout``, ``-v``, ``--debug``) before or after the command, a command's own options before,
between or after its positional arguments (``mcp-litellm call add -c mcp.json a=1 b=2``).

Exit codes, the same for every command: 0 success; 1 the operation failed, or some selected server
did not start (the command still did what it could with the others and warned on stderr), or a tool
reported an error; 2 a usage or config error (bad arguments, bad config file, unknown tool, resource
or prompt); 130 interrupted. User errors print one line on stderr, never a traceback (``-v`` shows
server logs; ``--debug`` shows tracebacks).

A new command is one :func:`command` call in :func:`build_parser` (plus its own options); its ``run``
function takes the parsed arguments and returns the exit code.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from mcp_litellm._cli import auth, doctor, pins
from mcp_litellm._cli import commands as c
from mcp_litellm._cli.chat import run_chat
from mcp_litellm._cli.commands import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, PROG, UsageError, for_command_line
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, NotFoundError
from mcp_litellm._core.version import VERSION
from mcp_litellm._servers.group import FAILED_TO_START

_AFTER = "_after_command"
"""Suffix of the destinations of the global options given after the command (merged by :func:`_merge_globals`)."""

# (flags, settings, how a value given after the command combines with one given before it)
_GLOBALS: list[tuple[tuple[str, ...], dict[str, Any], str]] = [
    (("--config", "-c"), {"metavar": "FILE", "help": "an mcpServers JSON or YAML file"}, "replace"),
    (("--command",), {"metavar": "CMD", "action": "append",
                      "help": "a stdio server to start, as one shell-quoted string, e.g. "
                              "\"npx -y @modelcontextprotocol/server-memory\" (repeatable)"}, "extend"),
    (("--url",), {"metavar": "URL", "action": "append",
                  "help": "a remote server: streamable HTTP, or SSE for a path ending in /sse (repeatable)"}, "extend"),
    (("--server", "-s"), {"metavar": "NAME", "action": "append", "help": "use only this server (repeatable)"},
     "extend"),
    (("--timeout",), {"type": float, "metavar": "SECONDS",
                      "help": "seconds each MCP request may take (default: 30, or the server's request_timeout)"},
     "replace"),
    (("-v", "--verbose"), {"action": "count", "help": "show server logs (-v) and debug messages (-vv)"}, "add"),
    (("--debug",), {"action": "store_true", "help": "show tracebacks for errors"}, "replace"),
]
_DEFAULTS = {"config": None, "command": None, "url": None, "server": None, "timeout": None, "verbose": 0,
             "debug": False}


def _dest(flags: tuple[str, ...]) -> str:
    return next(f for f in flags if f.startswith("--"))[2:].replace("-", "_")


def _add_globals(parser: argparse.ArgumentParser, *, after_command: bool) -> None:
    """The global options; given after the command they land in separate destinations, merged later."""
    group = parser.add_argument_group(
        "servers and output", "These may stand before or after the command. Without --config, --command or --url, "
                              "the demo server shipped with mcp-litellm is used.")
    for flags, settings, _ in _GLOBALS:
        dest = _dest(flags)
        extra: dict[str, Any] = {"dest": dest + _AFTER, "default": argparse.SUPPRESS} if after_command \
            else {"dest": dest, "default": _DEFAULTS[dest]}
        group.add_argument(*flags, **settings, **extra)


def _merge_globals(args: argparse.Namespace) -> None:
    """Fold the global options given after the command into those given before it."""
    for flags, _, how in _GLOBALS:
        dest = _dest(flags)
        if not hasattr(args, dest + _AFTER):
            continue
        later = getattr(args, dest + _AFTER)
        delattr(args, dest + _AFTER)
        earlier = getattr(args, dest)
        if how == "extend":
            later = [*(earlier or []), *later]
        elif how == "add":
            later = earlier + later
        setattr(args, dest, later)


class _CommandParser(argparse.ArgumentParser):
    """A command's parser: its options may come before, between or after its positional arguments."""

    _intermixing = False

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        if self._intermixing:  # the intermixed parser calls back here (Python < 3.12)
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``mcp-litellm`` and its commands."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Use MCP servers from the command line and in LiteLLM chats.",
        epilog=f"Run '{PROG} COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {VERSION}")
    _add_globals(parser, after_command=False)
    commands = parser.add_subparsers(dest="command_name", metavar="COMMAND", title="commands",
                                     parser_class=_CommandParser)

    def command(name: str, help_text: str, run: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(run=run)
        _add_globals(sub, after_command=True)
        return sub

    def output_format(sub: argparse.ArgumentParser, *extra: str, help_text: str = "") -> None:
        choices = ["text", "json", *extra]
        sub.add_argument("--format", choices=choices, default="text",
                         help=help_text or "'text' for people (the default), 'json' for programs")

    sub = command("servers", "List the configured servers, whether they start, and (for OAuth servers) whether "
                             "they are authorized.", c.servers)
    output_format(sub)

    sub = command("login", "Authorize with an OAuth-protected server now and store its tokens.", auth.login)
    sub.add_argument("name", metavar="NAME", help="the server's name in the config file")

    sub = command("logout", "Delete the stored OAuth tokens of a server.", auth.logout)
    sub.add_argument("name", metavar="NAME", help="the server's name in the config file")

    sub = command("tools", "List the tools the servers offer.", c.tools)
    output_format(sub, "litellm", help_text="'text' for people (the default), 'json' for programs, 'litellm' for "
                                            "the exact tool definitions LiteLLM receives")
    sub.add_argument("--model", metavar="MODEL",
                     help="with --format litellm: apply this model's provider schema rules")
    sub.add_argument("--include", action="append", metavar="GLOB", help="only tools matching (repeatable)")
    sub.add_argument("--exclude", action="append", metavar="GLOB", help="leave out tools matching (repeatable)")

    sub = command("resources", "List the resources and resource templates the servers offer.", c.resources)
    output_format(sub)

    sub = command("prompts", "List the prompts the servers offer.", c.prompts)
    output_format(sub)

    sub = command("call", "Call one tool and print its result.", c.call)
    sub.add_argument("tool", metavar="TOOL", help="the tool's name (as 'tools' lists it)")
    sub.add_argument("arguments", nargs="*", default=[], metavar="ARGS",  # a default: argparse calls it optional
                     help="a JSON object ('{\"a\": 1}'), '-' to read it from stdin, or key=value pairs (typed by "
                          "the tool's input schema)")
    output_format(sub, help_text="'text' prints the result's content (the default), 'json' the whole result "
                                 "with its structured content")

    sub = command("read", "Read a resource (or a URI matching a resource template) and print it.", c.read)
    sub.add_argument("uri", metavar="URI", help="the resource's URI (as 'resources' lists it) or one that fits a "
                                                "resource template")
    sub.add_argument("--output", "-o", metavar="FILE", help="write the content to FILE (binary content needs it "
                                                                "when stdout is a terminal)")

    sub = command("prompt", "Get a prompt's messages with arguments.", c.prompt)
    sub.add_argument("name", metavar="NAME", help="the prompt's name (as 'prompts' lists it)")
    sub.add_argument("arguments", nargs="*", default=[], metavar="KEY=VALUE", help="the prompt's arguments")
    output_format(sub, "litellm", help_text="'text' for people (the default), 'json' or 'litellm' for the "
                                            "messages as LiteLLM receives them")

    doctor.add_arguments(command("doctor", doctor.HELP, doctor.run))

    pins.add_arguments(command("pins", pins.HELP, pins.run))

    sub = command("chat", "Chat with a model that can use every configured server's tools.", run_chat)
    sub.add_argument("--model", "-m", required=True, metavar="MODEL", help="a LiteLLM model, e.g. openai/gpt-4o-mini")
    sub.add_argument("--api-base", metavar="URL", help="the model endpoint (for OpenAI-compatible servers)")
    sub.add_argument("--api-key", metavar="KEY", help="API key (default: the provider's environment variable)")
    sub.add_argument("--system", metavar="TEXT", help="a system prompt")
    sub.add_argument("--approve", action="store_true", help="ask before every tool call")
    sub.add_argument("--allow-sampling", action="store_true",
                     help="let servers ask the same model for completions (MCP sampling)")
    sub.add_argument("--max-tool-rounds", type=int, metavar="N", help="model/tool round trips per question")
    sub.add_argument("--tool-search", action=argparse.BooleanOptionalAction, default=None,
                     help="offer the model one search_tools tool to find the others with, always (--tool-search) or "
                          "never (--no-tool-search); default: when the tool definitions exceed --tool-budget")
    sub.add_argument("--code-mode", action="store_true",
                     help="the model writes short Python programs over the tools (one run_code tool), run in a "
                          "sandbox; only what they print reaches it (needs mcp-litellm[code])")
    sub.add_argument("--tool-budget", type=_tokens, metavar="N",
                     help="tokens of tool definitions per request before tool search starts (default: 5%% of the "
                          "model's input window; 2,000 for a model LiteLLM does not know)")
    return parser


def _tokens(text: str) -> int:
    """A whole number of tokens above 0 (for ``--tool-budget``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens above 0, got {text!r}")
    return value


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse ``argv`` (default ``sys.argv[1:]``) with global options merged, wherever they stood."""
    args = build_parser().parse_args(argv)
    _merge_globals(args)
    return args


def _configure_logging(verbose: int) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{PROG}: %(levelname)s: %(message)s" if verbose
                                           else f"{PROG}: %(message)s"))
    handler.addFilter(lambda record: record.msg != FAILED_TO_START)  # the commands report these themselves
    logger = logging.getLogger("mcp_litellm")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)
    if not verbose:
        warnings.simplefilter("ignore")
        for noisy in ("LiteLLM", "litellm", "httpx", "httpx2"):
            logging.getLogger(noisy).setLevel(logging.ERROR)


def _say(message: object) -> None:
    """The one-line reason for a failure, on stderr."""
    print(f"{PROG}: error: {' '.join(for_command_line(message).split())}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mcp-litellm`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    args = parse_args(argv)
    if getattr(args, "run", None) is None:
        build_parser().print_help(sys.stderr)
        return EXIT_USAGE
    _configure_logging(args.verbose)
    if args.timeout is not None and args.timeout <= 0:
        _say("--timeout must be a positive number of seconds")
        return EXIT_USAGE
    try:
        code: int = args.run(args)
        return code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``mcp-litellm tools | head``); nothing more to say.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED
    except (UsageError, ConfigError, NotFoundError) as exc:
        if args.debug:
            raise
        _say(exc)
        return EXIT_USAGE
    except MCPLiteLLMError as exc:
        if args.debug:
            raise
        _say(exc)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
