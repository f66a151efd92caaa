"""Sampling spend: each completion's tokens and cost (``litellm.completion_cost``) are counted for the server
that asked (``client.sampling_usage``), and ``max_cost`` refuses requests once the budget is spent.

A real MCP server (the fixture server's ``sample_text`` tool) asks for the completions; the model is
faked at the HTTP level and reports usage, and LiteLLM prices it from its local cost map.
"""

from __future__ import annotations

import pytest

import mcp_litellm as ml
from mcp_litellm._llm import litellm_module
from tests.helpers.features import refusal, result_json, sampling
from tests.scripted_llm.openai import completion

PER_REQUEST = 5, 5  # the fake model's prompt and completion tokens (tests/features/conftest.completion)


def price() -> float:
    """What one completion of gpt-4o-mini with the fake model's usage costs, as LiteLLM prices it."""
    prompt, completion_part = litellm_module().cost_per_token(model="gpt-4o-mini", prompt_tokens=PER_REQUEST[0],
                                                              completion_tokens=PER_REQUEST[1])
    assert prompt + completion_part > 0, "gpt-4o-mini must be in LiteLLM's local cost map"
    return float(prompt + completion_part)


@pytest.mark.parametrize("transport", ["stdio", "memory"])
def test_sampling_usage_counts_each_servers_completions(make_client, llm, protocol, transport):
    client = make_client(transport, protocol=protocol, sampling=sampling())
    other = make_client("memory", name="other", sampling=sampling())
    assert client.sampling_usage == ml.Usage() and client.sampling_usage.cost is None  # nothing asked yet

    for _ in range(3):
        result_json(client.execute_tool("sample_text", {"prompt": "hello"}))
    result_json(other.execute_tool("sample_text", {"prompt": "hello"}))

    usage = client.sampling_usage
    assert isinstance(usage, ml.Usage)
    assert (usage.requests, usage.prompt_tokens, usage.completion_tokens) == (3, 15, 15)
    assert usage.cost == pytest.approx(3 * price())
    assert other.sampling_usage.requests == 1 and other.sampling_usage.cost == pytest.approx(price())
    assert len(llm.requests) == 4


def test_max_cost_refuses_requests_once_the_budget_is_spent(make_client, llm, protocol):
    budget = 2.5 * price()  # two completions stay under it; the third takes the spending past it
    client = make_client("stdio", protocol=protocol, sampling=sampling(max_cost=budget))
    for _ in range(3):
        result_json(client.execute_tool("sample_text", {"prompt": "hello"}))
    assert client.sampling_usage.cost == pytest.approx(3 * price())

    refused = refusal(client, "sample_text", {"prompt": "hello"})
    assert "sampling budget reached" in refused and "max_cost" in refused and "'fixture'" in refused
    assert len(llm.requests) == 3, "the refused request never reached the model"
    assert client.sampling_usage.requests == 3, "a refused request costs nothing"

    other = make_client("memory", name="other", sampling=sampling(max_cost=budget))
    result_json(other.execute_tool("sample_text", {"prompt": "hello"}))  # each server has its own budget


def test_a_budget_survives_a_new_sampling_handler_and_a_restart(make_client, llm):
    client = make_client("memory", sampling=sampling(max_cost=price() / 2))
    result_json(client.execute_tool("sample_text", {"prompt": "hello"}))
    client.on_sampling(None)  # a new handler (here: the default completion again) keeps what was spent
    client.restart()
    assert "sampling budget reached" in refusal(client, "sample_text", {"prompt": "hello"})
    assert client.sampling_usage.requests == 1 and len(llm.requests) == 1


def test_handlers_default_completion_is_counted_and_unpriced_models_count_nothing(make_client, llm, caplog):
    class Handler(ml.handlers.SamplingHandler):
        async def execute(self):
            return self.accept(await self.adefault_completion())

    client = make_client("memory", sampling=sampling(handler=Handler, max_cost=1.0))
    result_json(client.execute_tool("sample_text", {"prompt": "hello"}))
    assert client.sampling_usage.requests == 1 and client.sampling_usage.cost == pytest.approx(price())

    unpriced = make_client("memory", name="unpriced",
                           sampling=sampling(default_model="openai/not-a-priced-model", max_cost=1e-12))
    llm.reply(completion("one")).reply(completion("two"))
    with caplog.at_level("WARNING", logger="mcp_litellm"):
        for _ in range(2):  # the budget is tiny, but nothing it could count was spent
            result_json(unpriced.execute_tool("sample_text", {"prompt": "hello"}))
    usage = unpriced.sampling_usage
    assert (usage.requests, usage.prompt_tokens, usage.cost) == (2, 10, None)
    warnings = [r.getMessage() for r in caplog.records if "no price" in r.getMessage()]
    assert len(warnings) == 1 and "not-a-priced-model" in warnings[0], "warned once per model"


def test_completions_through_a_router_alias_are_priced_by_the_deployment(make_client, llm):
    from tests.helpers.features import LLM

    router = litellm_module().Router(model_list=[{"model_name": "cheap",
                                                  "litellm_params": {"model": "openai/gpt-4o-mini", **LLM}}])
    client = make_client("memory", sampling={"enabled": True, "router": router, "max_cost": 1.5 * price()})
    for _ in range(2):
        result_json(client.execute_tool("sample_text", {"prompt": "hello"}))
    assert client.sampling_usage.cost == pytest.approx(2 * price())
    assert "sampling budget reached" in refusal(client, "sample_text", {"prompt": "hello"})
    assert len(llm.requests) == 2


def test_group_shows_each_servers_sampling_usage(make_client, llm):
    first = make_client("memory", name="first", sampling=sampling())
    second = make_client("memory", name="second", sampling=sampling())
    with ml.ClientGroup([first, second]) as group:
        result_json(group["first"].execute_tool("sample_text", {"prompt": "hello"}))
        usage = group.sampling_usage
    assert set(usage) == {"first", "second"}
    assert usage["first"].requests == 1 and usage["second"] == ml.Usage()


@pytest.mark.parametrize("bad", [0, -1, "1", True])
def test_max_cost_must_be_a_positive_number(bad):
    with pytest.raises(ml.ConfigError, match="max_cost"):
        ml.configure(sampling={"max_cost": bad})
