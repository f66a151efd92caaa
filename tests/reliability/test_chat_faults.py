"""The chat when servers die mid-call or the model misbehaves, with real servers and a scripted model.

Each failure must reach the model as an error tool message (never an exception out of ``ask``), the
chat must return normally, and the history must stay valid: every tool call answered exactly once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.chat import LLM, assert_history_valid, new_chat
from tests.helpers.processes import wait_dead
from tests.helpers.servers import FIXTURE_SERVER, free_port, start_http_server, stop_process
from tests.scripted_llm.openai import Turn
from tests.scripted_llm.respx_mock import MODEL, ScriptedLLM


def kill_on_first_call(name: str, kill: Any, delay: float = 0.3) -> tuple[Any, dict[str, float]]:
    """A tool-call hook that, once ``name`` is about to run, calls ``kill()`` after ``delay`` seconds."""
    state: dict[str, float] = {}

    def hook(call: ml.ToolCall) -> None:
        if call.name == name and "armed" not in state:
            state["armed"] = time.monotonic()

            def fire() -> None:
                state["killed"] = time.monotonic()
                kill()

            threading.Timer(delay, fire).start()

    return hook, state


def answers(llm: ScriptedLLM, request: int) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in llm.tool_messages(request)}


async def collect(chunks: Any) -> list[ml.Chunk]:
    return [chunk async for chunk in chunks]


def test_stdio_server_killed_while_the_chat_runs_a_tool(llm, make_client):
    client = make_client("stdio", request_timeout=30)
    pid = int(client.execute_tool("pid").text)
    hook, state = kill_on_first_call("wait", lambda: os.kill(pid, signal.SIGKILL))
    llm.then(Turn(tool_calls=[("slow1", "wait", {"seconds": 20}), ("slow2", "wait", {"seconds": 20})]),
             Turn(content="The server went away."))
    chat = new_chat().with_tools(*client.tools()).on_tool_call(hook)
    reply = chat.ask("wait twice")
    returned = time.monotonic()
    assert reply.content == "The server went away."
    assert "killed" in state and returned - state["killed"] < 1.5, "the dead server's calls were not failed promptly"
    sent = answers(llm, 1)
    assert set(sent) == {"slow1", "slow2"}
    for text in sent.values():
        assert text.startswith("Error") and "fixture" in text, text
    assert_history_valid(chat.messages)
    assert_history_valid(llm.requests[1]["messages"])
    assert wait_dead(pid), "the killed server is still in the process table"

    client.restart()  # the same chat carries on with the restarted server
    llm.then(Turn(tool_calls=[("again", "add", {"a": 2, "b": 3})]), Turn(content="5"))
    assert chat.ask("and now?").content == "5"
    assert llm.tool_messages(3)[-1] == {"role": "tool", "tool_call_id": "again", "content": "5"}
    assert_history_valid(chat.messages)


@pytest.mark.parametrize("list_ttl_ms", [0, 600_000], ids=["lists not cached", "lists cached"])
def test_a_live_client_whose_server_died_keeps_its_tools_offered_and_answers_errors(llm, caplog, request,
                                                                                   list_ttl_ms):
    """``with_tools(client)``: the server dies during a call; the next rounds and the next ask still reach the
    model, with the tools it last listed, and calls to them are answered as errors (one warning, not one a round)."""
    config = {"command": sys.executable, "args": [str(FIXTURE_SERVER)],
              "env": {"FIXTURE_LIST_TTL_MS": str(list_ttl_ms)}}
    client = ml.client("fixture", "stdio", config, request_timeout=30)
    request.addfinalizer(client.stop)
    pid = int(client.execute_tool("pid").text)
    offered = {tool.name for tool in client.tools()}
    hook, state = kill_on_first_call("wait", lambda: os.kill(pid, signal.SIGKILL))
    llm.then(Turn(tool_calls=[("slow", "wait", {"seconds": 20})]),
             Turn(tool_calls=[("after", "add", {"a": 1, "b": 2})]),
             Turn(content="The server is gone."))
    chat = new_chat().with_tools(client).on_tool_call(hook)
    with caplog.at_level("WARNING", logger="mcp_litellm"):
        assert chat.ask("wait, then add").content == "The server is gone."
        assert "killed" in state
        for request in llm.requests[1:]:
            assert {tool["function"]["name"] for tool in request["tools"]} == offered, "the last tools stay offered"
        for answer in (answers(llm, 1)["slow"], answers(llm, 2)["after"]):
            assert answer.startswith("Error") and "fixture" in answer, answer
        llm.then(Turn(content="Still here."))
        assert chat.ask("anything?").content == "Still here."
    assert {tool["function"]["name"] for tool in llm.requests[-1]["tools"]} == offered
    assert_history_valid(chat.messages)
    dead = [r for r in caplog.records if "last listed" in r.getMessage()]
    # listed every round, the dead server is found at once and said once; a cached listing is not asked again
    assert len(dead) == (1 if list_ttl_ms == 0 else 0), [r.getMessage() for r in caplog.records]

    client.restart()  # back: the chat lists the server again and says so
    llm.then(Turn(tool_calls=[("again", "add", {"a": 2, "b": 3})]), Turn(content="5"))
    assert chat.ask("and now?").content == "5"
    assert llm.tool_messages(len(llm.requests) - 1)[-1]["content"] == "5"


def test_a_live_streamable_http_client_whose_server_died_keeps_its_tools_offered(llm, caplog):
    """The same over streamable HTTP, lists not cached: the server process is killed before the ask."""
    port = free_port()
    process = start_http_server([sys.executable, str(FIXTURE_SERVER), "streamable-http", "--port", str(port)], port,
                                env={"FIXTURE_LIST_TTL_MS": "0"})
    try:
        with ml.client("http-fixture", "streamable", {"url": f"http://127.0.0.1:{port}/mcp"},
                       request_timeout=10) as client:
            offered = {tool.name for tool in client.tools()}
            stop_process(process)
            llm.then(Turn(tool_calls=[("gone", "add", {"a": 1, "b": 2})]), Turn(content="It is gone."))
            chat = new_chat().with_tools(client)
            with caplog.at_level("WARNING", logger="mcp_litellm"):
                assert chat.ask("add").content == "It is gone."
            for request in llm.requests:
                assert {tool["function"]["name"] for tool in request["tools"]} == offered
            answer = answers(llm, 1)["gone"]
            assert answer.startswith("Error") and "http-fixture" in answer, answer
            assert_history_valid(chat.messages)
            assert len([r for r in caplog.records if "last listed" in r.getMessage()]) == 1
    finally:
        stop_process(process)


def test_code_mode_over_a_live_client_whose_server_died_answers_the_program_an_error(llm, request):
    """Code mode meets a dead live server: the program is still offered the server's functions, and its call to
    one fails back into the program's output (to the model), not into the ask."""
    config = {"command": sys.executable, "args": [str(FIXTURE_SERVER)], "env": {"FIXTURE_LIST_TTL_MS": "0"}}
    client = ml.client("fixture", "stdio", config, request_timeout=30)
    request.addfinalizer(client.stop)
    pid = int(client.execute_tool("pid").text)
    client.tools()
    os.kill(pid, signal.SIGKILL)
    assert wait_dead(pid)
    llm.then(Turn(tool_calls=[("c1", "run_code", {"code": "print(await add(a=1, b=2))"})]),
             Turn(content="The server is gone."))
    chat = new_chat(code_mode=True).with_tools(client)
    assert chat.ask("add in code").content == "The server is gone."
    [tool] = llm.requests[0]["tools"]
    assert "async def add(a: int, b: int) -> int" in tool["function"]["description"]
    output = answers(llm, 1)["c1"]
    assert "fixture" in output and ("Error" in output or "error" in output), output
    assert_history_valid(chat.messages)


def test_a_live_group_with_one_server_dead_goes_on_with_the_other(llm):
    """A default (strict) group given live, one server's lists not cacheable: once that server dies, every ask
    still reaches the model, its calls answer errors and the other server's calls work."""
    def entry(ttl: int) -> dict[str, object]:
        return {"command": sys.executable, "args": [str(FIXTURE_SERVER)], "env": {"FIXTURE_LIST_TTL_MS": str(ttl)}}

    with ml.establish_connection({"mcpServers": {"one": entry(0), "two": entry(600_000)}}) as group:
        offered = {tool.name for tool in group.tools()}
        pid = int(group.tool("one__pid").execute().text)
        chat = new_chat().with_tools(group)
        os.kill(pid, signal.SIGKILL)
        assert wait_dead(pid)
        llm.then(Turn(tool_calls=[("dead", "one__add", {"a": 1, "b": 2}), ("alive", "two__add", {"a": 2, "b": 2})]),
                 Turn(content="One of two."))
        assert chat.ask("add on both").content == "One of two."
        assert {tool["function"]["name"] for tool in llm.requests[0]["tools"]} == offered
        sent = answers(llm, 1)
        assert sent["alive"] == "4"
        assert sent["dead"].startswith("Error") and "one" in sent["dead"], sent["dead"]
        assert_history_valid(chat.messages)
        assert group.execute_tool("two__add", {"a": 3, "b": 4}).text == "7", "a direct call needs only its server"


async def test_http_server_killed_while_the_chat_streams_a_tool_call(llm):
    port = free_port()
    process = start_http_server([sys.executable, str(FIXTURE_SERVER), "streamable-http", "--port", str(port)], port)
    client = ml.client("http-fixture", "streamable", {"url": f"http://127.0.0.1:{port}/mcp"}, start=False,
                       request_timeout=30)
    try:
        await client.astart()
        hook, state = kill_on_first_call("wait", process.kill)
        llm.then(Turn(tool_calls=[("slow", "wait", {"seconds": 20})]), Turn(content="It is gone."))
        chat = ml.Chat(MODEL, **LLM).with_tools(*(await client.atools())).on_tool_call(hook)
        chunks = await collect(chat.astream("wait"))
        done = time.monotonic()
        ends = [c for c in chunks if c.is_tool_end]
        assert len(ends) == 1 and ends[0].tool_call is not None and ends[0].tool_call.id == "slow"
        assert ends[0].tool_result is not None and ends[0].tool_result.is_error
        assert "http-fixture" in ends[0].tool_result.text
        assert "".join(c.content for c in chunks) == "It is gone."
        assert done - state["killed"] < 1.5
        assert answers(llm, 1)["slow"].startswith("Error")
        assert_history_valid(chat.messages)
    finally:
        await client.astop()
        stop_process(process)


async def test_streamed_bad_calls_against_a_stdio_server_are_answered_as_errors(llm, make_client):
    client = make_client("stdio", start=False, request_timeout=10)
    await client.astart()
    llm.then(Turn(tool_calls=[
        ("not_json", "add", '{"a": 1, "b": 2'),           # cut off mid-object (as with finish_reason=length)
        ("not_object", "echo", '"just a string"'),
        ("unknown", "delete_everything", {"really": True}),
        ("wrong_types", "add", {"a": "one", "b": {"two": 2}}),
        ("missing", "add", {"a": 1}),
        ("extra", "echo", {"message": "hi", "volume": 11}),
        ("fine", "add", {"a": 20, "b": 22}),
    ]), Turn(content="Some of those failed."))
    chat = ml.Chat(MODEL, **LLM).with_tools(*(await client.atools()))
    chunks = await collect(chat.astream("try these"))
    results = {c.tool_call.id: c.tool_result for c in chunks if c.is_tool_end and c.tool_call and c.tool_result}
    assert len(results) == 7
    sent = answers(llm, 1)
    assert sent["fine"] == "42" and not results["fine"].is_error
    for call_id in ("not_json", "not_object", "unknown", "wrong_types", "missing"):
        assert results[call_id].is_error and sent[call_id].startswith("Error"), (call_id, sent[call_id])
    assert "JSON" in sent["not_json"] and "JSON object" in sent["not_object"]
    assert "delete_everything" in sent["unknown"] and "add" in sent["unknown"]  # lists the real tools
    assert "int_parsing" in sent["wrong_types"] and "missing" in sent["missing"]  # the server's own validation
    assert sent["extra"] == "hi"  # MCPServer ignores arguments its tool does not declare
    assert "".join(c.content for c in chunks) == "Some of those failed."
    assert_history_valid(chat.messages)
    assert client.is_alive(), "bad calls must not break the connection"
    assert (await client.aexecute_tool("add", {"a": 1, "b": 1})).text == "2"


@pytest.mark.thirdparty
def test_bad_calls_against_server_everything_are_answered_as_errors(llm, everything_js):
    client = ml.client("everything", "stdio", {"command": "node", "args": [str(everything_js), "stdio"]},
                       request_timeout=10)
    try:
        llm.then(Turn(tool_calls=[
            ("wrong_types", "get-sum", {"a": "one", "b": [2]}),
            ("not_json", "echo", "{message: hi}"),
            ("unknown", "get_sum", {"a": 1, "b": 2}),
            ("fine", "get-sum", {"a": 2, "b": 3}),
        ]), Turn(content="done"))
        chat = new_chat().with_tools(*client.tools())
        assert chat.ask("sum things").content == "done"
        sent = answers(llm, 1)
        assert "5" in sent["fine"] and not sent["fine"].startswith("Error")
        for call_id in ("wrong_types", "not_json", "unknown"):
            assert sent[call_id].startswith("Error"), (call_id, sent[call_id])
        assert "get-sum" in sent["unknown"] and "expected number" in sent["wrong_types"]
        assert_history_valid(chat.messages)
        assert client.execute_tool("echo", {"message": "still here"}).text.endswith("still here")
    finally:
        client.stop()


async def test_fifty_streamed_calls_in_one_turn_on_a_stdio_server(llm, make_client):
    client = make_client("stdio", start=False, request_timeout=30)
    await client.astart()
    calls = [(f"call_{i}", "echo", {"message": f"message {i}"}) for i in range(50)]
    llm.then(Turn(tool_calls=calls), Turn(content="All fifty echoed."))
    chat = ml.Chat(MODEL, **LLM).with_tools(await client.atool("echo"))
    chunks = await collect(chat.astream("echo fifty times"))
    starts = [c.tool_call.id for c in chunks if c.is_tool_start and c.tool_call]
    ends = {c.tool_call.id: c.tool_result for c in chunks if c.is_tool_end and c.tool_call and c.tool_result}
    assert sorted(starts) == sorted(call_id for call_id, _, _ in calls)
    expected = {f"call_{i}": f"message {i}" for i in range(50)}
    assert {call_id: result.text for call_id, result in ends.items()} == expected
    # the tool messages go back in the order of the calls, each answered once
    assert [(m["tool_call_id"], m["content"]) for m in llm.tool_messages(1)] == [
        (f"call_{i}", f"message {i}") for i in range(50)]
    assert "".join(c.content for c in chunks) == "All fifty echoed."
    assert_history_valid(chat.messages)


async def test_a_model_that_never_stops_calling_tools_is_stopped_on_a_stdio_server(llm, make_client):
    client = make_client("stdio", start=False, request_timeout=10)
    await client.astart()
    # the same call id every round, as some providers send: each round must still be answered on its own
    llm.then(*[Turn(tool_calls=[("call_0", "add", {"a": i, "b": 1})]) for i in range(4)])
    chat = ml.Chat(MODEL, **LLM, max_tool_rounds=3).with_tools(await client.atool("add"))
    seen: list[ml.Chunk] = []
    with pytest.raises(ml.ToolLoopLimitError, match="max_tool_rounds=3") as caught:
        async for chunk in chat.astream("count up"):
            seen.append(chunk)
    assert caught.value.rounds == 3 and len(llm.requests) == 4
    assert [c.tool_result.text for c in seen if c.is_tool_end and c.tool_result] == ["1", "2", "3"]
    assert [m["role"] for m in chat.messages] == ["user"] + ["assistant", "tool"] * 4
    assert "max_tool_rounds" in chat.messages[-1]["content"]
    assert_history_valid(chat.messages)
    llm.then(Turn(content="Stopped."))
    assert (await chat.aask("enough")).content == "Stopped."
    assert_history_valid(llm.requests[-1]["messages"])


async def test_a_tool_that_hangs_is_cut_off_by_the_tool_timeout_and_the_turn_goes_on(llm, make_client):
    client = make_client("stdio", start=False, request_timeout=30)
    await client.astart()
    llm.then(Turn(tool_calls=[("hang", "wait", {"seconds": 30}), ("quick", "add", {"a": 1, "b": 2})]),
             Turn(content="One timed out."))
    chat = ml.Chat(MODEL, **LLM, tool_timeout=0.5).with_tools(*(await client.atools()))
    reply = await asyncio.wait_for(chat.aask("go"), 10)
    assert reply.content == "One timed out."
    sent = answers(llm, 1)
    assert sent["quick"] == "3" and sent["hang"].startswith("Error") and "timed out" in sent["hang"].lower()
    assert_history_valid(chat.messages)
    # the server was told to cancel: the abandoned call did not run to its end
    deadline = time.monotonic() + 5
    while "wait cancelled" not in (events := (await client.aexecute_tool("server_events")).text):
        assert time.monotonic() < deadline, f"the server never saw the cancellation: {events!r}"
        await asyncio.sleep(0.1)
    assert "wait finished" not in events
