"""A call's context is an argument (issue 33): the span of a tool call takes its id from the call's
``CallContext``, and the calls an approval handler makes from inside an approval are its own."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from opentelemetry.trace import SpanKind

import mcp_litellm as ml
from mcp_litellm._client.primitives.toolset import CallContext


class CallsFromInside(ml.handlers.HumanInTheLoopHandler):
    """Approves; before approving ``echo`` it calls ``add`` itself, on the same client."""

    client: ClassVar[ml.Client | None] = None
    seen: ClassVar[list[tuple[str, str, str | None]]] = []

    def execute(self):
        self.seen.append((self.tool_name, self.context.origin, self.context.tool_call_id))
        if self.tool_name == "echo":
            assert self.client is not None
            assert self.client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        return self.approve()


def test_a_handler_calling_tools_inside_an_approval_sees_its_own_calls_without_the_outer_id(make_client, spans):
    client = make_client("memory", human_in_the_loop=CallsFromInside)
    CallsFromInside.client, CallsFromInside.seen = client, []
    ctx = CallContext(origin="model", tool_call_id="call_outer")

    result = asyncio.run(client.call_tool("echo", {"message": "hi"}, ctx))

    assert not result.is_error
    assert CallsFromInside.seen == [("echo", "model", "call_outer"), ("add", "user", None)]
    outer = spans.one("tools/call echo", SpanKind.CLIENT)
    inner = spans.one("tools/call add", SpanKind.CLIENT)
    assert outer.attributes["gen_ai.tool.call.id"] == "call_outer"
    assert "gen_ai.tool.call.id" not in inner.attributes


def test_the_span_id_comes_from_the_context_alone(make_client, spans):
    client = make_client("memory")

    async def main() -> None:
        await client.call_tool("add", {"a": 1, "b": 1}, CallContext(origin="model", tool_call_id="c1"))
        await client.aexecute_tool("add", {"a": 2, "b": 2})  # a user call: no tool call id

    asyncio.run(main())
    first, second = sorted(spans.named("tools/call add", SpanKind.CLIENT), key=lambda s: s.start_time)
    assert first.attributes["gen_ai.tool.call.id"] == "c1"
    assert "gen_ai.tool.call.id" not in second.attributes
