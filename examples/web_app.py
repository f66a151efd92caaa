"""A chat backend: one MCP server shared by every request, answers streamed as server-sent events.

    pip install mcp-litellm fastapi uvicorn
    WEB_APP_MODEL=gpt-4o-mini uvicorn examples.web_app:app
    curl -N localhost:8000/chat -H 'content-type: application/json' -d '{"message": "What is 1234 + 4321?"}'

The MCP server (the demo server in the package, or the stdio command in ``WEB_APP_SERVER``) starts
once, in the app's lifespan, and every request uses it concurrently. ``WEB_APP_API_BASE`` and
``WEB_APP_API_KEY`` point the model at an OpenAI-compatible endpoint (otherwise the provider's usual
environment variables apply).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

import mcp_litellm as ml

MODEL = os.environ.get("WEB_APP_MODEL", "gpt-4o-mini")
SERVER = os.environ.get("WEB_APP_SERVER", f"{sys.executable} -m mcp_litellm.demo_server")
LLM_SETTINGS: dict[str, Any] = {key: value for key, value in (("api_base", os.environ.get("WEB_APP_API_BASE")),
                                                              ("api_key", os.environ.get("WEB_APP_API_KEY")))
                                 if value}


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    command, *args = shlex.split(SERVER)
    config = {"mcpServers": {"demo": {"command": command, "args": args}}}
    async with ml.aestablish_connection(config) as clients:  # started once, stopped when the app stops
        app.state.clients = clients
        yield


app = FastAPI(title="mcp-litellm chat", lifespan=lifespan)


class ChatRequest(BaseModel):
    message: str


def event(name: str, data: dict[str, Any]) -> str:
    """One server-sent event."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


@app.get("/tools")
async def tools(request: Request) -> list[str]:
    """The names of the tools the model may use."""
    return [tool.name for tool in await request.app.state.clients.atools()]


@app.post("/chat")
async def chat(body: ChatRequest, request: Request) -> StreamingResponse:
    """Answer ``message``: events ``text`` (pieces of the answer), ``tool_start`` / ``tool_end``, then ``done``."""
    clients: ml.ClientGroup = request.app.state.clients
    conversation = ml.Chat(MODEL, **LLM_SETTINGS).with_tools(*await clients.atools())  # one Chat per request

    async def events() -> AsyncIterator[str]:
        try:
            async for chunk in conversation.astream(body.message):
                call, result = chunk.tool_call, chunk.tool_result
                if chunk.is_tool_start and call:
                    yield event("tool_start", {"name": call.name, "arguments": call.arguments})
                elif chunk.is_tool_end and call and result:
                    yield event("tool_end", {"name": call.name, "result": result.text})
                elif chunk.content:
                    yield event("text", {"content": chunk.content})
        except ml.MCPLiteLLMError as exc:
            yield event("error", {"message": str(exc)})
            return
        yield event("done", {})

    return StreamingResponse(events(), media_type="text/event-stream")
