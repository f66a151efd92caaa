"""The tool-search index and result cutting, without servers or models."""

from __future__ import annotations

import time

from mcp_litellm._chat.results import ResultStore, apply_budget, chars_within
from mcp_litellm._chat.tool_search import ToolIndex, entry, query_words, words
from mcp_litellm._client.tool import ToolResult
from mcp_litellm._llm import count_tokens

MODEL = "gpt-4o-mini"


def test_identifiers_split_into_words():
    assert words("getCurrentTime") == ["current", "tim"]  # "get" is too common to tell tools apart
    assert words("list_open-PullRequests") == ["list", "open", "pull", "request"]
    assert words("HTTPServer2Config") == ["http", "server", "2", "config"]
    assert words("Creating files") == words("created file")
    assert "search" in query_words("find my invoices") and "list" in query_words("show the folders")


def index(*tools: tuple[str, str, list[str]]) -> ToolIndex:
    return ToolIndex(entry(name, "srv", description, {"properties": {p: {} for p in params}})
                     for name, description, params in tools)


def test_names_descriptions_and_parameters_all_count():
    found = index(("send_email", "Send a message.", ["to"]), ("post_note", "Post a note to a channel.", ["channel"]),
                  ("upload", "Upload bytes.", ["bucket_name"]))
    assert found.search("email someone")[0].name == "send_email"           # the name
    assert found.search("write a note")[0].name == "post_note"             # the description
    assert found.search("which bucket")[0].name == "upload"                # a parameter name
    assert found.search("zzz") == [] and found.search("") == []


def test_weak_matches_are_left_out_and_ties_are_ordered():
    found = index(("a_weather_report", "Weather report forecast now.", []), ("b_other", "A report.", []),
                  ("c_weather_report", "Weather report forecast now.", []))
    names = [e.name for e in found.search("weather forecast report")]
    assert names == ["a_weather_report", "c_weather_report"]  # b_other matches one common word only


def test_cutting_a_huge_result_is_bounded_and_fits_the_budget():
    text = "lorem ipsum dolor sit amet, " * 400_000  # 11 MB
    count_tokens(MODEL, text="warm up")  # importing LiteLLM and loading the tokenizer is not the cut's cost
    start = time.perf_counter()
    keep = chars_within(text, 2_000, MODEL)
    assert time.perf_counter() - start < 2.0
    assert 1_000 < count_tokens(MODEL, text=text[:keep]) <= 2_000


def test_a_cut_keeps_media_and_the_store_is_bounded():
    from mcp_types import ImageContent, TextContent

    store = ResultStore(max_results=2)
    result = ToolResult(content=[TextContent(type="text", text="x " * 5_000),
                                 ImageContent(type="image", data="AAAA", mime_type="image/png")], tool_name="t")
    cut = apply_budget(result, 100, MODEL, store)
    assert isinstance(cut.content[1], ImageContent) and 'id="r1"' in cut.content[0].text
    assert cut.truncated_chars > 9_000 and apply_budget(ToolResult(content=[]), 100, MODEL, store).content == []
    store.keep("two")
    store.keep("three")
    assert len(store) == 2 and "no cut result with id 'r1'" in store.read({"id": "r1"}, 100, MODEL)
    assert store.read({"id": "r3", "offset": -1}, 100, MODEL).startswith("Error: offset")
    assert store.read({"id": "r3", "offset": "2"}, 100, MODEL).startswith("ree\n[end of result r3")
