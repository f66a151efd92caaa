"""A chat runs task tools (2025-11-25 and 2026-07-28) like any other tool."""

from __future__ import annotations

import pytest

import mcp_litellm as ml
from tests.helpers.chat import new_chat
from tests.scripted_llm.openai import Turn
from tests.servers.task_server import build_server


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_chat_runs_a_task_tool(llm, protocol):
    client = ml.client("tasks", "memory", {"server": build_server()}, protocol=protocol)
    seen: list[str | None] = []
    client.on_progress(lambda p, t, m: seen.append(m))
    llm.then(Turn(tool_calls=[("c1", "research", {"topic": "owls", "steps": 2})]), Turn(content="Owls researched."))
    chat = new_chat().with_tools(*client.tools())
    assert chat.ask("research owls").content == "Owls researched."
    assert llm.tool_messages(1) == [{"role": "tool", "tool_call_id": "c1", "content": "research done: owls"}]
    assert seen[-1] == "done"
    assert client.tool("research").task_support == ("required" if protocol == "legacy" else "forbidden")
    client.stop()
