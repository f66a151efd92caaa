"""``mcp-litellm login NAME`` and ``mcp-litellm logout NAME``."""

from __future__ import annotations

import argparse
import sys

from mcp_litellm._cli.commands import EXIT_OK, PROG, UsageError, configs_for
from mcp_litellm._cli.oauth_status import oauth_store
from mcp_litellm._core.errors import NotFoundError
from mcp_litellm._servers.config_file import ServerConfig
from mcp_litellm._transports.oauth_storage import TokenStore


def _one(args: argparse.Namespace, command: str) -> tuple[ServerConfig, TokenStore]:
    configs = configs_for(args)
    server = configs.get(args.name)
    if server is None:
        raise NotFoundError("server", args.name, configs)
    store = oauth_store(server)
    if store is None:
        raise UsageError(f"server {args.name!r} does not use OAuth; give it \"auth\": \"oauth\" "
                         "(or \"oauth\": {...}) in the config file")
    if not isinstance(store, TokenStore) or store.path is None:
        raise UsageError(f"server {args.name!r} keeps its tokens in memory (oauth.storage), so there is nothing to "
                         f"{command}; remove the storage setting to keep them on disk")
    return server, store


def login(args: argparse.Namespace) -> int:
    """``mcp-litellm login NAME``: authorize now (browser, or paste-back without one) and store the tokens."""
    server, store = _one(args, "log in to")
    store.forget_tokens()  # the next request is answered 401, which starts a new authorization
    options = {"request_timeout": args.timeout} if args.timeout is not None else {}
    client = server.client(**options)
    with client:
        pass
    if store.status() == "not authorized":
        print(f"{PROG}: {server.name!r} did not ask for authorization (it answered without a token); nothing "
              "was stored", file=sys.stderr)
        return EXIT_OK
    print(f"{PROG}: authorized {server.name!r}; tokens stored in {store.path}", file=sys.stderr)
    return EXIT_OK


def logout(args: argparse.Namespace) -> int:
    """``mcp-litellm logout NAME``: delete the stored tokens and client registration."""
    server, store = _one(args, "log out of")
    path = store.path
    if store.delete():
        print(f"{PROG}: removed the stored tokens of {server.name!r} ({path})", file=sys.stderr)
    else:
        print(f"{PROG}: no tokens were stored for {server.name!r}", file=sys.stderr)
    return EXIT_OK
