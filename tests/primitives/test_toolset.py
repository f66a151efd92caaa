"""The one tool interface: a Client is a Toolset, and the generic wrappers combine, filter and prefix any."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import mcp_litellm as ml
from mcp_litellm._client.primitives.toolset import CallContext, Combined, Filtered, Prefixed, ToolDef, Toolset


async def test_client_is_a_toolset(make_client: Callable[..., ml.Client]) -> None:
    client = make_client("memory")
    toolset: Toolset = client
    tools = await toolset.list_tools()
    assert all(isinstance(tool, ToolDef) for tool in tools)
    assert {tool.server for tool in tools} == {client.name}
    result = await toolset.call_tool("echo", {"message": "hi"}, CallContext(origin="model", tool_call_id="c1"))
    assert result.text == "hi"


async def test_wrappers_rename_narrow_and_route(make_client: Callable[..., ml.Client]) -> None:
    first, second = make_client("memory", name="a"), make_client("memory", name="b")
    only_echo = Filtered(Prefixed(first, "a"), lambda tool: tool.name.endswith("echo"))
    combined = Combined([only_echo, Prefixed(second, "b")])
    names = [tool.name for tool in await combined.list_tools()]
    assert names[0] == "a__echo" and "b__add" in names and "a__add" not in names
    result = await combined.call_tool("a__echo", {"message": "x"}, CallContext())
    assert result.text == "x"
    with pytest.raises(ml.NotFoundError, match="a__add"):
        await combined.call_tool("a__add", {"a": 1, "b": 2}, CallContext())


async def test_combined_refuses_two_tools_of_one_name(make_client: Callable[..., ml.Client]) -> None:
    combined = Combined([make_client("memory", name="a"), make_client("memory", name="b")])
    with pytest.raises(ml.ConfigError, match=r"two tools are named 'add'.*server 'a'.*server 'b'"):
        await combined.list_tools()


def test_context_is_data() -> None:
    ctx = CallContext(origin="code", tool_call_id="c1", timeout=3)
    changed: Any = ctx.but(timeout=1)
    assert (changed.origin, changed.tool_call_id, changed.timeout, ctx.timeout) == ("code", "c1", 1, 3)


async def test_a_program_calls_a_client_or_a_group_as_a_toolset_without_a_context(
        make_client: Callable[..., ml.Client]) -> None:
    client = make_client("memory")
    assert (await client.call_tool("add", {"a": 2, "b": 3})).text == "5"
    assert (await client.call_tool("echo", {"message": "plain"})).text == "plain"
    async with ml.ClientGroup([make_client("memory", name="one"), make_client("memory", name="two")]) as group:
        assert (await group.call_tool("two__add", {"a": 1, "b": 1})).text == "2"
