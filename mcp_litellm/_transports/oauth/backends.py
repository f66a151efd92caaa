"""Where a :class:`~.storage.TokenStore` keeps its document: the document stores of ``_transports/stores``
(memory, a file, Redis; a lock; sealing), worded for OAuth tokens.

The lock is held around a refresh and its store, so two processes sharing the tokens never both spend
the same refresh token: a file lock beside a token file (every process of the machine), a Redis lock
beside a Redis key. Token files are private: opened without following symlinks, they must belong to the
user running the program; a file that does not is refused, on read as on write.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcp_litellm._core.documents import Wording
from mcp_litellm._core.errors import AuthError
from mcp_litellm._transports.stores import (
    FileDocument,
    MemoryDocument,
    RedisDocument,
    Sealer,
    check_key,
    sealer_from,
)

__all__ = ["TOKEN_KEY_ENV", "FileBackend", "MemoryBackend", "RedisBackend", "Sealer", "check_token_key",
           "redis_key", "sealer_for", "token_wording"]

TOKEN_KEY_ENV = "MCP_LITELLM_TOKEN_KEY"
"""Environment variable holding the key stored OAuth tokens are encrypted with."""

MemoryBackend = MemoryDocument


def _auth_error(message: str) -> AuthError:
    return AuthError(message, http_status=None)


def token_wording(server: str, fix: str) -> Wording:
    """How the token storage of ``server`` words its failures (``fix``: what to do when I/O fails)."""
    return Wording(_auth_error, what=f"the OAuth tokens for {server}", file="the OAuth token file", fix=fix,
                   refused="remove it (and authorize again), or point MCP_LITELLM_OAUTH_DIR or oauth.storage at a "
                           "directory of your own",
                   redis=f"the Redis token storage for {server}")


class FileBackend(FileDocument):
    """The tokens in a private file (mode 0600, in a directory of mode 0700), written atomically."""

    def __init__(self, path: Path, server: str, fix: str) -> None:
        super().__init__(path, token_wording(server, fix), private=True)


class RedisBackend(RedisDocument):
    """The tokens under one Redis key; ``url`` is a ``redis://`` or ``rediss://`` URL."""

    def __init__(self, url: str, key: str, server: str) -> None:
        super().__init__(url, key, token_wording(server, ""))


def check_token_key(key: str) -> None:
    """Raise ``ValueError`` (saying what a key must be, never quoting it) for a key that cannot be used."""
    check_key(key)


def sealer_for(token_key: str | None) -> Sealer | None:
    """The sealer for ``token_key`` (the ``token_key`` setting), else for ``$MCP_LITELLM_TOKEN_KEY``;
    ``None`` when neither is set (tokens are stored as they are, in files only the user can read)."""
    return sealer_from(token_key, "oauth.token_key", TOKEN_KEY_ENV,
                       lambda why: AuthError(f"the OAuth token key {why}", http_status=None))


def redis_key(user: str | None, name: str) -> str:
    """The Redis key of one server's (and user's) document."""
    return "mcp-litellm:oauth:" + (f"user:{json.dumps(user)[1:-1]}:" if user is not None else "") + name
