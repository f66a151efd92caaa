"""ClientGroup / establish_connection against real fixture servers over stdio."""

from __future__ import annotations

import json
import re
import sys
import time

import pytest

import mcp_litellm as ml
from mcp_litellm.demo_server import build_server
from tests.helpers.entries import fixture_entry
from tests.helpers.processes import processes_with, wait_no_processes

DEMO_TOOLS = {"add", "word_count", "roll_dice", "countdown", "write_haiku", "greet"}


def test_collisions_get_prefixes_and_route_to_their_server(marker, fixture_tools):
    config = {"mcpServers": {"one": fixture_entry("one", marker), "two": fixture_entry("two", marker)}}
    with ml.establish_connection(config) as clients:
        assert clients.names == ["one", "two"] and len(clients) == 2
        assert {c.name for c in clients} == {"one", "two"}
        assert len(processes_with(marker)) == 2
        names = [t.name for t in clients.tools()]
        assert sorted(names) == sorted([f"one__{n}" for n in fixture_tools] + [f"two__{n}" for n in fixture_tools])
        pid_one = int(clients.tool("one__pid").execute().text)
        pid_two = int(clients.tool("two__pid").execute().text)
        assert pid_one != pid_two
        assert pid_one == int(clients["one"].execute_tool("pid").text)
        assert clients["two"].server_info.name == f"two-{marker}"
        # the clients themselves keep their servers' names
        assert {t.name for t in clients["one"].tools()} == fixture_tools
    assert wait_no_processes(marker) == []
    assert not clients["one"].is_alive() and not clients["two"].is_alive()


def test_only_colliding_names_are_prefixed(marker, fixture_tools):
    config = {"mcpServers": {"fixture": fixture_entry("fixture", marker), "demo": {"server": build_server()}}}
    with ml.establish_connection(config) as clients:
        names = {t.name for t in clients.tools()}
        shared = fixture_tools & DEMO_TOOLS
        assert "add" in shared and "word_count" not in shared
        assert names == ({f"fixture__{n}" for n in shared} | {f"demo__{n}" for n in shared}
                         | (fixture_tools - shared) | (DEMO_TOOLS - shared))
        assert clients.tool("word_count").execute(text="a b c").structured == {"words": 3, "characters": 5}
        assert clients.tool("demo__add").execute(a=2, b=3).text == "5"
        with pytest.raises(ml.NotFoundError) as info:
            clients.tool("add")
        assert "fixture__add" in str(info.value)
        for tool in clients.tools():
            assert len(tool.name) <= 64 and tool.name.replace("_", "").replace("-", "").isalnum()


def test_a_tool_name_several_servers_offer_says_which():
    config = {"mcpServers": {"a": {"server": build_server()}, "b": {"server": build_server()}}}
    with ml.establish_connection(config) as clients, pytest.raises(ml.NotFoundError) as info:
        clients.tool("add")
    assert str(info.value) == ("tool 'add' is offered by several servers ('a', 'b'); use its name in the group: "
                               "'a__add' or 'b__add'")


def test_with_prefix_modes(marker, fixture_tools):
    demo = {"server": build_server()}
    config = {"mcpServers": {"fixture": fixture_entry("fixture", marker), "demo": demo}}
    with ml.establish_connection(config, with_prefix=True) as clients:
        assert {t.name for t in clients.tools()} == (
            {f"fixture__{n}" for n in fixture_tools} | {f"demo__{n}" for n in DEMO_TOOLS})
        # a server's own tool name finds the tool when only one server has it
        assert clients.tool("word_count").name == "demo__word_count"
    with ml.establish_connection(config, with_prefix=False) as clients:
        with pytest.raises(ml.ConfigError) as info:
            clients.tools()
        assert "'add'" in str(info.value) and "with_prefix" in str(info.value)
    # excluding one of the colliding tools in the config resolves it
    config_without_add = {"mcpServers": {"fixture": fixture_entry("fixture", marker, exclude_tools=["add"]),
                                         "demo": demo}}
    with ml.establish_connection(config_without_add, with_prefix=False) as clients:
        assert {t.name for t in clients.tools()} == (fixture_tools - {"add"}) | DEMO_TOOLS
    config = {"mcpServers": {"fixture": fixture_entry("fixture", marker, with_prefix=False),
                             "demo": {"server": build_server(), "with_prefix": True}}}
    with ml.establish_connection(config) as clients:
        names = {t.name for t in clients.tools()}
        assert "add" in names and "demo__add" in names and "demo__word_count" in names


def test_no_prefix_server_collision_raises(marker):
    config = {"mcpServers": {"fixture": fixture_entry("fixture", marker, with_prefix=False),
                             "demo": {"server": build_server()}}}
    with ml.establish_connection(config) as clients, \
            pytest.raises(ml.ConfigError, match="'add' of server 'fixture' is also offered by server"):
        clients.tools()


def test_filtering_per_call_and_per_server(marker, fixture_tools):
    config = {"mcpServers": {
        "fixture": fixture_entry("fixture", marker, exclude_tools=["crash", "ask_*", "add"]),
        "demo": {"server": build_server(), "include_tools": ["add", "word_*"]},
    }}
    with ml.establish_connection(config) as clients:
        names = {t.name for t in clients.tools()}
        # the fixture's add is excluded by its config, so the demo's add needs no prefix
        assert names == (fixture_tools - {"crash", "ask_model", "ask_user", "add"}) | {"add", "word_count"}
        assert clients.tool("add").client is clients["demo"]
        offered = (fixture_tools - {"crash", "ask_model", "ask_user", "add"}) | {"add", "word_count"}
        assert {t.name for t in clients.tools(include=["e*", "add"])} == {n for n in offered if n[0] == "e"} | {"add"}
        assert {t.name for t in clients.tools(include=["demo__*"])} == {"add", "word_count"}
        assert {t.name for t in clients.tools(exclude=["fixture__*"])} == {"add", "word_count"}
        assert {t.name for t in clients.tools(include=["*o*"], exclude=["*_*"])} == {
            n for n in offered if "o" in n and "_" not in n} >= {"echo", "roots", "slow"}
        assert {t.name for t in clients.tools(include=["*__add"])} == {"add"}
        assert clients.tools(include=[]) == []


def test_a_client_from_a_config_carries_its_tool_filters():
    config = {"mcpServers": {"files": {"server": build_server(), "exclude_tools": ["roll_*", "countdown"]},
                             "only": {"server": build_server(), "include_tools": ["add"]}}}
    with ml.establish_connection(config) as clients:
        files, only = clients["files"], clients["only"]
        assert {t.name for t in files.tools()} == DEMO_TOOLS - {"roll_dice", "countdown"}
        assert [t.name for t in only.tools()] == ["add"]
        assert files.execute_tool("add", {"a": 1, "b": 2}).text == "3"
        for client, name, setting in ((files, "roll_dice", "exclude_tools"), (files, "countdown", "exclude_tools"),
                                      (only, "word_count", "include_tools")):
            with pytest.raises(ml.NotFoundError) as info:
                client.execute_tool(name, {})
            assert setting in str(info.value) and name in str(info.value)
            with pytest.raises(ml.NotFoundError):
                client.tool(name)
        with pytest.raises(ml.NotFoundError) as info:
            files.tool("nothing")
        assert "exclude_tools" not in str(info.value)
    client = ml.load_config(config)["files"].client()
    assert client.tool_filter is not None and not client.is_alive()


def test_server_names_that_clean_to_the_same_prefix_stay_distinct():
    names = {}
    for order in (["github.com", "github_com"], ["github_com", "github.com"]):
        config = {"mcpServers": {name: {"server": build_server(name)} for name in order}}
        with ml.establish_connection(config) as clients:
            tools = clients.tools()
            assert len({t.name for t in tools}) == len(tools) == 2 * len(DEMO_TOOLS)
            assert clients.tool("github_com__add").client is clients["github_com"]
            dotted = next(t for t in tools if t.client is clients["github.com"] and t.mcp_name == "add")
            assert re.fullmatch(r"github_com_[0-9a-f]{8}__add", dotted.name)
            assert clients.tool(dotted.name).execute(a=1, b=2).text == "3"
            names[tuple(order)] = sorted(t.name for t in tools)
    assert len(set(map(tuple, names.values()))) == 1  # the same names whatever the order


def test_failing_server_strict_stops_the_others(marker):
    config = {"mcpServers": {"one": fixture_entry("one", marker), "two": fixture_entry("two", marker),
                             "broken": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]}}}
    group = ml.ClientGroup(config)
    with pytest.raises(ml.TransportError) as info, group:
        pytest.fail("the block must not run")
    assert "'broken'" in str(info.value)
    assert wait_no_processes(marker) == []
    assert not any(c.is_alive() for c in group)


def test_a_server_that_exits_at_start_reports_its_stderr():
    script = ("import os, sys; print('starting', file=sys.stderr); "
              "print('fatal: cannot start with token', os.environ['TOKEN'], file=sys.stderr); sys.exit(3)")
    config = {"mcpServers": {"bad": {"command": sys.executable, "args": ["-c", script],
                                     "env": {"TOKEN": "s3cr3t-value"}}}}
    with pytest.raises(ml.TransportError) as info:
        ml.ClientGroup(config).start()
    message = str(info.value)
    assert "server 'bad'" in message
    assert "it exited with status 3; its stderr ended with: starting | fatal: cannot start with token ***" in message
    assert "s3cr3t" not in message


def test_several_failures_are_all_named(marker):
    config = {"mcpServers": {"ok": fixture_entry("ok", marker), "missing": {"command": "/nonexistent/mcp-server"},
                             "exits": {"command": sys.executable, "args": ["-c", "pass"]}}}
    with pytest.raises(ml.TransportError) as info, ml.establish_connection(config):
        pass
    assert "'missing'" in str(info.value)  # strict: raised at the first failure (the others are cancelled)
    assert wait_no_processes(marker) == []
    group = ml.ClientGroup(config, strict=False)
    with group:
        assert sorted(group.failed) == ["exits", "missing"] and group.names == ["ok"]
    assert wait_no_processes(marker) == []


def test_strict_start_fails_at_the_first_failure(marker):
    config = {"mcpServers": {"slow": {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)", marker]},
                             "broken": {"command": "/nonexistent/srv"}}}
    began = time.monotonic()
    with pytest.raises(ml.TransportError, match="could not start server 'broken': command not found"):
        ml.ClientGroup(config, request_timeout=30).start()
    assert time.monotonic() - began < 10  # not the 30 s the slow server would take to time out
    assert wait_no_processes(marker) == []


def test_failing_server_not_strict_keeps_the_others(marker, fixture_tools):
    config = {"mcpServers": {"one": fixture_entry("one", marker), "missing": {"command": "/nonexistent/mcp-server"}}}
    with ml.establish_connection(config, strict=False) as clients:
        assert clients.names == ["one"]
        assert list(clients.failed) == ["missing"]
        assert "command not found" in str(clients.failed["missing"])
        assert "missing" not in clients and clients.get("missing") is None
        with pytest.raises(ml.TransportError, match="'missing' is not available: it failed to start"):
            clients["missing"]
        assert {t.name for t in clients.tools()} == fixture_tools
        assert "failed=['missing']" in repr(clients)
        assert len(processes_with(marker)) == 1
    assert wait_no_processes(marker) == []


def test_error_in_the_block_still_stops_everything(marker):
    config = {"mcpServers": {"one": fixture_entry("one", marker), "two": fixture_entry("two", marker)}}
    with pytest.raises(RuntimeError, match="user code"), ml.establish_connection(config):
        assert len(processes_with(marker)) == 2
        raise RuntimeError("user code")
    assert wait_no_processes(marker) == []


def test_servers_start_concurrently(marker):
    """Each server sleeps 2 s before it starts: one after another would take at least 6 s."""
    delay = 2.0
    config = {"mcpServers": {
        name: {"command": "/bin/sh",
               "args": ["-c", f'sleep {delay}; exec "$0" "$@"', sys.executable, *fixture_entry(name, marker)["args"]]}
        for name in ("a", "b", "c")
    }}
    started = time.monotonic()
    with ml.establish_connection(config) as clients:
        elapsed = time.monotonic() - started
        assert all(c.is_alive() for c in clients) and len(clients) == 3
    assert elapsed >= delay
    assert elapsed < 3 * delay, f"3 servers took {elapsed:.1f}s to start; sequential would be >= {3 * delay}s"
    assert wait_no_processes(marker) == []


def test_disabled_servers_and_server_selection(marker, fixture_tools):
    config = {"mcpServers": {"one": fixture_entry("one", marker), "two": fixture_entry("two", marker),
                             "off": {"command": "/nonexistent/never-started", "disabled": True}}}
    with ml.establish_connection(config) as clients:
        assert clients.names == ["one", "two"]
        assert set(clients.configs) == {"one", "two"}
    with ml.establish_connection(config, servers=["two"]) as clients:
        assert clients.names == ["two"]
        assert {t.name for t in clients.tools()} == fixture_tools
    with pytest.raises(ml.NotFoundError, match="no server named 'three'"):
        ml.establish_connection(config, servers=["three"]).__enter__()
    assert wait_no_processes(marker) == []


def test_a_disabled_server_is_named_as_disabled():
    config = {"mcpServers": {"on": {"server": build_server()}, "off": {"command": "x", "disabled": True}}}
    with ml.establish_connection(config) as clients:
        assert clients.names == ["on"] and clients.disabled == ["off"]
        with pytest.raises(ml.NotFoundError, match=r"server 'off' is disabled in the config"):
            clients["off"]
        with pytest.raises(ml.NotFoundError, match=r"no server named 'other'"):
            clients["other"]
    with pytest.raises(ml.ConfigError, match=r"server 'off' is disabled in the config .*remove that setting"):
        ml.ClientGroup(config, servers=["on", "off"])


def test_config_file_path(tmp_path, marker):
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"one": fixture_entry("one", marker)}}))
    with ml.establish_connection(str(path)) as clients:
        assert clients["one"].ping()
    with ml.establish_connection(ml.load_config(path)) as clients:
        assert clients["one"].ping()
    assert wait_no_processes(marker) == []


def test_group_of_clients(marker):
    one = ml.client("one", "stdio", fixture_entry("one", marker), start=False)
    demo = ml.client("demo", "memory", {"server": build_server()}, start=False, with_prefix=True)
    with ml.establish_connection([one, demo]) as clients:
        assert one.is_alive() and demo.is_alive()
        assert clients["one"] is one
        names = {t.name for t in clients.tools()}
        assert "add" in names and "demo__add" in names  # the prefixed client already avoids the collision
    assert not one.is_alive() and not demo.is_alive()
    with pytest.raises(ml.ConfigError, match="unique"):
        ml.ClientGroup([one, ml.client("one", "memory", {"server": build_server()}, start=False)])
    with pytest.raises(ml.ConfigError, match="Client objects"):
        ml.ClientGroup(["not a client"])  # type: ignore[list-item]


def test_client_options_reach_every_client(marker):
    config = {"mcpServers": {"one": fixture_entry("one", marker), "two": fixture_entry("two", marker,
                                                                                        request_timeout=3)}}
    group = ml.ClientGroup(config, request_timeout=9)
    assert group["one"].request_timeout == 9.0
    assert group["two"].request_timeout == 3.0  # the server's own setting wins
    with pytest.raises(ml.ConfigError, match="unknown option"):
        ml.ClientGroup(config, not_an_option=True)


async def test_async_group(marker):
    config = {"mcpServers": {"one": fixture_entry("one", marker), "demo": {"server": build_server()}}}
    async with ml.aestablish_connection(config) as clients:
        assert isinstance(clients, ml.ClientGroup)
        tools = await clients.atools(include=["*add"])
        assert sorted(t.name for t in tools) == ["demo__add", "one__add"]
        result = await (await clients.atool("one__add")).aexecute(a=20, b=22)
        assert result.text == "42"
    assert wait_no_processes(marker) == []
    group = ml.ClientGroup({"mcpServers": {"missing": {"command": "/nonexistent/x"}}})
    with pytest.raises(ml.TransportError, match="command not found"):
        async with group:
            pass


def test_prefixed_names_stay_provider_safe():
    long_a = "a-server-with-a-really-long-name.that-goes-on-and-on-and-on-forever"
    long_b = long_a.replace("forever", "and-ever")
    config = {"mcpServers": {long_a: {"server": build_server()}, long_b: {"server": build_server()}}}
    with ml.establish_connection(config) as clients:
        tools = clients.tools()
        names = [t.name for t in tools]
        assert len(names) == len(set(names)) == 2 * len(DEMO_TOOLS)
        for tool in tools:
            assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool.name), tool.name
        add_a = next(t for t in tools if t.client.name == long_a and t.mcp_name == "add")
        assert add_a.execute(a=1, b=1).text == "2"
        assert clients.tool(add_a.name) is not None


def _tools_only_server():
    """A low-level server that offers tools only (no resources or prompts capability)."""
    from mcp.server.lowlevel.server import Server
    from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

    async def list_tools(ctx, params):
        return ListToolsResult(tools=[Tool(name="ping_back", input_schema={"type": "object"})])

    async def call_tool(ctx, params):
        return CallToolResult(content=[TextContent(type="text", text="pong")])

    return Server("tools-only", on_list_tools=list_tools, on_call_tool=call_tool)


def test_merged_resources_templates_and_prompts():
    config = {"mcpServers": {"bare": {"server": _tools_only_server()}, "demo": {"server": build_server()}}}
    with ml.establish_connection(config) as clients:
        assert clients["bare"].capabilities.resources is None
        assert {t.name for t in clients.tools()} == DEMO_TOOLS | {"ping_back"}
        assert clients.tool("ping_back").execute().text == "pong"
        resources = clients.resources()
        assert [(str(r.uri), r.client.name) for r in resources] == [("demo://about", "demo")]
        assert "demo server" in resources[0].content()
        templates = clients.resource_templates()
        assert [(t.uri_template, t.client.name) for t in templates] == [("demo://notes/{topic}", "demo")]
        assert "Model Context Protocol" in templates[0].to_content({"topic": "mcp"})
        prompts = clients.prompts()
        assert [(p.name, p.client.name) for p in prompts] == [("summarize", "demo")]
        assert "haiku" in prompts[0].messages({"text": "x", "style": "haiku"})[0]["content"]


async def test_merged_listings_async(marker, fixture_tools):
    config = {"mcpServers": {"fixture": fixture_entry("fixture", marker), "demo": {"server": build_server()}}}
    async with ml.aestablish_connection(config) as clients:
        resources, templates, prompts = await clients.aresources(), await clients.aresource_templates(), \
            await clients.aprompts()
        assert {r.client.name for r in resources} == {"fixture", "demo"}
        assert "demo://about" in {str(r.uri) for r in resources}
        assert "file:///docs/readme.md" in {str(r.uri) for r in resources}
        assert {"logs://{date}/{level}", "demo://notes/{topic}"} <= {t.uri_template for t in templates}
        assert {"greeting", "review", "summarize"} <= {p.name for p in prompts}
    assert wait_no_processes(marker) == []
