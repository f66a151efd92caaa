"""Prompts of the fixture server on every transport: listing, rendering, argument checks, completion."""

from __future__ import annotations

import pytest

import mcp_litellm as ml


def test_prompts_listing_and_arguments(make_client, transport):
    client = make_client(transport)
    assert {"greeting", "review", "rich"} <= {p.name for p in client.prompts()}
    greeting = client.prompt("greeting")
    assert isinstance(greeting, ml.Prompt) and greeting.description == "Greet someone by name."
    assert greeting.arguments == [ml.PromptArgument("name", None, True), ml.PromptArgument("time", None, False)]
    with pytest.raises(ml.NotFoundError):
        client.prompt("nope")


def test_messages_render_text_images_and_embedded_resources(make_client, transport):
    client = make_client(transport)
    assert client.prompt("greeting").messages({"name": "Ada", "time": "evening"}) == [
        {"role": "user", "content": "Good evening, Ada! Please greet me back."}]
    assert client.prompt("review").messages(arguments={"code": "x = 1"}) == [
        {"role": "user", "content": "Review this code:\nx = 1"},
        {"role": "assistant", "content": "Sure, looking at it now."},
    ]
    text, image, embedded = client.prompt("rich").messages({"topic": "pixels"})
    assert text == {"role": "user", "content": "Tell me about pixels."}
    assert image["role"] == "user" and image["content"][0]["type"] == "image_url"
    assert image["content"][0]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    assert embedded == {"role": "user", "content": "# Fixture\nThis is the readme."}


def test_argument_problems_are_config_errors_before_any_request(make_client):
    client = make_client("memory")
    greeting = client.prompt("greeting")
    client.stop()  # a request would now fail with TransportError: the check must come first
    with pytest.raises(ml.ConfigError, match="'name'"):
        greeting.messages({})
    with pytest.raises(ml.ConfigError, match="'colour'"):
        greeting.messages({"name": "Ada", "colour": "red"})
    with pytest.raises(ml.TransportError):
        greeting.messages({"name": "Ada"})


def test_non_string_arguments_are_sent_as_json_text(make_client):
    client = make_client("memory")
    assert client.prompt("review").messages({"code": [1, 2]})[0]["content"] == "Review this code:\n[1, 2]"


def test_completion(make_client, transport):
    client = make_client(transport)
    completion = client.prompt("greeting").complete("name", "al")
    assert completion == ml.Completion(values=["Alice", "Albert"], total=2, has_more=False)
    assert client.prompt("review").complete("code", "x").values == []


def test_completion_without_server_support_is_unsupported():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("plain")

    @server.prompt()
    def hello(name: str) -> str:
        return f"hello {name}"

    client = ml.client("plain", "memory", {"server": server})
    try:
        with pytest.raises(ml.UnsupportedFeature):
            client.prompt("hello").complete("name", "a")
    finally:
        client.stop()


async def test_async_twins(make_client):
    client = make_client("memory")
    assert len(await client.aprompts()) >= 3
    greeting = await client.aprompt("greeting")
    assert (await greeting.amessages({"name": "Bo"}))[0]["content"] == "Good morning, Bo! Please greet me back."
    assert (await greeting.acomplete("name", "b")).values == ["Bob"]
