"""Tool names every provider accepts (``^[a-zA-Z0-9_-]{1,64}$``), with prefixes and hashed cuts."""

from __future__ import annotations

import re

import pytest

from mcp_litellm._naming import safe_tool_name

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
