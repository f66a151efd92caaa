"""Chat hooks with a fixed signature (``context=True``: ``fn(subject, context)``), next to today's forms."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.chat import assert_history_valid, new_chat
from tests.scripted_llm.openai import Turn


def double(x: int) -> int:
    """Double a number."""
    return 2 * x


def test_context_hooks_get_the_subject_and_where_it_comes_from(llm, make_client):
    client = make_client("memory", name="maths")
    seen: list[tuple[Any, ...]] = []

    def on_call(call: ml.ToolCall, context: ml.ToolContext) -> None:
        seen.append(("call", call.id, context.tool_name, context.server, context.origin, context.chat is chat))

    async def on_result(result: ml.ToolResult, context: ml.ToolContext) -> None:
        tool = context.tool.name if context.tool is not None else None
        seen.append(("result", context.call.id, result.text, context.server, tool))

    def on_message(message: ml.Message, context: ml.MessageContext) -> None:
        seen.append(("message", message.content, context.round, context.chat.last_message is message))

    llm.then(Turn(content="r0", tool_calls=[("c1", "add", {"a": 2, "b": 2})]),
             Turn(content="r1", tool_calls=[("c2", "double", {"x": 4}), ("c3", "nothing", {})]), Turn(content="8"))
    chat = (new_chat().with_tools(client.tool("add"), double)
            .on_tool_call(on_call, context=True).on_tool_result(on_result, context=True)
            .on_new_message(on_message, context=True))
    assert chat.ask("go").content == "8"
    assert seen[:4] == [("message", "r0", 0, True), ("call", "c1", "add", "maths", "model", True),
                        ("result", "c1", "4", "maths", "add"), ("message", "r1", 1, True)]
    round_two = seen[4:-1]  # the round's two calls run concurrently: in no particular order
    assert sorted(entry[:2] for entry in round_two) == [("call", "c2"), ("call", "c3"),
                                                        ("result", "c2"), ("result", "c3")]
    assert ("call", "c2", "double", None, "model", True) in round_two
    assert ("call", "c3", "nothing", None, "model", True) in round_two
    results = {entry[1]: entry for entry in seen if entry[0] == "result"}
    assert results["c2"] == ("result", "c2", "8", None, None)
    assert results["c3"][2].startswith("Error: there is no tool named 'nothing'") and results["c3"][3] is None
    assert seen[-1] == ("message", "8", 2, True)


def test_a_context_hook_is_never_guessed_from_its_parameters(llm, make_client):
    """``fn(*args)`` would be taken for the old ``fn(call, result)`` form; with ``context=True`` it gets
    ``(result, context)``, and a hook whose second parameter has a default gets both all the same."""
    client = make_client("memory")
    got: list[tuple[Any, ...]] = []

    def variadic(*args: Any) -> None:
        got.append(("variadic", *(type(a).__name__ for a in args)))

    def defaulted(result: ml.ToolResult, context: ml.ToolContext | None = None) -> None:
        got.append(("defaulted", type(context).__name__))

    def legacy_variadic(*args: Any) -> None:
        got.append(("legacy", *(type(a).__name__ for a in args)))

    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 1})]), Turn(content="2"))
    chat = (new_chat().with_tools(client.tool("add")).on_tool_result(variadic, context=True)
            .on_tool_result(defaulted, context=True).on_tool_result(legacy_variadic))
    chat.ask("1+1")
    assert got == [("variadic", "ToolResult", "ToolContext"), ("defaulted", "ToolContext"),
                   ("legacy", "ToolCall", "ToolResult")]


def test_contexts_are_frozen_and_name_the_chat_not_its_history(llm, make_client):
    client = make_client("memory", name="maths")
    contexts: list[ml.ToolContext] = []
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 2})]), Turn(content="3"))
    chat = new_chat().with_tools(client.tool("add")).on_tool_call(lambda _, c: contexts.append(c), context=True)
    chat.ask("add")
    (context,) = contexts
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.server = "other"  # type: ignore[misc]
    assert "maths" in repr(context) and "messages" not in repr(context)


def test_off_hooks_forget_context_hooks_and_bad_hooks_are_refused(llm, make_client):
    client = make_client("memory")
    seen: list[str] = []

    def on_result(result: ml.ToolResult, context: ml.ToolContext) -> None:
        seen.append("context")

    llm.then(Turn(tool_calls=[("c1", "add", {"a": 2, "b": 2})]), Turn(content="4"))
    chat = new_chat().with_tools(client.tool("add")).on_tool_result(on_result, context=True)
    chat.on_tool_result(lambda result: seen.append("plain"))
    chat.off_tool_result(on_result)
    chat.ask("2+2")
    assert seen == ["plain"]
    with pytest.raises(ml.ConfigError, match="must be a function"):
        chat.on_tool_call("print", context=True)  # type: ignore[call-overload]


async def test_streamed_tool_events_and_context_hooks_agree(llm, make_client):
    """Every call's hooks run around its tool_start / tool_end events, the round's calls concurrently."""
    client = make_client("memory", name="maths")
    order: list[str] = []
    release = asyncio.Event()

    async def slow(x: int) -> int:
        """Wait for the other call to start, then return x."""
        await asyncio.wait_for(release.wait(), 5)
        return x

    def on_call(call: ml.ToolCall, context: ml.ToolContext) -> None:
        order.append(f"hook-call {call.id} {context.server}")

    def on_result(result: ml.ToolResult, context: ml.ToolContext) -> None:
        order.append(f"hook-result {context.call.id}")

    llm.then(Turn(tool_calls=[("s", "slow", {"x": 7}), ("a", "add", {"a": 1, "b": 2})]), Turn(content="done"))
    chat = (new_chat().with_tools(client.tool("add"), slow)
            .on_tool_call(on_call, context=True).on_tool_result(on_result, context=True))
    async for chunk in chat.astream("go"):
        if chunk.is_tool_start or chunk.is_tool_end:
            order.append(f"{chunk.event} {chunk.tool_call.id}")
            if chunk.is_tool_end and chunk.tool_call.id == "a":
                release.set()  # the slow call ends only after the other one did: they overlap
    for call_id in ("s", "a"):
        mine = [entry for entry in order if entry.split()[1] == call_id]
        assert [entry.split()[0] for entry in mine] == ["hook-call", "tool_start", "hook-result", "tool_end"]
    assert order.index("tool_end a") < order.index("tool_end s")
    assert "hook-call s None" in order and "hook-call a maths" in order
    assert_history_valid(chat.messages)
    assert [m["content"] for m in chat.messages if m["role"] == "tool"] == ["7", "3"]


def test_guessed_hook_forms_still_work_with_a_deprecation_warning(llm, make_client):
    client = make_client("memory")
    seen: list[str] = []
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 2})]), Turn(content="3"))
    chat = new_chat().with_tools(client.tool("add"))
    with pytest.warns(DeprecationWarning, match=r"fn\(result\).*on_tool_result\(fn, context=True\)") as caught:
        chat.on_tool_result(lambda call, result: seen.append(f"result {call.id} {result.text}"))
    assert caught[0].filename == __file__  # the warning points at the registration
    with pytest.warns(DeprecationWarning, match=r"fn\(message\).*on_new_message\(fn, context=True\)"):
        chat.on_new_message(lambda: seen.append("message"))
    chat.ask("1+2")
    assert seen == ["message", "result c1 3", "message"]


def test_the_plain_one_argument_hooks_are_not_deprecated(llm, make_client):
    import warnings

    client = make_client("memory")
    seen: list[str] = []
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 2})]), Turn(content="3"))
    chat = new_chat().with_tools(client.tool("add"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        (chat.on_tool_call(lambda call: seen.append(f"call {call.id}"))
         .on_tool_result(lambda result: seen.append(f"result {result.text}"))
         .on_new_message(lambda message: seen.append(f"message {message.role}")))
    chat.ask("1+2")
    assert seen == ["message assistant", "call c1", "result 3", "message assistant"]


def test_hooks_registered_with_context_do_not_warn(llm, make_client):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        (new_chat().on_tool_call(lambda call, context: None, context=True)
         .on_tool_result(lambda result, context: None, context=True)
         .on_new_message(lambda message, context: None, context=True))


def test_a_programs_calls_reach_the_hooks_with_origin_code_and_their_run(llm, make_client):
    client = make_client("memory", name="maths")
    contexts: list[ml.ToolContext] = []
    program = "x = await add(a=1, b=2)\nawait add(a=x, b=3)"
    llm.then(Turn(tool_calls=[("c1", "run_code", {"code": program})]), Turn(content="6"))
    chat = new_chat(code_mode=True).with_tools(client.tool("add")).on_tool_call(
        lambda _, context: contexts.append(context), context=True)
    assert chat.ask("add").content == "6"
    outer, *inner = contexts
    assert (outer.origin, outer.code_run, outer.server) == ("model", None, None)
    assert outer.call_context is not None and outer.call_context.tool_call_id == "c1"
    assert [(c.origin, c.server, c.call.id) for c in inner] == [("code", "maths", "c1.1"), ("code", "maths", "c1.2")]
    runs = {id(c.code_run) for c in inner}
    assert len(runs) == 1 and inner[0].code_run is not None and inner[0].code_run.tool_call_id == "c1"
    assert all(c.call_context is not None and c.call_context.code_run is c.code_run for c in inner)
