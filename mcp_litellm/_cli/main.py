"""The ``mcp-litellm`` command: list what MCP servers offer, run one operation, or chat with their tools.

Exit codes: 0 success, 1 the operation failed (a server did not start, a tool reported an error),
2 a usage or config error (bad arguments, bad config file, unknown tool). User errors print one line
on stderr, never a traceback (``-v`` shows server logs; ``--debug`` shows tracebacks).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from collections.abc import Callable, Sequence

from mcp_litellm._cli import auth
from mcp_litellm._cli import commands as c
from mcp_litellm._cli.chat import run_chat
from mcp_litellm._cli.commands import EXIT_FAILED, EXIT_USAGE, PROG, UsageError
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, NotFoundError
from mcp_litellm._core.version import VERSION
from mcp_litellm._servers.group import FAILED_TO_START


def _common(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("servers")
    group.add_argument("--config", "-c", metavar="FILE",
                       help="an mcpServers JSON or YAML file (default: the demo server shipped with mcp-litellm)")
    group.add_argument("--server", "-s", metavar="NAME", action="append",
                       help="use only this server (repeatable)")
    group.add_argument("--timeout", type=float, metavar="SECONDS",
                       help="seconds each MCP request may take (default: 30, or the server's request_timeout)")
    out = parser.add_argument_group("output")
    out.add_argument("-v", "--verbose", action="count", default=0,
                     help="show server logs (-v) and debug messages (-vv)")
    out.add_argument("--debug", action="store_true", help="show tracebacks for errors")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``mcp-litellm`` and its commands."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Use MCP servers from the command line and in LiteLLM chats. Without --config, the commands "
                    "use a small demo server shipped with mcp-litellm.",
        epilog=f"Run '{PROG} COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {VERSION}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")

    def command(name: str, help_text: str, run: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(run=run)
        _common(sub)
        return sub

    sub = command("servers", "List the configured servers, whether they start, and (for OAuth servers) whether "
                             "they are authorized.", c.servers)
    sub.add_argument("--format", choices=["text", "json"], default="text")

    sub = command("login", "Authorize with an OAuth-protected server now and store its tokens.", auth.login)
    sub.add_argument("name", metavar="NAME", help="the server's name in the config file")

    sub = command("logout", "Delete the stored OAuth tokens of a server.", auth.logout)
    sub.add_argument("name", metavar="NAME", help="the server's name in the config file")

    sub = command("tools", "List the tools the servers offer.", c.tools)
    sub.add_argument("--format", choices=["text", "json", "litellm"], default="text",
                     help="'litellm' prints the exact tool definitions LiteLLM receives")
    sub.add_argument("--model", metavar="MODEL",
                     help="with --format litellm: apply this model's provider schema rules")
    sub.add_argument("--include", action="append", metavar="GLOB", help="only tools matching (repeatable)")
    sub.add_argument("--exclude", action="append", metavar="GLOB", help="leave out tools matching (repeatable)")

    sub = command("resources", "List the resources and resource templates the servers offer.", c.resources)
    sub.add_argument("--format", choices=["text", "json"], default="text")

    sub = command("prompts", "List the prompts the servers offer.", c.prompts)
    sub.add_argument("--format", choices=["text", "json"], default="text")

    sub = command("call", "Call one tool and print its result.", c.call)
    sub.add_argument("tool", metavar="TOOL", help="the tool's name (as 'tools' lists it)")
    sub.add_argument("arguments", nargs="*", metavar="ARGS",
                     help="a JSON object ('{\"a\": 1}'), '-' to read it from stdin, or key=value pairs")
    sub.add_argument("--format", choices=["text", "json"], default="text")

    sub = command("read", "Read a resource (or a URI matching a resource template) and print it.", c.read)
    sub.add_argument("uri", metavar="URI")
    sub.add_argument("--output", "-o", metavar="FILE", help="write the content to FILE (binary content needs it "
                                                                "when stdout is a terminal)")

    sub = command("prompt", "Get a prompt's messages with arguments.", c.prompt)
    sub.add_argument("name", metavar="NAME")
    sub.add_argument("arguments", nargs="*", metavar="KEY=VALUE")
    sub.add_argument("--format", choices=["text", "json", "litellm"], default="text",
                     help="'litellm' prints the messages as LiteLLM receives them")

    sub = command("chat", "Chat with a model that can use every configured server's tools.", run_chat)
    sub.add_argument("--model", "-m", required=True, metavar="MODEL", help="a LiteLLM model, e.g. openai/gpt-4o-mini")
    sub.add_argument("--api-base", metavar="URL", help="the model endpoint (for OpenAI-compatible servers)")
    sub.add_argument("--api-key", metavar="KEY", help="API key (default: the provider's environment variable)")
    sub.add_argument("--system", metavar="TEXT", help="a system prompt")
    sub.add_argument("--approve", action="store_true", help="ask before every tool call")
    sub.add_argument("--allow-sampling", action="store_true",
                     help="let servers ask the same model for completions (MCP sampling)")
    sub.add_argument("--max-tool-rounds", type=int, metavar="N", help="model/tool round trips per question")
    return parser


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
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mcp-litellm`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    _configure_logging(args.verbose)
    if args.timeout is not None and args.timeout <= 0:
        parser.exit(EXIT_USAGE, f"{PROG}: error: --timeout must be a positive number of seconds\n")
    try:
        code: int = args.run(args)
        return code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
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
