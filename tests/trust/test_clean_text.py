"""Hidden characters in what a hostile server writes for the model are removed, with a warning."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import pytest
from mcp_types import CallToolResult, TextContent

import mcp_litellm as ml
from mcp_litellm._core.clean_text import clean, clean_value, printable
from tests.servers.rug_pull_server import TAGS

INVISIBLE = ["\u200b", "\u200d", "\u2060", "\ufeff", "\u202e", "\u2066", "\u200f", "\x07", "\x1b", "\x85", "\r",
             TAGS[0], "\U000e007f"]


def test_every_kind_of_hidden_character_goes_and_newlines_and_tabs_stay() -> None:
    for char in INVISIBLE:
        assert clean(f"a{char}b") == "ab", repr(char)
    assert clean("line one\n\tline two é ü 日本") == "line one\n\tline two é ü 日本"
    schema = {"type": "object", "properties": {"p\u200b": {"description": f"x{TAGS}y", "enum": ["a\u202eb"]}}}
    cleaned, removed = clean_value(schema)
    assert cleaned == {"type": "object", "properties": {"p": {"description": "xy", "enum": ["ab"]}}}
    assert removed == 1 + len(TAGS) + 1
    assert clean_value({"a": "plain"})[0] is not None and clean_value({"a": "plain"})[1] == 0
    assert printable("a\u200bb\x1b[31m") == "a\\u200bb\\x1b[31m"


def test_tool_and_prompt_descriptions_reach_the_model_clean(make_rug: Callable[..., ml.Client],
                                                             caplog: pytest.LogCaptureFixture,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_litellm._core import clean_text

    monkeypatch.setattr(clean_text, "_warned", set())  # warnings come once per process: start afresh
    client = make_rug(stdio=False)
    with caplog.at_level(logging.WARNING, logger="mcp_litellm"):
        notes = client.tool("notes")
        prompt = client.prompts()[0]
        resource = client.resources()[0]
    assert notes.description == "Take notes. Keep\tthem."
    sent = json.dumps(notes.to_litellm("openai/gpt-4o-mini"), ensure_ascii=False)
    assert not any(char in sent for char in INVISIBLE)
    assert prompt.description == "Summarise a text."
    assert resource.description == "Summarise a text."
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("'rug'" in w and "tool 'notes'" in w and "description" in w for w in warnings), warnings
    assert any("'rug'" in w and "prompt 'summarise'" in w for w in warnings), warnings
    assert any("'rug'" in w and "resource 'note://hidden'" in w for w in warnings), warnings
    assert not any("tool 'add'" in w for w in warnings)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mcp_litellm"):
        client.tools(refresh=True)
    assert not [r for r in caplog.records if "hidden" in r.getMessage()]  # once, not at every listing


ANSI_ERROR = ("\x1b[31mError:\x1b[39m page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/\r\n"
              "Call log:\r\n\x1b[2m  - navigating to \"http://127.0.0.1:9/\"\x1b[22m\r\n"
              "\x1b]8;;https://playwright.dev\x07docs\x1b]8;;\x07\tdone\rover\u200b\U000e0041 \u26a0\ufe0f")


def _ansi_server() -> ml.Client:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("browser")

    @server.tool(description="Open a page (fails the way Playwright MCP does, with terminal colours).")
    def navigate(url: str) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=ANSI_ERROR)], is_error=True)

    @server.tool(description="The page's console, as a terminal shows it.", structured_output=False)
    def console() -> str:
        return ANSI_ERROR

    return ml.client("browser", config={"server": server})


def test_tool_results_reach_the_model_without_escapes_or_control_characters() -> None:
    from tests.scripted_llm.openai import Turn
    from tests.scripted_llm.respx_mock import API_BASE, MODEL, ScriptedLLM, litellm_respx

    client = _ansi_server()
    try:
        with litellm_respx() as router:
            llm = ScriptedLLM(router).then(
                Turn(tool_calls=[("c1", "navigate", {"url": "http://127.0.0.1:9/"}), ("c2", "console", {})]),
                Turn(content="The page did not load."))
            chat = ml.Chat(MODEL, api_base=API_BASE, api_key="sk-test", tool_search=False)
            assert chat.with_tools(client).ask("open it").content == "The page did not load."
        assert client.execute_tool("console").text == ANSI_ERROR  # the result itself is the server's text
    finally:
        client.stop()
    tool_messages = [m for m in llm.requests[1]["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 2
    for message in tool_messages:
        text = message["content"] if isinstance(message["content"], str) else json.dumps(message["content"])
        assert not any(c in text for c in ("\x1b", "\r", "\x07", "\u200b", "\U000e0041", "[31m", "]8;;")), text
        assert ("Error: page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/\nCall log:\n"
                "  - navigating to \"http://127.0.0.1:9/\"\ndocs\tdone\nover \u26a0\ufe0f") in text, text
    raw = json.dumps(llm.requests[1], ensure_ascii=False)
    assert "\x1b" not in raw and "\\u001b" not in raw  # nowhere in the request body


def test_an_emojis_own_selector_stays_and_hiding_places_go(caplog: pytest.LogCaptureFixture) -> None:
    kept = ["\u26a0\ufe0f careful", "\u2764\ufe0f", "\u00a9\ufe0f", "\u2122\ufe0e", "1\ufe0f\u20e3 step one",
            "\U0001f469\u200d\U0001f4bb", "\u2764\ufe0f\u200d\U0001f525", "\U0001f44b\U0001f3fd\u200d\u2642\ufe0f",
            "\U0001f468\u200d\U0001f469\u200d\U0001f467"]
    for text in kept:
        assert clean(text) == text, repr(text)
        assert printable(text) == text, repr(text)
        assert clean_value({"description": text}) == ({"description": text}, 0)
    stripped = {
        "\u26a0\ufe0f\ufe0f": "\u26a0",  # a run of selectors
        "\u26a0\ufe0f\U000e0101": "\u26a0",  # a selector then one of the supplement
        "a\ufe0fb": "ab", "1\ufe0f": "1", "\ufe0f": "",  # after a letter or a digit (not a keycap), or alone
        "\u26a0\ufe01": "\u26a0",  # not VS15/VS16: not an emoji's selector
        "\u26a0\ufe0f\U000e0041\U000e0042": "\u26a0\ufe0f",  # tag characters
        "a\u200db": "ab", "\U0001f469\u200d": "\U0001f469",  # a joiner outside an emoji sequence
        "\u26a0\u200b\ufe0f": "\u26a0",  # a selector after something hidden
    }
    for text, left in stripped.items():
        assert clean(text) == left, repr(text)
    assert printable("a\ufe0fb \u26a0\ufe0f") == "a\\ufe0fb \u26a0\ufe0f"


def test_a_description_with_an_emoji_is_not_a_warning(caplog: pytest.LogCaptureFixture,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp.server.mcpserver import MCPServer

    from mcp_litellm._core import clean_text

    monkeypatch.setattr(clean_text, "_warned", set())
    server = MCPServer("biomcp")

    @server.tool(description="\u26a0\ufe0f Use the think tool first. \U0001f9ec Searches genes.")
    def search(query: str) -> str:
        return query

    @server.tool(description="Hidden\ufe0f\ufe0f\ufe0f selectors.")
    def smuggle(query: str) -> str:
        return query

    with caplog.at_level(logging.WARNING, logger="mcp_litellm"), ml.client("biomcp", config={"server": server}) as c:
        assert c.tool("search").description == "\u26a0\ufe0f Use the think tool first. \U0001f9ec Searches genes."
        assert c.tool("smuggle").description == "Hidden selectors."
    warnings = [r.getMessage() for r in caplog.records if "hidden" in r.getMessage()]
    assert len(warnings) == 1 and "tool 'smuggle'" in warnings[0], warnings
