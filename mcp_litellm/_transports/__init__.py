"""Transports: how a client reaches its server.

A transport factory takes the client's ``config`` mapping and returns what ``mcp.Client`` connects
to: an async context manager yielding the SDK's ``(read, write)`` streams, or an in-process server
object. Built-in names are ``stdio``, ``streamable`` (aliases ``streamable_http``, ``http``,
``streamable-http``), ``sse`` and ``memory``; ``register_transport`` adds more.

This package never imports LiteLLM.
"""

from mcp_litellm._transports.registry import (
    TransportFactory,
    TransportTarget,
    canonical_transport_name,
    infer_transport,
    open_transport,
    register_transport,
    transport_names,
)

__all__ = [
    "TransportFactory",
    "TransportTarget",
    "canonical_transport_name",
    "infer_transport",
    "open_transport",
    "register_transport",
    "transport_names",
]
