"""The tool-search index and result cutting, without servers or models."""

from __future__ import annotations

import time

from mcp_litellm._chat.results import ResultStore, apply_budget, chars_within
from mcp_litellm._chat.tool_search import ToolIndex, entry, query_words, words
from mcp_litellm._client.primitives.tool import ToolResult
from mcp_litellm._llm import count_tokens

MODEL = "gpt-4o-mini"


def test_identifiers_split_into_words():
    assert words("getCurrentTime") == ["current", "tim"]  # "get" is too common to tell tools apart
    assert words("list_open-PullRequests") == ["list", "open", "pull", "request"]
    assert words("HTTPServer2Config") == ["http", "server", "2", "config"]
    assert words("Creating files") == words("created file")
    assert "search" in query_words("find my invoices") and "list" in query_words("show the folders")


def test_a_noun_meets_its_verb_and_ied_meets_y():
    assert words("translations") == words("translate") and words("deletion") == words("deleting")
    assert words("compression") == words("compress") and words("modified") == words("modify")
    assert words("action") == ["action"] and words("version") == ["version"]  # too short to cut


def test_a_tool_meeting_more_of_the_request_wins_over_one_word_said_strongly():
    found = index(("git_log", "Show the commit logs.", []),
                  ("read_text_file", "Read a text file: its first or last lines.", ["path", "head"]))
    # "log" alone names git_log; "show", "first", "lines" and "log" together describe reading a file's head
    assert found.search("show me the first lines of the log file")[0].name == "read_text_file"


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


def test_values_read_as_their_kind_and_words_grouped_by_meaning():
    from mcp_litellm._chat.tool_search.words import query_groups, shapes

    assert words(shapes("open notes.md and https://x.org/a?b=1")) == ["open", "fil", "url", "web", "pag"]
    assert words(shapes("a folder called drafts in /var/data")) == ["folder", "nam", "path"]
    groups = query_groups("forget Carol")
    assert [g["forget"] for g in groups[:2]] == [1.0, 1.0] and "delet" in groups[0] and "memory" in groups[1]
    assert groups[2] == {"carol": 1.0}


def test_a_compound_server_name_meets_its_parts_and_synonyms_count_once():
    found = index(("list_directory", "List a directory.", ["path"]), ("list_note", "List notes.", []))
    assert [e.name for e in found.search("what files are in this folder")] == ["list_directory"]
    fs = ToolIndex([entry("read", "filesystem", "Read.", None), entry("read", "other", "Read a thing.", None),
                    entry("x", "other", "A system file.", None)])
    assert fs.search("read a file")[0].server == "filesystem"  # "filesystem" counts as "file" + "system"


def test_a_pronoun_does_not_find_a_server_named_like_it():
    # "everything" named server-everything's 13 tools, ahead of the knowledge graph's delete
    found = ToolIndex([entry("echo", "everything", "Echoes back the input string", {"properties": {"message": {}}}),
                       entry("get-sum", "everything", "Returns the sum of two numbers", None),
                       entry("delete_entities", "memory", "Delete multiple entities and their associated relations "
                             "from the knowledge graph", {"properties": {"entityNames": {}}})])
    assert [e.name for e in found.search("forget everything you know about Bob")] == ["delete_entities"]


def test_a_word_brings_the_name_words_the_catalog_pairs_it_with():
    crm = index(("crm_get_deal", "Get a sales opportunity by id.", []),
                ("crm_list_deal", "List the opportunities of a pipeline.", []),
                ("crm_archive_deal", "Archive an opportunity that is lost.", []),
                ("crm_update_deal", "Update the stage or amount.", ["stage"]),
                ("board_update_card", "Update the stage or amount.", ["stage"]),
                ("notes_create_note", "Create a note; mention an opportunity if you like.", []))
    # in three tools named with "crm" and "deal" (and in one with "note": once is no pair)
    assert set(crm.neighbours("opportunity")) == {"crm", "deal"}
    assert 0 < crm.neighbours("opportunity")["deal"] < 0.1  # a hint, well below the request's own word
    # crm_update_deal never says "opportunity", but its name's "deal" is what the CRM's tools call one: it wins
    # over its twin of another kind (which a tie would put first, by name)
    assert [e.name for e in crm.search("update the stage of the opportunity")][:2] == ["crm_update_deal",
                                                                                   "board_update_card"]
    assert crm.neighbours("pipeline") == {}  # one tool has it: no pair to learn from


def test_one_server_leaves_the_last_places_to_other_servers_above_the_floor():
    tracker = [(f"issues_{verb}_issue", f"{verb.capitalize()} a bug report: an issue of the tracker.", [])
               for verb in ("create", "update", "assign", "close", "archive", "search")]
    both = ToolIndex([*(entry(name, "tracker", description, {}) for name, description, _ in tracker),
                      entry("create_issue", "github", "Open an issue about a bug in a repository.", {})])
    found = both.search("report a bug issue")
    # six tracker tools score above github's, which still takes a place: the tracker fills three places, then
    # what the other servers leave (one more), in the scores' order
    assert [e.server for e in found] == ["tracker"] * 4 + ["github"]
    alone = ToolIndex(entry(name, "tracker", description, {}) for name, description, _ in tracker)
    assert len(alone.search("report a bug issue")) == 5  # no other server: it fills every place
    assert len(both.search("report a bug issue", server="tracker")) == 5  # one server asked for: all its places
