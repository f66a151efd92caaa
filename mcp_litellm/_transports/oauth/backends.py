"""Where a :class:`~.oauth_storage.TokenStore` keeps its document: memory, a file, or Redis; and how it is
sealed at rest (Fernet, from the ``cryptography`` package, when a key is given).

Each backend reads and writes one text (the store's JSON document) and offers a lock that is held around
a refresh and its store, so two processes sharing the tokens never both spend the same refresh token:

- a file: ``fcntl.flock`` on a ``.lock`` file beside it (the same lock serves every process of the
  machine; without ``fcntl``, as on Windows, there is no cross-process lock);
- Redis: a Redis lock (``SET NX PX``, released by its owner only) beside the key; connections are made
  per operation, so a store is not bound to one event loop and holds no socket between refreshes.

Token files are opened without following symlinks and must belong to the user running the program; a file
that does not is refused, on read as on write.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import hashlib
import json
import os
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp_litellm._core.errors import AuthError

__all__ = ["FileBackend", "MemoryBackend", "RedisBackend", "Sealer", "TOKEN_KEY_ENV", "sealer_for"]

TOKEN_KEY_ENV = "MCP_LITELLM_TOKEN_KEY"
"""Environment variable holding the key stored OAuth tokens are encrypted with."""

_LOCK_TIMEOUT = 30.0
"""Seconds a refresh may hold the lock (Redis expires it then), and the longest wait for it."""
_KEY_HINT = ("a Fernet key (make one with: python -c \"from cryptography.fernet import Fernet; "
             "print(Fernet.generate_key().decode())\") or a passphrase of at least 16 characters")


# -- sealing ------------------------------------------------------------------------------------------


class Sealer:
    """Encrypts and decrypts a store's document with one key (Fernet: AES-128-CBC with HMAC-SHA256)."""

    def __init__(self, fernet: Any, source: str) -> None:
        self._fernet = fernet
        self.source = source  # where the key came from, for messages ("MCP_LITELLM_TOKEN_KEY")

    def __repr__(self) -> str:
        return f"Sealer(key from {self.source})"

    def seal(self, text: str) -> str:
        sealed: bytes = self._fernet.encrypt(text.encode("utf-8"))
        return sealed.decode("ascii")

    def open(self, sealed: str, where: str) -> str:
        from cryptography.fernet import InvalidToken

        try:
            opened: bytes = self._fernet.decrypt(sealed.encode("ascii"))
        except (InvalidToken, ValueError):
            raise AuthError(f"cannot decrypt the stored OAuth tokens {where} with the key from {self.source}: they "
                            "were stored with another key (or the data was altered); give the key they were "
                            "stored with, or run 'mcp-litellm logout NAME' (or delete them) to authorize again",
                            http_status=None) from None
        return opened.decode("utf-8")


def check_token_key(key: str) -> None:
    """Raise ``ValueError`` (saying what a key must be, never quoting it) for a key that cannot be used."""
    _fernet_for(key)


@functools.lru_cache(maxsize=8)
def _fernet_for(key: str) -> Any:
    try:
        from cryptography.fernet import Fernet
    except ImportError:
        raise ValueError("encrypting stored tokens needs the cryptography package: "
                         "pip install 'mcp-litellm[encryption]'") from None
    raw = key.strip().encode("utf-8")
    try:
        if len(base64.urlsafe_b64decode(raw)) == 32 and len(raw) == 44:
            return Fernet(raw)
    except ValueError:
        pass
    if len(key) < 16:
        raise ValueError(f"the key is too short: give {_KEY_HINT}")
    # A passphrase: stretched into a Fernet key (PBKDF2-HMAC-SHA256; the salt is fixed, so every process
    # with the passphrase derives the same key).
    derived = hashlib.pbkdf2_hmac("sha256", key.encode("utf-8"), b"mcp-litellm stored OAuth tokens", 200_000)
    return Fernet(base64.urlsafe_b64encode(derived))


def sealer_for(token_key: str | None) -> Sealer | None:
    """The sealer for ``token_key`` (the ``token_key`` setting), else for ``$MCP_LITELLM_TOKEN_KEY``;
    ``None`` when neither is set (tokens are stored as they are, in files only the user can read)."""
    source = "oauth.token_key"
    if token_key is None:
        token_key, source = os.environ.get(TOKEN_KEY_ENV) or None, TOKEN_KEY_ENV
    if token_key is None:
        return None
    try:
        return Sealer(_fernet_for(token_key), source)
    except ValueError as exc:
        raise AuthError(f"the OAuth token key in {source} cannot be used: {exc}", http_status=None) from None


# -- memory ---------------------------------------------------------------------------------------------


class MemoryBackend:
    """The document in memory, for this client only."""

    where = "in memory"
    path: Path | None = None

    def __init__(self) -> None:
        self._text: str | None = None
        self._lock = asyncio.Lock()

    async def read(self) -> str | None:
        return self._text

    async def write(self, text: str) -> None:
        self._text = text

    async def delete(self) -> bool:
        had, self._text = self._text is not None, None
        return had

    @contextlib.asynccontextmanager
    async def lock(self) -> AsyncIterator[None]:
        async with self._lock:
            yield


# -- a file -----------------------------------------------------------------------------------------------


class FileBackend:
    """The document in a file (mode 0600, in a directory of mode 0700), written atomically."""

    def __init__(self, path: Path, server: str, fix: str) -> None:
        self.path = path
        self.where = f"in {path}"
        self._server = server
        self._fix = fix

    def _refuse(self, path: Path, why: str) -> AuthError:
        return AuthError(f"refusing the OAuth token file {path} for {self._server}: {why}; remove it (and authorize "
                         "again), or point MCP_LITELLM_OAUTH_DIR or oauth.storage at a directory of your own",
                         http_status=None)

    def _check_directory(self, directory: Path) -> None:
        info = directory.stat()
        if not _is_dir(info.st_mode):
            raise self._refuse(directory, "the token directory is not a directory")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise self._refuse(directory, "the token directory belongs to another user")

    def read_sync(self) -> str | None:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        try:
            if self.path.parent.exists():
                self._check_directory(self.path.parent)
            fd = os.open(self.path, flags)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if self.path.is_symlink():
                raise self._refuse(self.path, "it is a symbolic link") from None
            raise AuthError(f"cannot read the stored OAuth tokens for {self._server} from {self.path} "
                            f"({exc.strerror or type(exc).__name__}); {self._fix}", http_status=None) from None
        with os.fdopen(fd, "r", encoding="utf-8") as handle:
            info = os.fstat(handle.fileno())
            if hasattr(os, "getuid") and info.st_uid != os.getuid():
                raise self._refuse(self.path, "it belongs to another user")
            if info.st_mode & 0o022:
                raise self._refuse(self.path, "others may write to it")
            return handle.read()

    def write_sync(self, text: str) -> None:
        directory = self.path.parent
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._check_directory(directory)
            if (directory.stat().st_mode & 0o077) != 0:
                directory.chmod(0o700)
            if self.path.is_symlink():
                raise self._refuse(self.path, "it is a symbolic link")
            fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=directory)
            try:
                if hasattr(os, "fchmod"):  # mkstemp already creates the file 0600; say it anyway
                    os.fchmod(fd, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
                os.replace(temp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        except OSError as exc:
            raise AuthError(f"cannot store the OAuth tokens for {self._server} in {directory} "
                            f"({exc.strerror or type(exc).__name__}); {self._fix}", http_status=None) from None

    def delete_sync(self) -> bool:
        with contextlib.suppress(OSError):
            self.path.with_name(self.path.name + ".lock").unlink()
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise AuthError(f"cannot delete the stored OAuth tokens for {self._server} at {self.path} "
                            f"({exc.strerror or type(exc).__name__}); delete the file by hand",
                            http_status=None) from None
        return True

    async def read(self) -> str | None:
        return self.read_sync()

    async def write(self, text: str) -> None:
        self.write_sync(text)

    async def delete(self) -> bool:
        return self.delete_sync()

    @contextlib.asynccontextmanager
    async def lock(self) -> AsyncIterator[None]:
        try:
            import fcntl
        except ImportError:  # no cross-process file lock here
            yield
            return
        lock_path = self.path.with_name(self.path.name + ".lock")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as exc:
            raise AuthError(f"cannot lock the OAuth token file of {self._server} ({lock_path}: "
                            f"{exc.strerror or type(exc).__name__}); {self._fix}", http_status=None) from None
        try:
            deadline = time.monotonic() + _LOCK_TIMEOUT
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise AuthError(f"another process has held the lock on the OAuth tokens of {self._server} "
                                        f"({lock_path}) for {_LOCK_TIMEOUT:g}s; if none is refreshing them, "
                                        "delete the lock file", http_status=None) from None
                    await asyncio.sleep(0.02)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def _is_dir(mode: int) -> bool:
    import stat

    return stat.S_ISDIR(mode)


# -- Redis --------------------------------------------------------------------------------------------------


class RedisBackend:
    """The document under one Redis key; ``url`` is a ``redis://`` or ``rediss://`` URL."""

    path: Path | None = None

    def __init__(self, url: str, key: str, server: str) -> None:
        self.url = url
        self.key = key
        self._server = server
        self.where = f"in Redis (key {key})"

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[Any]:
        import redis.asyncio
        from redis.exceptions import RedisError

        client = redis.asyncio.Redis.from_url(self.url, socket_connect_timeout=10, socket_timeout=10)
        try:
            yield client
        except RedisError as exc:
            raise AuthError(f"the Redis token storage for {self._server} failed ({type(exc).__name__}: "
                            f"{_without_password(str(exc))}); check that Redis is up at {_shown(self.url)}",
                            http_status=None) from None
        finally:
            await client.aclose()

    async def read(self) -> str | None:
        async with self._connection() as client:
            value = await client.get(self.key)
        return value.decode("utf-8") if isinstance(value, bytes) else value

    async def write(self, text: str) -> None:
        async with self._connection() as client:
            await client.set(self.key, text.encode("utf-8"))

    async def delete(self) -> bool:
        async with self._connection() as client:
            return bool(await client.delete(self.key))

    @contextlib.asynccontextmanager
    async def lock(self) -> AsyncIterator[None]:
        from redis.exceptions import LockError

        async with self._connection() as client:
            lock = client.lock(self.key + ":lock", timeout=_LOCK_TIMEOUT, blocking_timeout=_LOCK_TIMEOUT)
            if not await lock.acquire():
                raise AuthError(f"another process has held the Redis lock on the OAuth tokens of {self._server} "
                                f"for {_LOCK_TIMEOUT:g}s", http_status=None)
            try:
                yield
            finally:
                with contextlib.suppress(LockError):  # expired meanwhile: another process may hold it now
                    await lock.release()


def _shown(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"


def _without_password(text: str) -> str:
    return text.split("@")[-1] if "://" in text else text


def redis_key(user: str | None, name: str) -> str:
    """The Redis key of one server's (and user's) document."""
    return "mcp-litellm:oauth:" + (f"user:{json.dumps(user)[1:-1]}:" if user is not None else "") + name
