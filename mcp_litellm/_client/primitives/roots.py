"""Roots: the directories a client offers a server (``client.roots``).

Paths are resolved to absolute ``file://`` URIs; non-existent paths and other URI schemes are
rejected. Changing the list notifies the server (``notifications/roots/list_changed`` on
2025-11-25 connections; 2026-07-28 servers ask again with each request that needs roots).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from mcp_types import ListRootsResult, Root

from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._core.errors import ConfigError

__all__ = ["RootEntry", "Roots", "resolve_root"]

RootInput = str | os.PathLike[str]


@dataclass(frozen=True)
class RootEntry:
    """One root: an absolute ``path``, its ``file://`` ``uri`` and a display ``name``."""

    path: Path
    uri: str
    name: str

    def to_sdk(self) -> Root:
        """The SDK's ``Root``."""
        return Root.model_validate({"uri": self.uri, "name": self.name})


def resolve_root(value: RootInput, name: str | None = None) -> RootEntry:
    """A :class:`RootEntry` for a path or ``file://`` URI; ``ConfigError`` if it is not an existing path."""
    if isinstance(value, RootEntry):
        return value if name is None else RootEntry(value.path, value.uri, name)
    if not isinstance(value, str | os.PathLike):
        raise ConfigError(f"a root must be a path or a file:// URI, got {type(value).__name__}")
    text = os.fspath(value)
    if isinstance(text, bytes):
        raise ConfigError(f"a root must be a path or a file:// URI, got bytes {text!r}")
    if not text.strip():
        raise ConfigError("a root is an empty string (an unset ${VAR} in a config file?); give a directory, "
                          "or leave the root out")
    if "\0" in text:
        raise ConfigError(f"root {text!r} contains a NUL byte; no path can contain one")
    if isinstance(value, str) and "://" in text:
        parsed = urlparse(text)
        if parsed.scheme != "file":
            raise ConfigError(f"root {text!r} is not a file:// URI or a path; only local directories can be roots")
        if parsed.netloc not in ("", "localhost"):
            raise ConfigError(f"root {text!r} names a remote host; only local paths can be roots")
        text = url2pathname(unquote(parsed.path))
    path = Path(text).expanduser().resolve()
    if not path.exists():
        raise ConfigError(f"root {os.fspath(value)!r} does not exist (resolved to {path})")
    return RootEntry(path=path, uri=path.as_uri(), name=name or path.name or str(path))


class Roots:
    """The roots a client offers (``client.roots``).

    ``configured`` is False until roots are given (``roots=[...]`` or ``add``): only then does the
    client advertise the roots capability.
    """

    def __init__(self, entries: Iterable[RootInput] | None,
                 on_change: Callable[[bool], Awaitable[None]] | None = None) -> None:
        self.configured = entries is not None
        self._entries: list[RootEntry] = []
        for entry in entries or []:
            self._put(resolve_root(entry))
        self._on_change = on_change
        self._lock = threading.Lock()

    def _put(self, entry: RootEntry) -> bool:
        if any(e.path == entry.path for e in self._entries):
            return False
        self._entries.append(entry)
        return True

    @property
    def paths(self) -> list[Path]:
        """The root directories (absolute paths)."""
        return [e.path for e in self._entries]

    @property
    def uris(self) -> list[str]:
        """The roots as ``file://`` URIs."""
        return [e.uri for e in self._entries]

    @property
    def entries(self) -> list[RootEntry]:
        """Every root with its path, URI and name."""
        return list(self._entries)

    def to_sdk(self) -> ListRootsResult:
        """What ``roots/list`` answers."""
        return ListRootsResult(roots=[e.to_sdk() for e in self._entries])

    async def _add(self, path: RootInput, name: str | None) -> RootEntry:
        entry = resolve_root(path, name)
        with self._lock:
            was_configured = self.configured
            self.configured = True
            changed = self._put(entry)
        if (changed or not was_configured) and self._on_change is not None:
            await self._on_change(was_configured)
        return next(e for e in self._entries if e.path == entry.path)

    async def _remove(self, path: RootInput) -> None:
        target = resolve_root(path).path if not isinstance(path, RootEntry) else path.path
        with self._lock:
            before = len(self._entries)
            self._entries = [e for e in self._entries if e.path != target]
            changed = len(self._entries) != before
        if not changed:
            raise ConfigError(f"{os.fspath(path)!r} is not one of the roots: {[str(p) for p in self.paths]}")
        if self._on_change is not None:
            await self._on_change(True)

    def add(self, path: RootInput, name: str | None = None) -> RootEntry:
        """Offer ``path`` (a directory or ``file://`` URI) as a root, named ``name`` (default: its
        directory name), and tell the server. Adding a root that is already there changes nothing."""
        return run_sync(self._add(path, name))

    async def aadd(self, path: RootInput, name: str | None = None) -> RootEntry:
        """Async twin of :meth:`add`."""
        return await run_async(self._add(path, name))

    def remove(self, path: RootInput) -> None:
        """Stop offering ``path`` and tell the server; ``ConfigError`` if it is not a root."""
        run_sync(self._remove(path))

    async def aremove(self, path: RootInput) -> None:
        """Async twin of :meth:`remove`."""
        await run_async(self._remove(path))

    def __iter__(self) -> Iterator[Path]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, item: Any) -> bool:
        try:
            return resolve_root(item).path in self.paths
        except ConfigError:
            return False

    def __repr__(self) -> str:
        return f"Roots({[str(p) for p in self.paths]!r})" if self.configured else "Roots(not configured)"
