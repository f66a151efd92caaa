"""Where OAuth tokens and client registrations are kept between runs.

:class:`TokenStore` implements the SDK's ``mcp.client.auth.TokenStorage`` protocol, in memory or in
one JSON file per MCP server (resource) in the user's config directory (``$MCP_LITELLM_OAUTH_DIR``,
else ``$XDG_CONFIG_HOME/mcp-litellm/oauth``, else ``~/.config/mcp-litellm/oauth``), or under one Redis
key per server (``oauth.storage`` ``"redis://..."``), shared by every process of an app. The directory is
created with mode 0700 and each file is written atomically with mode 0600 (see :mod:`.backends`).
Inside a document, entries are keyed by the authorization server's issuer, so a server that moves to
another authorization server gets a new registration without losing the old one. A store made for a
user of an app (``oauth.user``, set by ``ClientPool``) keeps that user's tokens apart from everyone
else's. With a key (``oauth.token_key`` or ``$MCP_LITELLM_TOKEN_KEY``) the document is encrypted.

Unlike the SDK, the store keeps each access token's absolute expiry time, so a token stored by an
earlier run is refreshed before it expires instead of being sent and rejected.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TypeAlias, TypeVar
from urllib.parse import urlsplit

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import ValidationError

from mcp_litellm._core.documents import JSONValue
from mcp_litellm._core.errors import AuthError
from mcp_litellm._transports.oauth.backends import (
    TOKEN_KEY_ENV,
    FileBackend,
    MemoryBackend,
    RedisBackend,
    Sealer,
    redis_key,
)

__all__ = ["OAUTH_DIR_ENV", "TokenStore", "oauth_directory"]

logger = logging.getLogger("mcp_litellm.oauth")

OAUTH_DIR_ENV = "MCP_LITELLM_OAUTH_DIR"
"""Environment variable naming the directory for stored tokens (overrides the config directory)."""

T = TypeVar("T")
Document: TypeAlias = dict[str, JSONValue]
"""A store's document: ``{"format", "resource", "active", "issuers": {issuer: entry}}``."""
Entry: TypeAlias = dict[str, JSONValue]
"""What is stored for one issuer: ``tokens``, ``expires_at``, ``client_info``."""

_UNKNOWN_ISSUER = ""
_FORMAT = 1


def oauth_directory() -> Path:
    """The default directory for stored OAuth tokens."""
    override = os.environ.get(OAUTH_DIR_ENV)
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mcp-litellm" / "oauth"


def _file_name(resource: str, user: str | None = None) -> str:
    parts = urlsplit(resource)
    readable = re.sub(r"[^A-Za-z0-9.-]+", "_", f"{parts.hostname or 'server'}_{parts.port or ''}").strip("_")
    if user is None:
        digest = hashlib.sha256(resource.encode("utf-8")).hexdigest()[:16]
        return f"{readable}-{digest}.json"
    digest = hashlib.sha256(f"{resource}\0{user}".encode()).hexdigest()[:16]
    who = re.sub(r"[^A-Za-z0-9.@-]+", "_", user)[:40].strip("_.") or "user"
    return f"{readable}-user-{who}-{digest}.json"


def _blocking(coroutine: Coroutine[object, None, T]) -> T:
    """Run ``coroutine`` to its end from synchronous code (the CLI), in a thread if a loop runs here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class TokenStore:
    """Tokens and the client registration for one MCP server (resource), in memory, a file or Redis.

    ``issuer()`` names the authorization server the flow talks to at the moment (``None`` before
    discovery); entries are filed under it. ``user``: the app's user whose tokens these are (``None``:
    the program's own). ``redis``: a ``redis://`` URL to keep them in instead of ``directory``.
    ``sealer``: encrypts the document at rest.
    """

    def __init__(self, resource: str, directory: Path | None, *, server: str | None = None, user: str | None = None,
                 redis: str | None = None, sealer: Sealer | None = None) -> None:
        self.resource = resource
        self.server = server or resource
        self.user = user
        name = _file_name(resource, user)
        self.backend: FileBackend | MemoryBackend | RedisBackend
        if redis is not None:
            self.backend = RedisBackend(redis, redis_key(user, name[:-len(".json")]), self.server)
        elif directory is not None:
            self.backend = FileBackend(directory / name, self.server, self._fix())
        else:
            self.backend = MemoryBackend()
        self.path = self.backend.path
        self.current_issuer: str | None = None
        self._sealer = sealer
        self._data: Document | None = None
        self._warned = False

    def __repr__(self) -> str:
        where = str(self.path) if self.path is not None else (
            "redis" if isinstance(self.backend, RedisBackend) else "memory")
        return f"TokenStore(resource={self.resource!r}, at={where!r}{', encrypted' if self._sealer else ''})"

    @property
    def shared(self) -> bool:
        """True when other clients and processes may change the document (a file or Redis)."""
        return not isinstance(self.backend, MemoryBackend)

    # -- the document ----------------------------------------------------------------------------------

    def _fix(self) -> str:
        return (f"make it writable, set {OAUTH_DIR_ENV} to another directory, or set oauth.storage to 'memory' "
                "or a directory path")

    def _empty(self) -> Document:
        return {"format": _FORMAT, "resource": self.resource, "active": None, "issuers": {}}

    def _decode(self, text: str | None) -> Document:
        if text is None:
            return self._empty()
        try:
            loaded = json.loads(text)
        except ValueError:
            loaded = None
        if isinstance(loaded, dict) and isinstance(loaded.get("sealed"), str):
            if self._sealer is None:
                raise AuthError(f"the stored OAuth tokens for {self.server} ({self.backend.where}) are encrypted: set "
                                f"{TOKEN_KEY_ENV} (or oauth.token_key) to the key they were stored with, or run "
                                "'mcp-litellm logout NAME' (or delete them) to authorize again", http_status=None)
            opened = self._sealer.open(loaded["sealed"])
            if opened is None:
                raise AuthError(f"cannot decrypt the stored OAuth tokens for {self.server} ({self.backend.where}) "
                                f"with the key from {self._sealer.source}: they were stored with another key (or "
                                "the data was altered); give the key they were stored with, or run 'mcp-litellm "
                                "logout NAME' (or delete them) to authorize again", http_status=None)
            try:
                loaded = json.loads(opened)
            except ValueError:
                loaded = None
        if isinstance(loaded, dict) and isinstance(loaded.get("issuers"), dict):
            return loaded
        if not self._warned:
            self._warned = True
            where = f"file {self.path}" if self.path is not None else f"tokens {self.backend.where}"
            logger.warning("ignoring the unreadable OAuth token %s for %s; the next use authorizes again",
                           where, self.server)
        return self._empty()

    def _encode(self, data: Document) -> str:
        text = json.dumps(data, indent=1)
        if self._sealer is None:
            return text
        return json.dumps({"format": _FORMAT, "resource": self.resource, "sealed": self._sealer.seal(text)})

    def _load(self) -> Document:
        if self._data is None:
            backend = self.backend
            if isinstance(backend, FileBackend):
                self._data = self._decode(backend.read_sync())
            else:
                self._data = _blocking(self._aload())
        return self._data

    async def _aload(self, *, fresh: bool = False) -> Document:
        if self._data is None or fresh:
            self._data = self._decode(await self.backend.read())
        return self._data

    def _save(self) -> None:
        data = self._load()
        backend = self.backend
        if isinstance(backend, FileBackend):
            backend.write_sync(self._encode(data))
        else:
            _blocking(backend.write(self._encode(data)))

    async def _asave(self) -> None:
        await self.backend.write(self._encode(await self._aload()))

    def lock(self) -> AbstractAsyncContextManager[None]:
        """Held around a refresh and the store of its tokens (across processes, for a file or Redis)."""
        return self.backend.lock()

    def _entry(self, issuer: str | None = None, *, create: bool = False) -> Entry | None:
        data = self._load()
        active = data.get("active")
        key = issuer if issuer is not None else (
            self.current_issuer or (active if isinstance(active, str) else None) or _UNKNOWN_ISSUER)
        issuers = _issuers(data)
        entry = issuers.get(key)
        if entry is None and create:
            entry = issuers[key] = {}
        if create:
            data["active"] = key
        return entry if isinstance(entry, dict) else None

    # -- mcp.client.auth.TokenStorage --------------------------------------------------------------

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens for the current authorization server, if any (read afresh: another process
        may have stored newer ones)."""
        await self._aload(fresh=True)
        return _tokens(self._entry())

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store new tokens, with the absolute time their access token expires."""
        await self._aload(fresh=True)
        entry = self._entry(create=True)
        assert entry is not None
        entry["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        entry["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in else None
        await self._asave()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The stored client registration for the current authorization server, if any."""
        await self._aload()
        entry = self._entry()
        raw = entry.get("client_info") if entry else None
        if raw is None:
            return None
        try:
            return OAuthClientInformationFull.model_validate(raw)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Store a client registration (under the issuer it was registered with, when known)."""
        issuer = client_info.issuer or self.current_issuer
        if issuer is not None:
            self.current_issuer = issuer
        await self._aload(fresh=True)
        entry = self._entry(issuer, create=True)
        assert entry is not None
        entry["client_info"] = client_info.model_dump(mode="json", exclude_none=True)
        await self._asave()

    # -- beyond the protocol ---------------------------------------------------------------------------

    def expires_at(self) -> float | None:
        """When the stored access token expires (seconds since the epoch), if known."""
        entry = self._entry()
        value = entry.get("expires_at") if entry else None
        return float(value) if isinstance(value, int | float) else None

    def dpop_key(self) -> dict[str, str] | None:
        """The DPoP private key (a JWK) stored beside the tokens of the current authorization server, as last read."""
        entry = self._entry()
        raw = entry.get("dpop_key") if entry else None
        return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else None

    async def set_dpop_key(self, key: dict[str, str]) -> None:
        """Store the DPoP private key the tokens are bound to (sealed with them when a token key is set)."""
        await self._aload(fresh=True)
        entry = self._entry(create=True)
        assert entry is not None
        entry["dpop_key"] = dict(key)
        await self._asave()

    def reload(self) -> tuple[OAuthToken | None, float | None]:
        """Re-read the document (another process may have refreshed): the stored tokens and their expiry."""
        if self.shared:
            self._data = None
        return _tokens(self._entry()), self.expires_at()

    async def areload(self) -> tuple[OAuthToken | None, float | None]:
        """Async twin of :meth:`reload`."""
        await self._aload(fresh=True)
        return _tokens(self._entry()), self.expires_at()

    def entries(self) -> dict[str, Entry]:
        """Everything stored, by issuer (read afresh)."""
        if self.shared:
            self._data = None
        return {k: v for k, v in _issuers(self._load()).items() if isinstance(v, dict)}

    async def aentries(self) -> dict[str, Entry]:
        """Async twin of :meth:`entries`."""
        return {k: v for k, v in _issuers(await self._aload(fresh=True)).items() if isinstance(v, dict)}

    def status(self) -> str:
        """``"authorized"``, ``"expired"`` (a refresh token may renew it) or ``"not authorized"``, as the
        store says now."""
        if self.shared:
            self._data = None
        entry = self._entry()
        tokens = entry.get("tokens") if entry else None
        if not isinstance(tokens, dict) or not tokens:
            return "not authorized"
        expires = self.expires_at()
        if expires is not None and expires <= time.time():
            return "expired" + (", refreshable" if tokens.get("refresh_token") else "")
        return "authorized"

    def forget_tokens(self) -> None:
        """Drop the stored tokens (every authorization server), keeping client registrations."""
        if self.shared:
            self._data = None
        for entry in _issuers(self._load()).values():
            if isinstance(entry, dict):
                entry.pop("tokens", None)
                entry.pop("expires_at", None)
        self._save()

    def delete(self) -> bool:
        """Forget everything stored for this server, the file included; ``True`` if there was something."""
        return bool(_blocking(self.adelete()))

    async def adelete(self) -> bool:
        """Async twin of :meth:`delete`."""
        try:
            had = bool(_issuers(await self._aload(fresh=True)))
        except AuthError:  # undecryptable: deleting it is the way out
            had = True
        had = await self.backend.delete() or had
        self._data = self._empty()
        return had


def _issuers(data: Document) -> dict[str, JSONValue]:
    """The document's entries by issuer (``_decode`` makes sure there is such a mapping)."""
    issuers = data["issuers"]
    assert isinstance(issuers, dict)
    return issuers


def _tokens(entry: Entry | None) -> OAuthToken | None:
    raw = entry.get("tokens") if entry else None
    if raw is None:
        return None
    try:
        return OAuthToken.model_validate(raw)
    except ValidationError:
        return None
