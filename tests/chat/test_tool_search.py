"""Tool search, result budgets and usage: a scripted model (HTTP level) and real MCP servers in-process."""

from __future__ import annotations

import itertools
import json
import re

import pytest

import mcp_litellm as ml
from mcp_litellm._llm import litellm_module
from tests.helpers.chat import assert_history_valid, new_chat
from tests.scripted_llm.openai import Turn, stream_chunks
from tests.scripted_llm.respx_mock import MODEL
from tests.servers.catalog_server import build_server

MAX_TOOLS = 128


@pytest.fixture(scope="module")
def catalog():
    """A client of the generated 500-tool server (in-process)."""
    with ml.client("catalog", "memory", {"server": build_server()}) as client:
        yield client


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def test_a_500_tool_chat_completes_a_task_through_search_tools(llm, catalog):
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "send an email to a colleague"})]),
             Turn(tool_calls=[("c2", "mail_send_message", {"to": "ana@example.com", "subject": "Hi"})]),
             Turn(content="Sent."))
    chat = new_chat().with_tools(catalog.tools())
    reply = chat.ask("Email Ana to say hi")
    assert reply.content == "Sent."
    first, second, third = llm.requests
    assert tool_names(first) == ["search_tools"]  # nothing found or used yet: the catalog alone
    assert "500 available" in first["tools"][0]["function"]["description"]
    found = llm.tool_messages(1)[0]["content"]
    listed = re.findall(r"^- (\w+):", found, re.MULTILINE)
    assert "mail_send_message" in listed and 1 <= len(listed) <= 5 and found.startswith(f"Found {len(listed)} tools")
    assert tool_names(second) == ["search_tools", *sorted(listed)]  # search_tools, then what it found, by name
    assert llm.tool_messages(2)[-1]["content"].startswith("mail_send_message ran with")
    assert json.loads(llm.tool_messages(2)[-1]["content"].split(" ran with ", 1)[1]) == {
        "subject": "Hi", "to": "ana@example.com"}
    assert all(len(tool_names(r)) <= MAX_TOOLS for r in llm.requests)
    assert tool_names(third) == tool_names(second)  # the same definitions, in the same order
    assert_history_valid(chat.messages)


def test_an_agent_searches_again_and_what_it_found_first_stays_offered(llm, catalog):
    # a multi-step task: two searches with different words, then the tool of the first search is called;
    # each request's tools extend the last one's (a provider's prompt cache keeps its prefix)
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "send an email"})]),
             Turn(tool_calls=[("c2", "search_tools", {"query": "weather forecast for a city"})]),
             Turn(tool_calls=[("c3", "mail_send_message", {"to": "ana@example.com", "subject": "Rain"})]),
             Turn(content="Sent."))
    assert new_chat().with_tools(catalog.tools()).ask("Mail Ana the forecast").content == "Sent."
    first = llm.tool_messages(1)[0]["content"]
    # the answer says what to do when the tools found look wrong
    assert "None fits? Search again with other words" in first
    names = [tool_names(r) for r in llm.requests]
    assert "mail_send_message" in names[1] and "mail_send_message" in names[3]
    assert any(n.startswith("weather_") for n in names[2])
    for earlier, later in itertools.pairwise(names):
        assert later[:len(earlier)] == earlier
    assert llm.tool_messages(3)[-1]["content"].startswith("mail_send_message ran with")


def test_a_found_tool_can_be_called_in_the_same_response_as_the_search(llm, catalog):
    # a model may call a tool by name without its definition; the chat runs any tool it holds
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "weather forecast"}),
                              ("c2", "weather_list_forecast", {"location": "Lisbon"})]), Turn(content="Sunny."))
    reply = new_chat().with_tools(catalog.tools()).ask("Weather in Lisbon?")
    assert reply.content == "Sunny."
    assert llm.tool_messages(1)[1]["content"].startswith("weather_list_forecast ran with")


def test_a_chat_under_budget_sends_every_tool_as_today(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(content="Hello."))
    chat = new_chat().with_tools(client.tools())
    chat.ask("hi")
    assert tool_names(llm.requests[0]) == sorted(t.name for t in client.tools())
    assert "search_tools" not in tool_names(llm.requests[0])
    assert chat.tool_definitions() == llm.requests[0]["tools"]


def test_the_budget_decides_and_true_false_force_it(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(content="a"), Turn(content="b"), Turn(content="c"))
    new_chat(tool_budget=50).with_tools(client.tools()).ask("hi")  # the fixture's tools cost more than 50 tokens
    new_chat(tool_search=True).with_tools(client.tools()[:2]).ask("hi")
    new_chat(tool_search=False, tool_budget=50).with_tools(client.tools()).ask("hi")
    assert tool_names(llm.requests[0]) == ["search_tools"]
    assert tool_names(llm.requests[1]) == ["search_tools"]
    assert tool_names(llm.requests[2]) == sorted(t.name for t in client.tools())


def test_never_more_than_128_tools_in_a_request(llm, catalog):
    searches = sorted({name.split("_", 2)[0] + " " + name.split("_", 2)[2].replace("_", " ")
                       for name in (t.name for t in catalog.tools())})  # "calendar event", "mail draft", ...
    assert len(searches) == 100
    llm.then(*(Turn(tool_calls=[(f"c{i}", "search_tools", {"query": q})]) for i, q in enumerate(searches)),
             Turn(content="done"))
    # tool_search=False would send all 500 (the user's choice); "auto" keeps to the limit even with a huge budget
    chat = new_chat(tool_budget=10**9, max_tool_rounds=len(searches)).with_tools(catalog.tools())
    chat.ask("look around")
    counts = [len(tool_names(r)) for r in llm.requests]
    assert max(counts) == MAX_TOOLS and counts[0] == 1  # 100 searches found > 128 tools: the oldest are dropped
    assert all(names[0] == "search_tools" for names in map(tool_names, llm.requests))


def test_search_tools_answers_bad_and_empty_queries(llm, catalog):
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": ""}), ("c2", "search_tools", {"query": "zzqx"}),
                              ("c3", "search_tools", "{not json")]), Turn(content="ok"))
    new_chat().with_tools(catalog.tools()).ask("?")
    empty, nothing, broken = (m["content"] for m in llm.tool_messages(1))
    assert "non-empty 'query'" in empty and "No tool matched 'zzqx' among 500 tools" in nothing
    assert "not valid JSON" in broken


def test_a_tool_named_search_tools_is_called_as_itself_when_search_is_off(llm):
    # with search on, the built-in gives way (tests/chat/test_builtin_names.py)
    def search_tools(query: str) -> str:
        """My own search."""
        return "mine"

    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "x"})]), Turn(content="ok"))
    new_chat().with_tools(search_tools).ask("hi")
    assert llm.tool_messages(1)[0]["content"] == "mine"


@pytest.mark.parametrize("bad", [{"tool_search": "native"}, {"tool_search": 1}, {"tool_budget": 0},
                                 {"result_budget": -5}, {"result_budget": True}, {"tool_budget": "2k"}])
def test_bad_settings_say_what_is_wrong(bad):
    with pytest.raises(ml.ConfigError, match=next(iter(bad))):
        new_chat(**bad)


def numbered_lines(count: int) -> str:
    return "\n".join(f"line {i:04d} of the report" for i in range(count))


def test_a_cut_result_is_read_back_with_read_result(llm):
    text = numbered_lines(400)  # about 10,000 characters

    def report() -> str:
        """A long report."""
        return text

    llm.then(Turn(tool_calls=[("c1", "report", {})]), Turn(content="I saw the start."))
    chat = new_chat(result_budget=300).with_tools(report)
    chat.ask("read the report")
    shown = llm.tool_messages(1)[0]["content"]
    match = re.search(r'Call read_result with id="(r\d+)" and offset=(\d+) to read on', shown)
    assert match and text.startswith(shown[: shown.index("\n[... result")])
    result_id, offset = match.group(1), int(match.group(2))
    assert 300 < offset < 1500  # about 300 tokens of text, far less than the 10,000 characters
    assert "read_result" in tool_names(llm.requests[1])
    llm.then(Turn(tool_calls=[("c2", "read_result", {"id": result_id, "offset": offset})]), Turn(content="Done."))
    chat.ask("read on")
    page = llm.tool_messages(3)[-1]["content"]
    assert (text[offset:]).startswith(page[: page.index("\n[")]) and len(page) > 300
    assert f"offset={offset + page.index(chr(10) + '[')}" in page  # the next marker continues where this ends
    llm.then(Turn(tool_calls=[("c3", "read_result", {"id": "r99", "offset": 0})]), Turn(content="ok"))
    chat.ask("and r99?")
    assert "no cut result with id 'r99'" in llm.tool_messages(5)[-1]["content"]


def test_a_result_within_budget_is_untouched_and_max_result_chars_still_applies(llm, make_client):
    client = make_client("memory", max_result_chars=50)
    llm.then(Turn(tool_calls=[("c1", "long_text", {"n": 500}), ("c2", "echo", {"message": "short"})]),
             Turn(content="ok"))
    new_chat(result_budget=1000).with_tools(client.tools()).ask("go")
    long, short = (m["content"] for m in llm.tool_messages(1))
    assert "exceeded max_result_chars=50" in long and "read_result" not in long and short == "short"
    assert "read_result" not in tool_names(llm.requests[1])


def _expected_cost(prompt: int, completion: int) -> float:
    price = litellm_module().model_cost["gpt-4o-mini"]
    return prompt * price["input_cost_per_token"] + completion * price["output_cost_per_token"]


def test_usage_sums_across_a_tool_loop(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 2})]), Turn(tool_calls=[("c2", "add", {"a": 3, "b": 4})]),
             Turn(content="3 and 7."), Turn(content="again"))
    chat = new_chat().with_tools(client.tools())
    reply = chat.ask("add twice")
    assert reply.input_tokens == 7  # the last request, as before
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.requests) == (21, 9, 3)
    assert reply.usage.total_tokens == 30 and reply.usage.cost == pytest.approx(_expected_cost(21, 9))
    assert chat.usage == reply.usage
    second = chat.ask("once more")
    assert second.usage.requests == 1 and second.usage.prompt_tokens == 7
    assert chat.usage.requests == 4 and chat.usage.prompt_tokens == 28
    assert chat.usage.cost == pytest.approx(_expected_cost(28, 12))


async def test_usage_sums_in_async_asks(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 2})]), Turn(content="3."))
    chat = new_chat().with_tools(await client.atools())
    reply = await chat.aask("add")
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.requests) == (14, 6, 2)
    assert chat.usage == reply.usage


def _with_usage(turn: Turn, prompt: int, completion: int) -> Turn:
    chunks = stream_chunks(turn)  # the usage on the last chunk, the way providers report it
    chunks[-1] = {**chunks[-1], "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                          "total_tokens": prompt + completion}}
    return Turn(raw_chunks=chunks)


def test_usage_sums_in_streamed_turns(llm, make_client):
    client = make_client("memory")
    llm.then(_with_usage(Turn(tool_calls=[("c1", "add", {"a": 1, "b": 2})]), 11, 4),
             _with_usage(Turn(content="It is 3."), 20, 5))
    chat = new_chat().with_tools(client.tools())
    chunks = list(chat.stream("add"))
    assert "".join(c.content for c in chunks) == "It is 3."
    usage = chat.last_message.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.requests) == (31, 9, 2)
    assert usage.cost == pytest.approx(_expected_cost(31, 9)) and chat.usage == usage


def test_unpriced_models_have_no_cost(llm, make_client):
    llm.then(Turn(content="hi"))
    reply = ml.Chat("openai/not-a-priced-model", api_base="http://llm.test/v1", api_key="sk-x").ask("hi")
    assert reply.usage.cost is None and reply.usage.prompt_tokens == 7


def test_tool_definitions_are_ordered_by_server_then_name(llm, make_client):
    second = ml.client("zeta", "memory", {"server": build_server(30, name="zeta")})
    first = make_client("memory", name="alpha")
    try:
        llm.then(Turn(content="a"), Turn(content="b"))
        chat = new_chat().with_tools(list(reversed(second.tools())), first.tools()[::-1])
        chat.ask("one")
        chat.with_tools(first.tools())  # adding what is there changes nothing
        chat.ask("two")
        names = tool_names(llm.requests[0])
        assert names == sorted(t.name for t in first.tools()) + sorted(t.name for t in second.tools())
        assert llm.requests[1]["tools"] == llm.requests[0]["tools"]
    finally:
        second.stop()


def test_usage_model_reprs():
    total = ml.Usage(1, 2, None, 1) + ml.Usage(3, 4, 0.5, 1)
    assert total == ml.Usage(4, 6, 0.5, 2) and total.total_tokens == 10
    assert MODEL.endswith("gpt-4o-mini")


async def test_a_streamed_async_chat_searches_too(llm, catalog):
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "create a calendar event"})]),
             Turn(tool_calls=[("c2", "calendar_create_event", {"title": "Standup"})]), Turn(content="Booked."))
    chat = new_chat().with_tools(await catalog.atools())
    events = [c async for c in chat.astream("Book the standup")]
    assert "".join(c.content for c in events) == "Booked."
    ends = [c.tool_call.name for c in events if c.is_tool_end]
    assert ends == ["search_tools", "calendar_create_event"]
    assert tool_names(llm.requests[0]) == ["search_tools"] and "calendar_create_event" in tool_names(llm.requests[1])
    assert llm.tool_messages(2)[-1]["content"].startswith("calendar_create_event ran with")


def test_nothing_matched_says_so_and_lists_the_servers(llm, catalog):
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "zzqx blorp"})]), Turn(content="ok"))
    new_chat().with_tools(catalog.tools()).ask("?")
    answer = llm.tool_messages(1)[0]["content"]
    assert answer.startswith("No tool matched 'zzqx blorp' among 500 tools. Try other words")
    assert "search_tools(server=NAME)" in answer
    assert re.search(r"^- catalog: (.*\. )?500 tools: analytics_", answer, re.MULTILINE)  # a line per server


def test_search_tools_offers_the_servers_to_browse(llm, catalog):
    llm.then(Turn(content="ok"))
    new_chat(tool_search=True).with_tools(catalog.tools()).ask("?")
    definition = llm.requests[0]["tools"][0]["function"]
    assert definition["parameters"]["properties"]["server"]["enum"] == ["catalog"]
    assert "Give a server instead to list its tools" in definition["description"]


def test_a_server_is_listed_by_name_or_argument_and_searched_within(llm, catalog):
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"server": "catalog"}),
                              ("c2", "search_tools", {"query": "the catalog tools"}),
                              ("c3", "search_tools", {"server": "catalog", "query": "send an email"}),
                              ("c4", "search_tools", {"server": "nope"})]), Turn(content="ok"))
    new_chat().with_tools(catalog.tools()).ask("?")
    listed, named, within, unknown = (m["content"] for m in llm.tool_messages(1))
    assert listed.startswith("Server 'catalog' has 500 tools; the first 30; call one by name")
    assert len(re.findall(r"^- \w+", listed, re.MULTILINE)) == 30 and "Add a query to search among the 470" in listed
    assert named == listed  # a query that only names a server lists it
    assert within.startswith("Server 'catalog': ") and "- mail_send_message:" in within
    assert unknown.startswith("Error: there is no server 'nope'; the servers are catalog.")
    shown = re.findall(r"^- (\w+)", listed + "\n" + within, re.MULTILINE)
    assert 30 < len(set(shown)) <= 35  # the 30 listed, then the (up to 5) found within
    # the next request carries search_tools and exactly the tools these answers named
    assert sorted(tool_names(llm.requests[1])) == sorted({"search_tools", *shown})


# -- semantic ranking with an embedding model (the /embeddings endpoint scripted at the HTTP level) --------

CONCEPTS = (("forecast", "pour", "drizzle"), ("invoice", "bill"), ("calendar", "meeting"))


def fake_embedding(text: str) -> list[float]:
    """A vector per concept the text mentions (the tools' words and a request's other words for them)."""
    low = text.lower()
    return [1.0 if any(word in low for word in words) else 0.0 for words in CONCEPTS] + [0.01]


@pytest.fixture
def embedder():
    from tests.scripted_llm.respx_mock import API_BASE, ScriptedLLM, litellm_respx

    calls: list[list[str]] = []

    def answer(request):
        import httpx

        texts = json.loads(request.content)["input"]
        calls.append(texts)
        if embedder.failing:
            return httpx.Response(500, json={"error": {"message": "embedding backend down"}})
        usage = {"prompt_tokens": 1, "total_tokens": 1}
        return httpx.Response(200, json={"object": "list", "model": "emb", "usage": usage,
                                         "data": [{"object": "embedding", "index": i, "embedding": fake_embedding(t)}
                                                  for i, t in enumerate(texts)]})

    with litellm_respx() as router:
        router.post(f"{API_BASE}/embeddings").mock(side_effect=answer)
        embedder.failing = False
        embedder.calls = calls
        embedder.llm = ScriptedLLM(router)
        yield embedder


def embedding_model(request) -> dict:
    from tests.scripted_llm.respx_mock import API_BASE

    # a model name of its own per test: tool vectors are cached per process by model and text
    return {"model": f"openai/emb-{request.node.name}", "api_base": API_BASE, "api_key": "sk-test-embed-key"}


def test_an_embedding_model_ranks_by_meaning_and_embeds_a_catalog_once(embedder, catalog, request):
    llm = embedder.llm
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "will it pour tomorrow"})]), Turn(content="ok"),
             Turn(tool_calls=[("c2", "search_tools", {"query": "will it pour tomorrow"})]), Turn(content="ok"),
             Turn(tool_calls=[("c3", "search_tools", {"query": "a drizzle later?"})]), Turn(content="ok"))
    assert new_chat().with_tools(catalog.tools()).ask("?") is not None  # lexically: nothing matches "pour"
    assert llm.tool_messages(1)[0]["content"].startswith("No tool matched 'will it pour tomorrow'")
    llm.requests.clear()
    chat = new_chat(tool_search_embedding=embedding_model(request)).with_tools(catalog.tools())
    chat.ask("?")
    listed = re.findall(r"^- (\w+):", llm.tool_messages(1)[0]["content"], re.MULTILINE)
    assert len(listed) == 5 and all("forecast" in name for name in listed)
    assert [len(texts) for texts in embedder.calls] == [256, 244, 1]  # the catalog in two batches, the query
    new_chat(tool_search_embedding=embedding_model(request)).with_tools(catalog.tools()).ask("?")
    assert [len(texts) for texts in embedder.calls[3:]] == [1]  # another chat, same tools: the query only
    assert embedder.calls[0][0] == "analytics copy dashboard (catalog): Make a copy of a dashboard."  # name in words


def test_a_failing_embedding_model_falls_back_to_words(embedder, catalog, request, caplog):
    embedder.failing = True
    llm = embedder.llm
    llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "weather forecast"})]),
             Turn(tool_calls=[("c2", "search_tools", {"query": "send an email"})]), Turn(content="ok"))
    new_chat(tool_search_embedding=embedding_model(request)).with_tools(catalog.tools()).ask("?")
    assert "- weather_get_forecast:" in llm.tool_messages(1)[0]["content"]
    assert "- mail_send_message:" in llm.tool_messages(2)[-1]["content"]
    warnings = [r.getMessage() for r in caplog.records if "embedding model" in r.getMessage()]
    assert len(warnings) == 1 and "ranking by words instead" in warnings[0]  # once per kind of failure
    assert "sk-test-embed-key" not in caplog.text
    # the first search's attempts only (LiteLLM's client retries; max_retries=0 does not stop it for
    # embeddings): the second search did not wait on the failing endpoint again
    assert 1 <= len(embedder.calls) <= 3 and all(len(texts) == 256 for texts in embedder.calls)


@pytest.mark.parametrize("bad", [3, "", {"api_base": "http://x"}, {"model": "m", "input": ["x"]}])
def test_a_bad_embedding_setting_says_what_is_wrong(bad):
    with pytest.raises(ml.ConfigError, match="tool_search_embedding"):
        new_chat(tool_search_embedding=bad)


@pytest.mark.thirdparty
def test_a_miss_costs_one_round_against_server_everything(llm, catalog, everything_js):
    # server-everything (TypeScript SDK, npm) beside the 500 generated tools: nothing matches the model's
    # first words; the answer names the servers, the model lists one and calls the tool it finds there
    config = {"command": "node", "args": [str(everything_js), "stdio"]}
    with ml.client("everything", "stdio", config) as everything:
        llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "zzqx 17 25"})]),
                 Turn(tool_calls=[("c2", "search_tools", {"server": "everything"})]),
                 Turn(tool_calls=[("c3", "get-sum", {"a": 17, "b": 25})]), Turn(content="42"))
        chat = new_chat().with_tools(catalog.tools(), everything.tools())
        assert chat.ask("What's 17 plus 25?").content == "42"
    missed, listed, summed = (llm.tool_messages(i)[-1]["content"] for i in (1, 2, 3))
    assert re.search(r"^- everything: Everything Reference Server\. 13 tools: echo, ", missed, re.MULTILINE)
    assert listed.startswith("Server 'everything' has 13 tools; call one by name") and "\n- get-sum: " in listed
    assert "get-sum" in tool_names(llm.requests[2]) and "42" in summed


def test_meaning_and_words_are_fused(embedder, catalog, request):
    # the fake embedding sees every billing_* tool alike; the words tell sending an invoice apart (and
    # like mail tools too): fused, sending the invoice comes first, and more billing tools follow
    embedder.llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "send the bill by email"})]),
                      Turn(content="ok"))
    new_chat(tool_search_embedding=embedding_model(request)).with_tools(catalog.tools()).ask("?")
    listed = re.findall(r"^- (\w+):", embedder.llm.tool_messages(1)[0]["content"], re.MULTILINE)
    from mcp_litellm._chat.tool_search import ToolIndex, entry

    by_words = ToolIndex(entry(t.name, "catalog", t.description, t.input_schema) for t in catalog.tools())
    alone = [e.name for e in by_words.search("send the bill by email")]
    assert listed[0] == "billing_send_invoice" and listed != alone  # the words' best, then the meaning's
    assert sum(n.startswith("billing_") for n in listed) > sum(n.startswith("billing_") for n in alone)


def test_a_server_under_a_short_name_is_found_by_the_name_it_gives_itself(llm, catalog):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("knowledge-graph-memory")

    @server.tool()
    def prune(name: str) -> str:
        """Prune one node."""
        return f"pruned {name}"

    with ml.client("kg", "memory", {"server": server}) as kg:
        llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": "clear Bob out of memory"})]), Turn(content="ok"))
        new_chat().with_tools(catalog.tools(), kg.tools()).ask("?")
    listed = re.findall(r"^- (\w+):", llm.tool_messages(1)[0]["content"], re.MULTILINE)
    assert listed[0] == "prune"  # "memory" is in no word of the tool, only in its server's own name


def test_code_modes_search_ranks_with_the_chats_ranker(embedder, catalog, request):
    # the same query, with an embedding model: the chat's search_tools and the program's find the same tools
    # (before, the program ranked by words alone, and found nothing for "pour")
    query = "will it pour tomorrow"
    model = embedding_model(request)
    embedder.llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": query})]), Turn(content="ok"),
                      Turn(tool_calls=[("c2", "run_code", {"code": f"print(await search_tools({query!r}))"})]),
                      Turn(content="ok"))
    new_chat(tool_search_embedding=model).with_tools(catalog.tools()).ask("?")
    by_chat = re.findall(r"^- (\w+):", embedder.llm.tool_messages(1)[0]["content"], re.MULTILINE)
    chat = new_chat(tool_search_embedding=model, code_mode=True).with_tools(catalog.tools())
    chat.ask("?")
    description = embedder.llm.requests[2]["tools"][0]["function"]["description"]
    assert "await search_tools(" in description  # 500 tools: the program searches
    output = embedder.llm.tool_messages(3)[0]["content"]
    by_program = re.findall(r"async def (\w+)\(", output)
    assert len(by_chat) == 5 and all("forecast" in name for name in by_chat)
    assert by_program == by_chat, output
