"""Global defaults (ml.configure / ml.config) and per-client settings; validation and secrets."""

from __future__ import annotations

import pytest

import mcp_litellm as ml
from tests.helpers.features import LLM, refusal, result_json, sampling
from tests.scripted_llm.respx_mock import MODEL
from tests.servers.fixture_server import build_server


def test_configure_returns_the_global_config():
    assert ml.configure(sampling={"enabled": True, "preferred_model": "gpt-4.1"}) is ml.config
    assert ml.config.sampling.enabled and ml.config.sampling.preferred_model == "gpt-4.1"
    ml.configure(sampling={"rate_limit": 5})  # mappings update key by key
    assert ml.config.sampling.preferred_model == "gpt-4.1" and ml.config.sampling.rate_limit == 5
    ml.configure(sampling=False)
    assert not ml.config.sampling.enabled and ml.config.sampling.rate_limit == 5
    ml.config.reset()
    assert ml.config.sampling == ml.Config().sampling


def test_global_defaults_apply_and_per_client_wins(make_client, llm, tmp_path):
    ml.configure(sampling=sampling(), roots=[tmp_path],
                 human_in_the_loop=lambda name, params: name != "add" or "no adding")
    client = make_client("memory")
    assert result_json(client.execute_tool("sample_text", {"prompt": "x"}))["content"]
    assert client.roots.paths == [tmp_path.resolve()]
    assert client.execute_tool("add", {"a": 1, "b": 2}).text == "Tool call was denied: no adding"

    own = make_client("memory", name="own", sampling={"preferred_model": "openai/gpt-4.1"}, roots=None,
                      human_in_the_loop=None)
    result_json(own.execute_tool("sample_text", {"prompt": "x"}))
    assert llm.last["model"] == "gpt-4.1"
    assert own.sampling_settings.completion_kwargs["api_base"] == LLM["api_base"]  # inherited key by key
    assert not own.roots.configured
    assert own.execute_tool("add", {"a": 1, "b": 2}).text == "3"

    off = make_client("memory", name="off", sampling=False)
    assert "not supported" in refusal(off, "sample_text", {"prompt": "x"}).lower()


def test_global_handler_registration(make_client):
    ml.config.on_sampling(lambda sample: "global handler").on_elicitation(lambda e: ml.handlers.cancel())
    client = make_client("memory")
    assert result_json(client.execute_tool("sample_text", {"prompt": "x"}))["content"][0]["text"] == "global handler"
    assert result_json(client.execute_tool("elicit_form"))["action"] == "cancel"
    ml.config.on_human_in_the_loop(ml.handlers.HumanInTheLoopHandler)
    with pytest.raises(NotImplementedError):
        ml.handlers.HumanInTheLoopHandler(tool_name="t", parameters={}, annotations=None, approval_id="1",
                                          client_name="c").execute()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"sampling": {"enabld": True}}, "unknown sampling setting"),
    ({"sampling": {"rate_limit": 0}}, "rate_limit"),
    ({"sampling": {"max_tokens": -5}}, "max_tokens"),
    ({"sampling": {"allowed_models": "gpt-4"}}, "allowed_models"),
    ({"sampling": {"preferred_model": 3}}, "preferred_model"),
    ({"sampling": {"guard": "yes"}}, "guard"),
    ({"sampling": {"router": object()}}, "router"),
    ({"sampling": "yes"}, "sampling must be"),
    ({"elicitation": {"timeout": 0}}, "timeout"),
    ({"elicitation": {"handler": 5}}, "handler"),
    ({"roots": "/tmp"}, "list of paths"),
    ({"human_in_the_loop": 1}, "handler"),
    ({"human_in_the_loop": print, "on_human_in_the_loop": print}, "not both"),
])
def test_invalid_settings_are_config_errors(make_client, kwargs, message):
    with pytest.raises(ml.ConfigError, match=message):
        make_client("memory", start=False, **kwargs)
    with pytest.raises(ml.ConfigError, match=message):
        ml.configure(**kwargs)


def test_unknown_configure_key():
    with pytest.raises(ml.ConfigError, match="unknown setting"):
        ml.configure(sampeling=True)


def test_handler_options_need_a_class(make_client):
    client = make_client("memory", start=False)
    with pytest.raises(ml.ConfigError, match="handler class"):
        client.on_sampling(lambda s: "x", model="m")
    with pytest.raises(ml.ConfigError, match="not a SamplingHandler"):
        ml.client("x", "memory", {"server": build_server()}, start=False, sampling=ml.handlers.ElicitationHandler)


def test_api_keys_stay_out_of_reprs():
    ml.configure(sampling={"completion_kwargs": {"api_key": "sk-super-secret", "api_base": "http://x"}})
    shown = repr(ml.config)
    assert "sk-super-secret" not in shown and "http://x" in shown


def test_no_model_configured_is_a_clear_refusal(make_client, llm):
    client = make_client("memory", sampling=True)
    assert "no model is configured for sampling" in refusal(client, "sample_text", {"prompt": "x"})
    assert llm.requests == []
    assert MODEL
