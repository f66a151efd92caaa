"""The telemetry module on its own: hostile trace contexts from servers, what transport attributes reveal,
and the do-nothing path without a tracer provider."""

from __future__ import annotations

import pytest
from opentelemetry.trace import SpanKind

from mcp_litellm._core import telemetry

VALID = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"


@pytest.mark.parametrize("meta", [None, {}, {"traceparent": 7}, {"traceparent": "garbage"},
                                  {"traceparent": "00-zz-00f067aa0ba902b7-01"},
                                  {"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"},
                                  {"traceparent": VALID[:-3]}])
def test_a_missing_or_malformed_trace_context_is_ignored(spans, tracer, meta):
    assert telemetry.trace_id_of(meta) is None
    with tracer.start_as_current_span("ambient") as ambient, telemetry.span("sampling/createMessage", kind="server",
                                                                            meta=meta):
        pass
    received = spans.one("sampling/createMessage")
    assert spans.child_of(received, ambient) and received.kind == SpanKind.SERVER and not received.links


def test_a_servers_trace_context_is_the_parent_and_the_ambient_span_a_link(spans, tracer):
    assert telemetry.trace_id_of({"traceparent": VALID}) == 0x0AF7651916CD43DD8448EB211C80319C
    with tracer.start_as_current_span("ambient") as ambient, telemetry.span("elicitation/create", kind="server",
                                                                            meta={"traceparent": VALID}):
        pass
    received = spans.one("elicitation/create")
    assert received.parent.span_id == 0x00F067AA0BA902B7 and received.parent.is_remote
    assert [link.context.span_id for link in received.links] == [ambient.get_span_context().span_id]


def test_transport_attributes_name_the_host_and_never_credentials():
    assert telemetry.transport_attributes("stdio", {"command": "x", "env": {"TOKEN": "s3cret"}}) == {
        "network.transport": "pipe"}
    url = {"url": "https://user:s3cret-password@mcp.example.com/mcp?token=s3cret-token"}
    assert telemetry.transport_attributes("streamable", url) == {
        "network.transport": "tcp", "server.address": "mcp.example.com", "server.port": 443}
    assert telemetry.transport_attributes("sse", {"url": "http://127.0.0.1:8123/sse"})["server.port"] == 8123
    assert telemetry.transport_attributes("sse", {"url": "http://[::1"}) == {"network.transport": "tcp"}
    assert telemetry.transport_attributes("memory", {"server": object()}) == {}


def test_errors_are_typed_for_error_type():
    import asyncio

    import mcp_litellm as ml

    assert telemetry.error_type(ml.ServerError(-32602, "bad params")) == "-32602"
    assert telemetry.error_type(ml.TimeoutError("slow")) == "timeout"
    assert telemetry.error_type(TimeoutError()) == "timeout"
    assert telemetry.error_type(asyncio.CancelledError()) == "cancelled"
    assert telemetry.error_type(ml.TransportError("gone")) == "TransportError"


def test_without_a_provider_spans_cost_nothing_and_record_nothing():
    assert not telemetry.enabled()
    with telemetry.span("x", {"a": 1}) as nothing:
        assert nothing is telemetry.NO_SPAN and not nothing.is_recording()
        assert telemetry.current_span() is telemetry.NO_SPAN
    started = telemetry.start("y")
    assert started is telemetry.NO_SPAN
    with telemetry.using(started):
        pass
    telemetry.finish(started, ValueError("ignored"))
