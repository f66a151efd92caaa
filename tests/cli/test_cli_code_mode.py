"""``mcp-litellm chat --code-mode``: a subprocess, the demo servers, and a scripted OpenAI-compatible endpoint."""

from __future__ import annotations

from tests.helpers.cli import chat, tool_messages
from tests.scripted_llm.server import Turn, fake_llm


def test_chat_code_mode_runs_the_program_and_shows_each_inner_call():
    code = "a = await add(a=2, b=3)\nb = await add(a=a, b=10)\nprint('sum', b)"
    script = [Turn(tool_calls=[("call_1", "run_code", {"code": code})]), Turn(content="It is 15.")]
    with fake_llm(script) as llm:
        done = chat(llm.url, "add things\n", "--code-mode")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It is 15.\n" and "Traceback" not in done.stderr
    first, second = llm.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["run_code"]
    assert "async def add(" in first["tools"][0]["function"]["description"]
    assert [(m["tool_call_id"], m["content"]) for m in tool_messages(second)] == [("call_1", "sum 15")]
    assert 'using tool add {"a": 2, "b": 3}' in done.stderr and 'using tool add {"a": 5, "b": 10}' in done.stderr
