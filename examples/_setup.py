"""Shared command line for the examples: the question, which model to use, and which MCP server to talk to."""

from __future__ import annotations

import argparse
import shlex
import sys

import mcp_litellm as ml

DEFAULT_MODEL = "gpt-4o-mini"


def parse_args(description: str, question: str, *, what: str = "the question to ask the model") -> argparse.Namespace:
    """The example's command line: an optional question (default ``question``), ``--model`` and the server."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("question", nargs="?", default=question, help=f"{what} (default: {question!r})")
    parser.add_argument("--model", "-m", default=DEFAULT_MODEL,
                        help=f"a LiteLLM model string, e.g. {DEFAULT_MODEL} (the default) or anthropic/claude-...")
    parser.add_argument("--api-base", help="an OpenAI-compatible endpoint (a local server, a proxy)")
    parser.add_argument("--api-key", help="the key for --api-base (otherwise the provider's usual variable)")
    parser.add_argument("--server", default=f"{sys.executable} -m mcp_litellm.demo_server",
                        help="the stdio command of the MCP server (default: the demo server in the package)")
    return parser.parse_args()


def connect(args: argparse.Namespace) -> ml.Client:
    command, *arguments = shlex.split(args.server)
    return ml.client("demo", "stdio", {"command": command, "args": arguments}, start=False)  # `with` starts it


def chat(args: argparse.Namespace) -> ml.Chat:
    settings = {k: v for k, v in (("api_base", args.api_base), ("api_key", args.api_key)) if v}
    return ml.Chat(args.model, **settings)
