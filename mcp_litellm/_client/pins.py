"""Pinned tool definitions (trust on first use): what a server's tools looked like when they were accepted.

A client created with ``tool_pins=PATH`` (or a :class:`~mcp_litellm.PinStore`) records, per server name,
a digest of each tool's name, description, input and output schemas and annotations the first time it
lists the server's tools. Later listings are checked against those pins: a tool whose definition differs,
or that was not there when the server was pinned, is *withheld* (left out of the listing; looking it up or
calling it raises :class:`~mcp_litellm.ToolChangedError`) until :meth:`ToolPins.accept` takes the new
definition.

The stores (a file, Redis, or the user's own: ``load(server)``, ``save(server, pins)`` and ``servers()``,
all async) are in ``pin_stores``; the check awaits them, so no store work runs on the sessions' loop.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from mcp_types import Tool as SdkTool

from mcp_litellm._client.pin_stores import FilePinStore, Pin, Pins, PinStore, pin_store
from mcp_litellm._client.primitives.tool_ui import UI_SCHEME
from mcp_litellm._core.documents import JSONValue
from mcp_litellm._core.errors import NotFoundError, ToolChangedError
from mcp_litellm._core.naming import safe_tool_name

if TYPE_CHECKING:
    from mcp_litellm._client.primitives.tool import Tool

logger = logging.getLogger("mcp_litellm")

__all__ = ["Definition", "FilePinStore", "PinStore", "ToolPins", "changed_fields", "definition_of",
           "describe_diff", "pin_store"]

Definition = Mapping[str, JSONValue]
"""A tool's definition as a pin covers it (see :func:`definition_of`)."""

_FIELDS = (("description", "description"), ("input_schema", "input schema"), ("output_schema", "output schema"),
           ("annotations", "annotations"), ("ui", "interface"))
NEW_TOOL = "new tool"


def definition_of(sdk_tool: SdkTool) -> dict[str, JSONValue]:
    """What a pin covers of a tool, exactly as the server sent it: name, description, schemas, annotations,
    and its interface (MCP Apps ``_meta.ui``; only when it has one, so other tools' digests stay as they were)."""
    annotations = sdk_tool.annotations
    definition: dict[str, JSONValue] = {
        "name": sdk_tool.name,
        "description": sdk_tool.description,
        "input_schema": _plain(sdk_tool.input_schema),
        "output_schema": _plain(sdk_tool.output_schema),
        "annotations": annotations.model_dump(mode="json", exclude_none=True) if annotations is not None else None,
    }
    meta = sdk_tool.meta or {}
    ui = {key: meta[key] for key in ("ui", "ui/resourceUri") if key in meta}
    if ui:
        definition["ui"] = _plain(ui)
    return definition


def _plain(value: object) -> JSONValue:
    """A schema as plain JSON values (the SDK gives dicts of them already: no copy then)."""
    if value is None or isinstance(value, dict):
        return value
    plain: JSONValue = json.loads(json.dumps(value, default=str))
    return plain


def digest(definition: Definition) -> str:
    """The SHA-256 of a definition's canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _pin(definition: Definition) -> Pin:
    return {"digest": digest(definition), **{key: definition.get(key) for key, _ in _FIELDS}}


def changed_fields(pin: Definition | None, definition: Definition) -> tuple[str, ...]:
    """What differs between a pin and a definition (``()``: nothing; ``("new tool",)`` without a pin)."""
    if pin is None:
        return (NEW_TOOL,)
    if pin.get("digest") == digest(definition):
        return ()
    changed = tuple(label for key, label in _FIELDS if _canonical(pin.get(key)) != _canonical(definition.get(key)))
    return changed or ("definition",)


def _canonical(value: JSONValue) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def describe_diff(pin: Definition | None, definition: Definition) -> list[str]:
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


def _shown(value: JSONValue) -> list[str]:
    if isinstance(value, str):
        return value.splitlines() or [""]
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str).splitlines()


class ToolPins:
    """One client's pins: checks its server's listings and accepts new definitions (both await the store)."""

    def __init__(self, store: PinStore, server: str) -> None:
        self.store = store
        self.server = server
        self.withheld: dict[str, tuple[str, ...]] = {}
        """Tools withheld at the last check, by server name, with what changed."""
        self.current: dict[str, dict[str, JSONValue]] = {}
        """Every tool of the last listing, by server name, as the server defined it."""
        self.pinned: Pins = {}
        """The server's pins as the last check (or accept) found them in the store."""
        self._warned: set[tuple[str, str]] = set()

    async def withhold(self, tools: list[Tool], listed: Sequence[SdkTool]) -> list[Tool]:
        """A fresh listing without the tools its pins withhold; ``listed``: the tools as the server sent them
        (pins cover the definitions as sent; the model sees them cleaned)."""
        withheld = await self.check({sdk_tool.name: definition_of(sdk_tool) for sdk_tool in listed})
        return [tool for tool in tools if tool.mcp_name not in withheld] if withheld else tools

    def raise_if_withheld(self, name: str, prefix: str | None, *also: str) -> None:
        """``ToolChangedError`` when ``name`` (the server's name for a tool, its LiteLLM name with ``prefix``, or
        one of ``also``'s prefixed forms) is a withheld tool."""
        for mcp_name, changes in self.withheld.items():
            names = {mcp_name, safe_tool_name(mcp_name, prefix), *(safe_tool_name(mcp_name, other) for other in also)}
            if name in names:
                raise ToolChangedError(self.server, mcp_name, changes)

    def chosen(self, names: Iterable[str] | str | None, prefix: str | None) -> list[str] | None:
        """The server's names of the tools ``names`` gives (server or LiteLLM names); ``None``: every one."""
        if names is None:
            return None
        by_name = {safe_tool_name(n, prefix): n for n in self.current}
        chosen: list[str] = []
        for name in [names] if isinstance(names, str) else names:
            found = name if name in self.current else by_name.get(name)
            if found is None:
                raise NotFoundError("tool", name, sorted(self.current), server=self.server)
            chosen.append(found)
        return chosen

    async def check(self, definitions: Mapping[str, Definition]) -> dict[str, tuple[str, ...]]:
        """Check a fresh listing (``{tool name: definition}``); returns the withheld tools with what changed.

        A server never pinned under this name is pinned as it is (nothing withheld). Each change is
        logged as a warning once."""
        self.current = {name: dict(definition) for name, definition in definitions.items()}
        pins = await self.store.load(self.server)
        if pins is None:
            self.pinned = {name: _pin(d) for name, d in definitions.items()}
            await self.store.save(self.server, self.pinned)
            logger.info("server %r: pinned %d tool definition(s) on first use", self.server, len(definitions))
            self.withheld = {}
            return {}
        self.pinned = pins
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

    async def check_interface(self, uri: str, pin: Pin) -> None:
        """An app's interface (MCP Apps) as read now, ``pin`` being what a pin covers of it: pinned on its first
        read, beside the tools' pins under its ``ui://`` URI; one that differs from its pin raises
        :class:`~mcp_litellm.ToolChangedError` until :meth:`accept_interface` takes it."""
        pins = await self.store.load(self.server) or {}
        known = pins.get(uri)
        if known is None:
            pins[uri] = pin
            await self.store.save(self.server, pins)
        elif known.get("digest") != pin.get("digest"):
            raise ToolChangedError(self.server, uri, ("interface",))

    async def accept_interface(self, uri: str, pin: Pin) -> None:
        """Pin an app's interface as ``pin`` describes it now (``client.pin_ui``)."""
        pins = await self.store.load(self.server) or {}
        pins[uri] = pin
        await self.store.save(self.server, pins)

    async def accept(self, names: Iterable[str] | None = None) -> list[str]:
        """Pin the current definitions of ``names`` (every tool of the last listing when ``None``, which
        also drops the pins of tools the server no longer has). Returns the names pinned."""
        if names is None:  # the interfaces' pins stay (they are accepted one by one: Client.pin_ui)
            chosen = dict(self.current)
            pins: Pins = {key: pin for key, pin in (await self.store.load(self.server) or {}).items()
                          if key.startswith(UI_SCHEME)}
        else:
            chosen = {name: self.current[name] for name in names}
            pins = await self.store.load(self.server) or {}
        for name, definition in chosen.items():
            pins[name] = _pin(definition)
            self.withheld.pop(name, None)
        await self.store.save(self.server, pins)
        self.pinned = pins
        return sorted(chosen)
