"""The demo server's sampling and elicitation tools (``write_haiku``, ``greet``) on both protocol eras."""

from __future__ import annotations

import pytest

import mcp_litellm as ml
from mcp_litellm.demo_server import build_server
from tests.helpers.features import LLM
from tests.scripted_llm.openai import completion


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_write_haiku_samples_the_clients_model_and_greet_elicits(llm, protocol):
    llm.reply(completion("old pond / a frog jumps in / splash"))
    asked = []

    def answer(elicitation):
        asked.append((elicitation.message, elicitation.requested_schema["properties"]["language"]["oneOf"][1]))
        return {"name": "Ada", "language": "fr"}

    sampling = {"enabled": True, "default_model": "openai/gpt-4o-mini", "completion_kwargs": LLM}
    with ml.client("demo", config={"server": build_server()}, protocol=protocol, sampling=sampling,
                   elicitation=answer) as client:
        haiku = client.execute_tool("write_haiku", {"topic": "frogs"})
        assert haiku.text.startswith("old pond / a frog jumps in / splash\n(written by gpt-4o-mini")
        assert llm.last["messages"][-1]["content"] == "Write a haiku about frogs."
        assert client.execute_tool("greet").text == "Bonjour, Ada!"
        assert asked == [("Who is there?", {"const": "fr", "title": "French"})]


def test_without_the_capabilities_the_tools_say_what_the_client_must_do():
    with ml.client("demo", config={"server": build_server()}, protocol="legacy") as client:
        # 2025-11-25: the server sees the refusal and its tool fails saying why
        haiku, greeting = client.execute_tool("write_haiku"), client.execute_tool("greet")
        assert haiku.is_error and "the client must allow sampling (sampling=True" in haiku.text
        assert greeting.is_error and "the client must handle elicitation" in greeting.text
    with ml.client("demo", config={"server": build_server()}) as client:
        # 2026-07-28: the request comes back inside the call, and the client says what to enable
        with pytest.raises(ml.ConfigError, match=r"asked this client for sampling, which is not enabled on it "
                                                 r".*: enable it with sampling=True .*--allow-sampling"):
            client.execute_tool("write_haiku")
        with pytest.raises(ml.ConfigError, match="asked this client for elicitation"):
            client.execute_tool("greet")
        assert client.execute_tool("add", {"a": 1, "b": 1}).text == "2"
    declined = ml.client("demo", config={"server": build_server()}, elicitation=lambda e: False)
    try:
        assert declined.execute_tool("greet").text == "no greeting: the user chose to decline"
    finally:
        declined.stop()
