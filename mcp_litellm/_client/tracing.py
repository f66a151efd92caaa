"""The caller's OpenTelemetry trace context, as W3C ``traceparent``/``tracestate`` for a request's ``_meta``.

OpenTelemetry's API comes with the MCP SDK; without it (or without an active span) nothing is added.
Requests run on the client's loop in a copy of the caller's context, so the caller's span is current here.
"""

from __future__ import annotations

try:
    from opentelemetry import propagate, trace
except ImportError:  # pragma: no cover - the MCP SDK depends on opentelemetry-api
    propagate = trace = None  # type: ignore[assignment]

_KEYS = ("traceparent", "tracestate")


def trace_context() -> dict[str, str]:
    """``{"traceparent": ..., "tracestate": ...}`` of the active span, or ``{}`` when there is none."""
    if trace is None or not trace.get_current_span().get_span_context().is_valid:
        return {}
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return {key: carrier[key] for key in _KEYS if key in carrier}
