"""Every ``on_*`` registration of the client features can be undone: ``off_sampling``,
``off_elicitation``, ``off_human_in_the_loop``, on a client and on ``ml.config``."""

from __future__ import annotations

import mcp_litellm as ml
from tests.helpers.features import GOOD, refusal, result_json


def test_off_sampling_refuses_the_servers_requests_from_then_on(make_client, protocol):
    client = make_client("memory", protocol=protocol)
    client.on_sampling(lambda sample: "yes from the handler")
    assert result_json(client.execute_tool("sample_text", {"prompt": "hi"}))["content"][0]["text"] == \
        "yes from the handler"
    assert client.off_sampling() is client
    assert not client.sampling_settings.enabled
    assert "sampling was turned off" in refusal(client, "sample_text", {"prompt": "hi"})
    client.restart()  # the next session does not advertise sampling
    assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
    assert "sampling was turned off" not in refusal(client, "sample_text", {"prompt": "hi"})


def test_off_elicitation_refuses_the_servers_requests_from_then_on(make_client, protocol):
    client = make_client("memory", protocol=protocol)
    client.on_elicitation(lambda elicitation: dict(GOOD))
    assert result_json(client.execute_tool("elicit_form"))["action"] == "accept"
    assert client.off_elicitation() is client
    assert not client.elicitation_settings.enabled
    assert "elicitation was turned off" in refusal(client, "elicit_form")


def test_off_human_in_the_loop_lets_calls_through_again(make_client):
    client = make_client("memory")
    client.on_human_in_the_loop(lambda name, parameters: "not now")
    assert client.execute_tool("add", {"a": 1, "b": 2}).text == "Tool call was denied: not now"
    assert client.off_human_in_the_loop() is client
    assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"


def test_config_off_methods_undo_the_defaults_for_new_clients(make_client):
    ml.config.on_sampling(lambda sample: "default handler")
    ml.config.on_elicitation(lambda elicitation: {"name": "Bo", "age": 9})
    ml.config.on_human_in_the_loop(lambda name, parameters: False)
    assert ml.config.off_sampling() is ml.config
    ml.config.off_elicitation().off_human_in_the_loop()
    assert not ml.config.sampling.enabled and ml.config.sampling.handler is None
    assert not ml.config.elicitation.enabled and ml.config.elicitation.handler is None
    assert ml.config.human_in_the_loop is None
    client = make_client("memory")
    assert client.execute_tool("add", {"a": 2, "b": 2}).text == "4"  # no approval handler any more
    assert "sampling not supported" in refusal(client, "sample_text", {"prompt": "hi"}).lower()  # not advertised
