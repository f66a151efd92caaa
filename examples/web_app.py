"""A chat backend: one MCP server shared by every request, answers streamed as server-sent events.

    pip install mcp-litellm fastapi uvicorn
    WEB_APP_MODEL=gpt-4o-mini uvicorn examples.web_app:app
    curl -N localhost:8000/chat -H 'content-type: application/json' -d '{"message": "What is 1234 + 4321?"}'

The MCP server (the demo server in the package, or the stdio command in ``WEB_APP_SERVER``) starts
once, in the app's lifespan, and every request uses it concurrently. ``WEB_APP_API_BASE`` and
``WEB_APP_API_KEY`` point the model at an OpenAI-compatible endpoint (otherwise the provider's usual
environment variables apply).

Open http://localhost:8000/ for a small chat page (examples/web_app.html). It renders MCP Apps: when a
tool with an interface runs, the stream carries an ``app`` event, the page fetches the app's HTML
(``POST /apps/ui``, the server's ``ui://`` resource) and shows it in a sandboxed iframe where the tool
ran, with examples/mcp_apps_host.js; what the app asks of the server (``tools/call``, ``resources/read``)
comes back to ``POST /apps/rpc``, answered by ``ml.AppBridge``.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, StreamingResponse
from pydantic import BaseModel

import mcp_litellm as ml

HERE = Path(__file__).resolve().parent
MODEL = os.environ.get("WEB_APP_MODEL", "gpt-4o-mini")
SERVER = os.environ.get("WEB_APP_SERVER", f"{sys.executable} -m mcp_litellm.demo_server")
LLM_SETTINGS: dict[str, Any] = {key: value for key, value in (("api_base", os.environ.get("WEB_APP_API_BASE")),
                                                              ("api_key", os.environ.get("WEB_APP_API_KEY")))
                                 if value}


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    command, *args = shlex.split(SERVER)
    # "apps": the client tells the server it can show MCP Apps (tools with an interface)
    config = {"mcpServers": {"demo": {"command": command, "args": args, "apps": True}}}
    async with ml.aestablish_connection(config) as clients:  # started once, stopped when the app stops
        app.state.clients = clients
        app.state.bridge = ml.AppBridge(clients)  # answers the apps' requests (POST /apps/rpc)
        yield


app = FastAPI(title="mcp-litellm chat", lifespan=lifespan)


class ChatRequest(BaseModel):
    message: str


class AppRequest(BaseModel):
    app: dict[str, Any]  # the app event's data (AppView.to_dict()), as the page got it
    request: dict[str, Any] = {}  # one JSON-RPC request from the app


def event(name: str, data: dict[str, Any]) -> str:
    """One server-sent event."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


@app.get("/")
async def page() -> FileResponse:
    """The chat page, which renders MCP Apps."""
    return FileResponse(HERE / "web_app.html")


@app.get("/mcp_apps_host.js")
async def host_script() -> FileResponse:
    """The browser half of the MCP Apps host."""
    return FileResponse(HERE / "mcp_apps_host.js", media_type="text/javascript")


@app.get("/tools")
async def tools(request: Request) -> list[str]:
    """The names of the tools the model may use (not those an app alone may call)."""
    return [tool.name for tool in await request.app.state.clients.atools() if tool.ui is None or tool.ui.model_visible]


@app.post("/chat")
async def chat(body: ChatRequest, request: Request) -> StreamingResponse:
    """Answer ``message``: events ``text`` (pieces of the answer), ``tool_start`` (with the call's id) /
    ``tool_end``, ``app`` (a tool with an interface ran: render it), then ``done``."""
    clients: ml.ClientGroup = request.app.state.clients
    conversation = ml.Chat(MODEL, **LLM_SETTINGS).with_tools(*await clients.atools())  # one Chat per request

    async def events() -> AsyncIterator[str]:
        try:
            async for chunk in conversation.astream(body.message):
                call, result = chunk.tool_call, chunk.tool_result
                if chunk.is_tool_start and call:
                    yield event("tool_start", {"id": call.id, "name": call.name, "arguments": call.arguments})
                elif chunk.is_tool_end and call and result:
                    yield event("tool_end", {"name": call.name, "result": result.text})
                elif chunk.is_app and chunk.app:
                    yield event("app", chunk.app.to_dict())
                elif chunk.content:
                    yield event("text", {"content": chunk.content})
        except ml.MCPLiteLLMError as exc:
            yield event("error", {"message": str(exc)})
            return
        yield event("done", {})

    return StreamingResponse(events(), media_type="text/event-stream")


@app.post("/apps/ui")
async def app_ui(body: AppRequest, request: Request) -> dict[str, Any]:
    """The interface of an app event's tool: its HTML and what the iframe needs (CSP, permissions, border)."""
    clients: ml.ClientGroup = request.app.state.clients
    server, tool = str(body.app.get("server", "")), str(body.app.get("tool", ""))
    if server not in clients.names:
        raise HTTPException(404, f"no server {server!r}")
    try:
        resource = await clients[server].aread_ui(tool)  # the server's own tool name (AppView.tool)
    except ml.MCPLiteLLMError as exc:
        raise HTTPException(404, str(exc)) from exc
    return resource.to_dict()


@app.post("/apps/rpc")
async def app_rpc(body: AppRequest, request: Request) -> dict[str, Any]:
    """One JSON-RPC request of an app, forwarded by the page: answered by ``ml.AppBridge`` (``tools/call`` of its
    own server's tools the app may call, ``resources/read``, ``ping``; anything else is a JSON-RPC error)."""
    bridge: ml.AppBridge = request.app.state.bridge
    return await bridge.ahandle(body.app, body.request)
