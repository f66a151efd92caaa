"""Tools of the fixture server on every transport: listing, cache, pagination, results, progress."""

from __future__ import annotations

import threading
import warnings
from typing import Any

import pytest
from mcp_types import ImageContent, TextContent

import mcp_litellm as ml
from tests.servers.fixture_server import build_paging_server


def test_tools_are_listed_cached_and_refreshed(make_client, transport):
    client = make_client(transport)
    tools = client.tools()
    names = {t.name for t in tools}
    assert {"add", "echo", "weather", "picture", "grow"} <= names
    assert client.tools() == tools and client.tools()[0] is tools[0], "the second call is served from the cache"
    refreshed = client.tools(refresh=True)
    assert refreshed[0] is not tools[0] and {t.name for t in refreshed} == names
    add = client.tool("add")
    assert add.mcp_name == "add" and add.client is client and add.description == "Add two integers."
    assert add.input_schema["required"] == ["a", "b"]
    assert add.annotations.read_only_hint is False and add.annotations.destructive_hint is True
    with pytest.raises(ml.NotFoundError) as info:
        client.tool("nope")
    assert "add" in info.value.available


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_list_changed_from_the_server_invalidates_the_tool_cache(make_client, transport, protocol):
    client = make_client(transport, protocol=protocol)
    changed = threading.Event()
    kinds: list[str] = []
    client.on_list_changed(lambda kind: (kinds.append(kind), kind == "prompts" and changed.set()))
    before = {t.name for t in client.tools()}
    prompts_before = {p.name for p in client.prompts()}
    count = client.execute_tool("grow").text.split()[-1]
    assert changed.wait(10), f"no list_changed arrived ({protocol})"
    assert {t.name for t in client.tools()} - before == {f"surprise_{count}"}, "the cached list was dropped"
    assert {p.name for p in client.prompts()} - prompts_before == {f"later_{count}"}
    assert {"tools", "prompts", "resources"} <= set(kinds)


def test_pagination_collects_every_page():
    for protocol in ("legacy", "auto"):
        client = ml.client("paging", "memory", {"server": build_paging_server(pages=3, per_page=2)},
                           protocol=protocol)
        try:
            assert [t.name for t in client.tools()] == [f"tool_{p}_{i}" for p in range(3) for i in range(2)]
            assert len(client.prompts()) == 6
        finally:
            client.stop()


def test_pagination_stops_on_a_repeated_cursor(caplog):
    client = ml.client("loop", "memory", {"server": build_paging_server(repeat_cursor=True)})
    try:
        with caplog.at_level("WARNING", logger="mcp_litellm"):
            tools = client.tools()
        assert [t.name for t in tools] == ["tool_0_0", "tool_0_1", "tool_1_0", "tool_1_1"]
        assert "repeated pagination cursor" in caplog.text
    finally:
        client.stop()


def test_results_keep_text_images_and_structure(make_client, transport):
    client = make_client(transport)
    assert client.tool("add").execute(a=2, b=3).text == "5"
    picture = client.execute_tool("picture")
    text, image = picture.content
    assert isinstance(text, TextContent) and isinstance(image, ImageContent) and image.mime_type == "image/png"
    assert picture.media_parts()[0]["image_url"]["url"].startswith("data:image/png;base64,")
    weather = client.tool("weather").execute(city="Oslo")
    assert weather.structured == {"city": "Oslo", "temperature": 21.5, "conditions": "sunny"}
    assert not weather.is_error
    failed = client.execute_tool("fail", {"reason": "kaputt"})
    assert failed.is_error and failed.to_message("c1")["content"].startswith("Error executing tool fail")


def test_structured_content_violating_the_output_schema_is_an_error_result(make_client, transport):
    client = make_client(transport)
    tool = client.tool("bad_weather")
    assert tool.output_schema is not None and "temperature" in tool.output_schema["properties"]
    result = tool.execute(city="Oslo")
    assert result.is_error
    assert "did not match its output schema" in result.text
    message = result.to_message("call_9")
    assert message["role"] == "tool" and message["content"].startswith("Error")


def test_max_result_chars_cuts_with_a_marker(make_client, transport):
    client = make_client(transport, max_result_chars=50)
    result = client.execute_tool("long_text", {"n": 500})
    assert result.truncated_chars == 450
    assert result.text.startswith("x" * 50) and "450 of 500 characters cut" in result.text
    assert make_client(transport).execute_tool("long_text", {"n": 500}).text == "x" * 500


def test_progress_reaches_the_call_and_the_client_handlers(make_client, transport):
    client = make_client(transport)
    per_call: list[tuple] = []
    client_level: list[tuple] = []
    three_args: list[tuple] = []
    done = threading.Event()

    def on_client(progress, total, message, tool):
        client_level.append((progress, total, message, tool))
        if progress == total:
            done.set()

    client.on_progress(on_client).on_progress(lambda p, t, m: three_args.append((p, t, m)))
    result = client.tool("slow").execute(seconds=0.03, steps=3, on_progress=lambda *a: per_call.append(a))
    assert result.text == "slept 0.03"
    assert done.wait(10)
    assert client_level[-1] == (3, 3, "step 3/3", "slow")
    assert sorted(client_level) == [(i, 3, f"step {i}/3", "slow") for i in (1, 2, 3)]
    assert sorted(per_call) == [(i, 3, f"step {i}/3") for i in (1, 2, 3)]


def test_progress_handlers_take_one_update_naming_the_tool_and_server(make_client):
    client = make_client("memory")
    client_level: list[ml.ProgressUpdate] = []
    per_call: list[ml.ProgressUpdate] = []
    legacy: list[tuple] = []

    def old_form(progress, total=None, message=None):  # takes three: called as in earlier releases
        legacy.append((progress, total, message))

    client.on_progress(client_level.append).on_progress(old_form)
    client.tool("slow").execute({"seconds": 0.03, "steps": 2}, on_progress=lambda update: per_call.append(update))
    expected = [ml.ProgressUpdate(i, 2, f"step {i}/2", "slow", client.name) for i in (1, 2)]
    assert per_call == expected and client_level == expected
    assert legacy == [(i, 2, f"step {i}/2") for i in (1, 2)]
    client.off_progress(client_level.append)  # a bound method compares equal to itself, not identical
    client.tool("slow").execute({"seconds": 0.01, "steps": 1})
    assert len(client_level) == 2 and len(legacy) == 3


async def test_async_twins(make_client):
    client = make_client("memory")
    tools = await client.atools()
    assert (await client.atool("echo")).name == "echo" and len(tools) > 5
    assert (await client.aexecute_tool("add", {"a": 1, "b": 1})).text == "2"
    assert (await client.tool("echo").aexecute(message="hi")).text == "hi"


def test_a_mapping_holds_the_tool_arguments_and_keywords_are_the_calls_options():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("jobs")

    @server.tool(description="Wait for a job")
    def wait_job(job: str, timeout: int) -> str:
        return f"waited for {job} up to {timeout}s"

    @server.tool(description="Sleep, with a timeout of its own")
    async def nap(seconds: float, timeout: float = 0) -> str:
        import asyncio

        await asyncio.sleep(seconds)
        return f"rested (own timeout {timeout})"

    client = ml.client("jobs", "memory", {"server": server})
    try:
        tool = client.tool("wait_job")
        arguments = {"job": "build", "timeout": 30}
        assert tool.execute(arguments, timeout=5).text == "waited for build up to 30s"
        assert arguments == {"job": "build", "timeout": 30}, "the caller's mapping is never changed"
        # with a mapping, timeout= is the call's deadline even though the tool has an argument of that name
        with pytest.raises(ml.TimeoutError):
            client.tool("nap").execute({"seconds": 5, "timeout": 99}, timeout=0.2)
        missing = tool.execute({"job": "build"}, timeout=5)  # not smuggled into the tool's arguments
        assert missing.is_error and "timeout" in missing.text
        # the keyword form keeps working for a name the schema declares, with a warning saying how to write it
        with pytest.warns(DeprecationWarning, match=r"execute\(\{'timeout': \.\.\.\}\)"):
            assert tool.execute(**arguments).text == "waited for build up to 30s"
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # keywords the schema does not declare as options: no warning
            assert client.tool("nap").execute(seconds=0, on_progress=print).text == "rested (own timeout 0)"
        with pytest.raises(ml.ConfigError, match="mapping"):
            tool.execute(["build"])  # type: ignore[arg-type]
    finally:
        client.stop()


async def test_the_async_twins_keep_options_and_arguments_apart():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("jobs")

    @server.tool(description="Echo the task flag")
    def flagged(task: str) -> str:
        return f"task={task}"

    client = ml.client("jobs", "memory", {"server": server})
    try:
        tool = await client.atool("flagged")
        arguments = {"task": "compile"}
        assert (await tool.aexecute(arguments, timeout=5)).text == "task=compile"
        assert arguments == {"task": "compile"}
        with pytest.warns(DeprecationWarning, match="aexecute"):
            assert (await tool.aexecute(task="lint")).text == "task=lint"  # type: ignore[arg-type]
    finally:
        await client.astop()


def counting_server(ttl_ms: int | None, calls: list[str]) -> Any:
    """A low-level server whose tools/list says how long it may be cached (``ttl_ms``; None: it says nothing)."""
    from mcp.server.lowlevel.server import Server
    from mcp_types import CallToolResult, ListToolsResult, TextContent
    from mcp_types import Tool as SdkTool

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        calls.append("list")
        tools = [SdkTool(name="ping_me", description="pong", input_schema={"type": "object"})]
        return ListToolsResult(tools=tools) if ttl_ms is None else ListToolsResult(tools=tools, ttl_ms=ttl_ms)

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="pong")])

    return Server("counting", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_list_caching_follows_the_servers_ttl_hint(protocol):
    for ttl_ms, lists_expected in ((0, 3), (60_000, 1)):
        calls: list[str] = []
        client = ml.client("counting", "memory", {"server": counting_server(ttl_ms, calls)}, protocol=protocol)
        try:
            client.tools()
            client.tools()
            assert client.execute_tool("ping_me").text == "pong"  # a lookup by name takes the cached list
            client.tools()
            modern = not client.protocol_version.startswith(("2024", "2025"))
            assert modern == (protocol == "auto")
            # ttlMs is a 2026-07-28 field: 2025-era servers do not send it, and their lists stay cached
            assert calls.count("list") == (lists_expected if modern else 1), (protocol, ttl_ms, calls)
        finally:
            client.stop()
