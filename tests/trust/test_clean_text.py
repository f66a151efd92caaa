"""Hidden characters in what a hostile server writes for the model are removed, with a warning."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import pytest

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
