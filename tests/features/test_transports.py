"""Sampling, elicitation and roots on every transport of the fixture server, on both protocol eras."""

from __future__ import annotations

from tests.helpers.features import result_json, sampling
from tests.scripted_llm.openai import completion


def test_every_feature_on_every_transport(make_client, llm, transport, protocol, tmp_path):
    llm.reply(completion(f"answer over {transport}"))
    client = make_client(transport, protocol=protocol, sampling=sampling(),
                         elicitation=lambda e: {"name": "Ada", "email": "ada@example.com", "age": 3, "color": "red"},
                         roots=[tmp_path])
    sampled = result_json(client.execute_tool("sample_text", {"prompt": "hi"}))
    assert sampled["content"][0]["text"] == f"answer over {transport}"
    assert result_json(client.execute_tool("elicit_form"))["content"]["name"] == "Ada"
    assert result_json(client.execute_tool("client_roots")) == [{"uri": tmp_path.resolve().as_uri(),
                                                                 "name": tmp_path.name}]
