"""Our OpenTelemetry spans, recorded with the SDK's in-memory exporter: what they are named, their kind,
attributes and status, and how they nest under the caller's span, the SDK's and the server's spans."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry.trace import SpanKind, StatusCode

import mcp_litellm as ml
from tests.helpers.chat import new_chat
from tests.scripted_llm.openai import Turn


def test_a_tool_call_is_a_client_span_under_the_callers(make_client, spans, tracer, transport):
    client = make_client(transport)
    with tracer.start_as_current_span("caller") as caller:
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"

    call = spans.one("tools/call add", SpanKind.CLIENT)
    assert spans.child_of(call, caller) and call.status.status_code == StatusCode.UNSET
    attributes = dict(call.attributes)
    assert {k: attributes[k] for k in ("mcp.method.name", "gen_ai.operation.name", "gen_ai.tool.name",
                                       "mcp_litellm.server")} == {
        "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add",
        "mcp_litellm.server": "fixture"}
    assert attributes["mcp.protocol.version"] == client.protocol_version
    if transport == "stdio":
        assert attributes["network.transport"] == "pipe"
    elif transport in ("streamable", "sse"):
        assert attributes["network.transport"] == "tcp" and attributes["server.address"] == "127.0.0.1"
        assert isinstance(attributes["server.port"], int)
    else:
        assert "network.transport" not in attributes
    if transport == "memory":  # the in-process server's own span joins the trace under ours
        assert spans.child_of(spans.one("tools/call add", SpanKind.SERVER), call)
    else:  # the SDK's span for the JSON-RPC request (whose _meta carries the trace context) nests under ours
        assert spans.child_of(spans.one("MCP send tools/call add"), call)


def test_the_async_twin_nests_under_the_span_of_another_event_loop(make_client, spans, tracer):
    client = make_client("stdio")

    async def main() -> None:
        with tracer.start_as_current_span("async caller"):
            await client.aexecute_tool("echo", {"message": "hi"})

    asyncio.run(main())
    assert spans.ancestors(spans.one("tools/call echo", SpanKind.CLIENT)) == ["async caller"]


def test_failures_set_the_status_and_error_type(make_client, spans, tracer):
    client = make_client("stdio")
    assert client.execute_tool("fail", {"reason": "nope"}).is_error
    failed = spans.one("tools/call fail")
    assert failed.status.status_code == StatusCode.ERROR and failed.attributes["error.type"] == "tool_error"

    with pytest.raises(ml.TimeoutError):
        client.execute_tool("wait", {"seconds": 5}, timeout=0.3)
    timed_out = spans.one("tools/call wait")
    assert timed_out.status.status_code == StatusCode.ERROR and timed_out.attributes["error.type"] == "timeout"
    assert "timed out" in timed_out.status.description

    denied = make_client("memory", name="careful", human_in_the_loop=lambda name, args: "not today")
    assert "not today" in denied.execute_tool("add", {"a": 1, "b": 1}).text
    refused = spans.one("tools/call add", SpanKind.CLIENT)
    assert refused.attributes["mcp_litellm.tool.denied"] is True and refused.attributes["error.type"] == "tool_error"


def test_without_opentelemetry_everything_works_and_nothing_is_traced(llm, make_client, spans, monkeypatch):
    from mcp_litellm._core import telemetry

    seen_metadata = []
    monkeypatch.setattr(telemetry, "_api", False)  # as if the otel extra were not installed
    monkeypatch.setattr(telemetry, "_tracer", None)
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 2})]), Turn(content="3"))
    chat = new_chat().with_tools(client.tools()).on_tool_call(lambda call: seen_metadata.append(call.id))
    assert chat.ask("1+2?").content == "3" and seen_metadata == ["c1"]
    assert not telemetry.enabled() and telemetry.trace_context() == {}
    ours = [s for s in spans.all() if s.name in ("invoke_agent", "tools/call add") and s.kind != SpanKind.SERVER]
    assert ours == [], "no span of ours without the API"
    assert all("metadata" not in body for body in llm.requests)


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: found"


@pytest.mark.parametrize("mode", ["ask", "aask", "stream", "astream"])
def test_a_chat_turn_covers_its_tool_loop(llm, make_client, spans, tracer, mode):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("call_a", "add", {"a": 1, "b": 2}), ("call_b", "lookup", {"city": "Oslo"})]),
             Turn(content="3, and Oslo was found."))
    chat = new_chat().with_tools(client.tools(), lookup)

    with tracer.start_as_current_span("request") as request:
        if mode == "ask":
            answer = chat.ask("go").content
        elif mode == "stream":
            answer = "".join(chunk.content for chunk in chat.stream("go"))
        else:
            async def run() -> str:
                if mode == "aask":
                    return (await chat.aask("go")).content
                return "".join([chunk.content async for chunk in chat.astream("go")])

            answer = asyncio.run(run())
    assert answer == "3, and Oslo was found."

    turn = spans.one("invoke_agent")
    assert spans.child_of(turn, request) and turn.kind == SpanKind.INTERNAL
    assert turn.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert turn.attributes["gen_ai.request.model"] == "openai/gpt-4o-mini"
    tokens = turn.attributes["gen_ai.usage.input_tokens"], turn.attributes["gen_ai.usage.output_tokens"]
    assert tokens == (14, 6) if mode in ("ask", "aask") else min(tokens) > 0  # LiteLLM counts a stream's tokens
    assert turn.attributes["mcp_litellm.usage.cost_usd"] > 0
    assert list(turn.attributes["gen_ai.response.finish_reasons"]) == ["stop"]

    mcp_call, local_call = spans.one("tools/call add", SpanKind.CLIENT), spans.one("execute_tool lookup")
    assert spans.child_of(mcp_call, turn) and spans.child_of(local_call, turn), "parallel tool calls nest in the turn"
    assert mcp_call.attributes["gen_ai.tool.call.id"] == "call_a"
    assert local_call.attributes["gen_ai.tool.call.id"] == "call_b"
    assert local_call.attributes["gen_ai.tool.type"] == "function" and local_call.kind == SpanKind.INTERNAL
    assert turn.end_time >= max(mcp_call.end_time, local_call.end_time)


def test_a_failed_turn_is_an_error_span(llm, spans):
    llm.then(Turn(status=400))
    with pytest.raises(Exception, match=r"400|scripted"):
        new_chat().ask("hi")
    turn = spans.one("invoke_agent")
    assert turn.status.status_code == StatusCode.ERROR and turn.attributes["error.type"]


def test_a_stream_left_early_ends_its_span_without_error(llm, spans):
    llm.then(Turn(content="one two three four"))
    chunks = new_chat().stream("count")
    next(chunks)
    chunks.close()
    turn = spans.one("invoke_agent")
    assert turn.status.status_code == StatusCode.UNSET


def test_litellm_nests_its_model_request_spans_under_the_turn(llm, make_client, spans, monkeypatch):
    """LiteLLM's own OpenTelemetry callback records each model request as a span of its own under the
    turn (we hand it the turn's span in ``metadata["litellm_parent_otel_span"]``), not onto the turn."""
    import time

    import litellm
    from litellm.integrations.opentelemetry import OpenTelemetry, OpenTelemetryConfig
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from tests.helpers.spans import provider

    logger = OpenTelemetry(config=OpenTelemetryConfig(exporter=InMemorySpanExporter()), tracer_provider=provider())
    monkeypatch.setattr(litellm, "callbacks", [logger])
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 2, "b": 2})]), Turn(content="4"))
    assert new_chat().with_tools(client.tools()).ask("2+2?").content == "4"

    turn = spans.one("invoke_agent")
    deadline = time.monotonic() + 10
    while True:  # LiteLLM logs success in the background
        model_requests = [s for s in spans.named("litellm_request") if spans.child_of(s, turn)]
        if len(model_requests) == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert len(model_requests) == 2, [s.name for s in spans.all()]
    assert all(s.attributes["gen_ai.usage.input_tokens"] == 7 for s in model_requests)
    assert turn.attributes["gen_ai.request.model"] == "openai/gpt-4o-mini", "LiteLLM did not write onto our span"
    assert turn.attributes["gen_ai.usage.input_tokens"] == 14
    assert spans.child_of(spans.one("tools/call add", SpanKind.CLIENT), turn)


def test_a_failure_recorded_on_a_span_never_shows_the_api_key(llm, spans):
    import httpx

    key = "sk-test-chat-key"
    llm.route.mock(side_effect=lambda request: httpx.Response(
        401, json={"error": {"message": f"Incorrect API key provided: {key}", "type": "invalid_request_error"}}))
    with pytest.raises(Exception, match="API key"):
        new_chat(num_retries=0).ask("hi")
    turn = spans.one("invoke_agent")
    assert turn.status.status_code == StatusCode.ERROR and "***" in turn.status.description
    recorded = [str(dict(event.attributes)) for event in turn.events]
    assert recorded and all(key not in text for text in [*recorded, turn.status.description])


def test_tool_calls_made_from_code_are_spans_under_the_run(llm, make_client, spans, tracer):
    client = make_client("stdio")
    code = "a = await add(a=1, b=2)\ntry:\n    await fail(reason='nope')\nexcept RuntimeError:\n    pass\na"
    llm.then(Turn(tool_calls=[("c1", "run_code", {"code": code})]), Turn(content="3"))
    chat = new_chat(code_mode=True).with_tools(client.tools())
    with tracer.start_as_current_span("request"):
        assert chat.ask("add").content == "3"

    turn, run = spans.one("invoke_agent"), spans.one("execute_tool run_code")
    assert spans.child_of(run, turn) and run.kind == SpanKind.INTERNAL
    assert {k: run.attributes[k] for k in ("gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id",
                                           "mcp_litellm.code_run.tool_calls")} == {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "run_code", "gen_ai.tool.call.id": "c1",
        "mcp_litellm.code_run.tool_calls": 2}
    assert run.status.status_code == StatusCode.UNSET  # the program caught the failure
    # each call from the program: the same CLIENT span as a direct call, under the run
    add, fail = spans.one("tools/call add", SpanKind.CLIENT), spans.one("tools/call fail", SpanKind.CLIENT)
    assert spans.child_of(add, run) and spans.child_of(fail, run)
    assert add.attributes["gen_ai.tool.call.id"] == "c1.1" and add.attributes["mcp_litellm.server"] == "fixture"
    assert add.attributes["network.transport"] == "pipe"
    assert spans.child_of(spans.one("MCP send tools/call add"), add)  # the request carries the trace on
    assert fail.status.status_code == StatusCode.ERROR and fail.attributes["error.type"] == "tool_error"
    assert run.attributes["mcp_litellm.code_run.id"] and run.end_time >= fail.end_time


def test_a_failed_program_is_an_error_span(llm, make_client, spans):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "run_code", {"code": "await add(a=1, b=1)\n1 / 0"})]), Turn(content="oops"))
    new_chat(code_mode=True).with_tools(client.tool("add")).ask("divide")
    run = spans.one("execute_tool run_code")
    assert run.status.status_code == StatusCode.ERROR and run.attributes["error.type"] == "tool_error"
    assert spans.child_of(spans.one("tools/call add", SpanKind.CLIENT), run)
