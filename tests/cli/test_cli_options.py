"""``mcp-litellm`` options: anywhere on the line, servers without a config file (``--command``, ``--url``),
the demo-server notice, argument checks of ``call``, one exit-code convention, help texts, and secret
masking in the chat's error lines. Subprocesses against real servers (stdio and HTTP on 127.0.0.1)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys

import pytest

from mcp_litellm._cli.chat import mask_secrets
from mcp_litellm._cli.commands import DEMO_NOTICE
from mcp_litellm._cli.main import build_parser, parse_args
from tests.helpers.cli import one_line_error, run, write_config
from tests.helpers.entries import fixture_entry
from tests.helpers.processes import wait_no_processes
from tests.helpers.servers import FIXTURE_SERVER, free_port
from tests.scripted_llm.server import Turn, fake_llm


def fixture_command(marker: str) -> str:
    return shlex.join([sys.executable, str(FIXTURE_SERVER), "--name", f"fixture-{marker}"])


def test_options_may_stand_anywhere(tmp_path, marker):
    config = write_config(tmp_path, {"a": fixture_entry("a", marker), "b": fixture_entry("b", marker)})
    done = run("call", "a__add", "-c", config, "a=1", "b=2")  # an option between the positional arguments
    assert (done.returncode, done.stdout.strip()) == (0, "3"), done.stderr
    done = run("--config", config, "tools", "--format", "json")  # a global option before the command
    assert done.returncode == 0, done.stderr
    assert {"a__add", "b__add"} <= {t["name"] for t in json.loads(done.stdout)}
    done = run("-c", config, "call", "echo", "--format", "json", "message=hi", "-s", "a")  # one server: no prefix
    assert json.loads(done.stdout)["content"] == [{"type": "text", "text": "hi"}], done.stderr
    done = run("-s", "a", "tools", "-c", config, "--server", "b")  # repeatable options add up across the command
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines() if not line.startswith(" ")] == ["a", "b"]
    done = run("prompt", "greeting", "--config", config, "name=Ada", "--server", "b")
    assert done.returncode == 0, done.stderr
    assert "Ada" in done.stdout
    assert wait_no_processes(marker) == []


def test_global_options_merge_before_and_after_the_command():
    args = parse_args(["-v", "-c", "first.json", "-s", "x", "--url", "http://a.test/mcp", "tools", "-v", "-c",
                       "second.json", "-s", "y", "--command", "srv --flag", "--timeout", "5", "--debug"])
    assert (args.verbose, args.config, args.server) == (2, "second.json", ["x", "y"])
    assert (args.url, args.command, args.timeout, args.debug) == (["http://a.test/mcp"], ["srv --flag"], 5.0, True)
    assert not any(name.endswith("_after_command") for name in vars(args))
    args = parse_args(["call", "t", "k=v", "--timeout", "2", "k2=v2"])
    assert (args.tool, args.arguments, args.timeout, args.verbose, args.server) == ("t", ["k=v", "k2=v2"], 2.0, 0, None)


def test_every_option_and_argument_has_help():
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"{name}: {action.option_strings or action.metavar} has no help text"
    assert "'json' for programs" in run("servers", "--help").stdout
    assert "the prompt's arguments" in run("prompt", "--help").stdout


def test_a_server_from_the_command_line(marker):
    command = fixture_command(marker)
    done = run("servers", "--command", command)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:3] == ["fixture_server", "stdio", "ok"]
    assert DEMO_NOTICE not in done.stderr
    done = run("call", "add", "a=20", "b=22", "--command", command)
    assert (done.returncode, done.stdout.strip()) == (0, "42"), done.stderr
    done = run("tools", "--command", command, "--command", fixture_command(marker))  # two: named apart
    assert done.returncode == 0, done.stderr
    assert "fixture_server: " in done.stdout and "fixture_server-2: " in done.stdout
    assert wait_no_processes(marker) == []


def test_a_command_line_server_joins_the_config_file(tmp_path, marker):
    config = write_config(tmp_path, {"fixture_server": fixture_entry("f", marker)})
    done = run("servers", "-c", config, "--command", fixture_command(marker), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert [row["name"] for row in json.loads(done.stdout)] == ["fixture_server", "fixture_server-2"]
    assert wait_no_processes(marker) == []


def port(url: str) -> str:
    return url.rsplit(":", 1)[1].split("/")[0]


def test_a_remote_server_from_the_command_line(fixture_http):
    streamable, sse = fixture_http["streamable-http"], fixture_http["sse"]
    done = run("servers", "--url", streamable, "--url", sse, "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [(row["name"], row["transport"], row["status"]) for row in rows] == [
        (f"127-0-0-1-{port(streamable)}", "streamable", "ok"), (f"127-0-0-1-{port(sse)}", "sse", "ok")]
    done = run("call", "--url", sse, "add", "a=2", "b=3")
    assert (done.returncode, done.stdout.strip()) == (0, "5"), done.stderr


@pytest.mark.parametrize(("args", "fragment"), [
    (["tools", "--command", ""], "--command needs a command line"),
    (["tools", "--command", "srv 'unclosed"], "No closing quotation"),
    (["tools", "--url", "ftp://example.com/mcp"], "--url needs an http:// or https:// URL, got 'ftp://example.com/mcp'"),
    (["tools", "--url", "example.com/mcp"], "--url needs an http:// or https:// URL"),
    (["tools", "--url", "ftp://x.test/mcp?api_key=sekrit-123"], "got 'ftp://x.test/mcp?api_key=***'"),
])
def test_bad_command_line_servers_are_usage_errors(args, fragment):
    done = run(*args)
    assert done.returncode == 2
    assert fragment in one_line_error(done)
    assert "sekrit" not in done.stderr


def test_a_bad_command_line_is_not_repeated_in_the_error():
    done = run("tools", "--command", "srv --token sekrit-123 'unclosed")
    assert done.returncode == 2
    assert "No closing quotation" in one_line_error(done) and "sekrit" not in done.stderr


def test_the_demo_server_is_announced_on_stderr(tmp_path, marker):
    done = run("tools")
    assert done.returncode == 0, done.stderr
    assert done.stderr == DEMO_NOTICE + "\n"
    assert done.stdout.startswith("demo: ")
    config = write_config(tmp_path, {"fixture": fixture_entry("fixture", marker)})
    done = run("tools", "-c", config)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_every_command_exits_1_when_a_server_did_not_start(tmp_path, marker):
    config = write_config(tmp_path, {"fixture": fixture_entry("fixture", marker),
                                     "broken": {"command": "/nonexistent/srv"}})
    warning = "mcp-litellm: warning: could not start server 'broken'"
    cases = [(["tools"], "fixture:"), (["resources"], "fixture:"), (["prompts"], "greeting(name, time?)"),
             (["call", "add", "a=1", "b=2"], "3"), (["read", "logs://2024-01-15/error"], "all quiet"),
             (["prompt", "greeting", "name=Ada"], "Ada"), (["servers"], "broken")]
    for args, shown in cases:
        done = run(*args, "-c", config)
        assert done.returncode == 1, (args, done.stderr)
        assert shown in done.stdout, (args, done.stdout)
        if args != ["servers"]:
            assert warning in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    with fake_llm([Turn(content="Hello.")]) as llm:
        done = run("chat", "-m", "openai/gpt-4o-mini", "--api-base", llm.url, "--api-key", "sk-x", "-c", config,
                   stdin="hi\n")
    assert (done.returncode, done.stdout) == (1, "Hello.\n"), done.stderr
    assert wait_no_processes(marker) == []


def test_masking_takes_whole_secrets_of_six_characters_or_more():
    assert mask_secrets("Connection refused", ["on"]) == "Connection refused"
    assert mask_secrets("Connection refused", ["onnect"]) == "Connection refused"  # inside a word: not it
    assert mask_secrets("bad key sk-abc123; use another", ["sk-abc123"]) == "bad key ***; use another"
    assert mask_secrets("key=sk-abc123.", ["sk-abc123"]) == "key=***."
    assert mask_secrets("sk-abc1234 is another key", ["sk-abc123"]) == "sk-abc1234 is another key"
    assert mask_secrets("'sk-abc123' and sk-abc123", ["sk-abc123", None]) == "'***' and ***"
    assert mask_secrets("see https://x.test/v1?api_key=zzz", []) == "see https://x.test/v1?api_key=***"


def test_chat_errors_mask_the_api_key_and_nothing_else():
    key = "sk-test-5ecret-key"
    script = [Turn(status=401, content=f"Incorrect API key provided: {key}. Connection details in the docs.")]
    with fake_llm(script) as llm:
        done = run("chat", "-m", "openai/gpt-4o-mini", "--api-base", llm.url, "--api-key", key, stdin="hi\n")
    assert done.returncode == 1
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith("mcp-litellm: error: ") and "Incorrect API key provided: ***." in error, done.stderr
    assert key not in done.stderr and "Connection details" in error
    port = free_port()  # nothing listens there: the provider client reports a connection error
    done = run("chat", "-m", "openai/gpt-4o-mini", "--api-base", f"http://127.0.0.1:{port}/v1", "--api-key", "on",
               stdin="hi\n")
    assert done.returncode == 1
    error = done.stderr.strip().splitlines()[-1]
    assert "Connection" in error and "***" not in error, done.stderr


def test_call_argument_checks_follow_the_schema():
    from mcp_litellm._cli.commands import UsageError, check_arguments

    schema = {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}, "required": ["q"]}
    check_arguments("search", {"q": "x"}, schema)
    with pytest.raises(UsageError, match=r"tool 'search' has no argument\(s\) 'limit' \(arguments: q, n\?\)"):
        check_arguments("search", {"q": "x", "limit": 1}, schema)
    with pytest.raises(UsageError, match=r"tool 'search' needs argument\(s\) 'q' \(arguments: q, n\?\)"):
        check_arguments("search", {"n": 1}, schema)
    check_arguments("search", {"q": "x", "limit": 1}, {**schema, "additionalProperties": True})
    check_arguments("search", {"q": "x", "limit": 1}, {**schema, "additionalProperties": {"type": "integer"}})
    check_arguments("search", {"q": "x", "x-trace": "1"}, {**schema, "patternProperties": {"^x-": {}}})
    check_arguments("search", {"anything": 1}, {"type": "object"})  # a schema that names no properties
    with pytest.raises(UsageError, match=r"tool 'ping' has no argument\(s\) 'a' \(it takes no arguments\)"):
        check_arguments("ping", {"a": 1}, {"type": "object", "properties": {}})


def test_a_timeout_error_names_the_timeout_option(marker):
    # a server that never answers: the connect times out, and the fix offered is the command line's own option
    done = run("tools", "--command", f"sh -c 'sleep 30' {marker}", "--timeout", "1")
    assert done.returncode == 1, done.stderr
    assert "did not finish connecting within 1.0s" in done.stderr and "or raise --timeout" in done.stderr
    assert wait_no_processes(marker) == []


def test_call_argument_types_follow_the_schema():
    from mcp_litellm._cli.commands import UsageError, check_arguments

    schema = {"type": "object", "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}},
              "properties": {"n": {"type": "integer"}, "at": {"$ref": "#/$defs/Point"},
                             "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
                             "size": {"type": "integer", "minimum": 1}}}
    check_arguments("f", {"n": 1, "at": {"x": 1.5}, "tags": None, "size": 0}, schema)  # ranges are the server's
    check_arguments("f", {"n": 2.0, "tags": ["a"]}, schema)  # 2.0 is an integer in JSON Schema
    with pytest.raises(UsageError, match=r"^tool 'f': argument 'n' must be integer, got \"2\" \(string\)$"):
        check_arguments("f", {"n": "2"}, schema)
    with pytest.raises(UsageError, match=r"argument 'at\.x' must be number, got \"far\" \(string\)"):
        check_arguments("f", {"at": {"x": "far"}}, schema)
    with pytest.raises(UsageError, match=r"argument 'at' must be object, got \[\] \(array\)"):
        check_arguments("f", {"at": []}, schema)
    with pytest.raises(UsageError, match=r"argument 'tags' must be string\[\]\|null, got \[1\] \(array\)"):
        check_arguments("f", {"tags": [1]}, schema)
    with pytest.raises(UsageError, match='got "' + "x" * 38 + r"… \(string\)$"):  # a long value is cut
        check_arguments("f", {"n": "x" * 500}, schema)
    # a schema that cannot be read leaves the judgement to the server
    check_arguments("f", {"n": "x"}, {"type": "object", "properties": {"n": {"$ref": "#/$defs/Missing"}}})
    check_arguments("f", {"n": "x"}, {"type": "object", "properties": {"n": {"type": 12}}})


def test_key_value_text_stays_text_where_the_schema_wants_text():
    from mcp_litellm._cli.commands import typed_arguments

    optional_text = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    schema = {"properties": {"q": optional_text, "n": {"type": "integer"}, "v": {"anyOf": [{"type": "integer"},
                                                                                         {"type": "string"}]}}}
    assert typed_arguments({"q": "123", "n": "123", "v": "123"}, schema) == {"q": "123", "n": 123, "v": 123}
