"""Transports: how a client reaches its server.

Each client holds one transport object (:class:`~.base.Transport`: its config, its per-client
:class:`~.base.TransportOptions` and its auth), which opens what ``mcp.Client`` connects to for every
session: an async context manager yielding the SDK's ``(read, write)`` streams, or an in-process server
object. A factory registered as ``factory(config)`` is wrapped in one.

Built-in names are ``stdio``, ``streamable`` (aliases ``streamable_http``, ``http``,
``streamable-http``), ``sse`` and ``memory``; ``register_transport`` adds more.

This package never imports LiteLLM.
"""

from mcp_litellm._transports.base import ExitReport, Transport, TransportOptions, TransportTarget
from mcp_litellm._transports.registry import (
    TransportFactory,
    canonical_transport_name,
    infer_transport,
    make_transport,
    register_transport,
    transport_names,
)

__all__ = [
    "ExitReport",
    "Transport",
    "TransportFactory",
    "TransportOptions",
    "TransportTarget",
    "canonical_transport_name",
    "infer_transport",
    "make_transport",
    "register_transport",
    "transport_names",
]
