"""Code mode: the model's program runs in the pydantic-monty sandbox, its tool calls against real MCP servers,
the model scripted at the HTTP level."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.chat import assert_history_valid, new_chat
from tests.scripted_llm.openai import Turn
from tests.scripted_llm.respx_mock import MODEL
from tests.servers.notes_server import notes_server

TEN_ADDS = "x = 0\nfor i in range(1, 11):\n    x = await add(a=x, b=i)\nprint('total', x)\nx * 2"


def run_code(call_id: str, code: str) -> tuple[str, str, dict[str, str]]:
    return (call_id, "run_code", {"code": code})


def test_ten_dependent_calls_take_one_model_round(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[run_code("c1", TEN_ADDS)]), Turn(content="The total is 55."))
    chat = new_chat(code_mode=True).with_tools(*client.tools())
    seen: list[str] = []
    results: list[str] = []
    chat.on_tool_call(lambda call: seen.append(call.name))
    chat.on_tool_result(lambda call, result: results.append(f"{call.name}={result.text}"))
    assert chat.ask("Add 1..10 one by one").content == "The total is 55."
    assert len(llm.requests) == 2  # the ten calls took one model round
    [tool] = llm.requests[0]["tools"]
    description = tool["function"]["description"]
    assert tool["function"]["name"] == "run_code" and tool["function"]["parameters"]["required"] == ["code"]
    assert 'async def add(a: int, b: int) -> int: """Add two integers."""' in description
    assert 'async def weather(city: str) -> dict[str, Any]: """Current weather' in description
    assert "# tools of server 'fixture'" in description
    assert llm.tool_messages(1) == [{"role": "tool", "tool_call_id": "c1", "content": "total 55\n110"}]
    assert seen == ["run_code"] + ["add"] * 10  # every inner call went through the hooks
    assert results[:2] == ["add=1", "add=3"] and results[-1].startswith("run_code=total 55")
    assert_history_valid(chat.messages)
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]


async def test_async_over_stdio_and_intermediate_results_stay_out(llm, make_client):
    client = make_client("stdio")
    code = "text = await long_text(n=50000)\nwords = await echo(message='hi')\nprint(len(text), text.count('x'), words)"
    llm.then(Turn(tool_calls=[run_code("c1", code)]), Turn(content="50,000 characters."), Turn(content="ok"))
    chat = new_chat(code_mode=True).with_tools(*(await client.atools()))
    assert (await chat.aask("how long is it?")).content == "50,000 characters."
    await chat.aask("and then?")
    assert llm.tool_messages(1)[0]["content"] == "50000 50000 hi"
    for later in llm.requests[1:]:
        sent = json.dumps(later["messages"])
        assert "x" * 100 not in sent and len(sent) < 2_000  # the 50,000 characters never reached the model


@pytest.mark.parametrize("transport", ["memory", "streamable"])
def test_the_program_reads_a_tool_result_whole_and_only_its_output_is_cut(llm, make_client, transport):
    """A result far over the chat's result budget reaches the program whole (no marker, no read_result);
    only what the program prints goes through the budget on its way to the model."""
    client = make_client(transport)
    count = "s = await echo(message='x' * 50000)\nprint(len(s), s.count('x'), 'cut' in s)"
    dump = "s = await echo(message='y' * 50000)\nprint(s)"
    llm.then(Turn(tool_calls=[run_code("c1", count), run_code("c2", dump)]), Turn(content="50,000"))
    seen: list[int] = []
    chat = (new_chat(code_mode=True, result_budget=1_000).with_tools(client.tool("echo"))
            .on_tool_result(lambda call, result: seen.append(len(result.text)) if call.name == "echo" else None))
    assert chat.ask("count the x").content == "50,000"
    counted, dumped = (m["content"] for m in llm.tool_messages(1))
    assert counted == "50000 50000 False"
    assert seen == [50_000, 50_000]  # the tool_result hooks of the program's calls saw them whole too
    assert dumped.startswith("y" * 1_000) and len(dumped) < 10_000  # what it printed was cut for the model...
    assert 'Call read_result with id="r1"' in dumped  # ...and can be read on, as any cut result
    assert_history_valid(chat.messages)


def test_gather_runs_calls_concurrently(llm, make_client):
    client = make_client("memory")
    code = "import asyncio\nr = await asyncio.gather(*[wait(seconds=0.5) for _ in range(4)])\nlen(r)"
    llm.then(Turn(tool_calls=[run_code("c1", code)]), Turn(content="done"))
    events: list[tuple[str, float]] = []
    chat = (new_chat(code_mode=True).with_tools(client.tool("wait"))
            .on_tool_call(lambda call: events.append(("call", time.perf_counter())))
            .on_tool_result(lambda call, result: events.append(("result", time.perf_counter()))))
    chat.ask("wait four times")
    assert llm.tool_messages(1)[0]["content"] == "4"
    inner = events[1:-1]  # run_code's own call and result around its program's four
    assert [kind for kind, _ in inner] == ["call"] * 4 + ["result"] * 4, "the calls did not overlap"
    elapsed = inner[-1][1] - inner[0][1]
    assert elapsed < 1.5, f"four half-second calls took {elapsed:.2f}s: they did not run concurrently"


def test_failing_tools_raise_catchable_errors_and_uncaught_ones_reach_the_model(llm, make_client):
    client = make_client("memory")
    caught = ("try:\n    await fail(reason='disk full')\nexcept RuntimeError as e:\n    print('caught:', e)\n"
              "await add(a=1, b=1)")
    llm.then(Turn(tool_calls=[run_code("c1", caught), run_code("c2", "await fail(reason='disk full')\nprint('no')"),
                              run_code("c3", "await add(a='one', b=2)")]),
             Turn(content="seen"))
    chat = new_chat(code_mode=True).with_tools(*client.tools())
    chat.ask("try it")
    first, second, third = (m["content"] for m in llm.tool_messages(1))
    assert first.startswith("caught: fail failed:") and first.endswith("\n2")
    assert "RuntimeError: fail failed:" in second and "no" not in second.split("\n")
    assert "RuntimeError: add failed:" in third


SANDBOX_PROBES = {
    "files": ("open('/etc/passwd').read()", "PermissionError"),
    "listing": ("import os\nos.listdir('/')", "PermissionError"),
    "environment": ("import os\nos.environ['PATH']", "not supported"),
    "subprocess": ("import subprocess\nsubprocess.run(['id'])", "ModuleNotFoundError"),
    "socket": ("import socket\nsocket.create_connection(('127.0.0.1', 80))", "ModuleNotFoundError"),
    "shell": ("import os\nos.system('id')", "AttributeError"),
    "dunder import": ("__import__('os').system('id')", "NameError"),
    "syntax": ("def broken(:\n    pass", "SyntaxError"),
}


def test_the_sandbox_holds(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[run_code(name, code) for name, (code, _) in SANDBOX_PROBES.items()]),
             Turn(content="nothing got out"))
    chat = new_chat(code_mode=True).with_tools(client.tool("add"))
    assert chat.ask("try to escape").content == "nothing got out"
    answers = {m["tool_call_id"]: m["content"] for m in llm.tool_messages(1)}
    for name, (_, expected) in SANDBOX_PROBES.items():
        assert answers[name].startswith("Error: the program") and expected in answers[name], (name, answers[name])
    assert "root:" not in json.dumps(answers)


def test_time_and_memory_limits_stop_the_program_and_the_chat_goes_on(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[run_code("loop", "while True:\n    pass"),
                              run_code("sleep", "import asyncio\nawait asyncio.sleep(600)"),
                              run_code("big", "s = 'x' * (4 * 1024 ** 3)\nlen(s)")]),
             Turn(content="both stopped"),
             Turn(tool_calls=[run_code("next", "await add(a=2, b=3)")]), Turn(content="5"))
    chat = new_chat(code_mode=ml.CodeMode(timeout=1, memory_mb=64)).with_tools(client.tool("add"))
    started = time.perf_counter()
    assert chat.ask("run forever").content == "both stopped"
    assert time.perf_counter() - started < 10
    answers = {m["tool_call_id"]: m["content"] for m in llm.tool_messages(1)}
    assert "TimeoutError" in answers["loop"] and "MemoryError" in answers["big"]
    assert "TimeoutError: sleep limit exceeded" in answers["sleep"]
    assert chat.ask("now add").content == "5"
    assert llm.tool_messages(3)[-1]["content"] == "5"


def test_tool_call_limit_per_run(llm, make_client):
    client = make_client("memory")
    code = ("n = 0\nfor i in range(10):\n    try:\n        n = await add(a=n, b=1)\n"
            "    except RuntimeError as e:\n        print(e)\n        break\nn")
    llm.then(Turn(tool_calls=[run_code("c1", code)]), Turn(content="stopped at 3"))
    chat = new_chat(code_mode=ml.CodeMode(max_tool_calls=3)).with_tools(client.tool("add"))
    chat.ask("count")
    assert llm.tool_messages(1)[0]["content"] == (
        "the tool call limit of this run is reached (3 calls): add was not called\n3")


def test_approval_applies_inside_code_and_knows_the_run(llm):
    asked: list[tuple[str, str | None]] = []

    def approve(tool_name: str, parameters: dict[str, Any]) -> bool | str:
        run = ml.CodeRun.current()
        asked.append((tool_name, run.tool_call_id if run else None))
        return tool_name != "write_note" or "writes are not allowed"

    client = ml.client("notes", "memory", {"server": notes_server()}, human_in_the_loop=approve)
    try:
        code = ("texts = [await read_note(key=k) for k in ['a', 'b']]\n"
                "try:\n    await write_note(key='c', text='gamma')\nexcept RuntimeError as e:\n    print(e)\n"
                "texts")
        llm.then(Turn(tool_calls=[run_code("c1", code)]), Turn(content="read two, could not write"),
                 Turn(tool_calls=[run_code("c2", code)]), Turn(content="again"))
        chat = new_chat(code_mode=True).with_tools(*client.tools())
        chat.ask("read and write")
        answer = llm.tool_messages(1)[0]["content"]
        assert "write_note failed: Tool call was denied: writes are not allowed" in answer
        assert answer.endswith("['alpha', 'beta']")
        assert asked == [("read_note", "c1"), ("read_note", "c1"), ("write_note", "c1")]
        # read-only tools may run inside code without asking
        asked.clear()
        chat.with_code_mode(ml.CodeMode(read_only_without_approval=True))
        chat.ask("again")
        assert asked == [("write_note", "c2")]
        assert "denied" in llm.tool_messages(3)[-1]["content"]
    finally:
        client.stop()


def test_streaming_shows_the_run_code_call_and_each_inner_call(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[run_code("c1", "a = await add(a=1, b=2)\nawait add(a=a, b=3)")]), Turn(content="six"))
    chat = new_chat(code_mode=True).with_tools(client.tool("add"))
    chunks = list(chat.stream("add up"))
    fragments = [call.name for c in chunks if c.is_tool_call for call in c.tool_calls.values()]
    assert fragments and set(fragments) == {"run_code"}  # the run_code call as it forms
    events = [(c.event, c.tool_call.name if c.tool_call else None) for c in chunks if c.event != "content"]
    starts = [e for e in events if e[0] in ("tool_start", "tool_end")]
    assert starts == [("tool_start", "run_code"), ("tool_start", "add"), ("tool_end", "add"),
                      ("tool_start", "add"), ("tool_end", "add"), ("tool_end", "run_code")]
    end = next(c for c in chunks if c.event == "tool_end" and c.tool_call.name == "run_code")
    assert end.tool_result.text == "6" and chat.last_message.content == "six"


def test_names_local_tools_and_switching_between_turns(llm):
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    client = ml.client("notes", "memory", {"server": notes_server()})
    try:
        llm.then(Turn(tool_calls=[run_code("c1", "n = await notes_count_all()\ns = await shout(text='hi')\n[n, s]")]),
                 Turn(content="2 HI"), Turn(content="plain"))
        chat = new_chat(code_mode=True).with_tools(*client.tools(), shout)
        assert chat.code_mode == ml.CodeMode()
        chat.ask("count and shout")
        description = llm.requests[0]["tools"][0]["function"]["description"]
        assert ('async def notes_count_all() -> int: """How many notes there are. Calls the tool '
                "'notes.count-all' on server 'notes'.\"\"\"") in description
        assert '# local tools\nasync def shout(text: str) -> str: """Upper-case a text."""' in description
        assert llm.tool_messages(1)[0]["content"] == "[2, 'HI']"
        chat.with_code_mode(False)
        assert chat.code_mode is None
        chat.ask("now without code")
        assert {t["function"]["name"] for t in llm.requests[2]["tools"]} == {
            "read_note", "write_note", "notes_count-all", "shout"}
    finally:
        client.stop()


def test_search_tools_inside_the_sandbox(llm, make_client):
    client = make_client("memory")
    code = "print(await search_tools('add two integers'))\nawait add(20, b=22)"  # positional arguments bind too
    llm.then(Turn(tool_calls=[run_code("c1", code)]), Turn(content="42"))
    chat = new_chat(code_mode=True, tool_search=True).with_tools(*client.tools())
    chat.ask("find a tool and add")
    [tool] = llm.requests[0]["tools"]
    description = tool["function"]["description"]
    assert "await search_tools(" in description and "async def" not in description
    answer = llm.tool_messages(1)[0]["content"]
    assert answer.startswith("# tools of server 'fixture'\nasync def add(a: int, b: int) -> int:")
    assert answer.endswith("\n42")


def test_bad_settings_and_a_missing_sandbox_are_config_errors(monkeypatch):
    with pytest.raises(ml.ConfigError, match=r"code_mode must be True, False or an mcp_litellm\.CodeMode"):
        ml.Chat(MODEL, code_mode="yes")
    with pytest.raises(ml.ConfigError, match="timeout"):
        ml.CodeMode(timeout=0)
    monkeypatch.setitem(sys.modules, "pydantic_monty", None)  # as if the code extra were not installed
    with pytest.raises(ml.ConfigError) as missing:
        ml.Chat(MODEL, code_mode=True)
    assert 'pip install "mcp-litellm[code]"' in str(missing.value)
    assert "pydantic-monty sandbox, which is not installed" in str(missing.value)


def _sandbox_workers() -> list[str]:
    """This process's pydantic-monty worker processes."""
    import os

    listing = subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", str(os.getpid())], capture_output=True, text=True)
    return [line for line in listing.stdout.splitlines() if "monty" in line]


async def test_a_cancelled_run_leaves_no_worker_behind():
    import asyncio

    from mcp_litellm._chat.code_mode.sandbox import run_program

    run = asyncio.ensure_future(run_program("while True:\n    pass", {}, ml.CodeMode(timeout=60)))
    for _ in range(100):  # until the worker runs the program
        await asyncio.sleep(0.05)
        if _sandbox_workers():
            break
    assert _sandbox_workers(), "the sandbox worker never started"
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    for _ in range(40):
        if not _sandbox_workers():
            break
        await asyncio.sleep(0.05)
    assert _sandbox_workers() == []


@pytest.mark.parametrize("mode", ["ask", "astream"])
def test_progress_of_a_call_from_code_reaches_the_clients_handler(llm, make_client, mode):
    import asyncio

    updates: list[ml.ProgressUpdate] = []
    runs: list[str | None] = []

    def on_progress(update: ml.ProgressUpdate) -> None:
        updates.append(update)
        run = ml.CodeRun.current()
        runs.append(run.tool_call_id if run else None)

    client = make_client("memory").on_progress(on_progress)
    llm.then(Turn(tool_calls=[run_code("c1", "await slow(seconds=0.03, steps=3)")]), Turn(content="slept"))
    chat = new_chat(code_mode=True).with_tools(client.tool("slow"))
    if mode == "ask":
        assert chat.ask("sleep").content == "slept"
    else:
        async def stream() -> list[ml.Chunk]:
            return [chunk async for chunk in chat.astream("sleep")]

        ends = [c for c in asyncio.run(stream()) if c.event == "tool_end"]
        assert [c.tool_call.name for c in ends] == ["slow", "run_code"]
    assert updates == [ml.ProgressUpdate(i, 3, f"step {i}/3", "slow", "fixture") for i in (1, 2, 3)]
    assert runs == ["c1"] * 3  # the handler can tell the call came from the program of the run_code call c1
    assert llm.tool_messages(1)[0]["content"] == "slept 0.03"
