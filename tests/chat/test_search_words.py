"""How tool search reads a request: irregular forms, set phrases, question forms, kinds of value, and how the
index weighs a word with several meanings and how much of a tool's name and first sentence a request covers.
No servers, no models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_litellm._chat.tool_search import ToolIndex, entry
from mcp_litellm._chat.tool_search.words import phrases, shapes, stem, word_meanings, words


def read(text: str) -> list[str]:
    """The word stems the index reads for a request (kinds of value and set phrases first)."""
    return [word for word, _ in word_meanings(text)]


def test_irregular_forms_meet_their_plain_form():
    assert words("wrote") == words("write") and words("found files") == words("find file")
    assert words("forgotten") == words("forget") and words("children") == words("child")
    assert stem("chosen") == stem("choose") and stem("undone") == stem("undo")
    # a form of a common word is a common word too; contractions leave no stray stem
    assert words("did he get it") == [] and words("it isn't staged") == words("staged")


@pytest.mark.parametrize(("request_", "means", "not_read"), [
    ("throw away what I staged", "discard", "throw"),
    ("get rid of the old branch", "discard", "rid"),
    ("Carol is no longer Bob's manager", "delet", "longer"),
    ("look up Ann's phone", "search", "look"),
    ("keep in mind that Ann likes tea", "remember", "mind"),
    ("note that Ann likes tea", "remember", "not"),
    ("set up a new project", "creat", "set"),
    ("roll back the last change", "undo", "roll"),
    ("hop over to the main branch", "switch", "hop"),
    ("what time is it right now", "current", "right"),
    ("how big is the video", "siz", "big"),
    ("pull up the entries for Ann", "read", "pull"),
    ("Bob doesn't live in Rome anymore", "delet", "anymor"),
    ("check in my work", "commit", "check"),
    ("check out the main branch", "checkout", "check"),
    ("who can write to report.pdf", "permiss", "writ"),
])
def test_a_set_phrase_reads_as_what_it_means(request_, means, not_read):
    said = read(request_)
    assert means in said and not_read not in said


def test_a_note_as_a_thing_is_not_a_note_as_a_verb():
    assert "remember" not in read("delete the note that Ann lives in Paris")
    assert "not" in read("delete the note that Ann lives in Paris")  # "note" (stemmed), the thing


@pytest.mark.parametrize(("request_", "gains", "lacks"), [
    ("what files are in my projects folder", "list", "search"),
    ("what time is it in Tokyo", None, "list"),
    ("are there any open branches", "list", None),
    ("where is the file called budget.xlsx", "search", None),
    ("what do you know about Bob", "search", "list"),
    ("show me the first 20 lines of the log", "head", "tail"),
    ("show me the last 10 lines of the log", "tail", "recent"),
    ("show me the last 5 commits", "recent", "tail"),
    ("when was it last changed", "info", "chang"),
    ("how many rows are in the table", "count", None),
    ("how high is Denver", "elevat", None),
])
def test_a_question_form_adds_what_it_asks_for(request_, gains, lacks):
    said = read(request_)
    assert gains is None or gains in said
    assert lacks is None or lacks not in said


@pytest.mark.parametrize(("text", "kind", "not_kind"), [
    ("add 2 and 3", "arithmetic", None),
    ("what's 17 + 25", "arithmetic", None),
    ("from July 1 to July 14", None, "arithmetic"),
    ("get me the html of example.org", "url", "fil"),
    ("open notes.md", "fil", "url"),
    ("what happened in commit 3f9a2c1", "revis", None),
    ("the year 2026 and a decade", None, "revis"),
])
def test_values_read_as_their_kind(text, kind, not_kind):
    said = words(phrases(shapes(text)))
    assert kind is None or kind in said
    assert not_kind is None or not_kind not in said


CATALOGS = Path(__file__).resolve().parents[2] / "benchmarks/search_catalogs"


@pytest.fixture(scope="module")
def mixed() -> ToolIndex:
    """The saved real catalogs of six third-party servers (51 tools) mixed into the 500 generated tools, as in
    ``benchmarks/tool_search.py``."""
    from tests.servers.catalog_server import catalog

    tools = []
    for server in ("everything", "filesystem", "memory", "git", "time", "fetch"):
        saved = json.loads((CATALOGS / f"{server}.json").read_text())
        info = saved["serverInfo"]
        text = " ".join(part for part in (server, info["name"], info.get("title")) if part)
        tools += [entry(t["name"], server, t["description"] or "", t["inputSchema"], text) for t in saved["tools"]]
    tools += [entry(name, "catalog", description, {"properties": {key: {} for key in parameters}})
              for name, description, parameters in catalog()]
    return ToolIndex(tools)


def found(index: ToolIndex, request: str) -> list[str]:
    return [f"{e.server}.{e.name}" for e in index.search(request, 5)]


def test_a_word_counts_once_however_many_meanings_it_has(mixed):
    # "add" means create, store, stage and sum: git_add's own word counts once, not once per meaning, so the
    # sum tool stays among the five (before, "add" x 4 and a floor left only git_add and add_observations)
    assert "everything.get-sum" in found(mixed, "add 2 and 3")
    # a word with two meanings still counts for both: "forget" is delete, and memory
    assert found(mixed, "forget everything about Carol")[:3] == [
        "memory.delete_relations", "memory.delete_observations", "memory.delete_entities"]


def test_storing_a_fact_meets_the_memory_tools_that_add_one(mixed):
    # "remember" and "note that" store: they meet create and add, and the memory server's words
    assert found(mixed, "remember that Alice works at Acme")[0] == "memory.add_observations"
    assert found(mixed, "note that Alice and Bob are married")[0] == "memory.create_relations"
    assert found(mixed, "Carol is no longer Bob's manager")[0] == "memory.delete_relations"


def test_phrases_and_question_forms_find_their_tools(mixed):
    assert found(mixed, "throw away what I staged, keep the edits")[0] == "git.git_reset"
    assert found(mixed, "how big is the video file and when was it last changed")[0] == "filesystem.get_file_info"
    assert found(mixed, "where is the file called budget.xlsx")[0] == "filesystem.search_files"
    assert "filesystem.read_text_file" in found(mixed, "show me the first 20 lines of the log")


def test_kinds_of_value_find_their_tools(mixed):
    assert found(mixed, "get me the html of example.org")[0] == "fetch.fetch"
    assert found(mixed, "what happened in commit abc123")[0] == "git.git_show"


def test_a_tool_whose_name_the_request_covers_ranks_higher(mixed):
    # "create a folder" covers create_directory's whole name; before, four mail_*_folder tools came first
    assert found(mixed, "create a folder called drafts").index("filesystem.create_directory") <= 3
    assert found(mixed, "what files are in my projects folder")[1:3] == [
        "filesystem.list_directory", "filesystem.list_directory_with_sizes"]



@pytest.fixture(scope="module")
def servers() -> ToolIndex:
    """The saved catalogs of a spreadsheet, a browser and a maps server (the tuning servers of issue 34)."""
    tools = []
    for server in ("excel", "playwright", "google-maps"):
        saved = json.loads((CATALOGS / f"{server}.json").read_text())
        tools += [entry(t["name"], server, t["description"] or "", t["inputSchema"], server) for t in saved["tools"]]
    return ToolIndex(tools)


@pytest.mark.parametrize(("request_", "tool"), [
    ("draw a bar graph of sales per month", "excel.create_chart"),  # graph: chart
    ("add another tab to the workbook", "excel.create_sheet"),  # tab: sheet
    ("what are the coordinates of the Eiffel Tower", "google-maps.maps_geocode"),  # coordinates: geocode
    ("enter my username into the login box", "playwright.browser_type"),  # enter: type
])
def test_everyday_words_meet_the_words_tools_use(servers, request_, tool):
    assert tool in found(servers, request_)
