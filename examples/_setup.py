"""Shared command line for the examples: which model to use, and which MCP server to talk to."""

from __future__ import annotations

import argparse
import shlex
import sys

import mcp_litellm as ml


def parse_args(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--model", required=True,
                        help="a LiteLLM model string, e.g. gpt-4o-mini or anthropic/claude-...")
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
