"""Client features against @modelcontextprotocol/server-everything (TypeScript SDK, 2025-11-25) over stdio."""

from __future__ import annotations

import json
import time

import pytest

import mcp_litellm as ml
from tests.helpers.features import sampling
from tests.scripted_llm.openai import completion

pytestmark = pytest.mark.thirdparty

FEATURE_TOOLS = {"trigger-sampling-request", "trigger-elicitation-request", "trigger-url-elicitation", "get-roots-list"}

FORM = {"name": "Ada Lovelace", "check": True, "firstLine": "Once upon a time", "email": "ada@example.com",
        "homepage": "https://ada.example", "birthdate": "1815-12-10", "integer": 7, "number": 2.5,
        "untitledSingleSelectEnum": "Ross", "untitledMultipleSelectEnum": ["Piano", "Drums"],
        "titledSingleSelectEnum": "hero-3", "titledMultipleSelectEnum": ["fish-2"], "legacyTitledEnum": "pet-2"}


def everything(everything_js, **kwargs):
    return ml.client("everything", "stdio", {"command": "node", "args": [str(everything_js), "stdio"]}, **kwargs)


def tool_names(client, expected=FEATURE_TOOLS, wait=5.0):
    """The tool names, once the capability-dependent tools registered after initialisation showed up."""
    deadline = time.monotonic() + wait
    names = {t.name for t in client.tools(refresh=True)}
    while not expected <= names and time.monotonic() < deadline:
        time.sleep(0.05)
        names = {t.name for t in client.tools(refresh=True)}
    return names


def test_no_capabilities_no_feature_tools(everything_js):
    with everything(everything_js) as client:
        names = tool_names(client, wait=0.5)
        assert "echo" in names
        assert not names & FEATURE_TOOLS


def test_sampling_elicitation_and_roots_tools(everything_js, llm, tmp_path):
    llm.reply(completion("The sky is blue because of Rayleigh scattering."))
    seen = []

    def elicit(elicitation):
        seen.append(elicitation)
        if elicitation.mode == "url":
            return ml.handlers.decline("not now")
        return dict(FORM)

    (tmp_path / "a").mkdir()
    with everything(everything_js, sampling=sampling(), elicitation=elicit, roots=[tmp_path / "a"]) as client:
        assert tool_names(client) >= FEATURE_TOOLS

        text = client.execute_tool("trigger-sampling-request", {"prompt": "Why is the sky blue?", "maxTokens": 42}).text
        assert "Rayleigh scattering" in text
        sampled = json.loads(text.split("\n", 1)[1])
        assert sampled["model"] == "gpt-4o-mini-2024-07-18" and sampled["stopReason"] == "endTurn"
        body = llm.last
        assert body["messages"][0] == {"role": "system", "content": "You are a helpful test server."}
        assert body["messages"][1]["content"].endswith("Why is the sky blue?")
        assert body["temperature"] == 0.7
        assert body.get("max_tokens", body.get("max_completion_tokens")) == 42

        result = client.execute_tool("trigger-elicitation-request")
        assert not result.is_error
        assert "User provided the requested information" in result.text and "Ada Lovelace" in result.text
        form = seen[0]
        assert form.mode == "form" and form.server_name == "everything"
        assert set(FORM) <= set(form.requested_schema["properties"])

        result = client.execute_tool("trigger-url-elicitation", {"url": "https://example.com/auth",
                                                                 "elicitationId": "abc-1"})
        assert "decline" in result.text.lower()
        assert (seen[1].mode, seen[1].url, seen[1].id) == ("url", "https://example.com/auth", "abc-1")

        assert (tmp_path / "a").as_uri() in client.execute_tool("get-roots-list").text
        (tmp_path / "b").mkdir()
        client.roots.add(tmp_path / "b")  # notifications/roots/list_changed: the server asks again
        deadline = time.monotonic() + 5
        while (tmp_path / "b").as_uri() not in (text := client.execute_tool("get-roots-list").text):
            assert time.monotonic() < deadline, text
            time.sleep(0.05)
        assert (tmp_path / "a").as_uri() in text


def test_invalid_form_content_is_refused_to_the_server(everything_js):
    with everything(everything_js, elicitation=lambda e: {"name": "x", "integer": 1000}) as client:
        tool_names(client, {"trigger-elicitation-request"})
        try:
            result = client.execute_tool("trigger-elicitation-request")
            text = result.text
            assert result.is_error
        except ml.ServerError as exc:
            text = exc.message
        assert "does not match the requested schema" in text and "integer" in text
        assert client.ping()


def test_url_elicitation_required_error_reaches_the_handler_and_the_call_is_retried(everything_js):
    seen = []

    def accept(elicitation):
        seen.append((elicitation.mode, elicitation.url, elicitation.id))
        return True

    with everything(everything_js, protocol="legacy", elicitation=accept) as client:
        tool_names(client, {"trigger-url-elicitation"})
        result = client.execute_tool("trigger-url-elicitation", {"url": "https://example.com/consent",
                                                                 "elicitationId": "err-1", "errorPath": True})
        assert not result.is_error, result.text
        assert "accept" in result.text.lower()
        mode, url, eid = seen[0]  # the -32042 error's URL request (the server's own prerequisite link)
        assert mode == "url" and url.startswith("https://") and eid
        assert len(seen) == 2, "the retried call ran (it asked once more, through the request path)"


def test_url_elicitation_required_without_a_taker_names_the_url(everything_js):
    with everything(everything_js, protocol="legacy", elicitation=lambda e: False) as client:
        tool_names(client, {"trigger-url-elicitation"})
        with pytest.raises(ml.ServerError, match=r"needs the user to open https://\S+; .*answered decline") as info:
            client.execute_tool("trigger-url-elicitation", {"url": "https://example.com/x", "elicitationId": "e2",
                                                            "errorPath": True})
        assert info.value.code == -32042
        assert client.is_alive()
