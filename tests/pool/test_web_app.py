"""examples/web_app.py under a real uvicorn, with concurrent HTTP clients and a model scripted at the HTTP level."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.processes import interrupt
from tests.helpers.servers import ROOT, free_port, wait_for_port
from tests.scripted_llm.server import FakeLLM, Turn, fake_llm

MODEL_DELAY = 0.4
CHATS = 20


def answer(body: dict[str, Any]) -> Turn:
    """The scripted model: 'add A and B' gets an ``add`` tool call; a tool result gets 'The sum is ...'."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return Turn(content=f"The sum is {last['content']}.", delay=MODEL_DELAY)
    a, b = map(int, re.findall(r"-?\d+", last["content"]))
    return Turn(tool_calls=[(f"call-{a}-{b}", "add", {"a": a, "b": b})], delay=MODEL_DELAY)


def children(pid: int) -> list[tuple[int, str]]:
    """Live child processes of ``pid`` with their command lines."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(stat[1]) == pid and stat[0] not in ("Z", "X"):
            found.append((int(entry.name), cmdline))
    return found


@pytest.fixture
def web_app() -> Iterator[tuple[str, FakeLLM, subprocess.Popen[bytes]]]:
    with fake_llm([], respond=answer) as llm:
        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "WEB_APP_MODEL": "openai/gpt-4o-mini", "WEB_APP_API_BASE": llm.url, "WEB_APP_API_KEY": "sk-example"}
        process = subprocess.Popen([sys.executable, "-m", "uvicorn", "examples.web_app:app", "--host", "127.0.0.1",
                                    "--port", str(port)], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for_port(port, process, timeout=60)
            yield f"http://127.0.0.1:{port}", llm, process
        finally:
            interrupt(process)


def parse_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


async def test_concurrent_streaming_chats_share_one_server(web_app):
    url, llm, process = web_app
    servers = [c for c in children(process.pid) if "mcp_litellm.demo_server" in c[1]]
    assert len(servers) == 1  # one MCP server process, started in the lifespan

    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        assert "add" in (await http.get("/tools")).json()

        async def chat(i: int) -> tuple[int, list[tuple[str, dict[str, Any]]]]:
            async with http.stream("POST", "/chat", json={"message": f"add {i} and {1000 * i}"}) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                text = "".join([piece async for piece in response.aiter_text()])
            return i, parse_events(text)

        await chat(CHATS)  # the first chat of the process also loads LiteLLM's lazy parts
        started = time.monotonic()
        await chat(CHATS + 1)
        alone = time.monotonic() - started
        started = time.monotonic()
        results = await asyncio.gather(*(chat(i) for i in range(CHATS)))
        elapsed = time.monotonic() - started

    for i, events in results:
        kinds = [kind for kind, _ in events]
        assert kinds[0] == "tool_start" and kinds[-1] == "done" and "tool_end" in kinds, kinds
        start = dict(events)["tool_start"]
        assert start["name"] == "add" and json.loads(start["arguments"]) == {"a": i, "b": 1000 * i}
        assert dict(events)["tool_end"] == {"name": "add", "result": str(1001 * i)}  # its own result, no other's
        text = "".join(data["content"] for kind, data in events if kind == "text")
        assert text == f"The sum is {1001 * i}."
    assert len(llm.requests) == 2 * (CHATS + 2) and all(r["stream"] for r in llm.requests)
    # one after another, the chats would take CHATS times as long as one alone (each waits for the model twice)
    assert elapsed < CHATS * alone / 4, (elapsed, alone)
    assert [c[0] for c in children(process.pid) if "mcp_litellm.demo_server" in c[1]] == [servers[0][0]]

    process.send_signal(signal.SIGINT)  # the lifespan ends: the server process goes with it
    process.wait(timeout=20)
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{servers[0][0]}") and time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{servers[0][0]}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            break
        if state in ("Z", "X"):
            break
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{servers[0][0]}") or state in ("Z", "X")
