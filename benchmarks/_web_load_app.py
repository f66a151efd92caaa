"""The app under load in benchmarks/web_app_load.py: a chat endpoint over a ClientPool with a per-user HTTP MCP
server (each user's own key in a header), and a /stats endpoint (memory, open file descriptors, users).

Settings come from the environment: ``LOAD_MCP_URL``, ``LOAD_LLM_URL``, ``LOAD_IDLE_TIMEOUT``.
"""

from __future__ import annotations

import gc
import os
import resource
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from pydantic import BaseModel

import mcp_litellm as ml


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    config = {"mcpServers": {"crm": {"url": os.environ["LOAD_MCP_URL"], "per_user": True}}}
    async with ml.ClientPool(config, max_users=1000, idle_timeout=float(os.environ["LOAD_IDLE_TIMEOUT"])) as pool:
        app.state.pool = pool
        yield


app = FastAPI(lifespan=lifespan)


class Ask(BaseModel):
    user: str
    message: str


@app.post("/chat")
async def chat(body: Ask, request: Request) -> dict[str, str]:
    pool: ml.ClientPool = request.app.state.pool
    async with pool.aborrow(body.user, headers={"X-API-Key": f"key-of-{body.user}"}) as servers:
        conversation = ml.Chat("openai/gpt-4o-mini", api_base=os.environ["LOAD_LLM_URL"],
                               api_key="sk-load").with_tools(*await servers.atools())
        reply = await conversation.aask(body.message)
    return {"answer": reply.content or ""}


def _rss_kb() -> tuple[int, int]:
    current = peak = 0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                current = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1])
    return current, peak


@app.get("/stats")
async def stats(request: Request) -> dict[str, Any]:
    gc.collect()
    current, peak = _rss_kb()
    return {"rss_kb": current, "peak_rss_kb": peak, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "fds": len(os.listdir("/proc/self/fd")), "blocks": sys.getallocatedblocks(),
            "users": len(request.app.state.pool.users)}
