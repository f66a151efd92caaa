"""The table of transport names and the factories behind them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeAlias
from urllib.parse import urlsplit

from mcp_litellm._core.errors import ConfigError

TransportTarget: TypeAlias = Any
"""What a factory returns: an async context manager of ``(read, write)`` streams, or a server object."""

TransportFactory: TypeAlias = Callable[[Mapping[str, Any]], "AbstractAsyncContextManager[Any] | Any"]
"""A callable taking the client's config mapping and returning a :data:`TransportTarget`."""

_ALIASES = {
    "streamable_http": "streamable",
    "streamable-http": "streamable",
    "streamablehttp": "streamable",
    "http": "streamable",
    "in_memory": "memory",
    "inmemory": "memory",
}

_lock = threading.Lock()
_factories: dict[str, TransportFactory] = {}


def _builtin_factories() -> dict[str, TransportFactory]:
    from mcp_litellm._transports.http import open_sse, open_streamable
    from mcp_litellm._transports.memory import open_memory
    from mcp_litellm._transports.stdio import open_stdio

    return {"stdio": open_stdio, "streamable": open_streamable, "sse": open_sse, "memory": open_memory}


def _table() -> dict[str, TransportFactory]:
    with _lock:
        if not any(name in _factories for name in ("stdio", "streamable", "sse", "memory")):
            for name, factory in _builtin_factories().items():
                _factories.setdefault(name, factory)
        return _factories


def infer_transport(config: Mapping[str, Any]) -> str | None:
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


def transport_names() -> list[str]:
    """All transport names a client accepts, aliases included, sorted."""
    return sorted(set(_table()) | set(_ALIASES))


def canonical_transport_name(transport_type: str) -> str:
    """Map a transport name or alias to its canonical name, or raise ``ConfigError``."""
    if not isinstance(transport_type, str) or not transport_type:
        raise ConfigError(
            f"transport_type must be a non-empty string, got {transport_type!r}; "
            f"valid choices: {', '.join(transport_names())}"
        )
    key = transport_type.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _table():
        raise ConfigError(
            f"unknown transport_type {transport_type!r}; valid choices: {', '.join(transport_names())} "
            "(or add one with mcp_litellm.register_transport(name, factory))"
        )
    return key


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
    _table()
    with _lock:
        _factories[key] = factory


def open_transport(transport_type: str, config: Mapping[str, Any]) -> TransportTarget:
    """Return the connect target for ``transport_type`` built from ``config`` (validated first)."""
    factory = _table()[canonical_transport_name(transport_type)]
    return factory(config)
