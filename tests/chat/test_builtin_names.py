"""A server's tool named like one of the chat's built-in tools (``search_tools``, ``read_result``, ``run_code``):
both are offered, the built-in as ``mcp_litellm_<name>``, each name reaching its own tool, one warning per chat.
A real MCP server in-process, the model scripted at the HTTP level."""

from __future__ import annotations

import logging
import re

import pytest
from mcp.server.mcpserver import MCPServer

import mcp_litellm as ml
from mcp_litellm._chat.builtin_names import builtin_name
from tests.helpers.chat import assert_history_valid, new_chat
from tests.scripted_llm.openai import Turn

REPORT = "\n".join(f"line {i:04d} of the report" for i in range(400))  # about 10,000 characters


def clashing_server() -> MCPServer:
    """Tools named like the chat's built-ins (fastmcp's BM25SearchTransform gives servers a ``search_tools``),
    and two ordinary ones."""
    server = MCPServer("bm25")

    @server.tool(name="search_tools", description="Search this server's own tools (BM25).")
    def search_tools(query: str) -> str:
        return f"the server searched for {query}"

    @server.tool(name="read_result", description="Read a stored result of this server.")
    def read_result(id: str) -> str:
        return f"the server read {id}"

    @server.tool(name="run_code", description="Run code on the server.")
    def run_code(code: str) -> str:
        return f"the server ran {code}"

    @server.tool(description="Give the weather forecast for a city.")
    def weather_forecast(city: str) -> str:
        return f"sunny in {city}"

    @server.tool(description="A long report.")
    def big_report() -> str:
        return REPORT

    return server


@pytest.fixture
def bm25():
    with ml.client("bm25", "memory", {"server": clashing_server()}) as client:
        yield client


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def renaming_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and "built-in tool of the chat" in r.getMessage()]


def test_tool_search_offers_its_built_ins_beside_a_servers_tools_of_the_same_names(llm, bm25, caplog):
    caplog.set_level(logging.WARNING, logger="mcp_litellm")
    llm.then(Turn(tool_calls=[("c1", "mcp_litellm_search_tools", {"query": "search tools"})]),
             Turn(tool_calls=[("c2", "search_tools", {"query": "weather"}), ("c3", "big_report", {})]),
             Turn(tool_calls=[("c4", "read_result", {"id": "r1"})]),
             Turn(content="Done."),
             Turn(content="Again."))
    chat = new_chat(tool_search=True, result_budget=300).with_tools(bm25.tools())
    assert chat.ask("Use the server's search").content == "Done."  # before: ConfigError "rename it"
    first, second, third, fourth = llm.requests
    assert tool_names(first) == ["mcp_litellm_search_tools"]  # the catalog, under the built-in's new name
    assert first["tools"][0]["function"]["description"].startswith("Find tools to use among 5 available")
    found = llm.tool_messages(1)[0]["content"]  # the built-in searched the chat's tools
    assert found.startswith("Found") and "\n- search_tools: Search this server's own tools" in found
    # the model is offered both: the built-in, and the server's search_tools it found
    assert {"mcp_litellm_search_tools", "search_tools"} <= set(tool_names(second))
    server_search, report = llm.tool_messages(2)[1:]
    assert server_search["content"] == "the server searched for weather"  # the server's tool, reached
    cut = re.search(r'Call (\w+) with id="(r\d+)" and offset=(\d+) to read on', report["content"])
    assert cut and cut.group(1) == "mcp_litellm_read_result"  # the marker names the name actually offered
    assert "mcp_litellm_read_result" in tool_names(third) and tool_names(third)[0] == "mcp_litellm_search_tools"
    assert llm.tool_messages(3)[-1]["content"] == "the server read r1"  # read_result is the server's
    assert {"read_result", "mcp_litellm_read_result"} <= set(tool_names(fourth))
    assert_history_valid(chat.messages)
    chat.ask("And again")  # a second ask: the names hold, and nothing more is logged
    assert tool_names(llm.requests[4])[:2] == ["mcp_litellm_search_tools", "mcp_litellm_read_result"]
    warnings = renaming_warnings(caplog)
    assert len(warnings) == 2, warnings  # once per renamed built-in, across both asks
    assert any("tool 'search_tools' of server 'bm25'" in w and "'mcp_litellm_search_tools'" in w for w in warnings)
    assert any("tool 'read_result' of server 'bm25'" in w and "'mcp_litellm_read_result'" in w for w in warnings)


def test_the_renamed_built_ins_search_and_read_on(llm, bm25):
    llm.then(Turn(tool_calls=[("c1", "mcp_litellm_search_tools", {"query": "weather forecast"}),
                              ("c2", "mcp_litellm_search_tools", {"query": "zzqx"}),
                              ("c3", "big_report", {})]),
             Turn(tool_calls=[("c4", "mcp_litellm_read_result", {"id": "r1", "offset": 100})]),
             Turn(content="ok"))
    chat = new_chat(tool_search=True, result_budget=300).with_tools(bm25.tools())
    chat.ask("weather?")
    found, nothing, _ = (m["content"] for m in llm.tool_messages(1))
    assert "\n- weather_forecast: Give the weather forecast" in found
    assert "No tool matched 'zzqx'" in nothing
    assert "list one server's tools with mcp_litellm_search_tools(server=NAME)" in nothing  # the name offered
    read = llm.tool_messages(2)[-1]["content"]
    assert read.startswith(REPORT[100:120])  # the built-in read on in the cut result, not the server's tool
    assert 'Call mcp_litellm_read_result with id="r1"' in read


def test_without_tool_search_a_cut_result_names_the_reader_actually_offered(llm, bm25):
    # before, the built-in silently stepped aside and the marker sent the model to the server's read_result
    llm.then(Turn(tool_calls=[("c1", "big_report", {})]),
             Turn(tool_calls=[("c2", "mcp_litellm_read_result", {"id": "r1", "offset": 200}),
                              ("c3", "read_result", {"id": "r1"})]),
             Turn(content="ok"))
    chat = new_chat(tool_search=False, result_budget=300).with_tools(bm25.tools())
    chat.ask("read the report")
    assert 'Call mcp_litellm_read_result with id="r1"' in llm.tool_messages(1)[-1]["content"]
    assert set(tool_names(llm.requests[1])) == {t.name for t in bm25.tools()} | {"mcp_litellm_read_result"}
    mine, theirs = llm.tool_messages(2)[-2:]
    assert mine["content"].startswith(REPORT[200:220]) and theirs["content"] == "the server read r1"


def test_code_mode_offers_run_code_beside_a_servers_run_code(llm, bm25, caplog):
    caplog.set_level(logging.WARNING, logger="mcp_litellm")
    program = "print(await run_code(code='1 + 1'))\nprint(await search_tools(query='x'))"
    llm.then(Turn(tool_calls=[("c1", "mcp_litellm_run_code", {"code": program})]), Turn(content="Ran."),
             Turn(content="Again."))
    chat = new_chat(code_mode=True).with_tools(bm25.tools())
    assert chat.ask("run it on the server").content == "Ran."  # before: ConfigError "rename it"
    [tool] = llm.requests[0]["tools"]
    assert tool["function"]["name"] == "mcp_litellm_run_code"
    assert "async def run_code(code: str) -> str" in tool["function"]["description"]  # the server's, callable
    output = llm.tool_messages(1)[0]["content"]
    assert "the server ran 1 + 1" in output  # the program's run_code is the server's tool
    chat.ask("again")
    warnings = renaming_warnings(caplog)
    assert len(warnings) == 1 and "tool 'run_code' of server 'bm25'" in warnings[0], warnings
    assert "'mcp_litellm_run_code'" in warnings[0]


def test_a_local_tool_named_search_tools_keeps_its_name(llm, caplog):
    def search_tools(query: str) -> str:
        """My own search."""
        return "mine"

    caplog.set_level(logging.WARNING, logger="mcp_litellm")
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "x"})]), Turn(content="ok"))
    new_chat(tool_search=True).with_tools(search_tools).ask("hi")
    assert tool_names(llm.requests[0]) == ["mcp_litellm_search_tools"]
    assert llm.tool_messages(1)[0]["content"] == "mine"
    [warning] = renaming_warnings(caplog)
    assert "the local tool 'search_tools'" in warning


def test_the_renaming_rule():
    assert builtin_name("search_tools", {"echo"}) == "search_tools"
    assert builtin_name("search_tools", {"search_tools"}) == "mcp_litellm_search_tools"
    assert builtin_name("read_result", {"read_result", "mcp_litellm_read_result"}) == "mcp_litellm_read_result_2"


def test_a_programs_search_gives_way_to_a_tool_of_its_name_as_in_the_chat(llm, bm25):
    # one rule in the chat and in the program: the server's search_tools keeps its name, the built-in search
    # is mcp_litellm_search_tools (before, the program renamed the server's tool to search_tools_)
    program = "print(await search_tools(query='x'))\nprint(await mcp_litellm_search_tools('weather forecast'))"
    llm.then(Turn(tool_calls=[("c1", "mcp_litellm_run_code", {"code": program})]), Turn(content="Ran."))
    chat = new_chat(code_mode=True, tool_search=True).with_tools(bm25.tools())
    assert chat.ask("search").content == "Ran."
    [tool] = llm.requests[0]["tools"]
    assert "print(await mcp_litellm_search_tools(" in tool["function"]["description"]
    output = llm.tool_messages(1)[0]["content"]
    assert output.startswith("the server searched for x\n"), output
    assert "async def weather_forecast(city: str)" in output
