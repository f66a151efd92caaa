"""The ``mcp-litellm`` command, run as a subprocess against the demo server and the fixture server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import one_line_error, run, write_config
from tests.helpers.entries import fixture_entry
from tests.helpers.processes import wait_no_processes

COMMANDS = ["servers", "tools", "resources", "prompts", "call", "read", "prompt", "chat"]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_on_every_command(command):
    done = run(*([command] if command else []), "--help")
    assert done.returncode == 0, done.stderr
    assert "usage: mcp-litellm" in done.stdout
    if command:
        assert f"mcp-litellm {command}" in done.stdout


def test_no_command_prints_usage_and_exits_2():
    done = run()
    assert done.returncode == 2
    assert "usage: mcp-litellm" in done.stderr


def test_installed_script_exists():
    script = Path(sys.executable).parent / "mcp-litellm"
    assert script.exists(), "pip install -e . creates the mcp-litellm script"
    done = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("mcp-litellm ")


def test_servers_lists_the_demo_server():
    done = run("servers")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:3] == ["demo", "stdio", "ok"]
    assert "6 tools" in done.stdout
    rows = json.loads(run("servers", "--format", "json").stdout)
    assert rows[0]["name"] == "demo" and rows[0]["server"] == "demo" and rows[0]["tools"] == 6


def test_tools_text_json_and_litellm():
    done = run("tools")
    assert done.returncode == 0, done.stderr
    assert "demo: 6 tools" in done.stdout
    assert "add(a: integer, b: integer)" in done.stdout
    assert "roll_dice(sides?: integer, count?: integer)" in done.stdout
    listed = json.loads(run("tools", "--format", "json").stdout)
    assert {t["name"] for t in listed} == {"add", "word_count", "roll_dice", "countdown", "write_haiku", "greet"}
    assert all(t["server"] == "demo" for t in listed)
    definitions = json.loads(run("tools", "--format", "litellm", "--include", "add").stdout)
    assert definitions == [{"type": "function", "function": {
        "name": "add", "description": "Add two integers and return the sum.",
        "parameters": {"type": "object", "title": "addArguments", "required": ["a", "b"],
                       "properties": {"a": {"title": "A", "type": "integer"}, "b": {"title": "B", "type": "integer"}}},
    }}]
    for_claude = json.loads(run("tools", "--format", "litellm", "--model", "anthropic/claude-3-5-sonnet").stdout)
    assert all("title" not in d["function"]["parameters"] for d in for_claude)


def test_model_needs_litellm_format():
    done = run("tools", "--model", "gpt-4o")
    assert done.returncode == 2
    assert "--format litellm" in one_line_error(done)


def test_call_with_json_and_key_value_arguments():
    done = run("call", "add", '{"a": 2, "b": 40}')
    assert (done.returncode, done.stdout.strip()) == (0, "42"), done.stderr
    done = run("call", "word_count", "text=hello brave new world")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"words": 4, "characters": 21}
    done = run("call", "add", "-", stdin='{"a": 1, "b": 1}')
    assert done.stdout.strip() == "2"
    structured = json.loads(run("call", "add", "a=3", "b=4", "--format", "json").stdout)
    assert structured["structured"] == {"result": 7} and structured["is_error"] is False


def test_call_reports_progress_on_stderr():
    done = run("call", "countdown", "seconds=1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "counted down from 1"
    assert "countdown" in done.stderr and "100%" in done.stderr


@pytest.mark.parametrize(("args", "code", "fragment"), [
    (["call", "nope"], 2, "no tool named 'nope'; available: 'add', 'countdown'"),
    (["call", "add", "{not json"], 2, "not valid JSON"),
    (["call", "add", "[1, 2]"], 2, "expected key=value"),
    (["call", "add", "a"], 2, "expected key=value"),
    (["call", "add", "a=1"], 2, "tool 'add' needs argument(s) 'b' (arguments: a, b)"),
    (["call", "add", "a=1", "b=2", "c=3"], 2, "tool 'add' has no argument(s) 'c' (arguments: a, b)"),
    (["call", "add", '{"a": 1, "b": 2, "total": 3}'], 2, "tool 'add' has no argument(s) 'total'"),
    (["call", "add", "a=two", "b=1"], 2, "tool 'add': argument 'a' must be integer, got \"two\" (string)"),
    (["call", "add", '{"a": 1.5, "b": true}'], 2,
     "tool 'add': argument 'a' must be integer, got 1.5 (number); argument 'b' must be integer, got true (boolean)"),
    (["tools", "--server", "other"], 2, "no server named 'other'; available: 'demo'"),
    (["tools", "--config", "/nonexistent/mcp.json"], 2, "config file not found"),
])
def test_user_errors_are_one_line(args, code, fragment):
    done = run(*args)
    assert done.returncode == code, done.stderr
    if code == 2:
        assert fragment in one_line_error(done)
    else:
        assert "Traceback" not in done.stderr and fragment in done.stderr


@pytest.mark.parametrize(("command", "required"), [("call", "TOOL"), ("prompt", "NAME")])
def test_usage_names_only_what_is_required(command, required):
    done = run(command)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"mcp-litellm {command}: error: the following arguments are required: " \
                                           f"{required}", done.stderr


def test_bad_config_file(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"files": {"command": "x", "argz": []}}}))
    done = run("tools", "--config", str(path))
    assert done.returncode == 2
    assert "server 'files', key 'argz': unknown key" in one_line_error(done)


def test_failing_server_exit_code(tmp_path, marker, fixture_tools):
    config = write_config(tmp_path, {"ok": fixture_entry("ok", marker), "broken": {"command": "/nonexistent/srv"}})
    done = run("servers", "--config", config)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines()}
    assert lines["ok"].split()[2] == "ok"
    assert lines["broken"].split()[2] == "failed" and "command not found" in lines["broken"]
    done = run("tools", "--config", config)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "mcp-litellm: warning: could not start server 'broken': command not found (/nonexistent/srv); "
        "check 'command' in its config and that it is installed and on PATH")
    assert f"ok: {len(fixture_tools)} tools" in done.stdout
    done = run("call", "--config", config, "--server", "broken", "add", "a=1", "b=2")
    assert done.returncode == 1
    assert "command not found" in one_line_error(done)
    assert wait_no_processes(marker) == []


def test_several_servers_with_colliding_tools(tmp_path, marker):
    config = write_config(tmp_path, {"fixture": fixture_entry("fixture", marker), "demo": {
        "command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"], "disabled": False},
        "off": {"command": "/nonexistent/srv", "disabled": True}})
    done = run("tools", "--config", config, "--format", "json")
    assert done.returncode == 0, done.stderr
    names = {t["name"]: t["server"] for t in json.loads(done.stdout)}
    assert names["fixture__add"] == "fixture" and names["demo__add"] == "demo" and names["word_count"] == "demo"
    done = run("call", "--config", config, "demo__add", "a=1", "b=2")
    assert done.stdout.strip() == "3"
    done = run("call", "--config", config, "echo", "message=hi there")
    assert done.stdout.strip() == "hi there"
    done = run("servers", "--config", config)
    assert done.returncode == 0, done.stderr
    assert [line.split()[2] for line in done.stdout.splitlines()] == ["ok", "ok", "disabled"]
    done = run("tools", "--config", config, "--server", "demo")
    assert done.stdout.startswith("demo: 6 tools") and "fixture" not in done.stdout
    assert wait_no_processes(marker) == []


def test_servers_counts_the_tools_the_config_lets_through(tmp_path):
    config = write_config(tmp_path, {"demo": {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"],
                                              "exclude_tools": ["roll_*"]}})
    done = run("servers", "--config", config)
    assert done.returncode == 0, done.stderr
    assert "5 tools" in done.stdout
    done = run("tools", "--config", config)
    assert done.stdout.startswith("demo: 5 tools") and "roll_dice" not in done.stdout
    config = write_config(tmp_path, {"demo": {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"],
                                              "include_tools": ["add"]}})
    done = run("servers", "--config", config)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(", 1 tool"), done.stdout


def test_call_types_key_value_arguments_by_the_schema():
    done = run("call", "word_count", "text=123", "--format", "json")  # text is a string: "123", not 123
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structured"] == {"words": 1, "characters": 3}
    done = run("call", "roll_dice", "sides=6", "count=2", "--format", "json")  # integers are parsed
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["structured"]["result"]) == 2


def test_a_tool_error_is_one_line(tmp_path, marker):
    config = write_config(tmp_path, {"fixture": fixture_entry("fixture", marker)})
    done = run("call", "--config", config, "bad_weather", "city=Oslo")  # the error spans several lines
    assert done.returncode == 1
    assert "tool 'bad_weather' reported an error" in one_line_error(done)
    assert wait_no_processes(marker) == []


def test_call_checks_argument_types_before_calling(tmp_path, marker):
    config = write_config(tmp_path, {"fixture": fixture_entry("fixture", marker)})
    done = run("call", "--config", config, "store_person", '{"person": {"name": 7, "addresses": [{"street": "x"}]}, '
                                                          '"tags": "one"}')
    assert done.returncode == 2, done.stderr
    assert one_line_error(done) == (
        "mcp-litellm: error: tool 'store_person': argument 'person.name' must be string, got 7 (integer); "
        "argument 'tags' must be string[]|null, got \"one\" (string)")
    done = run("call", "--config", config, "store_person", '{"person": {"name": "Ann", "addresses": []}, '
                                                          '"tags": ["a"]}')
    assert done.returncode == 0, done.stderr
    done = run("call", "--config", config, "slow", "seconds=0.1", "steps=1")  # a number, an integer
    assert done.returncode == 0, done.stderr
    assert wait_no_processes(marker) == []


def test_ambiguous_tool_and_resource_say_which_servers_offer_them(tmp_path):
    demo = {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}
    config = write_config(tmp_path, {"a": demo, "b": demo})
    done = run("call", "--config", config, "add", "a=1", "b=2")
    assert done.returncode == 2
    assert ("tool 'add' is offered by several servers ('a', 'b'); use its name in the group: 'a__add' or 'b__add'"
            in one_line_error(done))
    done = run("read", "--config", config, "demo://about")
    assert done.returncode == 2
    assert ("resource 'demo://about' is offered by several servers ('a', 'b'); choose one with --server"
            in one_line_error(done))
    done = run("read", "--config", config, "--server", "b", "demo://about")
    assert done.returncode == 0 and done.stdout.startswith("# mcp-litellm demo server")


def test_call_takes_the_prefixed_name_the_ambiguity_error_suggests(tmp_path):
    demo = {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}
    config = write_config(tmp_path, {"a": demo, "b": demo})
    for extra in (["--server", "b"], []):  # alone (not prefixed there) and among both (prefixed)
        done = run("call", "--config", config, *extra, "b__add", "a=1", "b=2")
        assert (done.returncode, done.stdout.strip()) == (0, "3"), done.stderr
    done = run("call", "--config", config, "--server", "b", "a__add", "a=1", "b=2")  # not a server of the group
    assert done.returncode == 2 and "no tool named 'a__add'" in one_line_error(done)


def test_read_not_found_is_exit_2_with_one_server_too():
    done = run("read", "about")  # a name, not a URI; the one demo server does not know it
    assert done.returncode == 2
    assert "no resource named 'about'; available: 'demo://about'" in one_line_error(done)


def test_resources_and_prompts_lists():
    done = run("resources")
    assert done.returncode == 0, done.stderr
    assert "demo: 1 resource, 1 template" in done.stdout
    assert "demo://about  about (text/markdown)" in done.stdout
    assert "demo://notes/{topic}  notes (text/plain)  [template]" in done.stdout
    listed = json.loads(run("resources", "--format", "json").stdout)
    assert [r["uri"] for r in listed["resources"]] == ["demo://about"]
    assert [t["uri_template"] for t in listed["templates"]] == ["demo://notes/{topic}"]
    done = run("prompts")
    assert done.returncode == 0, done.stderr
    assert "summarize(text, style?)" in done.stdout
    prompts = json.loads(run("prompts", "--format", "json").stdout)
    assert [(a["name"], a["required"]) for a in prompts[0]["arguments"]] == [("text", True), ("style", False)]


def test_read_resources_and_templates(tmp_path, marker):
    done = run("read", "demo://about")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# mcp-litellm demo server")
    done = run("read", "demo://notes/litellm")
    assert done.stdout.strip() == "LiteLLM calls 100+ model providers with one OpenAI-style API."
    config = write_config(tmp_path, {"fixture": fixture_entry("fixture", marker), "demo": {
        "command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}})
    # the URI decides the server: a resource of the fixture server, and a URI matching its template
    raw = subprocess.run([sys.executable, "-m", "mcp_litellm", "read", "--config", config,
                          "file:///images/pixel.png"], capture_output=True, timeout=90)
    assert raw.returncode == 0, raw.stderr
    assert raw.stdout.startswith(b"\x89PNG\r\n")
    out = tmp_path / "blob.bin"
    done = run("read", "--config", config, "file:///data/blob.bin", "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == bytes(range(16))
    done = run("read", "--config", config, "logs://2024-01-15/error")
    assert done.stdout.strip() == "error logs for 2024-01-15: all quiet"
    done = run("read", "--config", config, "nothing://here")
    assert done.returncode == 2
    assert "no resource named 'nothing://here'" in one_line_error(done)
    assert wait_no_processes(marker) == []


def test_prompt_with_arguments():
    done = run("prompt", "summarize", "text=MCP connects models to tools", "style=a haiku")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[user]\nSummarize the following text in a haiku:")
    assert "MCP connects models to tools" in done.stdout
    messages = json.loads(run("prompt", "summarize", "text=x", "--format", "litellm").stdout)
    assert messages == [{"role": "user", "content": "Summarize the following text in one sentence:\n\nx"}]
    done = run("prompt", "summarize")
    assert done.returncode == 2
    assert "'text'" in one_line_error(done)
    done = run("prompt", "nope")
    assert done.returncode == 2
    assert "no prompt named 'nope'; available: 'summarize'" in one_line_error(done)


def test_a_servers_control_characters_never_reach_the_terminal(tmp_path):
    """A tool result (or description) with escape sequences is printed without them: a server cannot clear the
    screen, recolour the terminal or hide text from the user."""
    from tests.helpers.servers import FIXTURE_SERVER

    cfg = write_config(tmp_path, {"fx": {"command": sys.executable, "args": [str(FIXTURE_SERVER)]}})
    done = run("-c", cfg, "call", "echo", "message=\x1b[2J\x1b[31mred\x07 alert\x9b0m")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "red alert"  # the text stays; the escape sequences go whole (C1 CSI too)
    assert not any(ch in done.stdout for ch in "\x1b\x07\x9b")


_ESCAPING_SERVER = '''
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("escapes")


@server.tool()
def paint() -> str:
    """Text with terminal escapes, as Playwright's errors carry."""
    return "\\x1b[31mError:\\x1b[0m page \\x1b]0;title\\x07crashed\\x1b[2J\\r\\nline two\\x00"


@server.tool()
def crash() -> str:
    """Fails with escapes in its message."""
    raise ToolError("\\x1b[31mfailed\\x1b[0m \\u202ehidden")


server.run()
'''


def test_call_prints_no_terminal_escapes_of_the_servers(tmp_path):
    """What a server says reaches the terminal without its escape sequences (removed whole, not leaving
    ``[31m`` behind) or control characters: a tool's text and its error alike."""
    script = tmp_path / "escapes.py"
    script.write_text(_ESCAPING_SERVER)
    config = write_config(tmp_path, {"escapes": {"command": sys.executable, "args": [str(script)]}})
    done = run("call", "--config", config, "paint")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Error: page crashed\nline two"
    done = run("call", "--config", config, "crash")
    error = one_line_error(done)
    assert done.returncode == 1 and "failed hidden" in error
    for shown in (done.stdout, done.stderr):
        assert not any(c in shown for c in ("\x1b", "\x00", "\u202e", "[31m", "[0m"))
