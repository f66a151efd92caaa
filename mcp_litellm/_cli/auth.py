"""``mcp-litellm login NAME`` and ``mcp-litellm logout NAME``."""

from __future__ import annotations

import argparse
import asyncio
import sys

from mcp_litellm._cli.commands import EXIT_OK, PROG, UsageError, configs_for
from mcp_litellm._cli.oauth_status import oauth_store
from mcp_litellm._core.errors import NotFoundError
from mcp_litellm._servers.config_file import ServerConfig
from mcp_litellm._transports.oauth import TokenStore, oauth_settings, revoke_stored


def _one(args: argparse.Namespace, command: str) -> tuple[ServerConfig, TokenStore]:
    configs = configs_for(args)
    server = configs.get(args.name)
    if server is None:
        raise NotFoundError("server", args.name, configs)
    store = oauth_store(server)
    if store is None:
        raise UsageError(f"server {args.name!r} does not use OAuth; give it \"auth\": \"oauth\" "
                         "(or \"oauth\": {...}) in the config file")
    if not isinstance(store, TokenStore) or not store.shared:
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
    print(f"{PROG}: authorized {server.name!r}; tokens stored {store.backend.where}", file=sys.stderr)
    return EXIT_OK


def logout(args: argparse.Namespace) -> int:
    """``mcp-litellm logout NAME``: revoke the stored tokens at the authorization server where it offers
    revocation (best effort), then delete them and the client registration."""
    server, store = _one(args, "log out of")
    revoked = asyncio.run(revoke_stored(store, oauth_settings(server.config)))
    if store.delete():
        said = f"; the authorization server revoked {revoked} token(s)" if revoked else ""
        print(f"{PROG}: removed the stored tokens of {server.name!r} ({store.backend.where}){said}", file=sys.stderr)
    else:
        print(f"{PROG}: no tokens were stored for {server.name!r}", file=sys.stderr)
    return EXIT_OK
