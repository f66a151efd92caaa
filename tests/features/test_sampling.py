"""Sampling through LiteLLM against the fixture server, on both protocol eras; the LLM is faked at HTTP level."""

from __future__ import annotations

import threading
from typing import ClassVar

import mcp_litellm as ml
from tests.helpers.features import LLM, refusal, result_json, sampling
from tests.scripted_llm.openai import completion


def test_text_sampling_goes_through_litellm(make_client, llm, protocol):
    llm.reply(completion("Paris is the capital.", model="gpt-4o-mini-2024-07-18"))
    client = make_client("memory", protocol=protocol, sampling=sampling())
    assert client.protocol_version.startswith("2025" if protocol == "legacy" else "2026")

    out = result_json(client.execute_tool("sample_text", {"prompt": "Capital of France?", "system_prompt": "Be brief.",
                                                          "temperature": 0.2, "stop": ["END"], "max_tokens": 77,
                                                          "metadata": {"trace": "t-1"}}))

    assert out == {"content": [{"type": "text", "text": "Paris is the capital."}],
                   "model": "gpt-4o-mini-2024-07-18", "stop_reason": "endTurn"}
    body = llm.last
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"] == [{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "Capital of France?"}]
    assert body["temperature"] == 0.2
    assert body["stop"] == ["END"]
    assert body.get("max_tokens", body.get("max_completion_tokens")) == 77
    assert "metadata" not in body  # the server's metadata stays in LiteLLM (callbacks, logs), not the provider


def test_sampling_over_stdio_on_both_eras(make_client, llm, protocol):
    llm.reply(completion("stdio answer"))
    client = make_client("stdio", protocol=protocol, sampling=sampling())
    out = result_json(client.execute_tool("sample_text", {"prompt": "hello"}))
    assert out["content"][0]["text"] == "stdio answer"
    assert llm.last["messages"] == [{"role": "user", "content": "hello"}]


def test_image_input_reaches_the_model_as_an_image_part(make_client, llm, protocol):
    llm.reply(completion("A tiny transparent pixel."))
    client = make_client("memory", protocol=protocol, sampling=sampling())
    out = result_json(client.execute_tool("sample_image", {"question": "What is in the picture?"}))
    assert out["content"][0]["text"] == "A tiny transparent pixel."
    (message,) = llm.last["messages"]
    assert message["role"] == "user"
    assert message["content"][0] == {"type": "text", "text": "What is in the picture?"}
    assert message["content"][1]["type"] == "image_url"
    assert message["content"][1]["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")


def test_tools_round_trip_tool_use_and_tool_result(make_client, llm, protocol):
    llm.reply(completion(None, finish_reason="tool_calls",
                         tool_calls=[{"id": "call_abc", "name": "get_weather", "arguments": {"city": "Paris"}}]))
    llm.reply(completion("It is 21C and sunny in Paris."))
    client = make_client("memory", protocol=protocol, sampling=sampling())

    first, second = result_json(client.execute_tool("sample_with_tools", {"question": "Weather in Paris?",
                                                                          "tool_choice": "required"}))

    assert first["stop_reason"] == "toolUse"
    assert first["content"] == [{"type": "tool_use", "id": "call_abc", "name": "get_weather",
                                 "input": {"city": "Paris"}}]
    assert second["content"] == [{"type": "text", "text": "It is 21C and sunny in Paris."}]
    assert second["stop_reason"] == "endTurn"
    ask, answer = llm.requests
    assert ask["tool_choice"] == "required"
    assert ask["tools"][0]["function"]["name"] == "get_weather"
    assert ask["tools"][0]["function"]["parameters"]["required"] == ["city"]
    assert answer["messages"][1]["tool_calls"][0]["id"] == "call_abc"
    assert answer["messages"][1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert answer["messages"][2] == {"role": "tool", "tool_call_id": "call_abc", "content": "Paris: 21C and sunny"}


def test_length_stop_reason_and_max_tokens_cap(make_client, llm):
    llm.reply(completion("truncated", finish_reason="length"))
    client = make_client("memory", sampling=sampling(max_tokens=16))
    out = result_json(client.execute_tool("sample_text", {"prompt": "long story", "max_tokens": 4000}))
    assert out["stop_reason"] == "maxTokens"
    assert llm.last.get("max_tokens", llm.last.get("max_completion_tokens")) == 16


def test_hint_selects_an_allowed_model(make_client, llm):
    client = make_client("memory", sampling=sampling(allowed_models=["openai/gpt-4o-mini", "openai/gpt-4.1"]))
    result_json(client.execute_tool("sample_text", {"prompt": "x", "hints": ["claude", "4.1"]}))
    assert llm.last["model"] == "gpt-4.1"
    result_json(client.execute_tool("sample_text", {"prompt": "x", "hints": ["o1-pro"]}))
    assert llm.last["model"] == "gpt-4o-mini"  # the unallowed hint is ignored: the default model


def test_priorities_rank_allowed_models_with_litellm_metadata(make_client, llm):
    client = make_client("memory", sampling=sampling(allowed_models=["openai/gpt-4.1", "openai/gpt-4o-mini"],
                                                     default_model=None))
    result_json(client.execute_tool("sample_text", {"prompt": "x", "cost_priority": 1.0, "speed_priority": 0.5}))
    assert llm.last["model"] == "gpt-4o-mini"
    result_json(client.execute_tool("sample_text", {"prompt": "x", "intelligence_priority": 1.0}))
    assert llm.last["model"] == "gpt-4.1"


def test_preferred_model_string_and_callable(make_client, llm):
    seen = []

    def choose(preferences):
        seen.append(preferences)
        return "openai/gpt-4.1" if preferences and preferences.intelligence_priority else None

    client = make_client("memory", sampling=sampling(preferred_model=choose))
    result_json(client.execute_tool("sample_text", {"prompt": "x", "intelligence_priority": 0.9, "hints": ["mini"]}))
    assert llm.last["model"] == "gpt-4.1"
    assert seen[0].hints[0].name == "mini"
    result_json(client.execute_tool("sample_text", {"prompt": "x"}))
    assert seen[1] is None
    assert llm.last["model"] == "gpt-4o-mini"  # callable returned None: the built-in policy (default model)

    fixed = make_client("memory", name="fixed", sampling=sampling(preferred_model="openai/gpt-4.1"))
    result_json(fixed.execute_tool("sample_text", {"prompt": "x", "hints": ["mini"]}))
    assert llm.last["model"] == "gpt-4.1"


def test_router_alias(make_client, llm):
    from mcp_litellm._llm import litellm_module

    router = litellm_module().Router(model_list=[
        {"model_name": "fast", "litellm_params": {"model": "openai/gpt-4o-mini", **LLM}},
        {"model_name": "smart", "litellm_params": {"model": "openai/gpt-4.1", **LLM}},
    ])
    llm.reply(completion("via router"))
    client = make_client("memory", sampling={"enabled": True, "router": router})
    out = result_json(client.execute_tool("sample_text", {"prompt": "x", "hints": ["smart"]}))
    assert out["content"][0]["text"] == "via router"
    assert llm.last["model"] == "gpt-4.1"
    result_json(client.execute_tool("sample_text", {"prompt": "x"}))
    assert llm.last["model"] == "gpt-4o-mini"  # no hint: the first of the router's models


def test_router_aliases_are_ranked_by_the_models_behind_them(make_client, llm):
    from mcp_litellm._llm import litellm_module

    router = litellm_module().Router(model_list=[
        {"model_name": "smart", "litellm_params": {"model": "openai/gpt-4.1", **LLM}},
        {"model_name": "cheap", "litellm_params": {"model": "openai/gpt-4o-mini", **LLM}},
        {"model_name": "mystery-a", "litellm_params": {"model": "openai/not-a-known-model-a", **LLM}},
        {"model_name": "mystery-b", "litellm_params": {"model": "openai/not-a-known-model-b", **LLM}},
    ])
    client = make_client("memory", sampling={"enabled": True, "router": router, "default_model": "smart",
                                             "allowed_models": ["smart", "cheap"]})
    result_json(client.execute_tool("sample_text", {"prompt": "x", "cost_priority": 1.0, "speed_priority": 0.5}))
    assert llm.last["model"] == "gpt-4o-mini", "cost and speed pick the alias of the cheap model, not the first"
    result_json(client.execute_tool("sample_text", {"prompt": "x", "intelligence_priority": 1.0}))
    assert llm.last["model"] == "gpt-4.1"
    unknown = make_client("memory", name="unknown", sampling={
        "enabled": True, "router": router, "default_model": "mystery-b", "allowed_models": ["mystery-a", "mystery-b"]})
    result_json(unknown.execute_tool("sample_text", {"prompt": "x", "cost_priority": 1.0}))
    assert llm.last["model"] == "not-a-known-model-b", "nothing tells them apart: the default model wins"


def test_guard_rejects_with_reason_and_the_llm_is_not_called(make_client, llm, protocol):
    def guard(sample):
        return "too long" if len(sample.message) > 10 else True

    client = make_client("memory", protocol=protocol, sampling=sampling(guard=guard))
    assert "Sampling request rejected: too long" in refusal(client, "sample_text", {"prompt": "x" * 50})
    assert llm.requests == []
    assert result_json(client.execute_tool("sample_text", {"prompt": "short"}))["content"]
    assert len(llm.requests) == 1


def test_rate_limit_per_server(make_client, llm):
    client = make_client("memory", sampling=sampling(rate_limit=2))
    for _ in range(2):
        result_json(client.execute_tool("sample_text", {"prompt": "x"}))
    assert "rate limit" in refusal(client, "sample_text", {"prompt": "x"})
    assert len(llm.requests) == 2
    other = make_client("memory", name="other", sampling=sampling(rate_limit=2))
    result_json(other.execute_tool("sample_text", {"prompt": "x"}))  # a separate server has its own budget


def test_rate_limit_counts_only_requests_the_guard_let_through(make_client, llm):
    def guard(sample):
        return "off topic" if "bad" in sample.message else True

    client = make_client("memory", sampling=sampling(rate_limit=2, guard=guard))
    for _ in range(3):
        assert "off topic" in refusal(client, "sample_text", {"prompt": "bad"})
    for _ in range(2):
        result_json(client.execute_tool("sample_text", {"prompt": "good"}))
    assert "rate limit" in refusal(client, "sample_text", {"prompt": "good"})
    assert len(llm.requests) == 2


def test_approval_step_denies_and_defers(make_client, llm, protocol):
    decisions = iter([False, "deferred"])

    def approval(sample):
        decision = next(decisions)
        if decision != "deferred":
            return decision

        def approve_later():
            while sample.id not in ml.handlers.HumanInTheLoopRegistry.pending():
                threading.Event().wait(0.01)
            ml.handlers.HumanInTheLoopRegistry.approve(sample.id)

        threading.Thread(target=approve_later, daemon=True).start()
        return ml.handlers.defer(30)

    client = make_client("memory", protocol=protocol, sampling=sampling(approval=approval))
    assert "not approved" in refusal(client, "sample_text", {"prompt": "x"})
    assert llm.requests == []
    out = result_json(client.execute_tool("sample_text", {"prompt": "x"}))
    assert out["content"][0]["text"] == "Hello from the model"


def test_llm_errors_become_error_responses_and_never_leak_the_key(make_client, llm, protocol):
    llm.reply({"error": {"message": "Incorrect API key provided: sk-test-secret-value", "type": "invalid_request_error",
                         "code": "invalid_api_key"}}, status=401)
    client = make_client("memory", protocol=protocol, sampling=sampling())
    text = refusal(client, "sample_text", {"prompt": "x"})
    assert "sampling failed on the client" in text
    assert "sk-test-secret-value" not in text
    assert client.is_alive()
    assert result_json(client.execute_tool("sample_text", {"prompt": "again"}))["content"]  # the session survives


def test_sampling_is_off_by_default_and_refused(make_client, llm, protocol):
    client = make_client("memory", protocol=protocol)
    assert "not supported" in refusal(client, "sample_text", {"prompt": "x"}).lower()
    assert llm.requests == []
    if protocol == "legacy":  # a raw push request (ctx.session.create_message) is refused the same way
        assert "not supported" in refusal(client, "ask_model", {"question": "x"}).lower()


class Careful(ml.handlers.SamplingHandler):
    default_options: ClassVar[dict] = {"model": "openai/gpt-4.1", "limit": 100}
    events: ClassVar[list[str]] = []

    @ml.handlers.guard
    def short_enough(self):
        return len(self.sample.message) <= self.options["limit"] or "Message too long"

    def before_execute(self):
        self.events.append(f"before {self.client_name}")

    def execute(self):
        response = self.default_completion(self.options["model"])
        return self.accept(response)

    async def after_execute(self, result):
        self.events.append(f"after {result.kind}")


def test_handler_class_with_options_guard_hooks_and_default_completion(make_client, llm, protocol):
    Careful.events = []
    client = make_client("memory", protocol=protocol, start=False, sampling=sampling())
    client.on_sampling(Careful, model="openai/gpt-4o-mini", limit=20)
    client.start()
    out = result_json(client.execute_tool("sample_text", {"prompt": "short one"}))
    assert out["content"][0]["text"] == "Hello from the model"
    assert llm.last["model"] == "gpt-4o-mini"  # the registration option overrode the class default
    assert Careful.events == ["before fixture", "after accept"]
    assert "Message too long" in refusal(client, "sample_text", {"prompt": "x" * 30})
    assert len(llm.requests) == 1


class UsesTheHelper(ml.handlers.SamplingHandler):
    def execute(self):
        return self.accept(self.default_completion())


class SaysYes(ml.handlers.SamplingHandler):
    async def execute(self):
        return True  # the default completion


def test_handler_model_options_reach_the_default_completion(make_client, llm, protocol):
    client = make_client("memory", protocol=protocol, start=False,
                         sampling=sampling(default_model=None, allowed_models=["openai/gpt-4o-mini", "openai/o3"]))
    client.on_sampling(UsesTheHelper, default_model="openai/gpt-4.1")
    client.start()
    result_json(client.execute_tool("sample_text", {"prompt": "x"}))
    assert llm.last["model"] == "gpt-4.1"  # the option, not the first allowed model
    result_json(client.execute_tool("sample_text", {"prompt": "x", "hints": ["o3"]}))
    assert llm.last["model"] == "o3"  # an allowed hint still comes first in the policy
    client.on_sampling(SaysYes, model="openai/gpt-4.1-nano")
    result_json(client.execute_tool("sample_text", {"prompt": "x", "hints": ["o3"]}))
    assert llm.last["model"] == "gpt-4.1-nano"  # model= skips the policy


def test_plain_handlers_sync_async_failing_and_rejecting(make_client, llm, protocol):
    async def async_handler(sample):
        return f"echo: {sample.message} ({sample.system_prompt}, {sample.max_tokens})"

    client = make_client("memory", protocol=protocol, sampling=sampling(handler=async_handler))
    out = result_json(client.execute_tool("sample_text", {"prompt": "hi", "system_prompt": "sys", "max_tokens": 9}))
    assert out["content"][0]["text"] == "echo: hi (sys, 9)"
    assert llm.requests == []

    def broken(sample):
        raise RuntimeError("handler exploded")

    client.on_sampling(broken)
    assert "handler exploded" in refusal(client, "sample_text", {"prompt": "x"})
    client.on_sampling(lambda sample: False)
    assert "rejected" in refusal(client, "sample_text", {"prompt": "x"})
    client.on_sampling(lambda sample: ml.handlers.reject("not today"))
    assert "not today" in refusal(client, "sample_text", {"prompt": "x"})
    client.on_sampling(lambda sample: True)  # True: the default LiteLLM completion
    assert result_json(client.execute_tool("sample_text", {"prompt": "x"}))["content"][0]["text"] == \
        "Hello from the model"
    assert llm.last["model"] == "gpt-4o-mini"


def test_sync_handler_may_call_the_client_synchronously(make_client, llm):
    def handler(sample):
        names = {t.name for t in client.tools()}
        return f"{len(names)} tools, echo={client.execute_tool('echo', {'message': 'inner'}).text}"

    client = make_client("stdio", protocol="legacy", sampling=handler)
    out = result_json(client.execute_tool("sample_text", {"prompt": "x"}))
    assert out["content"][0]["text"].endswith("tools, echo=inner")


def test_registering_on_a_running_client_reinitialises_it(make_client, llm, protocol):
    client = make_client("stdio", protocol=protocol)
    pid = client.execute_tool("pid").text
    assert "not supported" in refusal(client, "sample_text", {"prompt": "x"}).lower()
    client.on_sampling(lambda sample: "now enabled")
    assert client.execute_tool("pid").text != pid  # the session (and stdio process) was re-initialised
    assert result_json(client.execute_tool("sample_text", {"prompt": "x"}))["content"][0]["text"] == "now enabled"
    pid = client.execute_tool("pid").text
    client.on_sampling(lambda sample: "swapped")  # already advertised: no restart
    assert client.execute_tool("pid").text == pid
    assert result_json(client.execute_tool("sample_text", {"prompt": "x"}))["content"][0]["text"] == "swapped"
