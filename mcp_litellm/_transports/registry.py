"""The table of transport names and the transports behind them.

Built-in names map to :class:`~.base.Transport` classes; a factory added with :func:`register_transport`
(``factory(config)``, as documented) is wrapped in a :class:`~.base.FactoryTransport`. A client makes its
transport object once with :func:`make_transport`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeAlias
from urllib.parse import urlsplit

from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.redact import shown_value
from mcp_litellm._transports.base import FactoryTransport, Transport, TransportOptions
from mcp_litellm._transports.log_filters import install_log_filters

TransportFactory: TypeAlias = Callable[[Mapping[str, object]], "AbstractAsyncContextManager[Any] | Any"]
"""A callable taking the client's config mapping and returning a :data:`TransportTarget`."""

BUILTIN_TRANSPORTS = ("stdio", "streamable", "sse", "memory")
"""The canonical names of the built-in transports."""

TRANSPORT_ALIASES: Mapping[str, str] = {
    "streamable_http": "streamable",
    "streamable-http": "streamable",
    "streamablehttp": "streamable",
    "http": "streamable",
    "in_memory": "memory",
    "inmemory": "memory",
    "in-memory": "memory",
}
"""Other spellings of the built-in transports' names (lower case), for ``transport_type=`` and a config file's
``type``/``transport`` alike."""

_ALIASES = TRANSPORT_ALIASES

_Builder: TypeAlias = Callable[[Mapping[str, object], TransportOptions], Transport]
"""Makes a client's transport object from its config and options: a ``Transport`` class, or a wrapped factory."""

_lock = threading.Lock()
_factories: dict[str, _Builder] = {}


def _builtin_transports() -> dict[str, _Builder]:
    from mcp_litellm._transports.http import SseTransport, StreamableTransport
    from mcp_litellm._transports.memory import MemoryTransport
    from mcp_litellm._transports.stdio import StdioTransport

    return {"stdio": StdioTransport, "streamable": StreamableTransport, "sse": SseTransport, "memory": MemoryTransport}


def _table() -> dict[str, _Builder]:
    with _lock:
        if not any(name in _factories for name in BUILTIN_TRANSPORTS):
            for name, builder in _builtin_transports().items():
                _factories.setdefault(name, builder)
        return _factories


def infer_transport(config: Mapping[str, object]) -> str | None:
    """The transport a config implies, as config files read it: ``command`` -> stdio; ``url`` -> streamable
    HTTP, or SSE when its path ends in ``/sse``; ``server`` -> memory. ``None`` when it implies none."""
    if "command" in config:
        return "stdio"
    if "url" in config:
        url = config["url"]
        return "sse" if isinstance(url, str) and urlsplit(url).path.rstrip("/").endswith("/sse") else "streamable"
    if "server" in config:
        return "memory"
    return None


def is_builtin(name: str) -> bool:
    """``name`` (canonical) is served by its built-in transport class, not replaced by ``register_transport``."""
    builtin = _builtin_transports().get(name)
    return builtin is not None and _table().get(name) is builtin


def transport_names() -> list[str]:
    """All transport names a client accepts, aliases included, sorted."""
    return sorted(set(_table()) | set(_ALIASES))


def canonical_transport_name(transport_type: str) -> str:
    """Map a transport name or alias to its canonical name, or raise ``ConfigError``."""
    if isinstance(transport_type, Mapping):
        raise ConfigError(_config_as_transport(transport_type))
    if not isinstance(transport_type, str) or not transport_type:
        raise ConfigError(
            f"transport_type must be a non-empty string, got {_wrong(transport_type)}; "
            f"valid choices: {', '.join(transport_names())}"
        )
    key = transport_type.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _table():
        raise ConfigError(
            f"unknown transport_type {shown_value(transport_type)}; valid choices: {', '.join(transport_names())} "
            "(or add one with mcp_litellm.register_transport(name, factory))"
        )
    return key


def _wrong(value: object) -> str:
    return shown_value(value) if isinstance(value, str) else type(value).__name__


def _config_as_transport(config: Mapping[str, object]) -> str:
    """The message for a server's config passed where the transport type goes (``client("demo", {...})``)."""
    implied = infer_transport(config)
    if implied:
        how = (f"client(name, config={{...}}) (the transport is inferred: {implied!r}) or "
               f"client(name, {implied!r}, {{...}})")
    else:
        how = "client(name, transport_type, config), e.g. client(name, 'stdio', {'command': ...})"
    return (f"transport_type must be a transport name ({', '.join(transport_names())}), got a mapping that looks "
            f"like a server's config: {shown_value(config)}; pass it as the config: {how}")


def register_transport(name: str, factory: TransportFactory) -> None:
    """Add (or replace) a transport under ``name``.

    ``factory(config)`` receives the client's ``config`` mapping and must return an async context
    manager that yields the SDK's ``(read_stream, write_stream)`` pair, the same shape as
    ``mcp.client.stdio.stdio_client``.
    """
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"a transport name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise ConfigError(f"the factory for transport {name!r} must be callable, got {type(factory).__name__}")
    key = name.strip().lower()

    def build(config: Mapping[str, object], options: TransportOptions) -> Transport:
        return FactoryTransport(key, factory, config, options)

    _table()
    with _lock:
        _factories[key] = build


def make_transport(transport_type: str, config: Mapping[str, object], options: TransportOptions) -> Transport:
    """The transport object for one client (no I/O, no validation: :meth:`Transport.open` validates)."""
    install_log_filters()  # a client makes its transport as it starts: mcp_litellm's log filters go on then
    return _table()[canonical_transport_name(transport_type)](config, options)

