"""MCP Apps in a chat: app-only tools never reach the model (tool definitions, tool search, code mode), the
``app`` chunk right after ``tool_end``, ``Chat.app_views`` (the model scripted at the HTTP level)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.apps_server import COUNTER_URI
from tests.helpers.chat import new_chat
from tests.scripted_llm.openai import Turn
from tests.scripted_llm.respx_mock import ScriptedLLM


def _offered(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def test_app_only_tool_absent_from_every_model_request(apps_client: Callable[..., ml.Client],
                                                      llm: ScriptedLLM) -> None:
    client = apps_client("stdio")
    chat = new_chat(tool_search=False).with_tools(client)
    llm.then(Turn(tool_calls=[("c1", "increment", {"value": 1})]), Turn(content="done"))
    chat.ask("count")
    assert len(llm.requests) == 2
    for body in llm.requests:
        assert "show_counter" in _offered(body)
        assert "increment" not in _offered(body)
        assert "increment" not in json.dumps({k: v for k, v in body.items() if k != "messages"})
    assert "increment" not in [tool.name for tool in chat.tools]
    answer = llm.tool_messages(1)[0]["content"]
    assert "no tool named 'increment'" in answer  # the model cannot call it either
    assert chat.app_views == {}


def test_app_only_tool_absent_from_tool_search(apps_client: Callable[..., ml.Client], llm: ScriptedLLM) -> None:
    chat = new_chat(tool_search=True).with_tools(apps_client("stdio"))
    llm.then(Turn(tool_calls=[("c1", "mcp_litellm_search_tools", {"query": "increment the counter"})]),
             Turn(content="done"))
    chat.ask("count")
    found = llm.tool_messages(1)[0]["content"]
    assert "show_counter" in found and "increment" not in found.replace("Add one", "")
    for body in llm.requests:
        assert "increment" not in _offered(body)


def test_app_only_tool_absent_from_code_mode_stubs(apps_client: Callable[..., ml.Client], llm: ScriptedLLM) -> None:
    pytest.importorskip("pydantic_monty", reason="code mode needs mcp-litellm[code]")
    chat = new_chat(code_mode=True).with_tools(apps_client("stdio"))
    llm.then(Turn(content="done"))
    chat.ask("count")
    text = json.dumps(llm.requests[0]["tools"])
    assert "show_counter" in text and "increment" not in text


def _turns(llm: ScriptedLLM) -> None:
    llm.then(Turn(tool_calls=[("c1", "show_counter", {"start": 3}), ("c2", "apps_supported", {})]),
             Turn(content="Here is your counter."))


def _check_app_chunks(chunks: list[ml.Chunk]) -> None:
    events = [(chunk.event, chunk.tool_call.id if chunk.tool_call else chunk.app.tool_call_id if chunk.app else None)
              for chunk in chunks if chunk.event in ("tool_end", "app")]
    apps = [chunk for chunk in chunks if chunk.is_app]
    assert len(apps) == 1
    assert events.index(("app", "c1")) == events.index(("tool_end", "c1")) + 1
    view = apps[0].app
    assert view is not None
    assert (view.tool_call_id, view.server, view.tool, view.resource_uri) == ("c1", "apps", "show_counter", COUNTER_URI)
    assert view.input == {"start": 3}
    shown = view.to_dict()
    json.dumps(shown)
    assert shown["result"]["content"][0] == {"type": "text", "text": '{"count": 3}'}
    assert shown["toolCallId"] == "c1" and shown["resourceUri"] == COUNTER_URI
    ends = {chunk.tool_call.id: chunk.tool_result for chunk in chunks if chunk.is_tool_end and chunk.tool_call}
    assert ends["c1"] is not None and ends["c1"].ui is not None  # the result carries the interface's reference
    assert ends["c1"].ui.resource_uri == COUNTER_URI and view.result is ends["c1"]
    assert ends["c2"] is not None and ends["c2"].ui is None  # a tool without an interface: none


def test_stream_emits_one_app_chunk_after_tool_end(apps_client: Callable[..., ml.Client], llm: ScriptedLLM) -> None:
    chat = new_chat(tool_search=False).with_tools(apps_client("stdio"))
    _turns(llm)
    chunks = list(chat.stream("show a counter"))
    _check_app_chunks(chunks)
    assert set(chat.app_views) == {"c1"}
    assert all("app" not in message for message in llm.requests[1]["messages"])  # never sent to the provider


async def test_astream_emits_one_app_chunk_after_tool_end(apps_client: Callable[..., ml.Client], apps_http: str,
                                                          llm: ScriptedLLM) -> None:
    client = apps_client("streamable")
    async with client:
        chat = new_chat(tool_search=False).with_tools(client)
        _turns(llm)
        chunks = [chunk async for chunk in chat.astream("show a counter")]
    _check_app_chunks(chunks)


def test_a_client_without_apps_shows_no_app(apps_client: Callable[..., ml.Client], llm: ScriptedLLM) -> None:
    chat = new_chat(tool_search=False).with_tools(apps_client("stdio", apps=False))
    _turns(llm)
    chunks = list(chat.stream("show a counter"))
    assert not [chunk for chunk in chunks if chunk.is_app] and chat.app_views == {}
    ends = [chunk.tool_result for chunk in chunks if chunk.is_tool_end]
    assert ends and all(result is not None and result.ui is None for result in ends)
    assert ends[1] is not None and ends[1].text == "no"  # apps_supported: the server saw no extension


def test_ask_keeps_the_view(apps_client: Callable[..., ml.Client], llm: ScriptedLLM) -> None:
    chat = new_chat(tool_search=False).with_tools(apps_client("stdio"))
    _turns(llm)
    chat.ask("show a counter")
    view = chat.app_views["c1"]
    assert view.result is not None and '"count": 3' in str(view.result)
