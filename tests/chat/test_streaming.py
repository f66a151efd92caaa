"""Streaming: text as it arrives, tool calls as they form, tool events, and the same history as ask()."""

from __future__ import annotations

import json
from contextlib import aclosing

import pytest

import mcp_litellm as ml
from tests.helpers.chat import assert_history_valid, new_chat
from tests.scripted_llm.openai import Turn, chunk

SCRIPT = [Turn(content="Let me add.", tool_calls=[("c1", "add", {"a": 2, "b": 3}), ("c2", "echo", {"message": "x"})]),
          Turn(content="The sum is 5 and the echo is x.")]


def test_stream_yields_text_tool_fragments_and_tool_events(llm, make_client):
    client = make_client("memory")
    llm.then(*SCRIPT)
    chat = new_chat().with_tools(*client.tools())
    chunks = list(chat.stream("go"))
    assert llm.requests[0]["stream"] is True
    events = [c.event for c in chunks]
    assert "".join(c.content for c in chunks) == "Let me add.The sum is 5 and the echo is x."
    fragments = [c for c in chunks if c.is_tool_call]
    assert len(fragments) == 4  # each call arrives in two pieces
    assert fragments[0].tool_calls["c1"].name == "add" and fragments[0].tool_calls["c1"].arguments == '{"a": 2,'
    assert fragments[-1].tool_calls["c2"].args == {"message": "x"} and set(fragments[-1].tool_calls) == {"c1", "c2"}
    starts = [c for c in chunks if c.is_tool_start]
    ends = [c for c in chunks if c.is_tool_end]
    assert {c.tool_call.name for c in starts} == {"add", "echo"}
    assert {c.tool_call.id: c.tool_result.text for c in ends} == {"c1": "5", "c2": "x"}
    assert events.index("tool_start") > max(i for i, e in enumerate(events) if e == "tool_call")
    assert max(i for i, e in enumerate(events) if e == "tool_end") < len(events) - 1  # text of round 2 after
    assert chat.last_message.content == "The sum is 5 and the echo is x."
    assert_history_valid(chat.messages)


def test_streamed_and_plain_turns_leave_identical_history(llm, make_client):
    client = make_client("memory")
    llm.then(*SCRIPT, *SCRIPT)
    streamed = new_chat().with_tools(*client.tools())
    list(streamed.stream("go"))
    plain = new_chat().with_tools(*client.tools())
    plain.ask("go")
    assert streamed.messages == plain.messages
    assert streamed.messages[1]["content"] == "Let me add."  # text before the tool calls is kept
    assert llm.requests[1]["messages"] == llm.requests[3]["messages"]


async def test_astream_and_on_chunk(llm, make_client):
    client = make_client("memory")
    llm.then(*SCRIPT, *SCRIPT)
    chat = new_chat().with_tools(*client.tools())
    texts = [c.content async for c in chat.astream("go") if c.content]
    assert "".join(texts) == "Let me add.The sum is 5 and the echo is x." and len(texts) > 4
    received: list[ml.Chunk] = []

    async def on_chunk(c: ml.Chunk) -> None:
        received.append(c)

    reply = await new_chat().with_tools(*client.tools()).aask("go", on_chunk=on_chunk)
    assert reply.content == "The sum is 5 and the echo is x."
    assert [c.event for c in received if c.event != "content"].count("tool_end") == 2


def test_sync_ask_with_on_chunk_streams(llm, make_client):
    client = make_client("memory")
    llm.then(*SCRIPT)
    pieces: list[str] = []
    reply = new_chat().with_tools(*client.tools()).ask("go", on_chunk=lambda c: pieces.append(c.content))
    assert llm.requests[0]["stream"] is True
    assert "".join(pieces) == "Let me add.The sum is 5 and the echo is x." and str(reply).startswith("The sum")


def _call_delta(index, call_id=None, name=None, arguments=""):
    delta = {"index": index, "function": {"arguments": arguments}}
    if call_id:
        delta["id"] = call_id
        delta["type"] = "function"
    if name:
        delta["function"]["name"] = name
    return chunk({"tool_calls": [delta]})


def test_parallel_calls_that_share_index_zero_are_not_merged(llm, make_client):
    """Some providers number every parallel call 0 and tell them apart only by id."""
    client = make_client("memory")
    raw = [chunk({"role": "assistant", "content": "Adding twice. "}),
           _call_delta(0, "call_a", "add", '{"a": 1,'), _call_delta(0, None, None, ' "b": 1}'),
           _call_delta(0, "call_b", "add", '{"a": 2, "b": 2}'),
           chunk({}, "tool_calls")]
    llm.then(Turn(raw_chunks=raw), Turn(content="2 and 4"))
    chat = new_chat().with_tools(client.tool("add"))
    chunks = list(chat.stream("add twice"))
    calls = chat.messages[1]["tool_calls"]
    assert [(c["id"], c["function"]["arguments"]) for c in calls] == [("call_a", '{"a": 1, "b": 1}'),
                                                                      ("call_b", '{"a": 2, "b": 2}')]
    assert chat.messages[1]["content"] == "Adding twice. "
    assert [m["content"] for m in llm.tool_messages(1)] == ["2", "4"]
    assert set(chunks[-1].tool_calls) == set() and "".join(c.content for c in chunks).endswith("2 and 4")


def test_fragments_without_index_follow_their_id_and_calls_without_id_get_one(llm, make_client):
    client = make_client("memory")
    raw = [chunk({"tool_calls": [{"id": "x1", "function": {"name": "add", "arguments": '{"a": 5'}}]}),
           chunk({"tool_calls": [{"id": "x1", "function": {"arguments": ', "b": 5}'}}]}),
           chunk({"tool_calls": [{"index": 1, "function": {"name": "echo", "arguments": '{"message": "m"}'}}]}),
           chunk({}, "tool_calls")]
    llm.then(Turn(raw_chunks=raw), Turn(content="done"))
    chat = new_chat().with_tools(*client.tools())
    list(chat.stream("go"))
    calls = chat.messages[0 + 1]["tool_calls"]
    assert calls[0]["id"] == "x1" and json.loads(calls[0]["function"]["arguments"]) == {"a": 5, "b": 5}
    assert calls[1]["id"].startswith("call_") and calls[1]["function"]["name"] == "echo"
    assert sorted(m["content"] for m in llm.tool_messages(1)) == ["10", "m"]


def test_tool_names_split_repeated_or_regrown_across_fragments(llm, make_client):
    client = make_client("memory")
    raw = [_call_delta(0, "c1", "ec", '{"message": '), _call_delta(0, None, "ho", '"split"}'),
           _call_delta(1, "c2", "add", '{"a": 1,'), _call_delta(1, None, "add", ' "b": 2}'),
           _call_delta(2, "c3", "ec", ""), _call_delta(2, None, "echo", '{"message": "regrown"}'),
           chunk({}, "tool_calls")]
    llm.then(Turn(raw_chunks=raw), Turn(content="done"))
    chat = new_chat().with_tools(*client.tools())
    list(chat.stream("go"))
    assert [c["function"]["name"] for c in chat.messages[1]["tool_calls"]] == ["echo", "add", "echo"]
    assert [m["content"] for m in llm.tool_messages(1)] == ["split", "3", "regrown"]


def test_breaking_out_of_a_stream_keeps_the_history_valid(llm, make_client):
    client = make_client("stdio")
    llm.then(Turn(tool_calls=[("c1", "wait", {"seconds": 3}), ("c2", "add", {"a": 1, "b": 1})]), Turn(content="never"))
    chat = new_chat().with_tools(*client.tools())
    for c in chat.stream("go"):
        if c.is_tool_start:
            break
    assert_history_valid(chat.messages)
    assert any("interrupted" in m["content"] for m in chat.messages if m["role"] == "tool")
    llm.script.clear()
    llm.then(Turn(content="fresh"))
    assert chat.ask("again").content == "fresh"


def test_leaving_a_stream_mid_text_keeps_the_question_and_the_text_shown(llm):
    llm.then(Turn(content="one two three four"), Turn(content="five"))
    chat = new_chat()
    shown = ""
    for c in chat.stream("count to four"):
        shown += c.content
        if "two" in shown:
            break
    assert shown == "one two"
    assert chat.messages == [{"role": "user", "content": "count to four"}, {"role": "assistant", "content": "one two"}]
    assert chat.last_message.content == "one two"
    assert chat.ask("go on").content == "five"
    assert llm.requests[1]["messages"][:2] == chat.messages[:2]


async def test_leaving_astream_mid_text_after_a_tool_round(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 2})]), Turn(content="The sum is 3 and more"))
    chat = new_chat().with_tools(client.tool("add"))
    shown = ""
    async with aclosing(chat.astream("add")) as chunks:
        async for c in chunks:
            shown += c.content
            if "3" in shown:
                break
    assert chat.messages[-1] == {"role": "assistant", "content": "The sum is 3"}
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]
    assert_history_valid(chat.messages)


def test_stream_errors_reach_the_caller(llm):
    llm.then(Turn(status=500))
    chat = new_chat()
    with pytest.raises(Exception, match="InternalServerError"):
        list(chat.stream("hello"))
    assert chat.messages == []
