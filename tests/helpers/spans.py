"""OpenTelemetry for the tests: an SDK tracer provider with an in-memory exporter, set as the global one (the only
way the MCP SDK's and LiteLLM's spans reach it) while :func:`recording` runs, and removed afterwards.

The API lets a process set its global provider once; like OpenTelemetry's own test utilities
(``opentelemetry.test.globals_test.reset_trace_globals``) :func:`recording` resets that private state, and
the tracers that cached the provider (the MCP SDK's module-level one, ours), so the tests that run
later in the same process see no provider, as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from opentelemetry.util._once import Once

from mcp_litellm._core import telemetry

_PROVIDER: TracerProvider | None = None


def provider() -> TracerProvider:
    """The tracer provider of the running test."""
    assert _PROVIDER is not None, "use the spans fixture (or recording())"
    return _PROVIDER


def _reset_globals(new: TracerProvider | None) -> None:
    import mcp.shared._otel as sdk_otel

    trace._TRACER_PROVIDER_SET_ONCE = Once()  # type: ignore[attr-defined]
    trace._TRACER_PROVIDER = None  # type: ignore[attr-defined]
    if new is not None:
        trace.set_tracer_provider(new)
    sdk_otel._tracer = trace.get_tracer("mcp-python-sdk")  # its ProxyTracer keeps the provider it first saw
    telemetry._set_api(None)


class Spans:
    """The finished spans of one test, with helpers to name them and walk their parents."""

    def __init__(self, exporter: InMemorySpanExporter) -> None:
        self.exporter = exporter

    def all(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str, kind: SpanKind | None = None) -> list[ReadableSpan]:
        return [s for s in self.all() if s.name == name and (kind is None or s.kind == kind)]

    def one(self, name: str, kind: SpanKind | None = None) -> ReadableSpan:
        """The one span named ``name`` (of ``kind``; an in-process server's spans may share a name)."""
        found = self.named(name, kind)
        assert len(found) == 1, f"expected one span {name!r}, got {len(found)}: {[s.name for s in self.all()]}"
        return found[0]

    def parent_of(self, span: ReadableSpan) -> ReadableSpan | None:
        if span.parent is None:
            return None
        return next((s for s in self.all() if s.context.span_id == span.parent.span_id), None)

    def ancestors(self, span: ReadableSpan) -> list[str]:
        """The names of ``span``'s ancestors, nearest first."""
        names, current = [], self.parent_of(span)
        while current is not None:
            names.append(current.name)
            current = self.parent_of(current)
        return names

    def is_ancestor(self, ancestor: ReadableSpan, span: ReadableSpan) -> bool:
        current = self.parent_of(span)
        while current is not None:
            if current.context.span_id == ancestor.context.span_id:
                return True
            current = self.parent_of(current)
        return False

    @staticmethod
    def child_of(span: ReadableSpan, parent: Any) -> bool:
        """``span``'s parent is ``parent`` (a finished span or a live one)."""
        context = parent.get_span_context() if hasattr(parent, "get_span_context") else parent.context
        return span.parent is not None and span.parent.span_id == context.span_id

    @staticmethod
    def names(spans: Sequence[ReadableSpan]) -> list[str]:
        return sorted(s.name for s in spans)


@contextmanager
def recording() -> Iterator[Spans]:
    """Record spans with a provider of its own (removed on leaving)."""
    global _PROVIDER
    assert not isinstance(trace.get_tracer_provider(), TracerProvider), "a tracer provider is set already"
    exporter = InMemorySpanExporter()  # one per test: spans a late LiteLLM callback ends land in its own
    _PROVIDER = TracerProvider()
    _PROVIDER.add_span_processor(SimpleSpanProcessor(exporter))
    _reset_globals(_PROVIDER)
    try:
        yield Spans(exporter)
    finally:
        _PROVIDER = None
        _reset_globals(None)
