"""One round of tool calls: leaving a stream mid-round cancels the round's calls and leaves no task behind."""

from __future__ import annotations

import asyncio
from contextlib import aclosing

from tests.helpers.chat import assert_history_valid, new_chat
from tests.scripted_llm.openai import Turn


async def test_leaving_astream_mid_round_cancels_the_calls_still_running(llm, make_client):
    client = make_client("memory")
    cancelled: list[str] = []

    async def hang(label: str) -> str:
        """Wait forever."""
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(label)
            raise
        return label

    llm.then(Turn(tool_calls=[("h1", "hang", {"label": "one"}), ("a", "add", {"a": 1, "b": 2}),
                              ("h2", "hang", {"label": "two"})]))
    chat = new_chat().with_tools(client.tool("add"), hang)
    ended: list[str] = []
    async with aclosing(chat.astream("go")) as chunks:
        async for chunk in chunks:
            if chunk.is_tool_end:
                ended.append(chunk.tool_call.id)
                break
    assert ended == ["a"]
    assert sorted(cancelled) == ["one", "two"]
    leftover = [t for t in asyncio.all_tasks() if "ToolLoop" in getattr(t.get_coro(), "__qualname__", "")]
    assert leftover == []
    assert_history_valid(chat.messages)
    answers = {m["tool_call_id"]: m["content"] for m in chat.messages if m["role"] == "tool"}
    assert answers["h1"].startswith("Tool call was not run") and answers["h2"] == answers["h1"]
    assert answers["a"] == answers["h1"]  # the round's messages are added together, when it is over
