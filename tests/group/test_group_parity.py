"""``ClientGroup`` does what ``Client`` does (§4 "Group parity"): it is a ``Toolset`` (``list_tools`` /
``call_tool`` with a ``CallContext``), and it has ``execute_tool(task=)``, ``start_task``, ``resource()``
and ``prompt()``, each reaching the one server that has what is asked for. Real servers, in memory."""

from __future__ import annotations

import pytest

import mcp_litellm as ml
from mcp_litellm._client.primitives.toolset import CallContext, Combined, Toolset
from tests.servers.fixture_server import build_server as build_fixture
from tests.servers.task_server import build_server as build_tasks


def _group() -> ml.ClientGroup:
    return ml.ClientGroup([
        ml.Client("fixture", "memory", {"server": build_fixture()}, start=False),
        ml.Client("tasks", "memory", {"server": build_tasks()}, start=False, protocol="legacy"),
    ])


async def test_a_group_is_a_toolset_whose_calls_reach_each_tools_own_server():
    async with _group() as group:
        toolset: Toolset = group
        listed = {tool.name: tool for tool in await toolset.list_tools()}
        assert listed.keys() == {tool.name for tool in await group.atools()}
        assert {"research", "summarize"} <= listed.keys()
        echo = next(name for name, tool in listed.items() if tool.server == "fixture" and tool.mcp_name == "echo")
        result = await toolset.call_tool(echo, {"message": "hi"}, CallContext(origin="model", tool_call_id="c1"))
        assert "hi" in result.text
        done = await toolset.call_tool("research", {"topic": "owls", "delay": 0.01}, CallContext(timeout=10))
        assert done.text == "research done: owls"
        with pytest.raises(ml.NotFoundError):
            await toolset.call_tool("no_such_tool", {}, CallContext())
        combined = Combined([group])  # the generic wrappers take a group like any toolset
        assert [t.name for t in await combined.list_tools()] == list(listed)


async def test_a_calls_timeout_in_its_context_follows_the_one_seconds_rule():
    async with _group() as group:
        with pytest.raises(ml.ConfigError, match="timeout must be a positive number of seconds"):
            await group.call_tool("research", {"topic": "x"}, CallContext(timeout=True))  # type: ignore[arg-type]


def test_execute_tool_runs_an_optional_task_tool_as_a_task_when_asked():
    updates: list[str] = []
    with _group() as group:
        result = group.execute_tool("summarize", {"topic": "bees", "steps": 2}, task=True,
                                    on_progress=lambda p, total, message: updates.append(message or ""))
        assert result.text == "summarize done: bees"  # the task server's own answer for a task
        assert updates, "a task reports its status as progress; a plain call reports none"
        plain: list[str] = []
        assert group.execute_tool("summarize", {"topic": "bees"}, task=False,
                                  on_progress=lambda p, total, message: plain.append(message or "")).text \
            == "summary of bees"
        assert not plain


def test_start_task_starts_the_tool_on_its_own_server():
    with _group() as group:
        task = group.start_task("research", {"topic": "moths", "delay": 0.01}, ttl=60)
        assert task.result(timeout=10).text == "research done: moths"
        with pytest.raises(ml.NotFoundError):
            group.start_task("no_such_tool")


async def test_resource_and_prompt_come_from_the_one_server_that_has_them():
    async with _group() as group:
        readme = await group.aresource("readme")
        assert str(readme.uri) == "file:///docs/readme.md" and readme.client is group["fixture"]
        prompt = await group.aprompt("greeting")
        assert prompt.name == "greeting" and prompt.client is group["fixture"]
        with pytest.raises(ml.NotFoundError, match="no_such_prompt"):
            await group.aprompt("no_such_prompt")
    with _group() as group:
        assert group.resource("readme").name == "readme"
        assert group.prompt("review").name == "review"


async def test_a_name_two_servers_offer_asks_for_one_of_them():
    group = ml.ClientGroup([ml.Client("a", "memory", {"server": build_fixture()}, start=False),
                            ml.Client("b", "memory", {"server": build_fixture()}, start=False)])
    async with group:
        with pytest.raises(ml.ConfigError, match=r"offered by several servers \('a', 'b'\).*group\[server\]"):
            await group.aprompt("greeting")
        assert (await group["b"].aprompt("greeting")).client is group["b"]
