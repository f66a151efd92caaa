"""Issue 14, defects 9-12: results that slip past max_result_chars, streamed calls that share an id,
roots that are not paths, and server names that make tool names collide by construction."""

from __future__ import annotations

import json

import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents

import mcp_litellm as ml


def big_resources_server() -> MCPServer:
    server = MCPServer("big")

    @server.tool(description="Return a huge embedded text resource and a resource link.")
    def dump() -> list[object]:
        embedded = EmbeddedResource(type="resource", resource=TextResourceContents(
            uri="file:///big.txt", mime_type="text/plain", text="r" * 1_000_000))
        link = ResourceLink(type="resource_link", uri="file:///other.txt", name="other" * 200)
        return [TextContent(type="text", text="head"), embedded, link]

    return server


def test_max_result_chars_counts_embedded_resources_and_links():
    client = ml.client("big", "memory", {"server": big_resources_server()}, max_result_chars=1000)
    try:
        result = client.execute_tool("dump")
        message = result.to_message("call_1")
        assert len(message["content"]) < 1200, "the cap holds for every block, not only text blocks"
        assert result.truncated_chars > 1_000_000 - 1000
        assert "characters cut" in message["content"]
        assert all(isinstance(b, TextContent) for b in result.content)
    finally:
        client.stop()


@pytest.mark.parametrize("bad", ["/tmp/with\0nul", ""])
def test_a_root_that_is_not_a_path_is_a_config_error(bad):
    with pytest.raises(ml.ConfigError, match="root"):
        ml.client("rooted", "memory", {"server": big_resources_server()}, roots=[bad], start=False)


def test_servers_whose_names_collide_by_construction_do_not_break_the_group():
    first, second, third = MCPServer("a"), MCPServer("a__b"), MCPServer("other")

    @first.tool(name="b__plain", description="b__plain on server a")
    def first_b_plain() -> str:
        return "a: b__plain"

    @second.tool(name="plain", description="plain on server a__b")
    def second_plain() -> str:
        return "a__b: plain"

    @third.tool(name="plain", description="plain on server other")
    def third_plain() -> str:
        return "other: plain"

    clients = [ml.client(name, "memory", {"server": server}, start=False)
               for name, server in (("a", first), ("a__b", second), ("other", third))]
    with ml.establish_connection(clients, with_prefix=True) as group:
        tools = group.tools()
        names = [t.name for t in tools]
        assert len(names) == len(set(names)) == 3, names
        assert "a__b__plain" in names and "other__plain" in names, "the other servers' names are unchanged"
        renamed = next(n for n in names if n not in ("a__b__plain", "other__plain"))
        assert renamed.startswith("a__b__plain_") and len(renamed) == len("a__b__plain_") + 8
        ran = {t.name: t.execute().text for t in tools}
        assert ran == {"a__b__plain": "a__b: plain", "other__plain": "other: plain", renamed: "a: b__plain"}


@pytest.mark.parametrize("streamed", [True, False])
def test_two_parallel_calls_sharing_an_id_both_run_with_distinct_ids_in_the_history(llm, make_client, streamed):
    from tests.helpers.chat import assert_history_valid, new_chat
    from tests.scripted_llm.openai import Turn, chunk

    client = make_client("memory")
    calls = [("dup", "add", {"a": 1, "b": 1}), ("dup", "add", {"a": 2, "b": 2})]
    if streamed:
        raw = [chunk({"tool_calls": [{"index": 0, "id": "dup", "type": "function",
                                      "function": {"name": "add", "arguments": '{"a": 1,'}}]}),
               chunk({"tool_calls": [{"index": 1, "id": "dup", "type": "function",
                                      "function": {"name": "add", "arguments": '{"a": 2,'}}]}),
               chunk({"tool_calls": [{"index": 0, "id": "dup", "function": {"arguments": ' "b": 1}'}}]}),
               chunk({"tool_calls": [{"index": 1, "function": {"arguments": ' "b": 2}'}}]}),
               chunk({}, "tool_calls")]
        llm.then(Turn(raw_chunks=raw), Turn(content="2 and 4"))
    else:
        llm.then(Turn(tool_calls=calls), Turn(content="2 and 4"))
    chat = new_chat().with_tools(client.tool("add"))
    reply = list(chat.stream("add twice"))[-1] if streamed else chat.ask("add twice")
    assert reply is not None
    sent = chat.messages[1]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in sent] == [{"a": 1, "b": 1}, {"a": 2, "b": 2}]
    ids = [c["id"] for c in sent]
    assert ids[0] == "dup" and ids[1] != "dup" and len(set(ids)) == 2
    assert [m["content"] for m in llm.tool_messages(1)] == ["2", "4"]
    assert_history_valid(chat.messages)
