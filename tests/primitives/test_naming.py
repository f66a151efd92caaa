"""Tool names every provider accepts (``^[a-zA-Z0-9_-]{1,64}$``), with prefixes and hashed cuts."""

from __future__ import annotations

import re

import pytest

import mcp_litellm as ml
from mcp_litellm._core.naming import distinct_names, safe_tool_name

SAFE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@pytest.mark.parametrize(("raw", "expected"), [
    ("get_weather", "get_weather"),
    ("get-sum", "get-sum"),
    ("files.read", "files_read"),
    ("say hello/world", "say_hello_world"),
    ("überprüfen", "_berpr_fen"),
    ("", "_"),
])
def test_unsafe_characters_are_replaced(raw, expected):
    assert safe_tool_name(raw) == expected
    assert SAFE.match(safe_tool_name(raw))


def test_prefix_joins_client_and_tool_with_double_underscore():
    assert safe_tool_name("echo", "weather") == "weather__echo"
    assert safe_tool_name("read.file", "my server") == "my_server__read_file"


def test_a_name_of_exactly_64_characters_is_kept():
    name = "a" * 64
    assert safe_tool_name(name) == name


def test_long_names_are_cut_with_a_stable_hash_suffix():
    first = "x" * 60 + "_first_variant"
    second = "x" * 60 + "_second_variant"
    cut_first, cut_second = safe_tool_name(first), safe_tool_name(second)
    assert len(cut_first) == 64 and SAFE.match(cut_first)
    assert cut_first != cut_second, "two long names sharing a start must stay distinct"
    assert cut_first == safe_tool_name(first), "the same input must give the same name"
    assert cut_first.startswith("x" * 55)
    assert re.search(r"_[0-9a-f]{8}$", cut_first)


def test_long_prefixed_names_are_cut_too():
    name = safe_tool_name("t" * 70, "server")
    assert len(name) == 64 and name.startswith("server__t") and SAFE.match(name)


def test_unsafe_names_that_collide_after_replacement_are_not_hashed_apart_unless_long():
    # documented behaviour: replacement alone can make two short names equal; the client keeps both
    # reachable by their MCP names (tool(name) falls back to mcp_name)
    assert safe_tool_name("a.b") == safe_tool_name("a b") == "a_b"


def test_client_tools_use_prefix_and_keep_mcp_name(make_client):
    client = make_client("memory", name="fx", with_prefix=True)
    tools = {t.name: t for t in client.tools()}
    assert "fx__add" in tools and tools["fx__add"].mcp_name == "add"
    assert client.tool("add") is tools["fx__add"], "the server's own name finds the tool too"
    assert client.execute_tool("fx__add", {"a": 1, "b": 2}).text == "3"


def test_distinct_names_hash_only_the_names_that_cleaning_changed():
    assert distinct_names(["a_b", "a_b"], ["a.b", "a_b"]) == [safe_tool_name("a.b") + "_" + _digest("a.b"), "a_b"]
    both = distinct_names(["a_b", "a_b"], ["a.b", "a b"])
    assert len(set(both)) == 2 and all(SAFE.match(n) for n in both)
    assert distinct_names(["x", "y"], ["x", "y"]) == ["x", "y"]
    long = distinct_names(["z" * 64, "z" * 64], ["z" * 64, "z" * 63 + "."])
    assert long[0] == "z" * 64 and len(long[1]) == 64 and long[1] != long[0]


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()[:8]


def _colliding_server(order: list[str]):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("collide")
    for name in order:
        server.add_tool(lambda name=name: f"ran {name}", name=name, description=f"the tool {name}")
    return server


@pytest.mark.parametrize("order", [["a.b", "a_b"], ["a_b", "a.b"]])
def test_tools_whose_safe_names_collide_on_one_server_stay_distinct_and_callable(order):
    client = ml.client("collide", "memory", {"server": _colliding_server(order)})
    try:
        tools = {t.mcp_name: t for t in client.tools()}
        assert tools["a_b"].name == "a_b", "the name that needed no cleaning keeps it"
        assert tools["a.b"].name == "a_b_" + _digest("a.b"), "the cleaned one gets a stable hash suffix"
        definitions = [d["function"]["name"] for d in ml.to_litellm_tools(client.tools())]
        assert len(set(definitions)) == 2
        for mcp_name, tool in tools.items():
            assert tool.execute().text == f"ran {mcp_name}"
            assert client.execute_tool(tool.name).text == f"ran {mcp_name}"
            assert client.execute_tool(tool).text == f"ran {mcp_name}"
    finally:
        client.stop()


def test_a_tool_calls_itself_even_when_its_server_name_is_another_tools_litellm_name():
    """With prefixes, tool ``x`` is called ``srv__x``; a second tool really named ``srv__x`` must not be hit."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("srv")
    server.add_tool(lambda: "ran x", name="x", description="x")
    server.add_tool(lambda: "ran srv__x", name="srv__x", description="srv__x")
    client = ml.client("srv", "memory", {"server": server}, with_prefix=True)
    try:
        tools = {t.mcp_name: t for t in client.tools()}
        assert tools["x"].name == "srv__x" and tools["srv__x"].name == "srv__srv__x"
        assert tools["x"].execute().text == "ran x"
        assert tools["srv__x"].execute().text == "ran srv__x"
        # By name, a LiteLLM name wins over a server's name, whichever tool comes first in the listing
        assert client.execute_tool("srv__x").text == "ran x"
        assert client.execute_tool("srv__srv__x").text == "ran srv__x"
        assert client.execute_tool("x").text == "ran x"
    finally:
        client.stop()


def test_a_call_by_name_finds_a_tool_the_server_added_after_the_listing_was_cached():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("grows")
    server.add_tool(lambda: "ran one", name="one", description="one")
    client = ml.client("grows", "memory", {"server": server})
    try:
        assert client.execute_tool("one").text == "ran one"  # the listing is cached (and indexed) here
        server.add_tool(lambda: "ran two", name="two", description="two")  # no list_changed sent
        assert client.execute_tool("two").text == "ran two"  # not in the index: listed anew, then found
        server.remove_tool("one")
        assert client.execute_tool("one").is_error  # still cached: the server answers for itself
    finally:
        client.stop()


def test_a_group_prefixes_the_distinct_names():
    one = ml.client("one", "memory", {"server": _colliding_server(["a.b", "a_b"])}, start=False)
    two = ml.client("two", "memory", {"server": _colliding_server(["a_b"])}, start=False)
    with ml.ClientGroup([one, two]) as group:
        names = {(t.client.name, t.mcp_name): t.name for t in group.tools()}
        assert len(set(names.values())) == 3
        assert names[("two", "a_b")] == "two__a_b" and names[("one", "a_b")] == "one__a_b"
        assert names[("one", "a.b")] == "a_b_" + _digest("a.b"), "no collision across servers: no prefix"
        for tool in group.tools():
            assert tool.execute().text == f"ran {tool.mcp_name}"


def test_a_long_server_prefix_gives_way_to_the_tool_name():
    server = "a-very-long-server-name-for-the-company-wide-documentation-search"
    name = safe_tool_name("search_documents", server)
    assert name.endswith("__search_documents") and len(name) <= 64
    assert name.startswith("a-very-long-server")
    assert name == safe_tool_name("search_documents", server), "stable"
    assert name != safe_tool_name("search_documents", server + "-2"), "distinct servers stay distinct"
    huge_tool = "t" * 70
    cut = safe_tool_name(huge_tool, server)
    assert len(cut) == 64 and cut != safe_tool_name(huge_tool + "x", server)


def test_a_tool_is_frozen_so_a_cached_instance_is_never_renamed_in_place():
    import dataclasses

    from mcp.server.mcpserver import MCPServer

    server = MCPServer("frozen")

    @server.tool(name="a.b", description="one")
    def first() -> str:
        return "1"

    @server.tool(name="a_b", description="two")
    def second() -> str:
        return "2"

    with ml.client("frozen", "memory", {"server": server}) as client:
        tools = client.tools()
        names = {t.mcp_name: t.name for t in tools}
        assert names["a_b"] == "a_b" and names["a.b"].startswith("a_b_"), "colliding names made distinct by copies"
        with pytest.raises(dataclasses.FrozenInstanceError):
            tools[0].name = "renamed"  # type: ignore[misc]
        assert tools[0].name == names[tools[0].mcp_name]
