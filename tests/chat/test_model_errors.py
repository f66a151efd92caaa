"""A failed model request says once which model and endpoint failed and what to check, and keeps the
exception type LiteLLM raised (code that catches ``litellm.InternalServerError`` and the like keeps
working). Real HTTP: a port nothing listens on, and the scripted OpenAI-compatible server answering errors."""

from __future__ import annotations

import litellm
import openai
import pytest

import mcp_litellm as ml
from tests.helpers.servers import free_port
from tests.scripted_llm.server import Turn, fake_llm

SECRET = "sk-" + "5e4d3c2b1a09" * 2


@pytest.mark.parametrize("stream", [False, True])
def test_an_unreachable_endpoint_names_model_endpoint_and_what_to_check(stream):
    base = f"http://127.0.0.1:{free_port()}/v1"
    chat = ml.Chat("openai/scripted", api_base=base, api_key=SECRET, num_retries=0)
    with pytest.raises(litellm.InternalServerError) as info:  # the type LiteLLM raised before, kept
        chat.ask("hi", on_chunk=(lambda chunk: None) if stream else None)
    message = str(info.value)
    assert message.startswith(f"model request to 'openai/scripted' at {base} failed ("), message
    assert "Connection error" in message and "is running and reachable" in message, message
    assert message.count("openai/scripted") == 1 and message.count("InternalServerError") == 1, message
    assert "litellm.InternalServerError: InternalServerError" not in message
    assert SECRET not in message and SECRET not in repr(info.value)
    assert chat.messages == []  # the question was taken back, as before


def test_a_refused_key_says_to_check_the_key():
    with fake_llm([Turn("Incorrect API key provided", status=401)]) as llm:
        chat = ml.Chat("openai/scripted", api_base=llm.url, api_key=SECRET, num_retries=0)
        with pytest.raises(litellm.AuthenticationError) as info:
            chat.ask("hi")
    message = str(info.value)
    assert message.startswith(f"model request to 'openai/scripted' at {llm.url} failed (AuthenticationError: ")
    assert "Incorrect API key provided" in message
    assert "check the API key: an api_key= was given: is it the right one" in message, message
    assert SECRET not in message


def test_a_missing_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with fake_llm([Turn("never sent")]) as llm:
        chat = ml.Chat("openai/scripted", api_base=llm.url, num_retries=0)
        with pytest.raises(openai.APIError) as info:  # LiteLLM says InternalServerError here
            chat.ask("hi")
        assert llm.requests == []
    assert "OPENAI_API_KEY not set in the environment, no api_key= given" in str(info.value), str(info.value)


def test_a_router_deployment_names_its_endpoint():
    base = f"http://127.0.0.1:{free_port()}/v1"
    router = litellm.Router(model_list=[{"model_name": "fast", "litellm_params": {
        "model": "openai/scripted", "api_base": base, "api_key": SECRET}}], num_retries=0)
    chat = ml.Chat("fast", router=router)
    with pytest.raises(litellm.InternalServerError) as info:
        chat.ask("hi")
    message = str(info.value)
    assert message.startswith(f"model request to 'fast' at {base} (through the Router) failed ("), message
    assert "is running and reachable" in message and SECRET not in message


def test_the_command_line_names_an_explained_model_error_once():
    """The chat terminal's error line: the explained message already names LiteLLM's type, so it is not repeated."""
    from mcp_litellm._cli.chat import _one_line

    base = f"http://127.0.0.1:{free_port()}/v1"
    chat = ml.Chat("openai/scripted", api_base=base, api_key=SECRET, num_retries=0)
    with pytest.raises(litellm.InternalServerError) as info:
        chat.ask("hi")
    line = _one_line(info.value, SECRET)
    assert line.count("InternalServerError") == 1 and line.startswith("model request to 'openai/scripted'"), line
    assert _one_line(ValueError("plain"), None) == "ValueError: plain"  # other errors keep their type



@pytest.mark.parametrize(("case", "banner"), [("library", False), ("user-false-after", True)])
def test_a_failed_request_prints_no_litellm_banner_unless_the_user_asks(case, banner, monkeypatch, capsys):
    """LiteLLM prints "Give Feedback / Get Help" on every failed request; in library use our error says it all."""
    from mcp_litellm import _llm

    monkeypatch.setattr(litellm, "suppress_debug_info", False)  # LiteLLM's default, as in a fresh process
    monkeypatch.setattr(_llm, "_quieted", False)  # before mcp_litellm's first use of LiteLLM
    if case == "user-false-after":
        _llm.litellm_module()
        litellm.suppress_debug_info = False
    chat = ml.Chat("openai/scripted", api_base=f"http://127.0.0.1:{free_port()}/v1", api_key=SECRET, num_retries=0)
    with pytest.raises(litellm.InternalServerError):
        chat.ask("hi")
    printed = capsys.readouterr()
    assert ("Give Feedback / Get Help" in printed.out + printed.err) is banner, printed
