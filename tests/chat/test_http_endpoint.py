"""The chat against a real OpenAI-compatible HTTP server on 127.0.0.1, with LiteLLM's default transport.

The rest of the chat tests mock HTTP with respx, which needs LiteLLM's httpx transport
(``DISABLE_AIOHTTP_TRANSPORT``). Users get LiteLLM's default, aiohttp for async calls, whose client
sessions are tied to an event loop; this runs the tool loop through it in a fresh interpreter: sync
and async, streamed and not, on the background loop, on two user loops in turn, and on a loop handed
over with ``ml.use_running_loop()``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

from tests.scripted_llm.server import Turn, fake_llm

_SCRIPT = textwrap.dedent("""
    import asyncio, json, sys
    from itertools import groupby
    import mcp_litellm as ml

    base = sys.argv[1]
    demo = {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}
    out = {}
    with ml.client("demo", "stdio", demo) as client:
        chat = ml.Chat(model="openai/gpt-4o-mini", api_base=base, api_key="sk-test").with_tools(*client.tools())
        out["sync"] = str(chat.ask("2+3?"))
        out["sync_stream"] = "".join(chunk.content or "" for chunk in chat.stream("2+3?"))

        async def both():
            answer = await chat.aask("2+3?")
            streamed = "".join([chunk.content or "" async for chunk in chat.astream("2+3?")])
            return [str(answer), streamed]

        out["loop1"] = asyncio.run(both())
        out["loop2"] = asyncio.run(both())
        out["sync_after"] = str(chat.ask("2+3?"))

    async def own_loop():
        ml.use_running_loop()
        async with ml.client("demo", "stdio", demo, start=False) as client:
            chat = ml.Chat(model="openai/gpt-4o-mini", api_base=base, api_key="sk-test")
            chat.with_tools(*await client.atools())
            events = [kind for kind, _ in groupby([chunk.event async for chunk in chat.astream("2+3?")])]
            return [str(await chat.aask("2+3?")), events]

    out["own_loop"] = asyncio.run(own_loop())
    print(json.dumps(out))
""")


ASKS = 9  # in _SCRIPT: ask, stream, 2 x (aask, astream), ask, and on the handed-over loop astream, aask
ANSWER = "The sum is 5."


def test_tool_loop_through_litellms_default_http_transport(tmp_path: Any) -> None:
    script = tmp_path / "chat_over_http.py"
    script.write_text(_SCRIPT)
    env = {key: value for key, value in os.environ.items() if key != "DISABLE_AIOHTTP_TRANSPORT"}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    turns = [turn for i in range(ASKS)
             for turn in (Turn(tool_calls=[(f"call_{i}", "add", {"a": 2, "b": 3})]), Turn(content=ANSWER))]
    with fake_llm(turns) as model:
        done = subprocess.run([sys.executable, str(script), model.url], capture_output=True, text=True,
                              timeout=180, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["sync"] == out["sync_stream"] == out["sync_after"] == ANSWER
    assert out["loop1"] == out["loop2"] == [ANSWER, ANSWER]
    assert out["own_loop"] == [ANSWER, ["tool_call", "tool_start", "tool_end", "content"]]
    # every ask ran the tool on the server and sent its result back before the answer
    assert len(model.requests) == 2 * ASKS
    tool_results = [r["messages"][-1] for r in model.requests[1::2]]
    assert [m["role"] for m in tool_results] == ["tool"] * ASKS
    assert [m["tool_call_id"] for m in tool_results] == [f"call_{i}" for i in range(ASKS)]
    assert all(m["content"] == "5" for m in tool_results)
    assert {bool(r.get("stream")) for r in model.requests} == {True, False}
