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
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest


class _ToolThenTextModel(BaseHTTPRequestHandler):
    """Asks for ``add(a=2, b=3)`` first, then answers with the tool result it was sent."""

    protocol_version = "HTTP/1.1"
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        self.requests.append(body)
        messages = body.get("messages", [])
        if messages and messages[-1].get("role") == "tool":
            message: dict[str, Any] = {"role": "assistant", "content": f"The sum is {messages[-1]['content']}."}
            finish = "stop"
        else:
            call = {"id": f"call_{len(self.requests)}", "type": "function",
                    "function": {"name": "add", "arguments": json.dumps({"a": 2, "b": 3})}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        if body.get("stream"):
            delta = dict(message)
            if "tool_calls" in delta:
                delta["tool_calls"] = [{**delta["tool_calls"][0], "index": 0}]
            chunks = [{"index": 0, "delta": delta, "finish_reason": None},
                      {"index": 0, "delta": {}, "finish_reason": finish}]
            payload = "".join(
                "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                      "choices": [choice]}) + "\n\n"
                for choice in chunks
            ).encode() + b"data: [DONE]\n\n"
            content_type = "text/event-stream"
        else:
            payload = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                  "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
            content_type = "application/json"
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def model_url() -> Iterator[str]:
    _ToolThenTextModel.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ToolThenTextModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


_SCRIPT = textwrap.dedent("""
    import asyncio, json, sys
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
            events = [chunk.event async for chunk in chat.astream("2+3?")]
            return [str(await chat.aask("2+3?")), events]

    out["own_loop"] = asyncio.run(own_loop())
    print(json.dumps(out))
""")


def test_tool_loop_through_litellms_default_http_transport(model_url: str, tmp_path: Any) -> None:
    script = tmp_path / "chat_over_http.py"
    script.write_text(_SCRIPT)
    env = {key: value for key, value in os.environ.items() if key != "DISABLE_AIOHTTP_TRANSPORT"}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    done = subprocess.run([sys.executable, str(script), model_url], capture_output=True, text=True, timeout=180,
                          env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    answer = "The sum is 5."
    assert out["sync"] == out["sync_stream"] == out["sync_after"] == answer
    assert out["loop1"] == out["loop2"] == [answer, answer]
    assert out["own_loop"] == [answer, ["tool_call", "tool_start", "tool_end", "content"]]
    # every ask ran the tool and sent its result back: 9 asks, two requests each
    tool_results = [r["messages"][-1] for r in _ToolThenTextModel.requests if r["messages"][-1]["role"] == "tool"]
    assert len(_ToolThenTextModel.requests) == 18 and len(tool_results) == 9
    assert all(message["content"] == "5" for message in tool_results)
    assert {bool(r.get("stream")) for r in _ToolThenTextModel.requests} == {True, False}
