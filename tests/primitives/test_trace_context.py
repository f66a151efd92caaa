"""W3C trace context (SEP-414): the caller's OpenTelemetry span reaches the server in a request's ``_meta``."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp.server.mcpserver import Context, MCPServer
from opentelemetry import context, trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

import mcp_litellm as ml

TRACE_ID, SPAN_ID = 0x0AF7651916CD43DD8448EB211C80319C, 0x00F067AA0BA902B7
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"


def meta_server() -> MCPServer:
    server = MCPServer("meta")

    @server.tool(description="The request's _meta, as the server received it.")
    def meta(ctx: Context) -> str:
        received = ctx.request_context.meta or {}
        return json.dumps({key: received.get(key) for key in ("traceparent", "tracestate")})

    return server


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_the_callers_span_reaches_the_server_on_both_eras(protocol):
    client = ml.client("meta", "memory", {"server": meta_server()}, protocol=protocol)
    try:
        assert json.loads(client.execute_tool("meta").text)["traceparent"] is None, "no span, no trace context"
        span = NonRecordingSpan(SpanContext(trace_id=TRACE_ID, span_id=SPAN_ID, is_remote=False,
                                            trace_flags=TraceFlags(TraceFlags.SAMPLED)))
        token = context.attach(trace.set_span_in_context(span))
        try:
            assert json.loads(client.execute_tool("meta").text)["traceparent"] == TRACEPARENT

            async def call() -> str:
                return (await client.aexecute_tool("meta")).text

            assert json.loads(asyncio.run(call()))["traceparent"] == TRACEPARENT
        finally:
            context.detach(token)
    finally:
        client.stop()
