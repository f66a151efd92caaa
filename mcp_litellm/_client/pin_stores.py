"""Where tool pins are kept: the :class:`PinStore` protocol, a JSON file, Redis, and the ``tool_pins`` option.

A store is async, so nothing it does (a file read, a Redis round trip, a user's database) runs on the
loop that carries the sessions: the file and Redis stores are the package's document stores
(``_transports/stores``). A user's store with sync methods keeps working for one deprecation cycle: its
methods are called on the worker pool for user code (``_core.user_code``), with a ``DeprecationWarning``.

With a key (``key=``, or ``$MCP_LITELLM_PINS_KEY`` for the stores ``tool_pins`` names by path or URL),
pins are sealed at rest (Fernet): they cannot be read, nor changed unseen, without the key. A document
stored in the clear is still read with a key, and sealed at its next save.
"""

from __future__ import annotations

import importlib.util
import json
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol, TypeAlias, cast, runtime_checkable

from mcp_litellm._core.documents import REDIS_SCHEMES, DocumentStore, JSONValue, Wording
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.redact import redact_url
from mcp_litellm._core.user_code import call_user_code, is_async_callable
from mcp_litellm._transports.stores import FileDocument, RedisDocument, Sealer, redis_keys, sealer_from, shown_url

__all__ = ["PINS_KEY_ENV", "REDIS_SCHEMES", "FilePinStore", "Pin", "PinStore", "Pins", "RedisPinStore",
           "pin_store"]

PINS_KEY_ENV = "MCP_LITELLM_PINS_KEY"
"""Environment variable holding the key the pins of ``tool_pins=PATH`` (or a Redis URL) are sealed with."""

Pin: TypeAlias = dict[str, JSONValue]
"""One tool's pin: its ``"digest"`` and the definition it was taken from (JSON values)."""
Pins: TypeAlias = dict[str, Pin]
"""A server's pins, by tool name."""

_FORMAT = 1
_REDIS_PREFIX = "mcp-litellm:pins:"


@runtime_checkable
class PinStore(Protocol):
    """Where pins are kept: per server name, ``{tool name: pin}`` (a pin is a JSON-ready mapping with a
    ``"digest"`` and the definition it was taken from). The methods are ``async def``: a store with sync
    methods is deprecated (it still works, called on a worker thread)."""

    async def load(self, server: str) -> Pins | None:
        """The server's pins, or ``None`` when the server was never pinned."""

    async def save(self, server: str, pins: Mapping[str, Mapping[str, JSONValue]]) -> None:
        """Replace the server's pins."""

    async def servers(self) -> dict[str, Pins]:
        """Every pinned server's pins."""


def _wording(what: str, redis: str = "") -> Wording:
    return Wording(ConfigError, what=what, file="the tool pins file", fix="check the path given as tool_pins",
                   refused="remove it, or keep the pins elsewhere", redis=redis)


def _sealer(key: str | None, source: str) -> Sealer | None:
    return sealer_from(key, source, PINS_KEY_ENV, lambda why: ConfigError(f"the tool pins key {why}"))


def _pins_of(value: object) -> Pins | None:
    if not isinstance(value, dict):
        return None
    return {str(name): dict(pin) for name, pin in value.items() if isinstance(pin, dict)}


class _Sealed:
    """Reads and writes one JSON object in a document store, sealed with a key when one is given."""

    def __init__(self, document: DocumentStore, sealer: Sealer | None, what: str, delete_hint: str) -> None:
        self.document = document
        self.sealer = sealer
        self._what = what  # "the tool pins file '/x'", for messages
        self._hint = delete_hint

    async def read(self) -> dict[str, JSONValue] | None:
        text = await self.document.read()
        if text is None:
            return None
        data = self._parsed(text)
        sealed = data.get("sealed")
        if isinstance(sealed, str):
            if self.sealer is None:
                raise ConfigError(f"{self._what} is encrypted: give the key it was sealed with (key=..., or "
                                  f"${PINS_KEY_ENV}), or {self._hint}")
            opened = self.sealer.open(sealed)
            if opened is None:
                raise ConfigError(f"cannot decrypt {self._what} with the key from {self.sealer.source}: it was "
                                  f"sealed with another key (or altered); give its key, or {self._hint}")
            data = self._parsed(opened)
        return data

    def _parsed(self, text: str) -> dict[str, JSONValue]:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"{self._what} is not valid JSON ({exc}); fix it, or {self._hint}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{self._what} is not a JSON object; fix it, or {self._hint}")
        return data

    async def write(self, data: Mapping[str, JSONValue]) -> None:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if self.sealer is not None:
            text = json.dumps({"format": _FORMAT, "sealed": self.sealer.seal(text)}) + "\n"
        await self.document.write(text)


class FilePinStore:
    """Pins in one JSON file: ``{"format": 1, "servers": {server: {"tools": {tool: pin}}}}``.

    The file is created with mode 0600 (its directory, when made, 0700) and replaced atomically on every
    save; each save re-reads the file under a file lock, so clients and processes sharing it keep each
    other's servers. ``key``: seal the file (see the module docstring).
    """

    def __init__(self, path: str | os.PathLike[str], *, key: str | None = None) -> None:
        self.path = Path(os.path.expanduser(os.fspath(path)))
        shown = f"the tool pins file {str(self.path)!r}"
        self._file = _Sealed(FileDocument(self.path, _wording(shown), private=False), _sealer(key, "key="), shown,
                             "delete it to pin every server's tools anew")

    def __repr__(self) -> str:
        return f"FilePinStore({str(self.path)!r})"

    async def _servers(self) -> dict[str, JSONValue]:
        return self._servers_of(await self._file.read())

    def _servers_of(self, data: Mapping[str, JSONValue] | None) -> dict[str, JSONValue]:
        if data is None:
            return {}
        servers = data.get("servers")
        if not isinstance(servers, dict):
            raise ConfigError(f"the tool pins file {str(self.path)!r} has no 'servers' mapping; fix it, or delete "
                              "it to pin every server's tools anew")
        return servers

    async def load(self, server: str) -> Pins | None:
        """The server's pins, or ``None`` when the server was never pinned."""
        entry = (await self._servers()).get(server)
        return _pins_of(entry.get("tools")) if isinstance(entry, dict) else None

    async def save(self, server: str, pins: Mapping[str, Mapping[str, JSONValue]]) -> None:
        """Replace the server's pins (the other servers' stay as they are)."""
        async with self._file.document.lock():
            data = await self._file.read()
            servers = self._servers_of(data)
            tools: dict[str, JSONValue] = {name: dict(pins[name]) for name in sorted(pins)}
            servers = {**servers, server: {"tools": tools}}
            await self._file.write({**(data or {}), "format": _FORMAT, "servers": servers})

    async def servers(self) -> dict[str, Pins]:
        """Every pinned server's pins."""
        found: dict[str, Pins] = {}
        for name, entry in (await self._servers()).items():
            pins = _pins_of(entry.get("tools")) if isinstance(entry, dict) else None
            if pins is not None:
                found[name] = pins
        return found


class RedisPinStore:
    """Pins in Redis (``tool_pins="redis://host:6379/0"``), one key per server: ``mcp-litellm:pins:<server>``
    holds the server's ``{tool: pin}`` as JSON, so every worker of an app checks against the same pins and a
    change accepted by one is seen by all. ``key``: seal them (see the module docstring)."""

    def __init__(self, url: str, *, key: str | None = None) -> None:
        if importlib.util.find_spec("redis") is None:
            raise ConfigError(f"tool_pins={redact_url(url)!r} keeps pins in Redis, which needs the redis package: "
                              'pip install "mcp-litellm[redis]"')
        self.url = url
        self._sealer = _sealer(key, "key=")
        self._wording = _wording(f"the tool pins in Redis at {shown_url(url)}",
                                 redis="the Redis storage of the tool pins")

    def __repr__(self) -> str:
        return f"RedisPinStore({redact_url(self.url)!r})"

    def _document(self, server: str) -> _Sealed:
        key = _REDIS_PREFIX + server
        return _Sealed(RedisDocument(self.url, key, self._wording), self._sealer, f"the tool pins of {server!r} in "
                       "Redis", f"delete the key {key!r} to pin the server's tools anew")

    async def load(self, server: str) -> Pins | None:
        """The server's pins, or ``None`` when the server was never pinned."""
        return _pins_of(await self._document(server).read())

    async def save(self, server: str, pins: Mapping[str, Mapping[str, JSONValue]]) -> None:
        """Replace the server's pins."""
        await self._document(server).write({name: dict(pins[name]) for name in sorted(pins)})

    async def servers(self) -> dict[str, Pins]:
        """Every pinned server's pins."""
        found: dict[str, Pins] = {}
        for key in await redis_keys(self.url, _REDIS_PREFIX, self._wording):
            name = key[len(_REDIS_PREFIX):]
            pins = await self.load(name)
            if pins is not None:
                found[name] = pins
        return found


class SyncPinStore(Protocol):
    """A pin store with sync methods (deprecated: make them ``async def``)."""

    def load(self, server: str) -> Pins | None: ...

    def save(self, server: str, pins: Mapping[str, Mapping[str, JSONValue]]) -> None: ...

    def servers(self) -> dict[str, Pins]: ...


class _OffTheLoop:
    """A user's store with sync methods, called on the worker pool for user code (never on the loop)."""

    def __init__(self, store: SyncPinStore) -> None:
        self.store = store

    def __repr__(self) -> str:
        return repr(self.store)

    async def load(self, server: str) -> Pins | None:
        found: Pins | None = await call_user_code(self.store.load, server)
        return found

    async def save(self, server: str, pins: Mapping[str, Mapping[str, JSONValue]]) -> None:
        await call_user_code(self.store.save, server, pins)

    async def servers(self) -> dict[str, Pins]:
        found: dict[str, Pins] = await call_user_code(self.store.servers)
        return found


def pin_store(value: object) -> PinStore | None:
    """The store a ``tool_pins`` option names: a path (str or ``os.PathLike``), a Redis URL (``redis://``,
    ``rediss://``, ``unix://``), a :class:`PinStore`, or ``None``."""
    if value is None:
        return None
    if isinstance(value, str) and value.startswith(REDIS_SCHEMES):
        return RedisPinStore(value)  # shared by every worker of an app
    if isinstance(value, str | os.PathLike):
        if not os.fspath(value):
            raise ConfigError("tool_pins must be a file path (or a pin store), got an empty string")
        return FilePinStore(value)
    if isinstance(value, PinStore):
        if all(is_async_callable(getattr(value, name)) for name in ("load", "save", "servers")):
            return value
        warnings.warn(f"a pin store with sync methods ({type(value).__name__}) is deprecated: make load, save and "
                      "servers 'async def' (until then they run on a worker thread)", DeprecationWarning,
                      stacklevel=4)
        return _OffTheLoop(cast(SyncPinStore, value))  # its methods are sync: the check above
    raise ConfigError(f"tool_pins must be a file path or a pin store (load/save/servers), got {type(value).__name__}")
