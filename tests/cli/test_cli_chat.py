"""``mcp-litellm chat`` end to end: a subprocess, real MCP servers, and a scripted OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import sys

from tests.helpers.cli import chat, fixture_config, tool_messages
from tests.helpers.processes import wait_no_processes
from tests.scripted_llm.server import Turn, fake_llm


def test_chat_streams_text_and_runs_tools():
    script = [Turn(tool_calls=[("call_1", "add", {"a": 2, "b": 3})]), Turn(content="The sum is 5."),
              Turn(content="Bye now.")]
    with fake_llm(script) as llm:
        done = chat(llm.url, "what is 2+3?\nthanks\n")
    assert done.returncode == 0, done.stderr
    assert 'using tool add {"a": 2, "b": 3}' in done.stderr  # stdout is piped: it holds only the answers
    assert done.stdout == "The sum is 5.\nBye now.\n"
    assert "Traceback" not in done.stderr
    first, second, third = llm.requests
    assert first["stream"] is True
    assert {t["function"]["name"] for t in first["tools"]} == {"add", "word_count", "roll_dice", "countdown",
                                                                "write_haiku", "greet"}
    assert first["messages"][-1] == {"role": "user", "content": "what is 2+3?"}
    assert [(m["tool_call_id"], m["content"]) for m in tool_messages(second)] == [("call_1", "5")]
    assert third["messages"][-1] == {"role": "user", "content": "thanks"}
    assert len(third["messages"]) > len(second["messages"])  # the conversation carries on


def test_chat_shows_tool_progress():
    script = [Turn(tool_calls=[("call_1", "countdown", {"seconds": 1})]), Turn(content="Done counting.")]
    with fake_llm(script) as llm:
        done = chat(llm.url, "count down from 1\n")
    assert done.returncode == 0, done.stderr
    assert 'using tool countdown {"seconds": 1}' in done.stderr and done.stdout == "Done counting.\n"
    assert "countdown" in done.stderr and "100%" in done.stderr
    assert tool_messages(llm.requests[1])[0]["content"] == "counted down from 1"


def test_chat_approval_denied_and_approved():
    script = [Turn(tool_calls=[("call_1", "add", {"a": 1, "b": 1})]), Turn(content="Okay, I will not."),
              Turn(tool_calls=[("call_2", "add", {"a": 2, "b": 2})]), Turn(content="It is 4.")]
    with fake_llm(script) as llm:
        done = chat(llm.url, "add 1 and 1\nn\nadd 2 and 2\ny\n", "--approve")
    assert done.returncode == 0, done.stderr
    assert 'allow tool add {"a": 1, "b": 1}? [y/N]' in done.stderr
    assert "denied add" in done.stderr
    assert done.stderr.index('allow tool add {"a": 2, "b": 2}') < done.stderr.index('using tool add {"a": 2, "b": 2}')
    assert 'using tool add {"a": 1' not in done.stderr  # the denied call was never said to be used
    denied = tool_messages(llm.requests[1])[0]
    assert denied["tool_call_id"] == "call_1" and "denied" in denied["content"].lower()
    assert tool_messages(llm.requests[3])[-1] == {"role": "tool", "tool_call_id": "call_2", "content": "4"}
    assert done.stdout == "Okay, I will not.\nIt is 4.\n"


def test_chat_asks_elicitation_forms_in_the_terminal(tmp_path, marker):
    script = [Turn(tool_calls=[("call_1", "ask_user", {})]), Turn(content="Nice to meet you, Ada.")]
    with fake_llm(script) as llm:
        done = chat(llm.url, "who am I?\ny\nAda\nold\n36\n", "--config", fixture_config(tmp_path, marker))
    assert done.returncode == 0, done.stderr
    assert "Who are you?" in done.stderr
    assert "'old' is not a whole number" in done.stderr  # asked again
    assert tool_messages(llm.requests[1])[0]["content"] == "hello Ada, 36"
    assert wait_no_processes(marker) == []


def test_chat_lets_servers_sample_through_the_same_model(tmp_path, marker):
    script = [Turn(tool_calls=[("call_1", "ask_model", {"question": "Capital of France?"})]),
              Turn(content="Paris"),  # the server's sampling request
              Turn(content="The model says Paris.")]
    with fake_llm(script) as llm:
        done = chat(llm.url, "ask the model\n", "--config", fixture_config(tmp_path, marker), "--allow-sampling")
    assert done.returncode == 0, done.stderr
    sampling = llm.requests[1]
    question = sampling["messages"][-1]["content"]
    assert question in ("Capital of France?", [{"type": "text", "text": "Capital of France?"}])
    assert "tools" not in sampling or not sampling["tools"]
    assert tool_messages(llm.requests[2])[0]["content"] == "Paris"
    assert "The model says Paris." in done.stdout
    assert wait_no_processes(marker) == []


def test_chat_without_sampling_refuses_it(tmp_path, marker):
    script = [Turn(tool_calls=[("call_1", "ask_model", {"question": "Capital of France?"})]),
              Turn(content="Sampling is off.")]
    with fake_llm(script) as llm:
        done = chat(llm.url, "ask the model\n", "--config", fixture_config(tmp_path, marker))
    assert done.returncode == 0, done.stderr
    assert len(llm.requests) == 2  # the server's sampling request never reached the model
    refused = tool_messages(llm.requests[1])[0]["content"]
    assert "sampling" in refused.lower(), refused  # the server's error reaches the model as the tool result
    assert wait_no_processes(marker) == []


def test_chat_model_failure_is_one_line(tmp_path):
    with fake_llm([]) as llm:  # every request fails with HTTP 500
        done = chat(llm.url, "hello\n")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("mcp-litellm: error: ")


def test_chat_approval_names_the_tool_as_the_model_does(tmp_path):
    demo = {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"a": demo, "b": demo}}))
    script = [Turn(tool_calls=[("call_1", "b__add", {"a": 1, "b": 1})]), Turn(content="Okay.")]
    with fake_llm(script) as llm:
        done = chat(llm.url, "add\nn\n", "--approve", "--config", str(path))
    assert done.returncode == 0, done.stderr
    assert 'allow tool b__add {"a": 1, "b": 1}? [y/N]' in done.stderr
    assert "denied b__add" in done.stderr


def test_chat_exits_1_when_a_server_failed_to_start(tmp_path):
    demo = {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"demo": demo, "broken": {"command": "/nonexistent/srv"}}}))
    with fake_llm([Turn(content="Hello.")]) as llm:
        done = chat(llm.url, "hi\n", "--config", str(path))
    assert "Hello." in done.stdout
    assert "warning: could not start server 'broken'" in done.stderr
    assert done.returncode == 1


def test_parallel_tool_calls_are_approved_one_question_at_a_time():
    script = [Turn(tool_calls=[("call_1", "add", {"a": 1, "b": 2}), ("call_2", "add", {"a": 3, "b": 4})]),
              Turn(content="One of them ran.")]
    with fake_llm(script) as llm:
        done = chat(llm.url, "add both\ny\nn\n", "--approve")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("allow tool add") == 2 and done.stderr.count("using tool add") == 1
    assert done.stderr.count("denied add") == 1
    results = sorted(m["content"] for m in tool_messages(llm.requests[1]))
    assert len(results) == 2 and (results[0] in ("3", "7")) and "denied" in results[1].lower()
    assert done.stdout == "One of them ran.\n"


def test_slash_commands_with_piped_input_stay_local():
    with fake_llm([Turn(content="Hi.")]) as llm:
        done = chat(llm.url, "/help\n/tools\n/whatever\nhello\n/exit\nnot asked\n")
    assert done.returncode == 0, done.stderr
    assert [r["messages"][-1]["content"] for r in llm.requests] == ["hello"]
    assert "/usage" in done.stderr and "add(a: integer, b: integer)" in done.stderr
    assert "unknown command /whatever" in done.stderr
    assert done.stdout == "Hi.\n"


def test_tool_search_flags_are_checked_before_anything_starts():
    for flags, error in [
        (["--tool-budget", "0"], "argument --tool-budget: expected a whole number of tokens above 0, got '0'"),
        (["--tool-budget", "many"], "argument --tool-budget: expected a whole number of tokens above 0, got 'many'"),
        (["--tool-budget", "500", "--no-tool-search"], "error: --tool-budget only applies when tool search is "
                                                       "automatic (without --tool-search or --no-tool-search)"),
    ]:
        done = chat("http://127.0.0.1:9/v1", "hi\n", *flags)  # nothing listens there: no request may be made
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines()[-1].endswith(error), done.stderr
        assert "Traceback" not in done.stderr
