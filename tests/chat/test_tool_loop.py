"""The tool loop: tool calls run against real MCP servers, answers go back to a scripted model."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest

import mcp_litellm as ml
from tests.helpers.chat import assert_history_valid, new_chat
from tests.scripted_llm.openai import Turn
from tests.scripted_llm.respx_mock import MODEL


@pytest.mark.parametrize("transport", ["stdio", "memory"])
def test_ask_runs_the_tool_and_returns_the_final_answer(llm, make_client, transport):
    client = make_client(transport)
    llm.then(Turn(tool_calls=[("call_1", "add", {"a": 2, "b": 3})]), Turn(content="The sum is 5."))
    chat = new_chat().with_tools(*client.tools())
    reply = chat.ask("What is 2 + 3?")
    assert isinstance(reply, ml.Message) and str(reply) == "The sum is 5." and reply.role == "assistant"
    assert reply.finish_reason == "stop" and reply.input_tokens == 7 and reply.output_tokens == 3
    first, second = llm.requests
    assert first["model"] == "gpt-4o-mini" and first["messages"] == [{"role": "user", "content": "What is 2 + 3?"}]
    assert {t["function"]["name"] for t in first["tools"]} == {t.name for t in client.tools()}
    add = next(t for t in first["tools"] if t["function"]["name"] == "add")
    assert add["function"]["parameters"]["required"] == ["a", "b"]
    assert llm.tool_messages(1) == [{"role": "tool", "tool_call_id": "call_1", "content": "5"}]
    assert second["messages"][1]["tool_calls"][0]["function"] == {"name": "add", "arguments": '{"a": 2, "b": 3}'}
    assert chat.messages[-1] == {"role": "assistant", "content": "The sum is 5."}
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]


async def test_aask_is_the_async_twin(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "echo", {"message": "hi"})]), Turn(content="It said hi."))
    chat = new_chat().with_tools(*(await client.atools()))
    reply = await chat.aask("echo hi")
    assert reply.content == "It said hi."
    assert llm.tool_messages(1)[0]["content"] == "hi"


def test_multi_round_loop_keeps_the_whole_history(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 2})]), Turn(tool_calls=[("c2", "add", {"a": 3, "b": 4})]),
             Turn(content="3 then 7"), Turn(content="second question answered"))
    chat = new_chat().with_tools(client.tool("add"))
    assert chat.ask("two steps").content == "3 then 7"
    assert chat.ask("and now?").content == "second question answered"
    assert len(llm.requests) == 4
    assert [m["content"] for m in llm.tool_messages(2)] == ["3", "7"]
    sent = [{k: v for k, v in m.items() if v is not None} for m in chat.messages[:-2]]  # None content is not sent
    assert llm.requests[3]["messages"][:-1] == sent
    assert_history_valid(chat.messages)


def test_parallel_tool_calls_run_concurrently(llm, make_client):
    client = make_client("stdio")
    calls = [(f"c{i}", "wait", {"seconds": 1}) for i in range(4)]
    llm.then(Turn(tool_calls=calls), Turn(content="all done"))
    chat = new_chat().with_tools(client.tool("wait"))
    started = time.perf_counter()
    chat.ask("wait four times")
    elapsed = time.perf_counter() - started
    assert elapsed < 2.5, f"4 one-second calls took {elapsed:.2f}s: they did not run concurrently"
    assert [m["tool_call_id"] for m in llm.tool_messages(1)] == ["c0", "c1", "c2", "c3"]


def test_malformed_calls_become_error_messages_the_model_can_read(llm, make_client):
    client = make_client("stdio", request_timeout=10)
    llm.then(Turn(tool_calls=[
        ("bad_json", "add", '{"a": 1, "b": '),
        ("unknown", "no_such_tool", {}),
        ("wrong_types", "add", {"a": "one", "b": [2]}),
        ("fails", "fail", {"reason": "disk full"}),
        ("not_object", "add", "[1, 2]"),
        ("fine", "add", {"a": 1, "b": 1}),
    ]), Turn(content="I see some errors."))
    chat = new_chat().with_tools(*client.tools())
    reply = chat.ask("try everything")
    assert reply.content == "I see some errors."
    answers = {m["tool_call_id"]: m["content"] for m in llm.tool_messages(1)}
    assert answers["fine"] == "2"
    assert "not valid JSON" in answers["bad_json"] and answers["bad_json"].startswith("Error")
    assert "no tool named 'no_such_tool'" in answers["unknown"] and "add" in answers["unknown"]
    assert answers["wrong_types"].startswith("Error") and "a" in answers["wrong_types"]
    assert answers["fails"].startswith("Error") and "fail" in answers["fails"]
    assert "JSON object" in answers["not_object"]
    assert_history_valid(chat.messages)


def test_timeouts_and_dead_servers_become_error_messages(llm, make_client):
    client = make_client("stdio")
    llm.then(Turn(tool_calls=[("slow", "wait", {"seconds": 5})]), Turn(tool_calls=[("crash", "crash", {})]),
             Turn(tool_calls=[("after", "add", {"a": 1, "b": 1})]), Turn(content="recovered"))
    chat = new_chat(tool_timeout=0.5).with_tools(*client.tools())
    started = time.perf_counter()
    reply = chat.ask("go")
    assert reply.content == "recovered"
    assert time.perf_counter() - started < 8
    assert "timed out" in llm.tool_messages(1)[0]["content"].lower()
    dead = llm.tool_messages(3)[-1]
    assert dead["tool_call_id"] == "after" and dead["content"].startswith("Error") and "fixture" in dead["content"]
    assert_history_valid(chat.messages)
    client.restart()
    llm.then(Turn(tool_calls=[("again", "add", {"a": 2, "b": 2})]), Turn(content="4"))
    assert chat.ask("again").content == "4" and llm.tool_messages(5)[-1]["content"] == "4"


def test_tool_timeout_bounds_local_functions_too(llm, make_client):
    client = make_client("memory")
    release = threading.Event()
    cancelled: list[str] = []

    def stuck() -> str:
        """Blocks until released (a sync function cannot be stopped)."""
        release.wait(30)
        return "finished late"

    async def slow() -> str:
        """Sleeps far longer than the timeout."""
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append("slow")
            raise
        return "finished late"

    llm.then(Turn(tool_calls=[("s", "stuck", {}), ("a", "slow", {}), ("m", "add", {"a": 1, "b": 2})]),
             Turn(content="went on"))
    chat = new_chat(tool_timeout=0.5).with_tools(stuck, slow, client.tool("add"))
    started = time.perf_counter()
    try:
        assert chat.ask("go").content == "went on"
        elapsed = time.perf_counter() - started
    finally:
        release.set()
    assert elapsed < 5, f"the chat waited {elapsed:.1f}s for tools past tool_timeout=0.5"
    answers = {m["tool_call_id"]: m["content"] for m in llm.tool_messages(1)}
    assert answers["s"].startswith("Error") and "timed out after 0.5s" in answers["s"]
    assert answers["a"].startswith("Error") and "timed out after 0.5s" in answers["a"]
    assert answers["m"] == "3" and cancelled == ["slow"]
    assert_history_valid(chat.messages)


def test_tool_loop_limit_stops_with_a_clear_error_and_a_valid_history(llm, make_client):
    client = make_client("memory")
    llm.then(*[Turn(tool_calls=[(f"c{i}", "add", {"a": i, "b": 0})]) for i in range(3)])
    chat = new_chat(max_tool_rounds=2).with_tools(client.tool("add"))
    with pytest.raises(ml.ToolLoopLimitError, match="max_tool_rounds=2") as caught:
        chat.ask("loop forever")
    assert caught.value.rounds == 2 and caught.value.message.tool_calls[0].id == "c2"
    assert len(llm.requests) == 3
    assert chat.messages[-1]["role"] == "tool" and "max_tool_rounds" in chat.messages[-1]["content"]
    assert_history_valid(chat.messages)
    llm.then(Turn(content="fine"))
    assert chat.ask("stop now").content == "fine"
    assert_history_valid(llm.requests[-1]["messages"])


def test_fifty_calls_in_one_turn_all_answered(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[(f"c{i}", "add", {"a": i, "b": i}) for i in range(50)]), Turn(content="ok"))
    chat = new_chat().with_tools(client.tool("add"))
    chat.ask("many")
    assert [m["content"] for m in llm.tool_messages(1)] == [str(2 * i) for i in range(50)]
    assert_history_valid(chat.messages)


def test_denied_call_tells_the_model_it_was_denied(llm, make_client):
    client = make_client("memory")
    client.on_human_in_the_loop(lambda tool, arguments: arguments.get("a") != 13)
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 13, "b": 1}), ("c2", "add", {"a": 1, "b": 1})]), Turn(content="ok"))
    new_chat().with_tools(client.tool("add")).ask("add")
    answers = {m["tool_call_id"]: m["content"] for m in llm.tool_messages(1)}
    assert answers["c1"] == "Tool call was denied: denied by the user" and answers["c2"] == "2"
    client.on_human_in_the_loop(lambda tool, arguments: "not that one")  # a reason the handler gives is kept
    llm.then(Turn(tool_calls=[("c3", "add", {"a": 1, "b": 1})]), Turn(content="ok"))
    new_chat().with_tools(client.tool("add")).ask("add")
    assert llm.tool_messages(3)[0]["content"] == "Tool call was denied: not that one"


def test_hooks_see_calls_results_and_messages(llm, make_client):
    client = make_client("memory")
    seen: list[tuple[str, object]] = []

    async def on_result(call, result):
        seen.append(("result", (call.id, result.text, result.is_error)))

    llm.then(Turn(content="thinking", tool_calls=[("c1", "add", {"a": 2, "b": 2})]), Turn(content="4"))
    chat = (new_chat().with_tools(client.tool("add"))
            .on_tool_call(lambda call: seen.append(("call", (call.id, call.name, call.args))))
            .on_tool_result(on_result)
            .on_tool_result(lambda result: seen.append(("result1", result.text)))
            .on_new_message(lambda message: seen.append(("message", message.content))))
    chat.ask("2+2")
    assert seen == [("message", "thinking"), ("call", ("c1", "add", {"a": 2, "b": 2})),
                    ("result", ("c1", "4", False)), ("result1", "4"), ("message", "4")]


def test_a_failing_hook_does_not_break_the_chat(llm, make_client, caplog):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 2, "b": 2})]), Turn(content="4"))
    chat = new_chat().with_tools(client.tool("add")).on_tool_call(lambda call: 1 / 0)
    assert chat.ask("2+2").content == "4"
    assert "ZeroDivisionError" in caplog.text


def test_local_functions_mix_with_mcp_tools(llm, make_client):
    client = make_client("memory")

    def multiply(x: int, y: int = 2) -> int:
        """Multiply two numbers.

        More words that the model does not need."""
        return x * y

    async def shout(text: str) -> str:
        return text.upper()

    parameters = {"type": "object", "properties": {"key": {"type": "string"}}}
    lookup = ({"type": "function", "function": {"name": "lookup", "description": "Look a key up.",
                                                "parameters": parameters}},
              lambda key: {"key": key, "value": 42})
    llm.then(Turn(tool_calls=[("m", "multiply", {"x": 21}), ("s", "shout", {"text": "hi"}),
                              ("l", "lookup", {"key": "k"}), ("a", "add", {"a": 1, "b": 2}),
                              ("bad", "multiply", {"z": 1})]), Turn(content="ok"))
    chat = new_chat().with_tools(client.tool("add"), multiply, shout, lookup)
    chat.ask("mix")
    definitions = {t["function"]["name"]: t["function"] for t in llm.requests[0]["tools"]}
    assert definitions["multiply"]["description"] == "Multiply two numbers."
    assert definitions["multiply"]["parameters"]["properties"] == {"x": {"type": "integer"},
                                                                   "y": {"default": 2, "type": "integer"}}
    assert definitions["multiply"]["parameters"]["required"] == ["x"]
    answers = {m["tool_call_id"]: m["content"] for m in llm.tool_messages(1)}
    assert answers["m"] == "42" and answers["s"] == "HI" and json.loads(answers["l"]) == {"key": "k", "value": 42}
    assert answers["a"] == "3" and answers["bad"].startswith("Error") and "z" in answers["bad"]


def test_with_tools_rejects_clashing_names_and_bad_tools(make_client):
    one, two = make_client("memory", name="one"), make_client("memory", name="two")
    chat = new_chat().with_tools(one.tool("add"))
    chat.with_tools(one.tool("add"))  # the same tool again is fine
    with pytest.raises(ml.ConfigError, match="with_prefix=True"):
        chat.with_tools(two.tool("add"))
    with pytest.raises(ml.ConfigError, match="no Python function"):
        chat.with_tools({"type": "function", "function": {"name": "x"}})
    with pytest.raises(ml.ConfigError, match="not valid"):
        chat.with_tools(({"type": "function", "function": {"name": "has space"}}, print))
    with pytest.raises(ml.ConfigError):
        chat.with_tools(42)
    prefixed = make_client("memory", name="two", with_prefix=True)
    assert "two__add" in [t["function"]["name"] for t in chat.with_tools(prefixed.tool("add"))._tools.definitions(None)]
    assert [t.name for t in chat.with_tools(one.tool("echo"), replace=True).tools] == ["echo"]


def test_chat_rejects_bad_settings():
    with pytest.raises(ml.ConfigError, match="model"):
        ml.Chat("")
    with pytest.raises(ml.ConfigError, match="max_tool_rounds"):
        ml.Chat(MODEL, max_tool_rounds=-1)
    with pytest.raises(ml.ConfigError, match="messages"):
        ml.Chat(MODEL, messages=[])
    with pytest.raises(ml.ConfigError, match="nothing to answer"):
        ml.Chat(MODEL).ask()


def test_model_failure_raises_and_leaves_no_dangling_question(llm):
    llm.then(Turn(status=401))
    chat = new_chat().with_instructions("Be brief.")
    with pytest.raises(Exception, match=r"401|scripted failure|Authentication"):
        chat.ask("hello")
    assert chat.messages == [{"role": "system", "content": "Be brief."}]
    llm.then(Turn(content="hi"))
    assert chat.ask("hello").content == "hi"
    assert llm.requests[-1]["messages"] == [{"role": "system", "content": "Be brief."},
                                            {"role": "user", "content": "hello"}]


def test_sync_ask_works_inside_a_running_event_loop(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 1})]), Turn(content="2"))
    chat = new_chat().with_tools(client.tool("add"))

    async def notebook_cell() -> str:
        return chat.ask("1+1").content  # a blocking call while this loop runs, as in Jupyter

    assert asyncio.run(notebook_cell()) == "2"


def test_router_alias_and_provider_rules(llm, make_client):
    import litellm

    client = make_client("memory")
    router = litellm.Router(model_list=[{"model_name": "smart", "litellm_params": {"model": MODEL,
                                         "api_base": "http://llm.test/v1", "api_key": "sk-router"}}])
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 20, "b": 22})]), Turn(content="42"))
    chat = ml.Chat("smart", router=router).with_tools(client.tool("add"))
    assert chat.ask("via the router").content == "42"
    assert llm.requests[0]["model"] == "gpt-4o-mini" and llm.tool_messages(1)[0]["content"] == "42"
    assert chat._provider_model() == MODEL


def test_off_hooks_undo_their_registrations(llm, make_client):
    client = make_client("memory")
    seen: list[str] = []

    def on_call(call):
        seen.append("call")

    def on_result(result):
        seen.append("result")

    def on_message(message):
        seen.append("message")

    llm.then(Turn(tool_calls=[("c1", "add", {"a": 2, "b": 2})]), Turn(content="4"))
    chat = new_chat().with_tools(client.tool("add")).on_tool_call(on_call).on_tool_result(on_result)
    chat.on_new_message(on_message).on_new_message(lambda: seen.append("kept"))
    assert chat.off_tool_call(on_call) is chat
    assert chat.off_tool_result(on_result).off_new_message(on_message).off_new_message(on_message) is chat
    assert chat.ask("2+2").content == "4"
    assert seen == ["kept", "kept"]


async def test_atool_definitions_lists_a_live_client_now_where_tool_definitions_cannot(make_client):
    client = make_client("memory")
    chat = new_chat().with_tools(client)
    assert chat.tool_definitions() == []  # inside a running loop: the tools as of the last request (none yet)
    names = [d["function"]["name"] for d in await chat.atool_definitions()]
    assert "add" in names and names == [t.name for t in sorted(await client.atools(), key=lambda t: t.name)]
    assert [d["function"]["name"] for d in chat.tool_definitions()] == names  # and now they are known
