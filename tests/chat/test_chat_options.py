"""Misspelt or mistyped options are refused, naming the closest option (issue 33, defect 4): a Chat keyword
that is neither the chat's own nor a parameter LiteLLM's ``completion`` knows, and a bool or a wrong type for
a numeric option of a Chat or a Client (refused the way the config file refuses it). LiteLLM's own keywords
and ``completion_kwargs=`` still reach the provider's request (mocked at the HTTP level)."""

from __future__ import annotations

import difflib

import pytest

import mcp_litellm as ml
from mcp_litellm import _llm
from mcp_litellm._chat.chat import _own_options
from mcp_litellm._chat.chat_options import _NEAR_OWN
from tests.scripted_llm.openai import Turn
from tests.scripted_llm.respx_mock import API_BASE, MODEL, ScriptedLLM, litellm_respx


@pytest.fixture
def llm():
    _llm.warm_up()[0].result()  # LiteLLM imported: its parameter list is known at construction
    with litellm_respx() as router:
        yield ScriptedLLM(router)


@pytest.mark.parametrize(("keyword", "closest"), [
    ("tool_timout", "tool_timeout"), ("max_tool_round", "max_tool_rounds"), ("temprature", "temperature"),
    ("api_bse", "api_base"), ("max_tokns", "max_tokens"), ("resutl_budget", "result_budget"),
])
def test_a_misspelt_keyword_is_refused_naming_the_closest_option(llm, keyword, closest):
    with pytest.raises(ml.ConfigError) as caught:
        ml.Chat(MODEL, api_base=API_BASE, api_key="sk-test", **{keyword: 5})
    message = str(caught.value)
    assert f"unknown keyword argument {keyword}=" in message
    assert f"did you mean {closest}=?" in message
    assert "completion_kwargs=" in message  # how to pass a provider-only parameter anyway
    assert llm.requests == []


def test_with_params_refuses_a_misspelt_keyword_too(llm):
    chat = ml.Chat(MODEL, api_base=API_BASE, api_key="sk-test")
    with pytest.raises(ml.ConfigError, match="did you mean max_tokens="):
        chat.with_params(max_tokns=10)
    assert "max_tokns" not in chat.params


@pytest.mark.parametrize("option", ["tool_timeout", "max_tool_rounds"])
def test_with_params_says_a_chat_option_is_the_chats_own(option):
    # it said "unknown keyword argument tool_timeout=: did you mean tool_timeout=?" (a black-box pass)
    chat = ml.Chat(MODEL, api_base=API_BASE, api_key="sk-test")
    with pytest.raises(ml.ConfigError, match=f"{option}= is an option of the Chat itself") as info:
        chat.with_params(**{option: 3})
    assert "did you mean" not in str(info.value) and option not in chat.params


def test_litellm_keywords_reach_the_request_and_completion_kwargs_pass_through(llm):
    llm.then(Turn("hi"))
    chat = ml.Chat(MODEL, api_base=API_BASE, api_key="sk-test", temperature=0.25, max_tokens=77, seed=3,
                   num_retries=0, metadata={"run": "x"}, completion_kwargs={"extra_body": {"my_field": "v"}})
    assert chat.ask("hello").content == "hi"
    body = llm.requests[0]
    assert body["temperature"] == 0.25 and body["max_tokens"] == 77 and body["seed"] == 3
    assert body["my_field"] == "v"


def test_a_provider_only_keyword_passes_through_completion_kwargs_unchecked(llm):
    chat = ml.Chat(MODEL, completion_kwargs={"tool_timout": 5, "my_provider_flag": True})
    assert chat.params == {"tool_timout": 5, "my_provider_flag": True}
    assert chat.tool_timeout is None
    with pytest.raises(ml.ConfigError, match="completion_kwargs must be a dict"):
        ml.Chat(MODEL, completion_kwargs=["x"])


def test_a_keyword_unknown_before_litellm_loads_is_refused_before_the_first_request(llm, monkeypatch):
    with monkeypatch.context() as patched:  # as in a fresh process: LiteLLM's list not read yet
        patched.setattr(_llm, "completion_params", lambda: None)
        chat = ml.Chat(MODEL, api_base=API_BASE, api_key="sk-test", temprature=0.2)  # not near a Chat option
        with pytest.raises(ml.ConfigError, match="did you mean tool_timeout="):  # near one: refused at once
            ml.Chat(MODEL, tool_timout=5)
    with pytest.raises(ml.ConfigError, match="did you mean temperature="):
        chat.ask("hello")
    assert llm.requests == [] and chat.messages == []  # nothing sent, the question taken back


def test_no_litellm_parameter_passes_for_a_misspelt_chat_option():
    """A keyword that close to a chat option is refused before LiteLLM's list is read: none of its own is."""
    _llm.warm_up()[0].result()
    known = _llm.completion_params()
    assert known is not None and {"temperature", "api_base", "vertex_project", "top_k", "extra_body"} <= known
    assert [p for p in known if difflib.get_close_matches(p, _own_options(), cutoff=_NEAR_OWN)] == []


@pytest.mark.parametrize(("options", "message"), [
    ({"tool_timeout": True}, "tool_timeout must be a positive number of seconds (or None for each client's "
                             "request_timeout), got True"),
])
def test_chat_numeric_options_refuse_bools_and_wrong_types(options, message):
    with pytest.raises(ml.ConfigError) as caught:
        ml.Chat(MODEL, **options)
    assert message in str(caught.value)


@pytest.mark.parametrize(("options", "message"), [
    ({"max_result_chars": True}, "max_result_chars must be a positive integer (or None for no cut), got True"),
    ({"with_prefix": "yes"}, "with_prefix must be True or False, got 'yes'"),
    ({"with_prefix": 1}, "with_prefix must be True or False, got 1"),
    ({"request_timout": 5}, "request_timout (did you mean request_timeout?)"),
])
def test_client_options_are_refused_as_the_config_file_refuses_them(options, message):
    with pytest.raises(ml.ConfigError) as caught:
        ml.Client("demo", "stdio", {"command": "true"}, start=False, **options)
    assert message in str(caught.value)
