"""The caller's context crosses every hop to the client's loop and back into user code: a plain
``ContextVar`` set by the caller is seen by handlers, hooks and tools, and the OpenTelemetry spans of a
server's requests (sampling, elicitation) nest under the tool call that caused them.

Hops: sync and async calls, sync iteration of a stream, chat hooks, local tools in worker threads
(parallel), the approval handler (a worker thread), progress handlers and sampling / elicitation
handlers (delivered on the session's own task on 2025-era connections), LiteLLM's callbacks.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import time

import pytest
from opentelemetry.trace import SpanKind, StatusCode

import mcp_litellm as ml
from tests.helpers.chat import new_chat
from tests.helpers.features import sampling
from tests.scripted_llm.openai import Turn

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")


@pytest.fixture
def fake_model():
    """The fake model of tests/features (for sampling completions)."""
    from tests.scripted_llm.respx_mock import QueuedLLM, litellm_respx

    with litellm_respx() as router:
        yield QueuedLLM(router)


def in_context(value: str, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with ``REQUEST_ID`` set to ``value`` (in a copy of the current context)."""
    def run():
        REQUEST_ID.set(value)
        return fn(*args, **kwargs)

    return contextvars.copy_context().run(run)


@pytest.mark.parametrize(("transport", "protocol"), [("stdio", "legacy"), ("stdio", "auto"), ("memory", "legacy"),
                                                     ("memory", "auto"), ("streamable", "legacy")])
@pytest.mark.parametrize("style", ["sync", "async"])
def test_a_sampling_handler_runs_in_the_context_of_the_call(make_client, fake_model, spans, tracer, transport,
                                                            protocol, style):
    seen = []
    if style == "sync":
        def handler(sample):
            seen.append(REQUEST_ID.get())
            return ml.handlers.accept("from the handler")
    else:
        async def handler(sample):
            seen.append(REQUEST_ID.get())
            return await asyncio.sleep(0, ml.handlers.accept("from the handler"))

    client = make_client(transport, protocol=protocol, sampling=sampling(handler=handler))
    with tracer.start_as_current_span("caller"):
        out = in_context("req-1", client.execute_tool, "sample_text", {"prompt": "hi"})
    assert json.loads(out.text)["content"][0]["text"] == "from the handler"
    assert seen == ["req-1"]

    call = spans.one("tools/call sample_text", SpanKind.CLIENT)
    sampled = spans.one("sampling/createMessage", SpanKind.SERVER)
    assert spans.is_ancestor(call, sampled), spans.ancestors(sampled)
    assert sampled.attributes["mcp.method.name"] == "sampling/createMessage"
    assert sampled.attributes["mcp_litellm.server"] == "fixture"
    assert sampled.attributes["mcp.protocol.version"] == client.protocol_version


def test_a_sampling_span_records_the_model_usage_and_refusals(make_client, fake_model, spans):
    client = make_client("stdio", protocol="legacy", sampling=sampling(rate_limit=1))
    client.execute_tool("sample_text", {"prompt": "hi"})
    with pytest.raises(ml.ServerError):
        client.execute_tool("sample_text", {"prompt": "again"})
    answered, refused = sorted(spans.named("sampling/createMessage"), key=lambda s: s.start_time)
    assert answered.attributes["gen_ai.request.model"] == "openai/gpt-4o-mini"
    tokens = answered.attributes["gen_ai.usage.input_tokens"], answered.attributes["gen_ai.usage.output_tokens"]
    assert tokens == (5, 5)
    assert answered.attributes["mcp_litellm.usage.cost_usd"] == pytest.approx(client.sampling_usage.cost)
    assert answered.status.status_code == StatusCode.UNSET
    assert refused.status.status_code == StatusCode.ERROR and refused.attributes["error.type"] == "-1"
    assert "rate limit" in refused.status.description


def test_concurrent_calls_each_answer_in_their_own_context(make_client, fake_model, spans, tracer):
    """Two calls in flight on one 2025-era stdio session: each sampling request is answered in the
    context of the call whose trace its ``_meta`` carries."""
    seen: dict[str, str] = {}

    async def handler(sample):
        await asyncio.sleep(0.2)  # both calls are in flight now
        seen[sample.message] = REQUEST_ID.get()
        return ml.handlers.accept("ok")

    client = make_client("stdio", protocol="legacy", sampling=sampling(handler=handler))

    async def call(request_id: str) -> None:
        REQUEST_ID.set(request_id)
        with tracer.start_as_current_span(f"request {request_id}"):  # a trace of its own
            await client.aexecute_tool("sample_text", {"prompt": f"from {request_id}"})

    async def main() -> None:
        await asyncio.gather(call("a"), call("b"))

    asyncio.run(main())
    assert seen == {"from a": "a", "from b": "b"}
    for request_id in ("a", "b"):
        root = spans.one(f"request {request_id}")
        sampled = [s for s in spans.named("sampling/createMessage") if s.context.trace_id == root.context.trace_id]
        assert len(sampled) == 1 and spans.is_ancestor(root, sampled[0])


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_an_elicitation_handler_runs_in_the_context_of_the_call(make_client, spans, tracer, protocol):
    seen = []

    def handler(elicitation):
        seen.append(REQUEST_ID.get())
        return ml.handlers.decline("not now")

    client = make_client("stdio", protocol=protocol, elicitation=handler)
    with tracer.start_as_current_span("caller"):
        out = in_context("req-2", client.execute_tool, "elicit_form")
    assert json.loads(out.text)["action"] == "decline" and seen == ["req-2"]
    elicited = spans.one("elicitation/create", SpanKind.SERVER)
    assert spans.is_ancestor(spans.one("tools/call elicit_form", SpanKind.CLIENT), elicited)
    assert elicited.attributes["mcp_litellm.elicitation.action"] == "decline"


def test_progress_and_approval_handlers_see_the_callers_context(make_client):
    progress, approvals = [], []

    def approve(tool_name, parameters):  # runs in a worker thread
        approvals.append(REQUEST_ID.get())
        return True

    client = make_client("stdio", protocol="legacy", human_in_the_loop=approve)
    in_context("req-3", client.execute_tool, "slow", {"seconds": 0.05, "steps": 2},
               on_progress=lambda value, total, message: progress.append(REQUEST_ID.get()))
    assert approvals == ["req-3"]
    assert progress and set(progress) == {"req-3"}


def lookup(city: str) -> str:
    """Look a city up (a sync local tool: it runs in a worker thread)."""
    return f"{city}: {REQUEST_ID.get()}"


async def alookup(city: str) -> str:
    """Look a city up (an async local tool)."""
    return f"{city}: {REQUEST_ID.get()}"


@pytest.mark.parametrize("mode", ["ask", "stream", "astream"])
def test_chat_hooks_and_parallel_tools_see_the_callers_context(llm, make_client, mode):
    seen: dict[str, list[str]] = {"tool_call": [], "tool_result": [], "new_message": [], "chunk": []}
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "lookup", {"city": "Oslo"}), ("c2", "alookup", {"city": "Rome"}),
                              ("c3", "add", {"a": 1, "b": 1})]),
             Turn(content="done"))
    chat = (new_chat().with_tools(client.tools(), lookup, alookup)
            .on_tool_call(lambda call: seen["tool_call"].append(REQUEST_ID.get()))
            .on_tool_result(lambda result: seen["tool_result"].append(REQUEST_ID.get()))
            .on_new_message(lambda message: seen["new_message"].append(REQUEST_ID.get())))

    def run() -> None:
        if mode == "ask":
            chat.ask("look up", on_chunk=lambda chunk: seen["chunk"].append(REQUEST_ID.get()))
        elif mode == "stream":
            for _ in chat.stream("look up"):
                seen["chunk"].append(REQUEST_ID.get())
        else:
            async def consume() -> None:
                async for _ in chat.astream("look up"):
                    seen["chunk"].append(REQUEST_ID.get())

            asyncio.run(consume())

    in_context("req-4", run)
    assert {name: set(values) for name, values in seen.items()} == {name: {"req-4"} for name in seen}
    assert len(seen["tool_call"]) == 3 and len(seen["new_message"]) == 2
    tool_messages = {m["tool_call_id"]: m["content"] for m in chat.messages if m["role"] == "tool"}
    assert tool_messages["c1"] == "Oslo: req-4" and tool_messages["c2"] == "Rome: req-4"


def test_litellm_callbacks_see_the_callers_context_in_the_sync_api(llm, spans, tracer, monkeypatch):
    import litellm
    from litellm.integrations.custom_logger import CustomLogger

    seen: dict[str, object] = {}

    class Recorder(CustomLogger):
        def log_pre_api_call(self, model, messages, kwargs):
            seen["pre_call"] = REQUEST_ID.get()

        async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
            seen["success"] = REQUEST_ID.get()
            metadata = kwargs.get("litellm_params", {}).get("metadata") or {}
            seen["parent"] = metadata.get("litellm_parent_otel_span")

    monkeypatch.setattr(litellm, "callbacks", [Recorder()])
    llm.then(Turn(content="hello"))
    with tracer.start_as_current_span("caller"):
        in_context("req-5", new_chat().ask, "hi")
    for _ in range(200):  # LiteLLM logs success in the background
        if "success" in seen:
            break
        time.sleep(0.05)
    assert seen["pre_call"] == "req-5" and seen["success"] == "req-5"
    turn = spans.one("invoke_agent")
    assert seen["parent"] is not None and seen["parent"].get_span_context().span_id == turn.context.span_id
