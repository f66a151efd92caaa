"""Pinned tool definitions (trust on first use): what a server's tools looked like when they were accepted.

A client created with ``tool_pins=PATH`` (or a :class:`PinStore`) records, per server name, a digest of
each tool's name, description, input and output schemas and annotations the first time it lists the
server's tools. Later listings are checked against those pins: a tool whose definition differs, or that
was not there when the server was pinned, is *withheld* (left out of the listing; looking it up or calling
it raises :class:`~mcp_litellm.ToolChangedError`) until :meth:`ToolPins.accept` takes the new definition.

The store is small on purpose: ``load(server)``, ``save(server, pins)`` and ``servers()``. The file
store keeps one readable JSON file (mode 0600, written atomically); another store (Redis, a database)
only needs those three methods.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mcp_litellm._client.core import ClientCore
from mcp_litellm._client.loop import run_async, run_sync
from mcp_litellm._client.redis_pins import REDIS_SCHEMES, RedisPinStore
from mcp_litellm._core.errors import ConfigError, NotFoundError, ToolChangedError
from mcp_litellm._core.naming import safe_tool_name

if TYPE_CHECKING:
    from mcp_litellm._client.tool import Tool

logger = logging.getLogger("mcp_litellm")

__all__ = ["FilePinStore", "PinStore", "PinsMixin", "ToolPins", "changed_fields", "definition_of", "describe_diff",
           "pin_store"]

_FORMAT = 1
_FIELDS = (("description", "description"), ("input_schema", "input schema"), ("output_schema", "output schema"),
           ("annotations", "annotations"))
NEW_TOOL = "new tool"


@runtime_checkable
class PinStore(Protocol):
    """Where pins are kept: per server name, ``{tool name: pin}`` (a pin is a JSON-ready mapping with a
    ``"digest"`` and the definition it was taken from)."""

    def load(self, server: str) -> dict[str, dict[str, Any]] | None:
        """The server's pins, or ``None`` when the server was never pinned."""

    def save(self, server: str, pins: Mapping[str, Mapping[str, Any]]) -> None:
        """Replace the server's pins."""

    def servers(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Every pinned server's pins."""


_file_locks: dict[str, threading.Lock] = {}
_file_locks_guard = threading.Lock()


class FilePinStore:
    """Pins in one JSON file: ``{"format": 1, "servers": {server: {"tools": {tool: pin}}}}``.

    The file is created with mode 0600 (its directory, when made, 0700) and replaced atomically on every
    save; each save re-reads the file, so clients sharing it keep each other's servers.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(os.path.expanduser(os.fspath(path)))
        with _file_locks_guard:
            self._lock = _file_locks.setdefault(str(self.path.absolute()), threading.Lock())
        self._parsed: tuple[tuple[int, int, int], dict[str, Any]] | None = None  # (file identity, content)

    def __repr__(self) -> str:
        return f"FilePinStore({str(self.path)!r})"

    def _read(self) -> dict[str, Any]:
        """The file's content (parsed again only when the file changed: listings read it often)."""
        try:
            status = self.path.stat()
            identity = (status.st_ino, status.st_mtime_ns, status.st_size)
            if self._parsed is not None and self._parsed[0] == identity:
                return self._parsed[1]  # read-only: save() builds a new mapping
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {"format": _FORMAT, "servers": {}}
        except OSError as exc:
            raise ConfigError(f"cannot read the tool pins file {str(self.path)!r}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"the tool pins file {str(self.path)!r} is not valid JSON ({exc}); fix it, or delete "
                              "it to pin every server's tools anew") from None
        if not isinstance(data, dict) or not isinstance(data.get("servers"), dict):
            raise ConfigError(f"the tool pins file {str(self.path)!r} has no 'servers' mapping; fix it, or delete "
                              "it to pin every server's tools anew")
        self._parsed = (identity, data)
        return data

    def load(self, server: str) -> dict[str, dict[str, Any]] | None:
        """The server's pins, or ``None`` when the server was never pinned."""
        with self._lock:
            entry = self._read()["servers"].get(server)
        if not isinstance(entry, dict) or not isinstance(entry.get("tools"), dict):
            return None
        return {str(name): dict(pin) for name, pin in entry["tools"].items() if isinstance(pin, dict)}

    def save(self, server: str, pins: Mapping[str, Mapping[str, Any]]) -> None:
        """Replace the server's pins (the other servers' stay as they are)."""
        with self._lock:
            data = self._read()
            servers = {**data["servers"], server: {"tools": {name: dict(pins[name]) for name in sorted(pins)}}}
            self._write({**data, "format": _FORMAT, "servers": servers})

    def servers(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Every pinned server's pins."""
        with self._lock:
            servers = self._read()["servers"]
        return {name: dict(entry.get("tools") or {}) for name, entry in servers.items() if isinstance(entry, dict)}

    def _write(self, data: Mapping[str, Any]) -> None:
        text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
        try:
            if not self.path.parent.exists():
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
            try:
                os.fchmod(descriptor, 0o600)
                with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                    file.write(text)
                    file.flush()
                    os.fsync(file.fileno())
                os.replace(temporary, self.path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise ConfigError(f"cannot write the tool pins file {str(self.path)!r}: {exc.strerror or exc}") from None


def pin_store(value: Any) -> PinStore | None:
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
        return value
    raise ConfigError(f"tool_pins must be a file path or a pin store (load/save/servers), got {type(value).__name__}")


def definition_of(sdk_tool: Any) -> dict[str, Any]:
    """What a pin covers of a tool, exactly as the server sent it: name, description, schemas, annotations."""
    annotations = sdk_tool.annotations
    return {
        "name": sdk_tool.name,
        "description": sdk_tool.description,
        "input_schema": _plain(sdk_tool.input_schema),
        "output_schema": _plain(sdk_tool.output_schema),
        "annotations": annotations.model_dump(mode="json", exclude_none=True) if annotations is not None else None,
    }


def _plain(value: Any) -> Any:
    """A schema as plain JSON values (the SDK gives dicts of them already: no copy then)."""
    if value is None or isinstance(value, dict):
        return value
    return json.loads(json.dumps(value, default=str))


def digest(definition: Mapping[str, Any]) -> str:
    """The SHA-256 of a definition's canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _pin(definition: Mapping[str, Any]) -> dict[str, Any]:
    return {"digest": digest(definition), **{key: definition.get(key) for key, _ in _FIELDS}}


def changed_fields(pin: Mapping[str, Any] | None, definition: Mapping[str, Any]) -> tuple[str, ...]:
    """What differs between a pin and a definition (``()``: nothing; ``("new tool",)`` without a pin)."""
    if pin is None:
        return (NEW_TOOL,)
    if pin.get("digest") == digest(definition):
        return ()
    changed = tuple(label for key, label in _FIELDS if _canonical(pin.get(key)) != _canonical(definition.get(key)))
    return changed or ("definition",)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def describe_diff(pin: Mapping[str, Any] | None, definition: Mapping[str, Any]) -> list[str]:
    """A readable diff of what changed (unified diff lines per changed field; the whole definition for a
    new tool)."""
    lines: list[str] = []
    for key, label in _FIELDS:
        old = None if pin is None else pin.get(key)
        new = definition.get(key)
        if pin is not None and _canonical(old) == _canonical(new):
            continue
        before = [] if pin is None else _shown(old)
        after = _shown(new)
        lines.append(f"{label}:")
        lines.extend("  " + line for line in difflib.unified_diff(before, after, "pinned", "now", lineterm="", n=2)
                     if not line.startswith(("---", "+++")))
    return lines


def _shown(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.splitlines() or [""]
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str).splitlines()


class ToolPins:
    """One client's pins: checks its server's listings and accepts new definitions."""

    def __init__(self, store: PinStore, server: str) -> None:
        self.store = store
        self.server = server
        self.withheld: dict[str, tuple[str, ...]] = {}
        """Tools withheld at the last check, by server name, with what changed."""
        self.current: dict[str, dict[str, Any]] = {}
        """Every tool of the last listing, by server name, as the server defined it."""
        self._warned: set[tuple[str, str]] = set()

    def check(self, definitions: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
        """Check a fresh listing (``{tool name: definition}``); returns the withheld tools with what changed.

        A server never pinned under this name is pinned as it is (nothing withheld). Each change is
        logged as a warning once."""
        self.current = {name: dict(definition) for name, definition in definitions.items()}
        pins = self.store.load(self.server)
        if pins is None:
            self.store.save(self.server, {name: _pin(d) for name, d in definitions.items()})
            logger.info("server %r: pinned %d tool definition(s) on first use", self.server, len(definitions))
            self.withheld = {}
            return {}
        withheld: dict[str, tuple[str, ...]] = {}
        for name, definition in definitions.items():
            changes = changed_fields(pins.get(name), definition)
            if changes:
                withheld[name] = changes
                key = (name, digest(definition))
                if key not in self._warned:
                    self._warned.add(key)
                    logger.warning("server %r: tool %r is withheld: %s; review it with 'mcp-litellm pins' and "
                                   "accept it with pin_tools() if it is trusted", self.server, name,
                                   "it is new since the server was pinned" if changes == (NEW_TOOL,) else
                                   f"its {', '.join(changes)} changed since it was pinned")
        self.withheld = withheld
        return withheld

    def accept(self, names: Iterable[str] | None = None) -> list[str]:
        """Pin the current definitions of ``names`` (every tool of the last listing when ``None``, which
        also drops the pins of tools the server no longer has). Returns the names pinned."""
        if names is None:
            chosen = dict(self.current)
            pins: dict[str, dict[str, Any]] = {}
        else:
            chosen = {name: self.current[name] for name in names}
            pins = self.store.load(self.server) or {}
        for name, definition in chosen.items():
            pins[name] = _pin(definition)
            self.withheld.pop(name, None)
        self.store.save(self.server, pins)
        return sorted(chosen)


class PinsMixin(ClientCore):
    """``pin_tools`` and the listing hooks of a client with ``tool_pins``; part of :class:`mcp_litellm.Client`
    (via ``CatalogMixin``)."""

    _tool_pins: ToolPins | None = None
    _pins_seen: dict[str, dict[str, Any]] | None = None


    def _use_tool_pins(self, tool_pins: Any) -> None:
        """Set the pin store (a path, a :class:`PinStore` or ``None``)."""
        store = pin_store(tool_pins)
        self._tool_pins = ToolPins(store, self.name) if store is not None else None

    def _pin_seen(self, sdk_tool: Any) -> None:
        """Remember one listed tool's definition (the listing's tools are checked together in ``_pinned``)."""
        if self._tool_pins is not None:
            if self._pins_seen is None:
                self._pins_seen = {}
            self._pins_seen[sdk_tool.name] = definition_of(sdk_tool)

    def _pinned(self, tools: list[Tool]) -> list[Tool]:
        """A fresh listing without the tools its pins withhold."""
        pins = self._tool_pins
        if pins is None:
            return tools
        seen, self._pins_seen = self._pins_seen or {}, None
        withheld = pins.check(seen)
        return [tool for tool in tools if tool.mcp_name not in withheld] if withheld else tools

    def _raise_if_withheld(self, name: str, *also: str) -> None:
        """``ToolChangedError`` when ``name`` (the server's name for a tool, or its LiteLLM name, or one of
        ``also``'s prefixed forms) is a withheld tool."""
        pins = self._tool_pins
        if pins is None or not pins.withheld:
            return
        for mcp_name, changes in pins.withheld.items():
            names = {mcp_name, safe_tool_name(mcp_name, self.name if self.with_prefix else None),
                     *(safe_tool_name(mcp_name, prefix) for prefix in also)}
            if name in names:
                raise ToolChangedError(self.name, mcp_name, changes)

    async def _pin_tools(self, names: Iterable[str] | str | None) -> list[str]:
        pins = self._tool_pins
        if pins is None:
            raise ConfigError(f"client {self.name!r} has no tool_pins: create it with tool_pins=PATH to pin its tools")
        if isinstance(names, str):
            names = [names]
        await self._list_tools(True)  # the current definitions, as the server lists them now
        chosen: list[str] | None = None
        if names is not None:
            by_name = {safe_tool_name(n, self.name if self.with_prefix else None): n for n in pins.current}
            chosen = []
            for name in names:
                found = name if name in pins.current else by_name.get(name)
                if found is None:
                    raise NotFoundError("tool", name, sorted(pins.current), server=self.name)
                chosen.append(found)
        accepted = pins.accept(chosen)
        self._invalidate("tools")
        for name in accepted:
            logger.info("server %r: tool %r pinned as the server defines it now", self.name, name)
        return accepted

    def pin_tools(self, names: Iterable[str] | str | None = None) -> list[str]:
        """Accept the server's current tool definitions as trusted (``tool_pins``): withheld tools become
        available again. ``names`` limits it to those tools (the server's names or LiteLLM names);
        ``None`` pins every current tool (and forgets pins of tools the server no longer has).
        Returns the server names of the tools pinned. ``ConfigError`` without ``tool_pins``."""
        return run_sync(self._pin_tools(names), home=self._session_loop())

    async def apin_tools(self, names: Iterable[str] | str | None = None) -> list[str]:
        """Async twin of :meth:`pin_tools`."""
        return await run_async(self._pin_tools(names), home=self._session_loop())
